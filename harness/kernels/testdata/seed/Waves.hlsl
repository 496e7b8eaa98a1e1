// Waves.hlsl — the seed example: one compute kernel that sums a wave and one pixel
// shader that takes screen-space slopes from its quad neighbours.
// (The seed's original text was not available in this repository's sources; this
// file reproduces its two entry points and the reflection they must produce:
//   CSSum (Compute): Basic, Arithmetic = 0x5
//   PSSlope (Pixel): Quad = 0x80)

StructuredBuffer<uint> Input : register(t0);
RWStructuredBuffer<uint> Output : register(u1);

[shader("compute")]
[numthreads(64, 1, 1)]
void CSSum(uint3 id : SV_DispatchThreadID)
{
    // One atomic per wave instead of one per thread: the wave's first lane adds
    // the wave's sum, so Output[0] ends up as the sum of all inputs.
    uint sum = WaveActiveSum(Input[id.x]);
    if (WaveIsFirstLane())
        InterlockedAdd(Output[0], sum);
}

[shader("pixel")]
float4 PSSlope(float4 pos : SV_Position, float2 uv : TEXCOORD0) : SV_Target
{
    float dx = QuadReadAcrossX(uv.x) - uv.x;
    float dy = QuadReadAcrossY(uv.y) - uv.y;
    return float4(dx, dy, 0.0, 1.0);
}
