#version 450
// Keeps lavapipe busy (60000 serial steps per invocation, times as many
// workgroups as the test dispatches) to exercise the runner's dispatch
// timeout. llvmpipe silently stops loops after 65535 iterations in total,
// so the length comes from the number of workgroups, not the loop.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint acc[]; };

void main() {
    uint a = gl_GlobalInvocationID.x;
    for (uint i = 0u; i < 60000u; i++) {
        a = a * 1664525u + 1013904223u + (a >> 7);
    }
    acc[gl_GlobalInvocationID.x] = a;
}
