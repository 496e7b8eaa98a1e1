package sema

import (
	"waverig/compiler/diag"
	"waverig/compiler/intrinsics"
	"waverig/compiler/ir"
	"waverig/compiler/syntax"
)

// funcBody checks a function definition's body into its IR function.
func (c *checker) funcBody(fi *funcInfo) {
	fn := fi.fn
	var body ir.Block
	c.fn = &fnState{fn: fn, result: fi.result, stmts: &body}
	c.push()
	written := writtenNames(fi.decl.Body, c.isOutArg)
	for i, p := range fi.params {
		if fi.decl.Params[i].MeshQual != "" {
			// A mesh output or payload: the name denotes a global (see mesh.go).
			if g := c.meshParamGlobal(fi, i); g != nil && p.name != "" {
				c.declare(p.name, fi.decl.Params[i].NamePos, &symbol{kind: symGlobal, global: g, typ: p.typ, readOnly: g.Space == ir.SpaceTaskPayload})
			}
			continue
		}
		local := fn.Params[i].Local
		if p.dir == ir.In && written[p.name] {
			// In parameters are values: a function that writes one works on a copy.
			cp := fn.NewLocal(p.name, p.typ)
			local.Name = p.name + "_in"
			c.emit(&ir.Store{Place: &ir.LocalRef{L: cp}, Value: &ir.Load{Place: &ir.LocalRef{L: local}}})
			local = cp
		}
		if p.name != "" {
			c.declare(p.name, fi.decl.Params[i].NamePos, &symbol{kind: symLocal, local: local, typ: p.typ})
		}
	}
	c.stmts(fi.decl.Body.Stmts)
	c.pop()
	if _, void := fi.result.(ir.Void); !void && !terminates(body) {
		c.errorf(fi.decl.NamePos, diag.ErrMissingReturn, "function %s returns %s but can reach its end without a return statement", fi.decl.Name, typeName(fi.result))
	}
	fn.Body = body
	c.fn = nil
}

// isOutArg reports whether argument i of a call to name may be written (an out or
// inout parameter of some overload, or an intrinsic's place argument).
func (c *checker) isOutArg(name string, i int) bool {
	if sym := c.global.names[name]; sym != nil && sym.kind == symFunc {
		for _, fi := range sym.funcs {
			if i < len(fi.params) && fi.params[i].dir != ir.In {
				return true
			}
		}
		return false
	}
	// Any overload: asuint's double form writes its arguments 2 and 3.
	for _, info := range intrinsics.Overloads(name) {
		if i < len(info.Params) && info.Params[i].Place {
			return true
		}
	}
	return false
}

// writtenNames collects identifiers that are assigned, incremented or passed as
// possibly-written call arguments in a function body: the in parameters among them
// get a local copy.
func writtenNames(b *syntax.BlockStmt, isOut func(name string, i int) bool) map[string]bool {
	out := map[string]bool{}
	var root func(e syntax.Expr) string
	root = func(e syntax.Expr) string {
		switch x := e.(type) {
		case *syntax.Ident:
			return x.Name
		case *syntax.SelectorExpr:
			return root(x.X)
		case *syntax.IndexExpr:
			return root(x.X)
		case *syntax.ParenExpr:
			return root(x.X)
		}
		return ""
	}
	var expr func(e syntax.Expr)
	var stmt func(s syntax.Stmt)
	expr = func(e syntax.Expr) {
		switch x := e.(type) {
		case *syntax.AssignExpr:
			out[root(x.X)] = true
			expr(x.X)
			expr(x.Y)
		case *syntax.UnaryExpr:
			if x.Op == "++" || x.Op == "--" {
				out[root(x.X)] = true
			}
			expr(x.X)
		case *syntax.PostfixExpr:
			out[root(x.X)] = true
			expr(x.X)
		case *syntax.BinaryExpr:
			expr(x.X)
			expr(x.Y)
		case *syntax.CondExpr:
			expr(x.Cond)
			expr(x.X)
			expr(x.Y)
		case *syntax.CallExpr:
			id, _ := x.Fun.(*syntax.Ident)
			for i, a := range x.Args {
				if r := root(a); r != "" && id != nil && isOut(id.Name, i) {
					out[r] = true
				}
				expr(a)
			}
		case *syntax.MethodCall:
			// Resource methods write only GetDimensions' arguments and the
			// original-value argument of Interlocked* methods.
			expr(x.X)
			for i, a := range x.Args {
				writes := x.Name == "GetDimensions"
				if info, ok := intrinsics.Lookup(x.Name); ok && info.Class == intrinsics.ClassAtomic {
					writes = len(x.Args) == len(info.Params) && i == len(x.Args)-1
				}
				if r := root(a); r != "" && writes {
					out[r] = true
				}
				expr(a)
			}
		case *syntax.SelectorExpr:
			expr(x.X)
		case *syntax.IndexExpr:
			expr(x.X)
			expr(x.Index)
		case *syntax.CastExpr:
			expr(x.X)
		case *syntax.ParenExpr:
			expr(x.X)
		case *syntax.InitList:
			for _, y := range x.Elems {
				expr(y)
			}
		}
	}
	stmt = func(s syntax.Stmt) {
		switch x := s.(type) {
		case *syntax.BlockStmt:
			for _, y := range x.Stmts {
				stmt(y)
			}
		case *syntax.DeclStmt:
			for _, d := range x.Decls {
				if v, ok := d.(*syntax.VarDecl); ok && v.Init != nil {
					expr(v.Init)
				}
			}
		case *syntax.ExprStmt:
			expr(x.X)
		case *syntax.IfStmt:
			expr(x.Cond)
			stmt(x.Then)
			if x.Else != nil {
				stmt(x.Else)
			}
		case *syntax.ForStmt:
			if x.Init != nil {
				stmt(x.Init)
			}
			if x.Cond != nil {
				expr(x.Cond)
			}
			if x.Post != nil {
				expr(x.Post)
			}
			stmt(x.Body)
		case *syntax.WhileStmt:
			expr(x.Cond)
			stmt(x.Body)
		case *syntax.DoWhileStmt:
			stmt(x.Body)
			expr(x.Cond)
		case *syntax.SwitchStmt:
			expr(x.Tag)
			for _, cl := range x.Cases {
				for _, y := range cl.Body {
					stmt(y)
				}
			}
		case *syntax.ReturnStmt:
			if x.Value != nil {
				expr(x.Value)
			}
		}
	}
	if b != nil {
		stmt(b)
	}
	return out
}

// terminates reports whether control cannot fall off the end of b.
func terminates(b ir.Block) bool {
	if len(b) == 0 {
		return false
	}
	switch s := b[len(b)-1].(type) {
	case *ir.Return, *ir.Discard:
		return true
	case *ir.If:
		return terminates(s.Then) && terminates(s.Else)
	case *ir.Loop:
		// A loop is left only by break: without one that targets it, it never ends.
		return s.BreakIf == nil && !breaksOut(s.Body) && !breaksOut(s.Continuing)
	case *ir.Switch:
		hasDefault := false
		for _, cs := range s.Cases {
			if cs.Default {
				hasDefault = true
			}
			if !terminates(cs.Body) || breaksOut(cs.Body) {
				return false
			}
		}
		return hasDefault
	}
	return false
}

// breaksOut reports a Break in b that targets the enclosing construct (not one
// inside a nested loop or switch).
func breaksOut(b ir.Block) bool {
	for _, s := range b {
		switch x := s.(type) {
		case *ir.Break:
			return true
		case *ir.If:
			if breaksOut(x.Then) || breaksOut(x.Else) {
				return true
			}
		}
	}
	return false
}

func (c *checker) stmts(list []syntax.Stmt) {
	for _, s := range list {
		c.stmt(s)
	}
}

// block checks a nested statement into a new IR block with its own scope.
func (c *checker) block(s syntax.Stmt) ir.Block {
	return c.collect(func() {
		c.push()
		c.stmt(s)
		c.pop()
	})
}

func hasAttr(attrs []syntax.Attribute, name string) bool {
	for _, a := range attrs {
		if a.Namespace == "" && a.Name == name {
			return true
		}
	}
	return false
}

func (c *checker) stmt(s syntax.Stmt) {
	switch s := s.(type) {
	case *syntax.BlockStmt:
		c.push()
		c.stmts(s.Stmts)
		c.pop()
	case *syntax.EmptyStmt:
	case *syntax.DeclStmt:
		for _, d := range s.Decls {
			c.localDecl(d)
		}
	case *syntax.ExprStmt:
		c.exprStmt(s.X)
	case *syntax.IfStmt:
		cond := c.condition(s.Cond)
		then := c.block(s.Then)
		var els ir.Block
		if s.Else != nil {
			els = c.block(s.Else)
		}
		if cond != nil {
			c.emit(&ir.If{Cond: cond, Then: then, Else: els})
		}
	case *syntax.ForStmt:
		c.push()
		if s.Init != nil {
			c.stmt(s.Init)
		}
		loop := &ir.Loop{Unroll: hasAttr(s.Attrs, "unroll")}
		loop.Body = c.collect(func() {
			if s.Cond != nil {
				c.breakUnless(s.Cond)
			}
			c.loopBody(s.Body)
		})
		if s.Post != nil {
			loop.Continuing = c.collect(func() { c.exprStmt(s.Post) })
		}
		c.pop()
		c.emit(loop)
	case *syntax.WhileStmt:
		loop := &ir.Loop{Unroll: hasAttr(s.Attrs, "unroll")}
		loop.Body = c.collect(func() {
			c.breakUnless(s.Cond)
			c.loopBody(s.Body)
		})
		c.emit(loop)
	case *syntax.DoWhileStmt:
		loop := &ir.Loop{Unroll: hasAttr(s.Attrs, "unroll")}
		loop.Body = c.collect(func() { c.loopBody(s.Body) })
		loop.Continuing = c.collect(func() {
			if cond := c.condition(s.Cond); cond != nil {
				loop.BreakIf = negate(cond)
			}
		})
		c.emit(loop)
	case *syntax.SwitchStmt:
		c.switchStmt(s)
	case *syntax.BreakStmt:
		if c.fn.breaks == 0 {
			c.errorf(s.Pos, diag.ErrJumpOutside, "break outside a loop or switch")
			return
		}
		c.emit(&ir.Break{})
	case *syntax.ContinueStmt:
		if c.fn.loops == 0 {
			c.errorf(s.Pos, diag.ErrJumpOutside, "continue outside a loop")
			return
		}
		c.emit(&ir.Continue{})
	case *syntax.DiscardStmt:
		c.emit(&ir.Discard{})
		c.discards = append(c.discards, discardAt{c.fn.fn, s.Pos})
	case *syntax.ReturnStmt:
		c.returnStmt(s)
	default:
		c.errorf(s.P(), diag.ErrBadDeclaration, "unsupported statement")
	}
}

type discardAt struct {
	fn  *ir.Function
	pos diag.Pos
}

// negate is !cond, folding double negation.
func negate(cond ir.Expr) ir.Expr {
	if u, ok := cond.(*ir.Unary); ok && u.Op == ir.Not {
		return u.X
	}
	return &ir.Unary{Op: ir.Not, X: cond}
}

// breakUnless emits `if (!cond) break;` (condition side effects included).
func (c *checker) breakUnless(e syntax.Expr) {
	cond := c.condition(e)
	if cond == nil {
		return
	}
	if k, ok := cond.(*ir.Const); ok && k.Bits != 0 {
		return // while (true)
	}
	c.emit(&ir.If{Cond: negate(cond), Then: ir.Block{&ir.Break{}}})
}

func (c *checker) loopBody(s syntax.Stmt) {
	c.fn.loops++
	c.fn.breaks++
	c.push()
	c.stmt(s)
	c.pop()
	c.fn.loops--
	c.fn.breaks--
}

// exprStmt evaluates an expression statement; ++/-- and assignments need no result.
func (c *checker) exprStmt(e syntax.Expr) {
	for {
		p, ok := e.(*syntax.ParenExpr)
		if !ok {
			break
		}
		e = p.X
	}
	switch x := e.(type) {
	case *syntax.PostfixExpr:
		c.incDec(x.X, x.Op, x.Pos, true, true)
		return
	case *syntax.UnaryExpr:
		if x.Op == "++" || x.Op == "--" {
			c.incDec(x.X, x.Op, x.Pos, false, true)
			return
		}
	case *syntax.BinaryExpr:
		if x.Op == "," {
			c.exprStmt(x.X)
			c.exprStmt(x.Y)
			return
		}
	}
	o := c.expr(e)
	if o.kind == opValue && o.e != nil {
		c.discard(o)
	}
}

func (c *checker) returnStmt(s *syntax.ReturnStmt) {
	_, void := c.fn.result.(ir.Void)
	switch {
	case s.Value == nil && !void:
		c.errorf(s.Pos, diag.ErrReturnType, "function returns %s: return needs a value", typeName(c.fn.result))
	case s.Value != nil && void:
		o := c.expr(s.Value)
		if _, isVoid := o.t.(ir.Void); o.ok() && !isVoid {
			c.errorf(s.Value.P(), diag.ErrReturnType, "a void function cannot return a value")
			return
		}
		c.discard(o)
		c.emit(&ir.Return{})
	case s.Value == nil:
		c.emit(&ir.Return{})
	default:
		o := c.expr(s.Value)
		if !o.ok() {
			return
		}
		if convRank(o, c.fn.result) < 0 && !(shapeOf(o.t) >= 0 && shapeOf(c.fn.result) >= 0) {
			c.errorf(s.Value.P(), diag.ErrReturnType, "cannot return %s from a function returning %s", typeName(o.t), typeName(c.fn.result))
			return
		}
		v := c.convert(o, c.fn.result, s.Value.P(), false)
		if v != nil {
			c.emit(&ir.Return{Value: v})
		}
	}
}

// localDecl declares local variables, local structs and typedefs.
func (c *checker) localDecl(d syntax.Decl) {
	switch d := d.(type) {
	case *syntax.StructDecl:
		c.structDecl(d)
	case *syntax.TypedefDecl:
		c.typedefDecl(d)
	case *syntax.DeclGroup:
		for _, x := range d.Decls {
			c.localDecl(x)
		}
	case *syntax.VarDecl:
		c.localVar(d)
	default:
		c.errorf(d.P(), diag.ErrBadDeclaration, "this declaration is not allowed inside a function")
	}
}

func (c *checker) localVar(d *syntax.VarDecl) {
	t, r := c.resolveType(d.Type)
	if r != nil {
		c.errorf(d.Type.Pos, diag.ErrBadDeclaration, "resources must be declared at global scope")
		return
	}
	if t == nil {
		return
	}
	if _, ok := t.(ir.Void); ok {
		c.errorf(d.Type.Pos, diag.ErrBadDeclaration, "a variable cannot be void")
		return
	}
	if hasStorage(d.Storage, "groupshared") {
		c.errorf(d.NamePos, diag.ErrBadDeclaration, "groupshared variables must be declared at global scope")
		return
	}
	t = stripLayout(t)
	var leaves []operand
	unsized := 0
	if il, ok := d.Init.(*syntax.InitList); ok {
		before := c.log.ErrorCount()
		leaves = c.initLeaves(il)
		if c.log.ErrorCount() > before {
			return
		}
		if leaves == nil {
			leaves = []operand{} // `= {}`: buildInit reports the missing values
		}
		if len(d.ArrayDims) > 0 && d.ArrayDims[0] == nil {
			unsized = 1
		}
	}
	t = c.arrayDecl(t, d, leaves, unsized)
	if t == nil {
		return
	}
	if hasStorage(d.Storage, "static") {
		// A static local lives for the whole invocation: a private global.
		g := &ir.Global{Name: c.uniqueGlobalName(c.fn.fn.Name + "_" + d.Name), Type: t, Space: ir.SpacePrivate, Pos: d.NamePos}
		if d.Init != nil {
			g.Init = c.constInit(d.Init, t, leaves)
		}
		g.Const = hasStorage(d.Storage, "const")
		c.mod.Globals = append(c.mod.Globals, g)
		c.declare(d.Name, d.NamePos, &symbol{kind: symGlobal, global: g, typ: t, readOnly: g.Const})
		return
	}
	var init ir.Expr
	if d.Init != nil {
		if leaves != nil {
			init = c.buildInit(leaves, t, d.Init.P())
		} else {
			init = c.exprTo(d.Init, t)
		}
	}
	l := c.fn.fn.NewLocal(d.Name, t)
	sym := &symbol{kind: symLocal, local: l, typ: t, readOnly: hasStorage(d.Storage, "const")}
	if init != nil {
		c.emit(&ir.Store{Place: &ir.LocalRef{L: l}, Value: init})
		if sym.readOnly {
			if k, ok := c.fold(init); ok {
				c.localConst[l] = k
				sym.constVal = k
			}
		}
	} else if sym.readOnly {
		c.errorf(d.NamePos, diag.ErrStaticInit, "const variable %q needs an initializer", d.Name)
	}
	c.declare(d.Name, d.NamePos, sym)
}

// switchStmt lowers a switch. Clauses with no statements are merged into the next
// one (HLSL's only allowed fall-through); a non-empty clause that can fall into the
// next is an error.
func (c *checker) switchStmt(s *syntax.SwitchStmt) {
	o := c.expr(s.Tag)
	if !o.ok() {
		return
	}
	st := scalarOf(o.t)
	if shapeOf(o.t) != 0 || (st.Kind != ir.Sint && st.Kind != ir.Uint && o.lit == litNone) {
		c.errorf(s.Tag.P(), diag.ErrSwitchSelector, "a switch selector must be a scalar int or uint, not %s", typeName(o.t))
		return
	}
	selT := st
	if o.lit != litNone || st.Bits != 32 {
		selT = ir.Scalar{Kind: st.Kind, Bits: 32}
		if o.lit != litNone {
			selT = ir.I32
		}
	}
	sel := c.convert(o, selT, s.Tag.P(), true)
	if sel == nil {
		return
	}
	sw := &ir.Switch{Selector: sel}
	seen := map[int64]diag.Pos{}
	var defaultPos *diag.Pos
	pending := &ir.Case{}
	c.fn.breaks++
	for i, cl := range s.Cases {
		for _, v := range cl.Values {
			k, ok := c.constExpr(v)
			if !ok {
				continue
			}
			if k.T.Kind != ir.Sint && k.T.Kind != ir.Uint {
				c.errorf(v.P(), diag.ErrSwitchSelector, "case labels must be integer constants, not %s", scalarName(k.T))
				continue
			}
			val := signExtend(convertConst(k, selT))
			if prev, dup := seen[val]; dup {
				c.log.Add(diag.Msg{Severity: diag.Error, Code: diag.ErrDuplicateCase, Pos: v.P(),
					Text: "duplicate case value", Notes: []diag.Note{{Pos: prev, Text: "previous case here"}}})
				continue
			}
			seen[val] = v.P()
			pending.Values = append(pending.Values, val)
		}
		if cl.Default {
			if defaultPos != nil {
				c.log.Add(diag.Msg{Severity: diag.Error, Code: diag.ErrDuplicateCase, Pos: cl.Pos,
					Text: "more than one default label", Notes: []diag.Note{{Pos: *defaultPos, Text: "previous default here"}}})
			}
			p := cl.Pos
			defaultPos = &p
			pending.Default = true
		}
		if len(cl.Body) == 0 && i < len(s.Cases)-1 {
			continue // empty clause: merged with the next
		}
		pending.Body = c.collect(func() {
			c.push()
			c.stmts(cl.Body)
			c.pop()
		})
		if !endsInJump(pending.Body) {
			if i < len(s.Cases)-1 {
				c.errorf(s.Cases[i+1].Pos, diag.ErrFallThrough, "the previous case falls through into this one; HLSL allows fall-through only from empty cases: end it with break")
			}
			pending.Body = append(pending.Body, &ir.Break{})
		}
		sw.Cases = append(sw.Cases, pending)
		pending = &ir.Case{}
	}
	c.fn.breaks--
	c.emit(sw)
}

// endsInJump reports whether a case body cannot fall through.
func endsInJump(b ir.Block) bool {
	if len(b) == 0 {
		return false
	}
	switch s := b[len(b)-1].(type) {
	case *ir.Break, *ir.Return, *ir.Continue, *ir.Discard:
		return true
	case *ir.If:
		return endsInJump(s.Then) && endsInJump(s.Else)
	}
	return terminates(b)
}
