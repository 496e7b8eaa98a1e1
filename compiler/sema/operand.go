package sema

import (
	"waverig/compiler/diag"
	"waverig/compiler/intrinsics"
	"waverig/compiler/ir"
)

type opKind uint8

const (
	opInvalid      opKind = iota
	opValue               // e is a value of logical type t
	opPlace               // e is a place; t is its logical type (bool where storage is u32)
	opSwizzlePlace        // a swizzle of the vector place e (components comps)
	opTexel               // an RWTexture2D/Texture2D element g[coords], or comps of it
	opResource            // a resource global used by name (methods, indexing)
)

// litKind marks operands that come from unsuffixed literals: HLSL literals adapt
// to the type of the other operand ("literal int", "literal float").
type litKind uint8

const (
	litNone litKind = iota
	litInt
	litFloat
)

// operand is the result of checking an expression.
type operand struct {
	kind     opKind
	e        ir.Expr
	t        ir.Type
	comps    []int
	coords   ir.Expr
	g        *ir.Global
	res      *resType
	readOnly bool
	lit      litKind
	pos      diag.Pos
}

func (o operand) ok() bool { return o.kind != opInvalid && o.t != nil }

var bad = operand{}

func valueOp(e ir.Expr, t ir.Type, pos diag.Pos) operand {
	return operand{kind: opValue, e: e, t: t, pos: pos}
}

// emit appends a statement to the block being built.
func (c *checker) emit(s ir.Stmt) {
	if c.fn == nil || c.fn.stmts == nil {
		return
	}
	*c.fn.stmts = append(*c.fn.stmts, s)
}

// collect runs f with statements going to a fresh block and returns it.
func (c *checker) collect(f func()) ir.Block {
	var b ir.Block
	saved := c.fn.stmts
	c.fn.stmts = &b
	f()
	c.fn.stmts = saved
	return b
}

// temp makes a function-local temporary.
func (c *checker) temp(name string, t ir.Type) *ir.Local {
	return c.fn.fn.NewLocal(name, t)
}

// value turns an operand into an IR value of its logical type.
func (c *checker) value(o operand) ir.Expr {
	switch o.kind {
	case opValue:
		return o.e
	case opPlace:
		return c.loadAs(o.e, o.t)
	case opSwizzlePlace:
		return swizzle(c.loadAs(o.e, c.vecLogical(o)), o.comps)
	case opTexel:
		if o.comps != nil {
			return swizzle(c.texelLoad(o), o.comps)
		}
		return c.texelLoad(o)
	case opResource:
		c.errorf(o.pos, diag.ErrTypeMismatch, "a resource cannot be used as a value; index it or call a method")
	}
	return nil
}

// vecLogical is the logical type of the vector a swizzle place selects from.
func (c *checker) vecLogical(o operand) ir.Type {
	s, _ := ir.ScalarOf(o.t)
	return ir.WithScalar(o.e.Type(), s)
}

func swizzle(base ir.Expr, comps []int) ir.Expr {
	if base == nil {
		return nil
	}
	if _, ok := base.Type().(ir.Scalar); ok {
		// Swizzles of scalars (f.xxx) splat.
		if len(comps) == 1 {
			return base
		}
		args := make([]ir.Expr, len(comps))
		for i := range args {
			args[i] = base
		}
		return &ir.Construct{T: ir.VecOf(base.Type().(ir.Scalar), len(comps)), Args: args}
	}
	return &ir.Swizzle{Base: base, Comps: comps}
}

// stripLayout returns the logical (layout-free) form of an IR type.
func stripLayout(t ir.Type) ir.Type {
	switch x := t.(type) {
	case ir.Matrix:
		x.Stride, x.RowMajor = 0, false
		return x
	case *ir.Array:
		if x.Stride == 0 && ir.Equal(stripLayout(x.Elem), x.Elem) {
			return x
		}
		return &ir.Array{Elem: stripLayout(x.Elem), Len: x.Len}
	}
	return t
}

// loadAs loads place as a value of the logical type want (converting u32 storage to
// bool and rebuilding arrays/matrices whose layout differs).
func (c *checker) loadAs(place ir.Expr, want ir.Type) ir.Expr {
	pt := place.Type()
	if ir.Equal(pt, want) {
		return &ir.Load{Place: place}
	}
	switch w := want.(type) {
	case ir.Scalar, ir.Vector:
		return &ir.Convert{X: &ir.Load{Place: place}, T: want}
	case ir.Matrix:
		// Only the stride or the memory order differs: rebuild from rows (Index on a
		// matrix place is a row vector whatever the memory order).
		args := make([]ir.Expr, w.Rows)
		for i := range args {
			args[i] = &ir.Load{Place: &ir.Index{Base: place, Idx: ir.ConstInt(ir.I32, int64(i)), T: ir.Vector{Elem: w.Elem, N: w.Cols}}}
		}
		return &ir.Construct{T: want, Args: args}
	case *ir.Array:
		pa, ok := pt.(*ir.Array)
		if !ok || pa.Len == 0 {
			return &ir.Load{Place: place}
		}
		args := make([]ir.Expr, w.Len)
		for i := range args {
			args[i] = c.loadAs(&ir.Index{Base: place, Idx: ir.ConstInt(ir.I32, int64(i)), T: pa.Elem}, w.Elem)
		}
		return &ir.Construct{T: want, Args: args}
	}
	return &ir.Load{Place: place}
}

// storeAs stores the logical value v into place, converting to the place's storage type.
func (c *checker) storeAs(place ir.Expr, v ir.Expr) {
	if v == nil || place == nil {
		return
	}
	pt := place.Type()
	if ir.Equal(pt, v.Type()) {
		c.emit(&ir.Store{Place: place, Value: v})
		return
	}
	switch p := pt.(type) {
	case ir.Scalar, ir.Vector:
		c.emit(&ir.Store{Place: place, Value: convScalar(v, scalarOf(pt))})
		return
	case ir.Matrix:
		v = c.stable(v)
		for i := 0; i < p.Rows; i++ {
			row := ir.Vector{Elem: p.Elem, N: p.Cols}
			c.emit(&ir.Store{Place: &ir.Index{Base: place, Idx: ir.ConstInt(ir.I32, int64(i)), T: row},
				Value: &ir.Index{Base: v, Idx: ir.ConstInt(ir.I32, int64(i)), T: row}})
		}
		return
	case *ir.Array:
		va, ok := v.Type().(*ir.Array)
		if ok && va.Len == p.Len {
			v = c.stable(v)
			for i := 0; i < p.Len; i++ {
				idx := ir.ConstInt(ir.I32, int64(i))
				c.storeAs(&ir.Index{Base: place, Idx: idx, T: p.Elem}, &ir.Index{Base: v, Idx: idx, T: va.Elem})
			}
			return
		}
	}
	c.emit(&ir.Store{Place: place, Value: v})
}

// stable returns an expression that can be evaluated several times with the same
// result and no repeated side effects: pure expressions as they are, others via a temp.
func (c *checker) stable(v ir.Expr) ir.Expr {
	if isCheap(v) {
		return v
	}
	t := c.temp("tmp", v.Type())
	c.emit(&ir.Store{Place: &ir.LocalRef{L: t}, Value: v})
	return &ir.Load{Place: &ir.LocalRef{L: t}}
}

// isCheap: constants and plain loads of places without side effects.
func isCheap(e ir.Expr) bool {
	switch x := e.(type) {
	case *ir.Const:
		return true
	case *ir.Load:
		return !hasSideEffects(x.Place)
	case *ir.Construct:
		// Constant vectors (splats of literals) are cheap to repeat.
		for _, a := range x.Args {
			if _, ok := a.(*ir.Const); !ok {
				return false
			}
		}
		return true
	}
	return false
}

// hasSideEffects reports calls, atomics, barriers and wave operations (the latter
// because their result depends on which lanes execute them).
func hasSideEffects(e ir.Expr) bool {
	found := false
	ir.WalkExpr(e, func(x ir.Expr) {
		switch y := x.(type) {
		case *ir.Call:
			found = true
		case *ir.Intrinsic:
			switch intrinsics.Get(y.Op).Class {
			case intrinsics.ClassWave, intrinsics.ClassQuad, intrinsics.ClassBarrier, intrinsics.ClassAtomic, intrinsics.ClassDeriv, intrinsics.ClassMesh:
				found = true
			case intrinsics.ClassTexture:
				found = found || y.Op == intrinsics.TextureStore || y.Op == intrinsics.TextureSample
			}
		}
	})
	return found
}

// stabilizePlace replaces side-effecting index expressions in a place by temps, so
// the place can be both loaded and stored (compound assignment, ++).
func (c *checker) stabilizePlace(p ir.Expr) ir.Expr {
	switch x := p.(type) {
	case *ir.Index:
		base := c.stabilizePlace(x.Base)
		idx := x.Idx
		if hasSideEffects(idx) {
			idx = c.stable(idx)
		}
		return &ir.Index{Base: base, Idx: idx, T: x.T}
	case *ir.Member:
		return &ir.Member{Base: c.stabilizePlace(x.Base), Field: x.Field}
	}
	return p
}
