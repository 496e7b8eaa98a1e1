package spirv

import (
	"waverig/compiler/diag"
	"waverig/compiler/ir"
)

// expr emits an expression and returns the id of its value.
func (s *fn) expr(e ir.Expr) uint32 {
	b := s.b
	switch e := e.(type) {
	case *ir.Const:
		return b.constant(e.T, e.Bits)
	case *ir.Load:
		return s.load(e.Place)
	case *ir.LocalRef, *ir.GlobalRef:
		// A bare reference used as a value (resources passed to intrinsics are
		// handled there): read it.
		return s.load(e)
	case *ir.Index:
		if ir.IsPlace(e) {
			return s.load(e)
		}
		return s.indexValue(e)
	case *ir.Member:
		if st, ok := e.Base.Type().(*ir.Struct); !ok || e.Field < 0 || e.Field >= len(st.Fields) {
			b.errorf(b.pos, diag.ErrSpvShape, "member %d of a non-struct or out of range", e.Field)
			return b.constant(ir.U32, 0)
		}
		if ir.IsPlace(e) {
			return s.load(e)
		}
		base := s.expr(e.Base)
		return s.op(opCompositeExtract, b.typeID(e.Type()), base, uint32(e.Field))
	case *ir.Swizzle:
		return s.swizzle(e)
	case *ir.Unary:
		return s.unary(e)
	case *ir.Binary:
		return s.binary(e)
	case *ir.Select:
		return s.selectExpr(e)
	case *ir.Convert:
		return s.convert(s.expr(e.X), e.X.Type(), e.T)
	case *ir.Bitcast:
		x := s.expr(e.X)
		to := b.typeID(e.T)
		if to == b.typeID(e.X.Type()) {
			return x
		}
		return s.op(opBitcast, to, x)
	case *ir.Construct:
		return s.construct(e)
	case *ir.Call:
		return s.call(e)
	case *ir.Intrinsic:
		return s.intrinsic(e)
	case nil:
		b.errorf(b.pos, diag.ErrSpvShape, "missing expression")
		return b.constant(ir.U32, 0)
	}
	b.errorf(b.pos, diag.ErrSpvShape, "unsupported expression %T", e)
	return b.constant(ir.U32, 0)
}

// undef returns a placeholder value of a type after an error was reported.
func (s *fn) undef(t ir.Type) uint32 {
	return s.op(opUndef, s.b.typeID(t))
}

// place returns a pointer to the storage a place denotes, and its storage class.
// Index/Member chains become one OpAccessChain.
func (s *fn) place(e ir.Expr) (ptr, sc uint32, ok bool) {
	b := s.b
	var idx []uint32
	var chain [8]ir.Expr
	path := chain[:0]
	root := e
	for {
		switch x := root.(type) {
		case *ir.Index:
			path = append(path, x)
			root = x.Base
			continue
		case *ir.Member:
			path = append(path, x)
			root = x.Base
			continue
		}
		break
	}
	var base uint32
	switch r := root.(type) {
	case *ir.LocalRef:
		if r.L == nil || r.L.ID < 0 || r.L.ID >= len(s.locals) || s.locals[r.L.ID] == 0 {
			b.errorf(b.pos, diag.ErrSpvShape, "reference to a local that is not in the function")
			return 0, 0, false
		}
		base, sc = s.locals[r.L.ID], scFunction
	case *ir.GlobalRef:
		v := b.global(r.G)
		if v == nil || v.id == 0 {
			b.errorf(b.pos, diag.ErrSpvShape, "global %s has no storage", r.G.Name)
			return 0, 0, false
		}
		base, sc = v.id, v.sc
		if v.wrapped {
			idx = append(idx, b.u32(0))
		}
	default:
		b.errorf(b.pos, diag.ErrSpvShape, "%T is not a place", root)
		return 0, 0, false
	}
	for i := len(path) - 1; i >= 0; i-- {
		switch x := path[i].(type) {
		case *ir.Index:
			idx = append(idx, s.expr(x.Idx))
		case *ir.Member:
			idx = append(idx, b.u32(uint32(x.Field)))
		}
	}
	if len(idx) == 0 {
		return base, sc, true
	}
	ptrT := b.pointerType(sc, s.memType(e, sc))
	return s.op(opAccessChain, ptrT, append([]uint32{base}, idx...)...), sc, true
}

// explicitLayout reports whether a storage class holds explicitly laid-out types.
func explicitLayout(sc uint32) bool {
	return sc == scUniform || sc == scStorageBuffer || sc == scPushConstant
}

// memType is the SPIR-V type of the storage a place denotes.
func (s *fn) memType(e ir.Expr, sc uint32) uint32 {
	return s.b.typeOf(e.Type(), explicitLayout(sc))
}

// load reads a place. Values always have plain types: an aggregate read from a
// buffer block is converted from its explicit-layout form.
func (s *fn) load(p ir.Expr) uint32 {
	b := s.b
	if r, ok := p.(*ir.GlobalRef); ok {
		if v := b.global(r.G); v != nil && v.value != 0 {
			return v.value // constants and specialization constants have no storage to read
		}
	}
	ptr, sc, ok := s.place(p)
	if !ok {
		return s.undef(p.Type())
	}
	rt := s.memType(p, sc)
	if v := s.wholeBlock(p); v != nil {
		rt = v.pointee // a whole cbuffer/push-constant block has its own Block struct type
	}
	v := s.op(opLoad, rt, ptr)
	if explicitLayout(sc) && hasLayout(p.Type()) {
		v = s.relayout(v, p.Type(), false, 0)
	}
	return v
}

// wholeBlock returns the global when a place is an entire (unwrapped) buffer block.
func (s *fn) wholeBlock(p ir.Expr) *gvar {
	if r, ok := p.(*ir.GlobalRef); ok {
		if v := s.b.global(r.G); v != nil && v.pointee != 0 && !v.wrapped && explicitLayout(v.sc) {
			return v
		}
	}
	return nil
}

func (s *fn) store(place, value ir.Expr) {
	v := s.expr(value)
	ptr, sc, ok := s.place(place)
	if !ok {
		return
	}
	var target uint32
	if g := s.wholeBlock(place); g != nil {
		target = g.pointee
	}
	s.storeToType(ptr, sc, place.Type(), v, value.Type(), target)
}

func (s *fn) storeTo(ptr, sc uint32, placeT ir.Type, v uint32, valueT ir.Type) {
	s.storeToType(ptr, sc, placeT, v, valueT, 0)
}

// storeToType stores a value; target, when non-zero, is the exact SPIR-V type of
// the storage (a whole Block struct).
func (s *fn) storeToType(ptr, sc uint32, placeT ir.Type, v uint32, valueT ir.Type, target uint32) {
	v = s.coerce(v, valueT, placeT)
	if explicitLayout(sc) && hasLayout(placeT) {
		v = s.relayout(v, placeT, true, target)
	}
	s.do(opStore, ptr, v)
}

// relayout converts an aggregate between its plain and explicit-layout forms:
// OpCopyLogical from SPIR-V 1.4, member by member before.
func (s *fn) relayout(v uint32, t ir.Type, toExplicit bool, target uint32) uint32 {
	b := s.b
	from, to := b.typeOf(t, !toExplicit), b.typeOf(t, toExplicit)
	if target != 0 {
		to = target
	}
	if from == to {
		return v
	}
	if b.version >= 0x00010400 {
		return s.op(opCopyLogical, to, v)
	}
	var parts []uint32
	switch t := t.(type) {
	case *ir.Struct:
		parts = make([]uint32, len(t.Fields))
		for i, f := range t.Fields {
			parts[i] = s.relayout(s.op(opCompositeExtract, b.typeOf(f.Type, !toExplicit), v, uint32(i)), f.Type, toExplicit, 0)
		}
	case *ir.Array:
		parts = make([]uint32, t.Len)
		for i := range parts {
			parts[i] = s.relayout(s.op(opCompositeExtract, b.typeOf(t.Elem, !toExplicit), v, uint32(i)), t.Elem, toExplicit, 0)
		}
	default:
		return v
	}
	return s.op(opCompositeConstruct, to, parts...)
}

// coerce converts a composite value between IR types that lower to different
// SPIR-V types only because of layout (an array with ArrayStride in a buffer and
// the same array in a local): element by element.
func (s *fn) coerce(v uint32, from, to ir.Type) uint32 {
	b := s.b
	ft, tt := b.typeID(from), b.typeID(to)
	if ft == tt {
		return v
	}
	switch t := to.(type) {
	case ir.Scalar, ir.Vector, ir.Matrix:
		if _, ok := ir.ScalarOf(from); ok {
			return s.convert(v, from, to)
		}
	case *ir.Array:
		f, ok := from.(*ir.Array)
		if !ok || f.Len != t.Len || t.Len == 0 {
			break
		}
		parts := make([]uint32, t.Len)
		for i := range parts {
			e := s.op(opCompositeExtract, b.typeID(f.Elem), v, uint32(i))
			parts[i] = s.coerce(e, f.Elem, t.Elem)
		}
		return s.op(opCompositeConstruct, tt, parts...)
	case *ir.Struct:
		f, ok := from.(*ir.Struct)
		if !ok || len(f.Fields) != len(t.Fields) {
			break
		}
		parts := make([]uint32, len(t.Fields))
		for i := range parts {
			e := s.op(opCompositeExtract, b.typeID(f.Fields[i].Type), v, uint32(i))
			parts[i] = s.coerce(e, f.Fields[i].Type, t.Fields[i].Type)
		}
		return s.op(opCompositeConstruct, tt, parts...)
	}
	b.errorf(b.pos, diag.ErrSpvShape, "cannot convert %v to %v", from, to)
	return v
}

// indexValue indexes a value that is not in memory.
func (s *fn) indexValue(e *ir.Index) uint32 {
	b := s.b
	base := s.expr(e.Base)
	rt := b.typeID(e.T)
	if c, ok := constIndex(e.Idx); ok {
		return s.op(opCompositeExtract, rt, base, uint32(c))
	}
	if _, ok := e.Base.Type().(ir.Vector); ok {
		return s.op(opVectorExtractDyn, rt, base, s.expr(e.Idx))
	}
	// Arrays and matrices need memory for a dynamic index: spill to a temporary.
	tmp := s.newVar(e.Base.Type(), "")
	s.do(opStore, tmp, base)
	ptr := s.op(opAccessChain, b.pointerType(scFunction, rt), tmp, s.expr(e.Idx))
	return s.op(opLoad, rt, ptr)
}

// constIndex returns the value of a constant (possibly converted) integer index.
func constIndex(e ir.Expr) (int64, bool) {
	for {
		switch x := e.(type) {
		case *ir.Const:
			if x.T.Kind == ir.Float {
				return int64(x.Float()), true
			}
			if x.T.Kind == ir.Uint && x.T.Bits == 32 {
				return int64(uint32(x.Bits)), true
			}
			return int64(x.Bits), true
		case *ir.Convert:
			e = x.X
		case *ir.Bitcast:
			e = x.X
		default:
			return 0, false
		}
	}
}

func (s *fn) swizzle(e *ir.Swizzle) uint32 {
	b := s.b
	base := s.expr(e.Base)
	rt := b.typeID(e.Type())
	if _, ok := e.Base.Type().(ir.Vector); !ok {
		// Swizzle of a scalar (x.xxx): replicate.
		if len(e.Comps) == 1 {
			return base
		}
		parts := make([]uint32, len(e.Comps))
		for i := range parts {
			parts[i] = base
		}
		return s.op(opCompositeConstruct, rt, parts...)
	}
	if len(e.Comps) == 1 {
		return s.op(opCompositeExtract, rt, base, uint32(e.Comps[0]))
	}
	ops := make([]uint32, 2, 2+len(e.Comps))
	ops[0], ops[1] = base, base
	for _, c := range e.Comps {
		ops = append(ops, uint32(c))
	}
	return s.op(opVectorShuffle, rt, ops...)
}

func (s *fn) unary(e *ir.Unary) uint32 {
	b := s.b
	if e.X == nil {
		b.errorf(b.pos, diag.ErrSpvShape, "unary %v without an operand", e.Op)
		return b.constant(ir.U32, 0)
	}
	x := s.expr(e.X)
	t := e.X.Type()
	sc, _ := ir.ScalarOf(t)
	rt := b.typeID(t)
	switch e.Op {
	case ir.Neg:
		if m, ok := t.(ir.Matrix); ok {
			return s.perColumn(m, opFNegate, x, 0)
		}
		if sc.Kind == ir.Float {
			return s.op(opFNegate, rt, x)
		}
		return s.op(opSNegate, rt, x)
	case ir.Not:
		if sc.Kind != ir.Bool {
			x = s.toBool(x, t)
			rt = b.typeID(ir.WithScalar(t, ir.BoolT))
		}
		return s.op(opLogicalNot, rt, x)
	case ir.BitNot:
		return s.op(opNot, rt, x)
	}
	b.errorf(b.pos, diag.ErrSpvShape, "unsupported unary operator %v", e.Op)
	return x
}

// perColumn applies a component-wise float operation to each column of a matrix
// (SPIR-V arithmetic does not take matrix operands). y == 0 for unary ops.
func (s *fn) perColumn(m ir.Matrix, code uint16, x, y uint32) uint32 {
	b := s.b
	colT := b.vectorType(ir.F32, m.Cols)
	if m.Elem.Kind == ir.Float {
		colT = b.vectorType(m.Elem, m.Cols)
	}
	cols := make([]uint32, m.Rows)
	for i := range cols {
		cx := s.op(opCompositeExtract, colT, x, uint32(i))
		if y == 0 {
			cols[i] = s.op(code, colT, cx)
		} else {
			cy := s.op(opCompositeExtract, colT, y, uint32(i))
			cols[i] = s.op(code, colT, cx, cy)
		}
	}
	return s.op(opCompositeConstruct, b.typeID(m), cols...)
}

// Opcode per scalar kind (bool, signed, unsigned, float) of each binary operator.
var binOps = [...][4]uint16{
	ir.Add:        {0, opIAdd, opIAdd, opFAdd},
	ir.Sub:        {0, opISub, opISub, opFSub},
	ir.MulOp:      {0, opIMul, opIMul, opFMul},
	ir.Div:        {0, opSDiv, opUDiv, opFDiv},
	ir.Rem:        {0, opSRem, opUMod, opFRem}, // HLSL % truncates: SRem takes the dividend's sign
	ir.Shl:        {0, opShiftLeftLogical, opShiftLeftLogical, 0},
	ir.Shr:        {0, opShiftRightArith, opShiftRightLogical, 0},
	ir.BitAnd:     {opLogicalAnd, opBitwiseAnd, opBitwiseAnd, 0},
	ir.BitOr:      {opLogicalOr, opBitwiseOr, opBitwiseOr, 0},
	ir.BitXor:     {opLogicalNotEqual, opBitwiseXor, opBitwiseXor, 0},
	ir.LogicalAnd: {opLogicalAnd, 0, 0, 0},
	ir.LogicalOr:  {opLogicalOr, 0, 0, 0},
	ir.Eq:         {opLogicalEqual, opIEqual, opIEqual, opFOrdEqual},
	ir.Ne:         {opLogicalNotEqual, opINotEqual, opINotEqual, opFUnordNotEqual},
	ir.Lt:         {0, opSLessThan, opULessThan, opFOrdLessThan},
	ir.Le:         {0, opSLessThanEqual, opULessThanEqual, opFOrdLessThanEqual},
	ir.Gt:         {0, opSGreaterThan, opUGreaterThan, opFOrdGreaterThan},
	ir.Ge:         {0, opSGreaterThanEqual, opUGreaterThanEqual, opFOrdGreaterThanEqual},
}

func (s *fn) binary(e *ir.Binary) uint32 {
	b := s.b
	if e.X == nil || e.Y == nil || e.T == nil {
		b.errorf(b.pos, diag.ErrSpvShape, "binary %v with a missing operand", e.Op)
		return b.constant(ir.U32, 0)
	}
	xt := e.X.Type()
	x, y := s.expr(e.X), s.expr(e.Y)
	sc, _ := ir.ScalarOf(xt)
	if e.Op == ir.LogicalAnd || e.Op == ir.LogicalOr {
		// Operands are bool by the IR rules; convert defensively otherwise.
		if sc.Kind != ir.Bool {
			x, y = s.toBool(x, xt), s.toBool(y, e.Y.Type())
			sc = ir.BoolT
		}
	}
	if int(e.Op) >= len(binOps) {
		b.errorf(b.pos, diag.ErrSpvShape, "unsupported binary operator %d", e.Op)
		return s.undef(e.T)
	}
	code := binOps[e.Op][sc.Kind&3]
	if code == 0 {
		b.errorf(b.pos, diag.ErrSpvShape, "operator %v is not defined on %v", e.Op, xt)
		return s.undef(e.T)
	}
	rt := b.typeID(e.T)
	if m, ok := xt.(ir.Matrix); ok && !e.Op.IsComparison() {
		return s.perColumn(m, code, x, y)
	}
	if e.Op == ir.Shl || e.Op == ir.Shr {
		// HLSL shifts use the low log2(bits) bits of the amount; SPIR-V leaves
		// larger amounts undefined, so mask like DXC.
		yt := e.Y.Type()
		ys, _ := ir.ScalarOf(yt)
		y = s.op(opBitwiseAnd, b.typeID(yt), y, s.splat(yt, b.constant(ys, uint64(sc.Bits-1))))
	}
	return s.op(code, rt, x, y)
}

// splat returns c (a scalar id) replicated to t's shape.
func (s *fn) splat(t ir.Type, c uint32) uint32 {
	v, ok := t.(ir.Vector)
	if !ok {
		return c
	}
	parts := make([]uint32, v.N)
	for i := range parts {
		parts[i] = c
	}
	if s.b.isConst(c) {
		return s.b.compositeConst(s.b.typeID(t), parts)
	}
	return s.op(opCompositeConstruct, s.b.typeID(t), parts...)
}

func (b *builder) isConst(id uint32) bool {
	if b.constIDs != nil {
		return b.constIDs[id]
	}
	for i := range b.consts {
		if b.consts[i].id == id {
			return true
		}
	}
	return false
}

// constSplat is a constant of type t (scalar or vector) with every component c.
func (s *fn) constSplat(t ir.Type, bits uint64) uint32 {
	sc, _ := ir.ScalarOf(t)
	return s.splat(t, s.b.constant(sc, bits))
}

func (s *fn) selectExpr(e *ir.Select) uint32 {
	b := s.b
	c := s.expr(e.Cond)
	x, y := s.expr(e.True), s.expr(e.False)
	rt := b.typeID(e.Type())
	ct := e.Cond.Type()
	if _, scalar := ct.(ir.Scalar); scalar {
		if v, ok := e.Type().(ir.Vector); ok && b.version < 0x00010400 {
			// Before SPIR-V 1.4 the condition must have the result's component count.
			c = s.splat(ir.Vector{Elem: ir.BoolT, N: v.N}, c)
		} else if !ok {
			if _, sc := e.Type().(ir.Scalar); !sc && b.version < 0x00010400 {
				// OpSelect takes composites only from SPIR-V 1.4: branch and
				// store into a temporary (both sides are already evaluated).
				return s.selectByBranch(e.Type(), c, x, y)
			}
		}
	}
	return s.op(opSelect, rt, c, x, y)
}

func (s *fn) selectByBranch(t ir.Type, c, x, y uint32) uint32 {
	b := s.b
	tmp := s.newVar(t, "")
	then, els, merge := b.id(), b.id(), b.id()
	s.do(opSelectionMerge, merge, 0)
	s.term(opBranchConditional, c, then, els)
	s.label(then)
	s.do(opStore, tmp, x)
	s.term(opBranch, merge)
	s.label(els)
	s.do(opStore, tmp, y)
	s.term(opBranch, merge)
	s.label(merge)
	return s.op(opLoad, b.typeID(t), tmp)
}

// toBool compares a numeric value with zero (HLSL's bool conversion).
func (s *fn) toBool(x uint32, t ir.Type) uint32 {
	sc, _ := ir.ScalarOf(t)
	if sc.Kind == ir.Bool {
		return x
	}
	bt := s.b.typeID(ir.WithScalar(t, ir.BoolT))
	zero := s.constSplat(t, 0)
	if sc.Kind == ir.Float {
		return s.op(opFUnordNotEqual, bt, x, zero)
	}
	return s.op(opINotEqual, bt, x, zero)
}

// convert changes scalar kind and/or width component-wise.
func (s *fn) convert(x uint32, from, to ir.Type) uint32 {
	b := s.b
	fs, ok1 := ir.ScalarOf(from)
	ts, ok2 := ir.ScalarOf(to)
	rt := b.typeID(to)
	if !ok1 || !ok2 {
		return s.coerce(x, from, to)
	}
	if b.typeID(from) == rt {
		return x
	}
	if m, ok := to.(ir.Matrix); ok {
		// float matrix width changes, column by column
		fm, _ := from.(ir.Matrix)
		cols := make([]uint32, m.Rows)
		for i := range cols {
			c := s.op(opCompositeExtract, b.vectorType(fm.Elem, fm.Cols), x, uint32(i))
			cols[i] = s.convert(c, ir.Vector{Elem: fm.Elem, N: fm.Cols}, ir.Vector{Elem: m.Elem, N: m.Cols})
		}
		return s.op(opCompositeConstruct, rt, cols...)
	}
	switch {
	case fs.Kind == ir.Bool:
		one := uint64(1)
		if ts.Kind == ir.Float {
			one = ir.ConstFloat(ts, 1).Bits
		}
		return s.op(opSelect, rt, x, s.constSplat(to, one), s.constSplat(to, 0))
	case ts.Kind == ir.Bool:
		return s.toBool(x, from)
	case fs.Kind == ir.Float && ts.Kind == ir.Float:
		return s.op(opFConvert, rt, x)
	case fs.Kind == ir.Float && ts.Kind == ir.Sint:
		return s.op(opConvertFToS, rt, x)
	case fs.Kind == ir.Float:
		return s.op(opConvertFToU, rt, x)
	case ts.Kind == ir.Float && fs.Kind == ir.Sint:
		return s.op(opConvertSToF, rt, x)
	case ts.Kind == ir.Float:
		return s.op(opConvertUToF, rt, x)
	}
	// integer -> integer: change the width keeping the source signedness, then
	// reinterpret the sign.
	if fs.Bits != ts.Bits {
		mid := ir.WithScalar(from, ir.Scalar{Kind: fs.Kind, Bits: ts.Bits})
		code := uint16(opUConvert)
		if fs.Kind == ir.Sint {
			code = opSConvert
		}
		x = s.op(code, b.typeID(mid), x)
		if b.typeID(mid) == rt {
			return x
		}
	}
	return s.op(opBitcast, rt, x)
}

func (s *fn) construct(e *ir.Construct) uint32 {
	b := s.b
	if c := b.constExpr(e); c != 0 {
		return c
	}
	rt := b.typeID(e.T)
	args := make([]uint32, len(e.Args))
	total := 0
	for i, a := range e.Args {
		args[i] = s.expr(a)
		total += max(ir.Components(a.Type()), 1)
	}
	if v, ok := e.T.(ir.Vector); ok && len(args) == 1 && total == 1 {
		// float4(x): replicate the scalar.
		for len(args) < v.N {
			args = append(args, args[0])
		}
	}
	if len(args) == 1 && b.typeID(e.Args[0].Type()) == rt {
		return args[0] // float4(v) of a float4, or a scalar "constructor"
	}
	switch t := e.T.(type) {
	case ir.Matrix:
		if len(args) == t.Rows*t.Cols && t.Cols > 1 {
			// Built from scalars: group them into the rows (SPIR-V columns).
			col := b.vectorType(t.Elem, t.Cols)
			rows := make([]uint32, t.Rows)
			for r := range rows {
				rows[r] = s.op(opCompositeConstruct, col, args[r*t.Cols:(r+1)*t.Cols]...)
			}
			args = rows
		}
	case *ir.Array:
		for i, a := range e.Args {
			args[i] = s.coerce(args[i], a.Type(), t.Elem)
		}
	case *ir.Struct:
		for i, a := range e.Args {
			if i < len(t.Fields) {
				args[i] = s.coerce(args[i], a.Type(), t.Fields[i].Type)
			}
		}
	}
	return s.op(opCompositeConstruct, rt, args...)
}

func (s *fn) call(e *ir.Call) uint32 {
	b := s.b
	b.pos = e.Pos
	if e.Func == nil || len(e.Args) != len(e.Func.Params) {
		b.errorf(e.Pos, diag.ErrSpvShape, "call with a wrong number of arguments")
		return s.undef(ir.U32)
	}
	fid := b.funcID(e.Func)
	args := make([]uint32, len(e.Args))
	for i, a := range e.Args {
		p := e.Func.Params[i]
		if p.Dir == ir.In {
			args[i] = s.coerce(s.expr(a), a.Type(), p.Local.Type)
			continue
		}
		// out/inout arguments are LocalRefs of Function temporaries (IR invariant).
		ptr, sc, ok := s.place(a)
		if !ok {
			continue
		}
		if _, local := a.(*ir.LocalRef); !local || sc != scFunction {
			b.errorf(e.Pos, diag.ErrSpvShape, "out argument %d of %s is not a local variable", i, e.Func.Name)
		}
		args[i] = ptr
	}
	return s.op(opFunctionCall, b.typeID(e.Func.Result), append([]uint32{fid}, args...)...)
}
