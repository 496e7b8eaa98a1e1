// Package kernels generates the rig's test matrix for the compute, pixel and vertex
// stages: HLSL kernels that run the 24 Shader Model 6.0 wave and quad intrinsics over
// operation × type × active-lane pattern × workgroup shape (compute), scene (pixel:
// graphics.go) or draw (vertex), the buffers they start from, and the checker that
// turns the buffers a device returns into per-case results using the Go reference
// models (harness/models). Pixel kernels also cover helper lanes: the checker accepts
// either choice the specs leave to the implementation (helpers in wave operations or
// not) and says which one the device made.
//
// Every invocation writes one fixed-size record (see record.go): its flat id, its wave
// key (WaveReadLaneFirst of the flat id, taken in uniform control flow), lane index,
// lane count, which branch ran the operation, the lane argument, its input and its
// output. The checker rebuilds every wave from these records and never assumes a lane
// layout. Many cases share one kernel (one workgroup, or a small grid of them, per case
// replica) so that the whole matrix needs a few hundred pipelines.
package kernels

import (
	"fmt"
	"regexp"

	"waverig/compiler/intrinsics"
	"waverig/harness/models"
)

// Type is an HLSL scalar or vector type.
type Type struct {
	Scalar string // "int","uint","float","bool","half","double","int64_t","uint64_t"
	N      int    // 1..4
}

// HLSL spells the type ("float3", "int64_t2", "bool").
func (t Type) HLSL() string {
	if t.N <= 1 {
		return t.Scalar
	}
	return fmt.Sprintf("%s%d", t.Scalar, t.N)
}

// Model converts the type to the models package's descriptor.
func (t Type) Model() (models.Type, error) {
	s, ok := models.ParseScalar(t.Scalar)
	if !ok {
		return models.Type{}, fmt.Errorf("kernels: unknown scalar type %q", t.Scalar)
	}
	if t.N < 1 || t.N > 4 {
		return models.Type{}, fmt.Errorf("kernels: %s: vector width %d is not 1..4", t.Scalar, t.N)
	}
	return models.Type{Scalar: s, N: t.N}, nil
}

// Pattern names the set of lanes that execute the operation.
type Pattern string

// The active-lane patterns. "nested" runs the operation inside a lane-index dependent
// if nested in another; for scalar types it also runs it in the inner if's else-arm, so
// two disjoint lane sets call it from two call sites (one must not see the other);
// "random" uses a seeded per-invocation coin.
const (
	All       Pattern = "all"
	Even      Pattern = "even"
	Odd       Pattern = "odd"
	First     Pattern = "first"
	Last      Pattern = "last"
	FirstHalf Pattern = "firsthalf"
	Nested    Pattern = "nested"
	Random    Pattern = "random"
)

// Patterns lists every pattern in matrix order; its index is the pattern's id in the HLSL.
var Patterns = []Pattern{All, Even, Odd, First, Last, FirstHalf, Nested, Random}

// RandomSeeds are the seeds of the random-pattern cases of every (op, type, shape).
var RandomSeeds = []uint64{1, 2, 3}

// Case is one cell of the matrix.
type Case struct {
	Op      intrinsics.Op
	Type    Type
	Pattern Pattern
	Shape   Shape
	Seed    uint64 // the random pattern's seed; 0 for the other patterns
	// Name, when not "", replaces the operation's name in the ID and the filter: the
	// cases that test a shader rather than one intrinsic (PSSlope, IsHelperLane).
	Name string
	// Keys is the key scheme of a partitioned operation's case (partition.go), ""
	// for every other case; when set it is the ID's fifth component ("keys=hash").
	Keys string
}

// OpName is the case's first ID component: Name, or the operation's name.
func (c Case) OpName() string {
	if c.Name != "" {
		return c.Name
	}
	return c.Op.String()
}

// ID is stable and human readable: "WaveActiveSum/float3/even/partial",
// "WavePrefixSum/int/random#2/whole".
func (c Case) ID() string {
	p := string(c.Pattern)
	if c.Pattern == Random {
		p = fmt.Sprintf("random#%d", c.Seed)
	}
	id := fmt.Sprintf("%s/%s/%s/%s", c.OpName(), c.Type.HLSL(), p, c.Shape.Name)
	if c.Keys != "" {
		id += "/keys=" + c.Keys // "WaveMatch/uint/odd/whole/keys=hash"
	}
	return id
}

// Features are the optional device features a kernel needs.
type Features struct {
	Float16, Float64, Int64 bool
	// QuadControl: VkPhysicalDeviceShaderQuadControlFeaturesKHR.shaderQuadControl
	// (the module uses SPV_KHR_quad_control: QuadAny/QuadAll as
	// OpGroupNonUniformQuadAny/AllKHR, or RequireFullQuadsKHR).
	QuadControl bool
	// MaximalReconvergence: VkPhysicalDeviceShaderMaximalReconvergenceFeaturesKHR
	// (the module declares MaximallyReconvergesKHR).
	MaximalReconvergence bool
}

// Buffer is one resource: its HLSL register and initial contents.
type Buffer struct {
	Register string // "u0", "t1", "b0"
	Data     []byte // initial contents, len = size
}

// Kernel is one compute pipeline: HLSL source, the cases it covers and its buffers.
type Kernel struct {
	Name  string
	Entry string
	HLSL  string
	Cases []Case // the cases batched into this kernel (one dispatch covers them all)
	// Buffers are registers as written in the HLSL (compiled with -auto-bindings, the
	// engine maps them via reflection).
	Buffers []Buffer
	// Textures and Samplers are the kernel's sampled textures (Texture2D) and
	// samplers (SamplerState), by register like Buffers and mapped to the
	// module's reflected bindings the same way (texture.go).
	Textures []Texture
	Samplers []Sampler
	Groups   [3]uint32
	Needs    Features
	// Stage is the stage the operations run in; "" means Compute.
	Stage Stage
	// Draw is non-nil exactly for Pixel and Vertex kernels (Groups is then zero).
	Draw *Draw
	// MeshDraw is non-nil exactly for Task and Mesh kernels (Groups is then
	// zero): the entry points and the vkCmdDrawMeshTasksEXT grid (mesh.go).
	MeshDraw *MeshDraw
	// Extensions are the SPIR-V extensions the kernel's module is compiled with
	// (waverig's -fspv-extension): SPV_NV_shader_subgroup_partitioned for WaveMatch
	// and WaveMultiPrefix*, SPV_KHR_quad_control for the native QuadAny/QuadAll.
	// Other compilers and WGSL ignore them (and skip what they cannot express).
	Extensions []string
}

// Filter selects part of the matrix; empty fields select everything.
type Filter struct {
	Ops      *regexp.Regexp // matched against the intrinsic name; nil = all
	Types    []string       // HLSL type ("float3"), or a scalar and "*" for all its widths ("float*")
	Patterns []Pattern
	Shapes   []string
	// Cases, when not nil, keeps only the cases with these IDs (Case.ID): the
	// suites pass the cases ginkgo's label filter selects, so a filtered run does
	// less on the device, not just reports less.
	Cases map[string]bool
	// Kernels, when not nil, keeps only the kernels whose name it accepts. It
	// is asked before a kernel's buffers are built: the whole matrix's inputs
	// and records are about 950 MB, and a child that runs one share of it
	// (a -shard, a pool part) had built them all to keep a sixth.
	Kernels func(name string) bool
}

// wantsKernel reports whether the filter keeps a kernel of this name (asked
// before its buffers are built).
func (f Filter) wantsKernel(name string) bool { return f.Kernels == nil || f.Kernels(name) }

// Keep reports whether the filter selects a case.
func (f Filter) Keep(c Case) bool { return f.keep(c) }

func (f Filter) keep(c Case) bool {
	if f.Cases != nil && !f.Cases[c.ID()] {
		return false
	}
	if f.Ops != nil && !f.Ops.MatchString(c.OpName()) {
		return false
	}
	if len(f.Types) > 0 {
		ok := false
		for _, t := range f.Types {
			ok = ok || t == c.Type.HLSL() || t == c.Type.Scalar+"*"
		}
		if !ok {
			return false
		}
	}
	if len(f.Patterns) > 0 {
		ok := false
		for _, p := range f.Patterns {
			ok = ok || p == c.Pattern
		}
		if !ok {
			return false
		}
	}
	return len(f.Shapes) == 0 || contains(f.Shapes, c.Shape.Name)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// family groups the types that share one kernel: the 32-bit types every device has,
// and one family per optional feature, so a device without a feature loses only the
// kernels that need it.
type family struct {
	name    string
	scalars []string
}

var families = []family{
	{"base", []string{"int", "uint", "float", "bool"}},
	{"half", []string{"half"}},
	{"double", []string{"double"}},
	{"int64", []string{"int64_t", "uint64_t"}},
}

// opTypes lists the types of a family the op is tested with, in order.
func opTypes(op intrinsics.Op, fam family) []Type {
	switch op {
	case intrinsics.WaveGetLaneCount, intrinsics.WaveGetLaneIndex:
		if fam.name == "base" {
			return []Type{{"uint", 1}}
		}
		return nil
	case intrinsics.WaveIsFirstLane, intrinsics.WaveActiveAnyTrue, intrinsics.WaveActiveAllTrue,
		intrinsics.WaveActiveBallot, intrinsics.WaveActiveCountBits, intrinsics.WavePrefixCountBits:
		if fam.name == "base" {
			return []Type{{"bool", 1}}
		}
		return nil
	}
	var out []Type
	for _, s := range fam.scalars {
		for n := 1; n <= 4; n++ {
			t := Type{s, n}
			mt, err := t.Model()
			if err != nil || models.Supports(op, mt) != nil {
				continue
			}
			out = append(out, t)
		}
	}
	return out
}

// replicas is how many workgroups one case uses and what the per-group "mode" means:
// the lane-argument choice (WaveReadLaneAt: constant 1, uniform count-1, lane-dependent
// (lane+1)%count; QuadReadLaneAt: the constant ids 0..3), the predicate density of the
// bool operations (none, 1/8, 1/2, 7/8, all true) or the AllEqual input scheme
// (all lanes equal, mixed).
func replicas(op intrinsics.Op) int {
	switch op {
	case intrinsics.WaveReadLaneAt:
		return 3
	case intrinsics.QuadReadLaneAt:
		return 4
	case intrinsics.WaveActiveAnyTrue, intrinsics.WaveActiveAllTrue, intrinsics.WaveActiveBallot,
		intrinsics.WaveActiveCountBits, intrinsics.WavePrefixCountBits, intrinsics.QuadAny, intrinsics.QuadAll:
		return len(densities)
	case intrinsics.WaveActiveAllEqual:
		return 2
	}
	return 1
}

// Matrix is the full static matrix, filtered: one kernel per (operation, type
// family, shape) in a fixed order (Wave24 order, then family, then shape),
// identical in every process; then the operations past Shader Model 6.0 and
// the seed's CSSum (cssum.go).
func Matrix(f Filter) []Kernel {
	out := opMatrix(intrinsics.Wave24, f, func(c Case) []Case { return []Case{c} }, build)
	// The operations past Shader Model 6.0, each in its own file.
	out = append(out, partitionMatrix(f)...)
	out = append(out, quadVoteMatrix(f)...)
	out = append(out, waveSizeMatrix(f)...)
	// The seed's CSSum, the fixture's compute entry point as written.
	out = append(out, seedComputeKernels(f)...)
	return out
}

// opMatrix is one kernel per (operation, type family, shape) of ops: its cases
// every type of the family the op takes × active-lane pattern (random with each
// seed; a reduced shape takes a subset, Shape.takes and Shape.seeds), each expanded by more (the partitioned ops add key schemes), kept by
// the filter and built by mk.
func opMatrix(ops []intrinsics.Op, f Filter, more func(Case) []Case, mk func(string, []Case) (Kernel, error)) []Kernel {
	var out []Kernel
	for _, op := range ops {
		for _, fam := range families {
			types := opTypes(op, fam)
			if len(types) == 0 {
				continue
			}
			for _, sh := range Shapes {
				if sh.Threads() < minThreads(op) {
					continue // the op can define no lane there (minThreads)
				}
				var cases []Case
				for _, t := range types {
					if !sh.takes(t, fam.scalars) {
						continue
					}
					for _, p := range Patterns {
						for _, s := range sh.seeds(p) {
							for _, c := range more(Case{Op: op, Type: t, Pattern: p, Shape: sh, Seed: s}) {
								if f.keep(c) {
									cases = append(cases, c)
								}
							}
						}
					}
				}
				name := fmt.Sprintf("%s_%s_%s", op, fam.name, sh.Name)
				if len(cases) == 0 || !f.wantsKernel(name) {
					continue
				}
				k, err := mk(name, cases)
				if err != nil {
					// The matrix is static: an error here is a generator bug that the
					// package's tests catch; skip the kernel rather than panic.
					continue
				}
				out = append(out, k)
			}
		}
	}
	return out
}

// needsOf derives the features a set of types needs.
func needsOf(types []Type) Features {
	var f Features
	for _, t := range types {
		switch t.Scalar {
		case "half":
			f.Float16 = true
		case "double":
			f.Float64 = true
		case "int64_t", "uint64_t":
			f.Int64 = true
		}
	}
	return f
}

// SubgroupBits are the VkSubgroupFeatureFlagBits the kernel needs: every kernel takes
// its layout with WaveGetLaneIndex/WaveGetLaneCount (Basic) and WaveReadLaneFirst
// (Ballot), plus the bit of each operation it tests. A device lacking one cannot run it.
func (k Kernel) SubgroupBits() uint32 {
	bits := intrinsics.VkBasic | intrinsics.VkBallot
	for _, c := range k.Cases {
		if in, ok := intrinsics.Lookup(c.Op.String()); ok {
			bits |= in.VkBit
		}
	}
	return bits
}

// TypeFamily names the type family a type belongs to (the kernels' grouping:
// "base" for the 32-bit types every device has, else the optional feature's
// family: "half", "double", "int64"), or "" for a type of none.
func TypeFamily(t Type) string {
	for _, fam := range families {
		if contains(fam.scalars, t.Scalar) {
			return fam.name
		}
	}
	return ""
}
