package wgsl

import (
	"github.com/oliverbestmann/webgpu/wgpu"
	"math"
	"slices"
	"strings"
	"testing"

	"waverig/compiler/diag"
	"waverig/compiler/intrinsics"
	"waverig/compiler/ir"
	. "waverig/compiler/ir/irtest"
	"waverig/harness/webgpu"
	"waverig/internal/golden"
)

// csSum is the seed kernel: Out[tid.x] = WaveActiveSum(In[tid.x]); the first
// lane also writes the lane count.
//
//	if (WaveIsFirstLane()) Count[tid.x / WaveGetLaneCount()] = WaveGetLaneCount();
func csSum() *ir.Module {
	b := newCompute("CSSum", 64)
	in := b.ROBuffer("In", ir.U32, 0, 0)
	out := b.RWBuffer("Out", ir.U32, 0, 1)
	count := b.RWBuffer("Count", ir.U32, 0, 2)
	lanes := Intr(intrinsics.WaveGetLaneCount, ir.U32)
	b.Add(
		Store(Elem(out, b.laneX()), Intr(intrinsics.WaveActiveSum, ir.U32, Load(Elem(in, b.laneX())))),
		&ir.If{Cond: Intr(intrinsics.WaveIsFirstLane, ir.BoolT), Then: ir.Block{
			Store(Elem(count, &ir.Binary{Op: ir.Div, X: b.laneX(), Y: lanes, T: ir.U32}), lanes),
			Store(Elem(count, Uint(63)), Intr(intrinsics.WaveGetLaneIndex, ir.U32)),
		}},
	)
	return b.M
}

func TestCSSumBothDialects(t *testing.T) {
	m := csSum()
	std := emitValid(t, "cssum_standard", m, Standard)
	naga := emitValid(t, "cssum_naga", m, Naga)
	for _, want := range []string{"enable subgroups;\n", "diagnostic(off, subgroup_uniformity);\n", "subgroupElect()", "subgroupAdd(In[tid.x])"} {
		if !strings.Contains(std.Source, want) {
			t.Errorf("standard output lacks %q", want)
		}
	}
	for _, bad := range []string{"enable subgroups", "diagnostic(", "subgroupElect"} {
		if strings.Contains(naga.Source, bad) {
			t.Errorf("naga output contains %q", bad)
		}
	}
	if got := strings.Join(std.RequiredFeatures, ","); got != "subgroups" {
		t.Errorf("standard features = %s", got)
	}
	if got := strings.Join(naga.RequiredFeatures, ","); got != "native-feature-subgroup" {
		t.Errorf("naga features = %s", got)
	}
	if !strings.Contains(naga.Source, "@builtin(subgroup_size)") || !strings.Contains(naga.Source, "@builtin(subgroup_invocation_id)") {
		t.Error("lane builtins are not entry parameters")
	}
}

// TestDialectsDifferOnlyInDocumentedLines: the standard and naga outputs of the
// same module differ only in the directives and the subgroupElect lowering.
func TestDialectsDifferOnlyInDocumentedLines(t *testing.T) {
	modules := map[string]*ir.Module{"cssum": csSum()}
	// A module with half, a vector AllEqual and an elect inside a helper function.
	b := newCompute("Mixed", 32)
	out := b.RWBuffer("Out", ir.U32, 0, 0)
	helper := &ir.Function{Name: "first", Result: ir.BoolT}
	helper.Body = ir.Block{&ir.Return{Value: Intr(intrinsics.WaveIsFirstLane, ir.BoolT)}}
	h := b.value(ir.Vector{Elem: ir.F16, N: 2})
	b.Add(
		Store(Elem(out, b.laneX()), &ir.Convert{X: &ir.Call{Func: helper}, T: ir.U32}),
		Store(Elem(out, Uint(0)), X(Conv(Intr(intrinsics.WaveActiveSum, ir.Vector{Elem: ir.F16, N: 2}, h), ir.Vector{Elem: ir.U32, N: 2}))),
		Store(Elem(out, Uint(1)), Intr(intrinsics.WaveGetLaneIndex, ir.U32)),
	)
	b.Func(helper)
	modules["mixed"] = b.M

	for name, m := range modules {
		Valid(t, m)
		std, err := EmitEntry(m, m.EntryPoints[0], Options{Dialect: Standard})
		if err != nil {
			t.Fatal(err)
		}
		naga, err := EmitEntry(m, m.EntryPoints[0], Options{Dialect: Naga})
		if err != nil {
			t.Fatal(err)
		}
		var sl []string
		for _, l := range strings.Split(std.Source, "\n") {
			if l == "enable subgroups;" || l == "diagnostic(off, subgroup_uniformity);" {
				continue // the documented directive lines
			}
			sl = append(sl, l)
		}
		nl := strings.Split(naga.Source, "\n")
		if len(sl) != len(nl) {
			t.Fatalf("%s: %d lines vs %d after removing directives:\n%s\n---\n%s", name, len(sl), len(nl), std.Source, naga.Source)
		}
		diffs := 0
		for i := range sl {
			if sl[i] == nl[i] {
				continue
			}
			diffs++
			// The only other documented difference: subgroupElect().
			lowered := strings.ReplaceAll(sl[i], "subgroupElect()", "(wr_lane_index == subgroupBroadcastFirst(wr_lane_index))")
			if lowered != nl[i] {
				t.Errorf("%s line %d differs beyond the documented lowering:\n  standard: %s\n  naga:     %s", name, i+1, sl[i], nl[i])
			}
		}
		if diffs == 0 {
			t.Errorf("%s: the elect lowering did not show", name)
		}
	}
}

// TestVertexWaveIsAnError: WebGPU has no subgroups in vertex shaders.
// TestVertexWaveIsAnError: a wave operation in a vertex shader is E0602 in
// the standard dialect (WGSL's rule); the naga dialect emits it and asks for
// wgpu-native's native-feature-subgroup-vertex, and wgpu-native takes it.
func TestVertexWaveIsAnError(t *testing.T) {
	for _, d := range []Dialect{Standard, Naga} {
		b := newStage("VSMain", ir.Vertex)
		vid := b.Global(&ir.Global{Space: ir.SpaceInput, Name: "vid", Type: ir.U32, Builtin: ir.BuiltinVertexIndex, Semantic: "SV_VertexID"})
		pos := b.Global(&ir.Global{Space: ir.SpaceOutput, Name: "pos", Type: vec4f, Builtin: ir.BuiltinPosition, Semantic: "SV_Position"})
		sum := Intr(intrinsics.WaveActiveSum, ir.U32, Load(&ir.GlobalRef{G: vid}))
		b.Add(Store(&ir.GlobalRef{G: pos}, Splat(&ir.Convert{X: sum, T: ir.F32}, 4)))
		m := b.M
		Valid(t, m)
		out, err := EmitEntry(m, m.EntryPoints[0], Options{Dialect: d})
		if d == Naga {
			if err != nil {
				t.Fatalf("naga dialect: %v", err)
			}
			if got := strings.Join(out.RequiredFeatures, ","); got != "native-feature-subgroup,native-feature-subgroup-vertex" {
				t.Errorf("naga dialect features %s", got)
			}
			dev := device(t)
			if !slices.Contains(dev.Features, wgpu.NativeFeatureSubgroupVertex) {
				// The default adapter lacks it (lavapipe 22.3.6): take one that
				// has it (SwiftShader does).
				dev = nil
				adapters, _ := webgpu.Adapters(false)
				for _, a := range adapters {
					if a.SubgroupVertex && a.Backend == "vulkan" {
						if d, err := webgpu.OpenAdapter(a.Index); err == nil {
							defer d.Release()
							dev = d
							break
						}
					}
				}
				if dev == nil {
					golden.Skipf(t, "no wgpu-native adapter here has native-feature-subgroup-vertex")
					continue
				}
			}
			if err := dev.Validate(out.Source, "vertex", "VSMain"); err != nil {
				t.Errorf("wgpu-native rejects a vertex wave operation: %v\n%s", err, numbered(out.Source))
			}
			continue
		}
		if !hasCode(err, diag.ErrWGSLVertexWave) {
			t.Fatalf("%v: want %s, got %v", d, diag.ErrWGSLVertexWave, err)
		}
		if !strings.Contains(err.Error(), "compute and fragment") || !strings.Contains(err.Error(), "WaveActiveSum") {
			t.Errorf("message does not explain the rule: %v", err)
		}
	}
}

func TestTypesWithoutWGSL(t *testing.T) {
	for _, c := range []struct {
		t    ir.Scalar
		name string
	}{{ir.F64, "double"}, {ir.I64, "int64_t"}, {ir.U64, "uint64_t"}} {
		b := newCompute("main", 1)
		out := b.RWBuffer("Out", c.t, 0, 0)
		b.Add(Store(Elem(out, Uint(0)), &ir.Const{T: c.t, Bits: 1}))
		m := b.M
		Valid(t, m)
		_, err := EmitEntry(m, m.EntryPoints[0], Options{})
		if !hasCode(err, diag.ErrWGSLType) || !strings.Contains(err.Error(), c.name) {
			t.Errorf("%s: want %s naming %s, got %v", c.t, diag.ErrWGSLType, c.name, err)
		}
	}
}

func TestPushConstants(t *testing.T) {
	build := func() *ir.Module {
		b := newCompute("main", 8)
		st := &ir.Struct{Name: "Params", Fields: []ir.Field{{Name: "scale", Type: ir.U32}, {Name: "bias", Type: ir.U32, Offset: 4}}, Size: 8, Align: 4}
		b.M.Structs = append(b.M.Structs, st)
		pc := b.Global(&ir.Global{Name: "params", Type: st, Space: ir.SpacePushConstant, Resource: ir.ResPushConstant})
		out := b.RWBuffer("Out", ir.U32, 0, 0)
		b.Add(Store(Elem(out, b.laneX()), &ir.Binary{Op: ir.Add, T: ir.U32,
			X: Load(&ir.Member{Base: &ir.GlobalRef{G: pc}, Field: 0}), Y: Load(&ir.Member{Base: &ir.GlobalRef{G: pc}, Field: 1})}))
		return b.M
	}
	m := build()
	Valid(t, m)
	if _, err := EmitEntry(m, m.EntryPoints[0], Options{Dialect: Standard}); !hasCode(err, diag.ErrWGSLPushConstant) {
		t.Fatalf("standard: want %s, got %v", diag.ErrWGSLPushConstant, err)
	}
	out := emitValid(t, "push_constant_naga", build(), Naga)
	if !strings.Contains(out.Source, "var<immediate> params: Params;") {
		t.Errorf("no var<immediate>:\n%s", out.Source)
	}
	if !strings.Contains(strings.Join(out.RequiredFeatures, ","), "native-feature-immediates") {
		t.Errorf("features %v lack immediates", out.RequiredFeatures)
	}
}

// earlyReturn: if (tid.x >= 48) return; g[l] = l; barrier; Out[tid] = g[l ^ 1];
// and a loop with a barrier whose body may return.
func earlyReturn() *ir.Module {
	b := newCompute("Reduce", 64)
	out := b.RWBuffer("Out", ir.U32, 0, 0)
	g := b.Global(&ir.Global{Name: "shared", Type: &ir.Array{Elem: ir.U32, Len: 64}, Space: ir.SpaceWorkgroup})
	gi := func(idx ir.Expr) *ir.Index { return &ir.Index{Base: &ir.GlobalRef{G: g}, Idx: idx, T: ir.U32} }
	i := b.F.NewLocal("i", ir.U32)
	iv := Load(&ir.LocalRef{L: i})
	barrier := &ir.ExprStmt{X: Intr(intrinsics.GroupMemoryBarrierWithGroupSync, ir.Void{})}
	b.Add(
		&ir.If{Cond: &ir.Binary{Op: ir.Ge, X: b.laneX(), Y: Uint(48), T: ir.BoolT}, Then: ir.Block{&ir.Return{}}},
		Store(gi(b.laneX()), b.laneX()),
		barrier,
		Store(Elem(out, b.laneX()), Load(gi(&ir.Binary{Op: ir.BitXor, X: b.laneX(), Y: Uint(1), T: ir.U32}))),
		Store(&ir.LocalRef{L: i}, Uint(0)),
		&ir.Loop{Body: ir.Block{
			&ir.If{Cond: &ir.Binary{Op: ir.Ge, X: iv, Y: Uint(4), T: ir.BoolT}, Then: ir.Block{&ir.Break{}}},
			&ir.If{Cond: &ir.Binary{Op: ir.Eq, X: Load(Elem(out, b.laneX())), Y: iv, T: ir.BoolT}, Then: ir.Block{&ir.Return{}}},
			Store(gi(b.laneX()), &ir.Binary{Op: ir.Add, X: Load(gi(b.laneX())), Y: iv, T: ir.U32}),
			barrier,
		}, Continuing: ir.Block{Store(&ir.LocalRef{L: i}, &ir.Binary{Op: ir.Add, X: iv, Y: Uint(1), T: ir.U32})}},
		Store(Elem(out, b.laneX()), Load(gi(b.laneX()))),
	)
	return b.M
}

func TestEarlyReturnBeforeBarrier(t *testing.T) {
	m := earlyReturn()
	emitValid(t, "early_return_standard", m, Standard)
	out := emitValid(t, "early_return_naga", m, Naga)
	if !strings.Contains(out.Source, "var wr_active: bool = true;") {
		t.Fatalf("no flag:\n%s", out.Source)
	}
	// Every barrier must sit outside any block guarded by the flag, and no
	// return may remain in the rewritten body.
	lines := strings.Split(out.Source, "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) == "return;" {
			t.Errorf("line %d: a return survived the rewrite", i+1)
		}
		if strings.TrimSpace(l) != "workgroupBarrier();" {
			continue
		}
		indent := len(l) - len(strings.TrimLeft(l, " "))
		for j := i - 1; j >= 0 && indent > 0; j-- {
			lj := lines[j]
			ind := len(lj) - len(strings.TrimLeft(lj, " "))
			if ind < indent && strings.TrimSpace(lj) != "" && !strings.HasPrefix(strings.TrimSpace(lj), "}") {
				if strings.HasPrefix(strings.TrimSpace(lj), "if wr_active") {
					t.Errorf("line %d: barrier guarded by the flag (line %d)", i+1, j+1)
				}
				indent = ind
			}
		}
	}
}

// TestMatrices: column-major and row-major buffer matrices keep their bytes,
// mul swaps operands, element and row accesses land on the right component.
// matricesModule: a buffer with a column-major and a row-major float2x3;
// Out[0..3] get mul(v, cm), mul(v, rm), cm[1], rm[1]; then stores through
// rows, elements and whole matrices (v = (tid.x, tid.x)).
func matricesModule() *ir.Module {
	b := newCompute("main", 1)
	cm := ir.Matrix{Elem: ir.F32, Rows: 2, Cols: 3, Stride: 8}                  // float2x3, column-major: 3 columns of 2
	rm := ir.Matrix{Elem: ir.F32, Rows: 2, Cols: 3, Stride: 16, RowMajor: true} // row_major float2x3: 2 rows of 3
	st := &ir.Struct{Name: "Mats", Fields: []ir.Field{{Name: "cm", Type: cm}, {Name: "rm", Type: rm, Offset: 32}}, Size: 64, Align: 16}
	b.M.Structs = append(b.M.Structs, st)
	buf := b.Global(&ir.Global{Name: "M", Type: st, Space: ir.SpaceStorage, Resource: ir.ResRWStructuredBuffer, Binding: &ir.Binding{Binding: 0}})
	out := b.RWBuffer("Out", vec3f, 0, 1)
	field := func(i int) ir.Expr { return &ir.Member{Base: &ir.GlobalRef{G: buf}, Field: i} }
	v2 := b.value(ir.Vector{Elem: ir.F32, N: 2})
	row := func(m ir.Expr, r uint64) *ir.Index {
		return &ir.Index{Base: m, Idx: Uint(r), T: vec3f}
	}
	local := b.F.NewLocal("m", ir.Matrix{Elem: ir.F32, Rows: 2, Cols: 3})
	b.Add(
		Store(&ir.LocalRef{L: local}, Load(field(0))),
		Store(Elem(out, Uint(0)), Intr(intrinsics.Mul, vec3f, v2, Load(field(0)))),
		Store(Elem(out, Uint(1)), Intr(intrinsics.Mul, vec3f, v2, Load(field(1)))),
		Store(Elem(out, Uint(2)), Load(row(field(0), 1))),
		Store(Elem(out, Uint(3)), Load(row(field(1), 1))),
		Store(row(field(0), 0), b.value(vec3f)),
		Store(&ir.Index{Base: row(field(0), 1), Idx: Uint(2), T: ir.F32}, ir.ConstFloat(ir.F32, 7)),
		Store(field(1), Load(&ir.LocalRef{L: local})),
		// Component-wise operators and select on matrix values.
		Store(&ir.LocalRef{L: local}, &ir.Binary{Op: ir.MulOp, X: Load(&ir.LocalRef{L: local}), Y: Load(field(1)), T: local.Type}),
		Store(&ir.LocalRef{L: local}, &ir.Unary{Op: ir.Neg, X: Load(&ir.LocalRef{L: local})}),
		Store(&ir.LocalRef{L: local}, &ir.Select{Cond: &ir.Binary{Op: ir.Gt, X: b.laneX(), Y: Uint(2), T: ir.BoolT},
			True: Load(&ir.LocalRef{L: local}), False: Load(field(0))}),
		Store(field(1), &ir.Binary{Op: ir.Div, X: Load(&ir.LocalRef{L: local}), Y: Load(field(1)), T: local.Type}),
	)
	return b.M
}

func TestMatrices(t *testing.T) {
	out0 := emitValid(t, "matrices", matricesModule(), Naga)
	for _, want := range []string{
		"cm: mat3x2<f32>,",                                 // column-major bytes: 3 columns of vec2
		"rm: mat2x3<f32>,",                                 // row-major: HLSL rows are WGSL columns
		"m = transpose(M.cm);",                             // loads transpose column-major storage
		"(transpose(M.cm) * vec2<f32>(",                    // mul(v, M) = M_w * v
		"vec3<f32>(M.cm[0][1u], M.cm[1][1u], M.cm[2][1u])", // row 1 of a column-major matrix
		"M.cm[2u][1u] = 7f;",                               // element [1][2] swaps indices
		"M.rm = m;",
		"m = wr_mat_mul_mat2x3_f32(m, M.rm);", // IR * is component-wise
		"fn wr_mat_mul_mat2x3_f32(a: mat2x3<f32>, b: mat2x3<f32>) -> mat2x3<f32> {\n  return mat2x3<f32>(a[0] * b[0], a[1] * b[1]);",
		"m = (m * (-1f));", // no unary minus on matrices
		"m = wr_mat_select_mat2x3_f32(transpose(M.cm), m, (tid.x > 2u));",
		"M.rm = wr_mat_div_mat2x3_f32(m, M.rm);",
	} {
		if !strings.Contains(out0.Source, want) {
			t.Errorf("output lacks %q", want)
		}
	}
}

// TestUniformArrayPadding: cbuffer { float a[4]; uint n; } has stride 16 in
// HLSL; WGSL reads it as array<vec4<f32>, 4> and .x.
// uniformPaddingModule: Out[tid] = C.a[tid % C.n] + C.b[1].y for the cbuffer
// { float a[4]; float2 b[2]; uint n; } (HLSL packing: every element 16 bytes).
func uniformPaddingModule() *ir.Module {
	b := newCompute("main", 4)
	arr := &ir.Array{Elem: ir.F32, Len: 4, Stride: 16}
	arr2 := &ir.Array{Elem: ir.Vector{Elem: ir.F32, N: 2}, Len: 2, Stride: 16}
	st := &ir.Struct{Name: "Consts", Fields: []ir.Field{{Name: "a", Type: arr}, {Name: "b", Type: arr2, Offset: 64}, {Name: "n", Type: ir.U32, Offset: 96}}, Size: 112, Align: 16}
	b.M.Structs = append(b.M.Structs, st)
	cb := b.Global(&ir.Global{Name: "C", Type: st, Space: ir.SpaceUniform, Resource: ir.ResConstantBuffer, Binding: &ir.Binding{Binding: 1}})
	out := b.RWBuffer("Out", ir.F32, 0, 0)
	a := &ir.Member{Base: &ir.GlobalRef{G: cb}, Field: 0}
	bb := &ir.Member{Base: &ir.GlobalRef{G: cb}, Field: 1}
	n := Load(&ir.Member{Base: &ir.GlobalRef{G: cb}, Field: 2})
	b.Add(Store(Elem(out, b.laneX()), &ir.Binary{Op: ir.Add, T: ir.F32,
		X: Load(&ir.Index{Base: a, Idx: &ir.Binary{Op: ir.Rem, X: b.laneX(), Y: n, T: ir.U32}, T: ir.F32}),
		Y: &ir.Swizzle{Base: Load(&ir.Index{Base: bb, Idx: Uint(1), T: arr2.Elem}), Comps: []int{1}}}))
	return b.M
}

func TestUniformArrayPadding(t *testing.T) {
	o := emitValid(t, "uniform_padding", uniformPaddingModule(), Naga)
	for _, want := range []string{"a: array<vec4<f32>, 4>,", "b: array<vec4<f32>, 2>,", "C.a[(tid.x % C.n)].x", "C.b[1u].xy.y", "var<uniform> C: Consts_uniform;"} {
		if !strings.Contains(o.Source, want) {
			t.Errorf("output lacks %q", want)
		}
	}
}

// TestStageIO: pixel shader with flat and smooth inputs, subgroup builtins
// and quad ops; vertex shader with location IO.
func TestStageIO(t *testing.T) {
	p := newStage("PSMain", ir.Pixel)
	pos := p.Global(&ir.Global{Space: ir.SpaceInput, Name: "pos", Type: vec4f, Builtin: ir.BuiltinPosition, Semantic: "SV_Position"})
	uv := p.Global(&ir.Global{Space: ir.SpaceInput, Name: "uv", Type: ir.Vector{Elem: ir.F32, N: 2}, Location: 0, Semantic: "TEXCOORD0"})
	id := p.Global(&ir.Global{Space: ir.SpaceInput, Name: "id", Type: ir.U32, Location: 1, Semantic: "ID", Flat: true})
	target := p.Global(&ir.Global{Space: ir.SpaceOutput, Name: "color", Type: vec4f, Location: 0, Semantic: "SV_Target"})
	x := &ir.Swizzle{Base: Load(&ir.GlobalRef{G: pos}), Comps: []int{0}}
	slope := Intr(intrinsics.QuadReadAcrossX, ir.F32, x)
	lane := &ir.Convert{X: Intr(intrinsics.WaveGetLaneIndex, ir.U32), T: ir.F32}
	p.Add(Store(&ir.GlobalRef{G: target}, &ir.Construct{T: vec4f, Args: []ir.Expr{
		slope, Intr(intrinsics.QuadReadAcrossY, ir.F32, &ir.Swizzle{Base: Load(&ir.GlobalRef{G: uv}), Comps: []int{1}}),
		&ir.Convert{X: Load(&ir.GlobalRef{G: id}), T: ir.F32}, lane}}))
	o := emitValid(t, "stage_io_pixel", p.M, Naga)
	if !strings.Contains(o.Source, "@location(1) @interpolate(flat) id_in: u32") {
		t.Errorf("flat input missing:\n%s", o.Source)
	}

	v := newStage("VSMain", ir.Vertex)
	vid := v.Global(&ir.Global{Space: ir.SpaceInput, Name: "vid", Type: ir.U32, Builtin: ir.BuiltinVertexIndex, Semantic: "SV_VertexID"})
	in := v.Global(&ir.Global{Space: ir.SpaceInput, Name: "position", Type: vec3f, Location: 0, Semantic: "POSITION"})
	opos := v.Global(&ir.Global{Space: ir.SpaceOutput, Name: "opos", Type: vec4f, Builtin: ir.BuiltinPosition, Semantic: "SV_Position"})
	oid := v.Global(&ir.Global{Space: ir.SpaceOutput, Name: "oid", Type: ir.I32, Location: 1, Semantic: "ID"})
	v.Add(Store(&ir.GlobalRef{G: opos}, &ir.Construct{T: vec4f, Args: []ir.Expr{Load(&ir.GlobalRef{G: in}), ir.ConstFloat(ir.F32, 1)}}),
		Store(&ir.GlobalRef{G: oid}, &ir.Convert{X: Load(&ir.GlobalRef{G: vid}), T: ir.I32}))
	o = emitValid(t, "stage_io_vertex", v.M, Naga)
	if !strings.Contains(o.Source, "@location(1) @interpolate(flat) oid: i32") {
		t.Errorf("integer output not flat:\n%s", o.Source)
	}
}

// TestStatementsAndNames: switch fall-through, loops, out/inout parameters,
// assigned in-parameters, keyword names, constants at the edges, shifts.
func TestStatementsAndNames(t *testing.T) {
	b := newCompute("main", 8)
	out := b.RWBuffer("Out", ir.I32, 0, 0)
	// int select(int loop, out int var, inout int wr_x)
	fn := &ir.Function{Name: "select", Result: ir.I32}
	pLoop := fn.NewLocal("loop", ir.I32)
	pVar := fn.NewLocal("var", ir.I32)
	pIO := fn.NewLocal("wr_x", ir.I32)
	fn.Params = []ir.Param{{Local: pLoop}, {Local: pVar, Dir: ir.Out}, {Local: pIO, Dir: ir.InOut}}
	fn.Body = ir.Block{
		Store(LRef(pLoop), &ir.Binary{Op: ir.Shl, X: Load(LRef(pLoop)), Y: Load(LRef(pIO)), T: ir.I32}),
		Store(LRef(pVar), &ir.Binary{Op: ir.Shr, X: Load(LRef(pLoop)), Y: Int(33), T: ir.I32}),
		Store(LRef(pIO), &ir.Binary{Op: ir.Rem, X: Load(LRef(pIO)), Y: Int(-7), T: ir.I32}),
		&ir.Return{Value: &ir.Select{Cond: &ir.Binary{Op: ir.LogicalAnd, T: ir.BoolT,
			X: &ir.Binary{Op: ir.Gt, X: Load(LRef(pLoop)), Y: Int(0), T: ir.BoolT},
			Y: &ir.Binary{Op: ir.Lt, X: Load(LRef(pVar)), Y: Int(math.MinInt32), T: ir.BoolT}},
			True: Load(LRef(pLoop)), False: Load(LRef(pVar))}},
	}
	b.Func(fn)
	t1 := b.F.NewLocal("tmp", ir.I32)
	t2 := b.F.NewLocal("let", ir.I32)
	r := b.F.NewLocal("r", ir.I32)
	sel := &ir.Convert{X: b.laneX(), T: ir.I32}
	bv := ir.Vector{Elem: ir.BoolT, N: 2}
	vecAnd := &ir.Binary{Op: ir.LogicalOr, T: bv, X: &ir.Construct{T: bv, Args: []ir.Expr{ir.ConstBool(true), ir.ConstBool(false)}},
		Y: &ir.Construct{T: bv, Args: []ir.Expr{ir.ConstBool(false), ir.ConstBool(false)}}}
	nan := &ir.Const{T: ir.F32, Bits: 0x7fc00000}
	b.Add(
		Store(LRef(t2), Int(3)),
		Store(LRef(r), &ir.Call{Func: fn, Args: []ir.Expr{sel, LRef(t1), LRef(t2)}}),
		&ir.Switch{Selector: sel, Cases: []*ir.Case{
			{Values: []int64{0}, Body: ir.Block{Store(LRef(r), Int(10))}, FallThrough: true},
			{Values: []int64{1, 2}, Body: ir.Block{Store(LRef(r), &ir.Binary{Op: ir.Add, X: Load(LRef(r)), Y: Int(1), T: ir.I32}), &ir.Break{}}},
			{Values: []int64{-3}, Body: ir.Block{&ir.Break{}}},
		}},
		&ir.Loop{Body: ir.Block{
			Store(LRef(r), &ir.Binary{Op: ir.Sub, X: Load(LRef(r)), Y: Int(1), T: ir.I32}),
			&ir.If{Cond: &ir.Binary{Op: ir.Lt, X: Load(LRef(r)), Y: Int(0), T: ir.BoolT}, Then: ir.Block{&ir.Continue{}}},
		}, BreakIf: &ir.Binary{Op: ir.Lt, X: Load(LRef(r)), Y: Int(5), T: ir.BoolT}},
		Store(Elem(out, b.laneX()), &ir.Binary{Op: ir.Add, T: ir.I32, X: Load(LRef(r)),
			Y: &ir.Binary{Op: ir.Add, T: ir.I32, X: Load(LRef(t1)), Y: Load(LRef(t2))}}),
		Store(Elem(out, Uint(1)), &ir.Select{Cond: &ir.Swizzle{Base: vecAnd, Comps: []int{1}}, True: Int(1),
			False: &ir.Convert{X: &ir.Binary{Op: ir.Ne, X: nan, Y: nan, T: ir.BoolT}, T: ir.I32}}),
		Store(Elem(out, Uint(2)), &ir.Convert{X: ir.ConstFloat(ir.F32, math.Copysign(0, -1)), T: ir.I32}),
	)
	o := emitValid(t, "statements", b.M, Naga)
	for _, want := range []string{
		"fn u_select(loop_in: i32, u_var: ptr<function, i32>, u_wr_x: ptr<function, i32>) -> i32",
		"var u_loop: i32 = loop_in;",
		"(*u_var) = (u_loop >> 1u);",         // constant shift masked at compile time
		"(u_loop << (u32((*u_wr_x)) & 31u))", // signed amount: u32 and masked
		"u_select(i32(tid.x), &tmp, &u_let)", // out/inout pass addresses
		"default: {}",                        // WGSL needs a default
		"break if (r < 5i);",
		"wr_f32_from_bits(2143289344u)", // NaN has no literal, and a const bitcast to NaN is an error (Tint)
		"fn wr_f32_from_bits(b: u32) -> f32 {\n  return bitcast<f32>(b);\n}",
		"(-0.0f)",
		"i32(-2147483647i - 1i)",
		"(vec2<bool>(true, false) | vec2<bool>(false, false))",
	} {
		if !strings.Contains(o.Source, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	// Case 0 falls into case 1: its body is followed by case 1's.
	if !strings.Contains(o.Source, "case 0i: {\n      r = 10i;\n      r = (r + 1i);\n      break;") {
		t.Errorf("fall-through not merged:\n%s", o.Source)
	}
}

func TestDeterministic(t *testing.T) {
	for _, m := range []*ir.Module{csSum(), earlyReturn()} {
		Valid(t, m)
		a, err := EmitEntry(m, m.EntryPoints[0], Options{})
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 5; i++ {
			b, _ := EmitEntry(m, m.EntryPoints[0], Options{})
			if a.Source != b.Source {
				t.Fatal("output differs between runs")
			}
		}
	}
}

func TestBadInputIsAnError(t *testing.T) {
	if _, err := EmitEntry(nil, nil, Options{}); !hasCode(err, diag.ErrWGSLInternal) {
		t.Errorf("nil module: %v", err)
	}
	// A QuadReadLaneAt with a constant lane outside the quad.
	b := newCompute("main", 4)
	out := b.RWBuffer("Out", ir.U32, 0, 0)
	b.Add(Store(Elem(out, Uint(0)), Intr(intrinsics.QuadReadLaneAt, ir.U32, b.laneX(), Uint(5))))
	m := b.M
	Valid(t, m)
	if _, err := EmitEntry(m, m.EntryPoints[0], Options{}); !hasCode(err, diag.ErrWGSLQuadLane) {
		t.Errorf("lane 5: %v", err)
	}
	// A barrier in a pixel shader.
	p := newPixel("PS")
	p.Add(&ir.ExprStmt{X: Intr(intrinsics.GroupMemoryBarrierWithGroupSync, ir.Void{})})
	m = p.M
	Valid(t, m)
	if _, err := EmitEntry(m, m.EntryPoints[0], Options{}); !hasCode(err, diag.ErrWGSLStage) {
		t.Errorf("pixel barrier: %v", err)
	}
	// An entry point WebGPU could not name.
	k := newCompute("loop", 1)
	m = k.M
	Valid(t, m)
	if _, err := EmitEntry(m, m.EntryPoints[0], Options{}); !hasCode(err, diag.ErrWGSLEntryName) {
		t.Errorf("entry named loop: %v", err)
	}
	// Every E06xx code is documented.
	for _, c := range []diag.Code{diag.ErrWGSLType, diag.ErrWGSLVertexWave, diag.ErrWGSLPushConstant, diag.ErrWGSLNoLowering,
		diag.ErrWGSLBarrierReturn, diag.ErrWGSLQuadLane, diag.ErrWGSLStage, diag.ErrWGSLLayout, diag.ErrWGSLAtomic,
		diag.ErrWGSLTextureAccess, diag.ErrWGSLEntryName, diag.ErrWGSLInternal} {
		if info, ok := diag.Lookup(c); !ok || info.Title == "" {
			t.Errorf("%s is not registered", c)
		}
	}
}

func BenchmarkEmitWGSL(b *testing.B) {
	m := csSum()
	ep := m.EntryPoints[0]
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := EmitEntry(m, ep, Options{Dialect: Naga}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestMalformedIRIsAnError: IR that breaks the ir package's invariants gives a
// coded error, never a panic.
func TestMalformedIRIsAnError(t *testing.T) {
	cases := map[string]func(b *builder, out *ir.Global){
		"nil value": func(b *builder, out *ir.Global) { b.Add(Store(Elem(out, Uint(0)), nil)) },
		"member of vector": func(b *builder, out *ir.Global) {
			b.Add(Store(Elem(out, Uint(0)), &ir.Member{Base: b.laneX(), Field: 3}))
		},
		"unknown op":  func(b *builder, out *ir.Global) { b.Add(Store(Elem(out, Uint(0)), Intr(intrinsics.Op(9999), ir.U32))) },
		"call of nil": func(b *builder, out *ir.Global) { b.Add(&ir.ExprStmt{X: &ir.Call{}}) },
		"foreign local": func(b *builder, out *ir.Global) {
			b.Add(Store(Elem(out, Uint(0)), Load(&ir.LocalRef{L: &ir.Local{Name: "ghost", Type: ir.U32}})))
		},
		"atomic on a local": func(b *builder, out *ir.Global) {
			l := b.F.NewLocal("x", ir.U32)
			b.Add(&ir.ExprStmt{X: Intr(intrinsics.InterlockedAdd, ir.U32, &ir.LocalRef{L: l}, Uint(1))})
		},
	}
	for name, mk := range cases {
		b := newCompute("main", 1)
		out := b.RWBuffer("Out", ir.U32, 0, 0)
		mk(b, out)
		m := b.M
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s: panic %v", name, r)
				}
			}()
			_, err := EmitEntry(m, m.EntryPoints[0], Options{})
			if len(codes(err)) == 0 {
				t.Errorf("%s: want a coded error, got %v", name, err)
			}
		}()
	}
}
