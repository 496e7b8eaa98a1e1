// [[vk::push_constant]] on a struct variable and on ConstantBuffer<T> (storage
// layout, no binding). SPIR-V only: WebGPU has no push constants.
struct Push { uint offset; float bias; float3 dir; };
[[vk::push_constant]] Push pc;
RWStructuredBuffer<float> Out : register(u0);

[shader("compute")] [numthreads(8, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    Out[id.x + pc.offset] = pc.bias + pc.dir.y;
}
