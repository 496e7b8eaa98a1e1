package msl

import (
	"errors"
	"strings"
	"testing"

	"waverig/compiler/diag"
	"waverig/compiler/intrinsics"
	"waverig/compiler/ir"
	. "waverig/compiler/ir/irtest"
)

// rowCase is one hand-built use of an intrinsic-table row.
type rowCase struct {
	name string
	b    *Builder
	call *ir.Intrinsic
}

// kindScalar picks the scalar a parameter of these kinds gets in a test.
func kindScalar(k intrinsics.Kinds) ir.Scalar {
	switch {
	case k&intrinsics.KFloat != 0:
		return f32
	case k&intrinsics.KUint != 0:
		return u32
	case k&intrinsics.KInt != 0:
		return i32
	}
	return ir.BoolT
}

// variants lists the argument-0 types a row is exercised with: its preferred
// scalar, and for wave/quad rows a 3-vector of every other kind it accepts (bool
// vectors travel through ushort, so they get their own case).
func variants(in *intrinsics.Info) []ir.Type {
	if len(in.Params) == 0 {
		return []ir.Type{nil}
	}
	p := in.Params[0]
	first := kindScalar(p.Kinds)
	var ts []ir.Type
	if p.Shapes&intrinsics.SScalar != 0 {
		ts = append(ts, first)
	} else {
		ts = append(ts, ir.Vector{Elem: first, N: 3})
	}
	if p.Shapes&intrinsics.SVector == 0 || p.Place {
		return ts
	}
	var kinds []ir.Scalar
	for _, k := range []intrinsics.Kinds{intrinsics.KFloat, intrinsics.KUint, intrinsics.KInt, intrinsics.KBool} {
		if p.Kinds&k != 0 {
			kinds = append(kinds, kindScalar(k))
		}
	}
	switch in.Class {
	case intrinsics.ClassWave, intrinsics.ClassQuad:
		for _, s := range kinds {
			if v := (ir.Vector{Elem: s, N: 3}); !ir.Equal(v, ts[0]) {
				ts = append(ts, v)
			}
		}
	case intrinsics.ClassMath:
		// One vector case, of the last kind the row accepts, so signed/bool paths get a case too.
		if v := (ir.Vector{Elem: kinds[len(kinds)-1], N: 3}); !ir.Equal(v, ts[0]) {
			ts = append(ts, v)
		}
	}
	return ts
}

// value produces a non-constant value of type t from the thread id, so nothing
// folds and every operand is a real expression.
func value(b *Builder, id *ir.Global, t ir.Type, salt uint64) ir.Expr {
	s, _ := ir.ScalarOf(t)
	n := ir.Components(t)
	lane := Bin(ir.Add, X(Load(GRef(id))), Uint(salt))
	var v ir.Expr
	switch s.Kind {
	case ir.Bool:
		v = Bin(ir.Lt, lane, Uint(16))
	case ir.Uint:
		v = lane
	default:
		v = Conv(lane, s)
	}
	return Splat(v, n)
}

// tableCase builds a compute (or pixel, for pixel-only rows) entry that calls
// the row with arguments of type a0 and stores the result.
func tableCase(in *intrinsics.Info, a0 ir.Type) *rowCase {
	stage := ir.Compute
	if in.PixelOnly || in.Class == intrinsics.ClassDeriv || in.FalseOutsidePixel {
		stage = ir.Pixel
	}
	b := Compute("main", 32)
	if stage == ir.Pixel {
		b = Entry("main", ir.Pixel)
	}
	var id *ir.Global
	if stage == ir.Compute {
		id = b.Input("id", vec(u32, 3), ir.BuiltinGlobalInvocationID, 0)
	} else {
		id = b.Input("id", vec(u32, 3), ir.BuiltinNone, 0)
		id.Flat = true
	}
	var args []ir.Expr
	var dest *ir.Global
	for i, p := range in.Params {
		switch {
		case p.Out:
			args = append(args, LRef(b.Local("original", u32)))
		case p.Place:
			dest = b.RWBuffer("Dest", u32, 0, 2)
			dest.Atomic = true
			args = append(args, Elem(dest, X(Load(GRef(id)))))
		case p.Scalar32:
			args = append(args, Bin(ir.BitAnd, X(Load(GRef(id))), Uint(3)))
		case p.SameAs >= 0:
			args = append(args, value(b, id, args[p.SameAs].Type(), uint64(i)))
		case i == 0 && a0 != nil:
			args = append(args, value(b, id, a0, 0))
		default:
			args = append(args, value(b, id, kindScalar(p.Kinds), uint64(i)))
		}
	}
	var first ir.Type
	if len(args) > 0 {
		first = args[0].Type()
	}
	c := &ir.Intrinsic{Op: in.Op, Args: args, T: ir.IntrinsicResult(in.Result, first)}
	if _, void := c.T.(ir.Void); void {
		b.Add(&ir.ExprStmt{X: c})
	} else {
		result := ir.Expr(c)
		rt := c.T
		if s, _ := ir.ScalarOf(rt); s.Kind == ir.Bool {
			rt = ir.WithScalar(rt, u32)
			result = Conv(c, rt)
		}
		if stage == ir.Pixel {
			o := b.Output("color", rt, ir.BuiltinNone, 0)
			b.Add(Store(GRef(o), result))
		} else {
			out := b.RWBuffer("Out", rt, 0, 1)
			b.Add(Store(Elem(out, X(Load(GRef(id)))), result))
		}
	}
	name := "row_" + strings.NewReplacer(".", "_").Replace(in.Name)
	if a0 != nil {
		name += "_" + strings.NewReplacer("<", "", ">", "", ",", "").Replace(a0.String())
	}
	return &rowCase{name: name, b: b, call: c}
}

// specialCases builds the RSpecial rows (mul, textures, buffer GetDimensions),
// whose signatures sema computes.
func specialCases() []*rowCase {
	var cs []*rowCase
	m34 := ir.Matrix{Elem: f32, Rows: 3, Cols: 4}
	m43 := ir.Matrix{Elem: f32, Rows: 4, Cols: 3}
	mulCase := func(name string, at, bt, rt ir.Type) {
		b := Compute("main", 1)
		id := b.Input("id", vec(u32, 3), ir.BuiltinGlobalInvocationID, 0)
		pa, pb := b.Local("a", at), b.Local("b", bt)
		out := b.RWBuffer("Out", rt, 0, 0)
		c := Intr(intrinsics.Mul, rt, Load(LRef(pa)), Load(LRef(pb)))
		b.Add(Store(Elem(out, X(Load(GRef(id)))), c))
		cs = append(cs, &rowCase{name: "row_mul_" + name, b: b, call: c})
	}
	mulCase("vec_mat", vec(f32, 3), m34, vec(f32, 4))
	mulCase("mat_vec", m34, vec(f32, 4), vec(f32, 3))
	mulCase("mat_mat", m34, m43, ir.Matrix{Elem: f32, Rows: 3, Cols: 3})
	mulCase("vec_vec", vec(f32, 3), vec(f32, 3), f32)
	mulCase("scalar_vec", f32, vec(f32, 3), vec(f32, 3))

	tex := func(b *Builder, storage bool) (*ir.Global, *ir.Global) {
		t := b.Global(&ir.Global{Name: "tex", Type: ir.Texture2D{Elem: f32, Components: 4, Storage: storage}, Space: ir.SpaceHandle,
			Resource: ir.ResTexture2D, Binding: &ir.Binding{Set: 0, Binding: 0}})
		if storage {
			t.Resource = ir.ResRWTexture2D
		}
		s := b.Global(&ir.Global{Name: "samp", Type: ir.Sampler{}, Space: ir.SpaceHandle, Resource: ir.ResSampler, Binding: &ir.Binding{Set: 0, Binding: 1}})
		return t, s
	}
	f4 := vec(f32, 4)
	{ // Sample (pixel only).
		b := Entry("main", ir.Pixel)
		uv := b.Input("uv", vec(f32, 2), ir.BuiltinNone, 0)
		t, s := tex(b, false)
		o := b.Output("color", f4, ir.BuiltinNone, 0)
		c := Intr(intrinsics.TextureSample, f4, GRef(t), GRef(s), Load(GRef(uv)))
		b.Add(Store(GRef(o), c))
		cs = append(cs, &rowCase{name: "row_Texture2D_Sample", b: b, call: c})
	}
	{ // SampleLevel, Load, GetDimensions in compute; RWTexture2D Load + Store.
		b := Compute("main", 8)
		id := b.Input("id", vec(u32, 3), ir.BuiltinGlobalInvocationID, 0)
		t, s := tex(b, false)
		out := b.RWBuffer("Out", f4, 0, 2)
		lvl := Intr(intrinsics.TextureSampleLevel, f4, GRef(t), GRef(s), &ir.Construct{T: vec(f32, 2), Args: []ir.Expr{Float(0.5), Float(0.25)}}, Float(0))
		ld := Intr(intrinsics.TextureLoad, vec(f32, 3), GRef(t), &ir.Construct{T: vec(i32, 2), Args: []ir.Expr{Int(1), Int(2)}}, Int(0))
		dims := Intr(intrinsics.TextureGetDimensions, vec(u32, 2), GRef(t))
		b.Add(Store(Elem(out, X(Load(GRef(id)))), lvl))
		b.Add(Store(Elem(out, Uint(1)), &ir.Construct{T: f4, Args: []ir.Expr{ld, Float(1)}}))
		b.Add(Store(Elem(out, Uint(2)), &ir.Construct{T: f4, Args: []ir.Expr{Conv(dims, vec(f32, 2)), Float(0), Float(0)}}))
		cs = append(cs, &rowCase{name: "row_Texture2D_SampleLevel_Load_GetDimensions", b: b, call: lvl})
	}
	{
		b := Compute("main", 8)
		id := b.Input("id", vec(u32, 3), ir.BuiltinGlobalInvocationID, 0)
		t, _ := tex(b, true)
		b.M.Globals = b.M.Globals[:len(b.M.Globals)-1] // no sampler
		xy := &ir.Swizzle{Base: Load(GRef(id)), Comps: []int{0, 1}}
		ld := Intr(intrinsics.TextureLoad, f4, GRef(t), xy)
		st := Intr(intrinsics.TextureStore, ir.Void{}, GRef(t), xy, Bin(ir.Add, ld, Splat(Float(1), 4)))
		b.Add(&ir.ExprStmt{X: st})
		cs = append(cs, &rowCase{name: "row_RWTexture2D_Load_Store", b: b, call: st})
	}
	{ // Buffer GetDimensions: element count from _buffer_sizes.
		b := Compute("main", 1)
		in := b.ROBuffer("Data", vec(f32, 4), 0, 0)
		raw := b.Global(&ir.Global{Name: "Raw", Type: &ir.Array{Elem: u32, Stride: 4}, Space: ir.SpaceStorage, Resource: ir.ResRWByteAddressBuffer, Binding: &ir.Binding{Set: 0, Binding: 1}})
		out := b.RWBuffer("Out", u32, 1, 0)
		c := Intr(intrinsics.BufferGetDimensions, u32, GRef(in))
		b.Add(Store(Elem(out, Uint(0)), c))
		b.Add(Store(Elem(out, Uint(1)), Intr(intrinsics.BufferGetDimensions, u32, GRef(raw))))
		cs = append(cs, &rowCase{name: "row_Buffer_GetDimensions", b: b, call: c})
	}
	return cs
}

// unsupportedInMSL lists the rows Metal cannot express, with the code expected.
var unsupportedInMSL = map[intrinsics.Op]diag.Code{
	intrinsics.WaveMatch: diag.ErrMSLNoLowering, intrinsics.WaveMultiPrefixSum: diag.ErrMSLNoLowering,
	intrinsics.WaveMultiPrefixProduct: diag.ErrMSLNoLowering, intrinsics.WaveMultiPrefixBitAnd: diag.ErrMSLNoLowering,
	intrinsics.WaveMultiPrefixBitOr: diag.ErrMSLNoLowering, intrinsics.WaveMultiPrefixBitXor: diag.ErrMSLNoLowering,
	intrinsics.WaveMultiPrefixCountBits: diag.ErrMSLNoLowering,
}

// allRowCases builds every table row's cases.
func allRowCases() []*rowCase {
	var cs []*rowCase
	for i := range intrinsics.Table {
		in := &intrinsics.Table[i]
		if in.Result == intrinsics.RSpecial || in.Op == intrinsics.TextureStore || in.SemaOnly || in.Class == intrinsics.ClassMesh {
			continue // the mesh rows need their own stages: meshCases
		}
		for _, t := range variants(in) {
			cs = append(cs, tableCase(in, t))
		}
	}
	return append(append(cs, specialCases()...), meshCases()...)
}

// TestIntrinsicTableGoldens emits every row of intrinsics.Table Metal supports
// and compares it with its golden; unsupported rows must give their code.
func TestIntrinsicTableGoldens(t *testing.T) {
	covered := map[intrinsics.Op]bool{}
	calls := map[intrinsics.Op]bool{}
	for _, c := range allRowCases() {
		Valid(t, c.b.M)
		out, err := EmitEntry(c.b.M, c.b.EP, Options{})
		covered[c.call.Op] = true
		if code, bad := unsupportedInMSL[c.call.Op]; bad {
			if !hasCode(err, code) {
				t.Errorf("%s: want %s, got %v", c.name, code, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		checkGolden(t, c.name, out.Source)
		checkArguments(t, c.name, out)
		ir.WalkBlock(c.b.F.Body, nil, func(e ir.Expr) {
			if x, ok := e.(*ir.Intrinsic); ok {
				info := intrinsics.Get(x.Op)
				if strings.Contains(out.Source, info.MSL+"(") || strings.Contains(out.Source, info.MSL+"<") {
					calls[x.Op] = true
				}
			}
		})
	}
	// Scalar forms may lower differently (dot(a, b) of scalars is a*b), but some
	// case of every row with a Metal function name must call it.
	for _, in := range intrinsics.Table {
		if callName.MatchString(in.MSL) && !calls[in.Op] {
			t.Errorf("no case of %s calls its MSL function %s", in.Name, in.MSL)
		}
	}
	for _, in := range intrinsics.Table {
		if !covered[in.Op] && !in.SemaOnly && in.Op != intrinsics.TextureStore && in.Op != intrinsics.TextureLoad && in.Op != intrinsics.TextureGetDimensions {
			t.Errorf("row %s has no test case", in.Name)
		}
	}
}

// hasCode reports whether err is a *diag.Errors holding code.
func hasCode(err error, code diag.Code) bool {
	var de *diag.Errors
	if !errors.As(err, &de) {
		return false
	}
	for _, m := range de.Msgs {
		if m.Code == code {
			return true
		}
	}
	return false
}
