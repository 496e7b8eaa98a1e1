// Matrix element swizzles: _m<row><col> (0-based) and _<row><col> (1-based); one
// element of a matrix variable is writable, several form a vector.
RWStructuredBuffer<float4> Out : register(u0);

[shader("compute")] [numthreads(1, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float2x3 m = float2x3(1, 2, 3, 4, 5, 6);
    m._m01 = m._23;
    m._11 += 1;
    float3 picked = m._m00_m12_m01;
    Out[id.x] = float4(picked, m._21);
}
