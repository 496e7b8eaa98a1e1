package sema

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"waverig/compiler/diag"
	"waverig/compiler/intrinsics"
	"waverig/compiler/ir"
	"waverig/compiler/syntax"
)

// kindsOf returns the Kinds bit of a scalar.
func kindsOf(s ir.Scalar) intrinsics.Kinds {
	switch s.Kind {
	case ir.Bool:
		return intrinsics.KBool
	case ir.Sint:
		return intrinsics.KInt
	case ir.Uint:
		return intrinsics.KUint
	}
	return intrinsics.KFloat
}

func shapesOf(t ir.Type) intrinsics.Shapes {
	switch shapeOf(t) {
	case 0:
		return intrinsics.SScalar
	case 1:
		return intrinsics.SVector
	case 2:
		return intrinsics.SMatrix
	}
	return 0
}

func kindsText(k intrinsics.Kinds) string {
	var s []string
	if k&intrinsics.KBool != 0 {
		s = append(s, "bool")
	}
	if k&intrinsics.KInt != 0 {
		s = append(s, "int")
	}
	if k&intrinsics.KUint != 0 {
		s = append(s, "uint")
	}
	if k&intrinsics.KFloat != 0 {
		s = append(s, "float")
	}
	return strings.Join(s, ", ")
}

func shapesText(k intrinsics.Shapes) string {
	var s []string
	if k&intrinsics.SScalar != 0 {
		s = append(s, "scalar")
	}
	if k&intrinsics.SVector != 0 {
		s = append(s, "vector")
	}
	if k&intrinsics.SMatrix != 0 {
		s = append(s, "matrix")
	}
	return strings.Join(s, " or ")
}

// intrinsicCall checks a call of a free intrinsic against its table row: argument
// count, the Kinds/Shapes of every parameter, SameAs groups (promoted to a common
// type), Scalar32 lane indices, Place/Out arguments and the Result rule.
func (c *checker) intrinsicCall(info *intrinsics.Info, args []syntax.Expr, pos diag.Pos) operand {
	if (info.Op == intrinsics.WaveMatch || info.Class == intrinsics.ClassWave && strings.HasPrefix(info.Name, "WaveMultiPrefix")) && !c.opts.PartitionedNV {
		c.errorf(pos, diag.ErrPartitioned, "%s needs SPV_NV_shader_subgroup_partitioned, which WGSL, MSL and most Vulkan drivers lack; "+
			"build the groups with WaveActiveBallot and WaveReadLaneFirst in a loop, or pass -fspv-extension=SPV_NV_shader_subgroup_partitioned", info.Name)
		return bad
	}
	rows := intrinsics.Overloads(info.Name)
	if info = overload(rows, len(args)); info == nil {
		c.errorf(pos, diag.ErrArgCount, "%s", arityText(rows, len(args)))
		return bad
	}
	ops := c.operands(args)
	if ops == nil {
		return bad
	}
	for i, o := range ops {
		if o.kind == opResource {
			c.errorf(args[i].P(), diag.ErrTypeMismatch, "%s: argument %d cannot be a resource", info.Name, i+1)
			return bad
		}
	}
	switch {
	case info.Op == intrinsics.Asdouble:
		return c.asdouble(info, ops, args, pos)
	case info.Op == intrinsics.AsuintDouble:
		return c.asuintDouble(info, ops, args, pos)
	case info.Class == intrinsics.ClassAtomic:
		if !c.atomicDest(info, ops[0], args[0].P()) {
			return bad
		}
		return c.atomic(info, ops[0].e, ops[0].t, ops[1:], args[1:], pos)
	case info.Op == intrinsics.Mul:
		return c.mul(ops, args, pos)
	}
	// Parameter types: each SameAs group is promoted to one common type.
	types := make([]ir.Type, len(ops))
	for i := range ops {
		p := info.Params[i]
		if p.SameAs >= 0 || p.Payload {
			continue
		}
		grp := ops[i]
		lit := ops[i].lit
		for j := i + 1; j < len(ops); j++ {
			if info.Params[j].SameAs == i {
				t := c.commonType(grp, ops[j], pos)
				if t == nil {
					c.errorf(args[j].P(), diag.ErrTypeMismatch, "%s: argument %d (%s) does not match argument %d (%s)", info.Name, j+1, typeName(ops[j].t), i+1, typeName(grp.t))
					return bad
				}
				// The group stays a literal only if every member is one.
				switch {
				case ops[j].lit == litNone || lit == litNone:
					lit = litNone
				case ops[j].lit == litFloat:
					lit = litFloat
				}
				grp = operand{kind: opValue, t: t, lit: lit}
			}
		}
		t, ok := c.paramType(info, i, grp, args[i].P())
		if !ok {
			return bad
		}
		types[i] = t
		for j := i + 1; j < len(ops); j++ {
			if info.Params[j].SameAs == i {
				types[j] = t
			}
		}
	}
	irArgs := make([]ir.Expr, len(ops))
	for i, o := range ops {
		if info.Params[i].Payload {
			if irArgs[i] = c.payloadArg(info, o, args[i]); irArgs[i] == nil {
				return bad
			}
			continue
		}
		v := c.convert(o, types[i], args[i].P(), info.Params[i].Scalar32)
		if v == nil {
			return bad
		}
		irArgs[i] = v
	}
	var t0 ir.Type
	if len(types) > 0 {
		t0 = types[0]
	}
	rt := ir.IntrinsicResult(info.Result, t0)
	switch info.Op {
	case intrinsics.Asuint, intrinsics.Asint, intrinsics.Asfloat:
		if scalarOf(t0).Bits != 32 {
			c.errorf(args[0].P(), diag.ErrIntrinsicKind, "%s needs a 32-bit argument, not %s", info.Name, typeName(t0))
			return bad
		}
		if ir.Equal(t0, rt) {
			return valueOp(irArgs[0], rt, pos)
		}
		return valueOp(&ir.Bitcast{X: irArgs[0], T: rt}, rt, pos)
	case intrinsics.F16tof32, intrinsics.F32tof16:
		if scalarOf(t0).Bits != 32 {
			c.errorf(args[0].P(), diag.ErrIntrinsicKind, "%s needs a 32-bit argument, not %s", info.Name, typeName(t0))
			return bad
		}
	case intrinsics.Dot:
		rt = scalarOf(t0)
	case intrinsics.Cross:
		if ir.Components(t0) != 3 {
			c.errorf(args[0].P(), diag.ErrIntrinsicShape, "cross needs float3 arguments, not %s", typeName(t0))
			return bad
		}
	}
	return valueOp(&ir.Intrinsic{Op: info.Op, Args: irArgs, T: rt, Pos: pos}, rt, pos)
}

// overload picks the row of an intrinsic name that takes n arguments (HLSL
// overloads asuint by argument count only); nil if none does.
func overload(rows []*intrinsics.Info, n int) *intrinsics.Info {
	for _, in := range rows {
		if lo, hi := in.Arity(); lo <= n && n <= hi {
			return in
		}
	}
	return nil
}

// arityText is the argument-count message for a call no row of the name fits:
// "asuint takes 1 or 3 arguments, got 2".
func arityText(rows []*intrinsics.Info, n int) string {
	var counts []int
	for _, in := range rows {
		lo, hi := in.Arity()
		for k := lo; k <= hi; k++ {
			if !slices.Contains(counts, k) {
				counts = append(counts, k)
			}
		}
	}
	slices.Sort(counts)
	words := make([]string, len(counts))
	for i, k := range counts {
		words[i] = strconv.Itoa(k)
	}
	list := words[len(words)-1]
	if len(words) > 1 {
		list = strings.Join(words[:len(words)-1], ", ") + " or " + list
	}
	return fmt.Sprintf("%s takes %s argument%s, got %d", rows[0].Name, list, plural(counts[len(counts)-1]), n)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// paramType checks an argument (group) type against parameter i of info and
// returns the type the argument converts to.
func (c *checker) paramType(info *intrinsics.Info, i int, o operand, pos diag.Pos) (ir.Type, bool) {
	p := info.Params[i]
	t := o.t
	if shapeOf(t) < 0 {
		c.errorf(pos, diag.ErrIntrinsicKind, "%s: argument %d (%s) must be a %s of %s", info.Name, i+1, typeName(t), shapesText(p.Shapes), kindsText(p.Kinds))
		return nil, false
	}
	s := scalarOf(t)
	// Unsuffixed literals take the first kind the parameter accepts.
	switch o.lit {
	case litInt:
		switch {
		case p.Kinds&intrinsics.KInt != 0:
			s = ir.I32
		case p.Kinds&intrinsics.KUint != 0:
			s = ir.U32
		case p.Kinds&intrinsics.KFloat != 0:
			s = ir.F32
		}
	case litFloat:
		s = ir.F32
	}
	if p.Scalar32 {
		if shapeOf(t) != 0 || (s.Kind != ir.Sint && s.Kind != ir.Uint) {
			c.errorf(pos, diag.ErrIntrinsicKind, "%s: argument %d (%s) must be a scalar int or uint", info.Name, i+1, typeName(t))
			return nil, false
		}
		return ir.U32, true
	}
	if kindsOf(s)&p.Kinds == 0 && info.Class == intrinsics.ClassMath {
		// Math intrinsics convert integers to float, and bool to int, as HLSL does.
		switch {
		case p.Kinds&intrinsics.KFloat != 0 && s.Kind != ir.Float:
			s = ir.F32
		case p.Kinds&intrinsics.KInt != 0 && s.Kind == ir.Bool:
			s = ir.I32
		}
	}
	if kindsOf(s)&p.Kinds == 0 {
		c.errorf(pos, diag.ErrIntrinsicKind, "%s does not accept %s: argument %d must be %s", info.Name, typeName(t), i+1, kindsText(p.Kinds))
		return nil, false
	}
	if shapesOf(t)&p.Shapes == 0 {
		c.errorf(pos, diag.ErrIntrinsicShape, "%s does not accept %s: argument %d must be a %s", info.Name, typeName(t), i+1, shapesText(p.Shapes))
		return nil, false
	}
	if p.N != 0 {
		if vt, ok := t.(ir.Vector); !ok || vt.N != p.N {
			c.errorf(pos, diag.ErrIntrinsicShape, "%s: the %s must be a %s%d, not %s", info.Name, p.Name, kindsText(p.Kinds), p.N, typeName(t))
			return nil, false
		}
	}
	return ir.WithScalar(t, s), true
}

// atomicDest checks the destination of an Interlocked* operation: an integer
// scalar place rooted in a RW buffer or groupshared memory.
func (c *checker) atomicDest(info *intrinsics.Info, o operand, pos diag.Pos) bool {
	if o.kind != opPlace {
		c.errorf(pos, diag.ErrAtomicDest, "%s: the destination must be a variable in a RW buffer or groupshared memory", info.Name)
		return false
	}
	g := ir.RootGlobal(o.e)
	if g == nil || (g.Space != ir.SpaceStorage && g.Space != ir.SpaceWorkgroup) {
		where := "a local variable"
		if g != nil {
			where = fmt.Sprintf("%q (%s memory)", g.Name, g.Space)
		}
		c.errorf(pos, diag.ErrAtomicDest, "%s: the destination is %s; atomics work only on RW buffers and groupshared variables", info.Name, where)
		return false
	}
	if o.readOnly {
		c.errorf(pos, diag.ErrAtomicDest, "%s: the destination is read-only", info.Name)
		return false
	}
	s, ok := o.e.Type().(ir.Scalar)
	if !ok || (s != ir.I32 && s != ir.U32) {
		c.errorf(pos, diag.ErrAtomicDest, "%s: the destination must be a 32-bit int or uint, not %s", info.Name, typeName(o.t))
		return false
	}
	return true
}

// atomic lowers Interlocked*(dest, values…[, original]) to an Intrinsic returning
// the original value: stored to original when given, else an ExprStmt.
func (c *checker) atomic(info *intrinsics.Info, dest ir.Expr, destT ir.Type, ops []operand, args []syntax.Expr, pos diag.Pos) operand {
	g := ir.RootGlobal(dest)
	g.Atomic = true
	irArgs := []ir.Expr{c.stabilizePlace(dest)}
	var orig *operand
	for i, o := range ops {
		p := info.Params[i+1]
		if p.Out {
			if !c.writableFn(o, args[i].P(), diag.ErrOutArg, func() string {
				return fmt.Sprintf("%s's %s argument", info.Name, p.Name)
			}) {
				return bad
			}
			if s := scalarOf(o.t); shapeOf(o.t) != 0 || (s.Kind != ir.Sint && s.Kind != ir.Uint) {
				c.errorf(args[i].P(), diag.ErrIntrinsicKind, "%s: %s must be an int or uint variable, not %s", info.Name, p.Name, typeName(o.t))
				return bad
			}
			oo := o
			orig = &oo
			continue
		}
		if shapeOf(o.t) != 0 {
			c.errorf(args[i].P(), diag.ErrIntrinsicShape, "%s: %s must be a scalar, not %s", info.Name, p.Name, typeName(o.t))
			return bad
		}
		if s := scalarOf(o.t); o.lit == litNone && s.Kind != ir.Sint && s.Kind != ir.Uint {
			c.errorf(args[i].P(), diag.ErrIntrinsicKind, "%s: %s must be an int or uint, not %s", info.Name, p.Name, typeName(o.t))
			return bad
		}
		v := c.convert(o, destT, args[i].P(), true)
		if v == nil {
			return bad
		}
		irArgs = append(irArgs, v)
	}
	call := &ir.Intrinsic{Op: info.Op, Args: irArgs, T: dest.Type(), Pos: pos}
	if orig != nil && info.Op != intrinsics.InterlockedCompareStore {
		c.store(*orig, c.convert(valueOp(call, dest.Type(), pos), orig.t, pos, true))
	} else {
		c.emit(&ir.ExprStmt{X: call})
	}
	return valueOp(nil, ir.Void{}, pos)
}

// mul is HLSL's mul(): matrix and vector products are the Mul intrinsic (T
// computed here), vector·vector is dot, and anything with a scalar is a
// component-wise multiply.
func (c *checker) mul(ops []operand, args []syntax.Expr, pos diag.Pos) operand {
	x, y := ops[0], ops[1]
	sx, sy := shapeOf(x.t), shapeOf(y.t)
	if sx < 0 || sy < 0 {
		c.errorf(pos, diag.ErrIntrinsicKind, "mul needs scalars, vectors or matrices, not %s and %s", typeName(x.t), typeName(y.t))
		return bad
	}
	if sx == 0 || sy == 0 {
		return c.binaryOp(ir.MulOp, x, y, pos)
	}
	elem := commonElem(x, y)
	if elem.Kind == ir.Bool {
		elem = ir.I32
	}
	var xt, yt, rt ir.Type
	switch {
	case sx == 1 && sy == 1:
		n := min(x.t.(ir.Vector).N, y.t.(ir.Vector).N)
		xt, yt, rt = ir.Vector{Elem: elem, N: n}, ir.Vector{Elem: elem, N: n}, elem
		xv, yv := c.convert(x, xt, args[0].P(), false), c.convert(y, yt, args[1].P(), false)
		if xv == nil || yv == nil {
			return bad
		}
		return valueOp(&ir.Intrinsic{Op: intrinsics.Dot, Args: []ir.Expr{xv, yv}, T: rt, Pos: pos}, rt, pos)
	case sx == 1 && sy == 2:
		v, m := x.t.(ir.Vector), y.t.(ir.Matrix)
		if v.N != m.Rows {
			c.errorf(pos, diag.ErrTypeMismatch, "mul(%s, %s): the vector needs %d components", typeName(x.t), typeName(y.t), m.Rows)
			return bad
		}
		xt, yt, rt = ir.Vector{Elem: elem, N: v.N}, ir.Matrix{Elem: elem, Rows: m.Rows, Cols: m.Cols}, ir.Vector{Elem: elem, N: m.Cols}
	case sx == 2 && sy == 1:
		m, v := x.t.(ir.Matrix), y.t.(ir.Vector)
		if v.N != m.Cols {
			c.errorf(pos, diag.ErrTypeMismatch, "mul(%s, %s): the vector needs %d components", typeName(x.t), typeName(y.t), m.Cols)
			return bad
		}
		xt, yt, rt = ir.Matrix{Elem: elem, Rows: m.Rows, Cols: m.Cols}, ir.Vector{Elem: elem, N: v.N}, ir.Vector{Elem: elem, N: m.Rows}
	default:
		a, b := x.t.(ir.Matrix), y.t.(ir.Matrix)
		if a.Cols != b.Rows {
			c.errorf(pos, diag.ErrTypeMismatch, "mul(%s, %s): inner dimensions differ (%d and %d)", typeName(x.t), typeName(y.t), a.Cols, b.Rows)
			return bad
		}
		xt, yt = ir.Matrix{Elem: elem, Rows: a.Rows, Cols: a.Cols}, ir.Matrix{Elem: elem, Rows: b.Rows, Cols: b.Cols}
		rt = ir.Matrix{Elem: elem, Rows: a.Rows, Cols: b.Cols}
		if a.Rows < 2 || b.Cols < 2 {
			c.errorf(pos, diag.ErrUnsupportedType, "mul result %s is not a supported matrix", typeName(rt))
			return bad
		}
	}
	if elem.Kind != ir.Float {
		c.errorf(pos, diag.ErrIntrinsicKind, "mul with matrices needs floating-point operands, not %s", scalarName(elem))
		return bad
	}
	xv, yv := c.convert(x, xt, args[0].P(), false), c.convert(y, yt, args[1].P(), false)
	if xv == nil || yv == nil {
		return bad
	}
	return valueOp(&ir.Intrinsic{Op: intrinsics.Mul, Args: []ir.Expr{xv, yv}, T: rt, Pos: pos}, rt, pos)
}
