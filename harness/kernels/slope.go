package kernels

//go:generate cp ../../fixtures/Waves.hlsl testdata/seed/Waves.hlsl

import (
	_ "embed"
	"fmt"
	"math"
	"strings"

	"waverig/compiler/intrinsics"
	"waverig/harness/models"
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

// The affine TEXCOORD0 the slope kernel's vertex shader feeds PSSlope: uv = (slopeA*x +
// slopeB, slopeC*y + slopeD) in framebuffer pixels; short binary fractions, so the
// interpolated values and their differences are exact in float.
const (
	slopeA, slopeB = 0.25, 1.0
	slopeC, slopeD = -0.5, 8.0
)

// slopeTolerance absorbs attribute interpolation that is not exact on some hardware
// (lavapipe's plane equations are exact for these values).
const slopeTolerance = 1.0 / 1024

// SlopeShapes are the scenes the seed's PSSlope is drawn on.
var SlopeShapes = []string{"fb15x15", "diag16", "thin"}

func pixelShape(name string) (Shape, bool) {
	for _, s := range PixelShapes {
		if s.Name == name {
			return s, true
		}
	}
	return Shape{}, false
}

// slopeKernels are the seed's PSSlope, end to end: the fixture's source plus a
// generated vertex shader, one draw, a float colour target and no records.
func slopeKernels(f Filter) []Kernel {
	var out []Kernel
	for _, name := range SlopeShapes {
		sh, _ := pixelShape(name)
		c := Case{Name: slopeName, Op: intrinsics.QuadReadAcrossX, Type: Type{"float", 2}, Pattern: All, Shape: sh}
		if !f.keep(c) || !f.wantsKernel("pixel_PSSlope_"+name) {
			continue
		}
		var sb strings.Builder
		sb.WriteString(wavesHLSL)
		sb.WriteString("\n// waverig: vertex shader feeding PSSlope an affine TEXCOORD0.\n")
		emitTriangleVS(&sb, "VSSlope", "SlopeVSOut", *sh.Scene, []string{"float2 uv : TEXCOORD0"},
			[]string{fmt.Sprintf("o.uv = float2(%s * p.x + %s, %s * p.y + %s)",
				hlslFloat(slopeA), hlslFloat(slopeB), hlslFloat(slopeC), hlslFloat(slopeD))})
		out = append(out, Kernel{
			Name: "pixel_PSSlope_" + name, Entry: slopeName, Stage: Pixel, HLSL: sb.String(), Cases: []Case{c},
			Draw: &Draw{VertexEntry: "VSSlope", PixelEntry: slopeName, Width: sh.Scene.Width, Height: sh.Scene.Height,
				VertexCount: 3, Draws: 1, FloatColor: true},
		})
	}
	return out
}

// checkSlope: every pixel the scene covers holds (dx, dy, 0, 1) with dx, dy from
// models.QuadSlope (helper neighbours, inside or outside the framebuffer, included);
// every pixel it does not cover the clear value 0; pixel centres on an edge either.
func (ps *pixelState) checkSlope(out map[string][]byte) {
	st := ps.states[0]
	st.noWaves = true
	w, h := ps.lay.w, ps.lay.h
	b, ok := out[ColorTarget]
	if !ok || len(b) != int(w*h*16) {
		st.problem(fmt.Sprintf("colour target: %d bytes (present %v), expected %d", len(b), ok, w*h*16))
		return
	}
	try := func(sc Scene, cSign float32) []results.LaneFailure {
		var fails []results.LaneFailure
		cls := sc.Classify()
		for y := uint32(0); y < h; y++ {
			for x := uint32(0); x < w; x++ {
				got := floatPixel(b, int(y*w+x))
				dx, errX := models.QuadSlope(x, slopeA, slopeB)
				dy, errY := models.QuadSlope(y, cSign*slopeC, slopeD)
				if errX != nil || errY != nil {
					st.problem(fmt.Sprint(errX, errY))
					return nil
				}
				slope := [4]float32{dx, dy, 0, 1}
				near := func(a, b [4]float32) bool {
					for i := range a {
						if math.Abs(float64(a[i]-b[i])) > slopeTolerance {
							return false
						}
					}
					return true
				}
				var want [4]float32
				okPix := false
				switch cls[y*w+x] {
				case In:
					want, okPix = slope, near(got, slope)
				case Out:
					okPix = got == want
				case OnEdge:
					want, okPix = slope, near(got, slope) || got == [4]float32{}
				}
				if !okPix {
					fails = append(fails, results.LaneFailure{ActiveMask: "-",
						Input:    fmt.Sprintf("pixel %d,%d uv=(%g*x%+g, %g*y%+g)", x, y, slopeA, slopeB, slopeC, slopeD),
						Expected: fmt.Sprint(want), Actual: fmt.Sprint(got)})
				}
			}
		}
		return fails
	}
	fails := try(ps.sc, 1)
	if len(fails) > 0 {
		// An API that puts clip-space y the other way up mirrors the picture and uv.y.
		if m := try(ps.sc.mirrored(), -1); len(m) < len(fails) {
			fails = m
			if len(m) == 0 {
				st.extra = append(st.extra, "picture mirrored in y (this API put clip-space y the other way up)")
			}
		}
	}
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
