package wgsl

import (
	"strings"

	"waverig/compiler/diag"
	"waverig/compiler/internal/textgen"
	"waverig/compiler/intrinsics"
	"waverig/compiler/ir"
)

// funcEmitter prints one function body.
type funcEmitter struct {
	e      *emitter
	f      *ir.Function
	names  *namer
	locals map[*ir.Local]string
	ptr    map[*ir.Local]bool // out/inout parameters: ptr<function, T>
	b      *strings.Builder
	depth  int
	tmp    int

	// Early-return restructuring (see restructure.go); nil when not needed.
	rw *rewrite
}

func newFuncEmitter(e *emitter, f *ir.Function) *funcEmitter {
	fe := &funcEmitter{e: e, f: f, names: newNamer(e.names), locals: map[*ir.Local]string{}, ptr: map[*ir.Local]bool{}}
	return fe
}

func (fe *funcEmitter) pos() diag.Pos {
	if fe.f != nil {
		return fe.f.Pos
	}
	return diag.Pos{}
}

func (fe *funcEmitter) line(format string, args ...any) {
	textgen.Line(fe.b, fe.depth, "  ", format, args...)
}

func (fe *funcEmitter) lineS(parts ...string) {
	textgen.LineS(fe.b, fe.depth, "  ", parts...)
}

func (fe *funcEmitter) writeIndent() {
	textgen.Indent(fe.b, fe.depth, "  ")
}

func (fe *funcEmitter) temp(prefix string) string {
	fe.tmp++
	return fe.names.internal("wr_" + prefix + textgen.Dec(fe.tmp))
}

// emit prints the function. In parameters that the body assigns are copied
// into a var (WGSL parameters are immutable); out/inout parameters are
// pointers (the IR passes LocalRefs of temporaries for them).
func (fe *funcEmitter) emit(b *strings.Builder) {
	f := fe.f
	fe.b = b
	assigned := map[*ir.Local]bool{}
	ir.WalkBlock(f.Body, func(s ir.Stmt) {
		if st, ok := s.(*ir.Store); ok {
			if l := rootLocal(st.Place); l != nil {
				assigned[l] = true
			}
		}
	}, func(x ir.Expr) {
		// A local passed to an out parameter is assigned too.
		if c, ok := x.(*ir.Call); ok {
			for i, a := range c.Args {
				if i < len(c.Func.Params) && c.Func.Params[i].Dir != ir.In {
					if l := rootLocal(a); l != nil {
						assigned[l] = true
					}
				}
			}
		}
	})
	var params []string
	var copies []string
	isParam := map[*ir.Local]bool{}
	for _, p := range f.Params {
		isParam[p.Local] = true
		name := fe.names.fresh(p.Local.Name)
		fe.locals[p.Local] = name
		t := fe.e.typ(p.Local.Type, view{}, f.Pos)
		switch {
		case p.Dir != ir.In:
			fe.ptr[p.Local] = true
			params = append(params, name+": ptr<function, "+t+">")
		case assigned[p.Local]:
			in := fe.names.fresh(p.Local.Name + "_in")
			params = append(params, in+": "+t)
			copies = append(copies, "var "+name+": "+t+" = "+in+";")
		default:
			params = append(params, name+": "+t)
		}
	}
	result := ""
	if _, void := f.Result.(ir.Void); !void && f.Result != nil {
		result = " -> " + fe.e.typ(f.Result, view{}, f.Pos)
	}
	fe.lineS("fn ", fe.e.funcNames[f], "(", strings.Join(params, ", "), ")", result, " {")
	fe.depth++
	for _, c := range copies {
		fe.lineS(c)
	}
	for _, l := range f.Locals {
		if isParam[l] {
			continue
		}
		name := fe.names.fresh(l.Name)
		fe.locals[l] = name
		fe.lineS("var ", name, ": ", fe.e.typ(l.Type, view{}, f.Pos), ";")
	}
	if fe.needsRewrite() {
		fe.rewriteBody()
	} else {
		fe.block(f.Body)
	}
	fe.depth--
	fe.line("}")
}

func rootLocal(e ir.Expr) *ir.Local {
	for {
		switch x := e.(type) {
		case *ir.LocalRef:
			return x.L
		case *ir.Index:
			e = x.Base
		case *ir.Member:
			e = x.Base
		default:
			return nil
		}
	}
}

func (fe *funcEmitter) block(b ir.Block) {
	if fe.rw != nil {
		fe.guardedBlock(b)
		return
	}
	for _, s := range b {
		fe.stmt(s)
	}
}

func (fe *funcEmitter) stmt(s ir.Stmt) {
	switch s := s.(type) {
	case *ir.Store:
		fe.store(s.Place, s.Value)
	case *ir.ExprStmt:
		fe.exprStmt(s.X)
	case *ir.If:
		fe.lineS("if ", fe.expr(s.Cond), " {")
		fe.nested(s.Then)
		if len(s.Else) > 0 {
			fe.line("} else {")
			fe.nested(s.Else)
		}
		fe.line("}")
	case *ir.Loop:
		if fe.rw != nil {
			fe.rw.stack = append(fe.rw.stack, normalLoop)
			defer func() { fe.rw.stack = fe.rw.stack[:len(fe.rw.stack)-1] }()
		}
		fe.line("loop {")
		fe.nested(s.Body)
		if len(s.Continuing) > 0 || s.BreakIf != nil {
			fe.depth++
			fe.line("continuing {")
			fe.nested(s.Continuing)
			if s.BreakIf != nil {
				fe.depth++
				fe.lineS("break if ", fe.expr(s.BreakIf), ";")
				fe.depth--
			}
			fe.line("}")
			fe.depth--
		}
		fe.line("}")
	case *ir.Switch:
		if fe.rw != nil {
			fe.rw.stack = append(fe.rw.stack, normalSwitch)
			defer func() { fe.rw.stack = fe.rw.stack[:len(fe.rw.stack)-1] }()
		}
		fe.switchStmt(s)
	case *ir.Break:
		fe.line("break;")
	case *ir.Continue:
		fe.line("continue;")
	case *ir.Return:
		fe.ret(s)
	case *ir.Discard:
		if fe.e.ep.Stage != ir.Pixel {
			fe.e.errorf(fe.pos(), diag.ErrWGSLStage, "discard is only valid in a pixel shader")
		}
		fe.line("discard;")
	default:
		fe.e.errorf(fe.pos(), diag.ErrWGSLInternal, "unknown statement %T", s)
	}
}

func (fe *funcEmitter) nested(b ir.Block) {
	fe.depth++
	fe.block(b)
	fe.depth--
}

func (fe *funcEmitter) ret(s *ir.Return) {
	if fe.rw != nil {
		fe.rw.emitReturn(fe, s)
		return
	}
	if s.Value != nil {
		fe.lineS("return ", fe.expr(s.Value), ";")
	} else {
		fe.line("return;")
	}
}

// switchStmt prints a switch. WGSL has no fall-through: a case that falls
// through gets the bodies of the cases it falls into appended; WGSL needs a
// default clause, so an empty one is added when HLSL had none.
func (fe *funcEmitter) switchStmt(s *ir.Switch) {
	st, _ := ir.ScalarOf(s.Selector.Type())
	fe.lineS("switch ", fe.expr(s.Selector), " {")
	fe.depth++
	hasDefault := false
	for i, c := range s.Cases {
		var labels []string
		for _, v := range c.Values {
			labels = append(labels, fe.intLit(st, v))
		}
		if c.Default {
			hasDefault = true
			labels = append(labels, "default")
		}
		if len(labels) == 0 {
			continue
		}
		fe.lineS("case ", strings.Join(labels, ", "), ": {")
		fe.depth++
		for j := i; j < len(s.Cases); j++ {
			fe.block(s.Cases[j].Body)
			if !s.Cases[j].FallThrough {
				break
			}
		}
		fe.depth--
		fe.line("}")
	}
	if !hasDefault {
		fe.line("default: {}")
	}
	fe.depth--
	fe.line("}")
}

func (fe *funcEmitter) intLit(s ir.Scalar, v int64) string {
	if s.Kind == ir.Uint {
		return textgen.Dec(uint32(v)) + "u"
	}
	return fe.constText(&ir.Const{T: ir.I32, Bits: uint64(v)})
}

// exprStmt prints an expression evaluated for its effects.
func (fe *funcEmitter) exprStmt(x ir.Expr) {
	if in, ok := x.(*ir.Intrinsic); ok {
		info := intrinsics.Get(in.Op)
		switch info.Class {
		case intrinsics.ClassAtomic:
			fe.atomicStmt(in, info)
			return
		case intrinsics.ClassBarrier:
			fe.barrier(in, info)
			return
		}
	}
	text := fe.expr(x)
	if _, void := x.Type().(ir.Void); void {
		fe.lineS(text, ";")
		return
	}
	// WGSL has no expression statements; a phony assignment discards the value
	// (and satisfies @must_use).
	fe.lineS("_ = ", text, ";")
}

// barrier prints a barrier; WGSL allows them only in compute shaders.
func (fe *funcEmitter) barrier(in *ir.Intrinsic, info *intrinsics.Info) {
	if fe.e.ep.Stage != ir.Compute {
		fe.e.errorf(in.Pos, diag.ErrWGSLStage, "%s: WGSL barriers exist only in compute shaders", info.Name)
		return
	}
	if info.WGSL != "" {
		fe.lineS(info.WGSL, "();")
		return
	}
	switch in.Op {
	case intrinsics.AllMemoryBarrier, intrinsics.AllMemoryBarrierWithGroupSync:
		// WGSL has no combined barrier: storage then workgroup memory.
		fe.line("storageBarrier();")
		fe.line("workgroupBarrier();")
	default:
		fe.e.errorf(in.Pos, diag.ErrWGSLNoLowering, "%s has no WGSL lowering", info.Name)
	}
}

// store prints Place = Value, going through atomicStore for atomic storage and
// transposing column-major buffer matrices.
func (fe *funcEmitter) store(place, value ir.Expr) {
	p := fe.place(place)
	switch {
	case p.atomic:
		fe.lineS("atomicStore(&", p.text, ", ", fe.expr(value), ");")
	case p.colMajorMat:
		fe.lineS(p.text, " = transpose(", fe.expr(value), ");")
	case p.colMajorRow != "":
		// A row of a column-major matrix is C scattered elements.
		tmp := fe.temp("row")
		fe.lineS("let ", tmp, " = ", fe.expr(value), ";")
		for c := 0; c < ir.Components(value.Type()); c++ {
			fe.lineS(p.text, "[", textgen.Dec(c), "][", p.colMajorRow, "] = ", tmp, "[", textgen.Dec(c), "];")
		}
	case p.readOnly:
		fe.e.errorf(fe.pos(), diag.ErrWGSLInternal, "store to a read-only place %s", p.text)
	default:
		fe.lineS(p.text, " = ", fe.expr(value), ";")
	}
}

// placeInfo is a printed place (a WGSL reference expression).
type placeInfo struct {
	text        string
	v           view
	atomic      bool   // an atomic<T> leaf: use atomicLoad/atomicStore
	colMajorMat bool   // a column-major buffer matrix (WGSL holds its transpose)
	colMajorRow string // Index into such a matrix: the row index; text is the matrix
	rowType     ir.Type
	readOnly    bool // a vec4-padded uniform element read through a swizzle
	mat         ir.Matrix
}

func (fe *funcEmitter) place(x ir.Expr) placeInfo {
	switch x := x.(type) {
	case *ir.LocalRef:
		name, ok := fe.locals[x.L]
		if !ok {
			fe.e.errorf(fe.pos(), diag.ErrWGSLInternal, "local %s used outside its function", x.L.Name)
			name = sanitize(x.L.Name)
		}
		if fe.ptr[x.L] {
			name = "(*" + name + ")"
		}
		return fe.leaf(placeInfo{text: name}, x.L.Type)
	case *ir.GlobalRef:
		name, ok := fe.e.globalNames[x.G]
		if !ok {
			name = sanitize(x.G.Name)
		}
		v := viewOf(x.G, fe.e.atomic[x.G])
		return fe.leaf(placeInfo{text: name, v: v}, x.G.Type)
	case *ir.Member:
		base := fe.place(x.Base)
		st := x.Base.Type().(*ir.Struct)
		names := fe.e.fieldNames(st)
		return fe.leaf(placeInfo{text: base.text + "." + names[x.Field], v: base.v}, st.Fields[x.Field].Type)
	case *ir.Index:
		base := fe.place(x.Base)
		idx := fe.expr(x.Idx)
		if base.colMajorMat {
			return placeInfo{text: base.text, v: base.v, colMajorRow: idx, rowType: x.T, mat: base.mat}
		}
		if base.colMajorRow != "" {
			return fe.leaf(placeInfo{text: base.text + "[" + idx + "][" + base.colMajorRow + "]", v: base.v}, x.T)
		}
		text := base.text + "[" + idx + "]"
		ro := false
		if a, ok := x.Base.Type().(*ir.Array); ok {
			switch fe.e.padOf(a, base.v) {
			case padVec4:
				// A multi-component swizzle is a value, not a reference; uniform
				// buffers are read-only anyway.
				text += swizzleFor(a.Elem)
				ro = ir.Components(a.Elem) > 1
			case padStruct:
				text += ".v"
			}
		}
		p := fe.leaf(placeInfo{text: text, v: base.v}, x.T)
		p.readOnly = ro
		return p
	}
	// Not a place: a value (WGSL indexes values too).
	return placeInfo{text: fe.expr(x)}
}

// leaf fills the per-type flags of a place.
func (fe *funcEmitter) leaf(p placeInfo, t ir.Type) placeInfo {
	switch t := t.(type) {
	case ir.Scalar:
		p.atomic = p.v.atomic && (t.Kind == ir.Sint || t.Kind == ir.Uint)
	case ir.Matrix:
		if colMajor(t, p.v) {
			p.colMajorMat = true
			p.mat = t
		}
	}
	return p
}

// load prints the value of a place.
func (fe *funcEmitter) load(place ir.Expr) string {
	p := fe.place(place)
	switch {
	case p.atomic:
		return "atomicLoad(&" + p.text + ")"
	case p.colMajorMat:
		return "transpose(" + p.text + ")"
	case p.colMajorRow != "":
		var parts []string
		for c := 0; c < p.mat.Cols; c++ {
			parts = append(parts, p.text+"["+textgen.Dec(c)+"]["+p.colMajorRow+"]")
		}
		return fe.e.typ(p.rowType, view{}, fe.pos()) + "(" + strings.Join(parts, ", ") + ")"
	}
	if p.v.atomic && containsAtomic(place.Type()) {
		fe.e.errorf(fe.pos(), diag.ErrWGSLAtomic, "whole read of atomic storage (%s): WGSL reads atomics one element at a time", place.Type())
	}
	if hasPaddedArray(fe.e, place.Type(), p.v) {
		fe.e.errorf(fe.pos(), diag.ErrWGSLLayout, "whole read of an array whose stride needed padding (%s); read it element by element", place.Type())
	}
	return p.text
}

func containsAtomic(t ir.Type) bool {
	switch t := t.(type) {
	case ir.Scalar:
		return t.Kind == ir.Sint || t.Kind == ir.Uint
	case *ir.Array:
		return containsAtomic(t.Elem)
	case *ir.Struct:
		for _, f := range t.Fields {
			if containsAtomic(f.Type) {
				return true
			}
		}
	}
	return false
}

func hasPaddedArray(e *emitter, t ir.Type, v view) bool {
	switch t := t.(type) {
	case *ir.Array:
		return e.padOf(t, v) != padNone || hasPaddedArray(e, t.Elem, v)
	case *ir.Struct:
		for _, f := range t.Fields {
			if hasPaddedArray(e, f.Type, v) {
				return true
			}
		}
	}
	return false
}
