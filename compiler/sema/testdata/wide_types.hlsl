// 64-bit types (SPIR-V only: WGSL and MSL lack them): literal suffixes l/ull, folding,
// shifts, conversions, 64-bit wave operations, doubles in buffers (8-byte alignment).
struct Wide { uint a; double d; uint64_t u; };
RWStructuredBuffer<Wide> Out : register(u0);

[shader("compute")] [numthreads(32, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    int64_t big = 5000000000l;
    uint64_t ubig = 1ull << 40;
    double d = 2.25l;
    d = d * 2;
    Wide w;
    w.a = (uint)(big >> 32) + (uint)(ubig >> 40);
    w.d = WaveActiveSum(d) + WavePrefixProduct((double)id.x);
    w.u = WaveActiveSum((uint64_t)id.x) + (uint64_t)WaveActiveMin(big) + WaveReadLaneAt(ubig, 0);
    Out[id.x] = w;
}
