package wgsl

import (
	"strings"
	"testing"

	"waverig/compiler/diag"
	"waverig/compiler/intrinsics"
	"waverig/compiler/ir"
	. "waverig/compiler/ir/irtest"
)

// tcase is one hand-built module exercising one intrinsic row.
type tcase struct {
	name string
	m    *ir.Module
	want diag.Code // "" when the module must emit and validate
}

var (
	vec3f = ir.Vector{Elem: ir.F32, N: 3}
	vec4f = ir.Vector{Elem: ir.F32, N: 4}
	vec2u = ir.Vector{Elem: ir.U32, N: 2}
	vec4u = ir.Vector{Elem: ir.U32, N: 4}
)

// kindTypes lists one scalar type per allowed kind, float first.
func kindTypes(k intrinsics.Kinds) []ir.Scalar {
	var out []ir.Scalar
	if k&intrinsics.KFloat != 0 {
		out = append(out, ir.F32)
	}
	if k&intrinsics.KUint != 0 {
		out = append(out, ir.U32)
	}
	if k&intrinsics.KInt != 0 {
		out = append(out, ir.I32)
	}
	if k&intrinsics.KBool != 0 {
		out = append(out, ir.BoolT)
	}
	return out
}

// operandTypes: the representative types for argument 0 of a row: each kind
// as a scalar, plus a vector (and for math a half vector).
func operandTypes(in *intrinsics.Info) []ir.Type {
	if len(in.Params) == 0 {
		return []ir.Type{nil}
	}
	p := in.Params[0]
	var out []ir.Type
	kinds := kindTypes(p.Kinds)
	if p.Shapes&intrinsics.SScalar != 0 {
		for _, s := range kinds {
			out = append(out, s)
		}
	}
	if p.Shapes&intrinsics.SVector != 0 {
		n := 4
		if in.Op == intrinsics.Cross {
			n = 3
		}
		if p.Shapes&intrinsics.SScalar != 0 {
			n = 3
		}
		for i, s := range kinds {
			if i == 0 || s.Kind == ir.Bool {
				out = append(out, ir.Vector{Elem: s, N: n})
			}
		}
		if in.Class == intrinsics.ClassMath && p.Kinds&intrinsics.KFloat != 0 && in.WGSL != "bitcast" {
			out = append(out, ir.Vector{Elem: ir.F16, N: n})
		}
	}
	return out
}

// resultType is the table's rule, except that this test also feeds half
// operands to float-result math rows (WGSL has f16), whose result stays half.
func resultType(in *intrinsics.Info, a0 ir.Type) ir.Type {
	if s0, _ := ir.ScalarOf(a0); in.Result == intrinsics.RFloatShape0 && s0.Bits == 16 {
		return ir.WithScalar(a0, ir.F16)
	}
	return ir.IntrinsicResult(in.Result, a0)
}

func typeTag(t ir.Type) string {
	if t == nil {
		return ""
	}
	return "_" + strings.NewReplacer("<", "", ">", "", ",", "").Replace(t.String())
}

// intrinsicCases builds a module per (row, representative type).
func intrinsicCases() []tcase {
	var cases []tcase
	for i := range intrinsics.Table {
		in := &intrinsics.Table[i]
		if in.SemaOnly {
			continue // no Intrinsic reaches a back end; double itself is E0601 (TestDoubleBitsE0601)
		}
		base := strings.ReplaceAll(in.Name, ".", "_")
		switch in.Class {
		case intrinsics.ClassBarrier:
			b := newCompute("main", 64)
			out := b.RWBuffer("Out", ir.U32, 0, 0)
			b.Add(Store(Elem(out, b.laneX()), Uint(1)), &ir.ExprStmt{X: Intr(in.Op, ir.Void{})}, Store(Elem(out, Uint(0)), Uint(2)))
			cases = append(cases, tcase{name: base, m: b.M})
			continue
		case intrinsics.ClassAtomic:
			cases = append(cases, atomicCases(in, base)...)
			continue
		case intrinsics.ClassMesh:
			// Only amplification and mesh shaders call them, and WebGPU has neither.
			cases = append(cases, tcase{name: base, m: meshCall(in), want: diag.ErrWGSLMeshStage})
			continue
		case intrinsics.ClassTexture, intrinsics.ClassMisc:
			cases = append(cases, resourceCases(in, base)...)
			continue
		case intrinsics.ClassHelper:
			// Constant false outside fragment shaders; in one, no WGSL builtin: E0612.
			cases = append(cases, rowCase(in, base, nil, false))
			cases = append(cases, tcase{name: base + "_pixel", m: pixelCall(base+"_pixel", in), want: diag.ErrWGSLHelperLane})
			continue
		}
		if in.Op == intrinsics.Mul {
			cases = append(cases, mulCases()...)
			continue
		}
		for _, a0 := range operandTypes(in) {
			if in.Op == intrinsics.F32tof16 || in.Op == intrinsics.F16tof32 {
				if s, _ := ir.ScalarOf(a0); s.Bits == 16 {
					continue
				}
			}
			cases = append(cases, rowCase(in, base, a0, false))
			if len(in.Params) > 1 && in.Params[1].Scalar32 {
				cases = append(cases, rowCase(in, base, a0, true))
			}
		}
	}
	return cases
}

// rowCase: Out[tid.x] = op(args) for a wave/quad/math/derivative row.
func rowCase(in *intrinsics.Info, base string, a0 ir.Type, dynamicLane bool) tcase {
	name := base + typeTag(a0)
	if dynamicLane {
		name += "_dynlane"
	}
	var b *builder
	if in.PixelOnly || in.Class == intrinsics.ClassDeriv {
		b = newPixel(name)
	} else {
		b = newCompute("main", 64)
	}
	var args []ir.Expr
	for i, p := range in.Params {
		switch {
		case i == 0:
			args = append(args, b.value(a0))
		case p.SameAs >= 0:
			args = append(args, b.value(args[p.SameAs].Type()))
		case p.Scalar32:
			if dynamicLane {
				args = append(args, &ir.Binary{Op: ir.BitAnd, X: b.laneX(), Y: Uint(3), T: ir.U32})
			} else {
				args = append(args, Uint(1))
			}
		default:
			ks := kindTypes(p.Kinds)
			t := ir.Type(ks[0])
			if p.Shapes&intrinsics.SScalar == 0 {
				t = ir.Vector{Elem: ks[0], N: 4}
			}
			args = append(args, b.value(t))
		}
	}
	rt := resultType(in, a0)
	call := Intr(in.Op, rt, args...)
	st := toStorable(call).Type()
	if s, _ := ir.ScalarOf(st); s.Bits == 16 {
		st = ir.WithScalar(st, ir.F32)
	}
	out := b.RWBuffer("Out", st, 0, 0)
	var v ir.Expr = toStorable(call)
	if !ir.Equal(v.Type(), st) {
		v = &ir.Convert{X: v, T: st}
	}
	b.Add(Store(Elem(out, b.laneX()), v))
	want := diag.Code("")
	if in.WGSL == "" && in.WGSLLowering != "" && strings.HasPrefix(in.WGSLLowering, "not expressible") {
		want = diag.ErrWGSLNoLowering
	}
	return tcase{name: name, m: b.M, want: want}
}

// pixelCall: a pixel shader whose target's x is an operand-less bool row (IsHelperLane).
func pixelCall(name string, in *intrinsics.Info) *ir.Module {
	b := newPixel(name)
	for _, g := range b.M.Globals {
		if g.Name == "target" {
			b.Add(Store(&ir.GlobalRef{G: g}, &ir.Select{Cond: Intr(in.Op, ir.BoolT), True: Splat(Float(0), 4), False: Splat(Float(1), 4)}))
		}
	}
	return b.M
}

// newPixel: a pixel shader with SV_Position in and SV_Target out; laneX reads
// the pixel x coordinate.
func newPixel(name string) *builder {
	b := newStage(name, ir.Pixel)
	b.tid = b.Global(&ir.Global{Space: ir.SpaceInput, Name: "pos", Type: vec4f, Builtin: ir.BuiltinPosition, Semantic: "SV_Position"})
	target := b.Global(&ir.Global{Space: ir.SpaceOutput, Name: "target", Type: vec4f, Location: 0, Semantic: "SV_Target"})
	b.Add(Store(&ir.GlobalRef{G: target}, Splat(Float(1), 4)))
	return b
}

func atomicCases(in *intrinsics.Info, base string) []tcase {
	var cases []tcase
	for _, variant := range []string{"buffer_u32", "groupshared_i32", "buffer_u32_orig"} {
		b := newCompute("main", 64)
		var dst ir.Expr
		elem := ir.U32
		switch variant {
		case "groupshared_i32":
			elem = ir.I32
			g := b.Global(&ir.Global{Name: "counters", Type: &ir.Array{Elem: ir.I32, Len: 4}, Space: ir.SpaceWorkgroup, Atomic: true})
			dst = &ir.Index{Base: &ir.GlobalRef{G: g}, Idx: Uint(1), T: ir.I32}
		default:
			g := b.RWBuffer("Counters", ir.U32, 0, 1)
			g.Atomic = true
			dst = Elem(g, Uint(0))
		}
		out := b.RWBuffer("Out", elem, 0, 0)
		args := []ir.Expr{dst}
		for _, p := range in.Params[1:] {
			if p.Out {
				if variant != "buffer_u32_orig" && in.Op != intrinsics.InterlockedCompareExchange {
					continue
				}
				orig := b.F.NewLocal("original", elem)
				args = append(args, &ir.LocalRef{L: orig})
				continue
			}
			args = append(args, b.value(elem))
		}
		b.Add(&ir.ExprStmt{X: Intr(in.Op, ir.Void{}, args...)})
		// Read the destination back and, where there is one, the original value.
		b.Add(Store(Elem(out, b.laneX()), Load(dst)))
		if r, ok := args[len(args)-1].(*ir.LocalRef); ok {
			b.Add(Store(Elem(out, Uint(0)), Load(r)))
		}
		cases = append(cases, tcase{name: base + "_" + variant, m: b.M})
	}
	return cases
}

func resourceCases(in *intrinsics.Info, base string) []tcase {
	tex := func(b *builder, storage bool, binding int) *ir.Global {
		kind := ir.ResTexture2D
		if storage {
			kind = ir.ResRWTexture2D
		}
		return b.Global(&ir.Global{Name: "tex", Type: ir.Texture2D{Elem: ir.F32, Components: 4, Storage: storage}, Space: ir.SpaceHandle,
			Resource: kind, Binding: &ir.Binding{Set: 0, Binding: binding}})
	}
	sampler := func(b *builder) *ir.Global {
		return b.Global(&ir.Global{Name: "samp", Type: ir.Sampler{}, Space: ir.SpaceHandle, Resource: ir.ResSampler, Binding: &ir.Binding{Set: 0, Binding: 2}})
	}
	uv := func(b *builder) ir.Expr { return b.value(ir.Vector{Elem: ir.F32, N: 2}) }
	var b *builder
	switch in.Op {
	case intrinsics.TextureSample:
		b = newPixel(base)
		t, s := tex(b, false, 1), sampler(b)
		out := b.RWBuffer("Out", vec4f, 0, 0)
		b.Add(Store(Elem(out, b.laneX()), Intr(in.Op, vec4f, &ir.GlobalRef{G: t}, &ir.GlobalRef{G: s}, uv(b))))
	case intrinsics.TextureSampleLevel:
		b = newCompute("main", 64)
		t, s := tex(b, false, 1), sampler(b)
		out := b.RWBuffer("Out", vec3f, 0, 0)
		b.Add(Store(Elem(out, b.laneX()), Intr(in.Op, vec3f, &ir.GlobalRef{G: t}, &ir.GlobalRef{G: s}, uv(b), ir.ConstFloat(ir.F32, 0))))
	case intrinsics.TextureLoad:
		var cases []tcase
		for _, storage := range []bool{false, true} {
			b = newCompute("main", 64)
			t := tex(b, storage, 1)
			out := b.RWBuffer("Out", vec4f, 0, 0)
			args := []ir.Expr{&ir.GlobalRef{G: t}, b.value(ir.Vector{Elem: ir.I32, N: 2}), Int(0)}
			name := base
			if storage {
				args = args[:2]
				name += "_rw"
			}
			b.Add(Store(Elem(out, b.laneX()), Intr(in.Op, vec4f, args...)))
			cases = append(cases, tcase{name: name, m: b.M})
		}
		return cases
	case intrinsics.TextureStore:
		b = newCompute("main", 64)
		t := tex(b, true, 1)
		b.Add(&ir.ExprStmt{X: Intr(in.Op, ir.Void{}, &ir.GlobalRef{G: t}, b.value(ir.Vector{Elem: ir.I32, N: 2}), b.value(vec4f))})
	case intrinsics.TextureGetDimensions:
		b = newCompute("main", 64)
		t := tex(b, false, 1)
		out := b.RWBuffer("Out", vec2u, 0, 0)
		b.Add(Store(Elem(out, b.laneX()), Intr(in.Op, vec2u, &ir.GlobalRef{G: t})))
	case intrinsics.BufferGetDimensions:
		b = newCompute("main", 64)
		out := b.RWBuffer("Out", ir.U32, 0, 0)
		raw := b.Global(&ir.Global{Name: "Raw", Type: &ir.Array{Elem: ir.U32, Stride: 4}, Space: ir.SpaceStorageRead,
			Resource: ir.ResByteAddressBuffer, Binding: &ir.Binding{Set: 0, Binding: 1}})
		b.Add(Store(Elem(out, Uint(0)), Intr(in.Op, ir.U32, &ir.GlobalRef{G: out})))
		b.Add(Store(Elem(out, Uint(1)), Intr(in.Op, ir.U32, &ir.GlobalRef{G: raw})))
	default:
		return []tcase{{name: base, want: diag.ErrWGSLNoLowering}}
	}
	return []tcase{{name: base, m: b.M}}
}

// mulCases: every shape pairing of HLSL mul.
func mulCases() []tcase {
	m23 := ir.Matrix{Elem: ir.F32, Rows: 2, Cols: 3}
	m32 := ir.Matrix{Elem: ir.F32, Rows: 3, Cols: 2}
	v2 := ir.Vector{Elem: ir.F32, N: 2}
	shapes := []struct {
		name string
		x, y ir.Type
		r    ir.Type
	}{
		{"scalar_vector", ir.F32, vec3f, vec3f},
		{"vector_vector", vec3f, vec3f, ir.F32},
		{"vector_matrix", v2, m23, vec3f},
		{"matrix_vector", m23, vec3f, v2},
		{"matrix_matrix", m23, m32, ir.Matrix{Elem: ir.F32, Rows: 2, Cols: 2}},
	}
	var cases []tcase
	for _, s := range shapes {
		b := newCompute("main", 64)
		r := Intr(intrinsics.Mul, s.r, b.value(s.x), b.value(s.y))
		var v ir.Expr = r
		st := s.r
		if m, ok := s.r.(ir.Matrix); ok {
			v = &ir.Index{Base: r, Idx: Uint(1), T: ir.Vector{Elem: ir.F32, N: m.Cols}}
			st = v.Type()
		}
		out := b.RWBuffer("Out", st, 0, 0)
		b.Add(Store(Elem(out, b.laneX()), v))
		cases = append(cases, tcase{name: "mul_" + s.name, m: b.M})
	}
	return cases
}

// TestIntrinsicTable emits every row of the intrinsic table (representative
// types, const and dynamic lanes) in the naga dialect, compares the golden
// files and validates each module with wgpu-native (shader module + pipeline).
func TestIntrinsicTable(t *testing.T) {
	cases := intrinsicCases()
	seen := map[string]bool{}
	rows := map[intrinsics.Op]bool{}
	for _, c := range cases {
		if seen[c.name] {
			t.Fatalf("duplicate case name %s", c.name)
		}
		seen[c.name] = true
		c := c
		t.Run(c.name, func(t *testing.T) {
			if c.want != "" {
				if c.m == nil {
					t.Skip("no module")
				}
				Valid(t, c.m)
				_, err := EmitEntry(c.m, c.m.EntryPoints[0], Options{Dialect: Naga})
				if !hasCode(err, c.want) {
					t.Fatalf("want %s, got %v", c.want, err)
				}
				return
			}
			emitValid(t, "intrinsic_"+c.name, c.m, Naga)
		})
		if c.m != nil {
			for _, f := range c.m.Functions {
				ir.WalkBlock(f.Body, nil, func(x ir.Expr) {
					if in, ok := x.(*ir.Intrinsic); ok {
						rows[in.Op] = true
					}
				})
			}
		}
	}
	for _, in := range intrinsics.Table {
		if !rows[in.Op] && !in.SemaOnly {
			t.Errorf("no test case exercises %s", in.Name)
		}
	}
	t.Logf("%d cases over %d intrinsic rows", len(cases), len(intrinsics.Table))
}

// meshCall builds the stage that has the mesh intrinsic (DispatchMesh: an
// amplification shader with its payload; SetMeshOutputCounts: a mesh shader)
// calling it once.
func meshCall(in *intrinsics.Info) *ir.Module {
	if in.Op == intrinsics.DispatchMesh {
		st := &ir.Struct{Name: "P", Fields: []ir.Field{{Name: "n", Type: ir.U32}}}
		b, pl := Amplification("main", 32, st)
		b.M.Structs = append(b.M.Structs, st)
		b.Add(&ir.ExprStmt{X: Intr(in.Op, ir.Void{}, Uint(1), Uint(1), Uint(1), GRef(pl))})
		return b.M
	}
	b, _ := Mesh("main", 32, ir.TopologyTriangle, 3, 1)
	b.Add(&ir.ExprStmt{X: Intr(in.Op, ir.Void{}, Uint(0), Uint(0))})
	return b.M
}
