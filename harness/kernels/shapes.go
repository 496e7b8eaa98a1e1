package kernels

import (
	"fmt"
)

// Shape is a workgroup shape. Groups is the workgroup grid one case replica uses;
// the kernel's grid stacks its replicas' grids (see Grid).
type Shape struct {
	Name       string
	NumThreads [3]int
	Groups     [3]int
	// Reduced shapes run a documented subset of the types and random seeds
	// (Shape.takes, Shape.seeds): see ExtraShapes.
	Reduced bool
	// Scene is a pixel kernel's draw (nil for compute and vertex shapes).
	Scene *Scene
}

// Threads is the number of invocations in one workgroup.
func (s Shape) Threads() int { return s.NumThreads[0] * s.NumThreads[1] * s.NumThreads[2] }

// GroupCount is the number of workgroups one case replica spans.
func (s Shape) GroupCount() int { return s.Groups[0] * s.Groups[1] * s.Groups[2] }

// Shapes are the compute shapes: whole waves at every legal size up to 64; a
// partial last wave at every size (62 leaves a two-lane quad at the end); a 2-D
// workgroup; then ExtraShapes.
var Shapes = append([]Shape{
	{Name: "whole", NumThreads: [3]int{64, 1, 1}, Groups: [3]int{1, 1, 1}},
	{Name: "partial", NumThreads: [3]int{62, 1, 1}, Groups: [3]int{1, 1, 1}},
	{Name: "2d", NumThreads: [3]int{8, 8, 1}, Groups: [3]int{1, 1, 1}},
}, ExtraShapes...)

// ExtraShapes are the workgroup shapes VK-CTS's subgroup tests use, and more:
// one invocation; a whole dimension of 64 along y and along z (Vulkan's minimum
// maxComputeWorkGroupSize is 128, 128, 64); 128 invocations as 32×4 and 1×4×32;
// 3×5×7 (105: a 1-lane last wave at 4 and 8 lanes, 9 at 16, 41 at 32); 65, a
// 1-lane last wave at every size from 4 to 64; and grid27, 27-invocation
// workgroups (a 3-lane last wave at 4 and 8 lanes: a broadcast from lane 3 has
// no lane 3) on a 2×2×2 grid per case replica, so the dispatch is 3-D and
// SV_GroupID.y and .z reach the flat id.
//
// They would multiply the matrix like the first three do, so they are Reduced:
// every operation and pattern, but only the scalar types of each family plus
// int4 (Shape.takes), and one random seed. What a shape can break is the layout
// (lane placement, partial waves, group ids), which the scalar types of every
// width (16..64 bits) reach; the vector widths are the full shapes' job. With
// the subset `waverig list` on lavapipe grows from 308,088 to about 450,000
// cases (+45%) instead of 2.7 times. Each adds a kernel per (operation, family)
// all the same: the pipeline count grows with the shape count.
var ExtraShapes = []Shape{
	{Name: "one", NumThreads: [3]int{1, 1, 1}, Groups: [3]int{1, 1, 1}, Reduced: true},
	{Name: "y64", NumThreads: [3]int{1, 64, 1}, Groups: [3]int{1, 1, 1}, Reduced: true},
	{Name: "z64", NumThreads: [3]int{1, 1, 64}, Groups: [3]int{1, 1, 1}, Reduced: true},
	{Name: "32x4", NumThreads: [3]int{32, 4, 1}, Groups: [3]int{1, 1, 1}, Reduced: true},
	{Name: "1x4x32", NumThreads: [3]int{1, 4, 32}, Groups: [3]int{1, 1, 1}, Reduced: true},
	{Name: "3x5x7", NumThreads: [3]int{3, 5, 7}, Groups: [3]int{1, 1, 1}, Reduced: true},
	{Name: "65", NumThreads: [3]int{65, 1, 1}, Groups: [3]int{1, 1, 1}, Reduced: true},
	{Name: "grid27", NumThreads: [3]int{27, 1, 1}, Groups: [3]int{2, 2, 2}, Reduced: true},
}

// maxThreads bounds a workgroup: Vulkan guarantees maxComputeWorkGroupInvocations
// of at least 128 (a device with more still gets kernels it can run everywhere).
const maxThreads = 128

// validate says what is wrong with a compute shape ("" when nothing): every
// dimension of the workgroup and of the replica grid at least 1, at most
// maxThreads invocations.
func (s Shape) validate() error {
	for d := 0; d < 3; d++ {
		if s.NumThreads[d] < 1 || s.Groups[d] < 1 {
			return fmt.Errorf("kernels: shape %s: numthreads %v, groups %v: every dimension must be at least 1", s.Name, s.NumThreads, s.Groups)
		}
	}
	if s.Threads() > maxThreads {
		return fmt.Errorf("kernels: shape %s: %d invocations, more than %d", s.Name, s.Threads(), maxThreads)
	}
	return nil
}

// stackDim is the dimension the kernel's grid stacks its replicas along: the
// last one the replica's grid uses (x when a replica is one workgroup). With x
// the fastest in the linear group index, each replica's workgroups are then
// consecutive, so its records are one block, as with one workgroup per replica.
func (s Shape) stackDim() int {
	d := 0
	for i := 1; i < 3; i++ {
		if s.Groups[i] > 1 {
			d = i
		}
	}
	return d
}

// Grid is the dispatch grid of a kernel of n case replicas of the shape.
func (s Shape) Grid(n int) [3]uint32 {
	g := [3]uint32{uint32(s.Groups[0]), uint32(s.Groups[1]), uint32(s.Groups[2])}
	g[s.stackDim()] *= uint32(n)
	return g
}

// flatHLSL is the HLSL expression of an invocation's record index (gid is
// SV_GroupID, gi SV_GroupIndex): the linear group index, x fastest, times the
// workgroup's invocations, plus gi. The grid's extent along the stacking
// dimension depends on the replica count, but that dimension is the last one
// in use, so the expression never needs it.
func (s Shape) flatHLSL() string {
	var lin string
	switch s.stackDim() {
	case 0:
		lin = "gid.x"
	case 1:
		lin = fmt.Sprintf("(gid.x + gid.y * %du)", s.Groups[0])
	default:
		lin = fmt.Sprintf("(gid.x + gid.y * %du + gid.z * %du)", s.Groups[0], s.Groups[0]*s.Groups[1])
	}
	return fmt.Sprintf("%s * %du + gi", lin, s.Threads())
}

// reducedVector is the one vector type the reduced shapes take (where the
// operation takes it): the vector paths of every component width are the full
// shapes' job, a reduced shape checks that vectors reach its lanes at all.
var reducedVector = Type{"int", 4}

// takes says whether the shape's cases include type t (see ExtraShapes): every
// type for a full shape; for a reduced one the scalars and reducedVector. fam
// (the family's scalars) is there for a rule per family; this one needs none.
func (s Shape) takes(t Type, fam []string) bool {
	return !s.Reduced || t.N == 1 || t == reducedVector
}

// seeds are the random seeds of a pattern's cases: none but 0 for the fixed
// patterns, RandomSeeds for random, its first only on a reduced shape. A
// one-invocation workgroup is lane 0 alone: "odd" never picks it and a random
// coin may not, so those cases could only ever be vacuous and are left out.
func (s Shape) seeds(p Pattern) []uint64 {
	switch {
	case s.Threads() == 1 && (p == Odd || p == Random):
		return nil
	case p != Random:
		return []uint64{0}
	case s.Reduced:
		return RandomSeeds[:1]
	}
	return RandomSeeds
}
