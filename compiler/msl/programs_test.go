package msl

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"waverig/compiler/diag"
	"waverig/compiler/intrinsics"
	"waverig/compiler/ir"
	. "waverig/compiler/ir/irtest"
)

// cssum builds the seed program: groupshared partial sums, a helper that uses
// the lane index, WaveActiveSum, WaveIsFirstLane and an atomic.
func cssum() *Builder {
	b := Compute("CSSum", 64)
	in := b.ROBuffer("Input", u32, 0, 0)
	out := b.RWBuffer("Output", u32, 0, 1)
	out.Atomic = true
	tid := b.Input("tid", vec(u32, 3), ir.BuiltinGlobalInvocationID, 0)
	gi := b.Input("gi", u32, ir.BuiltinLocalInvocationIndex, 0)
	shared := b.Global(&ir.Global{Name: "partial", Type: &ir.Array{Elem: u32, Len: 64}, Space: ir.SpaceWorkgroup})

	// uint laneValue(uint v) { return v + WaveGetLaneIndex(); } — needs the lane index threaded in.
	hf := &ir.Function{Name: "laneValue", Result: u32}
	p := hf.NewLocal("v", u32)
	hf.Params = []ir.Param{{Local: p}}
	hf.Body = ir.Block{&ir.Return{Value: Bin(ir.Add, Load(LRef(p)), Intr(intrinsics.WaveGetLaneIndex, u32))}}
	b.Func(hf)

	sum := b.Local("sum", u32)
	v := &ir.Call{Func: hf, Args: []ir.Expr{Load(Elem(in, X(Load(GRef(tid)))))}}
	slot := &ir.Index{Base: GRef(shared), Idx: Load(GRef(gi)), T: u32}
	b.Add(
		Store(slot, v),
		&ir.ExprStmt{X: Intr(intrinsics.GroupMemoryBarrierWithGroupSync, ir.Void{})},
		Store(LRef(sum), Intr(intrinsics.WaveActiveSum, u32, Load(slot))),
		&ir.If{Cond: Intr(intrinsics.WaveIsFirstLane, ir.BoolT), Then: ir.Block{
			&ir.ExprStmt{X: Intr(intrinsics.InterlockedAdd, ir.Void{}, Elem(out, Uint(0)), Load(LRef(sum)))},
		}},
	)
	return b
}

// loops builds a for loop with continue (continuing block + break-if) and a
// switch with fall-through.
func loops() *Builder {
	b := Compute("Loops", 8)
	out := b.RWBuffer("Out", i32, 0, 0)
	tid := b.Input("tid", vec(u32, 3), ir.BuiltinGlobalInvocationID, 0)
	i := b.Local("i", i32)
	acc := b.Local("acc", i32)
	b.Add(
		Store(LRef(i), Int(0)),
		&ir.Loop{
			Body: ir.Block{
				&ir.If{Cond: Bin(ir.Ge, Load(LRef(i)), Int(10)), Then: ir.Block{&ir.Break{}}},
				&ir.If{Cond: Bin(ir.Eq, Bin(ir.Rem, Load(LRef(i)), Int(3)), Int(0)), Then: ir.Block{&ir.Continue{}}},
				&ir.Switch{Selector: Load(LRef(i)), Cases: []*ir.Case{
					{Values: []int64{1, 2}, Body: ir.Block{Store(LRef(acc), Bin(ir.Add, Load(LRef(acc)), Int(1)))}, FallThrough: true},
					{Values: []int64{4}, Body: ir.Block{Store(LRef(acc), Bin(ir.Shl, Load(LRef(acc)), Int(1))), &ir.Break{}}},
					{Default: true, Body: ir.Block{Store(LRef(acc), Bin(ir.Sub, Load(LRef(acc)), Int(-7)))}},
				}},
			},
			Continuing: ir.Block{Store(LRef(i), Bin(ir.Add, Load(LRef(i)), Int(1)))},
		},
		&ir.Loop{ // do { acc >>= 1 } while (acc > 100)
			Body:    ir.Block{Store(LRef(acc), Bin(ir.Shr, Load(LRef(acc)), Int(1)))},
			BreakIf: &ir.Unary{Op: ir.Not, X: Bin(ir.Gt, Load(LRef(acc)), Int(100))},
		},
		Store(Elem(out, X(Load(GRef(tid)))), Load(LRef(acc))),
	)
	return b
}

// pixelQuad builds a pixel shader using quad operations, discard and stage IO.
func pixelQuad() *Builder {
	b := Entry("PSSlope", ir.Pixel)
	pos := b.Input("pos", vec(f32, 4), ir.BuiltinPosition, 0)
	uv := b.Input("uv", vec(f32, 2), ir.BuiltinNone, 1)
	col := b.Output("color", vec(f32, 4), ir.BuiltinNone, 0)
	ff := b.Input("front", ir.BoolT, ir.BuiltinFrontFacing, 0)
	v := b.Local("v", f32)
	b.Add(
		Store(LRef(v), X(Load(GRef(uv)))),
		&ir.If{Cond: &ir.Unary{Op: ir.Not, X: Load(GRef(ff))}, Then: ir.Block{&ir.Discard{}}},
		Store(GRef(col), &ir.Construct{T: vec(f32, 4), Args: []ir.Expr{
			Bin(ir.Sub, Intr(intrinsics.QuadReadAcrossX, f32, Load(LRef(v))), Load(LRef(v))),
			Bin(ir.Sub, Intr(intrinsics.QuadReadAcrossY, f32, Load(LRef(v))), Load(LRef(v))),
			Intr(intrinsics.QuadReadLaneAt, f32, &ir.Swizzle{Base: Load(GRef(pos)), Comps: []int{1}}, Uint(0)),
			Conv(Intr(intrinsics.WaveGetLaneCount, u32), f32),
		}}),
	)
	return b
}

// vertexMain builds a vertex shader with vertex/instance ids and user outputs.
func vertexMain() *Builder {
	b := Entry("VSMain", ir.Vertex)
	vid := b.Input("vid", u32, ir.BuiltinVertexIndex, 0)
	iid := b.Input("iid", u32, ir.BuiltinInstanceIndex, 0)
	inPos := b.Input("inPos", vec(f32, 3), ir.BuiltinNone, 0)
	pos := b.Output("pos", vec(f32, 4), ir.BuiltinPosition, 0)
	tc := b.Output("tc", vec(f32, 2), ir.BuiltinNone, 0)
	b.Add(
		Store(GRef(pos), &ir.Construct{T: vec(f32, 4), Args: []ir.Expr{Load(GRef(inPos)), Float(1)}}),
		Store(GRef(tc), &ir.Construct{T: vec(f32, 2), Args: []ir.Expr{Conv(Load(GRef(vid)), f32), Conv(Load(GRef(iid)), f32)}}),
		&ir.Return{},
	)
	return b
}

// matrices builds cbuffer/push-constant matrices of both memory orders, a
// struct with a packed float3, a static const and a specialization constant.
func matrices() *Builder {
	b := Compute("Matrices", 1)
	cm := ir.Matrix{Elem: f32, Rows: 4, Cols: 4, Stride: 16}                 // column_major
	rm := ir.Matrix{Elem: f32, Rows: 3, Cols: 4, Stride: 16, RowMajor: true} // row_major
	cb := &ir.Struct{Name: "Globals", Fields: []ir.Field{
		{Name: "world", Type: cm, Offset: 0},
		{Name: "proj", Type: rm, Offset: 64},
		{Name: "tint", Type: vec(f32, 3), Offset: 112},
		{Name: "scale", Type: f32, Offset: 124},
	}, Size: 128, Align: 16}
	pc := &ir.Struct{Name: "Push", Fields: []ir.Field{{Name: "offset", Type: vec(f32, 4), Offset: 0}}, Size: 16, Align: 16}
	b.M.Structs = []*ir.Struct{cb, pc}
	g := b.Global(&ir.Global{Name: "G", Type: cb, Space: ir.SpaceUniform, Resource: ir.ResConstantBuffer, Binding: &ir.Binding{Set: 0, Binding: 3}})
	push := b.Global(&ir.Global{Name: "pc", Type: pc, Space: ir.SpacePushConstant, Resource: ir.ResPushConstant})
	out := b.RWBuffer("Out", vec(f32, 4), 0, 0)
	k := b.Global(&ir.Global{Name: "kHalf", Type: f32, Space: ir.SpacePrivate, Const: true, Init: Float(0.5)})
	spec := b.Global(&ir.Global{Name: "kCount", Type: u32, Space: ir.SpacePrivate, Const: true, Spec: true, SpecID: 3, Init: Uint(4)})
	v := b.Local("v", vec(f32, 4))
	m := b.Local("m", cm)
	world := &ir.Member{Base: GRef(g), Field: 0}
	b.Add(
		Store(LRef(v), Load(&ir.Member{Base: GRef(push), Field: 0})),
		Store(LRef(m), Load(world)),
		Store(LRef(v), Intr(intrinsics.Mul, vec(f32, 4), Load(LRef(v)), Load(LRef(m)))),
		Store(LRef(v), Bin(ir.Add, Load(LRef(v)), Load(&ir.Index{Base: world, Idx: Int(2), T: vec(f32, 4)}))),
		Store(&ir.Index{Base: &ir.Index{Base: LRef(m), Idx: Int(1), T: vec(f32, 4)}, Idx: Int(2), T: f32}, Load(&ir.Index{Base: &ir.Index{Base: world, Idx: Int(1), T: vec(f32, 4)}, Idx: Int(2), T: f32})),
		Store(Elem(out, Uint(0)), Intr(intrinsics.Mul, vec(f32, 4), Load(LRef(m)), Load(LRef(v)))),
		Store(Elem(out, Uint(1)), &ir.Construct{T: vec(f32, 4), Args: []ir.Expr{
			Intr(intrinsics.Mul, vec(f32, 3), Load(&ir.Member{Base: GRef(g), Field: 1}), Load(LRef(v))),
			Bin(ir.MulOp, Load(&ir.Member{Base: GRef(g), Field: 3}), Load(GRef(k))),
		}}),
		Store(Elem(out, Uint(2)), &ir.Construct{T: vec(f32, 4), Args: []ir.Expr{Load(&ir.Member{Base: GRef(g), Field: 2}), Conv(Load(GRef(spec)), f32)}}),
		Store(Elem(out, Uint(3)), x4(Bin(ir.MulOp, Load(LRef(m)), Load(LRef(m))))),
	)
	return b
}

// x4 takes row 0 of a 4x4 matrix value.
func x4(m ir.Expr) ir.Expr { return &ir.Index{Base: m, Idx: Int(0), T: vec(f32, 4)} }

// cbufferArrays builds a cbuffer with std140-style arrays (stride 16 for floats
// and float2s), read per element and copied whole into a register array.
func cbufferArrays() *Builder {
	b := Compute("CBArrays", 1)
	fa := &ir.Array{Elem: f32, Len: 4, Stride: 16}
	va := &ir.Array{Elem: vec(f32, 2), Len: 2, Stride: 16}
	s := &ir.Struct{Name: "Params", Fields: []ir.Field{
		{Name: "weights", Type: fa, Offset: 0},
		{Name: "offsets", Type: va, Offset: 64},
		{Name: "count", Type: u32, Offset: 96},
	}, Size: 112, Align: 16}
	b.M.Structs = []*ir.Struct{s}
	c := b.Global(&ir.Global{Name: "P", Type: s, Space: ir.SpaceUniform, Resource: ir.ResConstantBuffer, Binding: &ir.Binding{Set: 0, Binding: 0}})
	out := b.RWBuffer("Out", f32, 0, 1)
	w := b.Local("w", &ir.Array{Elem: f32, Len: 4})
	weights := &ir.Member{Base: GRef(c), Field: 0}
	b.Add(
		Store(LRef(w), Load(weights)),
		Store(Elem(out, Uint(0)), Bin(ir.Add, Load(&ir.Index{Base: weights, Idx: Uint(2), T: f32}), Load(&ir.Index{Base: LRef(w), Idx: Uint(3), T: f32}))),
		Store(Elem(out, Uint(1)), X(Load(&ir.Index{Base: &ir.Member{Base: GRef(c), Field: 1}, Idx: Uint(1), T: vec(f32, 2)}))),
		Store(Elem(out, Uint(2)), Conv(Load(&ir.Member{Base: GRef(c), Field: 2}), f32)),
	)
	return b
}

// builtinTypes uses compute builtins declared with types Metal does not take for
// them (int3 thread ids) next to ones it does (uint2 group ids), plus a static
// global and a helper writing an out parameter.
func builtinTypes() *Builder {
	b := Compute("Builtins", 4)
	tid := b.Input("tid", vec(i32, 3), ir.BuiltinGlobalInvocationID, 0)
	gid := b.Input("gid", vec(u32, 2), ir.BuiltinWorkgroupID, 0)
	lid := b.Input("lid", vec(u32, 3), ir.BuiltinLocalInvocationID, 0)
	out := b.RWBuffer("Out", i32, 0, 0)
	counter := b.Global(&ir.Global{Name: "counter", Type: i32, Space: ir.SpacePrivate, Init: Int(5)})

	// void bump(out int r) { counter += 1; r = counter; }
	hf := &ir.Function{Name: "bump", Result: ir.Void{}}
	r := hf.NewLocal("r", i32)
	hf.Params = []ir.Param{{Local: r, Dir: ir.Out}}
	hf.Body = ir.Block{
		Store(GRef(counter), Bin(ir.Add, Load(GRef(counter)), Int(1))),
		Store(LRef(r), Load(GRef(counter))),
	}
	b.Func(hf)
	tmp := b.Local("tmp", i32)
	b.Add(
		&ir.ExprStmt{X: &ir.Call{Func: hf, Args: []ir.Expr{LRef(tmp)}}},
		Store(Elem(out, Conv(X(Load(GRef(tid))), u32)), Bin(ir.Add, Load(LRef(tmp)),
			Conv(Bin(ir.Add, X(Load(GRef(gid))), X(Load(GRef(lid)))), i32))),
	)
	return b
}

var programs = []struct {
	name  string
	build func() *Builder
}{
	{"prog_cssum", cssum},
	{"prog_loops", loops},
	{"prog_pixel_quad", pixelQuad},
	{"prog_vertex", vertexMain},
	{"prog_matrices", matrices},
	{"prog_cbuffer_arrays", cbufferArrays},
	{"prog_builtin_types", builtinTypes},
}

func TestProgramGoldens(t *testing.T) {
	for _, p := range programs {
		b := p.build()
		Valid(t, b.M)
		out, err := EmitEntry(b.M, b.EP, Options{})
		if err != nil {
			t.Errorf("%s: %v", p.name, err)
			continue
		}
		checkGolden(t, p.name, out.Source)
		checkArguments(t, p.name, out)
	}
}

// checkArguments verifies the argument table against the source: per kind the
// indices are 0..n-1, each declared exactly once as [[kind(i)]], and nothing
// else in the source claims an index.
func checkArguments(t *testing.T, name string, out *Output) {
	t.Helper()
	next := map[string]int{}
	for _, a := range out.Arguments {
		if a.Index != next[a.Kind] {
			t.Errorf("%s: %s %s has index %d, want %d", name, a.Kind, a.Name, a.Index, next[a.Kind])
		}
		next[a.Kind]++
		attr := fmt.Sprintf("%s [[%s(%d)]]", a.Name, a.Kind, a.Index)
		if strings.Count(out.Source, attr) != 1 {
			t.Errorf("%s: %q appears %d times in the source", name, attr, strings.Count(out.Source, attr))
		}
	}
	for _, kind := range []string{"buffer", "texture", "sampler"} {
		if n := strings.Count(out.Source, "[["+kind+"("); n != next[kind] {
			t.Errorf("%s: %d [[%s(…)]] attributes in the source, %d in the table", name, n, kind, next[kind])
		}
	}
}

// TestArgumentTable checks the [[buffer/texture/sampler]] numbering and that the
// table agrees with the attributes printed in the source.
func TestArgumentTable(t *testing.T) {
	b := matrices()
	out, err := EmitEntry(b.M, b.EP, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []ArgumentBinding{
		{Kind: "buffer", Index: 0, Set: 0, Binding: 0, Name: "Out"},
		{Kind: "buffer", Index: 1, Set: 0, Binding: 3, Name: "G"},
		{Kind: "buffer", Index: 2, Set: -1, Binding: -1, Name: "pc"},
	}
	if !reflect.DeepEqual(out.Arguments, want) {
		t.Errorf("arguments = %+v, want %+v", out.Arguments, want)
	}
	for _, a := range out.Arguments {
		if !strings.Contains(out.Source, " "+a.Name+" [["+a.Kind+"(") {
			t.Errorf("%s is not declared as a %s argument in:\n%s", a.Name, a.Kind, out.Source)
		}
	}
	// GetDimensions adds _buffer_sizes after the last buffer.
	for _, c := range specialCases() {
		if c.name != "row_Buffer_GetDimensions" {
			continue
		}
		out, err := EmitEntry(c.b.M, c.b.EP, Options{})
		if err != nil {
			t.Fatal(err)
		}
		last := out.Arguments[len(out.Arguments)-1]
		if last.Name != "_buffer_sizes" || last.Index != 3 || !strings.Contains(out.Source, "constant uint* _buffer_sizes [[buffer(3)]]") {
			t.Errorf("sizes table: %+v\n%s", out.Arguments, out.Source)
		}
		if !strings.Contains(out.Source, "(_buffer_sizes[0] / 16u)") || !strings.Contains(out.Source, "(_buffer_sizes[1] / 4u)") {
			t.Errorf("GetDimensions does not read the sizes table as documented:\n%s", out.Source)
		}
	}
}

func TestDeterministic(t *testing.T) {
	b := cssum()
	a, err := EmitEntry(b.M, b.EP, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		c, _ := EmitEntry(b.M, b.EP, Options{})
		if c.Source != a.Source || !reflect.DeepEqual(c.Arguments, a.Arguments) {
			t.Fatal("output differs between runs")
		}
	}
}

// TestErrors checks that each unsupported input gives its E07xx code (never a panic).
func TestErrors(t *testing.T) {
	cases := []struct {
		name  string
		build func() (*ir.Module, *ir.EntryPoint)
		code  diag.Code
		text  string
	}{
		{"lane index in vertex", func() (*ir.Module, *ir.EntryPoint) {
			b := vertexMain()
			tc := b.EP.Outputs[1]
			b.F.Body = append(ir.Block{Store(GRef(tc), Splat(Conv(Intr(intrinsics.WaveGetLaneIndex, u32), f32), 2))}, b.F.Body...)
			return b.M, b.EP
		}, diag.ErrMSLVertexSimd, "vertex"},
		{"ballot in vertex (needs the simd-group size)", func() (*ir.Module, *ir.EntryPoint) {
			b := vertexMain()
			tc := b.EP.Outputs[1]
			bal := Intr(intrinsics.WaveActiveBallot, vec(u32, 4), Bool(true))
			b.F.Body = append(ir.Block{Store(GRef(tc), Conv(&ir.Swizzle{Base: bal, Comps: []int{0, 1}}, vec(f32, 2)))}, b.F.Body...)
			return b.M, b.EP
		}, diag.ErrMSLVertexSimd, "vertex"},
		{"64-bit shuffle", func() (*ir.Module, *ir.EntryPoint) {
			b := Compute("main", 32)
			out := b.RWBuffer("Out", ir.U64, 0, 0)
			b.Add(Store(Elem(out, Uint(0)), Intr(intrinsics.WaveReadLaneAt, ir.U64, Load(Elem(out, Uint(1))), Uint(3))))
			return b.M, b.EP
		}, diag.ErrMSLSimdType, "u64"},
		{"64-bit broadcast vector", func() (*ir.Module, *ir.EntryPoint) {
			b := Compute("main", 32)
			out := b.RWBuffer("Out", vec(ir.I64, 2), 0, 0)
			b.Add(Store(Elem(out, Uint(0)), Intr(intrinsics.WaveReadLaneFirst, vec(ir.I64, 2), Load(Elem(out, Uint(1))))))
			return b.M, b.EP
		}, diag.ErrMSLSimdType, "vec2<i64>"},
		{"double", func() (*ir.Module, *ir.EntryPoint) {
			b := Compute("main", 1)
			out := b.RWBuffer("Out", ir.F64, 0, 0)
			b.Add(Store(Elem(out, Uint(0)), ir.ConstFloat(ir.F64, 1)))
			return b.M, b.EP
		}, diag.ErrMSLType, "64-bit floating point"},
		{"64-bit atomic", func() (*ir.Module, *ir.EntryPoint) {
			b := Compute("main", 1)
			out := b.RWBuffer("Out", ir.U64, 0, 0)
			out.Atomic = true
			b.Add(&ir.ExprStmt{X: Intr(intrinsics.InterlockedAdd, ir.Void{}, Elem(out, Uint(0)), ir.ConstUint(ir.U64, 1))})
			return b.M, b.EP
		}, diag.ErrMSLAtomic64, "64-bit"},
		{"WaveMatch", func() (*ir.Module, *ir.EntryPoint) {
			b := Compute("main", 32)
			out := b.RWBuffer("Out", vec(u32, 4), 0, 0)
			b.Add(Store(Elem(out, Uint(0)), Intr(intrinsics.WaveMatch, vec(u32, 4), Uint(1))))
			return b.M, b.EP
		}, diag.ErrMSLNoLowering, "WaveMatch"},
		{"array stride below Metal's", func() (*ir.Module, *ir.EntryPoint) {
			b := Compute("main", 1)
			s := &ir.Struct{Name: "C", Fields: []ir.Field{{Name: "a", Type: &ir.Array{Elem: vec(f32, 4), Len: 4, Stride: 12}}}, Size: 48, Align: 16}
			c := b.Global(&ir.Global{Name: "cb", Type: s, Space: ir.SpaceUniform, Resource: ir.ResConstantBuffer, Binding: &ir.Binding{}})
			out := b.RWBuffer("Out", vec(f32, 4), 0, 1)
			b.Add(Store(Elem(out, Uint(0)), Load(&ir.Index{Base: &ir.Member{Base: GRef(c), Field: 0}, Idx: Uint(1), T: vec(f32, 4)})))
			return b.M, b.EP
		}, diag.ErrMSLLayout, "stride 12"},
		{"member offset Metal cannot reach", func() (*ir.Module, *ir.EntryPoint) {
			b := Compute("main", 1)
			s := &ir.Struct{Name: "S", Fields: []ir.Field{{Name: "a", Type: f32, Offset: 0}, {Name: "b", Type: vec(f32, 4), Offset: 4}}, Size: 20, Align: 4}
			out := b.RWBuffer("Out", s, 0, 1)
			out.Type.(*ir.Array).Stride = 32 // Metal's stride for S: only the offset is wrong
			b.M.Structs = []*ir.Struct{s}
			b.Add(Store(&ir.Member{Base: Elem(out, Uint(0)), Field: 0}, Float(1)))
			return b.M, b.EP
		}, diag.ErrMSLLayout, "offset 4"},
		{"member of a non-struct", func() (*ir.Module, *ir.EntryPoint) {
			b := Compute("main", 1)
			out := b.RWBuffer("Out", u32, 0, 0)
			b.Add(Store(Elem(out, Uint(0)), Load(&ir.Member{Base: Elem(out, Uint(1)), Field: 2})))
			return b.M, b.EP
		}, diag.ErrMSLMalformedInput, "invalid IR"},
		{"nil entry", func() (*ir.Module, *ir.EntryPoint) { return &ir.Module{}, nil }, diag.ErrMSLMalformedInput, ""},
	}
	for _, c := range cases {
		m, ep := c.build()
		if c.code != diag.ErrMSLMalformedInput {
			Valid(t, m) // IR Metal cannot express, not broken IR
		}
		out, err := EmitEntry(m, ep, Options{})
		if out != nil || !hasCode(err, c.code) {
			t.Errorf("%s: want %s, got %v", c.name, c.code, err)
			continue
		}
		if !strings.Contains(err.Error(), c.text) {
			t.Errorf("%s: message %q does not mention %q", c.name, err, c.text)
		}
		if _, ok := diag.Lookup(c.code); !ok {
			t.Errorf("%s: code %s is not registered", c.name, c.code)
		}
	}
}
