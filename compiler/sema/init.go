package sema

import (
	"waverig/compiler/diag"
	"waverig/compiler/ir"
	"waverig/compiler/syntax"
)

// Initializer lists. HLSL flattens `{ … }` initializers: `float2 a[2] = {1, 2, 3, 4}`
// and `{ {1, 2}, {3, 4} }` are the same; a leaf whose type is exactly the element
// being initialized (a struct value, a whole vector) is taken whole, otherwise
// leaves are split into scalar components consumed in order.

// initLeaves checks the leaves of a (nested) initializer list, in order.
func (c *checker) initLeaves(il *syntax.InitList) []operand {
	var out []operand
	for _, e := range il.Elems {
		if sub, ok := e.(*syntax.InitList); ok {
			out = append(out, c.initLeaves(sub)...)
			continue
		}
		o := c.expr(e)
		if !o.ok() {
			return nil
		}
		v := c.value(o)
		if v == nil {
			return nil
		}
		o = valueOp(v, o.t, e.P())
		out = append(out, o)
	}
	return out
}

// initQueue hands out leaves, splitting aggregates into components on demand.
type initQueue struct {
	items []operand
	c     *checker
}

// next returns the next item whose type matches want exactly, or the next scalar
// component (splitting vectors, matrices, arrays and structs).
func (q *initQueue) next(want ir.Type) (operand, bool) {
	for len(q.items) > 0 {
		it := q.items[0]
		if sameLogical(it.t, want) || (shapeOf(it.t) == 0 && shapeOf(want) == 0) {
			q.items = q.items[1:]
			return it, true
		}
		if shapeOf(it.t) == 0 {
			q.items = q.items[1:]
			return it, true
		}
		// Split the aggregate into its parts.
		q.items = q.items[1:]
		v := q.c.stable(it.e)
		var parts []operand
		switch t := it.t.(type) {
		case ir.Vector:
			for i := 0; i < t.N; i++ {
				parts = append(parts, valueOp(&ir.Swizzle{Base: v, Comps: []int{i}}, t.Elem, it.pos))
			}
		case ir.Matrix:
			for r := 0; r < t.Rows; r++ {
				row := ir.Vector{Elem: t.Elem, N: t.Cols}
				parts = append(parts, valueOp(&ir.Index{Base: v, Idx: ir.ConstInt(ir.I32, int64(r)), T: row}, row, it.pos))
			}
		case *ir.Array:
			for i := 0; i < t.Len; i++ {
				parts = append(parts, valueOp(&ir.Index{Base: v, Idx: ir.ConstInt(ir.I32, int64(i)), T: elemType(v.Type())}, t.Elem, it.pos))
			}
		case *ir.Struct:
			for i := range t.Fields {
				lt := q.c.fieldLogical(t, i)
				var m ir.Expr = &ir.Member{Base: v, Field: i}
				if !ir.Equal(t.Fields[i].Type, lt) {
					m = &ir.Convert{X: m, T: lt}
				}
				parts = append(parts, valueOp(m, lt, it.pos))
			}
		default:
			return bad, false
		}
		q.items = append(parts, q.items...)
	}
	return bad, false
}

// buildInit builds a value of type t from initializer leaves.
func (c *checker) buildInit(leaves []operand, t ir.Type, pos diag.Pos) ir.Expr {
	q := &initQueue{items: leaves, c: c}
	v := c.buildFrom(q, t, pos)
	if v == nil {
		return nil
	}
	if len(q.items) > 0 {
		c.errorf(pos, diag.ErrConstructorArgs, "too many initializers for %s", typeName(t))
		return nil
	}
	return v
}

func (c *checker) buildFrom(q *initQueue, t ir.Type, pos diag.Pos) ir.Expr {
	// A leaf of exactly this type is taken whole.
	if len(q.items) > 0 && sameLogical(q.items[0].t, t) {
		it := q.items[0]
		q.items = q.items[1:]
		return c.convert(it, t, it.pos, false)
	}
	switch x := t.(type) {
	case ir.Scalar:
		it, ok := q.next(t)
		if !ok {
			c.errorf(pos, diag.ErrConstructorArgs, "not enough initializers for %s", typeName(t))
			return nil
		}
		return c.convert(it, t, it.pos, false)
	case ir.Vector, ir.Matrix:
		n := ir.Components(t)
		comps := make([]ir.Expr, 0, n)
		for len(comps) < n {
			it, ok := q.next(scalarOf(t))
			if !ok {
				c.errorf(pos, diag.ErrConstructorArgs, "not enough initializers for %s", typeName(t))
				return nil
			}
			if shapeOf(it.t) == 1 && len(comps) == 0 {
				// A row vector for a matrix: split it.
				q.items = append([]operand{it}, q.items...)
				it, _ = q.next(scalarOf(t))
				if shapeOf(it.t) != 0 {
					vt := it.t.(ir.Vector)
					v := c.stable(it.e)
					var parts []operand
					for i := 0; i < vt.N; i++ {
						parts = append(parts, valueOp(&ir.Swizzle{Base: v, Comps: []int{i}}, vt.Elem, it.pos))
					}
					q.items = append(parts, q.items...)
					continue
				}
			}
			v := c.convert(it, scalarOf(t), it.pos, false)
			if v == nil {
				return nil
			}
			comps = append(comps, v)
		}
		return buildFromComponents(t, comps)
	case *ir.Array:
		args := make([]ir.Expr, x.Len)
		for i := range args {
			args[i] = c.buildFrom(q, x.Elem, pos)
			if args[i] == nil {
				return nil
			}
		}
		return &ir.Construct{T: t, Args: args}
	case *ir.Struct:
		args := make([]ir.Expr, len(x.Fields))
		for i, f := range x.Fields {
			lt := c.fieldLogical(x, i)
			v := c.buildFrom(q, lt, pos)
			if v == nil {
				return nil
			}
			if !ir.Equal(f.Type, lt) {
				v = c.relayoutOrConvert(v, f.Type)
			}
			args[i] = v
		}
		return &ir.Construct{T: t, Args: args}
	}
	c.errorf(pos, diag.ErrConstructorArgs, "%s cannot be initialized with a list", typeName(t))
	return nil
}

// relayoutOrConvert turns a logical value into a struct field's storage type.
func (c *checker) relayoutOrConvert(v ir.Expr, to ir.Type) ir.Expr {
	switch to.(type) {
	case ir.Scalar, ir.Vector:
		return convScalar(v, scalarOf(to))
	}
	return c.relayout(v, to)
}
