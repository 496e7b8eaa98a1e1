// Global initializers are folded to constants: swizzles, conversions, arithmetic on
// vectors, references to other static consts, arrays and structs of them.
struct Pair { float2 a; int b; };
static const float3 Base = float3(1, 2, 3);
static const float3 Swz = Base.zyx * 2 + 1;
static const int2 Conv = (int2)Swz.xy;
static const Pair P = { Swz.xy, -Conv.y };
static const float2 Tbl[2] = { Base.xy, float2(Conv) };
static uint Mutable = 7u + 1;
RWStructuredBuffer<float> Out : register(u0);

[shader("compute")] [numthreads(1, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    Mutable += id.x;
    Out[id.x] = Swz.x + P.a.y + (float)P.b + Tbl[1].x + Mutable;
}
