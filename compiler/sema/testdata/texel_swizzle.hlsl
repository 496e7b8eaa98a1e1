// Partial texel writes on RWTexture2D (read-modify-write of the whole texel) and
// swizzled texel reads.
RWTexture2D<float4> Image : register(u0);
RWTexture2D<uint> Count : register(u1);

[shader("compute")] [numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    Image[id.xy].rb = float2(1, 0);
    Image[id.xy].g += 0.5;
    float2 ag = Image[id.xy].ag;
    Count[id.xy].x += (uint)ag.x;
}
