#version 450
// Writes what each invocation sees of its subgroup, so the test can compute
// the expected subgroupAdd/ballot values from the reported lane layout
// instead of assuming one.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require

layout(local_size_x = 64) in;

layout(set = 0, binding = 0) readonly buffer In { uint vin[]; };
// info[i] = (gl_SubgroupSize, gl_SubgroupInvocationID, gl_SubgroupID, subgroupElect())
layout(set = 0, binding = 1) writeonly buffer Info { uvec4 info[]; };
// res[i] = (subgroupAdd, subgroupExclusiveAdd, ballot(odd).x, ballot(odd).y)
layout(set = 0, binding = 2) writeonly buffer Res { uvec4 res[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    uint v = vin[i];
    uvec4 b = subgroupBallot((v & 1u) == 1u);
    info[i] = uvec4(gl_SubgroupSize, gl_SubgroupInvocationID, gl_SubgroupID, subgroupElect() ? 1u : 0u);
    res[i] = uvec4(subgroupAdd(v), subgroupExclusiveAdd(v), b.x, b.y);
}
