package sema

import (
	"waverig/compiler/diag"
	"waverig/compiler/ir"
)

// rank orders scalar types for HLSL's usual arithmetic conversions:
// bool < int < uint < int64_t < uint64_t < half < float < double.
func rank(s ir.Scalar) int {
	switch {
	case s.Kind == ir.Bool:
		return 0
	case s == ir.I32:
		return 1
	case s == ir.U32:
		return 2
	case s == ir.I64:
		return 3
	case s == ir.U64:
		return 4
	case s == ir.F16:
		return 5
	case s == ir.F32:
		return 6
	}
	return 7
}

// shapeOf classifies a numeric type: 0 scalar, 1 vector, 2 matrix, -1 other.
func shapeOf(t ir.Type) int {
	switch t.(type) {
	case ir.Scalar:
		return 0
	case ir.Vector:
		return 1
	case ir.Matrix:
		return 2
	}
	return -1
}

// commonElem is the element type two operands are promoted to.
func commonElem(a, b operand) ir.Scalar {
	sa, _ := ir.ScalarOf(a.t)
	sb, _ := ir.ScalarOf(b.t)
	switch {
	case a.lit != litNone && b.lit == litNone:
		return adoptLiteral(a.lit, sa, sb)
	case b.lit != litNone && a.lit == litNone:
		return adoptLiteral(b.lit, sb, sa)
	}
	if rank(sa) >= rank(sb) {
		return sa
	}
	return sb
}

// adoptLiteral: a literal takes the other operand's type when that keeps its kind
// (an int literal adopts any numeric type; a float literal adopts float types).
func adoptLiteral(lit litKind, ls, other ir.Scalar) ir.Scalar {
	if other.Kind == ir.Bool {
		return ls
	}
	if lit == litInt {
		return other
	}
	if other.Kind == ir.Float {
		return other
	}
	return ls
}

// commonType computes the type both operands of an arithmetic operator or ?:
// convert to: the promoted element and the smaller shape (scalars splat).
func (c *checker) commonType(a, b operand, pos diag.Pos) ir.Type {
	elem := commonElem(a, b)
	sa, sb := shapeOf(a.t), shapeOf(b.t)
	if sa < 0 || sb < 0 {
		if sameLogical(a.t, b.t) {
			return a.t
		}
		return nil
	}
	switch {
	case sa == 0 && sb == 0:
		return elem
	case sa == 0:
		return ir.WithScalar(b.t, elem)
	case sb == 0:
		return ir.WithScalar(a.t, elem)
	case sa == 1 && sb == 1:
		na, nb := a.t.(ir.Vector).N, b.t.(ir.Vector).N
		if nb < na {
			na = nb
		}
		return ir.VecOf(elem, na)
	case sa == 2 && sb == 2:
		ma, mb := a.t.(ir.Matrix), b.t.(ir.Matrix)
		if ma.Rows == mb.Rows && ma.Cols == mb.Cols {
			return ir.Matrix{Elem: elem, Rows: ma.Rows, Cols: ma.Cols}
		}
	}
	return nil
}

// convert converts an operand's value to the logical type want. explicit is true
// for casts and constructor arguments (no warnings, truncation allowed silently).
// It reports an error and returns nil when the conversion is impossible.
func (c *checker) convert(o operand, want ir.Type, pos diag.Pos, explicit bool) ir.Expr {
	if !o.ok() || want == nil {
		return nil
	}
	if _, void := o.t.(ir.Void); void && o.kind == opValue {
		// Out[0] = InterlockedAdd(…) or = asuint(d, lo, hi): no value to store.
		c.errorf(pos, diag.ErrTypeMismatch, "a void expression has no value")
		return nil
	}
	v := c.value(o)
	if v == nil {
		return nil
	}
	if sameLogical(o.t, want) {
		if !ir.Equal(v.Type(), want) {
			return c.relayout(v, want)
		}
		return v
	}
	from, to := shapeOf(o.t), shapeOf(want)
	if from < 0 || to < 0 {
		c.errorf(pos, diag.ErrTypeMismatch, "cannot convert %s to %s", typeName(o.t), typeName(want))
		return nil
	}
	fs, _ := ir.ScalarOf(o.t)
	ts, _ := ir.ScalarOf(want)
	if !explicit && o.lit == litNone {
		c.conversionWarnings(fs, ts, pos)
	} else if !explicit && o.lit == litFloat && ts.Kind != ir.Float && ts.Kind != ir.Bool {
		if k, ok := v.(*ir.Const); !ok || k.Float() != float64(int64(k.Float())) {
			c.warnf(pos, diag.WarnFloatToInt, "implicit conversion from %s to %s loses the fraction", typeName(o.t), typeName(want))
		}
	}
	switch {
	case from == 0 && to == 0:
		return convScalar(v, ts)
	case from == 0 && to == 1:
		return splat(c, convScalar(v, ts), want)
	case from == 0 && to == 2:
		m := want.(ir.Matrix)
		row := splat(c, convScalar(v, ts), ir.Vector{Elem: ts, N: m.Cols})
		row = c.stable(row)
		args := make([]ir.Expr, m.Rows)
		for i := range args {
			args[i] = row
		}
		return &ir.Construct{T: want, Args: args}
	case from == 1 && to == 0:
		if !explicit {
			c.warnf(pos, diag.WarnTruncation, "implicit truncation of %s to %s; use .x to take the first component", typeName(o.t), typeName(want))
		}
		return convScalar(&ir.Swizzle{Base: v, Comps: []int{0}}, ts)
	case from == 1 && to == 1:
		nf, nt := o.t.(ir.Vector).N, want.(ir.Vector).N
		if nt > nf {
			c.errorf(pos, diag.ErrTypeMismatch, "cannot convert %s to %s: not enough components", typeName(o.t), typeName(want))
			return nil
		}
		if nt < nf {
			if !explicit {
				c.warnf(pos, diag.WarnTruncation, "implicit truncation of %s to %s; use a swizzle such as .%s", typeName(o.t), typeName(want), "xyzw"[:nt])
			}
			v = &ir.Swizzle{Base: v, Comps: []int{0, 1, 2, 3}[:nt]}
		}
		return convScalar(v, ts)
	case from == 2 && to == 2:
		mf, mt := o.t.(ir.Matrix), want.(ir.Matrix)
		if mf.Rows == mt.Rows && mf.Cols == mt.Cols {
			return &ir.Convert{X: v, T: ir.Matrix{Elem: ts, Rows: mt.Rows, Cols: mt.Cols}}
		}
		if mt.Rows <= mf.Rows && mt.Cols <= mf.Cols {
			// Truncation keeps the upper-left block, row by row.
			if !explicit {
				c.warnf(pos, diag.WarnTruncation, "implicit truncation of %s to %s", typeName(o.t), typeName(want))
			}
			v = c.stable(v)
			rows := make([]ir.Expr, mt.Rows)
			for r := range rows {
				row := &ir.Index{Base: v, Idx: ir.ConstInt(ir.I32, int64(r)), T: ir.Vector{Elem: mf.Elem, N: mf.Cols}}
				var x ir.Expr = row
				if mt.Cols < mf.Cols {
					x = &ir.Swizzle{Base: row, Comps: []int{0, 1, 2, 3}[:mt.Cols]}
				}
				rows[r] = convScalar(x, ts)
			}
			return &ir.Construct{T: ir.Matrix{Elem: ts, Rows: mt.Rows, Cols: mt.Cols}, Args: rows}
		}
	case from == 1 && to == 2, from == 2 && to == 1:
		if explicit && ir.Components(o.t) == ir.Components(want) {
			return c.reshape(v, want)
		}
	}
	c.errorf(pos, diag.ErrTypeMismatch, "cannot convert %s to %s", typeName(o.t), typeName(want))
	return nil
}

// conversionWarnings reports lossy implicit scalar conversions.
func (c *checker) conversionWarnings(from, to ir.Scalar, pos diag.Pos) {
	switch {
	case from.Kind == ir.Float && (to.Kind == ir.Sint || to.Kind == ir.Uint):
		c.warnf(pos, diag.WarnFloatToInt, "implicit conversion from %s to %s loses the fraction; cast explicitly", scalarName(from), scalarName(to))
	case from.Kind == ir.Float && to.Kind == ir.Float && from.Bits > to.Bits:
		c.warnf(pos, diag.WarnDoubleToFloat, "implicit conversion from %s to %s loses precision; cast explicitly", scalarName(from), scalarName(to))
	}
}

// convScalar converts the element type of a scalar or vector value, folding constants.
func convScalar(v ir.Expr, to ir.Scalar) ir.Expr {
	from, _ := ir.ScalarOf(v.Type())
	if from == to {
		return v
	}
	if k, ok := v.(*ir.Const); ok {
		return convertConst(k, to)
	}
	if sel, ok := v.(*ir.Select); ok {
		// c ? 1 : 0 used as a uint: convert the constant branches, not the result.
		kt, ok1 := sel.True.(*ir.Const)
		kf, ok2 := sel.False.(*ir.Const)
		if ok1 && ok2 {
			return &ir.Select{Cond: sel.Cond, True: convertConst(kt, to), False: convertConst(kf, to)}
		}
	}
	if cons, ok := v.(*ir.Construct); ok {
		if vt, isVec := cons.T.(ir.Vector); isVec {
			allConst := true
			for _, a := range cons.Args {
				if _, ok := a.(*ir.Const); !ok {
					allConst = false
				}
			}
			if allConst {
				args := make([]ir.Expr, len(cons.Args))
				for i, a := range cons.Args {
					args[i] = convertConst(a.(*ir.Const), to)
				}
				return &ir.Construct{T: ir.Vector{Elem: to, N: vt.N}, Args: args}
			}
		}
	}
	return &ir.Convert{X: v, T: ir.WithScalar(v.Type(), to)}
}

// splat builds a vector from a scalar (Construct of N copies; impure scalars go
// through a temporary so they are evaluated once).
func splat(c *checker, v ir.Expr, want ir.Type) ir.Expr {
	vt, ok := want.(ir.Vector)
	if !ok {
		return v
	}
	if c.fn != nil {
		v = c.stable(v)
	}
	args := make([]ir.Expr, vt.N)
	for i := range args {
		args[i] = v
	}
	return &ir.Construct{T: want, Args: args}
}

// relayout converts between types that differ only in layout (array strides,
// matrix strides and order).
func (c *checker) relayout(v ir.Expr, want ir.Type) ir.Expr {
	switch w := want.(type) {
	case *ir.Array:
		va := v.Type().(*ir.Array)
		v = c.stable(v)
		args := make([]ir.Expr, w.Len)
		for i := range args {
			el := &ir.Index{Base: v, Idx: ir.ConstInt(ir.I32, int64(i)), T: va.Elem}
			if ir.Equal(va.Elem, w.Elem) {
				args[i] = el
			} else {
				args[i] = c.relayout(el, w.Elem)
			}
		}
		return &ir.Construct{T: want, Args: args}
	case ir.Matrix:
		v = c.stable(v)
		args := make([]ir.Expr, w.Rows)
		for i := range args {
			args[i] = &ir.Index{Base: v, Idx: ir.ConstInt(ir.I32, int64(i)), T: ir.Vector{Elem: w.Elem, N: w.Cols}}
		}
		return &ir.Construct{T: want, Args: args}
	}
	return v
}

// reshape converts between a vector and a matrix with the same component count
// (explicit casts such as (float2x2)v).
func (c *checker) reshape(v ir.Expr, want ir.Type) ir.Expr {
	v = c.stable(v)
	var comps []ir.Expr
	switch t := v.Type().(type) {
	case ir.Vector:
		for i := 0; i < t.N; i++ {
			comps = append(comps, &ir.Swizzle{Base: v, Comps: []int{i}})
		}
	case ir.Matrix:
		for r := 0; r < t.Rows; r++ {
			row := &ir.Index{Base: v, Idx: ir.ConstInt(ir.I32, int64(r)), T: ir.Vector{Elem: t.Elem, N: t.Cols}}
			for k := 0; k < t.Cols; k++ {
				comps = append(comps, &ir.Swizzle{Base: row, Comps: []int{k}})
			}
		}
	}
	ts, _ := ir.ScalarOf(want)
	for i := range comps {
		comps[i] = convScalar(comps[i], ts)
	}
	return buildFromComponents(want, comps)
}

// buildFromComponents builds a vector or matrix from scalar components in row order.
func buildFromComponents(want ir.Type, comps []ir.Expr) ir.Expr {
	switch w := want.(type) {
	case ir.Vector:
		return &ir.Construct{T: want, Args: comps}
	case ir.Matrix:
		rows := make([]ir.Expr, w.Rows)
		for r := range rows {
			rows[r] = &ir.Construct{T: ir.Vector{Elem: w.Elem, N: w.Cols}, Args: comps[r*w.Cols : (r+1)*w.Cols]}
		}
		return &ir.Construct{T: want, Args: rows}
	}
	if len(comps) > 0 {
		return comps[0]
	}
	return nil
}
