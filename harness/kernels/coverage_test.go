package kernels

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// oddShapes are workgroups the matrix must also cover without vacuous cases: one
// invocation, 3×5×7 = 105, 65 (a one-lane partial wave), tall and deep lines, 3-D.
var oddShapes = []Shape{
	{Name: "one", NumThreads: [3]int{1, 1, 1}, Groups: [3]int{1, 1, 1}},
	{Name: "3x5x7", NumThreads: [3]int{3, 5, 7}, Groups: [3]int{1, 1, 1}},
	{Name: "65", NumThreads: [3]int{65, 1, 1}, Groups: [3]int{1, 1, 1}},
	{Name: "1x64", NumThreads: [3]int{1, 64, 1}, Groups: [3]int{1, 1, 1}},
	{Name: "1x1x64", NumThreads: [3]int{1, 1, 64}, Groups: [3]int{1, 1, 1}},
	{Name: "32x4", NumThreads: [3]int{32, 4, 1}, Groups: [3]int{1, 1, 1}},
	{Name: "1x4x32", NumThreads: [3]int{1, 4, 32}, Groups: [3]int{1, 1, 1}},
}

// minLanes simulates every kernel at every wave size on a linear layout and
// returns the fewest lanes any case compared, failing the test for every case
// that compared none or failed.
//
// empty counts the cases in which no lane ran the op at all (the pattern picks no
// invocation: "odd" or an all-tails "random" in a one-invocation workgroup); only
// tolerate says they may be.
func minLanes(t *testing.T, ks []Kernel, tolerate bool) (least, cases, empty int) {
	least = -1
	for _, size := range []uint32{4, 8, 16, 32, 64, 128} {
		for _, k := range ks {
			out, err := Simulate(k, SimLayout{WaveSize: size})
			if err != nil {
				t.Fatalf("%s at %d: %v", k.Name, size, err)
			}
			for _, r := range Check(k, out, size) {
				cases++
				if !r.Passed {
					t.Errorf("size %d: %s", size, r)
				}
				// A one-invocation workgroup is one lane: a pattern or a per-replica
				// coin that picks it in no replica reading itself compares nothing.
				if r.Lanes == 0 && tolerate && (strings.Contains(r.Note, " 0 arms,") || r.Case.Shape.Threads() == 1) {
					empty++
					continue
				}
				if r.Lanes == 0 {
					t.Errorf("size %d: %s is vacuous: %s", size, r.Case.ID(), r.Note)
				}
				if least < 0 || r.Lanes < least {
					least = r.Lanes
				}
			}
		}
	}
	return least, cases, empty
}

// TestNoVacuousCases: every case of the whole matrix compares at least one lane
// at every wave size 4..128.
func TestNoVacuousCases(t *testing.T) {
	ks := Matrix(shortTypes(Filter{}))
	least, n, _ := minLanes(t, ks, false)
	t.Logf("%d kernels, %d case results at wave sizes 4..128: fewest lanes compared %d", len(ks), n, least)
}

// TestNoVacuousCasesOddShapes: the same over workgroups that are not the matrix's.
func TestNoVacuousCasesOddShapes(t *testing.T) {
	saved := Shapes
	Shapes = oddShapes
	defer func() { Shapes = saved }()
	ks := Matrix(shortTypes(Filter{Shapes: shapeNames(oddShapes)}))
	seen := map[string]bool{}
	for _, k := range ks {
		seen[k.Cases[0].Shape.Name] = true
	}
	for _, sh := range oddShapes {
		if !seen[sh.Name] {
			t.Errorf("no kernel for shape %s %v", sh.Name, sh.NumThreads)
		}
	}
	least, n, empty := minLanes(t, ks, true)
	t.Logf("%d kernels, %d case results at wave sizes 4..128: fewest lanes compared %d; %d with an empty pattern", len(ks), n, least, empty)
}

// shortTypes narrows a vacuity test to the base family's scalars and widest
// vectors under -short. Which lanes a case compares depends on the operation,
// pattern, seed, shape and wave size, and on the type only through whether it
// is a scalar (the nested pattern's second arm: elseArm); the optional
// families' types run the same control flow as the base ones. So the short form
// still proves "no case is vacuous" for every operation × pattern × shape ×
// size, with both arms, at about a third of the cost.
func shortTypes(f Filter) Filter {
	if testing.Short() {
		f.Types = []string{"int", "int4", "uint", "uint4", "float", "float4", "bool", "bool4"}
	}
	return f
}

func shapeNames(ss []Shape) []string {
	var out []string
	for _, s := range ss {
		out = append(out, fmt.Sprint(s.Name))
	}
	return out
}

// TestNoVacuousPixelReads: a pixel kernel's quad swaps and WaveReadLaneAt compare
// lanes in every case, whatever the pattern, at every wave size, helpers in wave
// operations or not, linear or shuffled quads (the whole-quad replicas: pixelArm).
func TestNoVacuousPixelReads(t *testing.T) {
	ks := GraphicsMatrix(Pixel, Filter{Ops: regexp.MustCompile(`^(QuadReadAcross(X|Y|Diagonal)|WaveReadLaneAt)$`)})
	if len(ks) == 0 {
		t.Fatal("no pixel read kernels")
	}
	cases := 0
	for _, size := range []uint32{4, 8, 16, 32, 64} {
		for _, l := range []SimLayout{{WaveSize: size}, {WaveSize: size, Seed: 7, Helpers: true}} {
			for _, k := range ks {
				out, err := Simulate(k, l)
				if err != nil {
					t.Fatalf("%s at %d: %v", k.Name, size, err)
				}
				for _, r := range Check(k, out, size) {
					cases++
					if !r.Passed {
						t.Errorf("size %d: %s", size, r)
					}
					if r.Lanes == 0 {
						t.Errorf("size %d (helpers %v): %s is vacuous: %s", size, l.Helpers, r.Case.ID(), r.Note)
					}
				}
			}
		}
	}
	t.Logf("%d pixel read kernels, %d case results at 4..64: none vacuous", len(ks), cases)
}
