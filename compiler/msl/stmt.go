package msl

import (
	"strings"

	"waverig/compiler/diag"
	"waverig/compiler/internal/textgen"
	"waverig/compiler/intrinsics"
	"waverig/compiler/ir"
)

func (e *emitter) block(b ir.Block) {
	for _, s := range b {
		e.stmt(s)
		if isDispatchMesh(s) {
			// SPIR-V's OpEmitMeshTasksEXT ends the invocation: what follows is
			// dead there, so it is not printed, and the function returns.
			e.afterDispatchMesh()
			return
		}
	}
}

// nested prints a braced block one level deeper.
func (e *emitter) nested(head string, b ir.Block) {
	e.lineS(head + " {")
	e.indent++
	e.block(b)
	e.indent--
}

func (e *emitter) stmt(s ir.Stmt) {
	switch s := s.(type) {
	case *ir.Store:
		e.store(s)
	case *ir.ExprStmt:
		if x, ok := isCAS(s.X); ok {
			e.compareExchange(x, nil)
			return
		}
		e.lineS(e.expr(s.X), ";")
	case *ir.If:
		e.nested("if ("+e.expr(s.Cond)+")", s.Then)
		if len(s.Else) > 0 {
			e.line("} else {")
			e.indent++
			e.block(s.Else)
			e.indent--
		}
		e.line("}")
	case *ir.Loop:
		e.loop(s)
	case *ir.Switch:
		e.lineS("switch (", e.expr(s.Selector), ") {")
		sel, _ := ir.ScalarOf(s.Selector.Type())
		for i, c := range s.Cases {
			for _, v := range c.Values {
				e.lineS("case ", e.literal(&ir.Const{T: sel, Bits: uint64(v)}), ":")
			}
			if c.Default {
				e.line("default:")
			}
			e.indent++
			e.line("{")
			e.indent++
			e.block(c.Body)
			e.indent--
			e.line("}")
			// The last case has nothing to fall into; an explicit break keeps the C++ tidy.
			if i == len(s.Cases)-1 && !endsInJump(c.Body) {
				e.line("break;")
			}
			e.indent--
		}
		e.line("}")
	case *ir.Break:
		e.line("break;")
	case *ir.Continue:
		e.line("continue;")
	case *ir.Return:
		switch {
		case e.isEntry:
			e.lineS(e.entryReturn)
		case s.Value != nil:
			e.lineS("return ", e.expr(s.Value), ";")
		default:
			e.line("return;")
		}
	case *ir.Discard:
		e.line("discard_fragment();")
	default:
		e.errorf(e.fn.Pos, diag.ErrMSLMalformedInput, "unknown statement %T", s)
	}
}

func endsInJump(b ir.Block) bool {
	if len(b) == 0 {
		return false
	}
	switch b[len(b)-1].(type) {
	case *ir.Break, *ir.Return, *ir.Continue, *ir.Discard:
		return true
	}
	return false
}

// loop prints an ir.Loop. Without a continuing block it is a plain for(;;). With
// one, a flag set by the for-increment runs the continuing block (and the break-if)
// at the top of every iteration but the first, so `continue` still reaches it.
func (e *emitter) loop(l *ir.Loop) {
	if len(l.Continuing) == 0 && l.BreakIf == nil {
		e.nested("for (;;)", l.Body)
		e.line("}")
		return
	}
	flag := "_wr_c" + textgen.Dec(e.tmp)
	e.tmp++
	e.lineS("for (bool ", flag, " = false;; ", flag, " = true) {")
	e.indent++
	e.lineS("if (", flag, ") {")
	e.indent++
	e.block(l.Continuing)
	if l.BreakIf != nil {
		e.lineS("if (", e.expr(l.BreakIf), ") {")
		e.line("    break;")
		e.line("}")
	}
	e.indent--
	e.line("}")
	e.block(l.Body)
	e.indent--
	e.line("}")
}

// colMajor reports whether a place is a column_major matrix stored in a buffer,
// which Metal holds transposed (see doc.go). Only buffer memory counts: a local
// that happens to carry the laid-out type is an ordinary register matrix.
func colMajor(p ir.Expr) bool {
	m, ok := p.Type().(ir.Matrix)
	return ok && m.Stride != 0 && !m.RowMajor && inBuffer(p)
}

// inBuffer reports whether a place lives in buffer memory (where the laid-out
// representation applies).
func inBuffer(p ir.Expr) bool {
	if !ir.IsPlace(p) {
		return false
	}
	g := ir.RootGlobal(p)
	return g != nil && isResource(g)
}

// paddedArrayPlace reports whether p is a whole fixed-size array in a buffer whose
// elements are wr_strided (it cannot be copied to or from a register array as is).
func paddedArrayPlace(p ir.Expr) (*ir.Array, bool) {
	a, ok := p.Type().(*ir.Array)
	return a, ok && a.Len > 0 && paddedStride(a) && inBuffer(p)
}

// isCAS reports whether x is a compare-exchange, which prints as a loop statement.
func isCAS(x ir.Expr) (*ir.Intrinsic, bool) {
	in, ok := x.(*ir.Intrinsic)
	return in, ok && (in.Op == intrinsics.InterlockedCompareExchange || in.Op == intrinsics.InterlockedCompareStore)
}

func (e *emitter) store(s *ir.Store) {
	place := s.Place
	if x, ok := isCAS(s.Value); ok {
		// sema's form for the original value: store %orig = InterlockedCompareExchange(…).
		e.compareExchange(x, place)
		return
	}
	switch {
	case colMajor(place):
		e.lineS(e.place(place), " = transpose(", e.expr(s.Value), ");")
		return
	}
	if a, ok := paddedArrayPlace(place); ok {
		e.line("{")
		e.indent++
		e.lineS(e.typeName(&ir.Array{Elem: a.Elem, Len: a.Len}), " _wr_arr = ", e.expr(s.Value), ";")
		base := e.place(place)
		for i := 0; i < a.Len; i++ {
			e.lineS(base, "[", textgen.Dec(i), "].v = _wr_arr[", textgen.Dec(i), "];")
		}
		e.indent--
		e.line("}")
		return
	}
	if ix, ok := place.(*ir.Index); ok && colMajor(ix.Base) {
		// A row of a transposed matrix is a column-strided set of elements.
		m := ix.Base.Type().(ir.Matrix)
		e.line("{")
		e.indent++
		e.lineS(e.typeName(s.Value.Type()), " _wr_row = ", e.expr(s.Value), ";")
		e.lineS("int _wr_i = int(", e.expr(ix.Idx), ");")
		base := e.place(ix.Base)
		for j := 0; j < m.Cols; j++ {
			e.lineS(base, "[", textgen.Dec(j), "][_wr_i] = _wr_row[", textgen.Dec(j), "];")
		}
		e.indent--
		e.line("}")
		return
	}
	e.lineS(e.place(place), " = ", e.expr(s.Value), ";")
}

// compareExchange prints InterlockedCompareExchange/CompareStore. Metal only has a
// weak compare-exchange, which may fail spuriously; retrying while the observed
// value still equals the comparand gives HLSL's strong semantics.
//
// The original value goes to target (sema's `store orig = CAS(…)` form) or to an
// out argument Args[3], whichever the IR uses.
func (e *emitter) compareExchange(x *ir.Intrinsic, target ir.Expr) {
	ptr, ok := e.atomicPointer(x)
	if !ok {
		return
	}
	ds, _ := ir.ScalarOf(x.Args[0].Type())
	t := scalarName(ds)
	e.line("{")
	e.indent++
	e.lineS(t, " _wr_cmp = ", e.expr(x.Args[1]), ";")
	e.lineS(t, " _wr_val = ", e.expr(x.Args[2]), ";")
	e.lineS(t, " _wr_old = _wr_cmp;")
	e.lineS("while (!atomic_compare_exchange_weak_explicit(", ptr, ", &_wr_old, _wr_val, memory_order_relaxed, memory_order_relaxed) && _wr_old == _wr_cmp) {")
	e.line("}")
	if target != nil {
		e.lineS(e.place(target), " = _wr_old;")
	} else if x.Op == intrinsics.InterlockedCompareExchange && len(x.Args) > 3 {
		e.lineS(e.place(x.Args[3]), " = _wr_old;")
	}
	e.indent--
	e.line("}")
}

// atomicPointer spells the atomic object an Interlocked* destination names:
// Metal atomics are functions on `device/threadgroup atomic_T*`, so the plain
// buffer element is cast (the layout of atomic_uint is that of uint).
func (e *emitter) atomicPointer(x *ir.Intrinsic) (string, bool) {
	dest := x.Args[0]
	s, _ := ir.ScalarOf(dest.Type())
	if s.Bits == 64 {
		e.errorf(x.Pos, diag.ErrMSLAtomic64, "%s on a 64-bit value (%s): Metal 2.4 has no 64-bit atomics", x.Op, dest.Type())
		return "", false
	}
	space := "device"
	if g := ir.RootGlobal(dest); g != nil && g.Space == ir.SpaceWorkgroup {
		space = "threadgroup"
	} else if g == nil || (g.Space != ir.SpaceStorage) {
		e.errorf(x.Pos, diag.ErrMSLUnsupported, "%s needs a RWStructuredBuffer, RWByteAddressBuffer or groupshared destination", x.Op)
		return "", false
	}
	at := "atomic_uint"
	if s.Kind == ir.Sint {
		at = "atomic_int"
	}
	return "(" + space + " " + at + "*)&" + e.place(dest), true
}

// place spells a place (lvalue). Element (i, j) of a transposed matrix is [j][i].
func (e *emitter) place(x ir.Expr) string {
	switch x := x.(type) {
	case *ir.LocalRef:
		return e.localNames[x.L]
	case *ir.GlobalRef:
		return e.globalNames[x.G]
	case *ir.Index:
		if inner, ok := x.Base.(*ir.Index); ok && colMajor(inner.Base) {
			return e.place(inner.Base) + "[" + e.expr(x.Idx) + "][" + e.expr(inner.Idx) + "]"
		}
		if a, ok := x.Base.Type().(*ir.Array); ok && paddedStride(a) && inBuffer(x.Base) {
			return e.place(x.Base) + "[" + e.expr(x.Idx) + "].v"
		}
		return e.place(x.Base) + "[" + e.expr(x.Idx) + "]"
	case *ir.Member:
		st := x.Base.Type().(*ir.Struct)
		return e.place(x.Base) + "." + fieldName(st.Fields[x.Field].Name, x.Field)
	}
	// Not a place: a value being indexed (e.g. a function result); print it as one.
	return e.expr(x)
}

// load spells a Load: transposed matrices are transposed back, packed vec3s widened.
func (e *emitter) load(p ir.Expr) string {
	if colMajor(p) {
		return "transpose(" + e.place(p) + ")"
	}
	if ix, ok := p.(*ir.Index); ok && colMajor(ix.Base) {
		return "transpose(" + e.place(ix.Base) + ")[" + e.expr(ix.Idx) + "]"
	}
	if a, ok := paddedArrayPlace(p); ok {
		// Unwrap each padded element into a register array.
		base := e.place(p)
		var es []string
		for i := 0; i < a.Len; i++ {
			es = append(es, base+"["+textgen.Dec(i)+"].v")
		}
		return e.typeName(&ir.Array{Elem: a.Elem, Len: a.Len}) + "{{" + callArgs(es) + "}}"
	}
	if packedPlace(p) {
		return e.typeName(p.Type()) + "(" + e.place(p) + ")"
	}
	return e.place(p)
}

// packedPlace reports whether a place is a packed vec3 in memory; Metal converts
// packed_float3 to float3 implicitly, but templates (simd_sum…) would deduce the packed type.
func packedPlace(p ir.Expr) bool {
	switch x := p.(type) {
	case *ir.Member:
		st := x.Base.Type().(*ir.Struct)
		return packedField(st, x.Field)
	case *ir.Index:
		if a, ok := x.Base.Type().(*ir.Array); ok {
			return packedElem(a)
		}
	}
	return false
}

// callArgs joins printed arguments.
func callArgs(as []string) string { return strings.Join(as, ", ") }
