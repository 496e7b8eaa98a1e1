package spirv

import (
	"waverig/compiler/diag"
	"waverig/compiler/ir"
)

// fn is the state of one function being emitted.
type fn struct {
	b    *builder
	f    *ir.Function
	vars []uint32 // Function-storage OpVariables, placed at the start of the first block
	body []uint32
	// locals maps Local.ID to the pointer id of its storage (an OpVariable, or the
	// pointer parameter of an out/inout parameter).
	locals []uint32
	open   bool // the current block has no terminator yet
	// Structured-exit targets of the enclosing constructs, innermost last.
	breaks    []uint32
	continues []uint32
	// brokenTo are the merge blocks a Break was emitted to: a merge no emitted
	// branch reaches ends in OpUnreachable (a Break after a Continue or Return
	// is dropped with the dead code, so it must not count).
	brokenTo map[uint32]bool
}

func (b *builder) emitFunction(f *ir.Function, isEntry bool) {
	b.pos = f.Pos
	// body and vars reuse the previous function's buffers (copied into b.funcs at the end).
	if b.bodyBuf == nil {
		b.bodyBuf = make([]uint32, 0, 128)
	}
	s := &fn{b: b, f: f, body: b.bodyBuf[:0], vars: b.varsBuf[:0]}
	maxID := -1
	for _, l := range f.Locals {
		maxID = max(maxID, l.ID)
	}
	for _, p := range f.Params {
		if p.Local != nil {
			maxID = max(maxID, p.Local.ID)
		}
	}
	s.locals = make([]uint32, maxID+1)

	ret := b.typeID(f.Result)
	paramTypes := make([]uint32, len(f.Params))
	for i, p := range f.Params {
		t := b.typeID(p.Local.Type)
		if p.Dir != ir.In {
			t = b.pointerType(scFunction, t)
		}
		paramTypes[i] = t
	}
	fid := b.funcID(f)
	inst(&b.funcs, opFunction, ret, fid, 0, b.funcType(ret, paramTypes))
	instStr(&b.names, opName, []uint32{fid}, f.Name)
	paramIDs := make([]uint32, len(f.Params))
	for i, p := range f.Params {
		paramIDs[i] = b.id()
		inst(&b.funcs, opFunctionParameter, paramTypes[i], paramIDs[i])
		if p.Dir != ir.In {
			s.locals[p.Local.ID] = paramIDs[i]
			instStr(&b.names, opName, []uint32{paramIDs[i]}, p.Local.Name)
		}
	}
	inst(&b.funcs, opLabel, b.id())
	s.open = true
	// Every local (in parameters included: HLSL parameters are mutable) gets a
	// Function variable; in parameters are copied in at entry.
	for i, p := range f.Params {
		if p.Dir == ir.In {
			v := s.newVar(p.Local.Type, p.Local.Name)
			s.locals[p.Local.ID] = v
			inst(&s.body, opStore, v, paramIDs[i])
		}
	}
	for _, l := range f.Locals {
		if s.locals[l.ID] == 0 {
			s.locals[l.ID] = s.newVar(l.Type, l.Name)
		}
	}
	if isEntry {
		s.privateInits()
	}
	s.block(f.Body)
	if s.open {
		if _, void := f.Result.(ir.Void); void || f.Result == nil {
			s.term(opReturn)
		} else {
			s.term(opUnreachable)
		}
	}
	b.funcs = append(b.funcs, s.vars...)
	b.funcs = append(b.funcs, s.body...)
	inst(&b.funcs, opFunctionEnd)
	b.bodyBuf, b.varsBuf = s.body[:0], s.vars[:0]
}

// privateInits stores non-constant initializers of private globals at the start
// of the entry point (constant ones are OpVariable initializers).
func (s *fn) privateInits() {
	for _, v := range s.b.gvars {
		g := v.g
		if v.id == 0 || v.sc != scPrivate || g.Init == nil || v.value != 0 || s.b.constExprKnown(g.Init) {
			continue
		}
		val := s.expr(g.Init)
		s.storeTo(v.id, v.sc, g.Type, val, g.Init.Type())
	}
}

func (b *builder) constExprKnown(e ir.Expr) bool {
	switch e := e.(type) {
	case *ir.Const:
		return true
	case *ir.Construct:
		return b.constExpr(e) != 0
	}
	return false
}

// newVar declares a Function-storage variable (in the first block).
func (s *fn) newVar(t ir.Type, name string) uint32 {
	b := s.b
	switch t.(type) {
	case ir.Texture2D, ir.Sampler:
		// Vulkan keeps image and sampler handles in UniformConstant variables only.
		b.errorf(s.f.Pos, diag.ErrSpvType, "%s: a %v cannot be a local variable or parameter in SPIR-V; use the global resource directly", name, t)
	}
	id := b.id()
	inst(&s.vars, opVariable, b.pointerType(scFunction, b.typeID(t)), id, scFunction)
	if name != "" {
		instStr(&b.names, opName, []uint32{id}, name)
	}
	return id
}

// op emits an instruction with a result and returns its id.
func (s *fn) op(code uint16, typ uint32, operands ...uint32) uint32 {
	id := s.b.id()
	s.body = append(s.body, uint32(len(operands)+3)<<16|uint32(code), typ, id)
	s.body = append(s.body, operands...)
	return id
}

// do emits an instruction without a result.
func (s *fn) do(code uint16, operands ...uint32) {
	inst(&s.body, code, operands...)
}

func (s *fn) label(id uint32) {
	inst(&s.body, opLabel, id)
	s.open = true
}

// term ends the current block.
func (s *fn) term(code uint16, operands ...uint32) {
	inst(&s.body, code, operands...)
	s.open = false
}

func (s *fn) block(b ir.Block) {
	for _, st := range b {
		if !s.open {
			// Statements after a terminator are unreachable; they are dropped
			// rather than given blocks of their own.
			return
		}
		s.stmt(st)
	}
}

func (s *fn) stmt(st ir.Stmt) {
	b := s.b
	switch st := st.(type) {
	case *ir.Store:
		s.store(st.Place, st.Value)
	case *ir.ExprStmt:
		if st.X != nil {
			s.expr(st.X)
		}
	case *ir.If:
		s.ifStmt(st)
	case *ir.Loop:
		s.loop(st)
	case *ir.Switch:
		s.switchStmt(st)
	case *ir.Break:
		if len(s.breaks) == 0 {
			b.errorf(b.pos, diag.ErrSpvShape, "break outside a loop or switch")
			return
		}
		target := s.breaks[len(s.breaks)-1]
		if s.brokenTo == nil {
			s.brokenTo = map[uint32]bool{}
		}
		s.brokenTo[target] = true
		s.term(opBranch, target)
	case *ir.Continue:
		if len(s.continues) == 0 {
			b.errorf(b.pos, diag.ErrSpvShape, "continue outside a loop")
			return
		}
		s.term(opBranch, s.continues[len(s.continues)-1])
	case *ir.Return:
		if st.Value != nil {
			v := s.expr(st.Value)
			v = s.coerce(v, st.Value.Type(), s.f.Result)
			s.term(opReturnValue, v)
		} else {
			s.term(opReturn)
		}
	case *ir.Discard:
		if b.version >= 0x00010600 {
			s.term(opTerminateInvocation)
		} else {
			s.term(opKill)
		}
	default:
		b.errorf(b.pos, diag.ErrSpvShape, "unsupported statement %T", st)
	}
}

// ifStmt: header with OpSelectionMerge; each arm branches to the merge block. A
// merge block no arm reaches still exists and ends in OpUnreachable.
func (s *fn) ifStmt(st *ir.If) {
	b := s.b
	cond := s.expr(st.Cond)
	merge, then := b.id(), b.id()
	els := merge
	if len(st.Else) > 0 {
		els = b.id()
	}
	s.do(opSelectionMerge, merge, 0)
	s.term(opBranchConditional, cond, then, els)
	reached := false
	s.label(then)
	s.block(st.Then)
	if s.open {
		s.term(opBranch, merge)
		reached = true
	}
	if els != merge {
		s.label(els)
		s.block(st.Else)
		if s.open {
			s.term(opBranch, merge)
			reached = true
		}
	} else {
		reached = true
	}
	s.label(merge)
	if !reached {
		s.term(opUnreachable)
	}
}

// loop: preheader -> header (OpLoopMerge merge continue) -> body -> continue
// block (Continuing, then the single back edge, conditional when BreakIf is set).
func (s *fn) loop(st *ir.Loop) {
	b := s.b
	header, body, cont, merge := b.id(), b.id(), b.id(), b.id()
	s.term(opBranch, header)
	s.label(header)
	control := uint32(0)
	if st.Unroll {
		control = 1 // LoopControl Unroll: [unroll] is a hint, passed on as one
	}
	s.do(opLoopMerge, merge, cont, control)
	s.term(opBranch, body)
	s.label(body)
	s.breaks = append(s.breaks, merge)
	s.continues = append(s.continues, cont)
	s.block(st.Body)
	mergeReached := s.brokenTo[merge]
	if s.open {
		s.term(opBranch, cont)
	}
	s.breaks = s.breaks[:len(s.breaks)-1]
	s.continues = s.continues[:len(s.continues)-1]
	s.label(cont)
	// Continuing may not break or continue (it is the continue construct); its
	// statements run on every iteration that reaches the continue target.
	s.block(st.Continuing)
	if s.open {
		if st.BreakIf != nil {
			c := s.expr(st.BreakIf)
			s.term(opBranchConditional, c, merge, header)
			mergeReached = true
		} else {
			s.term(opBranch, header)
		}
	}
	s.label(merge)
	if !mergeReached {
		s.term(opUnreachable)
	}
}

// switchStmt: OpSelectionMerge + OpSwitch whose targets follow the case order, so
// a case falling through branches to the next target, as SPIR-V requires.
func (s *fn) switchStmt(st *ir.Switch) {
	b := s.b
	sel := s.expr(st.Selector)
	selT, _ := ir.ScalarOf(st.Selector.Type())
	if selT.Kind != ir.Sint && selT.Kind != ir.Uint {
		b.errorf(b.pos, diag.ErrSpvShape, "switch selector of type %v is not an integer", st.Selector.Type())
		return
	}
	merge := b.id()
	labels := make([]uint32, len(st.Cases))
	def := merge
	for i, c := range st.Cases {
		labels[i] = b.id()
		if c.Default {
			def = labels[i]
		}
	}
	ops := []uint32{sel, def}
	for i, c := range st.Cases {
		for _, v := range c.Values {
			if selT.Bits == 64 {
				ops = append(ops, uint32(v), uint32(uint64(v)>>32), labels[i])
			} else {
				ops = append(ops, uint32(v), labels[i])
			}
		}
	}
	s.do(opSelectionMerge, merge, 0)
	s.term(opSwitch, ops...)
	s.breaks = append(s.breaks, merge)
	reached := def == merge
	for i, c := range st.Cases {
		s.label(labels[i])
		s.block(c.Body)
		if s.open {
			if i+1 < len(st.Cases) {
				s.term(opBranch, labels[i+1])
			} else {
				s.term(opBranch, merge)
				reached = true
			}
		}
	}
	reached = reached || s.brokenTo[merge]
	s.breaks = s.breaks[:len(s.breaks)-1]
	s.label(merge)
	if !reached {
		s.term(opUnreachable)
	}
}
