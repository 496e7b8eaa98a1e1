package spirv

import (
	"strings"
	"testing"

	"waverig/compiler/intrinsics"
	"waverig/compiler/ir"
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
func controlFlow() *mb {
	b := newModule(ir.Compute, "CSFlow")
	out := b.rwBuffer("Out", ir.U32, 0)
	tid := b.input("tid", v3u, ir.BuiltinGlobalInvocationID, 0)

	// uint helper(uint a, out uint o, inout uint io) { o = a * 2; io += a; if (a > 10) return a; return io; }
	h := &ir.Function{Name: "helper", Result: ir.U32}
	pa, po, pio := h.NewLocal("a", ir.U32), h.NewLocal("o", ir.U32), h.NewLocal("io", ir.U32)
	h.Params = []ir.Param{{Local: pa, Dir: ir.In}, {Local: po, Dir: ir.Out}, {Local: pio, Dir: ir.InOut}}
	h.Body = ir.Block{
		&ir.Store{Place: lref(po), Value: bin(ir.MulOp, load(lref(pa)), u32c(2))},
		&ir.Store{Place: lref(pio), Value: bin(ir.Add, load(lref(pio)), load(lref(pa)))},
		&ir.If{Cond: bin(ir.Gt, load(lref(pa)), u32c(10)), Then: ir.Block{&ir.Return{Value: load(lref(pa))}}},
		&ir.Return{Value: load(lref(pio))},
		&ir.Store{Place: lref(po), Value: u32c(99)}, // dead
	}
	b.m.Functions = append([]*ir.Function{h}, b.m.Functions...)

	// void kill() with a loop that only leaves by return.
	k := &ir.Function{Name: "spin", Result: ir.Void{}}
	kc := k.NewLocal("c", ir.U32)
	k.Body = ir.Block{&ir.Loop{Body: ir.Block{
		&ir.Store{Place: lref(kc), Value: bin(ir.Add, load(lref(kc)), u32c(1))},
		&ir.If{Cond: bin(ir.Ge, load(lref(kc)), u32c(4)), Then: ir.Block{&ir.Return{}}},
	}}}
	b.m.Functions = append([]*ir.Function{k}, b.m.Functions...)

	i := b.local("i", ir.U32)
	j := b.local("j", ir.U32)
	acc := b.local("acc", ir.U32)
	o, io := b.local("o", ir.U32), b.local("io", ir.U32)
	idx := x(load(gref(tid)))
	b.add(
		&ir.Store{Place: lref(acc), Value: u32c(0)},
		&ir.Store{Place: lref(i), Value: u32c(0)},
		// for (i = 0; i < 8; i++) { if (i == 3) continue; for (j = 0; ; j++) { if (j > i) break; acc += j; } if (acc > 100) break; }
		&ir.Loop{
			Body: ir.Block{
				&ir.If{Cond: &ir.Unary{Op: ir.Not, X: bin(ir.Lt, load(lref(i)), u32c(8))}, Then: ir.Block{&ir.Break{}}},
				&ir.If{Cond: bin(ir.Eq, load(lref(i)), u32c(3)), Then: ir.Block{&ir.Continue{}}},
				&ir.Store{Place: lref(j), Value: u32c(0)},
				&ir.Loop{
					Body: ir.Block{
						&ir.If{Cond: bin(ir.Gt, load(lref(j)), load(lref(i))), Then: ir.Block{&ir.Break{}}, Else: ir.Block{
							&ir.Store{Place: lref(acc), Value: bin(ir.Add, load(lref(acc)), load(lref(j)))}}},
					},
					Continuing: ir.Block{&ir.Store{Place: lref(j), Value: bin(ir.Add, load(lref(j)), u32c(1))}},
				},
				&ir.If{Cond: bin(ir.Gt, load(lref(acc)), u32c(100)), Then: ir.Block{&ir.Break{}, &ir.Continue{}}},
			},
			Continuing: ir.Block{&ir.Store{Place: lref(i), Value: bin(ir.Add, load(lref(i)), u32c(1))}},
		},
		// [unroll] do { acc--; } while (acc > 50);
		&ir.Loop{Body: ir.Block{&ir.Store{Place: lref(acc), Value: bin(ir.Sub, load(lref(acc)), u32c(1))}},
			BreakIf: &ir.Unary{Op: ir.Not, X: bin(ir.Gt, load(lref(acc)), u32c(50))}, Unroll: true},
		// switch (tid.x & 7) { case 0: case 1: acc += 1; (falls through) case 2: acc += 2; break; case 5: return; default: acc = 0; }
		&ir.Switch{Selector: bin(ir.BitAnd, idx, u32c(7)), Cases: []*ir.Case{
			{Values: []int64{0, 1}, Body: ir.Block{&ir.Store{Place: lref(acc), Value: bin(ir.Add, load(lref(acc)), u32c(1))}}, FallThrough: true},
			{Values: []int64{2}, Body: ir.Block{&ir.Store{Place: lref(acc), Value: bin(ir.Add, load(lref(acc)), u32c(2))}, &ir.Break{}}},
			{Values: []int64{5}, Body: ir.Block{&ir.Return{}}},
			{Default: true, Body: ir.Block{&ir.Store{Place: lref(acc), Value: u32c(0)}, &ir.Break{}}},
		}},
		// switch without default whose cases all return: merge is still reachable.
		&ir.Switch{Selector: &ir.Bitcast{X: idx, T: ir.I32}, Cases: []*ir.Case{
			{Values: []int64{-1}, Body: ir.Block{&ir.Return{}}},
		}},
		&ir.Store{Place: lref(io), Value: load(lref(acc))},
		&ir.Store{Place: lref(acc), Value: &ir.Call{Func: h, Args: []ir.Expr{load(lref(acc)), lref(o), lref(io)}}},
		&ir.ExprStmt{X: &ir.Call{Func: k}},
		&ir.If{Cond: bin(ir.Eq, idx, u32c(1000)), Then: ir.Block{&ir.Return{}}, Else: ir.Block{&ir.Return{}}},
		&ir.Store{Place: elem(out, idx), Value: load(lref(acc))}, // dead: both arms returned
	)
	b.add()
	// The stores above are dead; keep a live store before them by prepending one.
	b.f.Body = append(ir.Block{&ir.Store{Place: elem(out, idx), Value: u32c(7)}}, b.f.Body...)
	return b
}

func TestControlFlow(t *testing.T) {
	emitValid(t, controlFlow(), Options{})
}

// exprModule exercises every expression kind on several types.
func exprModule() *mb {
	b := newModule(ir.Compute, "CSExpr")
	out := b.rwBuffer("Out", v4f, 0)
	tid := b.input("tid", v3u, ir.BuiltinGlobalInvocationID, 0)
	idx := x(load(gref(tid)))
	st := &ir.Struct{Name: "Pair", Fields: []ir.Field{{Name: "a", Type: ir.F32}, {Name: "b", Type: v4i}}}
	b.m.Structs = append(b.m.Structs, st)
	table := b.global(&ir.Global{Name: "kTable", Type: &ir.Array{Elem: ir.F32, Len: 3}, Space: ir.SpacePrivate, Const: true,
		Init: &ir.Construct{T: &ir.Array{Elem: ir.F32, Len: 3}, Args: []ir.Expr{f32c(1), f32c(2), f32c(3)}}})
	spec := b.global(&ir.Global{Name: "kSpec", Type: ir.U32, Space: ir.SpacePrivate, Const: true, Spec: true, SpecID: 3, Init: u32c(4)})
	specB := b.global(&ir.Global{Name: "kFlag", Type: ir.BoolT, Space: ir.SpacePrivate, Const: true, Spec: true, SpecID: 4, Init: ir.ConstBool(true)})
	priv := b.global(&ir.Global{Name: "gCounter", Type: ir.U32, Space: ir.SpacePrivate, Init: bin(ir.Add, load(gref(spec)), u32c(1))})

	fv := b.local("fv", v4f)
	iv := b.local("iv", v4i)
	uv := b.local("uv", v4u)
	bv := b.local("bv", v4b)
	m := b.local("m", ir.Matrix{Elem: ir.F32, Rows: 2, Cols: 3})
	arr := b.local("arr", &ir.Array{Elem: v4f, Len: 4})
	p := b.local("p", st)
	f := b.local("f", ir.F32)
	kinds := []ir.Type{v4f, v4i, v4u}
	locals := []*ir.Local{fv, iv, uv}
	b.add(
		&ir.Store{Place: lref(fv), Value: &ir.Construct{T: v4f, Args: []ir.Expr{&ir.Construct{T: v2f, Args: []ir.Expr{f32c(1), f32c(2)}}, &ir.Convert{X: idx, T: ir.F32}, f32c(4)}}},
		&ir.Store{Place: lref(iv), Value: &ir.Construct{T: v4i, Args: []ir.Expr{i32c(-1)}}},
		&ir.Store{Place: lref(uv), Value: &ir.Construct{T: v4u, Args: []ir.Expr{idx, idx, u32c(3), u32c(4)}}},
		&ir.Store{Place: lref(bv), Value: bin(ir.Lt, load(lref(fv)), &ir.Construct{T: v4f, Args: []ir.Expr{f32c(2), f32c(2), f32c(2), f32c(2)}})},
	)
	// Arithmetic and comparisons on every numeric kind.
	for i, t := range kinds {
		l := locals[i]
		for _, op := range []ir.BinOp{ir.Add, ir.Sub, ir.MulOp, ir.Div, ir.Rem} {
			b.add(&ir.Store{Place: lref(l), Value: bin(op, load(lref(l)), load(lref(l)))})
		}
		for _, op := range []ir.BinOp{ir.Eq, ir.Ne, ir.Lt, ir.Le, ir.Gt, ir.Ge} {
			b.add(&ir.Store{Place: lref(bv), Value: bin(op, load(lref(l)), load(lref(l)))})
		}
		if t != ir.Type(v4f) {
			for _, op := range []ir.BinOp{ir.Shl, ir.Shr, ir.BitAnd, ir.BitOr, ir.BitXor} {
				b.add(&ir.Store{Place: lref(l), Value: bin(op, load(lref(l)), load(lref(l)))})
			}
			b.add(&ir.Store{Place: lref(l), Value: &ir.Unary{Op: ir.BitNot, X: load(lref(l))}})
		}
		b.add(&ir.Store{Place: lref(l), Value: &ir.Unary{Op: ir.Neg, X: load(lref(l))}})
		// Conversions between every kind pair (bool included).
		for j, u := range kinds {
			b.add(&ir.Store{Place: lref(locals[j]), Value: &ir.Convert{X: load(lref(l)), T: u}})
		}
		b.add(&ir.Store{Place: lref(bv), Value: &ir.Convert{X: load(lref(l)), T: v4b}})
		b.add(&ir.Store{Place: lref(l), Value: &ir.Convert{X: load(lref(bv)), T: t}})
		b.add(&ir.Store{Place: lref(uv), Value: &ir.Bitcast{X: load(lref(l)), T: v4u}})
		// Select with a vector and with a scalar condition.
		b.add(&ir.Store{Place: lref(l), Value: &ir.Select{Cond: load(lref(bv)), True: load(lref(l)), False: load(lref(l))}})
		b.add(&ir.Store{Place: lref(l), Value: &ir.Select{Cond: x(load(lref(bv))), True: load(lref(l)), False: load(lref(l))}})
	}
	// 64-bit and 16-bit conversions.
	b.add(&ir.Store{Place: lref(iv), Value: &ir.Convert{X: &ir.Convert{X: load(lref(iv)), T: ir.Vector{Elem: ir.I64, N: 4}}, T: v4i}})
	b.add(&ir.Store{Place: lref(uv), Value: &ir.Convert{X: &ir.Convert{X: load(lref(iv)), T: ir.Vector{Elem: ir.U64, N: 4}}, T: v4u}})
	b.add(&ir.Store{Place: lref(fv), Value: &ir.Convert{X: &ir.Convert{X: load(lref(fv)), T: ir.Vector{Elem: ir.F16, N: 4}}, T: v4f}})
	// Bool logic.
	b.add(
		&ir.Store{Place: lref(bv), Value: bin(ir.LogicalAnd, load(lref(bv)), &ir.Unary{Op: ir.Not, X: load(lref(bv))})},
		&ir.Store{Place: lref(bv), Value: bin(ir.LogicalOr, load(lref(bv)), load(lref(bv)))},
		&ir.Store{Place: lref(bv), Value: bin(ir.Eq, load(lref(bv)), load(lref(bv)))},
		&ir.Store{Place: lref(bv), Value: bin(ir.BitXor, load(lref(bv)), load(lref(bv)))},
	)
	// Swizzles, dynamic indices into vectors/arrays/matrices (places and values), members.
	b.add(
		&ir.Store{Place: lref(fv), Value: &ir.Swizzle{Base: load(lref(fv)), Comps: []int{3, 2, 1, 0}}},
		&ir.Store{Place: lref(f), Value: &ir.Index{Base: load(lref(fv)), Idx: idx, T: ir.F32}},
		&ir.Store{Place: &ir.Index{Base: lref(fv), Idx: idx, T: ir.F32}, Value: load(lref(f))},
		&ir.Store{Place: &ir.Index{Base: lref(arr), Idx: idx, T: v4f}, Value: load(lref(fv))},
		&ir.Store{Place: lref(fv), Value: &ir.Index{Base: load(lref(arr)), Idx: idx, T: v4f}},
		&ir.Store{Place: lref(fv), Value: &ir.Index{Base: load(lref(arr)), Idx: u32c(2), T: v4f}},
		&ir.Store{Place: lref(m), Value: &ir.Construct{T: ir.Matrix{Elem: ir.F32, Rows: 2, Cols: 3}, Args: []ir.Expr{
			&ir.Swizzle{Base: load(lref(fv)), Comps: []int{0, 1, 2}}, &ir.Swizzle{Base: load(lref(f)), Comps: []int{0, 0, 0}}}}},
		&ir.Store{Place: lref(f), Value: &ir.Index{Base: &ir.Index{Base: load(lref(m)), Idx: idx, T: ir.Vector{Elem: ir.F32, N: 3}}, Idx: u32c(1), T: ir.F32}},
		&ir.Store{Place: &ir.Index{Base: &ir.Index{Base: lref(m), Idx: u32c(1), T: ir.Vector{Elem: ir.F32, N: 3}}, Idx: idx, T: ir.F32}, Value: load(lref(f))},
		&ir.Store{Place: lref(m), Value: bin(ir.Add, load(lref(m)), load(lref(m)))},
		&ir.Store{Place: lref(m), Value: &ir.Unary{Op: ir.Neg, X: load(lref(m))}},
		&ir.Store{Place: lref(p), Value: &ir.Construct{T: st, Args: []ir.Expr{load(lref(f)), load(lref(iv))}}},
		&ir.Store{Place: &ir.Member{Base: lref(p), Field: 0}, Value: f32c(5)},
		&ir.Store{Place: lref(f), Value: &ir.Member{Base: load(lref(p)), Field: 0}},
		&ir.Store{Place: lref(f), Value: bin(ir.Add, load(lref(f)), &ir.Index{Base: gref(table), Idx: &ir.Convert{X: &ir.Index{Base: &ir.Member{Base: lref(p), Field: 1}, Idx: u32c(2), T: ir.I32}, T: ir.U32}, T: ir.F32})},
		&ir.Store{Place: lref(f), Value: bin(ir.Add, load(lref(f)), &ir.Index{Base: load(gref(table)), Idx: u32c(1), T: ir.F32})},
		&ir.Store{Place: lref(f), Value: &ir.Select{Cond: load(gref(specB)), True: load(lref(f)), False: &ir.Convert{X: load(gref(spec)), T: ir.F32}}},
		&ir.Store{Place: gref(priv), Value: bin(ir.Add, load(gref(priv)), u32c(1))},
		&ir.Store{Place: elem(out, idx), Value: bin(ir.Add, load(lref(fv)), &ir.Construct{T: v4f, Args: []ir.Expr{load(lref(f))}})},
	)
	return b
}

func TestExpressions(t *testing.T) {
	emitValid(t, exprModule(), Options{})
}

// TestPixelStage: pixel inputs (FragCoord, front facing, sample index, flat
// integer location), outputs, discard and derivatives.
func TestPixelStage(t *testing.T) {
	b := newModule(ir.Pixel, "PSMain")
	pos := b.input("pos", v4f, ir.BuiltinPosition, 0)
	ff := b.input("ff", ir.BoolT, ir.BuiltinFrontFacing, 0)
	si := b.input("si", ir.U32, ir.BuiltinSampleIndex, 0)
	id := b.input("id", ir.U32, ir.BuiltinNone, 1)
	id.Flat = true
	uv := b.input("uv", v2f, ir.BuiltinNone, 0)
	o := b.output("color", v4f, ir.BuiltinNone, 0)
	b.add(
		&ir.If{Cond: load(gref(ff)), Then: ir.Block{&ir.Discard{}}},
		&ir.If{Cond: bin(ir.Eq, load(gref(si)), load(gref(id))), Then: ir.Block{&ir.Discard{}, &ir.Store{Place: gref(o), Value: load(gref(pos))}}},
		&ir.Store{Place: gref(o), Value: &ir.Construct{T: v4f, Args: []ir.Expr{load(gref(uv)), x(load(gref(pos))), f32c(1)}}},
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
	b := newModule(ir.Vertex, "VSMain")
	vi := b.input("vid", ir.U32, ir.BuiltinVertexIndex, 0)
	ii := b.input("iid", ir.U32, ir.BuiltinInstanceIndex, 0)
	in := b.input("inPos", v4f, ir.BuiltinNone, 0)
	pos := b.output("pos", v4f, ir.BuiltinPosition, 0)
	col := b.output("col", v4f, ir.BuiltinNone, 0)
	b.add(
		&ir.Store{Place: gref(pos), Value: load(gref(in))},
		&ir.Store{Place: gref(col), Value: &ir.Construct{T: v4f, Args: []ir.Expr{
			&ir.Convert{X: load(gref(vi)), T: ir.F32}, &ir.Convert{X: load(gref(ii)), T: ir.F32}, f32c(0), f32c(1)}}},
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
	lane := intr(intrinsics.WaveGetLaneIndex, ir.U32)
	b.add(&ir.Store{Place: elem(b.m.Globals[0], u32c(0)), Value: lane})
	b.global(&ir.Global{Name: "Unused", Type: &ir.Array{Elem: ir.U32, Stride: 4}, Space: ir.SpaceStorage, Binding: &ir.Binding{Binding: 9}})
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
	b := newModule(ir.Pixel, "PSWave")
	o := b.output("lane", ir.U32, ir.BuiltinNone, 0)
	sum := intr(intrinsics.WaveActiveSum, ir.U32, intr(intrinsics.WaveGetLaneIndex, ir.U32))
	b.add(&ir.Store{Place: gref(o), Value: bin(ir.Add, sum, intr(intrinsics.WaveGetLaneCount, ir.U32))})
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
	b := newModule(ir.Compute, "main")
	out := b.rwBuffer("Out", ir.U32, 0)
	seed := b.global(&ir.Global{Name: "seed", Type: ir.U32, Space: ir.SpacePrivate, Init: u32c(7)})
	derived := b.global(&ir.Global{Name: "derived", Type: ir.U32, Space: ir.SpacePrivate, Init: bin(ir.MulOp, load(gref(seed)), u32c(3))})
	b.add(&ir.Store{Place: elem(out, u32c(0)), Value: load(gref(derived))})
	mods := emitValid(t, b, Options{})
	dis := disassemble(t, mods["1.2"])
	for _, want := range []string{"%seed = OpVariable %_ptr_Private_uint Private %uint_7", "OpStore %derived"} {
		if !strings.Contains(dis, want) {
			t.Errorf("missing %q in\n%s", want, dis)
		}
	}
}

// TestConstructShapes: matrices from scalars (constant and not), identity
// constructors and scalar splats all produce valid composites.
func TestConstructShapes(t *testing.T) {
	b := newModule(ir.Compute, "main")
	m22 := ir.Matrix{Elem: ir.F32, Rows: 2, Cols: 2}
	f := b.local("f", ir.F32)
	m := b.local("m", m22)
	v := b.local("v", v4f)
	b.add(
		&ir.Store{Place: lref(m), Value: &ir.Construct{T: m22, Args: []ir.Expr{f32c(1), f32c(2), f32c(3), f32c(4)}}},
		&ir.Store{Place: lref(m), Value: &ir.Construct{T: m22, Args: []ir.Expr{load(lref(f)), f32c(2), f32c(3), load(lref(f))}}},
		&ir.Store{Place: lref(v), Value: &ir.Construct{T: v4f, Args: []ir.Expr{load(lref(v))}}},
		&ir.Store{Place: lref(v), Value: &ir.Construct{T: v4f, Args: []ir.Expr{load(lref(f))}}},
		&ir.Store{Place: lref(f), Value: &ir.Construct{T: ir.F32, Args: []ir.Expr{load(lref(f))}}},
	)
	emitValid(t, b, Options{})
}

// TestSelectComposites: ?: on matrices, arrays and structs with a scalar
// condition (OpSelect before SPIR-V 1.4 cannot take them).
func TestSelectComposites(t *testing.T) {
	b := newModule(ir.Compute, "main")
	m22 := ir.Matrix{Elem: ir.F32, Rows: 2, Cols: 2}
	arr := &ir.Array{Elem: ir.U32, Len: 3}
	st := &ir.Struct{Name: "P", Fields: []ir.Field{{Name: "x", Type: ir.F32}}}
	c := b.local("c", ir.BoolT)
	for _, ty := range []ir.Type{m22, arr, st} {
		l := b.local("l", ty)
		b.add(&ir.Store{Place: lref(l), Value: &ir.Select{Cond: load(lref(c)), True: load(lref(l)), False: load(lref(l))}})
	}
	emitValid(t, b, Options{})
}

// TestContinueFromSwitch: continue and return inside a switch inside a loop,
// and a switch whose default sits between cases.
func TestContinueFromSwitch(t *testing.T) {
	b := newModule(ir.Compute, "main")
	i := b.local("i", ir.I32)
	acc := b.local("acc", ir.I32)
	b.add(&ir.Loop{
		Body: ir.Block{
			&ir.If{Cond: bin(ir.Ge, load(lref(i)), i32c(10)), Then: ir.Block{&ir.Break{}}},
			&ir.Switch{Selector: load(lref(i)), Cases: []*ir.Case{
				{Values: []int64{1}, Body: ir.Block{&ir.Continue{}}},
				{Default: true, Body: ir.Block{&ir.Store{Place: lref(acc), Value: bin(ir.Add, load(lref(acc)), i32c(1))}, &ir.Break{}}},
				{Values: []int64{7}, Body: ir.Block{&ir.Return{}}},
				{Values: []int64{3, 4}, Body: ir.Block{&ir.If{Cond: bin(ir.Eq, load(lref(acc)), i32c(2)), Then: ir.Block{&ir.Continue{}}}, &ir.Break{}}},
			}},
			&ir.Store{Place: lref(acc), Value: bin(ir.MulOp, load(lref(acc)), i32c(2))},
		},
		Continuing: ir.Block{&ir.Store{Place: lref(i), Value: bin(ir.Add, load(lref(i)), i32c(1))}},
	})
	emitValid(t, b, Options{})
}

// TestControlFlowInContinuing: a selection inside the continue construct
// (sema's lowering of `i++, a && f()` steps) followed by a break-if.
func TestControlFlowInContinuing(t *testing.T) {
	b := newModule(ir.Compute, "main")
	i := b.local("i", ir.U32)
	b.add(&ir.Loop{
		Body: ir.Block{&ir.If{Cond: bin(ir.Eq, load(lref(i)), u32c(5)), Then: ir.Block{&ir.Continue{}}}},
		Continuing: ir.Block{
			&ir.If{Cond: bin(ir.Lt, load(lref(i)), u32c(3)),
				Then: ir.Block{&ir.Store{Place: lref(i), Value: bin(ir.Add, load(lref(i)), u32c(2))}},
				Else: ir.Block{&ir.Store{Place: lref(i), Value: bin(ir.Add, load(lref(i)), u32c(1))}}},
		},
		BreakIf: bin(ir.Gt, load(lref(i)), u32c(9)),
	})
	emitValid(t, b, Options{})
}
