package kernels

import (
	"fmt"
	"strings"

	"waverig/compiler/intrinsics"
)

// WaveSizeAttr is a [WaveSize] attribute a kernel is compiled with: Shader Model
// 6.6's [WaveSize(N)] (Min = Max = N) or 6.8's [WaveSize(min, max)] and
// [WaveSize(min, max, preferred)].
type WaveSizeAttr struct{ Min, Max, Preferred int }

// HLSL spells the attribute.
func (w WaveSizeAttr) HLSL() string {
	switch {
	case w.Min == w.Max:
		return fmt.Sprintf("[WaveSize(%d)]", w.Min)
	case w.Preferred != 0:
		return fmt.Sprintf("[WaveSize(%d, %d, %d)]", w.Min, w.Max, w.Preferred)
	}
	return fmt.Sprintf("[WaveSize(%d, %d)]", w.Min, w.Max)
}

// Name is the attribute as a case-ID component (no parentheses or commas: case
// names are ginkgo labels): WaveSize32, WaveSize8-16, WaveSize4-64-16.
func (w WaveSizeAttr) Name() string {
	switch {
	case w.Min == w.Max:
		return fmt.Sprintf("WaveSize%d", w.Min)
	case w.Preferred != 0:
		return fmt.Sprintf("WaveSize%d-%d-%d", w.Min, w.Max, w.Preferred)
	}
	return fmt.Sprintf("WaveSize%d-%d", w.Min, w.Max)
}

// WaveSizeAttrs are the attributes the matrix tests: every size DXC accepts on
// its own, and ranges with and without a preferred size that include one, some
// or all of the sizes real devices have (4 lavapipe, 8/16 lavapipe and Intel,
// 32 NVIDIA/AMD, 64 AMD), so every device runs some and skips others with the
// reason.
var WaveSizeAttrs = []WaveSizeAttr{
	{4, 4, 0}, {8, 8, 0}, {16, 16, 0}, {32, 32, 0}, {64, 64, 0}, {128, 128, 0},
	{4, 128, 0}, {4, 8, 0}, {8, 16, 0}, {32, 64, 0}, {4, 64, 16}, {16, 128, 32},
}

// waveSizeShape has a workgroup of 128 invocations: whole waves at every size
// [WaveSize] allows, so the rig can also ask for full subgroups.
var waveSizeShape = Shape{Name: "whole128", NumThreads: [3]int{128, 1, 1}, Groups: [3]int{1, 1, 1}}

// waveSizeOp is the operation the WaveSize kernels run: a reduction over the
// whole wave, whose result depends on exactly which lanes share it, so a wave of
// another size than the one asked for fails even where the layout check would
// not. (Not WavePrefixSum: glslang 12 lowers it to an inclusive scan, a known
// compiler bug that would hide what these kernels test.)
const waveSizeOp = intrinsics.WaveActiveSum

// waveSizeMatrix is one kernel per [WaveSize] attribute: WaveActiveSum over uint
// and float, in uniform and divergent control flow, in a 128-invocation
// workgroup. The attribute is in the HLSL only; the rig reads the range back from
// the compiler's reflection (that is what it tests) and creates the pipeline with
// a required subgroup size in it, or skips the kernel naming the sizes the device
// can run. The checker is given the size the rig required, so a wave of another
// size is a layout failure.
func waveSizeMatrix(f Filter) []Kernel {
	var out []Kernel
	for _, w := range WaveSizeAttrs {
		var cases []Case
		for _, t := range []Type{{"uint", 1}, {"float", 1}} {
			for _, p := range []Pattern{All, Odd, Nested, Random} {
				seeds := []uint64{0}
				if p == Random {
					seeds = RandomSeeds[:1]
				}
				for _, s := range seeds {
					c := Case{Op: waveSizeOp, Type: t, Pattern: p, Shape: waveSizeShape, Seed: s, Name: w.Name()}
					if f.keep(c) {
						cases = append(cases, c)
					}
				}
			}
		}
		if len(cases) == 0 || !f.wantsKernel(w.Name()+"_"+waveSizeOp.String()) {
			continue
		}
		k, err := build(w.Name()+"_"+waveSizeOp.String(), cases)
		if err != nil {
			continue // static matrix: the package's tests catch generator errors
		}
		numthreads := fmt.Sprintf("[numthreads(%d, %d, %d)]", waveSizeShape.NumThreads[0], waveSizeShape.NumThreads[1], waveSizeShape.NumThreads[2])
		k.HLSL = strings.Replace(k.HLSL, numthreads, w.HLSL()+"\n"+numthreads, 1)
		out = append(out, k)
	}
	return out
}

// WaveSizeOf returns the [WaveSize] attribute of a case's kernel (false for a
// case without one): such a case has records only in the pass at the size the
// rig picked for it.
func WaveSizeOf(c Case) (WaveSizeAttr, bool) {
	for _, w := range WaveSizeAttrs {
		if c.Name == w.Name() {
			return w, true
		}
	}
	return WaveSizeAttr{}, false
}
