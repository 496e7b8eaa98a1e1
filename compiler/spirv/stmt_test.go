package spirv

import (
	"strings"
	"testing"

	"waverig/compiler/intrinsics"
	"waverig/compiler/ir"
	. "waverig/compiler/ir/irtest"
)

var (
	v2f = ir.Vector{Elem: ir.F32, N: 2}
	v3u = ir.Vector{Elem: ir.U32, N: 3}
	v4f = ir.Vector{Elem: ir.F32, N: 4}
	v4i = ir.Vector{Elem: ir.I32, N: 4}
	v4u = ir.Vector{Elem: ir.U32, N: 4}
	v4b = ir.Vector{Elem: ir.BoolT, N: 4}
)

// controlFlow builds a compute shader with every statement kind: calls with
// in/out/inout parameters, early returns, nested loops with break/continue/
// break-if, switch with fall-through and default, dead code after terminators.
func controlFlow() *Builder {
	b := Compute("CSFlow", 64)
	out := b.RWBuffer("Out", ir.U32, 0, 0)
	tid := b.Input("tid", v3u, ir.BuiltinGlobalInvocationID, 0)

	// uint helper(uint a, out uint o, inout uint io) { o = a * 2; io += a; if (a > 10) return a; return io; }
	h := &ir.Function{Name: "helper", Result: ir.U32}
	pa, po, pio := h.NewLocal("a", ir.U32), h.NewLocal("o", ir.U32), h.NewLocal("io", ir.U32)
	h.Params = []ir.Param{{Local: pa, Dir: ir.In}, {Local: po, Dir: ir.Out}, {Local: pio, Dir: ir.InOut}}
	h.Body = ir.Block{
		&ir.Store{Place: LRef(po), Value: Bin(ir.MulOp, Load(LRef(pa)), Uint(2))},
		&ir.Store{Place: LRef(pio), Value: Bin(ir.Add, Load(LRef(pio)), Load(LRef(pa)))},
		&ir.If{Cond: Bin(ir.Gt, Load(LRef(pa)), Uint(10)), Then: ir.Block{&ir.Return{Value: Load(LRef(pa))}}},
		&ir.Return{Value: Load(LRef(pio))},
		&ir.Store{Place: LRef(po), Value: Uint(99)}, // dead
	}
	b.Func(h)

	// void kill() with a loop that only leaves by return.
	k := &ir.Function{Name: "spin", Result: ir.Void{}}
	kc := k.NewLocal("c", ir.U32)
	k.Body = ir.Block{&ir.Loop{Body: ir.Block{
		&ir.Store{Place: LRef(kc), Value: Bin(ir.Add, Load(LRef(kc)), Uint(1))},
		&ir.If{Cond: Bin(ir.Ge, Load(LRef(kc)), Uint(4)), Then: ir.Block{&ir.Return{}}},
	}}}
	b.Func(k)

	i := b.Local("i", ir.U32)
	j := b.Local("j", ir.U32)
	acc := b.Local("acc", ir.U32)
	o, io := b.Local("o", ir.U32), b.Local("io", ir.U32)
	idx := X(Load(GRef(tid)))
	b.Add(
		&ir.Store{Place: LRef(acc), Value: Uint(0)},
		&ir.Store{Place: LRef(i), Value: Uint(0)},
		// for (i = 0; i < 8; i++) { if (i == 3) continue; for (j = 0; ; j++) { if (j > i) break; acc += j; } if (acc > 100) break; }
		&ir.Loop{
			Body: ir.Block{
				&ir.If{Cond: &ir.Unary{Op: ir.Not, X: Bin(ir.Lt, Load(LRef(i)), Uint(8))}, Then: ir.Block{&ir.Break{}}},
				&ir.If{Cond: Bin(ir.Eq, Load(LRef(i)), Uint(3)), Then: ir.Block{&ir.Continue{}}},
				&ir.Store{Place: LRef(j), Value: Uint(0)},
				&ir.Loop{
					Body: ir.Block{
						&ir.If{Cond: Bin(ir.Gt, Load(LRef(j)), Load(LRef(i))), Then: ir.Block{&ir.Break{}}, Else: ir.Block{
							&ir.Store{Place: LRef(acc), Value: Bin(ir.Add, Load(LRef(acc)), Load(LRef(j)))}}},
					},
					Continuing: ir.Block{&ir.Store{Place: LRef(j), Value: Bin(ir.Add, Load(LRef(j)), Uint(1))}},
				},
				&ir.If{Cond: Bin(ir.Gt, Load(LRef(acc)), Uint(100)), Then: ir.Block{&ir.Break{}, &ir.Continue{}}},
			},
			Continuing: ir.Block{&ir.Store{Place: LRef(i), Value: Bin(ir.Add, Load(LRef(i)), Uint(1))}},
		},
		// [unroll] do { acc--; } while (acc > 50);
		&ir.Loop{Body: ir.Block{&ir.Store{Place: LRef(acc), Value: Bin(ir.Sub, Load(LRef(acc)), Uint(1))}},
			BreakIf: &ir.Unary{Op: ir.Not, X: Bin(ir.Gt, Load(LRef(acc)), Uint(50))}, Unroll: true},
		// switch (tid.x & 7) { case 0: case 1: acc += 1; (falls through) case 2: acc += 2; break; case 5: return; default: acc = 0; }
		&ir.Switch{Selector: Bin(ir.BitAnd, idx, Uint(7)), Cases: []*ir.Case{
			{Values: []int64{0, 1}, Body: ir.Block{&ir.Store{Place: LRef(acc), Value: Bin(ir.Add, Load(LRef(acc)), Uint(1))}}, FallThrough: true},
			{Values: []int64{2}, Body: ir.Block{&ir.Store{Place: LRef(acc), Value: Bin(ir.Add, Load(LRef(acc)), Uint(2))}, &ir.Break{}}},
			{Values: []int64{5}, Body: ir.Block{&ir.Return{}}},
			{Default: true, Body: ir.Block{&ir.Store{Place: LRef(acc), Value: Uint(0)}, &ir.Break{}}},
		}},
		// switch without default whose cases all return: merge is still reachable.
		&ir.Switch{Selector: &ir.Bitcast{X: idx, T: ir.I32}, Cases: []*ir.Case{
			{Values: []int64{-1}, Body: ir.Block{&ir.Return{}}},
		}},
		&ir.Store{Place: LRef(io), Value: Load(LRef(acc))},
		&ir.Store{Place: LRef(acc), Value: &ir.Call{Func: h, Args: []ir.Expr{Load(LRef(acc)), LRef(o), LRef(io)}}},
		&ir.ExprStmt{X: &ir.Call{Func: k}},
		&ir.If{Cond: Bin(ir.Eq, idx, Uint(1000)), Then: ir.Block{&ir.Return{}}, Else: ir.Block{&ir.Return{}}},
		&ir.Store{Place: Elem(out, idx), Value: Load(LRef(acc))}, // dead: both arms returned
	)
	b.Add()
	// The stores above are dead; keep a live store before them by prepending one.
	b.F.Body = append(ir.Block{&ir.Store{Place: Elem(out, idx), Value: Uint(7)}}, b.F.Body...)
	return b
}

func TestControlFlow(t *testing.T) {
	emitValid(t, controlFlow(), Options{})
}

// exprModule exercises every expression kind on several types.
func exprModule() *Builder {
	b := Compute("CSExpr", 64)
	out := b.RWBuffer("Out", v4f, 0, 0)
	tid := b.Input("tid", v3u, ir.BuiltinGlobalInvocationID, 0)
	idx := X(Load(GRef(tid)))
	st := &ir.Struct{Name: "Pair", Fields: []ir.Field{{Name: "a", Type: ir.F32}, {Name: "b", Type: v4i}}}
	b.M.Structs = append(b.M.Structs, st)
	table := b.Global(&ir.Global{Name: "kTable", Type: &ir.Array{Elem: ir.F32, Len: 3}, Space: ir.SpacePrivate, Const: true,
		Init: &ir.Construct{T: &ir.Array{Elem: ir.F32, Len: 3}, Args: []ir.Expr{Float(1), Float(2), Float(3)}}})
	spec := b.Global(&ir.Global{Name: "kSpec", Type: ir.U32, Space: ir.SpacePrivate, Const: true, Spec: true, SpecID: 3, Init: Uint(4)})
	specB := b.Global(&ir.Global{Name: "kFlag", Type: ir.BoolT, Space: ir.SpacePrivate, Const: true, Spec: true, SpecID: 4, Init: ir.ConstBool(true)})
	priv := b.Global(&ir.Global{Name: "gCounter", Type: ir.U32, Space: ir.SpacePrivate, Init: Bin(ir.Add, Load(GRef(spec)), Uint(1))})

	fv := b.Local("fv", v4f)
	iv := b.Local("iv", v4i)
	uv := b.Local("uv", v4u)
	bv := b.Local("bv", v4b)
	m := b.Local("m", ir.Matrix{Elem: ir.F32, Rows: 2, Cols: 3})
	arr := b.Local("arr", &ir.Array{Elem: v4f, Len: 4})
	p := b.Local("p", st)
	f := b.Local("f", ir.F32)
	kinds := []ir.Type{v4f, v4i, v4u}
	locals := []*ir.Local{fv, iv, uv}
	b.Add(
		&ir.Store{Place: LRef(fv), Value: &ir.Construct{T: v4f, Args: []ir.Expr{&ir.Construct{T: v2f, Args: []ir.Expr{Float(1), Float(2)}}, &ir.Convert{X: idx, T: ir.F32}, Float(4)}}},
		&ir.Store{Place: LRef(iv), Value: Splat(Int(-1), 4)},
		&ir.Store{Place: LRef(uv), Value: &ir.Construct{T: v4u, Args: []ir.Expr{idx, idx, Uint(3), Uint(4)}}},
		&ir.Store{Place: LRef(bv), Value: Bin(ir.Lt, Load(LRef(fv)), &ir.Construct{T: v4f, Args: []ir.Expr{Float(2), Float(2), Float(2), Float(2)}})},
	)
	// Arithmetic and comparisons on every numeric kind.
	for i, t := range kinds {
		l := locals[i]
		for _, op := range []ir.BinOp{ir.Add, ir.Sub, ir.MulOp, ir.Div, ir.Rem} {
			b.Add(&ir.Store{Place: LRef(l), Value: Bin(op, Load(LRef(l)), Load(LRef(l)))})
		}
		for _, op := range []ir.BinOp{ir.Eq, ir.Ne, ir.Lt, ir.Le, ir.Gt, ir.Ge} {
			b.Add(&ir.Store{Place: LRef(bv), Value: Bin(op, Load(LRef(l)), Load(LRef(l)))})
		}
		if t != ir.Type(v4f) {
			for _, op := range []ir.BinOp{ir.Shl, ir.Shr, ir.BitAnd, ir.BitOr, ir.BitXor} {
				b.Add(&ir.Store{Place: LRef(l), Value: Bin(op, Load(LRef(l)), Load(LRef(l)))})
			}
			b.Add(&ir.Store{Place: LRef(l), Value: &ir.Unary{Op: ir.BitNot, X: Load(LRef(l))}})
		}
		b.Add(&ir.Store{Place: LRef(l), Value: &ir.Unary{Op: ir.Neg, X: Load(LRef(l))}})
		// Conversions between every kind pair (bool included).
		for j, u := range kinds {
			b.Add(&ir.Store{Place: LRef(locals[j]), Value: &ir.Convert{X: Load(LRef(l)), T: u}})
		}
		b.Add(&ir.Store{Place: LRef(bv), Value: &ir.Convert{X: Load(LRef(l)), T: v4b}})
		b.Add(&ir.Store{Place: LRef(l), Value: &ir.Convert{X: Load(LRef(bv)), T: t}})
		b.Add(&ir.Store{Place: LRef(uv), Value: &ir.Bitcast{X: Load(LRef(l)), T: v4u}})
		// Select with a vector and with a scalar condition.
		b.Add(&ir.Store{Place: LRef(l), Value: &ir.Select{Cond: Load(LRef(bv)), True: Load(LRef(l)), False: Load(LRef(l))}})
		b.Add(&ir.Store{Place: LRef(l), Value: &ir.Select{Cond: X(Load(LRef(bv))), True: Load(LRef(l)), False: Load(LRef(l))}})
	}
	// 64-bit and 16-bit conversions.
	b.Add(&ir.Store{Place: LRef(iv), Value: &ir.Convert{X: &ir.Convert{X: Load(LRef(iv)), T: ir.Vector{Elem: ir.I64, N: 4}}, T: v4i}})
	b.Add(&ir.Store{Place: LRef(uv), Value: &ir.Convert{X: &ir.Convert{X: Load(LRef(iv)), T: ir.Vector{Elem: ir.U64, N: 4}}, T: v4u}})
	b.Add(&ir.Store{Place: LRef(fv), Value: &ir.Convert{X: &ir.Convert{X: Load(LRef(fv)), T: ir.Vector{Elem: ir.F16, N: 4}}, T: v4f}})
	// Bool logic.
	b.Add(
		&ir.Store{Place: LRef(bv), Value: Bin(ir.LogicalAnd, Load(LRef(bv)), &ir.Unary{Op: ir.Not, X: Load(LRef(bv))})},
		&ir.Store{Place: LRef(bv), Value: Bin(ir.LogicalOr, Load(LRef(bv)), Load(LRef(bv)))},
		&ir.Store{Place: LRef(bv), Value: Bin(ir.Eq, Load(LRef(bv)), Load(LRef(bv)))},
		&ir.Store{Place: LRef(bv), Value: Bin(ir.BitXor, Load(LRef(bv)), Load(LRef(bv)))},
	)
	// Swizzles, dynamic indices into vectors/arrays/matrices (places and values), members.
	b.Add(
		&ir.Store{Place: LRef(fv), Value: &ir.Swizzle{Base: Load(LRef(fv)), Comps: []int{3, 2, 1, 0}}},
		&ir.Store{Place: LRef(f), Value: &ir.Index{Base: Load(LRef(fv)), Idx: idx, T: ir.F32}},
		&ir.Store{Place: &ir.Index{Base: LRef(fv), Idx: idx, T: ir.F32}, Value: Load(LRef(f))},
		&ir.Store{Place: &ir.Index{Base: LRef(arr), Idx: idx, T: v4f}, Value: Load(LRef(fv))},
		&ir.Store{Place: LRef(fv), Value: &ir.Index{Base: Load(LRef(arr)), Idx: idx, T: v4f}},
		&ir.Store{Place: LRef(fv), Value: &ir.Index{Base: Load(LRef(arr)), Idx: Uint(2), T: v4f}},
		&ir.Store{Place: LRef(m), Value: &ir.Construct{T: ir.Matrix{Elem: ir.F32, Rows: 2, Cols: 3}, Args: []ir.Expr{
			&ir.Swizzle{Base: Load(LRef(fv)), Comps: []int{0, 1, 2}}, Splat(Load(LRef(f)), 3)}}},
		&ir.Store{Place: LRef(f), Value: &ir.Index{Base: &ir.Index{Base: Load(LRef(m)), Idx: idx, T: ir.Vector{Elem: ir.F32, N: 3}}, Idx: Uint(1), T: ir.F32}},
		&ir.Store{Place: &ir.Index{Base: &ir.Index{Base: LRef(m), Idx: Uint(1), T: ir.Vector{Elem: ir.F32, N: 3}}, Idx: idx, T: ir.F32}, Value: Load(LRef(f))},
		&ir.Store{Place: LRef(m), Value: Bin(ir.Add, Load(LRef(m)), Load(LRef(m)))},
		&ir.Store{Place: LRef(m), Value: &ir.Unary{Op: ir.Neg, X: Load(LRef(m))}},
		&ir.Store{Place: LRef(p), Value: &ir.Construct{T: st, Args: []ir.Expr{Load(LRef(f)), Load(LRef(iv))}}},
		&ir.Store{Place: &ir.Member{Base: LRef(p), Field: 0}, Value: Float(5)},
		&ir.Store{Place: LRef(f), Value: &ir.Member{Base: Load(LRef(p)), Field: 0}},
		&ir.Store{Place: LRef(f), Value: Bin(ir.Add, Load(LRef(f)), &ir.Index{Base: GRef(table), Idx: &ir.Convert{X: &ir.Index{Base: &ir.Member{Base: LRef(p), Field: 1}, Idx: Uint(2), T: ir.I32}, T: ir.U32}, T: ir.F32})},
		&ir.Store{Place: LRef(f), Value: Bin(ir.Add, Load(LRef(f)), &ir.Index{Base: Load(GRef(table)), Idx: Uint(1), T: ir.F32})},
		&ir.Store{Place: LRef(f), Value: &ir.Select{Cond: Load(GRef(specB)), True: Load(LRef(f)), False: &ir.Convert{X: Load(GRef(spec)), T: ir.F32}}},
		&ir.Store{Place: GRef(priv), Value: Bin(ir.Add, Load(GRef(priv)), Uint(1))},
		&ir.Store{Place: Elem(out, idx), Value: Bin(ir.Add, Load(LRef(fv)), Splat(Load(LRef(f)), 4))},
	)
	return b
}

func TestExpressions(t *testing.T) {
	emitValid(t, exprModule(), Options{})
}

// TestPixelStage: pixel inputs (FragCoord, front facing, sample index, flat
// integer location), outputs, discard and derivatives.
func TestPixelStage(t *testing.T) {
	b := Entry("PSMain", ir.Pixel)
	pos := b.Input("pos", v4f, ir.BuiltinPosition, 0)
	ff := b.Input("ff", ir.BoolT, ir.BuiltinFrontFacing, 0)
	si := b.Input("si", ir.U32, ir.BuiltinSampleIndex, 0)
	id := b.Input("id", ir.U32, ir.BuiltinNone, 1)
	id.Flat = true
	uv := b.Input("uv", v2f, ir.BuiltinNone, 0)
	o := b.Output("color", v4f, ir.BuiltinNone, 0)
	b.Add(
		&ir.If{Cond: Load(GRef(ff)), Then: ir.Block{&ir.Discard{}}},
		&ir.If{Cond: Bin(ir.Eq, Load(GRef(si)), Load(GRef(id))), Then: ir.Block{&ir.Discard{}, &ir.Store{Place: GRef(o), Value: Load(GRef(pos))}}},
		&ir.Store{Place: GRef(o), Value: &ir.Construct{T: v4f, Args: []ir.Expr{Load(GRef(uv)), X(Load(GRef(pos))), Float(1)}}},
	)
	mods := emitValid(t, b, Options{})
	for vk, mod := range mods {
		if !hasCap(mod, capSampleRateShading) {
			t.Errorf("vulkan %s: SampleId without SampleRateShading", vk)
		}
	}
}

func hasCap(m *Module, c uint16) bool {
	for _, have := range m.Capabilities {
		if have == c {
			return true
		}
	}
	return false
}

// TestVertexStage: vertex/instance index inputs, a location input, Position output.
func TestVertexStage(t *testing.T) {
	b := Entry("VSMain", ir.Vertex)
	vi := b.Input("vid", ir.U32, ir.BuiltinVertexIndex, 0)
	ii := b.Input("iid", ir.U32, ir.BuiltinInstanceIndex, 0)
	in := b.Input("inPos", v4f, ir.BuiltinNone, 0)
	pos := b.Output("pos", v4f, ir.BuiltinPosition, 0)
	col := b.Output("col", v4f, ir.BuiltinNone, 0)
	b.Add(
		&ir.Store{Place: GRef(pos), Value: Load(GRef(in))},
		&ir.Store{Place: GRef(col), Value: &ir.Construct{T: v4f, Args: []ir.Expr{
			&ir.Convert{X: Load(GRef(vi)), T: ir.F32}, &ir.Convert{X: Load(GRef(ii)), T: ir.F32}, Float(0), Float(1)}}},
	)
	emitValid(t, b, Options{})
}

// entryInterface returns the interface ids of the module's OpEntryPoint.
func entryInterface(w []uint32) []uint32 {
	for i := 5; i < len(w); {
		n, op := int(w[i]>>16), uint16(w[i])
		if n == 0 {
			break
		}
		if op == opEntryPoint {
			// model, function, name (NUL-terminated, padded), then ids
			j := i + 3
			for ; j < i+n; j++ {
				if w[j]>>24 == 0 {
					j++
					break
				}
			}
			return w[j : i+n]
		}
		i += n
	}
	return nil
}

// TestInterfaceByVersion: SPIR-V 1.3 lists only Input/Output variables, 1.4+
// every global the entry point uses (here: tid, the subgroup builtin and Out).
func TestInterfaceByVersion(t *testing.T) {
	b := cssum()
	lane := Intr(intrinsics.WaveGetLaneIndex, ir.U32)
	b.Add(&ir.Store{Place: Elem(b.M.Globals[0], Uint(0)), Value: lane})
	b.Global(&ir.Global{Name: "Unused", Type: &ir.Array{Elem: ir.U32, Stride: 4}, Space: ir.SpaceStorage, Binding: &ir.Binding{Binding: 9}})
	mods := emitValid(t, b, Options{})
	if n := len(entryInterface(mods["1.1"].Words)); n != 2 {
		t.Errorf("SPIR-V 1.3 interface has %d ids, want 2 (tid, SubgroupLocalInvocationId)", n)
	}
	for _, vk := range []string{"1.2", "1.3"} {
		if n := len(entryInterface(mods[vk].Words)); n != 3 {
			t.Errorf("vulkan %s interface has %d ids, want 3 (unused globals excluded)", vk, n)
		}
	}
	if strings.Contains(disassemble(t, mods["1.2"]), "Unused") {
		t.Error("a global the entry point does not use was emitted")
	}
}

// TestPixelWave: wave builtins and reductions in a pixel shader (the subgroup
// builtins are integer fragment inputs and must be Flat).
func TestPixelWave(t *testing.T) {
	b := Entry("PSWave", ir.Pixel)
	o := b.Output("lane", ir.U32, ir.BuiltinNone, 0)
	sum := Intr(intrinsics.WaveActiveSum, ir.U32, Intr(intrinsics.WaveGetLaneIndex, ir.U32))
	b.Add(&ir.Store{Place: GRef(o), Value: Bin(ir.Add, sum, Intr(intrinsics.WaveGetLaneCount, ir.U32))})
	for vk, mod := range emitValid(t, b, Options{}) {
		if mod.SubgroupBits != 0x5 {
			t.Errorf("vulkan %s: bits %#x", vk, mod.SubgroupBits)
		}
	}
}

// TestPrivateInitReadsOtherGlobals: a private global initialized from another
// (non-constant) global is initialized in the entry point's prologue, and the
// global it reads is declared even though no function body names it.
func TestPrivateInitReadsOtherGlobals(t *testing.T) {
	b := Compute("main", 64)
	out := b.RWBuffer("Out", ir.U32, 0, 0)
	seed := b.Global(&ir.Global{Name: "seed", Type: ir.U32, Space: ir.SpacePrivate, Init: Uint(7)})
	derived := b.Global(&ir.Global{Name: "derived", Type: ir.U32, Space: ir.SpacePrivate, Init: Bin(ir.MulOp, Load(GRef(seed)), Uint(3))})
	b.Add(&ir.Store{Place: Elem(out, Uint(0)), Value: Load(GRef(derived))})
	mods := emitValid(t, b, Options{})
	dis := disassemble(t, mods["1.2"])
	for _, want := range []string{"%seed = OpVariable %_ptr_Private_uint Private %uint_7", "OpStore %derived"} {
		if !strings.Contains(dis, want) {
			t.Errorf("missing %q in\n%s", want, dis)
		}
	}
}

// TestConstructShapes: matrices from scalars (constant and not), identity
// constructors and scalar splats all produce valid composites. Sema never
// builds these shapes (ir's invariants rule them out), but the back end takes
// them, so the module skips the IR check.
func TestConstructShapes(t *testing.T) {
	b := Compute("main", 64)
	m22 := ir.Matrix{Elem: ir.F32, Rows: 2, Cols: 2}
	f := b.Local("f", ir.F32)
	m := b.Local("m", m22)
	v := b.Local("v", v4f)
	b.Add(
		&ir.Store{Place: LRef(m), Value: &ir.Construct{T: m22, Args: []ir.Expr{Float(1), Float(2), Float(3), Float(4)}}},
		&ir.Store{Place: LRef(m), Value: &ir.Construct{T: m22, Args: []ir.Expr{Load(LRef(f)), Float(2), Float(3), Load(LRef(f))}}},
		&ir.Store{Place: LRef(v), Value: &ir.Construct{T: v4f, Args: []ir.Expr{Load(LRef(v))}}},
		&ir.Store{Place: LRef(v), Value: &ir.Construct{T: v4f, Args: []ir.Expr{Load(LRef(f))}}},
		&ir.Store{Place: LRef(f), Value: &ir.Construct{T: ir.F32, Args: []ir.Expr{Load(LRef(f))}}},
	)
	emitAll(t, b, Options{})
}

// TestSelectComposites: ?: on matrices, arrays and structs with a scalar
// condition (OpSelect before SPIR-V 1.4 cannot take them).
func TestSelectComposites(t *testing.T) {
	b := Compute("main", 64)
	m22 := ir.Matrix{Elem: ir.F32, Rows: 2, Cols: 2}
	arr := &ir.Array{Elem: ir.U32, Len: 3}
	st := &ir.Struct{Name: "P", Fields: []ir.Field{{Name: "x", Type: ir.F32}}}
	c := b.Local("c", ir.BoolT)
	for _, ty := range []ir.Type{m22, arr, st} {
		l := b.Local("l", ty)
		b.Add(&ir.Store{Place: LRef(l), Value: &ir.Select{Cond: Load(LRef(c)), True: Load(LRef(l)), False: Load(LRef(l))}})
	}
	emitValid(t, b, Options{})
}

// TestContinueFromSwitch: continue and return inside a switch inside a loop,
// and a switch whose default sits between cases.
func TestContinueFromSwitch(t *testing.T) {
	b := Compute("main", 64)
	i := b.Local("i", ir.I32)
	acc := b.Local("acc", ir.I32)
	b.Add(&ir.Loop{
		Body: ir.Block{
			&ir.If{Cond: Bin(ir.Ge, Load(LRef(i)), Int(10)), Then: ir.Block{&ir.Break{}}},
			&ir.Switch{Selector: Load(LRef(i)), Cases: []*ir.Case{
				{Values: []int64{1}, Body: ir.Block{&ir.Continue{}}},
				{Default: true, Body: ir.Block{&ir.Store{Place: LRef(acc), Value: Bin(ir.Add, Load(LRef(acc)), Int(1))}, &ir.Break{}}},
				{Values: []int64{7}, Body: ir.Block{&ir.Return{}}},
				{Values: []int64{3, 4}, Body: ir.Block{&ir.If{Cond: Bin(ir.Eq, Load(LRef(acc)), Int(2)), Then: ir.Block{&ir.Continue{}}}, &ir.Break{}}},
			}},
			&ir.Store{Place: LRef(acc), Value: Bin(ir.MulOp, Load(LRef(acc)), Int(2))},
		},
		Continuing: ir.Block{&ir.Store{Place: LRef(i), Value: Bin(ir.Add, Load(LRef(i)), Int(1))}},
	})
	emitValid(t, b, Options{})
}

// TestControlFlowInContinuing: a selection inside the continue construct
// (sema's lowering of `i++, a && f()` steps) followed by a break-if.
func TestControlFlowInContinuing(t *testing.T) {
	b := Compute("main", 64)
	i := b.Local("i", ir.U32)
	b.Add(&ir.Loop{
		Body: ir.Block{&ir.If{Cond: Bin(ir.Eq, Load(LRef(i)), Uint(5)), Then: ir.Block{&ir.Continue{}}}},
		Continuing: ir.Block{
			&ir.If{Cond: Bin(ir.Lt, Load(LRef(i)), Uint(3)),
				Then: ir.Block{&ir.Store{Place: LRef(i), Value: Bin(ir.Add, Load(LRef(i)), Uint(2))}},
				Else: ir.Block{&ir.Store{Place: LRef(i), Value: Bin(ir.Add, Load(LRef(i)), Uint(1))}}},
		},
		BreakIf: Bin(ir.Gt, Load(LRef(i)), Uint(9)),
	})
	emitValid(t, b, Options{})
}
