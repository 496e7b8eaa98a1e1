// Repro (found by the rig on 2026-11-30): WaveReadLaneFirst on double2 (also double3,
// double4; double and 64-bit integer vectors are fine), compiled with waverig's compiler or
//   glslangValidator -V -D --target-env vulkan1.1 -S comp -e main
// aborts the whole process in pipeline creation on lavapipe (Mesa 22.3.6) at
// LP_NATIVE_VECTOR_WIDTH=128 (wave size 4): "LLVM ERROR: Cannot select: v2i64 = scalar_to_vector".
// The same op on float2/int2 and at other widths runs and passes. A driver crash kills the
// caller, so an engine that meets it must isolate pipeline creation (subprocess) or skip.
// waverig generated kernel WaveReadLaneFirst_double_whole: WaveReadLaneFirst, numthreads(64, 1, 1).
// Record of 24 uints per invocation: flat, key, lane, count, branch, lane arg, ctl, coin, in[8], out[8].
RWStructuredBuffer<uint> rec : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 gid : SV_GroupID, uint gi : SV_GroupIndex)
{
    uint flat = gid.x * 64u + gi;
    uint b = flat * 24u;
    // Layout, taken before any divergence.
    uint key = WaveReadLaneFirst(flat);
    uint lane = WaveGetLaneIndex();
    uint cnt = WaveGetLaneCount();
    uint ctl = rec[b + 6u];
    uint pat = ctl & 15u;
    uint mode = (ctl >> 4) & 15u;
    uint variant = (ctl >> 8) & 255u;
    uint coin = rec[b + 7u];
    // Pattern: the op runs where outer && inner (arm 1) and, for "nested", where
    // outer && !inner (arm 2).
    bool outer = true;
    bool inner = true;
    if (pat == 1u) {
        outer = (lane & 1u) == 0u;
    } else if (pat == 2u) {
        outer = (lane & 1u) == 1u;
    } else if (pat == 3u) {
        outer = lane == 0u;
    } else if (pat == 4u) {
        outer = lane == cnt - 1u || gi == 63u;
    } else if (pat == 5u) {
        outer = lane < cnt / 2u;
    } else if (pat == 6u) {
        outer = (lane % 3u) != 2u;
        inner = ((lane >> 1) & 1u) == 0u;
    } else if (pat == 7u) {
        outer = coin != 0u;
    }
    uint act = 0u;
    uint larg = 0u;
    uint o0 = 0u;
    uint o1 = 0u;
    uint o2 = 0u;
    uint o3 = 0u;
    uint o4 = 0u;
    uint o5 = 0u;
    uint o6 = 0u;
    uint o7 = 0u;
    if (variant == 0u) {
        double2 x = double2(((double)asfloat(rec[b + 8u]) + (double)asfloat(rec[b + 9u])), ((double)asfloat(rec[b + 10u]) + (double)asfloat(rec[b + 11u])));
        double2 r = double2((double)0.0f, (double)0.0f);
        if (outer) {
            if (inner) {
                act = 1u;
                r = WaveReadLaneFirst(x);
            } else {
                act = 2u;
                r = WaveReadLaneFirst(x);
            }
        }
        float h0 = (float)r.x;
        o0 = asuint(h0);
        o1 = asuint((float)(r.x - (double)h0));
        float h1 = (float)r.y;
        o2 = asuint(h1);
        o3 = asuint((float)(r.y - (double)h1));
    }
    rec[b + 0u] = flat;
    rec[b + 1u] = key;
    rec[b + 2u] = lane;
    rec[b + 3u] = cnt;
    rec[b + 4u] = act;
    rec[b + 5u] = larg;
    rec[b + 16u] = o0;
    rec[b + 17u] = o1;
    rec[b + 18u] = o2;
    rec[b + 19u] = o3;
    rec[b + 20u] = o4;
    rec[b + 21u] = o5;
    rec[b + 22u] = o6;
    rec[b + 23u] = o7;
}
