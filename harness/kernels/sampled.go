package kernels

import (
	"fmt"
	"math"
	"strings"

	"waverig/compiler/intrinsics"
)

// The sampled pixel kernels put wave operations and texture sampling
// together, the two ways a shader does in practice: a quad operation on a
// sampled value (a quad neighbour's sample, a helper's included), and a
// sample at a coordinate a quad operation produced. They draw over the seed's
// height map (heightTexture) with the PSSlope kernels' vertex shader and
// scenes (same uv, same LOD variants), and their colour target is modelled per
// pixel from the texels, as PSSlope's is (checkSlope, with sampledPixel):
//
//	h = Height.Sample(Linear, uv)
//	x = QuadReadAcrossDiagonal(h)          the diagonal neighbour's sample
//	y = QuadReadLaneAt(h, 1)               quad lane 1's sample
//	z = Height.Sample(Linear, QuadReadLaneAt(uv, 0))
//	w = QuadReadLaneAt(h, 3)               quad lane 3's sample
//
// z samples the quad's lane-0 coordinate on all four lanes, so the implicit
// derivatives are 0: ρ = 0, λ = log2 ρ = −∞, clamped to 0 (Vulkan, "Level-of-
// Detail Operation": d′ = level_base + clamp(λ, 0, q)), so level 0 through the
// magnification filter (linear) whatever the variant's uv step. In the
// two-texels-per-pixel variant that coordinate lies on a texel edge of level 0,
// so the sample is the mean of two texels per axis (a bilinear filter of an
// affine function is exact; the weights' quantization is sampleTolerance's).
// A quad lane that is a helper contributes its own sample or coordinate (its
// uv is the plane equation's, inside the texture by slopeOffset): the scenes
// have helpers inside the framebuffer (diag16, thin) and past its edges
// (fb15x15).
const sampledName = "PSSampled"

// sampledKernels are the sampled pixel kernels: one per PSSlope scene and LOD
// variant.
func sampledKernels(f Filter) []Kernel {
	return heightMapKernels(f, sampledName, intrinsics.QuadReadLaneAt, "VSSampled", "SampledVSOut", func(sb *strings.Builder, s float64, emitVS func()) {
		fmt.Fprintf(sb, "// waverig generated pixel kernel: quad operations on samples of the height map, and a sample at a quad operation's coordinate (%g texel(s) of level 0 per pixel).\n", s)
		fmt.Fprintf(sb, "Texture2D<float> Height : register(%s);\nSamplerState Linear : register(%s);\n\n", heightRegister, samplerRegister)
		emitVS()
		fmt.Fprintf(sb, `[shader("pixel")]
float4 %s(float4 pos : SV_Position, float2 uv : TEXCOORD0) : SV_Target
{
    float h = Height.Sample(Linear, uv);
    float2 first = QuadReadLaneAt(uv, 0u);
    return float4(QuadReadAcrossDiagonal(h), QuadReadLaneAt(h, 1u), Height.Sample(Linear, first), QuadReadLaneAt(h, 3u));
}
`, sampledName)
	})
}

// colorModelled reports whether a kernel's result is its colour target,
// modelled per pixel from its texture (PSSlope and the sampled kernels).
func colorModelled(c Case) bool { return c.Name == slopeName || c.Name == sampledName }

// colorPixel is the model of one pixel of a colour-modelled kernel.
func colorPixel(c Case, tex Texture, x, y uint32, mirrored bool, height uint32) (want, tol [4]float64) {
	if c.Name == sampledName {
		return sampledPixel(tex, slopeLevel(c), x, y, mirrored, height)
	}
	return slopePixel(tex, slopeLevel(c), x, y, mirrored, height)
}

// sampledPixel is the model of one PSSampled pixel (see sampledName): x, y, w
// are samples of the variant's level at a quad neighbour's texel centre, z
// the level-0 bilinear sample at quad lane 0's coordinate.
func sampledPixel(tex Texture, level int, x, y uint32, mirrored bool, height uint32) (want, tol [4]float64) {
	h := func(x, y uint32) float64 {
		return float64(tex.Texel(level, slopeTexel(x, false, 0), slopeTexel(y, mirrored, height)))
	}
	x0, y0 := x&^1, y&^1 // quad lane 0 (the quad's top-left pixel in framebuffer coordinates)
	// Lane 0's coordinate in level-0 texels, centres at i + ½: the centre of
	// the variant's texel t is at s·(t + ½).
	s := float64(int(1) << level)
	u := s*(float64(slopeTexel(x0, false, 0))+0.5) - 0.5
	v := s*(float64(slopeTexel(y0, mirrored, height))+0.5) - 0.5
	st, st0 := sampleTolerance(level), sampleTolerance(0)
	return [4]float64{h(x^1, y^1), h(x0+1, y0), bilinear(tex, 0, u, v), h(x0+1, y0+1)}, [4]float64{st, st, st0, st}
}

// bilinear is the linear filter of level l at continuous texel index (u, v)
// (texel i's centre at i), clamped to the level's edge.
func bilinear(tex Texture, l int, u, v float64) float64 {
	w, h := tex.LevelSize(l)
	clampIdx := func(i float64, n uint32) uint32 { return uint32(min(max(i, 0), float64(n-1))) }
	iu, iv := math.Floor(u), math.Floor(v)
	fu, fv := u-iu, v-iv
	t := func(du, dv float64) float64 {
		return float64(tex.Texel(l, clampIdx(iu+du, w), clampIdx(iv+dv, h)))
	}
	return (1-fv)*((1-fu)*t(0, 0)+fu*t(1, 0)) + fv*((1-fu)*t(0, 1)+fu*t(1, 1))
}
