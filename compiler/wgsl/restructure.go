package wgsl

import (
	"waverig/compiler/diag"
	"waverig/compiler/intrinsics"
	"waverig/compiler/ir"
)

// Early returns before barriers.
//
// HLSL lets a thread return and the rest of the group meet at a barrier
// (`if (id.x >= n) return; … GroupMemoryBarrierWithGroupSync();`). WGSL's
// uniformity analysis rejects a barrier after a divergent return, and the
// error cannot be filtered. In functions that reach a barrier and return
// early, the back end therefore turns returns into a flag:
//
//	var wr_active: bool = true;
//	if wr_active { if (id.x >= n) { wr_active = false; } }
//	workgroupBarrier();                        // every invocation reaches it
//	if wr_active { … }
//
// Statements that contain a barrier (or a break/continue of a loop that does)
// are emitted unguarded, with their inner blocks rewritten the same way, so the
// barrier and the loop control stay in the uniform flow the HLSL author meant;
// everything else runs only while the flag is set. Inside ordinary loops and
// switches a return sets the flag and breaks out, and the enclosing block
// checks the flag.

type breakable uint8

const (
	normalLoop breakable = iota
	normalSwitch
	barrierConstruct // a loop or switch emitted unguarded: never break out of it on return
)

type rewrite struct {
	active string // the flag
	result string // the result variable of a non-void function
	stack  []breakable
}

func (r *rewrite) top() (breakable, bool) {
	if len(r.stack) == 0 {
		return 0, false
	}
	return r.stack[len(r.stack)-1], true
}

// needsRewrite: the function reaches a barrier and has a return other than
// its last top-level statement.
func (fe *funcEmitter) needsRewrite() bool {
	f := fe.f
	if !fe.e.funcHasBarrier(f) {
		return false
	}
	early := false
	for i, s := range f.Body {
		if _, ok := s.(*ir.Return); ok && i == len(f.Body)-1 {
			continue
		}
		if mayReturn(s) {
			early = true
		}
	}
	return early
}

func (e *emitter) funcHasBarrier(f *ir.Function) bool {
	if e.barrierMemo == nil {
		e.barrierMemo = map[*ir.Function]bool{}
	}
	if v, ok := e.barrierMemo[f]; ok {
		return v
	}
	e.barrierMemo[f] = false // no recursion in IR; guards against bad input
	has := false
	for _, s := range f.Body {
		if e.stmtHasBarrier(s) {
			has = true
			break
		}
	}
	e.barrierMemo[f] = has
	return has
}

func (e *emitter) stmtHasBarrier(s ir.Stmt) bool {
	found := false
	ir.WalkStmt(s, nil, func(x ir.Expr) {
		switch x := x.(type) {
		case *ir.Intrinsic:
			if intrinsics.Get(x.Op).Class == intrinsics.ClassBarrier {
				found = true
			}
		case *ir.Call:
			if e.funcHasBarrier(x.Func) {
				found = true
			}
		}
	})
	return found
}

// isPureLocalStore: a store to a function-local variable whose value has no
// calls and no wave, atomic or barrier operation (running it for finished
// invocations must not change what active ones observe).
func isPureLocalStore(s ir.Stmt) bool {
	st, ok := s.(*ir.Store)
	if !ok || rootLocal(st.Place) == nil {
		return false
	}
	pure := true
	check := func(x ir.Expr) {
		switch x := x.(type) {
		case *ir.Call:
			pure = false
		case *ir.Intrinsic:
			switch intrinsics.Get(x.Op).Class {
			case intrinsics.ClassMath, intrinsics.ClassTexture, intrinsics.ClassMisc:
			default:
				pure = false
			}
		}
	}
	ir.WalkExpr(st.Value, check)
	ir.WalkExpr(st.Place, check)
	return pure
}

func mayReturn(s ir.Stmt) bool {
	found := false
	ir.WalkStmt(s, func(s ir.Stmt) {
		if _, ok := s.(*ir.Return); ok {
			found = true
		}
	}, nil)
	return found
}

// exitsOuter reports whether s contains a break or continue that leaves s
// itself (targets a loop or switch around s).
func exitsOuter(s ir.Stmt) bool {
	var visit func(s ir.Stmt, inLoop, inSwitch bool) bool
	visitBlock := func(b ir.Block, inLoop, inSwitch bool) bool {
		for _, s := range b {
			if visit(s, inLoop, inSwitch) {
				return true
			}
		}
		return false
	}
	visit = func(s ir.Stmt, inLoop, inSwitch bool) bool {
		switch s := s.(type) {
		case *ir.Break:
			return !inLoop && !inSwitch
		case *ir.Continue:
			return !inLoop
		case *ir.If:
			return visitBlock(s.Then, inLoop, inSwitch) || visitBlock(s.Else, inLoop, inSwitch)
		case *ir.Loop:
			return visitBlock(s.Body, true, false) || visitBlock(s.Continuing, true, false)
		case *ir.Switch:
			for _, c := range s.Cases {
				if visitBlock(c.Body, inLoop, true) {
					return true
				}
			}
		}
		return false
	}
	return visit(s, false, false)
}

// rewriteBody emits the function body with returns turned into the flag.
func (fe *funcEmitter) rewriteBody() {
	fe.rw = &rewrite{active: fe.names.internal("wr_active")}
	fe.lineS("var ", fe.rw.active, ": bool = true;")
	if _, void := fe.f.Result.(ir.Void); !void && fe.f.Result != nil {
		fe.rw.result = fe.names.internal("wr_result")
		fe.lineS("var ", fe.rw.result, ": ", fe.tname(fe.f.Result), ";")
	}
	fe.barrierBlock(fe.f.Body)
	if fe.rw.result != "" {
		fe.lineS("return ", fe.rw.result, ";")
	}
}

// barrierBlock emits a block whose barrier-carrying statements stay unguarded.
func (fe *funcEmitter) barrierBlock(b ir.Block) {
	var group ir.Block
	flush := func() {
		if len(group) == 0 {
			return
		}
		fe.lineS("if ", fe.rw.active, " {")
		fe.depth++
		fe.guardedBlock(group)
		fe.depth--
		fe.line("}")
		group = nil
	}
	for _, s := range b {
		if fe.e.stmtHasBarrier(s) || exitsOuter(s) {
			flush()
			fe.barrierStmt(s)
			continue
		}
		if isPureLocalStore(s) {
			// Local stores run for every invocation: they may feed the control of
			// a loop that holds a barrier, which must stay uniform, and they have
			// no effect outside the (possibly finished) invocation.
			flush()
			fe.stmt(s)
			continue
		}
		group = append(group, s)
		if mayReturn(s) {
			flush() // what follows runs only if the flag survived
		}
	}
	flush()
}

func (fe *funcEmitter) barrierStmt(s ir.Stmt) {
	rw := fe.rw
	switch s := s.(type) {
	case *ir.If:
		fe.lineS("if ", fe.expr(s.Cond), " {")
		fe.depth++
		fe.barrierBlock(s.Then)
		fe.depth--
		if len(s.Else) > 0 {
			fe.line("} else {")
			fe.depth++
			fe.barrierBlock(s.Else)
			fe.depth--
		}
		fe.line("}")
	case *ir.Loop:
		rw.stack = append(rw.stack, barrierConstruct)
		fe.line("loop {")
		fe.depth++
		fe.barrierBlock(s.Body)
		if len(s.Continuing) > 0 || s.BreakIf != nil {
			fe.line("continuing {")
			fe.depth++
			fe.block(s.Continuing)
			if s.BreakIf != nil {
				fe.lineS("break if ", fe.expr(s.BreakIf), ";")
			}
			fe.depth--
			fe.line("}")
		}
		fe.depth--
		fe.line("}")
		rw.stack = rw.stack[:len(rw.stack)-1]
	case *ir.Switch:
		rw.stack = append(rw.stack, barrierConstruct)
		st, _ := ir.ScalarOf(s.Selector.Type())
		fe.lineS("switch ", fe.expr(s.Selector), " {")
		fe.depth++
		hasDefault := false
		for _, c := range s.Cases {
			if c.FallThrough && len(c.Body) > 0 {
				fe.e.errorf(fe.pos(), diag.ErrWGSLBarrierReturn, "a switch case that falls through contains a barrier after an early return")
			}
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
			fe.lineS("case ", joinComma(labels), ": {")
			fe.depth++
			fe.barrierBlock(c.Body)
			fe.depth--
			fe.line("}")
		}
		if !hasDefault {
			fe.line("default: {}")
		}
		fe.depth--
		fe.line("}")
		rw.stack = rw.stack[:len(rw.stack)-1]
	default:
		// Barriers, calls that reach one, break and continue: as they are.
		fe.stmt(s)
	}
}

// guardedBlock emits statements that run only while the flag is set; a return
// inside them clears the flag and leaves ordinary loops and switches.
func (fe *funcEmitter) guardedBlock(b ir.Block) {
	for i, s := range b {
		fe.stmt(s)
		if _, isRet := s.(*ir.Return); isRet || !mayReturn(s) || i == len(b)-1 {
			continue
		}
		if top, ok := fe.rw.top(); ok && top != barrierConstruct {
			fe.lineS("if !", fe.rw.active, " { break; }")
			continue
		}
		fe.lineS("if ", fe.rw.active, " {")
		fe.depth++
		fe.guardedBlock(b[i+1:])
		fe.depth--
		fe.line("}")
		return
	}
}

func (r *rewrite) emitReturn(fe *funcEmitter, s *ir.Return) {
	if s.Value != nil && r.result != "" {
		fe.lineS(r.result, " = ", fe.expr(s.Value), ";")
	}
	fe.lineS(r.active, " = false;")
	if top, ok := r.top(); ok && top != barrierConstruct {
		fe.line("break;")
	}
}

func joinComma(xs []string) string {
	out := ""
	for i, x := range xs {
		if i > 0 {
			out += ", "
		}
		out += x
	}
	return out
}
