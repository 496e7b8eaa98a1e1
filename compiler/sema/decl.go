package sema

import (
	"fmt"

	"waverig/compiler/diag"
	"waverig/compiler/ir"
	"waverig/compiler/syntax"
)

// resourceDecl remembers what binding assignment needs about one resource.
type resourceDecl struct {
	g         *ir.Global
	class     byte // register class: 'b', 't', 'u', 's'
	reg       *syntax.Register
	vkBinding *[2]int // [[vk::binding(b, s)]]
	pos       diag.Pos
}

// Attributes sema understands, by where they appear; others get W0202.
func funcAttrs(name string) bool {
	return name == "shader" || name == "numthreads" || name == "outputtopology" || isWaveSize(name) || isHelperLanes(name)
}

func globalAttrs(name string) bool {
	return name == "vk::binding" || name == "vk::push_constant" || name == "vk::constant_id"
}

// warnUnknownAttrs reports attributes that are ignored.
func (c *checker) warnUnknownAttrs(attrs []syntax.Attribute, known func(name string) bool) {
	for _, a := range attrs {
		name := a.Name
		if a.Namespace != "" {
			name = a.Namespace + "::" + a.Name
		}
		if !known(name) {
			c.warnf(a.Pos, diag.WarnIgnoredAttribute, "attribute [%s] is not understood here and is ignored", name)
		}
	}
}

func hasStorage(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func findAttr(attrs []syntax.Attribute, ns, name string) *syntax.Attribute {
	for i := range attrs {
		if attrs[i].Namespace == ns && attrs[i].Name == name {
			return &attrs[i]
		}
	}
	return nil
}

// registerClass is the register letter a resource kind uses.
func registerClass(k ir.ResourceKind) byte {
	switch k {
	case ir.ResConstantBuffer:
		return 'b'
	case ir.ResRWStructuredBuffer, ir.ResRWByteAddressBuffer, ir.ResRWTexture2D:
		return 'u'
	case ir.ResSampler:
		return 's'
	}
	return 't'
}

// globalVar declares a global variable: a resource, groupshared, static, a
// static const or a specialization constant.
func (c *checker) globalVar(d *syntax.VarDecl) {
	t, r := c.resolveType(d.Type)
	if t == nil && r == nil {
		return
	}
	c.warnUnknownAttrs(d.Attrs, globalAttrs)
	pushConst := findAttr(d.Attrs, "vk", "push_constant") != nil
	if r != nil {
		c.resourceVar(d, r, pushConst)
		return
	}
	if _, ok := t.(ir.Void); ok {
		c.errorf(d.Type.Pos, diag.ErrBadDeclaration, "a variable cannot be void")
		return
	}
	t = stripLayout(t)
	if pushConst {
		st, ok := t.(*ir.Struct)
		if !ok || len(d.ArrayDims) > 0 {
			c.errorf(d.NamePos, diag.ErrBadAttribute, "[[vk::push_constant]] needs a struct variable or ConstantBuffer<T>")
			return
		}
		c.layoutStruct(st, layoutStorage, d.NamePos)
		g := &ir.Global{Name: c.uniqueGlobalName(d.Name), Type: st, Space: ir.SpacePushConstant, Resource: ir.ResPushConstant, Pos: d.NamePos}
		c.mod.Globals = append(c.mod.Globals, g)
		c.declare(d.Name, d.NamePos, &symbol{kind: symGlobal, global: g, typ: st, readOnly: true})
		return
	}
	static := hasStorage(d.Storage, "static")
	isConst := hasStorage(d.Storage, "const")
	shared := hasStorage(d.Storage, "groupshared")
	spec := findAttr(d.Attrs, "vk", "constant_id")
	var unsized int
	var leaves []operand
	if len(d.ArrayDims) > 0 && d.ArrayDims[0] == nil {
		if il, ok := d.Init.(*syntax.InitList); ok {
			before := c.log.ErrorCount()
			c.inScratch(func() { leaves = c.initLeaves(il) })
			if c.log.ErrorCount() > before {
				return // the initializer's errors are reported; no size to infer
			}
			unsized = 1
		}
	}
	t = c.arrayDecl(t, d, leaves, unsized)
	if t == nil {
		return
	}
	g := &ir.Global{Name: c.uniqueGlobalName(d.Name), Type: t, Pos: d.NamePos}
	sym := &symbol{kind: symGlobal, global: g, typ: t}
	switch {
	case shared:
		g.Space = ir.SpaceWorkgroup
		if d.Init != nil {
			c.errorf(d.Init.P(), diag.ErrStaticInit, "groupshared variables cannot have initializers; initialize them in the entry point")
		}
	case spec != nil:
		g.Space = ir.SpacePrivate
		g.Const, g.Spec = true, true
		sym.readOnly = true
		if len(spec.Args) != 1 {
			c.errorf(spec.Pos, diag.ErrBadAttribute, "[[vk::constant_id(n)]] takes one integer")
		} else if id, ok := c.constInt(spec.Args[0]); ok {
			g.SpecID = int(id)
		}
		if shapeOf(t) != 0 {
			c.errorf(d.NamePos, diag.ErrBadAttribute, "a specialization constant must be a scalar, not %s", typeName(t))
		}
		if d.Init == nil {
			c.errorf(d.NamePos, diag.ErrStaticInit, "a specialization constant needs a default value")
		} else {
			g.Init = c.constInit(d.Init, t, leaves)
		}
	case static || isConst:
		g.Space = ir.SpacePrivate
		if isConst {
			g.Const = true
			sym.readOnly = true
			if d.Init == nil {
				c.errorf(d.NamePos, diag.ErrStaticInit, "a const global needs an initializer")
			}
		}
		if d.Init != nil {
			g.Init = c.constInit(d.Init, t, leaves)
			if k, ok := g.Init.(*ir.Const); ok && g.Const {
				sym.constVal = k
			}
		}
	default:
		c.errorf(d.NamePos, diag.ErrImplicitUniform, "global variable %q without static is an implicit $Globals constant buffer member, which waverig does not support; declare it static (or static const), or put it in a cbuffer", d.Name)
		return
	}
	if d.Register != nil || d.Semantic != "" {
		c.errorf(d.NamePos, diag.ErrBadAttribute, "only resources take a register or semantic at global scope")
	}
	c.mod.Globals = append(c.mod.Globals, g)
	c.declare(d.Name, d.NamePos, sym)
}

// inScratch runs f with a throw-away function context (global initializers).
func (c *checker) inScratch(f func()) {
	saved := c.fn
	var scratch ir.Block
	if c.fn == nil {
		c.fn = &fnState{fn: &ir.Function{Name: "<init>"}, stmts: &scratch}
	}
	f()
	c.fn = saved
}

// arrayDecl applies a declaration's array dimensions; an unsized first dimension
// takes its length from the initializer leaves.
func (c *checker) arrayDecl(t ir.Type, d *syntax.VarDecl, leaves []operand, unsized int) ir.Type {
	dims := d.ArrayDims
	if unsized == 0 || len(dims) == 0 || dims[0] != nil {
		return c.arrayOf(t, dims, d.NamePos)
	}
	elem := c.arrayOf(t, dims[1:], d.NamePos)
	if elem == nil {
		return nil
	}
	total := 0
	for _, l := range leaves {
		total += flatCount(l.t)
	}
	per := flatCount(elem)
	if per == 0 || total == 0 || total%per != 0 {
		c.errorf(d.NamePos, diag.ErrArraySize, "cannot infer the size of %q from its initializer (%d components for elements of %d)", d.Name, total, per)
		return nil
	}
	return &ir.Array{Elem: elem, Len: total / per}
}

// constInit checks a global initializer: it must be a constant expression.
func (c *checker) constInit(init syntax.Expr, t ir.Type, leaves []operand) ir.Expr {
	saved := c.fn
	var scratch ir.Block
	c.fn = &fnState{fn: &ir.Function{Name: "<init>"}, stmts: &scratch}
	var v ir.Expr
	if il, ok := init.(*syntax.InitList); ok {
		if leaves == nil {
			leaves = c.initLeaves(il)
		}
		v = c.buildInit(leaves, t, il.Pos)
	} else {
		v = c.exprTo(init, t)
	}
	c.fn = saved
	if v == nil {
		return nil
	}
	if k, ok := c.foldComposite(v); ok && len(scratch) == 0 {
		return k
	}
	c.errorf(init.P(), diag.ErrStaticInit, "a global initializer must be a constant expression")
	return nil
}

// resourceVar declares a resource global.
func (c *checker) resourceVar(d *syntax.VarDecl, r *resType, pushConst bool) {
	if len(d.ArrayDims) > 0 {
		c.errorf(d.NamePos, diag.ErrUnsupportedType, "arrays of resources are not supported")
		return
	}
	if d.Init != nil {
		c.errorf(d.Init.P(), diag.ErrBadDeclaration, "a resource cannot have an initializer")
	}
	g := &ir.Global{Name: c.uniqueGlobalName(d.Name), Resource: r.kind, Pos: d.NamePos}
	sym := &symbol{kind: symGlobal, global: g, res: r}
	switch r.kind {
	case ir.ResStructuredBuffer, ir.ResRWStructuredBuffer:
		elem, size, align := c.layout(r.store, layoutStorage, d.NamePos)
		g.Type = &ir.Array{Elem: elem, Stride: roundUp(size, align)}
		g.Space = ir.SpaceStorage
		if r.kind == ir.ResStructuredBuffer {
			g.Space = ir.SpaceStorageRead
		}
	case ir.ResByteAddressBuffer, ir.ResRWByteAddressBuffer:
		g.Type = &ir.Array{Elem: ir.U32, Stride: 4}
		g.Space = ir.SpaceStorage
		if r.kind == ir.ResByteAddressBuffer {
			g.Space = ir.SpaceStorageRead
		}
	case ir.ResConstantBuffer:
		st := r.elem.(*ir.Struct)
		rule := layoutUniform
		g.Space = ir.SpaceUniform
		if pushConst {
			rule, g.Space, g.Resource = layoutStorage, ir.SpacePushConstant, ir.ResPushConstant
		}
		c.layoutStruct(st, rule, d.NamePos)
		g.Type = st
		// ConstantBuffer<T> cb is used like a read-only struct variable: cb.member.
		sym.res = nil
		sym.typ = st
		sym.readOnly = true
	case ir.ResTexture2D, ir.ResRWTexture2D:
		g.Type = r.tex
		g.Space = ir.SpaceHandle
	case ir.ResSampler:
		g.Type = ir.Sampler{}
		g.Space = ir.SpaceHandle
	}
	if r.kind == ir.ResStructuredBuffer || r.kind == ir.ResByteAddressBuffer || r.kind == ir.ResTexture2D {
		sym.readOnly = true
	}
	c.mod.Globals = append(c.mod.Globals, g)
	c.declare(d.Name, d.NamePos, sym)
	if g.Space != ir.SpacePushConstant {
		c.addResource(g, d.Register, d.Attrs, d.NamePos)
	}
}

// addResource records a resource for binding assignment.
func (c *checker) addResource(g *ir.Global, reg *syntax.Register, attrs []syntax.Attribute, pos diag.Pos) {
	rd := &resourceDecl{g: g, class: registerClass(g.Resource), reg: reg, pos: pos}
	if reg != nil && reg.Class != rd.class {
		c.errorf(reg.Pos, diag.ErrBadAttribute, "%s %q needs a %c register, not %c%d", g.Resource, g.Name, rd.class, reg.Class, reg.Index)
	}
	if a := findAttr(attrs, "vk", "binding"); a != nil {
		if len(a.Args) < 1 || len(a.Args) > 2 {
			c.errorf(a.Pos, diag.ErrBadAttribute, "[[vk::binding(binding[, set])]] takes one or two integers")
		} else {
			b, ok1 := c.constInt(a.Args[0])
			var s int64
			ok2 := true
			if len(a.Args) == 2 {
				s, ok2 = c.constInt(a.Args[1])
			}
			if ok1 && ok2 {
				if b < 0 || s < 0 {
					c.errorf(a.Pos, diag.ErrBadAttribute, "binding and set must not be negative")
				} else if b > maxBinding || s > maxBinding {
					c.errorf(a.Pos, diag.ErrBindingRange, "[[vk::binding(%d, %d)]]: binding and set must fit in 32 bits (at most %d)", b, s, int64(maxBinding))
				} else {
					rd.vkBinding = &[2]int{int(b), int(s)}
				}
			}
		}
	}
	c.resources = append(c.resources, rd)
}

// cbufferDecl declares `cbuffer Name { members }`: a uniform global of a struct
// type whose members are referenced by bare name.
func (c *checker) cbufferDecl(d *syntax.CBufferDecl) {
	st := c.structDecl(&syntax.StructDecl{Pos: d.Pos, Name: "", Members: d.Members})
	st.Name = d.Name
	kind := ir.ResConstantBuffer
	space := ir.SpaceUniform
	rule := layoutUniform
	if d.TBuffer {
		c.errorf(d.Pos, diag.ErrUnsupportedType, "tbuffer is not supported; use StructuredBuffer or cbuffer")
		return
	}
	c.warnUnknownAttrs(d.Attrs, globalAttrs)
	pushConst := findAttr(d.Attrs, "vk", "push_constant") != nil
	if pushConst {
		kind, space, rule = ir.ResPushConstant, ir.SpacePushConstant, layoutStorage
	}
	c.layoutStruct(st, rule, d.Pos)
	g := &ir.Global{Name: c.uniqueGlobalName(d.Name), Type: st, Space: space, Resource: kind, Pos: d.Pos}
	c.mod.Globals = append(c.mod.Globals, g)
	info := c.structInfo[st]
	for i, f := range st.Fields {
		c.declare(f.Name, d.Members[memberIndex(d.Members, f.Name)].NamePos, &symbol{kind: symCBufMember, global: g, field: i, typ: info.fields[i], readOnly: true})
	}
	if !pushConst {
		c.addResource(g, d.Register, d.Attrs, d.Pos)
	}
}

func memberIndex(ms []*syntax.VarDecl, name string) int {
	for i, m := range ms {
		if m.Name == name {
			return i
		}
	}
	return 0
}

// funcDecl declares a function (or overload); bodies are checked after all
// declarations so calls may refer to functions defined later.
func (c *checker) funcDecl(d *syntax.FuncDecl) {
	rt, r := c.resolveType(d.Result)
	if r != nil {
		c.errorf(d.Result.Pos, diag.ErrUnsupportedType, "functions cannot return resources")
		return
	}
	if rt == nil {
		return
	}
	rt = stripLayout(rt)
	c.warnUnknownAttrs(d.Attrs, funcAttrs)
	fi := &funcInfo{decl: d, result: rt, attrs: d.Attrs}
	okAll := true
	for _, p := range d.Params {
		pt, pr := c.resolveType(p.Type)
		if pr != nil {
			c.errorf(p.Type.Pos, diag.ErrUnsupportedType, "resource parameters are not supported; use the global resource directly")
			okAll = false
			continue
		}
		if pt == nil {
			okAll = false
			continue
		}
		pt = c.arrayOf(stripLayout(pt), p.ArrayDims, p.NamePos)
		if pt == nil {
			okAll = false
			continue
		}
		dir := ir.In
		switch p.ParamDir {
		case "out":
			dir = ir.Out
		case "inout":
			dir = ir.InOut
		}
		fi.params = append(fi.params, paramInfo{name: p.Name, typ: pt, dir: dir, def: p.Init})
	}
	if !okAll {
		return
	}
	sym := c.global.names[d.Name]
	if sym != nil && sym.kind != symFunc {
		c.declare(d.Name, d.NamePos, &symbol{kind: symFunc})
		return
	}
	if sym == nil {
		sym = &symbol{kind: symFunc}
		c.declare(d.Name, d.NamePos, sym)
	}
	for _, prev := range sym.funcs {
		if !sameParams(prev.params, fi.params) {
			continue
		}
		if !sameLogical(prev.result, fi.result) {
			c.errorf(d.NamePos, diag.ErrFuncRedefined, "%s differs from an earlier declaration only in its result type (%s vs %s)", d.Name, typeName(fi.result), typeName(prev.result))
			return
		}
		switch {
		case d.Body == nil:
			return // a repeated prototype
		case prev.decl.Body == nil:
			// The definition of an earlier prototype: the IR function is shared.
			prev.decl = d
			prev.attrs = append(prev.attrs, d.Attrs...)
			prev.fn.Pos = d.NamePos
			for i, p := range fi.params {
				prev.fn.Params[i].Local.Name = p.name
				prev.params[i].name = p.name
			}
			return
		default:
			c.log.Add(diag.Msg{Severity: diag.Error, Code: diag.ErrFuncRedefined, Pos: d.NamePos,
				Text:  fmt.Sprintf("function %s is already defined", c.signature(d.Name, fi)),
				Notes: []diag.Note{{Pos: prev.decl.NamePos, Text: "previous definition here"}}})
			return
		}
	}
	fn := &ir.Function{Name: c.uniqueFuncName(d.Name), Result: rt, Pos: d.NamePos}
	for _, p := range fi.params {
		fn.Params = append(fn.Params, ir.Param{Local: fn.NewLocal(p.name, p.typ), Dir: p.dir})
	}
	fi.fn = fn
	sym.funcs = append(sym.funcs, fi)
	c.funcs = append(c.funcs, fi)
}

func sameParams(a, b []paramInfo) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !sameLogical(a[i].typ, b[i].typ) || a[i].dir != b[i].dir {
			return false
		}
	}
	return true
}
