package sema

import (
	"strings"

	"waverig/compiler/diag"
	"waverig/compiler/ir"
	"waverig/compiler/syntax"
)

// expr checks an expression. Side effects inside it (assignments, ++, calls with
// out arguments) are emitted as statements into the current block first.
func (c *checker) expr(e syntax.Expr) operand {
	switch e := e.(type) {
	case *syntax.Literal:
		return c.literal(e)
	case *syntax.ParenExpr:
		return c.expr(e.X)
	case *syntax.Ident:
		return c.ident(e)
	case *syntax.UnaryExpr:
		return c.unary(e)
	case *syntax.PostfixExpr:
		return c.incDec(e.X, e.Op, e.Pos, true, false)
	case *syntax.BinaryExpr:
		return c.binary(e)
	case *syntax.AssignExpr:
		return c.assign(e)
	case *syntax.CondExpr:
		return c.ternary(e)
	case *syntax.CallExpr:
		return c.call(e)
	case *syntax.MethodCall:
		return c.methodCall(e)
	case *syntax.SelectorExpr:
		return c.selector(e)
	case *syntax.IndexExpr:
		return c.index(e)
	case *syntax.CastExpr:
		return c.cast(e)
	case *syntax.TypeName:
		c.errorf(e.Pos, diag.ErrTypeMismatch, "type %s used as a value", e.Type.Name)
	case *syntax.InitList:
		c.errorf(e.Pos, diag.ErrTypeMismatch, "an initializer list is only allowed in a variable initializer")
	case nil:
	default:
		c.errorf(e.P(), diag.ErrTypeMismatch, "unsupported expression")
	}
	return bad
}

// rvalue checks e and returns its value.
func (c *checker) rvalue(e syntax.Expr) (ir.Expr, operand) {
	o := c.expr(e)
	if !o.ok() {
		return nil, o
	}
	if _, ok := o.t.(ir.Void); ok {
		c.errorf(e.P(), diag.ErrTypeMismatch, "a void expression has no value")
		return nil, bad
	}
	return c.value(o), o
}

// exprTo checks e and converts it to want.
func (c *checker) exprTo(e syntax.Expr, want ir.Type) ir.Expr {
	o := c.expr(e)
	if !o.ok() {
		return nil
	}
	if _, ok := o.t.(ir.Void); ok {
		c.errorf(e.P(), diag.ErrTypeMismatch, "a void expression has no value")
		return nil
	}
	return c.convert(o, want, e.P(), false)
}

// condition checks a branch or loop condition: a scalar converted to bool.
func (c *checker) condition(e syntax.Expr) ir.Expr {
	o := c.expr(e)
	if !o.ok() {
		return nil
	}
	if shapeOf(o.t) != 0 {
		if shapeOf(o.t) == 1 {
			c.errorf(e.P(), diag.ErrTypeMismatch, "condition must be a scalar, not %s; use any() or all()", typeName(o.t))
		} else {
			c.errorf(e.P(), diag.ErrTypeMismatch, "condition must be a scalar, not %s", typeName(o.t))
		}
		return nil
	}
	return c.convert(o, ir.BoolT, e.P(), true)
}

func (c *checker) ident(e *syntax.Ident) operand {
	sym := c.scope.lookup(e.Name)
	if sym == nil {
		c.errorf(e.Pos, diag.ErrUnknownIdent, "unknown identifier %q", e.Name)
		return bad
	}
	switch sym.kind {
	case symLocal:
		return operand{kind: opPlace, e: &ir.LocalRef{L: sym.local}, t: sym.typ, readOnly: sym.readOnly, pos: e.Pos}
	case symGlobal:
		if sym.res != nil {
			return operand{kind: opResource, g: sym.global, res: sym.res, t: ir.Void{}, readOnly: sym.readOnly, pos: e.Pos}
		}
		if sym.constVal != nil && !sym.global.Spec {
			// static const scalars are folded where they are used.
			return valueOp(sym.constVal, sym.typ, e.Pos)
		}
		return operand{kind: opPlace, e: &ir.GlobalRef{G: sym.global}, t: sym.typ, readOnly: sym.readOnly, pos: e.Pos}
	case symCBufMember:
		return operand{kind: opPlace, e: &ir.Member{Base: &ir.GlobalRef{G: sym.global}, Field: sym.field}, t: sym.typ, readOnly: true, pos: e.Pos}
	case symType:
		c.errorf(e.Pos, diag.ErrTypeMismatch, "type %q used as a value", e.Name)
	case symFunc:
		c.errorf(e.Pos, diag.ErrTypeMismatch, "function %q used as a value; call it", e.Name)
	}
	return bad
}

func binOps(s string) (ir.BinOp, bool) {
	switch s {
	case "+":
		return ir.Add, true
	case "-":
		return ir.Sub, true
	case "*":
		return ir.MulOp, true
	case "/":
		return ir.Div, true
	case "%":
		return ir.Rem, true
	case "<<":
		return ir.Shl, true
	case ">>":
		return ir.Shr, true
	case "&":
		return ir.BitAnd, true
	case "|":
		return ir.BitOr, true
	case "^":
		return ir.BitXor, true
	case "&&":
		return ir.LogicalAnd, true
	case "||":
		return ir.LogicalOr, true
	case "==":
		return ir.Eq, true
	case "!=":
		return ir.Ne, true
	case "<":
		return ir.Lt, true
	case "<=":
		return ir.Le, true
	case ">":
		return ir.Gt, true
	case ">=":
		return ir.Ge, true
	}
	return 0, false
}

func (c *checker) binary(e *syntax.BinaryExpr) operand {
	switch e.Op {
	case ",":
		x := c.expr(e.X)
		c.discard(x)
		return c.expr(e.Y)
	case "&&", "||":
		return c.logical(e)
	}
	op, ok := binOps(e.Op)
	if !ok {
		c.errorf(e.Pos, diag.ErrBadOperands, "unknown operator %s", e.Op)
		return bad
	}
	x := c.expr(e.X)
	y := c.expr(e.Y)
	if !x.ok() || !y.ok() {
		return bad
	}
	return c.binaryOp(op, x, y, e.Pos)
}

// discard evaluates an operand only for its side effects.
func (c *checker) discard(o operand) {
	if !o.ok() || o.kind != opValue {
		return
	}
	if hasSideEffects(o.e) {
		c.emit(&ir.ExprStmt{X: o.e})
	}
}

// binaryOp applies an arithmetic, bitwise, shift or comparison operator.
func (c *checker) binaryOp(op ir.BinOp, x, y operand, pos diag.Pos) operand {
	for _, o := range []operand{x, y} {
		if shapeOf(o.t) < 0 {
			c.errorf(pos, diag.ErrBadOperands, "operator %s cannot be applied to %s", op, typeName(o.t))
			return bad
		}
	}
	var t ir.Type
	if op == ir.Shl || op == ir.Shr {
		// The result has the left operand's type; the amount takes its shape.
		t = x.t
		if shapeOf(x.t) == 0 && shapeOf(y.t) > 0 {
			t = ir.WithScalar(y.t, scalarOf(x.t))
		}
	} else {
		t = c.commonType(x, y, pos)
	}
	if t == nil {
		c.errorf(pos, diag.ErrBadOperands, "operator %s cannot be applied to %s and %s", op, typeName(x.t), typeName(y.t))
		return bad
	}
	elem := scalarOf(t)
	switch op {
	case ir.BitAnd, ir.BitOr, ir.BitXor, ir.Shl, ir.Shr, ir.Rem:
		if elem.Kind == ir.Float && op != ir.Rem {
			c.errorf(pos, diag.ErrBadOperands, "operator %s needs integer operands, not %s; use asuint() to work on the bits", op, typeName(t))
			return bad
		}
	}
	if _, isMat := t.(ir.Matrix); isMat && (op == ir.Shl || op == ir.Shr || op == ir.BitAnd || op == ir.BitOr || op == ir.BitXor) {
		c.errorf(pos, diag.ErrBadOperands, "operator %s cannot be applied to matrices", op)
		return bad
	}
	if elem.Kind == ir.Bool && !op.IsComparison() {
		// bool arithmetic is done in int, as in HLSL.
		t = ir.WithScalar(t, ir.I32)
	}
	xv := c.convert(x, t, pos, false)
	var yv ir.Expr
	if op == ir.Shl || op == ir.Shr {
		ys := scalarOf(y.t)
		amt := ir.WithScalar(t, scalarOf(t))
		if ys.Kind == ir.Uint || ys.Kind == ir.Sint {
			amt = ir.WithScalar(t, ir.Scalar{Kind: ys.Kind, Bits: scalarOf(t).Bits})
		}
		yv = c.convert(y, amt, pos, false)
	} else {
		yv = c.convert(y, t, pos, false)
	}
	if xv == nil || yv == nil {
		return bad
	}
	rt := t
	if op.IsComparison() {
		rt = ir.WithScalar(t, ir.BoolT)
	}
	r := operand{kind: opValue, e: &ir.Binary{Op: op, X: xv, Y: yv, T: rt}, t: rt, pos: pos}
	if x.lit != litNone && y.lit != litNone && !op.IsComparison() {
		r.lit = x.lit
		if y.lit == litFloat {
			r.lit = litFloat
		}
	}
	if k, ok := c.fold(r.e); ok && shapeOf(rt) == 0 {
		r.e = k
	} else if (op == ir.Div || op == ir.Rem) && elem.Kind != ir.Float {
		// A constant zero divisor is undefined behaviour on every target: reject it
		// (fold fails exactly when both sides are constant and the divisor is 0).
		if ky, ok := c.fold(yv); ok && ky.Bits == 0 {
			c.errorf(pos, diag.ErrConstDivZero, "integer division by zero")
			return bad
		}
	}
	return r
}

func scalarOf(t ir.Type) ir.Scalar {
	s, _ := ir.ScalarOf(t)
	return s
}

// logical handles && and ||: scalars only (HLSL 2021); the right side is
// evaluated only when needed, so if it has side effects it becomes an If.
func (c *checker) logical(e *syntax.BinaryExpr) operand {
	op := ir.LogicalAnd
	if e.Op == "||" {
		op = ir.LogicalOr
	}
	x := c.expr(e.X)
	if !x.ok() {
		return bad
	}
	var y operand
	rhs := c.collect(func() { y = c.expr(e.Y) })
	if !y.ok() {
		return bad
	}
	if shapeOf(x.t) != 0 || shapeOf(y.t) != 0 {
		fn := "and"
		if op == ir.LogicalOr {
			fn = "or"
		}
		c.errorf(e.Pos, diag.ErrVectorLogical, "operator %s needs scalar operands in HLSL 2021 (got %s and %s); use %s(a, b) for a component-wise result",
			e.Op, typeName(x.t), typeName(y.t), fn)
		return bad
	}
	xv := c.convert(x, ir.BoolT, e.X.P(), true)
	var yv ir.Expr
	rhs2 := c.collect(func() { yv = c.convert(y, ir.BoolT, e.Y.P(), true) })
	rhs = append(rhs, rhs2...)
	if xv == nil || yv == nil {
		return bad
	}
	if len(rhs) == 0 && !hasSideEffects(yv) {
		r := operand{kind: opValue, e: &ir.Binary{Op: op, X: xv, Y: yv, T: ir.BoolT}, t: ir.BoolT, pos: e.Pos}
		if k, ok := c.fold(r.e); ok {
			r.e = k
		}
		return r
	}
	// tmp = x; if (tmp) { rhs; tmp = y }   (for ||: if (!tmp))
	tmp := c.temp("sc", ir.BoolT)
	ref := &ir.LocalRef{L: tmp}
	c.emit(&ir.Store{Place: ref, Value: xv})
	var cond ir.Expr = &ir.Load{Place: ref}
	if op == ir.LogicalOr {
		cond = &ir.Unary{Op: ir.Not, X: cond}
	}
	then := append(rhs, &ir.Store{Place: ref, Value: yv})
	c.emit(&ir.If{Cond: cond, Then: then})
	return valueOp(&ir.Load{Place: ref}, ir.BoolT, e.Pos)
}

func (c *checker) unary(e *syntax.UnaryExpr) operand {
	if e.Op == "++" || e.Op == "--" {
		return c.incDec(e.X, e.Op, e.Pos, false, false)
	}
	x := c.expr(e.X)
	if !x.ok() {
		return bad
	}
	if shapeOf(x.t) < 0 {
		c.errorf(e.Pos, diag.ErrBadOperands, "operator %s cannot be applied to %s", e.Op, typeName(x.t))
		return bad
	}
	s := scalarOf(x.t)
	switch e.Op {
	case "+":
		t := x.t
		if s.Kind == ir.Bool {
			t = ir.WithScalar(t, ir.I32)
		}
		v := c.convert(x, t, e.Pos, true)
		r := valueOp(v, t, e.Pos)
		r.lit = x.lit
		return r
	case "-":
		t := x.t
		if s.Kind == ir.Bool {
			t = ir.WithScalar(t, ir.I32)
		}
		v := c.convert(x, t, e.Pos, true)
		if v == nil {
			return bad
		}
		r := valueOp(&ir.Unary{Op: ir.Neg, X: v}, t, e.Pos)
		r.lit = x.lit
		if k, ok := c.fold(r.e); ok {
			r.e = k
		}
		return r
	case "!":
		t := ir.WithScalar(x.t, ir.BoolT)
		v := c.convert(x, t, e.Pos, true)
		if v == nil {
			return bad
		}
		r := valueOp(&ir.Unary{Op: ir.Not, X: v}, t, e.Pos)
		if k, ok := c.fold(r.e); ok {
			r.e = k
		}
		return r
	case "~":
		if s.Kind == ir.Float {
			c.errorf(e.Pos, diag.ErrBadOperands, "operator ~ needs an integer operand, not %s", typeName(x.t))
			return bad
		}
		t := x.t
		if s.Kind == ir.Bool {
			t = ir.WithScalar(t, ir.I32)
		}
		v := c.convert(x, t, e.Pos, true)
		if v == nil {
			return bad
		}
		r := valueOp(&ir.Unary{Op: ir.BitNot, X: v}, t, e.Pos)
		if k, ok := c.fold(r.e); ok {
			r.e = k
		}
		return r
	}
	c.errorf(e.Pos, diag.ErrBadOperands, "unknown operator %s", e.Op)
	return bad
}

// writable checks that an operand can be assigned to.
func (c *checker) writable(o operand, pos diag.Pos, code diag.Code, what string) bool {
	return c.writableFn(o, pos, code, func() string { return what })
}

// writableFn is writable with the description built by what only when a
// message needs it: callers format it from the argument number and name, and
// doing that for every argument that is fine showed up in profiles.
func (c *checker) writableFn(o operand, pos diag.Pos, code diag.Code, what func() string) bool {
	switch o.kind {
	case opPlace, opSwizzlePlace, opTexel:
		if o.readOnly {
			c.errorf(pos, code, "%s is read-only", what())
			return false
		}
		if o.kind == opSwizzlePlace || o.kind == opTexel {
			seen := 0
			for _, k := range o.comps {
				if seen&(1<<k) != 0 {
					c.errorf(pos, diag.ErrSwizzleRepeat, "component %c appears twice in a swizzle that is written", "xyzw"[k])
					return false
				}
				seen |= 1 << k
			}
		}
		return true
	case opInvalid:
		return false
	}
	c.errorf(pos, code, "%s is not a writable location (an lvalue)", what())
	return false
}

// store writes the logical value v to a writable operand.
func (c *checker) store(o operand, v ir.Expr) {
	if v == nil {
		return
	}
	switch o.kind {
	case opPlace:
		c.storeAs(o.e, v)
	case opSwizzlePlace:
		if len(o.comps) == 1 {
			c.storeAs(&ir.Index{Base: o.e, Idx: ir.ConstInt(ir.I32, int64(o.comps[0])), T: scalarOf(o.e.Type())}, v)
			return
		}
		v = c.stable(v)
		for i, k := range o.comps {
			c.storeAs(&ir.Index{Base: o.e, Idx: ir.ConstInt(ir.I32, int64(k)), T: scalarOf(o.e.Type())}, &ir.Swizzle{Base: v, Comps: []int{i}})
		}
	case opTexel:
		if o.comps != nil {
			v = c.mergeTexel(o, v)
		}
		c.texelStore(o, v)
	}
}

// mergeTexel builds the whole texel for a partial write (tex[p].xz = v): the
// components not written are read back first.
func (c *checker) mergeTexel(o operand, v ir.Expr) ir.Expr {
	n := o.res.tex.Components
	if n == 1 {
		return v
	}
	full := c.stable(c.texelLoad(o))
	v = c.stable(v)
	args := make([]ir.Expr, n)
	for j := range args {
		args[j] = &ir.Swizzle{Base: full, Comps: []int{j}}
	}
	for i, k := range o.comps {
		if len(o.comps) == 1 {
			args[k] = v
		} else {
			args[k] = &ir.Swizzle{Base: v, Comps: []int{i}}
		}
	}
	return &ir.Construct{T: o.res.elem, Args: args}
}

// stabilize makes an operand safe to load and store (compound assignment, ++).
func (c *checker) stabilize(o operand) operand {
	switch o.kind {
	case opPlace, opSwizzlePlace:
		o.e = c.stabilizePlace(o.e)
	case opTexel:
		o.coords = c.stable(o.coords)
	}
	return o
}

func (c *checker) assign(e *syntax.AssignExpr) operand {
	if e.Op == "=" {
		rhs := c.expr(e.Y)
		target := c.expr(e.X)
		if !target.ok() || !rhs.ok() {
			return bad
		}
		if !c.writable(target, e.X.P(), diag.ErrNotAssignable, "the left side of the assignment") {
			return bad
		}
		v := c.convert(rhs, target.t, e.Y.P(), false)
		c.store(target, v)
		return c.reread(target)
	}
	opName := strings.TrimSuffix(e.Op, "=")
	op, ok := binOps(opName)
	if !ok {
		c.errorf(e.Pos, diag.ErrBadOperands, "unknown assignment operator %s", e.Op)
		return bad
	}
	target := c.expr(e.X)
	rhs := c.expr(e.Y)
	if !target.ok() || !rhs.ok() {
		return bad
	}
	if !c.writable(target, e.X.P(), diag.ErrNotAssignable, "the left side of the assignment") {
		return bad
	}
	target = c.stabilize(target)
	cur := valueOp(c.value(target), target.t, e.X.P())
	r := c.binaryOp(op, cur, rhs, e.Pos)
	if !r.ok() {
		return bad
	}
	c.store(target, c.convert(r, target.t, e.Pos, false))
	return c.reread(target)
}

// reread is the value of an assignment expression: the target's new value.
func (c *checker) reread(target operand) operand {
	if target.kind == opTexel {
		return operand{kind: opValue, e: c.value(target), t: target.t, pos: target.pos}
	}
	return operand{kind: opValue, e: c.value(target), t: target.t, pos: target.pos}
}

// incDec handles ++ and -- (prefix: the new value; postfix: the old one). With
// discard set the value is not needed (expression statements) and no temp is made.
func (c *checker) incDec(xe syntax.Expr, op string, pos diag.Pos, postfix, discard bool) operand {
	x := c.expr(xe)
	if !x.ok() {
		return bad
	}
	if !c.writableFn(x, xe.P(), diag.ErrNotAssignable, func() string { return "the operand of " + op }) {
		return bad
	}
	if shapeOf(x.t) < 0 || scalarOf(x.t).Kind == ir.Bool {
		c.errorf(pos, diag.ErrBadOperands, "operator %s cannot be applied to %s", op, typeName(x.t))
		return bad
	}
	x = c.stabilize(x)
	old := c.value(x)
	var oldVal ir.Expr
	if postfix && !discard {
		tmp := c.temp("old", x.t)
		c.emit(&ir.Store{Place: &ir.LocalRef{L: tmp}, Value: old})
		oldVal = &ir.Load{Place: &ir.LocalRef{L: tmp}}
		old = oldVal
	}
	bop := ir.Add
	if op == "--" {
		bop = ir.Sub
	}
	one := operand{kind: opValue, e: ir.ConstInt(ir.I32, 1), t: ir.I32, lit: litInt}
	r := c.binaryOp(bop, valueOp(old, x.t, pos), one, pos)
	if !r.ok() {
		return bad
	}
	c.store(x, c.convert(r, x.t, pos, false))
	if postfix {
		if oldVal == nil {
			return valueOp(nil, ir.Void{}, pos)
		}
		return valueOp(oldVal, x.t, pos)
	}
	return c.reread(x)
}

// ternary is ?: — a Select: HLSL evaluates both sides. A vector condition selects
// per component.
func (c *checker) ternary(e *syntax.CondExpr) operand {
	cond := c.expr(e.Cond)
	x := c.expr(e.X)
	y := c.expr(e.Y)
	if !cond.ok() || !x.ok() || !y.ok() {
		return bad
	}
	t := c.commonType(x, y, e.Pos)
	if t == nil {
		c.errorf(e.Pos, diag.ErrTypeMismatch, "the branches of ?: have incompatible types %s and %s", typeName(x.t), typeName(y.t))
		return bad
	}
	var cv ir.Expr
	switch shapeOf(cond.t) {
	case 0:
		cv = c.convert(cond, ir.BoolT, e.Cond.P(), true)
	case 1:
		n := cond.t.(ir.Vector).N
		if shapeOf(t) == 0 {
			t = ir.Vector{Elem: scalarOf(t), N: n}
		} else if vt, ok := t.(ir.Vector); !ok || vt.N != n {
			c.errorf(e.Pos, diag.ErrTypeMismatch, "a %s condition needs branches with %d components, not %s", typeName(cond.t), n, typeName(t))
			return bad
		}
		cv = c.convert(cond, ir.Vector{Elem: ir.BoolT, N: n}, e.Cond.P(), true)
	default:
		c.errorf(e.Cond.P(), diag.ErrTypeMismatch, "invalid condition type %s", typeName(cond.t))
		return bad
	}
	xv := c.convert(x, t, e.X.P(), false)
	yv := c.convert(y, t, e.Y.P(), false)
	if cv == nil || xv == nil || yv == nil {
		return bad
	}
	r := valueOp(&ir.Select{Cond: cv, True: xv, False: yv}, t, e.Pos)
	if x.lit != litNone && y.lit != litNone {
		r.lit = x.lit
	}
	return r
}

func (c *checker) cast(e *syntax.CastExpr) operand {
	t, r := c.resolveType(e.Type)
	x := c.expr(e.X)
	if !x.ok() {
		return bad
	}
	if r != nil {
		c.errorf(e.Pos, diag.ErrBadCast, "cannot cast to a resource type")
		return bad
	}
	if t == nil {
		return bad
	}
	if _, ok := t.(ir.Void); ok {
		c.discard(x)
		return valueOp(nil, ir.Void{}, e.Pos)
	}
	// (float3)f4 truncates, (float4)1 splats, (S)0 zero-fills a struct.
	v := c.convertExplicit(x, t, e.Pos)
	if v == nil {
		return bad
	}
	return valueOp(v, t, e.Pos)
}

// swizzleComps parses a swizzle for a vector of n components.
func swizzleComps(name string, n int) ([]int, bool) {
	if len(name) == 0 || len(name) > 4 {
		return nil, false
	}
	set := ""
	var comps []int
	for _, ch := range name {
		i := strings.IndexRune("xyzw", ch)
		s := "xyzw"
		if i < 0 {
			i = strings.IndexRune("rgba", ch)
			s = "rgba"
		}
		if i < 0 || i >= n || (set != "" && set != s) {
			return nil, false
		}
		set = s
		comps = append(comps, i)
	}
	return comps, true
}

func (c *checker) selector(e *syntax.SelectorExpr) operand {
	x := c.expr(e.X)
	if !x.ok() && x.kind != opResource {
		return bad
	}
	switch t := x.t.(type) {
	case *ir.Struct:
		for i, f := range t.Fields {
			if f.Name != e.Name {
				continue
			}
			lt := c.fieldLogical(t, i)
			if x.kind == opPlace {
				return operand{kind: opPlace, e: &ir.Member{Base: x.e, Field: i}, t: lt, readOnly: x.readOnly, pos: e.Pos}
			}
			v := c.value(x)
			if v == nil {
				return bad
			}
			var m ir.Expr = &ir.Member{Base: v, Field: i}
			if !ir.Equal(f.Type, lt) {
				m = &ir.Convert{X: m, T: lt}
			}
			return valueOp(m, lt, e.Pos)
		}
		c.errorf(e.NamePos, diag.ErrNoMember, "struct %s has no member %q", t.Name, e.Name)
		return bad
	case ir.Scalar, ir.Vector:
		n := ir.Components(t)
		comps, ok := swizzleComps(e.Name, n)
		if !ok {
			c.errorf(e.NamePos, diag.ErrBadSwizzle, "invalid swizzle .%s on %s (components %s)", e.Name, typeName(t), "xyzw"[:n])
			return bad
		}
		rt := ir.VecOf(scalarOf(t), len(comps))
		switch x.kind {
		case opPlace:
			if _, vec := t.(ir.Vector); vec {
				return operand{kind: opSwizzlePlace, e: x.e, comps: comps, t: rt, readOnly: x.readOnly, pos: e.Pos}
			}
			if len(comps) == 1 {
				return x
			}
		case opSwizzlePlace:
			nc := make([]int, len(comps))
			for i, k := range comps {
				nc[i] = x.comps[k]
			}
			return operand{kind: opSwizzlePlace, e: x.e, comps: nc, t: rt, readOnly: x.readOnly, pos: e.Pos}
		case opTexel:
			// A swizzle of a texel stays writable (read-modify-write of the texel).
			nc := comps
			if x.comps != nil {
				nc = make([]int, len(comps))
				for i, k := range comps {
					nc[i] = x.comps[k]
				}
			}
			y := x
			y.comps, y.t, y.pos = nc, rt, e.Pos
			return y
		}
		v := c.value(x)
		if v == nil {
			return bad
		}
		r := valueOp(swizzle(v, comps), rt, e.Pos)
		r.lit = x.lit
		return r
	case ir.Matrix:
		return c.matrixSwizzle(x, t, e)
	}
	if x.kind == opResource {
		c.errorf(e.NamePos, diag.ErrNoMember, "resource %s has no member %q", x.g.Name, e.Name)
		return bad
	}
	c.errorf(e.NamePos, diag.ErrNoMember, "%s has no member %q", typeName(x.t), e.Name)
	return bad
}

// indexValue checks an index expression: a scalar integer (floats convert to uint).
func (c *checker) indexValue(e syntax.Expr) ir.Expr {
	o := c.expr(e)
	if !o.ok() {
		return nil
	}
	if shapeOf(o.t) != 0 {
		c.errorf(e.P(), diag.ErrBadIndex, "an index must be a scalar integer, not %s", typeName(o.t))
		return nil
	}
	s := scalarOf(o.t)
	switch {
	case o.lit == litInt:
		return c.convert(o, ir.I32, e.P(), false)
	case s.Kind == ir.Sint || s.Kind == ir.Uint:
		if s.Bits == 64 {
			return c.convert(o, ir.Scalar{Kind: s.Kind, Bits: 32}, e.P(), true)
		}
		return c.value(o)
	}
	return c.convert(o, ir.U32, e.P(), false)
}

func (c *checker) index(e *syntax.IndexExpr) operand {
	x := c.expr(e.X)
	if !x.ok() && x.kind != opResource {
		return bad
	}
	if x.kind == opResource {
		return c.resourceIndex(x, e)
	}
	idx := c.indexValue(e.Index)
	if idx == nil {
		return bad
	}
	var elem ir.Type
	n := 0
	switch t := x.t.(type) {
	case *ir.Array:
		elem, n = t.Elem, t.Len
	case ir.Vector:
		elem, n = t.Elem, t.N
	case ir.Matrix:
		elem, n = ir.Vector{Elem: t.Elem, N: t.Cols}, t.Rows
	default:
		c.errorf(e.Pos, diag.ErrBadIndex, "%s cannot be indexed", typeName(x.t))
		return bad
	}
	if k, ok := c.fold(idx); ok && n > 0 {
		if v := signExtend(k); v < 0 || v >= int64(n) {
			c.errorf(e.Index.P(), diag.ErrBadIndex, "index %d is out of bounds for %s", v, typeName(x.t))
			return bad
		}
	}
	switch x.kind {
	case opPlace:
		irElem := elemType(x.e.Type())
		return operand{kind: opPlace, e: &ir.Index{Base: x.e, Idx: idx, T: irElem}, t: elem, readOnly: x.readOnly, pos: e.Pos}
	}
	v := c.value(x)
	if v == nil {
		return bad
	}
	return valueOp(&ir.Index{Base: v, Idx: idx, T: elemType(v.Type())}, elem, e.Pos)
}

// elemType is the IR element type of an indexable IR type.
func elemType(t ir.Type) ir.Type {
	switch x := t.(type) {
	case *ir.Array:
		return x.Elem
	case ir.Vector:
		return x.Elem
	case ir.Matrix:
		return ir.Vector{Elem: x.Elem, N: x.Cols}
	}
	return nil
}

// matrixComps parses a matrix swizzle: _m<row><col> (0-based) or _<row><col>
// (1-based) repeated, e.g. _m00_m11 or _11_22.
func matrixComps(name string, m ir.Matrix) ([][2]int, bool) {
	var out [][2]int
	for len(name) > 0 {
		if name[0] != '_' {
			return nil, false
		}
		base := 1
		name = name[1:]
		if strings.HasPrefix(name, "m") {
			base = 0
			name = name[1:]
		}
		if len(name) < 2 || name[0] < '0' || name[0] > '9' || name[1] < '0' || name[1] > '9' {
			return nil, false
		}
		r, k := int(name[0]-'0')-base, int(name[1]-'0')-base
		if r < 0 || k < 0 || r >= m.Rows || k >= m.Cols {
			return nil, false
		}
		out = append(out, [2]int{r, k})
		name = name[2:]
	}
	return out, len(out) > 0 && len(out) <= 4
}

// matrixSwizzle reads matrix elements (m._m01, m._11_22). A single element of a
// matrix place is itself a place (writable); several elements form a vector value.
func (c *checker) matrixSwizzle(x operand, t ir.Matrix, e *syntax.SelectorExpr) operand {
	comps, ok := matrixComps(e.Name, t)
	if !ok {
		c.errorf(e.NamePos, diag.ErrBadSwizzle, "invalid matrix swizzle .%s on %s (use _m<row><col> from 0 or _<row><col> from 1)", e.Name, typeName(t))
		return bad
	}
	row := func(base ir.Expr, r int) ir.Expr {
		return &ir.Index{Base: base, Idx: ir.ConstInt(ir.I32, int64(r)), T: elemType(base.Type())}
	}
	if len(comps) == 1 && x.kind == opPlace {
		rc := comps[0]
		place := &ir.Index{Base: row(x.e, rc[0]), Idx: ir.ConstInt(ir.I32, int64(rc[1])), T: t.Elem}
		return operand{kind: opPlace, e: place, t: t.Elem, readOnly: x.readOnly, pos: e.Pos}
	}
	v := c.value(x)
	if v == nil {
		return bad
	}
	v = c.stable(v)
	args := make([]ir.Expr, len(comps))
	for i, rc := range comps {
		args[i] = &ir.Swizzle{Base: row(v, rc[0]), Comps: []int{rc[1]}}
	}
	if len(args) == 1 {
		return valueOp(args[0], t.Elem, e.Pos)
	}
	vt := ir.Vector{Elem: t.Elem, N: len(args)}
	return valueOp(&ir.Construct{T: vt, Args: args}, vt, e.Pos)
}
