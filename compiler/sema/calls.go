package sema

import (
	"fmt"
	"strings"

	"waverig/compiler/diag"
	"waverig/compiler/intrinsics"
	"waverig/compiler/ir"
	"waverig/compiler/syntax"
)

// call checks f(args): a constructor, a user function or an intrinsic.
func (c *checker) call(e *syntax.CallExpr) operand {
	switch fun := e.Fun.(type) {
	case *syntax.TypeName:
		t, r := c.resolveType(fun.Type)
		if r != nil {
			c.errorf(fun.Pos, diag.ErrBadCast, "resources cannot be constructed")
			return bad
		}
		if t == nil {
			return bad
		}
		return c.construct(t, e.Args, e.Pos)
	case *syntax.ParenExpr:
		return c.call(&syntax.CallExpr{Pos: e.Pos, Fun: fun.X, Args: e.Args})
	case *syntax.Ident:
		name := fun.Name
		sym := c.scope.lookup(name)
		if sym != nil {
			switch sym.kind {
			case symFunc:
				return c.userCall(name, sym.funcs, e.Args, fun.Pos)
			case symType:
				if sym.res != nil {
					c.errorf(fun.Pos, diag.ErrBadCast, "resources cannot be constructed")
					return bad
				}
				return c.construct(sym.typ, e.Args, e.Pos)
			default:
				c.errorf(fun.Pos, diag.ErrNotCallable, "%q is not a function", name)
				return bad
			}
		}
		if t, ok := builtinType(name); ok {
			if t = c.checkMatrix(fun.Pos, t); t == nil {
				return bad
			}
			return c.construct(t, e.Args, e.Pos)
		}
		switch name {
		case "and", "or", "select":
			return c.componentwiseLogic(name, e.Args, fun.Pos)
		}
		if info, ok := intrinsics.Lookup(name); ok && !strings.Contains(name, ".") {
			return c.intrinsicCall(info, e.Args, fun.Pos)
		}
		c.errorf(fun.Pos, diag.ErrUnknownIdent, "unknown function %q", name)
		return bad
	}
	c.errorf(e.Pos, diag.ErrNotCallable, "expression is not callable")
	return bad
}

// construct checks T(args): vector and matrix constructors take scalars, vectors
// and matrices whose components add up; T(x) with one argument is a conversion.
func (c *checker) construct(t ir.Type, args []syntax.Expr, pos diag.Pos) operand {
	ops := c.operands(args)
	if ops == nil {
		return bad
	}
	if len(ops) == 1 {
		v := c.convertExplicit(ops[0], t, args[0].P())
		if v == nil {
			return bad
		}
		return valueOp(v, t, pos)
	}
	shape := shapeOf(t)
	if shape <= 0 {
		c.errorf(pos, diag.ErrConstructorArgs, "%s takes one argument", typeName(t))
		return bad
	}
	elem := scalarOf(t)
	total := 0
	for i, o := range ops {
		n := ir.Components(o.t)
		if n == 0 || shapeOf(o.t) < 0 {
			c.errorf(args[i].P(), diag.ErrConstructorArgs, "a %s constructor argument must be a scalar, vector or matrix, not %s", typeName(t), typeName(o.t))
			return bad
		}
		total += n
	}
	if total != ir.Components(t) {
		c.errorf(pos, diag.ErrConstructorArgs, "%s needs %d components, the arguments give %d", typeName(t), ir.Components(t), total)
		return bad
	}
	if vt, ok := t.(ir.Vector); ok {
		var cargs []ir.Expr
		allMat := false
		for i, o := range ops {
			if _, m := o.t.(ir.Matrix); m {
				allMat = true
			}
			v := c.convert(o, ir.WithScalar(o.t, vt.Elem), args[i].P(), true)
			if v == nil {
				return bad
			}
			cargs = append(cargs, v)
		}
		if !allMat {
			return valueOp(&ir.Construct{T: t, Args: cargs}, t, pos)
		}
	}
	// Matrices (and vectors from matrices): flatten to scalar components in row order.
	var comps []ir.Expr
	for i, o := range ops {
		v := c.convert(o, ir.WithScalar(o.t, elem), args[i].P(), true)
		if v == nil {
			return bad
		}
		switch vt := v.Type().(type) {
		case ir.Scalar:
			comps = append(comps, v)
		case ir.Vector:
			v = c.stable(v)
			for k := 0; k < vt.N; k++ {
				comps = append(comps, &ir.Swizzle{Base: v, Comps: []int{k}})
			}
		case ir.Matrix:
			v = c.stable(v)
			for r := 0; r < vt.Rows; r++ {
				row := &ir.Index{Base: v, Idx: ir.ConstInt(ir.I32, int64(r)), T: ir.Vector{Elem: vt.Elem, N: vt.Cols}}
				for k := 0; k < vt.Cols; k++ {
					comps = append(comps, &ir.Swizzle{Base: row, Comps: []int{k}})
				}
			}
		}
	}
	return valueOp(buildFromComponents(t, comps), t, pos)
}

// convertExplicit is a cast: numeric conversions plus (S)0-style zero/splat
// initialization of structs and arrays from a scalar.
func (c *checker) convertExplicit(o operand, t ir.Type, pos diag.Pos) ir.Expr {
	if shapeOf(o.t) == 0 && shapeOf(t) < 0 {
		switch t.(type) {
		case *ir.Struct, *ir.Array:
			v := c.stable(c.value(o))
			return c.splatAggregate(valueOp(v, o.t, pos), t, pos)
		}
	}
	return c.convert(o, t, pos, true)
}

// splatAggregate builds a struct or array with every scalar component set from a scalar.
func (c *checker) splatAggregate(o operand, t ir.Type, pos diag.Pos) ir.Expr {
	switch x := t.(type) {
	case *ir.Struct:
		args := make([]ir.Expr, len(x.Fields))
		for i, f := range x.Fields {
			args[i] = c.splatAggregate(o, f.Type, pos)
			if args[i] == nil {
				return nil
			}
		}
		return &ir.Construct{T: t, Args: args}
	case *ir.Array:
		el := c.splatAggregate(o, x.Elem, pos)
		if el == nil {
			return nil
		}
		args := make([]ir.Expr, x.Len)
		for i := range args {
			args[i] = el
		}
		return &ir.Construct{T: t, Args: args}
	}
	return c.convert(o, t, pos, true)
}

// operands checks a list of arguments; nil if any is invalid.
func (c *checker) operands(args []syntax.Expr) []operand {
	ops := make([]operand, len(args))
	okAll := true
	for i, a := range args {
		ops[i] = c.expr(a)
		if !ops[i].ok() && ops[i].kind != opResource {
			okAll = false
		} else if _, void := ops[i].t.(ir.Void); void && ops[i].kind != opResource {
			c.errorf(a.P(), diag.ErrTypeMismatch, "a void expression has no value")
			okAll = false
		}
	}
	if !okAll {
		return nil
	}
	return ops
}

// convRank ranks an implicit conversion for overload resolution:
// 0 exact, 1 promotion, 2 conversion, -1 impossible.
func convRank(o operand, to ir.Type) int {
	if sameLogical(o.t, to) {
		return 0
	}
	fs, ts := shapeOf(o.t), shapeOf(to)
	if fs < 0 || ts < 0 {
		return -1
	}
	fe, te := scalarOf(o.t), scalarOf(to)
	sameShape := fs == ts && ir.Components(o.t) == ir.Components(to)
	if sameShape {
		switch {
		case o.lit == litInt && te.Kind != ir.Bool:
			if te.Kind == ir.Float {
				return 2
			}
			return 1
		case o.lit == litFloat && te.Kind == ir.Float:
			return 1
		case fe.Kind == te.Kind && fe.Bits < te.Bits:
			return 1
		}
		return 2
	}
	switch {
	case fs == 0 && ts > 0:
		return 2
	case fs == 1 && ts == 0, fs == 1 && ts == 1 && ir.Components(o.t) > ir.Components(to):
		return 3 // truncation: worse than any other conversion
	}
	return -1
}

// userCall resolves an overloaded user function call and lowers out/inout
// arguments to copy-in/copy-out temporaries.
func (c *checker) userCall(name string, cands []*funcInfo, args []syntax.Expr, pos diag.Pos) operand {
	ops := c.operands(args)
	if ops == nil {
		return bad
	}
	type scored struct {
		fi    *funcInfo
		ranks []int
	}
	var viable []scored
	for _, fi := range cands {
		if len(args) > len(fi.params) {
			continue
		}
		okCount := true
		for i := len(args); i < len(fi.params); i++ {
			if fi.params[i].def == nil {
				okCount = false
			}
		}
		if !okCount {
			continue
		}
		ranks := make([]int, len(args))
		good := true
		for i, o := range ops {
			ranks[i] = convRank(o, fi.params[i].typ)
			if ranks[i] < 0 || o.kind == opResource {
				good = false
			}
		}
		if good {
			viable = append(viable, scored{fi, ranks})
		}
	}
	if len(viable) == 0 {
		var sigs []string
		for _, fi := range cands {
			sigs = append(sigs, c.signature(name, fi))
		}
		var got []string
		for _, o := range ops {
			got = append(got, typeName(o.t))
		}
		if len(cands) == 1 && len(args) != len(cands[0].params) {
			c.errorf(pos, diag.ErrArgCount, "%s takes %d arguments, got %d", sigs[0], len(cands[0].params), len(args))
		} else {
			c.errorf(pos, diag.ErrNoOverload, "no overload of %s accepts (%s); candidates: %s", name, strings.Join(got, ", "), strings.Join(sigs, "; "))
		}
		return bad
	}
	better := func(a, b scored) bool { // a at least as good everywhere and strictly better somewhere
		strict := false
		for i := range a.ranks {
			if a.ranks[i] > b.ranks[i] {
				return false
			}
			if a.ranks[i] < b.ranks[i] {
				strict = true
			}
		}
		return strict
	}
	var best []scored
	for _, v := range viable {
		dominated := false
		for _, w := range viable {
			if better(w, v) {
				dominated = true
				break
			}
		}
		if !dominated {
			best = append(best, v)
		}
	}
	if len(best) > 1 {
		var sigs []string
		for _, b := range best {
			sigs = append(sigs, c.signature(name, b.fi))
		}
		c.errorf(pos, diag.ErrAmbiguous, "call to %s is ambiguous between %s; add a cast to pick one", name, strings.Join(sigs, " and "))
		return bad
	}
	fi := best[0].fi
	if fi.fn == nil {
		return bad
	}
	if fi.decl.Body == nil {
		c.log.Add(diag.Msg{Severity: diag.Error, Code: diag.ErrUndefinedFunc, Pos: pos,
			Text:  fmt.Sprintf("function %s is declared but never defined", c.signature(name, fi)),
			Notes: []diag.Note{{Pos: fi.decl.NamePos, Text: "declared here"}}})
		return bad
	}
	var irArgs []ir.Expr
	type copyOut struct {
		target operand
		tmp    *ir.Local
	}
	var outs []copyOut
	for i, p := range fi.params {
		if i >= len(ops) {
			// Default argument: a constant expression checked in the caller.
			v := c.exprTo(p.def, p.typ)
			if v == nil {
				return bad
			}
			irArgs = append(irArgs, v)
			continue
		}
		o := ops[i]
		if p.dir == ir.In {
			v := c.convert(o, p.typ, args[i].P(), false)
			if v == nil {
				return bad
			}
			irArgs = append(irArgs, v)
			continue
		}
		if !c.writableFn(o, args[i].P(), diag.ErrOutArg, func() string {
			return fmt.Sprintf("argument %d of %s (an %s parameter)", i+1, name, dirName(p.dir))
		}) {
			return bad
		}
		o = c.stabilize(o)
		tmp := c.temp(p.name, p.typ)
		if p.dir == ir.InOut {
			v := c.convert(o, p.typ, args[i].P(), false)
			if v == nil {
				return bad
			}
			c.emit(&ir.Store{Place: &ir.LocalRef{L: tmp}, Value: v})
		}
		irArgs = append(irArgs, &ir.LocalRef{L: tmp})
		outs = append(outs, copyOut{o, tmp})
	}
	call := &ir.Call{Func: fi.fn, Args: irArgs, Pos: pos}
	if len(outs) == 0 {
		return valueOp(call, fi.result, pos)
	}
	var result operand
	if _, void := fi.result.(ir.Void); void {
		c.emit(&ir.ExprStmt{X: call})
		result = valueOp(nil, ir.Void{}, pos)
	} else {
		res := c.temp("ret", fi.result)
		c.emit(&ir.Store{Place: &ir.LocalRef{L: res}, Value: call})
		result = valueOp(&ir.Load{Place: &ir.LocalRef{L: res}}, fi.result, pos)
	}
	for _, out := range outs {
		v := c.convert(valueOp(&ir.Load{Place: &ir.LocalRef{L: out.tmp}}, out.tmp.Type, pos), out.target.t, pos, false)
		c.store(out.target, v)
	}
	return result
}

func dirName(d ir.ParamDir) string {
	switch d {
	case ir.Out:
		return "out"
	case ir.InOut:
		return "inout"
	}
	return "in"
}

func (c *checker) signature(name string, fi *funcInfo) string {
	var ps []string
	for _, p := range fi.params {
		s := typeName(p.typ)
		if p.dir != ir.In {
			s = dirName(p.dir) + " " + s
		}
		ps = append(ps, s)
	}
	return fmt.Sprintf("%s(%s)", name, strings.Join(ps, ", "))
}

// componentwiseLogic implements HLSL 2021's and(), or() and select().
func (c *checker) componentwiseLogic(name string, args []syntax.Expr, pos diag.Pos) operand {
	want := 2
	if name == "select" {
		want = 3
	}
	if len(args) != want {
		c.errorf(pos, diag.ErrArgCount, "%s takes %d arguments, got %d", name, want, len(args))
		return bad
	}
	ops := c.operands(args)
	if ops == nil {
		return bad
	}
	if name == "select" {
		cond, x, y := ops[0], ops[1], ops[2]
		t := c.commonType(x, y, pos)
		if t == nil || shapeOf(cond.t) < 0 {
			c.errorf(pos, diag.ErrTypeMismatch, "select branches have incompatible types %s and %s", typeName(x.t), typeName(y.t))
			return bad
		}
		if n := ir.Components(cond.t); shapeOf(cond.t) == 1 {
			if shapeOf(t) == 0 {
				t = ir.Vector{Elem: scalarOf(t), N: n}
			}
		}
		cv := c.convert(cond, ir.WithScalar(cond.t, ir.BoolT), args[0].P(), true)
		xv, yv := c.convert(x, t, args[1].P(), false), c.convert(y, t, args[2].P(), false)
		if cv == nil || xv == nil || yv == nil {
			return bad
		}
		return valueOp(&ir.Select{Cond: cv, True: xv, False: yv}, t, pos)
	}
	t := c.commonType(ops[0], ops[1], pos)
	if t == nil {
		c.errorf(pos, diag.ErrTypeMismatch, "%s arguments have incompatible types %s and %s", name, typeName(ops[0].t), typeName(ops[1].t))
		return bad
	}
	bt := ir.WithScalar(t, ir.BoolT)
	xv, yv := c.convert(ops[0], bt, args[0].P(), true), c.convert(ops[1], bt, args[1].P(), true)
	if xv == nil || yv == nil {
		return bad
	}
	op := ir.LogicalAnd
	if name == "or" {
		op = ir.LogicalOr
	}
	return valueOp(&ir.Binary{Op: op, X: xv, Y: yv, T: bt}, bt, pos)
}
