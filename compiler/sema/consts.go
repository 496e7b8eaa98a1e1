package sema

import (
	"math"
	"strconv"
	"strings"

	"waverig/compiler/diag"
	"waverig/compiler/ir"
	"waverig/compiler/syntax"
)

// literal checks a number or boolean literal. DXC's rules: an unsuffixed integer is
// int (uint if it does not fit in int, int64 beyond that); u = uint, l/ll = int64,
// ul/ull = uint64. An unsuffixed float literal is float; f = float, h = half,
// l = double. Unsuffixed literals also adapt to the other operand (litKind).
func (c *checker) literal(e *syntax.Literal) operand {
	switch e.Kind {
	case syntax.BoolLit:
		return valueOp(ir.ConstBool(e.Text == "true"), ir.BoolT, e.Pos)
	case syntax.IntLit:
		v, err := parseIntLit(e.Text)
		if err != nil {
			c.errorf(e.Pos, diag.ErrTypeMismatch, "invalid integer literal %q", e.Text)
			return bad
		}
		suf := strings.ToLower(e.Suffix)
		var t ir.Scalar
		lit := litNone
		switch suf {
		case "":
			lit = litInt
			switch {
			case v <= math.MaxInt32:
				t = ir.I32
			case v <= math.MaxUint32:
				t = ir.U32
			default:
				t = ir.I64
			}
		case "u":
			t = ir.U32
		case "l", "ll":
			t = ir.I64
		case "ul", "lu", "ull", "llu":
			t = ir.U64
		default:
			c.errorf(e.Pos, diag.ErrTypeMismatch, "invalid integer literal suffix %q", e.Suffix)
			return bad
		}
		o := valueOp(ir.ConstUint(t, v), t, e.Pos)
		o.lit = lit
		return o
	case syntax.FloatLit:
		text := strings.TrimRight(e.Text, "fFhHlL")
		v, err := strconv.ParseFloat(text, 64)
		if err != nil {
			c.errorf(e.Pos, diag.ErrTypeMismatch, "invalid floating-point literal %q", e.Text)
			return bad
		}
		t := ir.F32
		lit := litNone
		switch strings.ToLower(e.Suffix) {
		case "":
			lit = litFloat
		case "f":
		case "h":
			t = ir.F16
		case "l":
			t = ir.F64
		default:
			c.errorf(e.Pos, diag.ErrTypeMismatch, "invalid floating-point literal suffix %q", e.Suffix)
			return bad
		}
		o := valueOp(ir.ConstFloat(t, v), t, e.Pos)
		o.lit = lit
		return o
	}
	return bad
}

func parseIntLit(text string) (uint64, error) {
	t := strings.ToLower(text)
	switch {
	case strings.HasPrefix(t, "0x"):
		return strconv.ParseUint(t[2:], 16, 64)
	case len(t) > 1 && t[0] == '0':
		return strconv.ParseUint(t[1:], 8, 64)
	}
	return strconv.ParseUint(t, 10, 64)
}

// convertConst converts a scalar constant to another scalar type.
func convertConst(k *ir.Const, to ir.Scalar) *ir.Const {
	switch k.T.Kind {
	case ir.Bool:
		switch to.Kind {
		case ir.Float:
			return ir.ConstFloat(to, float64(k.Bits))
		case ir.Bool:
			return k
		}
		return ir.ConstUint(to, k.Bits)
	case ir.Sint, ir.Uint:
		iv := signExtend(k)
		switch to.Kind {
		case ir.Bool:
			return ir.ConstBool(iv != 0)
		case ir.Float:
			if k.T.Kind == ir.Uint {
				return ir.ConstFloat(to, float64(uint64(iv)))
			}
			return ir.ConstFloat(to, float64(iv))
		}
		return normInt(to, uint64(iv))
	}
	f := k.Float()
	switch to.Kind {
	case ir.Bool:
		return ir.ConstBool(f != 0)
	case ir.Float:
		return ir.ConstFloat(to, f)
	case ir.Sint:
		return normInt(to, uint64(int64(f)))
	}
	if f < 0 {
		return normInt(to, uint64(int64(f)))
	}
	return normInt(to, uint64(f))
}

// signExtend returns an integer constant's value as int64 (uint32 zero-extended).
func signExtend(k *ir.Const) int64 {
	if k.T.Bits == 32 {
		if k.T.Kind == ir.Sint {
			return int64(int32(uint32(k.Bits)))
		}
		return int64(uint32(k.Bits))
	}
	return int64(k.Bits)
}

// normInt makes an integer constant of type t from raw bits, sign-extending 32-bit
// signed values as ir.Const requires.
func normInt(t ir.Scalar, bits uint64) *ir.Const {
	if t.Bits == 32 {
		if t.Kind == ir.Sint {
			return ir.ConstInt(t, int64(int32(uint32(bits))))
		}
		return ir.ConstUint(t, bits&0xffffffff)
	}
	return &ir.Const{T: t, Bits: bits}
}

// fold evaluates a scalar constant expression. ok is false when e is not constant.
func (c *checker) fold(e ir.Expr) (*ir.Const, bool) {
	switch e.(type) {
	case *ir.Binary, *ir.Unary, *ir.Convert, *ir.Select:
		// Operator nodes are immutable once built, and the constants they can
		// read (const locals and globals) are known before any load of them.
		if _, no := c.notConst[e]; no {
			return nil, false
		}
		k, ok := c.foldNode(e)
		if !ok && hasOperand(e) {
			// Only nodes over other operator nodes are worth remembering: the
			// rest fold in constant time anyway.
			if c.notConst == nil {
				c.notConst = map[ir.Expr]struct{}{}
			}
			c.notConst[e] = struct{}{}
		}
		return k, ok
	}
	return c.foldNode(e)
}

// hasOperand reports whether an operator node has another operator node as an operand.
func hasOperand(e ir.Expr) bool {
	isOp := func(x ir.Expr) bool {
		switch x.(type) {
		case *ir.Binary, *ir.Unary, *ir.Convert, *ir.Select:
			return true
		}
		return false
	}
	switch x := e.(type) {
	case *ir.Binary:
		return isOp(x.X) || isOp(x.Y)
	case *ir.Unary:
		return isOp(x.X)
	case *ir.Convert:
		return isOp(x.X)
	case *ir.Select:
		return isOp(x.Cond) || isOp(x.True) || isOp(x.False)
	}
	return false
}

func (c *checker) foldNode(e ir.Expr) (*ir.Const, bool) {
	switch x := e.(type) {
	case *ir.Const:
		return x, true
	case *ir.Load:
		switch p := x.Place.(type) {
		case *ir.GlobalRef:
			if p.G.Const && !p.G.Spec && p.G.Init != nil {
				return c.fold(p.G.Init)
			}
		case *ir.LocalRef:
			if k, ok := c.localConst[p.L]; ok {
				return k, true
			}
		}
	case *ir.Convert:
		if s, ok := x.T.(ir.Scalar); ok {
			if k, ok := c.fold(x.X); ok {
				return convertConst(k, s), true
			}
		}
	case *ir.Unary:
		k, ok := c.fold(x.X)
		if !ok {
			return nil, false
		}
		switch x.Op {
		case ir.Neg:
			if k.T.Kind == ir.Float {
				return ir.ConstFloat(k.T, -k.Float()), true
			}
			return normInt(k.T, uint64(-signExtend(k))), true
		case ir.Not:
			return ir.ConstBool(k.Bits == 0), true
		case ir.BitNot:
			return normInt(k.T, ^k.Bits), true
		}
	case *ir.Binary:
		a, ok1 := c.fold(x.X)
		b, ok2 := c.fold(x.Y)
		if ok1 && ok2 {
			return c.foldBinary(x.Op, a, b)
		}
	case *ir.Select:
		cond, ok := c.fold(x.Cond)
		if ok {
			if cond.Bits != 0 {
				return c.fold(x.True)
			}
			return c.fold(x.False)
		}
	}
	return nil, false
}

func (c *checker) foldBinary(op ir.BinOp, a, b *ir.Const) (*ir.Const, bool) {
	t := a.T
	if t.Kind == ir.Float {
		x, y := a.Float(), b.Float()
		var r float64
		switch op {
		case ir.Add:
			r = x + y
		case ir.Sub:
			r = x - y
		case ir.MulOp:
			r = x * y
		case ir.Div:
			r = x / y
		case ir.Rem:
			r = math.Mod(x, y)
		case ir.Eq:
			return ir.ConstBool(x == y), true
		case ir.Ne:
			return ir.ConstBool(x != y), true
		case ir.Lt:
			return ir.ConstBool(x < y), true
		case ir.Le:
			return ir.ConstBool(x <= y), true
		case ir.Gt:
			return ir.ConstBool(x > y), true
		case ir.Ge:
			return ir.ConstBool(x >= y), true
		default:
			return nil, false
		}
		return ir.ConstFloat(t, r), true
	}
	if t.Kind == ir.Bool {
		x, y := a.Bits != 0, b.Bits != 0
		switch op {
		case ir.LogicalAnd:
			return ir.ConstBool(x && y), true
		case ir.LogicalOr:
			return ir.ConstBool(x || y), true
		case ir.Eq:
			return ir.ConstBool(x == y), true
		case ir.Ne:
			return ir.ConstBool(x != y), true
		}
		return nil, false
	}
	signed := t.Kind == ir.Sint
	x, y := signExtend(a), signExtend(b)
	ux, uy := uint64(x), uint64(y)
	if t.Bits == 32 && !signed {
		ux, uy = ux&0xffffffff, uy&0xffffffff
	}
	less := func() bool {
		if signed {
			return x < y
		}
		return ux < uy
	}
	var r uint64
	switch op {
	case ir.Add:
		r = ux + uy
	case ir.Sub:
		r = ux - uy
	case ir.MulOp:
		r = ux * uy
	case ir.Div, ir.Rem:
		if uy == 0 {
			return nil, false
		}
		switch {
		case signed && op == ir.Div:
			r = uint64(x / y)
		case signed:
			r = uint64(x % y)
		case op == ir.Div:
			r = ux / uy
		default:
			r = ux % uy
		}
	case ir.Shl:
		r = ux << (uy % uint64(t.Bits))
	case ir.Shr:
		if signed {
			r = uint64(x >> (uy % uint64(t.Bits)))
		} else {
			r = ux >> (uy % uint64(t.Bits))
		}
	case ir.BitAnd:
		r = ux & uy
	case ir.BitOr:
		r = ux | uy
	case ir.BitXor:
		r = ux ^ uy
	case ir.Eq:
		return ir.ConstBool(ux == uy), true
	case ir.Ne:
		return ir.ConstBool(ux != uy), true
	case ir.Lt:
		return ir.ConstBool(less()), true
	case ir.Ge:
		return ir.ConstBool(!less()), true
	case ir.Gt:
		return ir.ConstBool(ux != uy && !less()), true
	case ir.Le:
		return ir.ConstBool(ux == uy || less()), true
	default:
		return nil, false
	}
	return normInt(t, r), true
}

// constExpr checks e in a scratch context and folds it to a scalar constant.
func (c *checker) constExpr(e syntax.Expr) (*ir.Const, bool) {
	saved := c.fn
	var scratch ir.Block
	c.fn = &fnState{fn: &ir.Function{Name: "<const>"}, stmts: &scratch}
	if saved != nil {
		c.fn.fn = saved.fn
	}
	o := c.expr(e)
	var v ir.Expr
	if o.ok() {
		v = c.value(o)
	}
	c.fn = saved
	if v == nil {
		return nil, false
	}
	if len(scratch) == 0 {
		if k, ok := c.fold(v); ok {
			return k, true
		}
	}
	c.errorf(e.P(), diag.ErrNotConstant, "a constant expression is required here")
	return nil, false
}

// constInt folds e to an integer constant.
func (c *checker) constInt(e syntax.Expr) (int64, bool) {
	k, ok := c.constExpr(e)
	if !ok {
		return 0, false
	}
	if k.T.Kind != ir.Sint && k.T.Kind != ir.Uint {
		if k.T.Kind == ir.Float && k.Float() == math.Trunc(k.Float()) {
			return int64(k.Float()), true
		}
		c.errorf(e.P(), diag.ErrNotConstant, "an integer constant is required here, not %s", scalarName(k.T))
		return 0, false
	}
	return signExtend(k), true
}

// foldComposite evaluates a constant expression of scalar, vector, matrix, array
// or struct type to a tree of Construct and Const (what global initializers need:
// every target can declare such a constant directly).
func (c *checker) foldComposite(e ir.Expr) (ir.Expr, bool) {
	if k, ok := c.fold(e); ok {
		return k, true
	}
	comps := func(x ir.Expr) ([]*ir.Const, bool) {
		f, ok := c.foldComposite(x)
		if !ok {
			return nil, false
		}
		switch y := f.(type) {
		case *ir.Const:
			return []*ir.Const{y}, true
		case *ir.Construct:
			if _, vec := y.T.(ir.Vector); vec {
				var out []*ir.Const
				for _, a := range y.Args {
					out = append(out, a.(*ir.Const))
				}
				return out, true
			}
		}
		return nil, false
	}
	vector := func(t ir.Type, ks []*ir.Const) ir.Expr {
		args := make([]ir.Expr, len(ks))
		for i, k := range ks {
			args[i] = k
		}
		if len(args) == 1 {
			return args[0]
		}
		return &ir.Construct{T: t, Args: args}
	}
	switch x := e.(type) {
	case *ir.Construct:
		if _, vec := x.T.(ir.Vector); vec {
			var all []*ir.Const
			for _, a := range x.Args {
				ks, ok := comps(a)
				if !ok {
					return nil, false
				}
				all = append(all, ks...)
			}
			return vector(x.T, all), true
		}
		args := make([]ir.Expr, len(x.Args))
		for i, a := range x.Args {
			f, ok := c.foldComposite(a)
			if !ok {
				return nil, false
			}
			args[i] = f
		}
		return &ir.Construct{T: x.T, Args: args}, true
	case *ir.Swizzle:
		ks, ok := comps(x.Base)
		if !ok {
			return nil, false
		}
		var out []*ir.Const
		for _, i := range x.Comps {
			out = append(out, ks[i])
		}
		return vector(x.Type(), out), true
	case *ir.Convert:
		ks, ok := comps(x.X)
		if !ok {
			return nil, false
		}
		s := scalarOf(x.T)
		for i := range ks {
			ks[i] = convertConst(ks[i], s)
		}
		return vector(x.T, ks), true
	case *ir.Unary:
		ks, ok := comps(x.X)
		if !ok {
			return nil, false
		}
		for i := range ks {
			k, ok := c.fold(&ir.Unary{Op: x.Op, X: ks[i]})
			if !ok {
				return nil, false
			}
			ks[i] = k
		}
		return vector(x.Type(), ks), true
	case *ir.Binary:
		xs, ok1 := comps(x.X)
		ys, ok2 := comps(x.Y)
		if !ok1 || !ok2 || len(xs) != len(ys) {
			return nil, false
		}
		out := make([]*ir.Const, len(xs))
		for i := range xs {
			k, ok := c.foldBinary(x.Op, xs[i], ys[i])
			if !ok {
				return nil, false
			}
			out[i] = k
		}
		return vector(x.T, out), true
	case *ir.Load:
		if g, ok := x.Place.(*ir.GlobalRef); ok && g.G.Const && !g.G.Spec && g.G.Init != nil {
			return c.foldComposite(g.G.Init)
		}
	}
	return nil, false
}
