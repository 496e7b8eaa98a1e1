#version 450
// Workgroup memory for the runner's limit check: a scalar used only through
// an atomic and an array of 4 MiB, more than any device's
// maxComputeSharedMemorySize (sizes at natural alignment: 4 + 262144*16).
layout(local_size_x = 64) in;

layout(set = 0, binding = 0) buffer Out { uint data[]; };

shared uint counter;
shared uvec4 big[262144];
shared uint unused[1000];

void main() {
    atomicAdd(counter, 1u);
    big[gl_LocalInvocationIndex] = uvec4(gl_LocalInvocationIndex);
    barrier();
    data[gl_GlobalInvocationID.x] = big[63u - gl_LocalInvocationIndex].x;
}
