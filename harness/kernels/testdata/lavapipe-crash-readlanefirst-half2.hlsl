// Repro (found by the rig on 2026-11-30): WaveReadLaneFirst on half2, compiled with
//   glslangValidator -V -D --target-env vulkan1.1 -S comp -e main
// aborts the whole process in pipeline creation on lavapipe (Mesa 22.3.6) at
// LP_NATIVE_VECTOR_WIDTH=256 (wave size 8): "LLVM ERROR: Cannot select: v4i32 = scalar_to_vector".
// (glslang without 16-bit types makes half a float; waverig's compiler emits real float16
// for the same source, which runs and passes.) The same op on float2/int2, and at other
// widths, runs and passes. A driver crash kills the
// caller, so an engine that meets it must isolate pipeline creation (subprocess) or skip.
// waverig generated kernel WaveReadLaneFirst_half_whole: WaveReadLaneFirst, numthreads(64, 1, 1).
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
        half2 x = half2((half)f16tof32(rec[b + 8u]), (half)f16tof32(rec[b + 9u]));
        half2 r = half2((half)0.0f, (half)0.0f);
        if (outer) {
            if (inner) {
                act = 1u;
                r = WaveReadLaneFirst(x);
            } else {
                act = 2u;
                r = WaveReadLaneFirst(x);
            }
        }
        o0 = f32tof16((float)r.x);
        o1 = f32tof16((float)r.y);
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
