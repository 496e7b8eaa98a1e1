// Waves.hlsl — the seed example, in the form the mission specifies: one compute
// kernel that totals a buffer one wave at a time, and one pixel shader that samples
// a height map and takes its screen-space slopes from the quad neighbours.
// The reflection each entry point must produce:
//   CSSum (Compute): Basic, Arithmetic = 0x5
//   PSSlope (Pixel): Quad = 0x80

StructuredBuffer<uint> Values : register(t0);
RWByteAddressBuffer Total : register(u1);

[shader("compute")]
[numthreads(64, 1, 1)]
void CSSum(uint3 id : SV_DispatchThreadID)
{
    // Each wave reduces its own values first, so only one lane per wave touches
    // the shared total: Total's first word ends up holding the sum of Values
    // (modulo 2^32) however the threads are split into waves.
    uint waveTotal = WaveActiveSum(Values[id.x]);
    if (WaveIsFirstLane())
        Total.InterlockedAdd(0, waveTotal);
}

Texture2D<float> Height : register(t2);
SamplerState Linear : register(s3);

[shader("pixel")]
float4 PSSlope(float4 pos : SV_Position, float2 uv : TEXCOORD0) : SV_Target
{
    // An implicit-LOD sample: the level comes from uv's derivatives across the
    // quad, so every lane of the quad, helper lanes included, samples too. The
    // quad reads then give the height differences to the horizontal and
    // vertical neighbours (a helper neighbour contributes its own sample).
    float h = Height.Sample(Linear, uv);
    float dx = QuadReadAcrossX(h) - h;
    float dy = QuadReadAcrossY(h) - h;
    return float4(abs(dx), abs(dy), h, 1);
}
