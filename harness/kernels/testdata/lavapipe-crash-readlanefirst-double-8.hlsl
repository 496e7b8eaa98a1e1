// Repro (found by the rig on 2026-12-02): WaveReadLaneFirst on double, double2, double3 and
// double4 in one kernel whose arms store their result themselves (the record kernels since
// the output sentinel, kernels/record.go), compiled with waverig's compiler or
//   glslangValidator -V -D --target-env vulkan1.1 -S comp -e main
// aborts the whole process in pipeline creation on lavapipe (Mesa 22.3.6, LLVM 15) at
// LP_NATIVE_VECTOR_WIDTH=256 and 512 (wave sizes 8 and 16): LLVM instruction selection fails
// on an f64 load from a stack slot indexed by the first active lane ("f64,ch = load ...
// FrameIndex ... In function: cs_co_variant"). The same kernel with every lane storing after
// the branch ran and passed at 8 and 16; at 4 lanes doubles crash anyway
// (lavapipe-crash-readlanefirst-double2.hlsl). Other 64-bit types and every other
// operation on doubles run and pass.
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
    uint coin = rec[b + 7u];
    uint pat = ctl & 15u;
    uint mode = (ctl >> 4) & 15u;
    uint variant = (ctl >> 8) & 255u;
    // Pattern: the op runs where outer && inner (arm 1) and, for "nested" on scalar
    // types, also where outer && !inner (arm 2).
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
    if (variant == 0u) {
        double x = ((double)asfloat(rec[b + 8u]) + (double)asfloat(rec[b + 9u]));
        double r = (double)0.0f;
        if (outer) {
            if (inner) {
                act = 1u;
                r = WaveReadLaneFirst(x);
                float h0 = (float)r;
                rec[b + 16u] = asuint(h0);
                rec[b + 17u] = asuint((float)(r - (double)h0));
            } else {
                act = 2u;
                r = WaveReadLaneFirst(x);
                float h0 = (float)r;
                rec[b + 16u] = asuint(h0);
                rec[b + 17u] = asuint((float)(r - (double)h0));
            }
        }
    } else if (variant == 1u) {
        double2 x = double2(((double)asfloat(rec[b + 8u]) + (double)asfloat(rec[b + 9u])), ((double)asfloat(rec[b + 10u]) + (double)asfloat(rec[b + 11u])));
        double2 r = double2((double)0.0f, (double)0.0f);
        if (outer) {
            if (inner) {
                act = 1u;
                r = WaveReadLaneFirst(x);
                float h0 = (float)r.x;
                rec[b + 16u] = asuint(h0);
                rec[b + 17u] = asuint((float)(r.x - (double)h0));
                float h1 = (float)r.y;
                rec[b + 18u] = asuint(h1);
                rec[b + 19u] = asuint((float)(r.y - (double)h1));
            }
        }
    } else if (variant == 2u) {
        double3 x = double3(((double)asfloat(rec[b + 8u]) + (double)asfloat(rec[b + 9u])), ((double)asfloat(rec[b + 10u]) + (double)asfloat(rec[b + 11u])), ((double)asfloat(rec[b + 12u]) + (double)asfloat(rec[b + 13u])));
        double3 r = double3((double)0.0f, (double)0.0f, (double)0.0f);
        if (outer) {
            if (inner) {
                act = 1u;
                r = WaveReadLaneFirst(x);
                float h0 = (float)r.x;
                rec[b + 16u] = asuint(h0);
                rec[b + 17u] = asuint((float)(r.x - (double)h0));
                float h1 = (float)r.y;
                rec[b + 18u] = asuint(h1);
                rec[b + 19u] = asuint((float)(r.y - (double)h1));
                float h2 = (float)r.z;
                rec[b + 20u] = asuint(h2);
                rec[b + 21u] = asuint((float)(r.z - (double)h2));
            }
        }
    } else if (variant == 3u) {
        double4 x = double4(((double)asfloat(rec[b + 8u]) + (double)asfloat(rec[b + 9u])), ((double)asfloat(rec[b + 10u]) + (double)asfloat(rec[b + 11u])), ((double)asfloat(rec[b + 12u]) + (double)asfloat(rec[b + 13u])), ((double)asfloat(rec[b + 14u]) + (double)asfloat(rec[b + 15u])));
        double4 r = double4((double)0.0f, (double)0.0f, (double)0.0f, (double)0.0f);
        if (outer) {
            if (inner) {
                act = 1u;
                r = WaveReadLaneFirst(x);
                float h0 = (float)r.x;
                rec[b + 16u] = asuint(h0);
                rec[b + 17u] = asuint((float)(r.x - (double)h0));
                float h1 = (float)r.y;
                rec[b + 18u] = asuint(h1);
                rec[b + 19u] = asuint((float)(r.y - (double)h1));
                float h2 = (float)r.z;
                rec[b + 20u] = asuint(h2);
                rec[b + 21u] = asuint((float)(r.z - (double)h2));
                float h3 = (float)r.w;
                rec[b + 22u] = asuint(h3);
                rec[b + 23u] = asuint((float)(r.w - (double)h3));
            }
        }
    }
    rec[b + 0u] = flat;
    rec[b + 1u] = key;
    rec[b + 2u] = lane;
    rec[b + 3u] = cnt;
    rec[b + 4u] = act;
    rec[b + 5u] = larg;
}
