package kernels

//go:generate cp ../../fixtures/Waves.hlsl testdata/seed/Waves.hlsl

import (
	_ "embed"
	"fmt"
	"strings"

	"waverig/compiler/intrinsics"
	"waverig/harness/results"
)

// wavesHLSL is the seed's fixtures/Waves.hlsl. Go cannot embed a file outside the
// package, so testdata/seed holds a generated copy (go generate), and
// TestSeedCopyIsTheFixture fails the moment the two differ: nobody keeps it by hand.
//
//go:embed testdata/seed/Waves.hlsl
var wavesHLSL string

// The names of the cases that test a shader rather than one intrinsic.
const (
	slopeName  = "PSSlope"
	helperName = "IsHelperLane"
)

// The PSSlope kernels draw the seed's pixel shader over the height map
// (heightTexture) with a generated vertex shader whose TEXCOORD0 is an affine
// function of the framebuffer position p (y down, pixel centres at +0.5):
//
//	uv = s·(p + slopeOffset) / heightSize,  s = 2^level
//
// so pixel q's centre lands on the centre of texel q + slopeOffset of mip
// level `level` (in texels of that level, (s·(q + 0.5 + slopeOffset))/s). An
// API that puts clip-space y the other way up mirrors p.y to H − p.y: pixel
// row q then lands on the centre of texel H − q (slopeTexel). slopeOffset
// keeps every position a quad can have, the helpers just outside an odd
// framebuffer included (Scene.Padded), at least one texel inside the level,
// mirrored or not, so the clamp never decides a sample.
const slopeOffset = 1

// slopeLevels are the LOD variants of the PSSlope kernels: uv advancing one
// texel of level 0 per pixel (the quad's derivatives give λ = 0: level 0), and
// two (λ = log2 2 = 1: level 1, one texel of level 1 per pixel). A variant past
// level 0 is its own shape, "<scene>.lod<level>".
var slopeLevels = []int{0, 1}

// SlopeShapes are the scenes the seed's PSSlope is drawn on; each has helper
// lanes (outside an odd framebuffer, on a cut diagonal, along a sliver), whose
// samples the quad reads return.
var SlopeShapes = []string{"fb15x15", "diag16", "thin"}

// The registers of the seed's resources (fixtures/Waves.hlsl).
const (
	heightRegister  = "t2"
	samplerRegister = "s3"
)

func pixelShape(name string) (Shape, bool) {
	for _, s := range PixelShapes {
		if s.Name == name {
			return s, true
		}
	}
	return Shape{}, false
}

// slopeShape is the case shape of a scene at an LOD variant.
func slopeShape(sh Shape, level int) Shape {
	if level > 0 {
		sh.Name = fmt.Sprintf("%s.lod%d", sh.Name, level)
	}
	return sh
}

// slopeKernels are the seed's PSSlope, end to end: the fixture's source plus a
// generated vertex shader, one draw sampling the height map through the
// linear sampler, a float colour target and no records. The fixture's CSSum
// is compiled with it (one source) but never run from this kernel.
func slopeKernels(f Filter) []Kernel {
	return heightMapKernels(f, slopeName, intrinsics.QuadReadAcrossX, "VSSlope", "SlopeVSOut", func(sb *strings.Builder, s float64, emitVS func()) {
		sb.WriteString(wavesHLSL)
		fmt.Fprintf(sb, "\n// waverig: vertex shader feeding PSSlope a TEXCOORD0 that advances %g texel(s) of level 0 per pixel.\n", s)
		emitVS()
	})
}

// heightMapKernels are the kernels of one pixel entry drawn over the height
// map, one per PSSlope scene and LOD variant (pixel_ENTRY_SCENE[_lodL]), each
// one case of op: write writes the source, whose vertex shader (vs, of
// output struct vsOut) emitVS emits, feeding a TEXCOORD0 that advances s =
// 2^level texels of level 0 per pixel; one draw, the height map through the
// linear sampler, a float colour target and no records.
func heightMapKernels(f Filter, entry string, op intrinsics.Op, vs, vsOut string, write func(sb *strings.Builder, s float64, emitVS func())) []Kernel {
	var out []Kernel
	for _, name := range SlopeShapes {
		base, _ := pixelShape(name)
		for _, level := range slopeLevels {
			sh := slopeShape(base, level)
			c := Case{Name: entry, Op: op, Type: Type{"float", 1}, Pattern: All, Shape: sh}
			kname := "pixel_" + entry + "_" + name
			if level > 0 {
				kname += fmt.Sprintf("_lod%d", level)
			}
			if !f.keep(c) || !f.wantsKernel(kname) {
				continue
			}
			s := float64(int(1) << level)
			var sb strings.Builder
			write(&sb, s, func() {
				emitTriangleVS(&sb, vs, vsOut, *sh.Scene, []string{"float2 uv : TEXCOORD0"},
					[]string{fmt.Sprintf("o.uv = (p + float2(%s, %s)) * %s", hlslFloat(slopeOffset), hlslFloat(slopeOffset), hlslFloat(s/heightSize))})
			})
			out = append(out, Kernel{
				Name: kname, Entry: entry, Stage: Pixel, HLSL: sb.String(), Cases: []Case{c},
				Textures: []Texture{heightTexture(heightRegister)},
				Samplers: []Sampler{linearSampler(samplerRegister)},
				Draw: &Draw{VertexEntry: vs, PixelEntry: entry, Width: sh.Scene.Width, Height: sh.Scene.Height,
					VertexCount: 3, Draws: 1, FloatColor: true},
			})
		}
	}
	return out
}

// slopeTexel is the texel of the sampled level that framebuffer row or column
// q samples (see slopeOffset): q + slopeOffset, or extent − q where the API
// mirrored the picture (rows only; extent is the framebuffer's height).
func slopeTexel(q uint32, mirrored bool, extent uint32) uint32 {
	if mirrored {
		return extent - q
	}
	return q + slopeOffset
}

// slopeLevel is the mip level a PSSlope case samples (its shape's suffix). The Vulkan spec
// (Texel Filtering, "Scale Factor Operation, Level-of-Detail Operation and
// Image Level(s) Selection") computes λ = log2 ρ from the derivatives of the
// coordinate in texels, ρ between max(|∂u/∂x|, |∂u/∂y|, …) and their sum —
// here one derivative per direction is 2^level and the other 0, so every
// allowed approximation gives ρ = 2^level — and, with mipmapMode NEAREST, the
// level d = ⌈d′ + ½⌉ − 1 (or ⌊d′ + ½⌋, which the spec also allows) of
// d′ = level_base + clamp(λ, 0, q): any λ in (level − ½, level + ½) selects
// `level`, whichever rounding and however coarse the LOD's precision. WebGPU
// defers to the same rule. The quad's derivatives are differences of an
// affine uv, the same for the coarse and the fine kind, and the same for a
// helper lane, so the allowed set of levels is the one level, helpers
// included.
func slopeLevel(c Case) int {
	for _, l := range slopeLevels {
		if l > 0 && strings.HasSuffix(c.Shape.Name, fmt.Sprintf(".lod%d", l)) {
			return l
		}
	}
	return 0
}

// sampleTolerance is how far a sample of level l may be from the texel it
// aims at: the interpolated coordinate may be up to slopeTolerance texels off
// the centre (attribute interpolation need not be exact; lavapipe's is, for
// these values), and the filter's weights are quantized to
// subTexelPrecisionBits ≥ 4 bits (Vulkan's minimum, the required limits
// table), so the bilinear sample of an affine function (exact between
// texels) is the function at a position up to 2⁻⁴ + slopeTolerance texels off
// in each direction.
func sampleTolerance(l int) float64 {
	return float64(heightX[l]+heightY[l]) * (1.0/16 + slopeTolerance)
}

// slopeTolerance bounds attribute interpolation that is not exact on some
// hardware, in texels.
const slopeTolerance = 1.0 / 1024

// slopePixel is the model of one PSSlope pixel: the pixel's sample h and its
// quad neighbours' (a helper's sample is its own: QuadReadAcross* of a helper
// lane returns the helper's value, and the helper's position lies inside the
// texture) give (|h(x^1) − h|, |h(y^1) − h|, h, 1), and the tolerance of each
// component (a difference of two samples has twice a sample's).
func slopePixel(tex Texture, level int, x, y uint32, mirrored bool, height uint32) (want, tol [4]float64) {
	h := func(x, y uint32) float64 {
		return float64(tex.Texel(level, slopeTexel(x, false, 0), slopeTexel(y, mirrored, height)))
	}
	c := h(x, y)
	st := sampleTolerance(level)
	return [4]float64{abs(h(x^1, y) - c), abs(h(x, y^1) - c), c, 1}, [4]float64{2 * st, 2 * st, st, 0}
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}

// checkSlope: every pixel the scene covers holds slopePixel's value (helper
// neighbours, inside or outside the framebuffer, included: a quad with one to
// three covered pixels takes the others' samples from helper lanes, which the
// diag16 and thin scenes have inside the framebuffer and fb15x15 past its
// right and bottom edges); every pixel it does not cover the clear value 0;
// a pixel centre on an edge either. The level is part of the value (each
// level's heights lie in their own range), so a driver that took another
// level fails the pixel.
func (ps *pixelState) checkSlope(out map[string][]byte) {
	st := ps.states[0]
	st.noWaves = true
	w, h := ps.lay.w, ps.lay.h
	b, ok := out[ColorTarget]
	if !ok || len(b) != int(w*h*16) {
		st.problem(fmt.Sprintf("colour target: %d bytes (present %v), expected %d", len(b), ok, w*h*16))
		return
	}
	if len(ps.k.Textures) != 1 || ps.k.Textures[0].Check() != nil {
		st.problem(ps.k.Cases[0].Name + " kernel without its height texture")
		return
	}
	tex, level := ps.k.Textures[0], slopeLevel(ps.k.Cases[0])
	exact, worst := 0, 0.0 // pixels that matched exactly, the largest deviation of a matching one
	try := func(sc Scene, mirrored bool) []results.LaneFailure {
		var fails []results.LaneFailure
		cls := sc.Classify()
		exact, worst = 0, 0
		for y := uint32(0); y < h; y++ {
			for x := uint32(0); x < w; x++ {
				got := floatPixel(b, int(y*w+x))
				want, tol := colorPixel(ps.k.Cases[0], tex, x, y, mirrored, h)
				near, same := true, true
				for i := range got {
					d := abs(float64(got[i]) - want[i])
					near = near && d <= tol[i]
					same = same && d == 0
				}
				okPix := false
				switch cls[y*w+x] {
				case In:
					okPix = near
				case Out:
					okPix = got == [4]float32{}
				case OnEdge:
					okPix = near || got == [4]float32{}
				}
				if near && cls[y*w+x] != Out && got != [4]float32{} {
					for i := range got {
						worst = max(worst, abs(float64(got[i])-want[i]))
					}
					if same {
						exact++
					}
				}
				if !okPix {
					if cls[y*w+x] == Out {
						want = [4]float64{}
					}
					fails = append(fails, results.LaneFailure{ActiveMask: "-",
						Input: fmt.Sprintf("pixel %d,%d: level %d texel %d,%d (uv = %d·(p+%d)/%d)", x, y, level,
							slopeTexel(x, false, 0), slopeTexel(y, mirrored, h), 1<<level, slopeOffset, heightSize),
						Expected: fmt.Sprint(want), Actual: fmt.Sprint(got)})
				}
			}
		}
		return fails
	}
	fails := try(ps.sc, false)
	if len(fails) > 0 {
		// An API that puts clip-space y the other way up mirrors the picture and uv.y.
		if m := try(ps.sc.mirrored(), true); len(m) < len(fails) {
			fails = m
			if len(m) == 0 {
				st.extra = append(st.extra, "picture mirrored in y (this API put clip-space y the other way up)")
			}
		} else {
			try(ps.sc, false) // the note's count is the unmirrored picture's
		}
	}
	st.extra = append(st.extra, fmt.Sprintf("level %d sampled; %d shaded pixels exact, the others within %.3g (bound %.3g a height, twice that a difference)", level, exact, worst, sampleTolerance(level)))
	st.res.Lanes += int(w*h) - len(fails)
	for _, f := range fails {
		st.fail(f)
	}
}

// HelperShapes are the scenes of the IsHelperLane kernels (the ones with helpers).
var HelperShapes = []string{"fb15x15", "diag16", "thin"}

// helperKernels test IsHelperLane (SM 6.6; SPIR-V only: WGSL has no helper builtin):
// every covered pixel records its own IsHelperLane() (false) and QuadReadAcrossX, Y and
// Diagonal of it, which must be true exactly where that neighbour is not covered.
func helperKernels(f Filter) []Kernel {
	var out []Kernel
	for _, name := range HelperShapes {
		sh, _ := pixelShape(name)
		c := Case{Name: helperName, Op: intrinsics.QuadReadAcrossX, Type: Type{"bool", 1}, Pattern: All, Shape: sh}
		if !f.keep(c) || !f.wantsKernel("pixel_IsHelperLane_"+name) {
			continue
		}
		sc := *sh.Scene
		pw, ph := sc.Padded()
		in := make([]uint32, int(pw*ph)*tWords) // ctl 0: pattern all, mode 0, case 0
		recs := newPixelRecords(int(sc.Width * sc.Height))
		var sb strings.Builder
		fmt.Fprintf(&sb, "// waverig generated pixel kernel: IsHelperLane across the quad on a %dx%d framebuffer.\n", sc.Width, sc.Height)
		sb.WriteString("StructuredBuffer<uint> inp : register(t0);\nRWStructuredBuffer<uint> rec : register(u0);\n\n")
		emitTriangleVS(&sb, vsEntry, "VSOut", sc, []string{"nointerpolation uint rep : TEXCOORD0"}, []string{"o.rep = iid"})
		fmt.Fprintf(&sb, "uint4 %s(float4 pos : SV_Position, nointerpolation uint rep : TEXCOORD0) : SV_Target\n{\n", psEntry)
		pixelPrologue(&sb, sc)
		sb.WriteString(`    uint act = 1u + inp[t];
    uint larg = 0u;
    bool hl = IsHelperLane();
    uint o0 = QuadReadAcrossX(hl ? 1u : 0u);
    uint o1 = QuadReadAcrossY(hl ? 1u : 0u);
    uint o2 = QuadReadAcrossDiagonal(hl ? 1u : 0u);
    uint o3 = 0u;
    uint o4 = 0u;
    uint o5 = 0u;
    uint o6 = 0u;
    uint o7 = 0u;
`)
		emitPixelStores(&sb, "hl ? 1u : 0u", true)
		sb.WriteString("    return uint4(flat, rep, o0, o1);\n}\n")
		out = append(out, Kernel{
			Name: "pixel_IsHelperLane_" + name, Entry: psEntry, Stage: Pixel, HLSL: sb.String(), Cases: []Case{c},
			Buffers: []Buffer{{Register: "t0", Data: bytesOf(in)}, {Register: "u0", Data: bytesOf(recs)}},
			Draw: &Draw{VertexEntry: vsEntry, PixelEntry: psEntry, Width: sc.Width, Height: sc.Height,
				VertexCount: 3, Draws: 1},
		})
	}
	return out
}

// checkHelperWave checks one wave of an IsHelperLane kernel: no recorded lane is a
// helper, and each quad neighbour reads as a helper exactly when it is not recorded
// in the same wave (uncovered, or covered by another piece of a split triangle: see
// waveLayout).
func (ps *pixelState) checkHelperWave(wv pixelWave) {
	st := ps.states[0]
	st.arms++
	w, h := ps.lay.w, ps.lay.h
	rep := wv.lanes[0].rep
	st.helperLanes += len(wv.helpers)
	for _, p := range wv.lanes {
		rec := ps.got[p.idx*recWords:][:recWords]
		check := func(what string, want, got uint32) {
			st.res.Lanes++
			if want != got {
				st.fail(results.LaneFailure{WaveKey: p.key, Lane: p.lane, ActiveMask: pxMask(wv, 1),
					Input: fmt.Sprintf("pixel %d,%d: %s", p.x, p.y, what), Expected: fmt.Sprint(want), Actual: fmt.Sprint(got)})
			}
		}
		check("IsHelperLane() of a covered pixel", 0, rec[pHelper])
		check("branch", 1, p.branch)
		for d, what := range []string{"QuadReadAcrossX(IsHelperLane())", "QuadReadAcrossY(IsHelperLane())", "QuadReadAcrossDiagonal(IsHelperLane())"} {
			nx, ny := p.x^uint32((d+1)&1), p.y^uint32((d+1)>>1)
			helper := uint32(1)
			if nx < w && ny < h {
				if c := ps.covered[rep][ny*w+nx]; c != nil && c.wave() == p.wave() {
					helper = 0
				}
			}
			check(what, helper, rec[wOut+d])
		}
	}
}
