package ir

import (
	"fmt"
	"strings"

	"waverig/compiler/diag"
	"waverig/compiler/intrinsics"
)

// A ValidationError is one broken invariant found by Validate.
type ValidationError struct {
	Func string   // the function it is in; "" for globals and entry points
	Pos  diag.Pos // the nearest known position (call, intrinsic, function, global); may be invalid
	Msg  string
}

func (e *ValidationError) Error() string {
	var b strings.Builder
	if e.Pos.IsValid() {
		b.WriteString(e.Pos.String())
		b.WriteString(": ")
	}
	if e.Func != "" {
		b.WriteString("fn ")
		b.WriteString(e.Func)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Validate checks m against the invariants in the package comment and returns
// one *ValidationError per violation, in module order (nil when m is valid).
// It never panics, whatever m holds, so it can vet IR built by hand as well as
// sema's output.
//
// Types are compared as values: memory layout (array and matrix strides, the
// major order of matrices) is ignored, since back ends convert between a laid-out
// buffer value and a register value on every load and store.
func Validate(m *Module) []error {
	v := &validator{m: m, globals: map[*Global]bool{}, funcIndex: map[*Function]int{}}
	if m == nil {
		v.errorf(diag.Pos{}, "nil module")
		return v.errs
	}
	for _, g := range m.Globals {
		if g != nil {
			v.globals[g] = true
		}
	}
	for i, f := range m.Functions {
		if f == nil {
			v.errorf(diag.Pos{}, "function %d is nil", i)
			continue
		}
		if _, dup := v.funcIndex[f]; dup {
			v.errorf(f.Pos, "function %s is listed twice", f.Name)
			continue
		}
		v.funcIndex[f] = i
	}
	for _, g := range m.Globals {
		v.global(g)
	}
	for _, f := range m.Functions {
		if f != nil {
			v.function(f)
		}
	}
	for _, ep := range m.EntryPoints {
		v.entryPoint(ep)
	}
	return v.errs
}

type validator struct {
	m         *Module
	globals   map[*Global]bool
	funcIndex map[*Function]int
	errs      []error

	// Per function.
	f      *Function
	locals map[*Local]bool
	// nest holds the enclosing breakable constructs, innermost last.
	nest []construct
}

// construct is what a Break, Continue or Return may leave.
type construct uint8

const (
	inLoopBody construct = iota + 1
	inContinuing
	inSwitch
)

func (v *validator) errorf(pos diag.Pos, format string, args ...any) {
	fn := ""
	if v.f != nil {
		fn = v.f.Name
		if !pos.IsValid() {
			pos = v.f.Pos
		}
	}
	v.errs = append(v.errs, &ValidationError{Func: fn, Pos: pos, Msg: fmt.Sprintf(format, args...)})
}

func (v *validator) global(g *Global) {
	if g == nil {
		v.errorf(diag.Pos{}, "nil global")
		return
	}
	if g.Type == nil {
		v.errorf(g.Pos, "global %s has no type", g.Name)
		return
	}
	if g.Spec && !g.Const {
		v.errorf(g.Pos, "specialization constant %s is not Const", g.Name)
	}
	if g.Const && g.Init == nil {
		v.errorf(g.Pos, "constant global %s has no initializer", g.Name)
	}
	if g.Init != nil {
		if t := v.expr(g.Init, g.Pos); t != nil && !sameValue(t, g.Type) {
			v.errorf(g.Pos, "global %s: initializer is %s, want %s", g.Name, t, g.Type)
		}
	}
}

func (v *validator) function(f *Function) {
	v.f, v.nest = f, v.nest[:0]
	defer func() { v.f = nil }()
	v.locals = make(map[*Local]bool, len(f.Locals))
	ids := make(map[int]bool, len(f.Locals))
	for _, l := range f.Locals {
		if l == nil {
			v.errorf(diag.Pos{}, "nil local")
			continue
		}
		if l.Type == nil {
			v.errorf(diag.Pos{}, "local %s has no type", l.Name)
		}
		if ids[l.ID] {
			v.errorf(diag.Pos{}, "local %s reuses id %%%d", l.Name, l.ID)
		}
		ids[l.ID] = true
		v.locals[l] = true
	}
	for i, p := range f.Params {
		if p.Local == nil || !v.locals[p.Local] {
			v.errorf(diag.Pos{}, "parameter %d is not one of the function's locals", i)
		}
	}
	if f.Result == nil {
		v.errorf(diag.Pos{}, "no result type (Void for none)")
	}
	v.block(f.Body)
	if _, void := f.Result.(Void); !void && f.Result != nil && !terminates(f.Body) {
		v.errorf(diag.Pos{}, "the end of the body is reachable without returning a %s", f.Result)
	}
}

func (v *validator) entryPoint(ep *EntryPoint) {
	if ep == nil {
		v.errorf(diag.Pos{}, "nil entry point")
		return
	}
	if ep.Func == nil {
		v.errorf(ep.Pos, "entry %s has no function", ep.Name)
		return
	}
	if _, ok := v.funcIndex[ep.Func]; !ok {
		v.errorf(ep.Pos, "entry %s: function %s is not in the module", ep.Name, ep.Func.Name)
	}
	if len(ep.Func.Params) != 0 {
		v.errorf(ep.Pos, "entry %s has parameters", ep.Name)
	}
	if _, ok := ep.Func.Result.(Void); !ok {
		v.errorf(ep.Pos, "entry %s is not void", ep.Name)
	}
	if ep.Stage.HasThreadGroups() && (ep.NumThreads[0] <= 0 || ep.NumThreads[1] <= 0 || ep.NumThreads[2] <= 0) {
		v.errorf(ep.Pos, "entry %s: numthreads%v", ep.Name, ep.NumThreads)
	}
	if w := ep.WaveSize; w != nil {
		pow2 := func(n int) bool { return n >= 4 && n <= 128 && n&(n-1) == 0 }
		if ep.Stage != Compute || !pow2(w.Min) || !pow2(w.Max) || w.Min > w.Max ||
			w.Preferred != 0 && (!pow2(w.Preferred) || w.Preferred < w.Min || w.Preferred > w.Max) {
			v.errorf(ep.Pos, "entry %s: %s shader with wave size %d..%d, %d", ep.Name, ep.Stage, w.Min, w.Max, w.Preferred)
		}
	}
	if (ep.Mesh != nil) != (ep.Stage == Amplification || ep.Stage == Mesh) {
		v.errorf(ep.Pos, "entry %s: %s shader with mesh info %v", ep.Name, ep.Stage, ep.Mesh != nil)
	} else if mi := ep.Mesh; mi != nil {
		if ep.Stage == Amplification && mi.Payload == nil {
			v.errorf(ep.Pos, "entry %s: amplification shader without a payload", ep.Name)
		}
		if ep.Stage == Mesh && (mi.Topology == TopologyNone || mi.MaxVertices <= 0 || mi.MaxPrimitives <= 0) {
			v.errorf(ep.Pos, "entry %s: mesh shader with topology %q, %d vertices, %d primitives", ep.Name, mi.Topology, mi.MaxVertices, mi.MaxPrimitives)
		}
		if g := mi.Payload; g != nil && (g.Space != SpaceTaskPayload || !v.globals[g]) {
			v.errorf(ep.Pos, "entry %s: payload %s is in space %s", ep.Name, g.Name, g.Space)
		}
	}
	if ep.WaveOpsIncludeHelperLanes && ep.Stage != Pixel {
		v.errorf(ep.Pos, "entry %s: %s shader with WaveOpsIncludeHelperLanes (pixel shaders only)", ep.Name, ep.Stage)
	}
	for _, io := range []struct {
		gs    []*Global
		space Space
	}{{ep.Inputs, SpaceInput}, {ep.Outputs, SpaceOutput}} {
		for _, g := range io.gs {
			switch {
			case g == nil:
				v.errorf(ep.Pos, "entry %s: nil stage %s", ep.Name, io.space)
			case g.Space != io.space:
				v.errorf(ep.Pos, "entry %s: stage %s %s is in space %s", ep.Name, io.space, g.Name, g.Space)
			case !v.globals[g]:
				v.errorf(ep.Pos, "entry %s: stage %s %s is not a global of the module", ep.Name, io.space, g.Name)
			}
		}
	}
}

func (v *validator) block(b Block) {
	for _, s := range b {
		v.stmt(s)
	}
}

// innermost returns the innermost enclosing construct a Break (loops and
// switches) or a Continue (loops only) leaves, or 0.
func (v *validator) innermost(switches bool) construct {
	for i := len(v.nest) - 1; i >= 0; i-- {
		if c := v.nest[i]; c != inSwitch || switches {
			return c
		}
	}
	return 0
}

func (v *validator) inside(c construct, b Block) {
	v.nest = append(v.nest, c)
	v.block(b)
	v.nest = v.nest[:len(v.nest)-1]
}

func (v *validator) stmt(s Stmt) {
	var none diag.Pos
	switch x := s.(type) {
	case nil:
		v.errorf(none, "nil statement")
	case *Store:
		pt, vt := v.expr(x.Place, none), v.expr(x.Value, none)
		switch {
		case x.Place == nil:
		case !IsPlace(x.Place):
			v.errorf(none, "store to a non-place %s", exprString(x.Place))
		case pt != nil && vt != nil && !sameValue(pt, vt):
			v.errorf(none, "store of %s to %s (%s)", vt, exprString(x.Place), pt)
		}
		if g := RootGlobal(x.Place); g != nil && g.Const {
			v.errorf(none, "store to constant global %s", g.Name)
		}
	case *ExprStmt:
		v.expr(x.X, none)
	case *If:
		v.cond(x.Cond, "if condition")
		v.block(x.Then)
		v.block(x.Else)
	case *Loop:
		v.inside(inLoopBody, x.Body)
		v.inside(inContinuing, x.Continuing)
		if x.BreakIf != nil {
			v.cond(x.BreakIf, "break-if condition")
		}
	case *Switch:
		if t := v.expr(x.Selector, none); t != nil {
			if s, ok := t.(Scalar); !ok || s.Kind != Sint && s.Kind != Uint {
				v.errorf(none, "switch selector is %s, want an integer scalar", t)
			}
		}
		seen, defaults := map[int64]bool{}, 0
		for i, c := range x.Cases {
			if c == nil {
				v.errorf(none, "nil switch case")
				continue
			}
			for _, val := range c.Values {
				if seen[val] {
					v.errorf(none, "switch case %d repeated", val)
				}
				seen[val] = true
			}
			if c.Default {
				defaults++
			}
			if !c.Default && len(c.Values) == 0 {
				v.errorf(none, "switch case %d has no values and is not the default", i)
			}
			if c.FallThrough && endsInJump(c.Body) {
				v.errorf(none, "switch case %d ends in a jump but is marked FallThrough", i)
			}
			if !c.FallThrough && !endsInJump(c.Body) && i < len(x.Cases)-1 {
				v.errorf(none, "switch case %d falls through without FallThrough", i)
			}
			v.inside(inSwitch, c.Body)
		}
		if defaults > 1 {
			v.errorf(none, "switch has %d defaults", defaults)
		}
	case *Break:
		switch v.innermost(true) {
		case 0:
			v.errorf(none, "break outside a loop or switch")
		case inContinuing:
			v.errorf(none, "break in a loop's continuing block")
		}
	case *Continue:
		switch v.innermost(false) {
		case 0:
			v.errorf(none, "continue outside a loop")
		case inContinuing:
			v.errorf(none, "continue in a loop's continuing block")
		}
	case *Return:
		for _, c := range v.nest {
			if c == inContinuing {
				v.errorf(none, "return in a loop's continuing block")
				break
			}
		}
		_, void := v.f.Result.(Void)
		switch {
		case x.Value == nil && !void && v.f.Result != nil:
			v.errorf(none, "return without a value from a function returning %s", v.f.Result)
		case x.Value != nil && void:
			v.errorf(none, "return with a value from a void function")
		case x.Value != nil:
			if t := v.expr(x.Value, none); t != nil && v.f.Result != nil && !sameValue(t, v.f.Result) {
				v.errorf(none, "return %s from a function returning %s", t, v.f.Result)
			}
		}
	case *Discard:
	default:
		v.errorf(none, "unknown statement %T", s)
	}
}

// cond checks a scalar bool condition.
func (v *validator) cond(e Expr, what string) {
	if t := v.expr(e, diag.Pos{}); t != nil && !Equal(t, BoolT) {
		v.errorf(diag.Pos{}, "%s is %s, want bool", what, t)
	}
}

// expr checks e and its operands and returns its type, or nil when the type
// cannot be known (the problem is then already reported). pos is the nearest
// enclosing position.
func (v *validator) expr(e Expr, pos diag.Pos) Type {
	bad := func(format string, args ...any) { v.errorf(pos, format, args...) }
	switch x := e.(type) {
	case nil:
		bad("missing expression")
		return nil
	case *Const:
		return x.Type()
	case *LocalRef:
		switch {
		case x.L == nil:
			bad("reference to a nil local")
			return nil
		case v.f == nil:
			bad("local %s used outside a function", x.L.Name)
		case !v.locals[x.L]:
			bad("use of local %s, which the function does not declare", x.L.Name)
		}
		return x.L.Type
	case *GlobalRef:
		if x.G == nil {
			bad("reference to a nil global")
			return nil
		}
		if !v.globals[x.G] {
			bad("use of global %s, which is not in the module", x.G.Name)
		}
		return x.G.Type
	case *Index:
		bt, it := v.expr(x.Base, pos), v.expr(x.Idx, pos)
		if s, ok := it.(Scalar); it != nil && (!ok || s.Kind != Sint && s.Kind != Uint) {
			bad("index %s is %s, want an integer scalar", exprString(x.Idx), it)
		}
		var want Type
		switch b := bt.(type) {
		case *Array:
			want = b.Elem
		case Vector:
			want = scalarType(b.Elem)
		case Matrix:
			want = VecOf(b.Elem, b.Cols)
		case nil:
		default:
			bad("index into %s in %s", bt, exprString(e))
		}
		switch {
		case x.T == nil:
			bad("untyped index %s", exprString(e))
		case want != nil && !sameValue(want, x.T):
			bad("index %s is typed %s, want %s", exprString(e), x.T, want)
		}
		return x.T
	case *Member:
		bt := v.expr(x.Base, pos)
		s, ok := bt.(*Struct)
		switch {
		case bt == nil:
			return nil
		case !ok:
			bad("member %d of %s, which is not a struct", x.Field, bt)
			return nil
		case x.Field < 0 || x.Field >= len(s.Fields):
			bad("member %d of struct %s, which has %d fields", x.Field, s.Name, len(s.Fields))
			return nil
		}
		return s.Fields[x.Field].Type
	case *Load:
		t := v.expr(x.Place, pos)
		if x.Place != nil && !IsPlace(x.Place) {
			bad("load of a non-place %s", exprString(x.Place))
		}
		return t
	case *Swizzle:
		bt := v.expr(x.Base, pos)
		vt, ok := bt.(Vector)
		if !ok {
			if bt != nil {
				bad("swizzle of non-vector %s", bt)
			}
			return nil
		}
		if len(x.Comps) == 0 || len(x.Comps) > 4 {
			bad("swizzle with %d components", len(x.Comps))
			return nil
		}
		for _, c := range x.Comps {
			if c < 0 || c >= vt.N {
				bad("swizzle component %d of %s", c, vt)
			}
		}
		return VecOf(vt.Elem, len(x.Comps))
	case *Unary:
		t := v.expr(x.X, pos)
		if t == nil {
			return nil
		}
		s, ok := ScalarOf(t)
		switch {
		case x.Op < Neg || x.Op > BitNot:
			bad("unknown unary operator %d", x.Op)
		case !ok, x.Op == Neg && s.Kind == Bool, x.Op == Not && s.Kind != Bool,
			x.Op == BitNot && s.Kind != Sint && s.Kind != Uint:
			bad("%s applied to %s in %s", x.Op, t, exprString(e))
		}
		return t
	case *Binary:
		xt, yt := v.expr(x.X, pos), v.expr(x.Y, pos)
		if x.Op < Add || x.Op > Ge {
			bad("unknown binary operator %d", x.Op)
			return x.T
		}
		if x.T == nil {
			bad("untyped %s", exprString(e))
			return nil
		}
		if xt == nil || yt == nil {
			return x.T
		}
		if x.Op == Shl || x.Op == Shr {
			if Components(xt) != Components(yt) {
				bad("shift operand shapes differ in %s", exprString(e))
			}
		} else if !sameValue(xt, yt) {
			bad("binary operands differ (%s vs %s) in %s", xt, yt, exprString(e))
		}
		if x.Op.IsComparison() || x.Op == LogicalAnd || x.Op == LogicalOr {
			if s, _ := ScalarOf(x.T); s.Kind != Bool || Components(x.T) != Components(xt) {
				bad("%s yields %s for %s operands in %s", x.Op, x.T, xt, exprString(e))
			}
		} else if !sameValue(x.T, xt) {
			bad("binary result %s differs from operand %s in %s", x.T, xt, exprString(e))
		}
		return x.T
	case *Select:
		ct, tt, ft := v.expr(x.Cond, pos), v.expr(x.True, pos), v.expr(x.False, pos)
		if tt != nil && ft != nil && !sameValue(tt, ft) {
			bad("select branches differ (%s vs %s) in %s", tt, ft, exprString(e))
		}
		if ct != nil {
			if s, _ := ScalarOf(ct); s.Kind != Bool || Components(ct) != 1 && (tt == nil || Components(ct) != Components(tt)) {
				bad("select condition is %s in %s", ct, exprString(e))
			}
		}
		return tt
	case *Convert:
		t := v.expr(x.X, pos)
		if x.T == nil {
			bad("conversion without a type")
			return nil
		}
		if _, ok := ScalarOf(x.T); !ok || t != nil && Components(t) != Components(x.T) {
			bad("conversion of %s to %s", t, x.T)
		}
		return x.T
	case *Bitcast:
		t := v.expr(x.X, pos)
		if x.T == nil {
			bad("bitcast without a type")
			return nil
		}
		if t != nil {
			s, ok1 := ScalarOf(t)
			d, ok2 := ScalarOf(x.T)
			if !ok1 || !ok2 || Components(t)*s.Bits != Components(x.T)*d.Bits {
				bad("bitcast of %s to %s", t, x.T)
			}
		}
		return x.T
	case *Construct:
		v.construct(x, pos)
		return x.T
	case *Call:
		if x.Pos.IsValid() {
			pos = x.Pos
		}
		for _, a := range x.Args {
			v.expr(a, pos)
		}
		if x.Func == nil {
			v.errorf(pos, "call of a nil function")
			return nil
		}
		v.call(x, pos)
		return x.Func.Result
	case *Intrinsic:
		if x.Pos.IsValid() {
			pos = x.Pos
		}
		for _, a := range x.Args {
			v.expr(a, pos)
		}
		info, ok := lookupOp(x.Op)
		if !ok {
			v.errorf(pos, "unknown intrinsic op %d", x.Op)
			return x.T
		}
		if x.T == nil {
			v.errorf(pos, "%s has no result type", info.Name)
		}
		if info.SemaOnly {
			// Sema lowers these to Construct/Bitcast: no back end has a lowering.
			v.errorf(pos, "%s is lowered by sema and cannot be an Intrinsic", info.Name)
		}
		if info.Class == intrinsics.ClassAtomic {
			switch {
			case len(x.Args) == 0 || x.Args[0] == nil || !IsPlace(x.Args[0]):
				v.errorf(pos, "%s without a place", info.Name)
			case RootGlobal(x.Args[0]) == nil:
				v.errorf(pos, "%s on %s, which is not in a global", info.Name, exprString(x.Args[0]))
			case !RootGlobal(x.Args[0]).Atomic:
				v.errorf(pos, "%s on global %s, which is not marked Atomic", info.Name, RootGlobal(x.Args[0]).Name)
			}
		}
		return x.T
	}
	bad("unknown expression %T", e)
	return nil
}

func (v *validator) construct(x *Construct, pos diag.Pos) {
	bad := func(format string, args ...any) { v.errorf(pos, format, args...) }
	ts := make([]Type, len(x.Args))
	for i, a := range x.Args {
		ts[i] = v.expr(a, pos)
	}
	switch t := x.T.(type) {
	case Vector:
		n := 0
		for _, at := range ts {
			if at == nil {
				return
			}
			s, _ := ScalarOf(at)
			if _, m := at.(Matrix); m || Components(at) == 0 || s != t.Elem {
				bad("%s argument %s in %s", t, at, exprString(x))
			}
			n += Components(at)
		}
		if n != t.N {
			bad("%s built from %d components in %s", t, n, exprString(x))
		}
	case Matrix:
		if len(ts) != t.Rows {
			bad("%s built from %d rows, want %d", t, len(ts), t.Rows)
		}
		row := VecOf(t.Elem, t.Cols)
		for _, at := range ts {
			if at != nil && !sameValue(at, row) {
				bad("%s row is %s, want %s", t, at, row)
			}
		}
	case *Struct:
		if len(ts) != len(t.Fields) {
			bad("struct %s built from %d values, want %d", t.Name, len(ts), len(t.Fields))
		}
		for i, at := range ts {
			if i < len(t.Fields) && at != nil && !sameValue(at, t.Fields[i].Type) {
				bad("struct %s field %d: %s, want %s", t.Name, i, at, t.Fields[i].Type)
			}
		}
	case *Array:
		if len(ts) != t.Len {
			bad("%s built from %d values", t, len(ts))
		}
		for _, at := range ts {
			if at != nil && !sameValue(at, t.Elem) {
				bad("%s element %s", t, at)
			}
		}
	case nil:
		bad("construct without a type")
	default:
		bad("construct of %s", t)
	}
}

func (v *validator) call(x *Call, pos diag.Pos) {
	callee := x.Func
	if j, ok := v.funcIndex[callee]; !ok {
		v.errorf(pos, "call to %s, which is not in the module", callee.Name)
	} else if v.f != nil && j >= v.funcIndex[v.f] {
		v.errorf(pos, "call to %s, which is not before the caller", callee.Name)
	}
	if len(x.Args) != len(callee.Params) {
		v.errorf(pos, "call to %s with %d arguments, want %d", callee.Name, len(x.Args), len(callee.Params))
		return
	}
	for i, a := range x.Args {
		p := callee.Params[i]
		if a == nil || p.Local == nil {
			continue
		}
		if p.Dir != In {
			if _, ok := a.(*LocalRef); !ok {
				v.errorf(pos, "out argument %d to %s is not a LocalRef", i, callee.Name)
				continue
			}
		}
		if t := typeOf(a); t != nil && !sameValue(t, p.Local.Type) {
			v.errorf(pos, "argument %d to %s is %s, want %s", i, callee.Name, t, p.Local.Type)
		}
	}
}

// terminates reports whether control cannot reach the end of b.
func terminates(b Block) bool {
	for _, s := range b {
		switch x := s.(type) {
		case *Return:
			return true
		case *If:
			if terminates(x.Then) && terminates(x.Else) {
				return true
			}
		case *Loop:
			if x.BreakIf == nil && !breaks(x.Body) {
				return true
			}
		case *Switch:
			if switchTerminates(x) {
				return true
			}
		}
	}
	return false
}

func switchTerminates(s *Switch) bool {
	hasDefault := false
	for i, c := range s.Cases {
		if c == nil || breaks(c.Body) {
			return false
		}
		hasDefault = hasDefault || c.Default
		if !terminates(c.Body) && (!c.FallThrough || i == len(s.Cases)-1) {
			return false
		}
	}
	return hasDefault
}

// breaks reports whether b holds a Break that leaves the construct whose body
// b is (Breaks inside nested loops and switches leave those instead).
func breaks(b Block) bool {
	for _, s := range b {
		switch x := s.(type) {
		case *Break:
			return true
		case *If:
			if breaks(x.Then) || breaks(x.Else) {
				return true
			}
		}
	}
	return false
}

// endsInJump reports whether the last statement of b is a Break, Continue or Return.
func endsInJump(b Block) bool {
	if len(b) == 0 {
		return false
	}
	switch b[len(b)-1].(type) {
	case *Break, *Continue, *Return:
		return true
	}
	return false
}

// sameValue is Equal for value types: array strides and matrix layout (stride,
// major order) do not count.
func sameValue(a, b Type) bool {
	switch x := a.(type) {
	case Matrix:
		y, ok := b.(Matrix)
		return ok && x.Elem == y.Elem && x.Rows == y.Rows && x.Cols == y.Cols
	case *Array:
		y, ok := b.(*Array)
		return ok && x.Len == y.Len && sameValue(x.Elem, y.Elem)
	}
	return Equal(a, b)
}

// typeOf is e.Type() for an expression Validate has already checked; nil where
// that would panic.
func typeOf(e Expr) (t Type) {
	defer func() {
		if recover() != nil {
			t = nil
		}
	}()
	return e.Type()
}

// exprString is ExprString for possibly malformed expressions.
func exprString(e Expr) (s string) {
	defer func() {
		if recover() != nil {
			s = fmt.Sprintf("<malformed %T>", e)
		}
	}()
	return ExprString(e)
}

// lookupOp is intrinsics.Get without the panic for an op outside the table.
func lookupOp(op intrinsics.Op) (info *intrinsics.Info, ok bool) {
	defer func() {
		if recover() != nil {
			info, ok = nil, false
		}
	}()
	return intrinsics.Get(op), true
}
