package kernels

import (
	"hash/fnv"
	"slices"
	"testing"
)

// Filter.Kernels is a filter on kernel names and nothing else: every builder
// of every stage asks it, and keeps exactly the kernels (cases and all) the
// unfiltered matrix has under the names it accepts.
func TestFilterKernelsKeepsExactlyTheNamedKernels(t *testing.T) {
	third := func(name string) bool {
		h := fnv.New32a()
		h.Write([]byte(name))
		return h.Sum32()%3 == 0
	}
	all := map[string]func(Filter) []Kernel{
		"compute": Matrix,
		"pixel":   func(f Filter) []Kernel { return GraphicsMatrix(Pixel, f) },
		"vertex":  func(f Filter) []Kernel { return GraphicsMatrix(Vertex, f) },
		"task":    func(f Filter) []Kernel { return MeshMatrix(Task, f) },
		"mesh":    func(f Filter) []Kernel { return MeshMatrix(Mesh, f) },
	}
	for stage, build := range all {
		var want []Kernel
		for _, k := range build(Filter{}) {
			if third(k.Name) {
				want = append(want, k)
			}
		}
		got := build(Filter{Kernels: third})
		if len(want) == 0 || len(got) != len(want) {
			t.Errorf("%s: %d kernels with the filter, %d of the whole matrix's have its names", stage, len(got), len(want))
			continue
		}
		for i := range got {
			if got[i].Name != want[i].Name || got[i].HLSL != want[i].HLSL || !slices.Equal(caseIDs(got[i]), caseIDs(want[i])) {
				t.Errorf("%s: kernel %d is %s with the filter, %s without", stage, i, got[i].Name, want[i].Name)
			}
		}
	}
}

func caseIDs(k Kernel) []string {
	var ids []string
	for _, c := range k.Cases {
		ids = append(ids, c.ID())
	}
	return ids
}
