package wgsl

import (
	"math"
	"strconv"
	"strings"

	"waverig/compiler/diag"
	"waverig/compiler/internal/textgen"
	"waverig/compiler/ir"
)

// expr prints an expression. Operators are fully parenthesized: WGSL has no
// precedence between some operators (a & b == c is an error), so explicit
// grouping is the simple, always-valid form.
func (fe *funcEmitter) expr(x ir.Expr) string {
	switch x := x.(type) {
	case *ir.Const:
		return fe.constText(x)
	case *ir.LocalRef, *ir.GlobalRef, *ir.Index, *ir.Member:
		// A place used as a value: WGSL loads references implicitly.
		return fe.load(x)
	case *ir.Load:
		return fe.load(x.Place)
	case *ir.Swizzle:
		base := fe.expr(x.Base)
		if _, scalar := x.Base.Type().(ir.Scalar); scalar {
			// HLSL s.xxx on a scalar: a splat.
			if len(x.Comps) == 1 {
				return base
			}
			return fe.e.typ(x.Type(), view{}, fe.pos()) + "(" + base + ")"
		}
		var sw []byte
		for _, c := range x.Comps {
			sw = append(sw, "xyzw"[c])
		}
		return base + "." + string(sw)
	case *ir.Unary:
		if m, ok := x.X.Type().(ir.Matrix); ok && x.Op == ir.Neg {
			// WGSL has no unary minus on matrices; scaling by -1 is exact.
			return "(" + fe.expr(x.X) + " * " + fe.constText(ir.ConstFloat(m.Elem, -1)) + ")"
		}
		op := map[ir.UnOp]string{ir.Neg: "-", ir.Not: "!", ir.BitNot: "~"}[x.Op]
		return "(" + op + fe.expr(x.X) + ")"
	case *ir.Binary:
		return fe.binary(x)
	case *ir.Select:
		if m, ok := x.Type().(ir.Matrix); ok {
			return fe.matrixSelect(x, m)
		}
		// WGSL select(f, t, cond): false value first.
		return "select(" + fe.expr(x.False) + ", " + fe.expr(x.True) + ", " + fe.expr(x.Cond) + ")"
	case *ir.Convert:
		return fe.e.typ(x.T, view{}, fe.pos()) + "(" + fe.expr(x.X) + ")"
	case *ir.Bitcast:
		return "bitcast<" + fe.e.typ(x.T, view{}, fe.pos()) + ">(" + fe.expr(x.X) + ")"
	case *ir.Construct:
		var args []string
		for _, a := range x.Args {
			args = append(args, fe.expr(a))
		}
		return fe.e.typ(x.T, view{}, fe.pos()) + "(" + strings.Join(args, ", ") + ")"
	case *ir.Call:
		return fe.call(x)
	case *ir.Intrinsic:
		return fe.intrinsic(x)
	case nil:
		fe.e.errorf(fe.pos(), diag.ErrWGSLInternal, "nil expression")
		return "0"
	}
	fe.e.errorf(fe.pos(), diag.ErrWGSLInternal, "unknown expression %T", x)
	return "0"
}

func (fe *funcEmitter) call(x *ir.Call) string {
	var args []string
	for i, a := range x.Args {
		if i < len(x.Func.Params) && x.Func.Params[i].Dir != ir.In {
			// out/inout: the argument is a LocalRef of a temporary; pass its address.
			if r, ok := a.(*ir.LocalRef); ok {
				if fe.ptr[r.L] {
					args = append(args, fe.locals[r.L])
				} else {
					args = append(args, "&"+fe.locals[r.L])
				}
				continue
			}
			fe.e.errorf(x.Pos, diag.ErrWGSLInternal, "out argument %d of %s is not a local temporary", i, x.Func.Name)
		}
		args = append(args, fe.expr(a))
	}
	return fe.e.funcNames[x.Func] + "(" + strings.Join(args, ", ") + ")"
}

func (fe *funcEmitter) binary(x *ir.Binary) string {
	l, r := fe.expr(x.X), fe.expr(x.Y)
	op := x.Op.String()
	if m, ok := x.X.Type().(ir.Matrix); ok {
		switch x.Op {
		case ir.MulOp, ir.Div, ir.Rem:
			// IR * / % are component-wise; on WGSL matrices * is the matrix
			// product and / % do not exist: apply them column by column.
			return fe.matrixColumnwise(x.Op, m, l, r)
		}
	}
	switch x.Op {
	case ir.LogicalAnd, ir.LogicalOr:
		// && and || take scalar bools only; the IR evaluates both sides anyway,
		// so & and | are exact for vectors.
		if _, vec := x.X.Type().(ir.Vector); vec {
			op = map[ir.BinOp]string{ir.LogicalAnd: "&", ir.LogicalOr: "|"}[x.Op]
		}
	case ir.Shl, ir.Shr:
		// WGSL wants a u32 shift amount below the bit width (a constant one at
		// or above it is a compile error); HLSL masks the amount to 5 bits.
		t := x.Y.Type()
		if c, ok := x.Y.(*ir.Const); ok {
			r = textgen.Dec(c.Bits&31) + "u"
		} else if v, ok := x.Y.(*ir.Construct); ok && allConst(v.Args) {
			var parts []string
			for _, a := range v.Args {
				parts = append(parts, textgen.Dec(a.(*ir.Const).Bits&31)+"u")
			}
			r = "vec" + textgen.Dec(len(parts)) + "<u32>(" + strings.Join(parts, ", ") + ")"
		} else {
			if s, _ := ir.ScalarOf(t); s.Kind != ir.Uint {
				r = fe.e.typ(ir.WithScalar(t, ir.U32), view{}, fe.pos()) + "(" + r + ")"
			}
			mask := "31u"
			if vt, ok := t.(ir.Vector); ok {
				mask = "vec" + textgen.Dec(vt.N) + "<u32>(31u)"
			}
			r = "(" + r + " & " + mask + ")"
		}
	}
	return "(" + l + " " + op + " " + r + ")"
}

func allConst(xs []ir.Expr) bool {
	for _, x := range xs {
		if _, ok := x.(*ir.Const); !ok {
			return false
		}
	}
	return true
}

// constText prints a scalar constant with an explicit type suffix.
func (fe *funcEmitter) constText(c *ir.Const) string {
	switch c.T.Kind {
	case ir.Bool:
		if c.Bits != 0 {
			return "true"
		}
		return "false"
	case ir.Sint:
		fe.e.checkScalar(c.T, fe.pos())
		v := int32(c.Bits)
		switch {
		case v == math.MinInt32:
			return "i32(-2147483647i - 1i)" // the literal 2147483648i does not exist
		case v < 0:
			return "(" + textgen.Dec(v) + "i)"
		}
		return textgen.Dec(v) + "i"
	case ir.Uint:
		fe.e.checkScalar(c.T, fe.pos())
		return textgen.Dec(uint32(c.Bits)) + "u"
	}
	fe.e.checkScalar(c.T, fe.pos())
	v := c.Float()
	suffix, bits := "f", 32
	if c.T.Bits == 16 {
		suffix = "h"
	}
	if math.IsInf(v, 0) || math.IsNaN(v) {
		// No literal spells these: reinterpret the bits. In a function, through
		// a helper call: a bitcast of a literal is a const-expression, and WGSL
		// makes one whose value is NaN or an infinity a shader-creation error
		// (Tint enforces it: "value nan cannot be represented as 'f32'"; naga
		// lets it through). A call to a user function is never a
		// const-expression. Module-scope initializers must be const, so there
		// the bitcast stays (naga's dialect takes it).
		bits := textgen.Dec(uint32(c.Bits)) + "u"
		if c.T.Bits == 16 {
			bits = textgen.Dec(uint32(c.Bits)&0xffff) + "u"
		}
		if fe.f == nil {
			if c.T.Bits == 16 {
				return "bitcast<vec2<f16>>(" + bits + ").x"
			}
			return "bitcast<f32>(" + bits + ")"
		}
		if c.T.Bits == 16 {
			return fe.e.helper("f16_from_bits", func(name string) string {
				return "fn " + name + "(b: u32) -> f16 {\n  return bitcast<vec2<f16>>(b).x;\n}\n"
			}) + "(" + bits + ")"
		}
		return fe.e.helper("f32_from_bits", func(name string) string {
			return "fn " + name + "(b: u32) -> f32 {\n  return bitcast<f32>(b);\n}\n"
		}) + "(" + bits + ")"
	}
	s := strconv.FormatFloat(v, 'g', -1, bits) + suffix
	if v < 0 || (v == 0 && math.Signbit(v)) {
		if v == 0 {
			s = "-0.0" + suffix
		}
		return "(" + s + ")"
	}
	return s
}

// matrixColumnwise applies a component-wise operator to two matrices through a
// helper (one per operator and type) so each operand is evaluated once.
func (fe *funcEmitter) matrixColumnwise(op ir.BinOp, m ir.Matrix, l, r string) string {
	tn := fe.tname(m)
	opName := map[ir.BinOp]string{ir.MulOp: "mul", ir.Div: "div", ir.Rem: "rem"}[op]
	name := fe.e.helper("mat_"+opName+"_"+sanitizeTypeText(tn), func(name string) string {
		var cols []string
		for c := 0; c < m.Rows; c++ { // WGSL columns are HLSL rows
			cols = append(cols, "a["+textgen.Dec(c)+"] "+op.String()+" b["+textgen.Dec(c)+"]")
		}
		return "// Component-wise " + op.String() + " on " + tn + " (WGSL's matrix * is the matrix product).\nfn " + name + "(a: " + tn + ", b: " + tn + ") -> " + tn + " {\n  return " + tn + "(" + strings.Join(cols, ", ") + ");\n}\n"
	})
	return name + "(" + l + ", " + r + ")"
}

// matrixSelect: WGSL select takes scalars and vectors only; pick per column.
func (fe *funcEmitter) matrixSelect(x *ir.Select, m ir.Matrix) string {
	if _, scalar := x.Cond.Type().(ir.Scalar); !scalar {
		fe.e.errorf(fe.pos(), diag.ErrWGSLType, "a component-wise select on matrices (bool matrix condition) has no WGSL equivalent")
		return fe.expr(x.False)
	}
	tn := fe.tname(m)
	name := fe.e.helper("mat_select_"+sanitizeTypeText(tn), func(name string) string {
		var cols []string
		for c := 0; c < m.Rows; c++ {
			cols = append(cols, "select(f["+textgen.Dec(c)+"], t["+textgen.Dec(c)+"], c)")
		}
		return "fn " + name + "(f: " + tn + ", t: " + tn + ", c: bool) -> " + tn + " {\n  return " + tn + "(" + strings.Join(cols, ", ") + ");\n}\n"
	})
	return name + "(" + fe.expr(x.False) + ", " + fe.expr(x.True) + ", " + fe.expr(x.Cond) + ")"
}
