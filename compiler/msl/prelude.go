package msl

import (
	"strings"

	"waverig/compiler/internal/textgen"
	"waverig/compiler/ir"
)

// Helper functions are printed once, before the user's code, and only when used.
// Each exists because the HLSL semantics need more than one Metal call or an
// operand used twice; the comments say which HLSL rule they keep.
// helperText is a switch rather than a map literal, which Go builds at package
// initialisation.
func helperText(name string) string {
	switch name {
	case "wr_ballot":
		return `// WaveActiveBallot: bit i of word k is lane 32k+i. Metal's simd_vote is 64 bits
// wide (128-lane groups do not exist on Apple GPUs), so z and w are 0; bits of
// lanes at or above the simd-group size are cleared.
inline uint4 wr_ballot(bool pred, uint lanes)
{
    ulong bits = ulong(static_cast<simd_vote::vote_t>(simd_ballot(pred)));
    ulong mask = lanes >= 64u ? ~0ul : ((1ul << lanes) - 1ul);
    bits &= mask;
    return uint4(uint(bits), uint(bits >> 32ul), 0u, 0u);
}
`
	case "wr_dispatch_mesh":
		return `// DispatchMesh(x, y, z, payload). HLSL: every thread of the group calls it once,
// in uniform control flow; the SPIR-V lowering is a workgroup barrier, then
// OpEmitMeshTasksEXT, whose operands "are taken from the first invocation in
// each workgroup" (SPV_EXT_mesh_shader). Here every thread has evaluated the
// arguments (they may be wave operations, which need every thread), the barrier
// orders every thread's payload writes before the dispatch and lets no thread
// run on past it, and thread 0 alone sets the grid, so the count is the first
// invocation's as in SPIR-V (set_threadgroups_per_grid called with different
// values by several threads would leave the choice to the device).
inline void wr_dispatch_mesh(thread mesh_grid_properties& grid, uint thread_index, uint3 groups)
{
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (thread_index == 0u) {
        grid.set_threadgroups_per_grid(groups);
    }
}
`
	case "wr_set_mesh_output_counts":
		return `// SetMeshOutputCounts(vertices, primitives): kept for the gather at the end of
// the mesh function (Metal's mesh<...> has set_primitive_count only; the vertex
// count bounds which vertices are handed over). As OpSetMeshOutputsEXT, the
// counts are the first invocation's: thread 0 stores them.
inline void wr_set_mesh_output_counts(threadgroup uint2& counts, uint thread_index, uint vertices, uint primitives)
{
    if (thread_index == 0u) {
        counts = uint2(vertices, primitives);
    }
}
`
	case "wr_ballot_count":
		return `// WaveActiveCountBits: the population count of the ballot's words.
inline uint wr_ballot_count(bool pred, uint lanes)
{
    uint4 b = wr_ballot(pred, lanes);
    return popcount(b.x) + popcount(b.y) + popcount(b.z) + popcount(b.w);
}
`
	case "wr_isign":
		return `// sign() of integers (Metal's sign is float-only): -1, 0 or 1.
template<typename T>
inline T wr_isign(T x)
{
    return select(T(0), T(1), x > T(0)) - select(T(0), T(1), x < T(0));
}
`
	case "wr_firstbithigh":
		return `// firstbithigh: index of the highest set bit, 0xffffffff for 0 (HLSL's -1).
template<typename T>
inline T wr_firstbithigh(T x)
{
    return select(T(31) - clz(x), T(~0u), x == T(0));
}
// Signed firstbithigh finds the highest bit differing from the sign bit (-1 for 0 and -1).
template<typename U, typename S>
inline U wr_firstbithigh_s(S x)
{
    return wr_firstbithigh(as_type<U>(select(x, ~x, x < S(0))));
}
`
	case "wr_firstbitlow":
		return `// firstbitlow: index of the lowest set bit, 0xffffffff for 0 (Metal's ctz gives 32).
template<typename T>
inline T wr_firstbitlow(T x)
{
    return select(ctz(x), T(~0u), x == T(0));
}
`
	case "wr_f16tof32":
		return `// f16tof32: the half in the low 16 bits, widened.
inline float wr_f16tof32(uint x) { return float(as_type<half2>(x).x); }
inline float2 wr_f16tof32(uint2 x) { return float2(wr_f16tof32(x.x), wr_f16tof32(x.y)); }
inline float3 wr_f16tof32(uint3 x) { return float3(wr_f16tof32(x.x), wr_f16tof32(x.y), wr_f16tof32(x.z)); }
inline float4 wr_f16tof32(uint4 x) { return float4(wr_f16tof32(x.x), wr_f16tof32(x.y), wr_f16tof32(x.z), wr_f16tof32(x.w)); }
`
	case "wr_f32tof16":
		return `// f32tof16: the half's bits in the low 16 bits, the high 16 bits zero.
inline uint wr_f32tof16(float x) { return as_type<uint>(half2(half(x), half(0.0f))); }
inline uint2 wr_f32tof16(float2 x) { return uint2(wr_f32tof16(x.x), wr_f32tof16(x.y)); }
inline uint3 wr_f32tof16(float3 x) { return uint3(wr_f32tof16(x.x), wr_f32tof16(x.y), wr_f32tof16(x.z)); }
inline uint4 wr_f32tof16(float4 x) { return uint4(wr_f32tof16(x.x), wr_f32tof16(x.y), wr_f32tof16(x.z), wr_f32tof16(x.w)); }
`
	case "wr_idot":
		return `// dot() of integer vectors (Metal's dot is float-only): the sum of products.
inline int wr_idot(int2 a, int2 b) { return a.x * b.x + a.y * b.y; }
inline int wr_idot(int3 a, int3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
inline int wr_idot(int4 a, int4 b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }
inline uint wr_idot(uint2 a, uint2 b) { return a.x * b.x + a.y * b.y; }
inline uint wr_idot(uint3 a, uint3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
inline uint wr_idot(uint4 a, uint4 b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }
`
	}
	return ""
}

// helperOrder fixes the print order (dependencies first).
var helperOrder = []string{"wr_ballot", "wr_ballot_count", "wr_isign", "wr_firstbithigh", "wr_firstbitlow",
	"wr_f16tof32", "wr_f32tof16", "wr_idot", "wr_dispatch_mesh", "wr_set_mesh_output_counts"}

// helperDeps lists the helpers a helper calls.
func helperDeps(name string) []string {
	if name == "wr_ballot_count" {
		return []string{"wr_ballot"}
	}
	return nil
}

func (e *emitter) useHelper(name string) {
	e.helpers[name] = true
	for _, d := range helperDeps(name) {
		e.useHelper(d)
	}
}

// helperAllEqual returns a per-type WaveActiveAllEqual helper: HLSL compares each
// component on its own (a bool vector result), and bools travel as ushort.
func (e *emitter) helperAllEqual(t ir.Type) string {
	tn := e.typeName(t)
	name := "wr_all_equal_" + tn
	if e.helpers[name] {
		return name
	}
	s, _ := ir.ScalarOf(t)
	n := ir.Components(t)
	conv := func(v string) string {
		if s.Kind == ir.Bool {
			return "ushort(" + v + ")"
		}
		return v
	}
	var b strings.Builder
	if n == 1 {
		textgen.Write(&b, "inline bool ", name, "(", tn, " x)\n{\n    return simd_all(", conv("x"), " == simd_broadcast_first(", conv("x"), "));\n}\n")
	} else {
		var comps []string
		for i := 0; i < n; i++ {
			c := "x." + string("xyzw"[i])
			comps = append(comps, "simd_all("+conv(c)+" == simd_broadcast_first("+conv(c)+"))")
		}
		textgen.Write(&b, "inline bool", textgen.Dec(n), " ", name, "(", tn, " x)\n{\n    return bool", textgen.Dec(n), "(", strings.Join(comps, ",\n                 "), ");\n}\n")
	}
	e.helpers[name] = true
	e.dynHelpers = append(e.dynHelpers, "// WaveActiveAllEqual on "+tn+": one vote per component.\n"+b.String())
	return name
}

// helperMatrixCW returns a helper for HLSL's component-wise matrix * and /.
func (e *emitter) helperMatrixCW(m ir.Matrix, op ir.BinOp) string {
	tn := e.typeName(ir.Matrix{Elem: m.Elem, Rows: m.Rows, Cols: m.Cols})
	verb := "mul"
	if op == ir.Div {
		verb = "div"
	}
	name := "wr_cw" + verb + "_" + tn
	if e.helpers[name] {
		return name
	}
	var b strings.Builder
	textgen.Write(&b, "// Component-wise ", verb, " of ", tn, " (Metal's * on matrices is the matrix product).\n")
	textgen.Write(&b, "inline ", tn, " ", name, "(", tn, " a, ", tn, " b)\n{\n")
	var cols []string
	for i := 0; i < m.Rows; i++ {
		cols = append(cols, "a["+textgen.Dec(i)+"] "+op.String()+" b["+textgen.Dec(i)+"]")
	}
	textgen.Write(&b, "    return ", tn, "(", strings.Join(cols, ", "), ");\n}\n")
	e.helpers[name] = true
	e.dynHelpers = append(e.dynHelpers, b.String())
	return name
}

// arrayTemplate is a value-semantics array: HLSL arrays are values (assignable,
// returnable), C arrays are not. Metal member functions carry an address space,
// so operator[] is declared for each space the array can live in.
const arrayTemplate = `// HLSL arrays are values; C arrays cannot be assigned or returned.
template<typename T, uint N>
struct wr_array
{
    T elems[N];
    thread T& operator[](uint i) thread { return elems[i]; }
    const thread T& operator[](uint i) const thread { return elems[i]; }
#ifdef __METAL_VERSION__
    device T& operator[](uint i) device { return elems[i]; }
    const device T& operator[](uint i) const device { return elems[i]; }
    const constant T& operator[](uint i) const constant { return elems[i]; }
    threadgroup T& operator[](uint i) threadgroup { return elems[i]; }
    const threadgroup T& operator[](uint i) const threadgroup { return elems[i]; }
#endif
};
`

// objectDataIndex is wr_array's operator[] in the object_data space (Metal 3),
// printed only for object and mesh functions.
const objectDataIndex = `    object_data T& operator[](uint i) object_data { return elems[i]; }
    const object_data T& operator[](uint i) const object_data { return elems[i]; }
`

// stridedTemplate pads an array element to its ArrayStride (cbuffer arrays of
// scalars and small vectors have stride 16; Metal's own stride is the type's size).
const stridedTemplate = `// An array element padded to the buffer's ArrayStride S; v is the value.
template<typename T, uint S>
struct wr_strided
{
    T v;
    char pad[S - sizeof(T)];
};
`

// prelude returns the helper code this entry point uses.
func (e *emitter) prelude() string {
	var b strings.Builder
	if e.needArray {
		if isMeshStage(e.ep.Stage) {
			// Payload arrays (object_data) are indexed too in object and mesh functions.
			b.WriteString(strings.Replace(arrayTemplate, "#endif\n", objectDataIndex+"#endif\n", 1))
		} else {
			b.WriteString(arrayTemplate)
		}
		b.WriteString("\n")
	}
	if e.needStrided {
		b.WriteString(stridedTemplate)
		b.WriteString("\n")
	}
	for _, n := range helperOrder {
		if e.helpers[n] {
			b.WriteString(helperText(n))
			b.WriteString("\n")
		}
	}
	for _, h := range e.dynHelpers {
		b.WriteString(h)
		b.WriteString("\n")
	}
	return b.String()
}
