package msl

import (
	"math"
	"strconv"
	"strings"

	"waverig/compiler/diag"
	"waverig/compiler/internal/textgen"
	"waverig/compiler/ir"
)

// expr prints an expression. Every operator application is parenthesized, so
// precedence never depends on the context.
func (e *emitter) expr(x ir.Expr) string {
	switch x := x.(type) {
	case *ir.Const:
		return e.literal(x)
	case *ir.LocalRef, *ir.GlobalRef, *ir.Member:
		return e.place(x)
	case *ir.Index:
		if ir.IsPlace(x) {
			return e.place(x)
		}
		return e.expr(x.Base) + "[" + e.expr(x.Idx) + "]"
	case *ir.Load:
		return e.load(x.Place)
	case *ir.Swizzle:
		return e.swizzle(x)
	case *ir.Unary:
		return "(" + x.Op.String() + e.expr(x.X) + ")"
	case *ir.Binary:
		return e.binary(x)
	case *ir.Select:
		return e.selectExpr(x)
	case *ir.Convert:
		return e.typeName(x.T) + "(" + e.expr(x.X) + ")"
	case *ir.Bitcast:
		return "as_type<" + e.typeName(x.T) + ">(" + e.expr(x.X) + ")"
	case *ir.Construct:
		return e.construct(x)
	case *ir.Call:
		var as []string
		for _, a := range x.Args {
			as = append(as, e.expr(a))
		}
		as = append(as, e.extraArgs(e.info[x.Func])...)
		return e.funcNames[x.Func] + "(" + callArgs(as) + ")"
	case *ir.Intrinsic:
		return e.intrinsic(x)
	case nil:
		e.errorf(e.fn.Pos, diag.ErrMSLMalformedInput, "nil expression in %s", e.fn.Name)
		return "0"
	}
	e.errorf(e.fn.Pos, diag.ErrMSLMalformedInput, "unknown expression %T", x)
	return "0"
}

// literal prints a typed constant so that overloads and templates see its exact type.
func (e *emitter) literal(c *ir.Const) string {
	switch c.T.Kind {
	case ir.Bool:
		if c.Bits != 0 {
			return "true"
		}
		return "false"
	case ir.Sint:
		v := int64(c.Bits)
		if c.T.Bits == 32 {
			v = int64(int32(c.Bits))
			if v == math.MinInt32 {
				return "(-2147483647 - 1)"
			}
			if v < 0 {
				return "(" + textgen.Dec(v) + ")"
			}
			return strconv.FormatInt(v, 10)
		}
		if v == math.MinInt64 {
			return "(-9223372036854775807l - 1l)"
		}
		if v < 0 {
			return "(" + textgen.Dec(v) + "l)"
		}
		return textgen.Dec(v) + "l"
	case ir.Uint:
		if c.T.Bits == 64 {
			return textgen.Dec(c.Bits) + "ul"
		}
		return textgen.Dec(uint32(c.Bits)) + "u"
	}
	f := c.Float()
	var s string
	switch {
	case math.IsNaN(f):
		s = "NAN"
	case math.IsInf(f, 1):
		s = "INFINITY"
	case math.IsInf(f, -1):
		s = "(-INFINITY)"
	default:
		s = strconv.FormatFloat(f, 'g', -1, 32)
		if !strings.ContainsAny(s, ".en") {
			s += ".0"
		}
		s += "f"
		if f < 0 {
			s = "(" + s + ")"
		}
	}
	if c.T.Bits == 16 {
		return "half(" + s + ")"
	}
	return s
}

func (e *emitter) swizzle(x *ir.Swizzle) string {
	base := e.expr(x.Base)
	if _, scalar := x.Base.Type().(ir.Scalar); scalar {
		// HLSL's scalar.xxx is a splat.
		if len(x.Comps) == 1 {
			return base
		}
		return e.typeName(x.Type()) + "(" + base + ")"
	}
	var b strings.Builder
	for _, c := range x.Comps {
		if c < 0 || c > 3 {
			e.errorf(e.fn.Pos, diag.ErrMSLMalformedInput, "swizzle component %d out of range", c)
			return base
		}
		b.WriteByte("xyzw"[c])
	}
	return base + "." + b.String()
}

func (e *emitter) binary(x *ir.Binary) string {
	a, b := e.expr(x.X), e.expr(x.Y)
	t := x.X.Type()
	s, _ := ir.ScalarOf(t)
	switch x.Op {
	case ir.Rem:
		if s.Kind == ir.Float {
			// HLSL % on floats truncates like fmod; Metal has no float %.
			return "fmod(" + a + ", " + b + ")"
		}
	case ir.Shl, ir.Shr:
		// HLSL (like SPIR-V via DXC) uses only the low bits of the shift amount;
		// C++/Metal shifts by >= the width are undefined.
		ys, _ := ir.ScalarOf(x.Y.Type())
		mask := e.literal(&ir.Const{T: ys, Bits: uint64(s.Bits - 1)})
		if _, vec := x.Y.Type().(ir.Vector); vec {
			mask = e.typeName(x.Y.Type()) + "(" + mask + ")"
		}
		return "(" + a + " " + x.Op.String() + " (" + b + " & " + mask + "))"
	case ir.LogicalAnd, ir.LogicalOr:
		if v, ok := t.(ir.Vector); ok {
			// Component-wise on bool vectors: go through uint lanes.
			op := "&"
			if x.Op == ir.LogicalOr {
				op = "|"
			}
			return "bool" + textgen.Dec(v.N) + "(uint" + textgen.Dec(v.N) + "(" + a + ") " + op + " uint" + textgen.Dec(v.N) + "(" + b + "))"
		}
	case ir.MulOp, ir.Div:
		if m, ok := t.(ir.Matrix); ok {
			// Metal's matrix * is the linear-algebra product; HLSL's is per component.
			name := e.helperMatrixCW(m, x.Op)
			return name + "(" + a + ", " + b + ")"
		}
	}
	return "(" + a + " " + x.Op.String() + " " + b + ")"
}

func (e *emitter) selectExpr(x *ir.Select) string {
	c, t, f := e.expr(x.Cond), e.expr(x.True), e.expr(x.False)
	vt := x.True.Type()
	switch vt.(type) {
	case ir.Scalar, ir.Vector:
	default:
		return "(" + c + " ? " + t + " : " + f + ")"
	}
	if v, ok := vt.(ir.Vector); ok {
		if _, scalar := x.Cond.Type().(ir.Scalar); scalar {
			c = "bool" + textgen.Dec(v.N) + "(" + c + ")"
		}
	}
	// select evaluates both sides, as HLSL's ?: does.
	return "select(" + f + ", " + t + ", " + c + ")"
}

func (e *emitter) construct(x *ir.Construct) string {
	var as []string
	for _, a := range x.Args {
		as = append(as, e.expr(a))
	}
	switch t := x.T.(type) {
	case *ir.Array:
		return e.typeName(t) + "{{" + callArgs(as) + "}}"
	case *ir.Struct:
		return e.typeName(t) + "{" + callArgs(as) + "}"
	case ir.Matrix:
		// Rows of the HLSL matrix are the MSL columns.
		if len(x.Args) != t.Rows {
			e.errorf(e.fn.Pos, diag.ErrMSLMalformedInput, "matrix %s built from %d rows", t, len(x.Args))
		}
	}
	return e.typeName(x.T) + "(" + callArgs(as) + ")"
}
