package kernels

import (
	"fmt"
	"strings"

	"waverig/compiler/intrinsics"
	"waverig/harness/models"
)

// The Shader Model 6.7 quad votes, QuadAny(bool) and QuadAll(bool), run in two
// variants of every kernel, one HLSL source each:
//
//   - portable: compiled without extensions, as three OpGroupNonUniformQuadSwap
//     (WGSL: quadSwapX/Y/Diagonal) combined with the predicate; case IDs
//     "QuadAny/bool/even/whole". The model is models.QuadVoteSwaps: a swap from an
//     inactive lane is undefined, so a quad with inactive members is defined only
//     where an active member decides the vote.
//   - native: compiled with SPV_KHR_quad_control (OpGroupNonUniformQuadAny/AllKHR),
//     needing shaderQuadControl; case IDs "QuadAny.khr/bool/even/whole". The model
//     is models.QuadVoteKHR: every active lane is defined, over the active members
//     of its quad. WebGPU has no way to ask for the extension (the rig skips it).
//     In a plain pixel kernel (no RequireFullQuadsKHR) whether helper lanes are
//     active members is the implementation's choice, so the pixel checker
//     accepts both sets, as for wave operations; the [WaveOpsIncludeHelperLanes]
//     variant (QuadAny.khr.helperlanes, helperlanes.go) requires them.
//
// Inputs come from the bool operations' predicate densities (one replica per
// density: none, 1/8, 1/2, 7/8, all true), so whole quads of every kind (all, none,
// one true, one false) occur, crossed with every active-lane pattern and shape:
// quads that are whole, partly active, or cut by the end of a partial wave.

// quadControlExt is the SPIR-V extension of the native variant.
const quadControlExt = "SPV_KHR_quad_control"

// khrSuffix marks the native variant in Case.Name (and so in the case ID, the
// op filter and baselines' test names).
const khrSuffix = ".khr"

// quadVoteCase is one case of a quad vote, native or portable.
func quadVoteCase(op intrinsics.Op, native bool, p Pattern, sh Shape, seed uint64) Case {
	c := Case{Op: op, Type: Type{"bool", 1}, Pattern: p, Shape: sh, Seed: seed}
	if native {
		c.Name = op.String() + khrSuffix
	}
	return c
}

// nativeQuadVote reports a case of the native (SPV_KHR_quad_control) variant,
// plain or [WaveOpsIncludeHelperLanes] ("QuadAny.khr.helperlanes").
func nativeQuadVote(c Case) bool {
	return models.IsQuadVote(c.Op) && strings.TrimSuffix(c.Name, helperLanesSuffix) == c.Op.String()+khrSuffix
}

// helpersFixed reports whether helper lanes take part in case c's operation
// whatever the device chooses: the quad reads and the portable quad votes
// (quad swaps) read their quad's helpers. The native votes count "active
// invocations in the quad" (SPV_KHR_quad_control), and without
// RequireFullQuadsKHR nothing makes helpers active for them.
func helpersFixed(c Case) bool {
	return models.IsQuadOp(c.Op) && !nativeQuadVote(c)
}

// quadVoteForm is the form a quad vote case's kernel compiles its op to.
func quadVoteForm(c Case) models.QuadVoteForm {
	if nativeQuadVote(c) {
		return models.QuadVoteKHR
	}
	return models.QuadVoteSwaps
}

// expectedOf is models.Expected for op in case c's kernel (op is c.Op unless a
// simulator plants a fault): the native quad vote cases get the native form's
// model, which defines more lanes than Expected's portable one.
func expectedOf(c Case, op intrinsics.Op, mt models.Type, lanes []models.Lane, count uint32) ([]models.Value, error) {
	if models.IsQuadVote(op) && nativeQuadVote(c) {
		return models.QuadVote(op, models.QuadVoteKHR, lanes)
	}
	return models.Expected(op, mt, lanes, count)
}

// helperSetsOf is models.HelperSets for case c (see expectedOf); the native
// votes have two sets (models.QuadVoteHelperSets).
func helperSetsOf(c Case, mt models.Type, recorded, helpers []models.Lane, count uint32) (excluded, included []models.Value, err error) {
	if nativeQuadVote(c) {
		return models.QuadVoteHelperSets(c.Op, models.QuadVoteKHR, recorded, helpers)
	}
	return models.HelperSets(c.Op, mt, recorded, helpers, count)
}

// quadVoteKernelName is "QuadAny_base_whole" or "QuadAny_khr_base_whole" (prefix
// "pixel_" for the pixel stage): kernel names stay identifiers.
func quadVoteKernelName(stage Stage, op intrinsics.Op, native bool, shape string) string {
	n := op.String()
	if native {
		n += "_" + strings.TrimPrefix(khrSuffix, ".")
	}
	n = fmt.Sprintf("%s_%s_%s", n, families[0].name, shape)
	if stage == Pixel {
		n = string(Pixel) + "_" + n
	}
	return n
}

// withVariant marks a built kernel native: the extension goes to the compiler and
// the device must have shaderQuadControl.
func withVariant(k Kernel, native bool) Kernel {
	if native {
		k.Extensions = []string{quadControlExt}
		k.Needs.QuadControl = true
	}
	return k
}

// quadVoteMatrix is the compute matrix of the quad votes: one kernel per (op,
// variant, shape) with every pattern (random with every seed), in the order
// QuadVotes × {portable, native} × Shapes.
func quadVoteMatrix(f Filter) []Kernel {
	var out []Kernel
	for _, op := range intrinsics.QuadVotes {
		for _, native := range []bool{false, true} {
			for _, sh := range Shapes {
				var cases []Case
				for _, p := range Patterns {
					for _, s := range sh.seeds(p) {
						if c := quadVoteCase(op, native, p, sh, s); f.keep(c) {
							cases = append(cases, c)
						}
					}
				}
				name := quadVoteKernelName(Compute, op, native, sh.Name)
				if len(cases) == 0 || !f.wantsKernel(name) {
					continue
				}
				k, err := build(name, cases)
				if err != nil {
					// Static matrix: the package's tests catch generator bugs.
					continue
				}
				out = append(out, withVariant(k, native))
			}
		}
	}
	return out
}

// quadVotePixelKernels is the pixel matrix of the quad votes: one kernel per (op,
// variant, scene) with the graphics patterns, 2x2 pixel quads whose helper lanes
// take part (their predicates are loaded at their own positions).
func quadVotePixelKernels(f Filter) []Kernel {
	var out []Kernel
	for _, op := range intrinsics.QuadVotes {
		for _, native := range []bool{false, true} {
			for _, sh := range PixelShapes {
				var cases []Case
				for _, p := range GraphicsPatterns {
					var seed uint64
					if p == Random {
						seed = RandomSeeds[0]
					}
					if c := quadVoteCase(op, native, p, sh, seed); f.keep(c) {
						cases = append(cases, c)
					}
				}
				name := quadVoteKernelName(Pixel, op, native, sh.Name)
				if len(cases) == 0 || !f.wantsKernel(name) {
					continue
				}
				k, err := buildPixel(name, cases)
				if err != nil {
					continue
				}
				out = append(out, withVariant(k, native))
			}
		}
	}
	return out
}
