package kernels

import (
	"fmt"
	"strings"

	"waverig/compiler/intrinsics"
)

// Shader Model 6.7's [WaveOpsIncludeHelperLanes] on a pixel entry point makes
// helper lanes take part in the wave operations (they are active lanes of
// WaveActiveSum, WavePrefixSum, the ballots, WaveReadLaneFirst, the votes…) and,
// in SPIR-V, asks for full quads: waverig's compiler emits
// SPV_KHR_maximal_reconvergence and SPV_KHR_quad_control with the execution modes
// MaximallyReconvergesKHR and RequireFullQuadsKHR on the pixel entry.
//
// The plain pixel matrix accepts either helper choice (Vulkan leaves it to the
// implementation); the kernels here compile the same pixel programs with the
// attribute, and their checker accepts only the helper-included result — in the
// operation and in the layout words (key, key2) that the prologue takes with
// WaveReadLaneFirst and WaveActiveSum — so a device that leaves helpers out fails
// and the failure says so.
//
// Case IDs: Case.Name is the operation's name (or the native quad vote's
// "QuadAny.khr") plus ".helperlanes": "WaveActiveSum.helperlanes/int/even/fb15x15",
// "QuadAll.khr.helperlanes/bool/all/diag16". The op filter and the expectation
// files' op= see that name, so `-ops helperlanes` selects exactly these kernels.
//
// The kernels need shaderQuadControl and shaderMaximalReconvergence (the rig skips
// them with those names where the device lacks them). WebGPU cannot ask for
// helper participation: the WGSL back end emits the module without it and warns
// W0602, which the rig turns into a skip. glslang 12 ignores the attribute with a
// warning, so the glslang module skips too (harness/glslang).

// helperLanesSuffix marks a case of a [WaveOpsIncludeHelperLanes] kernel in
// Case.Name.
const helperLanesSuffix = ".helperlanes"

// HelperLanesOps are the operations compiled with [WaveOpsIncludeHelperLanes]:
// a reduction, a prefix, the ballots, a broadcast, the two votes and a quad read
// (whose answer does not depend on the choice: its kernels test the layout words
// and full quads). The native quad votes (QuadAny.khr, QuadAll.khr) come on top.
var HelperLanesOps = []intrinsics.Op{
	intrinsics.WaveActiveSum, intrinsics.WavePrefixSum, intrinsics.WaveActiveCountBits, intrinsics.WaveActiveBallot,
	intrinsics.WaveReadLaneFirst, intrinsics.WaveActiveAllTrue, intrinsics.WaveActiveAnyTrue, intrinsics.QuadReadAcrossX,
}

// IncludesHelperLanes reports a case of a [WaveOpsIncludeHelperLanes] kernel:
// helper lanes must take part in its wave operations.
func IncludesHelperLanes(c Case) bool { return strings.HasSuffix(c.Name, helperLanesSuffix) }

// helperLanesCase is one case of a [WaveOpsIncludeHelperLanes] kernel; native
// selects the SPV_KHR_quad_control form of a quad vote.
func helperLanesCase(op intrinsics.Op, native bool, t Type, p Pattern, sh Shape) Case {
	c := Case{Op: op, Type: t, Pattern: p, Shape: sh}
	if p == Random {
		c.Seed = RandomSeeds[0]
	}
	c.Name = op.String()
	if native {
		c.Name += khrSuffix
	}
	c.Name += helperLanesSuffix
	return c
}

// helperLanesKernelName is "pixel_WaveActiveSum_helperlanes_base_fb15x15" or
// "pixel_QuadAny_khr_helperlanes_base_diag16": kernel names stay identifiers.
func helperLanesKernelName(op intrinsics.Op, native bool, shape string) string {
	n := op.String()
	if native {
		n += "_" + strings.TrimPrefix(khrSuffix, ".")
	}
	return fmt.Sprintf("%s_%s_%s_%s_%s", Pixel, n, strings.TrimPrefix(helperLanesSuffix, "."), families[0].name, shape)
}

// helperLanesKernels is the [WaveOpsIncludeHelperLanes] part of the pixel
// matrix: one kernel per (operation, scene) for HelperLanesOps with the scalar
// 32-bit types (vector widths add nothing to which lanes take part) and the
// graphics patterns, then the native quad votes, in that order. Every scene is
// used: the odd framebuffers, the diagonal and the sliver have helpers (the
// cases that decide), fb16x16 has none (the attribute must not change a wave
// without helpers).
func helperLanesKernels(f Filter) []Kernel {
	type variant struct {
		op     intrinsics.Op
		native bool
	}
	var vs []variant
	for _, op := range HelperLanesOps {
		vs = append(vs, variant{op, false})
	}
	for _, op := range intrinsics.QuadVotes {
		vs = append(vs, variant{op, true})
	}
	var out []Kernel
	for _, v := range vs {
		var types []Type
		if v.native {
			types = []Type{{"bool", 1}}
		} else {
			for _, t := range opTypes(v.op, families[0]) {
				if t.N == 1 {
					types = append(types, t)
				}
			}
		}
		for _, sh := range PixelShapes {
			var cases []Case
			for _, t := range types {
				for _, p := range GraphicsPatterns {
					if c := helperLanesCase(v.op, v.native, t, p, sh); f.keep(c) {
						cases = append(cases, c)
					}
				}
			}
			name := helperLanesKernelName(v.op, v.native, sh.Name)
			if len(cases) == 0 || !f.wantsKernel(name) {
				continue
			}
			k, err := buildPixel(name, cases)
			if err != nil {
				// Static matrix: the package's tests catch generator bugs.
				continue
			}
			// The attribute itself brings SPV_KHR_quad_control and
			// SPV_KHR_maximal_reconvergence; the native votes also need the
			// extension enabled for OpGroupNonUniformQuadAny/AllKHR.
			out = append(out, withVariant(k, v.native))
		}
	}
	return out
}

// HelperLaneNames are the case names (Case.Name, the op filter's name) of the
// [WaveOpsIncludeHelperLanes] kernels: "WaveActiveSum.helperlanes", …,
// "QuadAny.khr.helperlanes".
func HelperLaneNames() []string {
	var out []string
	for _, op := range HelperLanesOps {
		out = append(out, helperLanesCase(op, false, Type{}, All, Shape{}).Name)
	}
	for _, op := range intrinsics.QuadVotes {
		out = append(out, helperLanesCase(op, true, Type{}, All, Shape{}).Name)
	}
	return out
}
