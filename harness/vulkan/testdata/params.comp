#version 450
// One storage buffer (set 0), one uniform buffer (set 1) and push
// constants: d[i] = d[i] * mul + add + offset for i < count.
layout(local_size_x = 16) in;

layout(set = 0, binding = 0) buffer Data { uint d[]; };
layout(set = 1, binding = 3) uniform Params { uint mul; uint add; } params;
layout(push_constant) uniform Push { uint offset; uint count; } pc;

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < pc.count) {
        d[i] = d[i] * params.mul + params.add + pc.offset;
    }
}
