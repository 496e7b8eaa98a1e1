package sema

import (
	"fmt"

	"waverig/compiler/diag"
	"waverig/compiler/intrinsics"
	"waverig/compiler/ir"
	"waverig/compiler/syntax"
)

// The two SM 5.0 intrinsics that move an IEEE double through uints bit-exactly:
//
//	double  asdouble(uint lowbits, uint highbits)       (and uintN -> doubleN)
//	void    asuint(double value, out uint lowbits, out uint highbits)
//
// Both lower to plain IR around one Bitcast between a double and a uint2 per
// component, as DXC's SPIR-V back end does: OpBitcast of a 2-component 32-bit
// vector to a 64-bit scalar takes component 0 as the low-order word, which is
// HLSL's lowbits. No back end sees these ops (their rows are SemaOnly).

var uint2T = ir.Vector{Elem: ir.U32, N: 2}

// asdouble checks asdouble(lowbits, highbits): int or uint (converted to uint,
// as DXC's implicit conversion does), 32-bit, both of one shape (scalar or a
// vector of 2..4).
func (c *checker) asdouble(info *intrinsics.Info, ops []operand, args []syntax.Expr, pos diag.Pos) operand {
	var words [2]ir.Expr
	var shapes [2]ir.Type
	for i, o := range ops {
		t, ok := c.paramType(info, i, o, args[i].P())
		if !ok {
			return bad
		}
		if s := scalarOf(t); s.Bits != 32 {
			c.errorf(args[i].P(), diag.ErrIntrinsicKind, "asdouble: %s must be 32-bit, not %s", info.Params[i].Name, typeName(o.t))
			return bad
		}
		shapes[i] = ir.WithScalar(t, ir.U32)
		if words[i] = c.convert(o, shapes[i], args[i].P(), false); words[i] == nil {
			return bad
		}
	}
	if !ir.Equal(shapes[0], shapes[1]) {
		c.errorf(args[1].P(), diag.ErrIntrinsicShape, "asdouble: highbits (%s) must have the shape of lowbits (%s)", typeName(ops[1].t), typeName(ops[0].t))
		return bad
	}
	n := ir.Components(shapes[0])
	if _, vec := shapes[0].(ir.Vector); !vec {
		return valueOp(joinWords(words[0], words[1]), ir.F64, pos)
	}
	// Each argument once (a temp unless it is a plain load), then one bitcast per component.
	lo, hi := c.stable(words[0]), c.stable(words[1])
	comps := make([]ir.Expr, n)
	for k := range comps {
		comps[k] = joinWords(&ir.Swizzle{Base: lo, Comps: []int{k}}, &ir.Swizzle{Base: hi, Comps: []int{k}})
	}
	rt := ir.VecOf(ir.F64, n)
	return valueOp(&ir.Construct{T: rt, Args: comps}, rt, pos)
}

// joinWords is the double whose low 32 bits are lo and high 32 bits hi.
func joinWords(lo, hi ir.Expr) ir.Expr {
	return &ir.Bitcast{X: &ir.Construct{T: uint2T, Args: []ir.Expr{lo, hi}}, T: ir.F64}
}

// asuintDouble checks asuint(value, out lowbits, out highbits): value a double
// (an unsuffixed literal becomes one), lowbits and highbits writable int or uint
// places of value's shape, stored in that order.
func (c *checker) asuintDouble(info *intrinsics.Info, ops []operand, args []syntax.Expr, pos diag.Pos) operand {
	v := ops[0]
	vt := v.t
	if shapeOf(vt) != 0 && shapeOf(vt) != 1 {
		c.errorf(args[0].P(), diag.ErrIntrinsicShape, "asuint: value must be a double scalar or vector, not %s", typeName(vt))
		return bad
	}
	if v.lit == litNone && scalarOf(vt) != ir.F64 {
		c.errorf(args[0].P(), diag.ErrIntrinsicKind, "asuint(value, out lowbits, out highbits) needs a double value, not %s; convert it with (double)", typeName(vt))
		return bad
	}
	dt := ir.WithScalar(vt, ir.F64)
	for i := 1; i <= 2; i++ {
		p := info.Params[i]
		if !c.writableFn(ops[i], args[i].P(), diag.ErrOutArg, func() string {
			return fmt.Sprintf("asuint's %s argument", p.Name)
		}) {
			return bad
		}
		s := scalarOf(ops[i].t)
		if s.Kind != ir.Uint && s.Kind != ir.Sint || s.Bits != 32 || shapeOf(ops[i].t) > 1 {
			c.errorf(args[i].P(), diag.ErrIntrinsicKind, "asuint: %s must be a uint variable, not %s", p.Name, typeName(ops[i].t))
			return bad
		}
		if want := ir.WithScalar(dt, s); !ir.Equal(stripLayout(ops[i].t), want) {
			c.errorf(args[i].P(), diag.ErrIntrinsicShape, "asuint: %s (%s) must have the shape of value (%s)", p.Name, typeName(ops[i].t), typeName(vt))
			return bad
		}
	}
	d := c.convert(v, dt, args[0].P(), false)
	if d == nil {
		return bad
	}
	var lo, hi ir.Expr
	ut := ir.WithScalar(dt, ir.U32)
	if _, vec := dt.(ir.Vector); !vec {
		bits := c.stable(&ir.Bitcast{X: d, T: uint2T})
		lo, hi = &ir.Swizzle{Base: bits, Comps: []int{0}}, &ir.Swizzle{Base: bits, Comps: []int{1}}
	} else {
		d = c.stable(d)
		n := ir.Components(dt)
		los, his := make([]ir.Expr, n), make([]ir.Expr, n)
		for k := 0; k < n; k++ {
			bits := c.stable(&ir.Bitcast{X: &ir.Swizzle{Base: d, Comps: []int{k}}, T: uint2T})
			los[k], his[k] = &ir.Swizzle{Base: bits, Comps: []int{0}}, &ir.Swizzle{Base: bits, Comps: []int{1}}
		}
		lo, hi = &ir.Construct{T: ut, Args: los}, &ir.Construct{T: ut, Args: his}
	}
	for i, w := range []ir.Expr{lo, hi} {
		c.store(ops[i+1], c.convert(valueOp(w, ut, pos), ops[i+1].t, pos, true))
	}
	return valueOp(nil, ir.Void{}, pos)
}
