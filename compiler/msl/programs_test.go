package msl

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"waverig/compiler/diag"
	"waverig/compiler/intrinsics"
	"waverig/compiler/ir"
)

// cssum builds the seed program: groupshared partial sums, a helper that uses
// the lane index, WaveActiveSum, WaveIsFirstLane and an atomic.
func cssum() *builder {
	b := newCompute("CSSum", 64)
	in := b.roBuffer("Input", u32, 0, 0)
	out := b.rwBuffer("Output", u32, 0, 1)
	out.Atomic = true
	tid := b.input("tid", vec(u32, 3), ir.BuiltinGlobalInvocationID)
	gi := b.input("gi", u32, ir.BuiltinLocalInvocationIndex)
	shared := b.global(&ir.Global{Name: "partial", Type: &ir.Array{Elem: u32, Len: 64}, Space: ir.SpaceWorkgroup})

	// uint laneValue(uint v) { return v + WaveGetLaneIndex(); } — needs the lane index threaded in.
	hf := &ir.Function{Name: "laneValue", Result: u32}
	p := hf.NewLocal("v", u32)
	hf.Params = []ir.Param{{Local: p}}
	hf.Body = ir.Block{&ir.Return{Value: bin(ir.Add, load(lref(p)), call(intrinsics.WaveGetLaneIndex, u32))}}
	b.m.Functions = []*ir.Function{hf, b.f}

	sum := b.local("sum", u32)
	v := &ir.Call{Func: hf, Args: []ir.Expr{load(elem(in, x(load(gref(tid)))))}}
	slot := &ir.Index{Base: gref(shared), Idx: load(gref(gi)), T: u32}
	b.add(
		store(slot, v),
		&ir.ExprStmt{X: call(intrinsics.GroupMemoryBarrierWithGroupSync, ir.Void{})},
		store(lref(sum), call(intrinsics.WaveActiveSum, u32, load(slot))),
		&ir.If{Cond: call(intrinsics.WaveIsFirstLane, ir.BoolT), Then: ir.Block{
			&ir.ExprStmt{X: call(intrinsics.InterlockedAdd, ir.Void{}, elem(out, cu(0)), load(lref(sum)))},
		}},
	)
	return b
}

// loops builds a for loop with continue (continuing block + break-if) and a
// switch with fall-through.
func loops() *builder {
	b := newCompute("Loops", 8)
	out := b.rwBuffer("Out", i32, 0, 0)
	tid := b.input("tid", vec(u32, 3), ir.BuiltinGlobalInvocationID)
	i := b.local("i", i32)
	acc := b.local("acc", i32)
	b.add(
		store(lref(i), ci(0)),
		&ir.Loop{
			Body: ir.Block{
				&ir.If{Cond: bin(ir.Ge, load(lref(i)), ci(10)), Then: ir.Block{&ir.Break{}}},
				&ir.If{Cond: bin(ir.Eq, bin(ir.Rem, load(lref(i)), ci(3)), ci(0)), Then: ir.Block{&ir.Continue{}}},
				&ir.Switch{Selector: load(lref(i)), Cases: []*ir.Case{
					{Values: []int64{1, 2}, Body: ir.Block{store(lref(acc), bin(ir.Add, load(lref(acc)), ci(1)))}, FallThrough: true},
					{Values: []int64{4}, Body: ir.Block{store(lref(acc), bin(ir.Shl, load(lref(acc)), ci(1))), &ir.Break{}}},
					{Default: true, Body: ir.Block{store(lref(acc), bin(ir.Sub, load(lref(acc)), ci(-7)))}},
				}},
			},
			Continuing: ir.Block{store(lref(i), bin(ir.Add, load(lref(i)), ci(1)))},
		},
		&ir.Loop{ // do { acc >>= 1 } while (acc > 100)
			Body:    ir.Block{store(lref(acc), bin(ir.Shr, load(lref(acc)), ci(1)))},
			BreakIf: &ir.Unary{Op: ir.Not, X: bin(ir.Gt, load(lref(acc)), ci(100))},
		},
		store(elem(out, x(load(gref(tid)))), load(lref(acc))),
	)
	return b
}

// pixelQuad builds a pixel shader using quad operations, discard and stage IO.
func pixelQuad() *builder {
	b := newStage("PSSlope", ir.Pixel)
	pos := b.input("pos", vec(f32, 4), ir.BuiltinPosition)
	uv := b.userInput("uv", vec(f32, 2), 1)
	col := b.output("color", vec(f32, 4), ir.BuiltinNone, 0)
	ff := b.input("front", ir.BoolT, ir.BuiltinFrontFacing)
	v := b.local("v", f32)
	b.add(
		store(lref(v), x(load(gref(uv)))),
		&ir.If{Cond: &ir.Unary{Op: ir.Not, X: load(gref(ff))}, Then: ir.Block{&ir.Discard{}}},
		store(gref(col), &ir.Construct{T: vec(f32, 4), Args: []ir.Expr{
			bin(ir.Sub, call(intrinsics.QuadReadAcrossX, f32, load(lref(v))), load(lref(v))),
			bin(ir.Sub, call(intrinsics.QuadReadAcrossY, f32, load(lref(v))), load(lref(v))),
			call(intrinsics.QuadReadLaneAt, f32, &ir.Swizzle{Base: load(gref(pos)), Comps: []int{1}}, cu(0)),
			conv(call(intrinsics.WaveGetLaneCount, u32), f32),
		}}),
	)
	return b
}

// vertexMain builds a vertex shader with vertex/instance ids and user outputs.
func vertexMain() *builder {
	b := newStage("VSMain", ir.Vertex)
	vid := b.input("vid", u32, ir.BuiltinVertexIndex)
	iid := b.input("iid", u32, ir.BuiltinInstanceIndex)
	inPos := b.userInput("inPos", vec(f32, 3), 0)
	pos := b.output("pos", vec(f32, 4), ir.BuiltinPosition, 0)
	tc := b.output("tc", vec(f32, 2), ir.BuiltinNone, 0)
	b.add(
		store(gref(pos), &ir.Construct{T: vec(f32, 4), Args: []ir.Expr{load(gref(inPos)), cf(1)}}),
		store(gref(tc), &ir.Construct{T: vec(f32, 2), Args: []ir.Expr{conv(load(gref(vid)), f32), conv(load(gref(iid)), f32)}}),
		&ir.Return{},
	)
	return b
}

// matrices builds cbuffer/push-constant matrices of both memory orders, a
// struct with a packed float3, a static const and a specialization constant.
func matrices() *builder {
	b := newCompute("Matrices", 1)
	cm := ir.Matrix{Elem: f32, Rows: 4, Cols: 4, Stride: 16}                 // column_major
	rm := ir.Matrix{Elem: f32, Rows: 3, Cols: 4, Stride: 16, RowMajor: true} // row_major
	cb := &ir.Struct{Name: "Globals", Fields: []ir.Field{
		{Name: "world", Type: cm, Offset: 0},
		{Name: "proj", Type: rm, Offset: 64},
		{Name: "tint", Type: vec(f32, 3), Offset: 112},
		{Name: "scale", Type: f32, Offset: 124},
	}, Size: 128, Align: 16}
	pc := &ir.Struct{Name: "Push", Fields: []ir.Field{{Name: "offset", Type: vec(f32, 4), Offset: 0}}, Size: 16, Align: 16}
	b.m.Structs = []*ir.Struct{cb, pc}
	g := b.global(&ir.Global{Name: "G", Type: cb, Space: ir.SpaceUniform, Resource: ir.ResConstantBuffer, Binding: &ir.Binding{Set: 0, Binding: 3}})
	push := b.global(&ir.Global{Name: "pc", Type: pc, Space: ir.SpacePushConstant, Resource: ir.ResPushConstant})
	out := b.rwBuffer("Out", vec(f32, 4), 0, 0)
	k := b.global(&ir.Global{Name: "kHalf", Type: f32, Space: ir.SpacePrivate, Const: true, Init: cf(0.5)})
	spec := b.global(&ir.Global{Name: "kCount", Type: u32, Space: ir.SpacePrivate, Const: true, Spec: true, SpecID: 3, Init: cu(4)})
	v := b.local("v", vec(f32, 4))
	m := b.local("m", cm)
	world := &ir.Member{Base: gref(g), Field: 0}
	b.add(
		store(lref(v), load(&ir.Member{Base: gref(push), Field: 0})),
		store(lref(m), load(world)),
		store(lref(v), call(intrinsics.Mul, vec(f32, 4), load(lref(v)), load(lref(m)))),
		store(lref(v), bin(ir.Add, load(lref(v)), load(&ir.Index{Base: world, Idx: ci(2), T: vec(f32, 4)}))),
		store(&ir.Index{Base: &ir.Index{Base: lref(m), Idx: ci(1), T: vec(f32, 4)}, Idx: ci(2), T: f32}, load(&ir.Index{Base: &ir.Index{Base: world, Idx: ci(1), T: vec(f32, 4)}, Idx: ci(2), T: f32})),
		store(elem(out, cu(0)), call(intrinsics.Mul, vec(f32, 4), load(lref(m)), load(lref(v)))),
		store(elem(out, cu(1)), &ir.Construct{T: vec(f32, 4), Args: []ir.Expr{
			call(intrinsics.Mul, vec(f32, 3), load(&ir.Member{Base: gref(g), Field: 1}), load(lref(v))),
			bin(ir.MulOp, load(&ir.Member{Base: gref(g), Field: 3}), load(gref(k))),
		}}),
		store(elem(out, cu(2)), &ir.Construct{T: vec(f32, 4), Args: []ir.Expr{load(&ir.Member{Base: gref(g), Field: 2}), conv(load(gref(spec)), f32)}}),
		store(elem(out, cu(3)), x4(bin(ir.MulOp, load(lref(m)), load(lref(m))))),
	)
	return b
}

// x4 takes row 0 of a 4x4 matrix value.
func x4(m ir.Expr) ir.Expr { return &ir.Index{Base: m, Idx: ci(0), T: vec(f32, 4)} }

// cbufferArrays builds a cbuffer with std140-style arrays (stride 16 for floats
// and float2s), read per element and copied whole into a register array.
func cbufferArrays() *builder {
	b := newCompute("CBArrays", 1)
	fa := &ir.Array{Elem: f32, Len: 4, Stride: 16}
	va := &ir.Array{Elem: vec(f32, 2), Len: 2, Stride: 16}
	s := &ir.Struct{Name: "Params", Fields: []ir.Field{
		{Name: "weights", Type: fa, Offset: 0},
		{Name: "offsets", Type: va, Offset: 64},
		{Name: "count", Type: u32, Offset: 96},
	}, Size: 112, Align: 16}
	b.m.Structs = []*ir.Struct{s}
	c := b.global(&ir.Global{Name: "P", Type: s, Space: ir.SpaceUniform, Resource: ir.ResConstantBuffer, Binding: &ir.Binding{Set: 0, Binding: 0}})
	out := b.rwBuffer("Out", f32, 0, 1)
	w := b.local("w", &ir.Array{Elem: f32, Len: 4})
	weights := &ir.Member{Base: gref(c), Field: 0}
	b.add(
		store(lref(w), load(weights)),
		store(elem(out, cu(0)), bin(ir.Add, load(&ir.Index{Base: weights, Idx: cu(2), T: f32}), load(&ir.Index{Base: lref(w), Idx: cu(3), T: f32}))),
		store(elem(out, cu(1)), x(load(&ir.Index{Base: &ir.Member{Base: gref(c), Field: 1}, Idx: cu(1), T: vec(f32, 2)}))),
		store(elem(out, cu(2)), conv(load(&ir.Member{Base: gref(c), Field: 2}), f32)),
	)
	return b
}

// builtinTypes uses compute builtins declared with types Metal does not take for
// them (int3 thread ids) next to ones it does (uint2 group ids), plus a static
// global and a helper writing an out parameter.
func builtinTypes() *builder {
	b := newCompute("Builtins", 4)
	tid := b.input("tid", vec(i32, 3), ir.BuiltinGlobalInvocationID)
	gid := b.input("gid", vec(u32, 2), ir.BuiltinWorkgroupID)
	lid := b.input("lid", vec(u32, 3), ir.BuiltinLocalInvocationID)
	out := b.rwBuffer("Out", i32, 0, 0)
	counter := b.global(&ir.Global{Name: "counter", Type: i32, Space: ir.SpacePrivate, Init: ci(5)})

	// void bump(out int r) { counter += 1; r = counter; }
	hf := &ir.Function{Name: "bump", Result: ir.Void{}}
	r := hf.NewLocal("r", i32)
	hf.Params = []ir.Param{{Local: r, Dir: ir.Out}}
	hf.Body = ir.Block{
		store(gref(counter), bin(ir.Add, load(gref(counter)), ci(1))),
		store(lref(r), load(gref(counter))),
	}
	b.m.Functions = []*ir.Function{hf, b.f}
	tmp := b.local("tmp", i32)
	b.add(
		&ir.ExprStmt{X: &ir.Call{Func: hf, Args: []ir.Expr{lref(tmp)}}},
		store(elem(out, conv(x(load(gref(tid))), u32)), bin(ir.Add, load(lref(tmp)),
			conv(bin(ir.Add, x(load(gref(gid))), x(load(gref(lid)))), i32))),
	)
	return b
}

var programs = []struct {
	name  string
	build func() *builder
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
		out, err := EmitEntry(b.m, b.ep, Options{})
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
	out, err := EmitEntry(b.m, b.ep, Options{})
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
		out, err := EmitEntry(c.b.m, c.b.ep, Options{})
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
	a, err := EmitEntry(b.m, b.ep, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		c, _ := EmitEntry(b.m, b.ep, Options{})
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
			tc := b.ep.Outputs[1]
			b.f.Body = append(ir.Block{store(gref(tc), splat(conv(call(intrinsics.WaveGetLaneIndex, u32), f32), 2))}, b.f.Body...)
			return b.m, b.ep
		}, diag.ErrMSLVertexSimd, "vertex"},
		{"ballot in vertex (needs the simd-group size)", func() (*ir.Module, *ir.EntryPoint) {
			b := vertexMain()
			tc := b.ep.Outputs[1]
			bal := call(intrinsics.WaveActiveBallot, vec(u32, 4), cb(true))
			b.f.Body = append(ir.Block{store(gref(tc), conv(&ir.Swizzle{Base: bal, Comps: []int{0, 1}}, vec(f32, 2)))}, b.f.Body...)
			return b.m, b.ep
		}, diag.ErrMSLVertexSimd, "vertex"},
		{"64-bit shuffle", func() (*ir.Module, *ir.EntryPoint) {
			b := newCompute("main", 32)
			out := b.rwBuffer("Out", ir.U64, 0, 0)
			b.add(store(elem(out, cu(0)), call(intrinsics.WaveReadLaneAt, ir.U64, load(elem(out, cu(1))), cu(3))))
			return b.m, b.ep
		}, diag.ErrMSLSimdType, "u64"},
		{"64-bit broadcast vector", func() (*ir.Module, *ir.EntryPoint) {
			b := newCompute("main", 32)
			out := b.rwBuffer("Out", vec(ir.I64, 2), 0, 0)
			b.add(store(elem(out, cu(0)), call(intrinsics.WaveReadLaneFirst, vec(ir.I64, 2), load(elem(out, cu(1))))))
			return b.m, b.ep
		}, diag.ErrMSLSimdType, "vec2<i64>"},
		{"double", func() (*ir.Module, *ir.EntryPoint) {
			b := newCompute("main", 1)
			out := b.rwBuffer("Out", ir.F64, 0, 0)
			b.add(store(elem(out, cu(0)), ir.ConstFloat(ir.F64, 1)))
			return b.m, b.ep
		}, diag.ErrMSLType, "64-bit floating point"},
		{"64-bit atomic", func() (*ir.Module, *ir.EntryPoint) {
			b := newCompute("main", 1)
			out := b.rwBuffer("Out", ir.U64, 0, 0)
			b.add(&ir.ExprStmt{X: call(intrinsics.InterlockedAdd, ir.Void{}, elem(out, cu(0)), ir.ConstUint(ir.U64, 1))})
			return b.m, b.ep
		}, diag.ErrMSLAtomic64, "64-bit"},
		{"WaveMatch", func() (*ir.Module, *ir.EntryPoint) {
			b := newCompute("main", 32)
			out := b.rwBuffer("Out", vec(u32, 4), 0, 0)
			b.add(store(elem(out, cu(0)), call(intrinsics.WaveMatch, vec(u32, 4), cu(1))))
			return b.m, b.ep
		}, diag.ErrMSLNoLowering, "WaveMatch"},
		{"array stride below Metal's", func() (*ir.Module, *ir.EntryPoint) {
			b := newCompute("main", 1)
			s := &ir.Struct{Name: "C", Fields: []ir.Field{{Name: "a", Type: &ir.Array{Elem: vec(f32, 4), Len: 4, Stride: 12}}}, Size: 48, Align: 16}
			c := b.global(&ir.Global{Name: "cb", Type: s, Space: ir.SpaceUniform, Resource: ir.ResConstantBuffer, Binding: &ir.Binding{}})
			out := b.rwBuffer("Out", vec(f32, 4), 0, 1)
			b.add(store(elem(out, cu(0)), load(&ir.Index{Base: &ir.Member{Base: gref(c), Field: 0}, Idx: cu(1), T: vec(f32, 4)})))
			return b.m, b.ep
		}, diag.ErrMSLLayout, "stride 12"},
		{"member offset Metal cannot reach", func() (*ir.Module, *ir.EntryPoint) {
			b := newCompute("main", 1)
			s := &ir.Struct{Name: "S", Fields: []ir.Field{{Name: "a", Type: f32, Offset: 0}, {Name: "b", Type: vec(f32, 4), Offset: 4}}, Size: 20, Align: 4}
			out := b.rwBuffer("Out", s, 0, 1)
			b.m.Structs = []*ir.Struct{s}
			b.add(store(&ir.Member{Base: elem(out, cu(0)), Field: 0}, cf(1)))
			return b.m, b.ep
		}, diag.ErrMSLLayout, "offset 4"},
		{"member of a non-struct", func() (*ir.Module, *ir.EntryPoint) {
			b := newCompute("main", 1)
			out := b.rwBuffer("Out", u32, 0, 0)
			b.add(store(elem(out, cu(0)), load(&ir.Member{Base: elem(out, cu(1)), Field: 2})))
			return b.m, b.ep
		}, diag.ErrMSLMalformedInput, "invalid IR"},
		{"nil entry", func() (*ir.Module, *ir.EntryPoint) { return &ir.Module{}, nil }, diag.ErrMSLMalformedInput, ""},
	}
	for _, c := range cases {
		m, ep := c.build()
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
