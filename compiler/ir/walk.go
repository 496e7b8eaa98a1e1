package ir

// WalkBlock calls stmt for every statement (pre-order, nested blocks included)
// and expr for every expression (pre-order, sub-expressions included) in b.
// Either callback may be nil.
func WalkBlock(b Block, stmt func(Stmt), expr func(Expr)) {
	for _, s := range b {
		WalkStmt(s, stmt, expr)
	}
}

// WalkStmt walks one statement; see WalkBlock.
func WalkStmt(s Stmt, stmt func(Stmt), expr func(Expr)) {
	if stmt != nil {
		stmt(s)
	}
	ex := func(e Expr) {
		if e != nil {
			WalkExpr(e, expr)
		}
	}
	switch s := s.(type) {
	case *Store:
		ex(s.Place)
		ex(s.Value)
	case *ExprStmt:
		ex(s.X)
	case *If:
		ex(s.Cond)
		WalkBlock(s.Then, stmt, expr)
		WalkBlock(s.Else, stmt, expr)
	case *Loop:
		WalkBlock(s.Body, stmt, expr)
		WalkBlock(s.Continuing, stmt, expr)
		ex(s.BreakIf)
	case *Switch:
		ex(s.Selector)
		for _, c := range s.Cases {
			WalkBlock(c.Body, stmt, expr)
		}
	case *Return:
		ex(s.Value)
	}
}

// WalkExpr calls f for e and every sub-expression, pre-order. f may be nil.
func WalkExpr(e Expr, f func(Expr)) {
	if e == nil || f == nil {
		return
	}
	f(e)
	switch e := e.(type) {
	case *Index:
		WalkExpr(e.Base, f)
		WalkExpr(e.Idx, f)
	case *Member:
		WalkExpr(e.Base, f)
	case *Load:
		WalkExpr(e.Place, f)
	case *Swizzle:
		WalkExpr(e.Base, f)
	case *Unary:
		WalkExpr(e.X, f)
	case *Binary:
		WalkExpr(e.X, f)
		WalkExpr(e.Y, f)
	case *Select:
		WalkExpr(e.Cond, f)
		WalkExpr(e.True, f)
		WalkExpr(e.False, f)
	case *Convert:
		WalkExpr(e.X, f)
	case *Bitcast:
		WalkExpr(e.X, f)
	case *Construct:
		for _, a := range e.Args {
			WalkExpr(a, f)
		}
	case *Call:
		for _, a := range e.Args {
			WalkExpr(a, f)
		}
	case *Intrinsic:
		for _, a := range e.Args {
			WalkExpr(a, f)
		}
	}
}

// Reachable returns the functions reachable from fn (fn included), callees first.
func Reachable(fn *Function) []*Function {
	var r reacher
	r.seen = r.seenBuf[:0]
	r.visit(fn)
	return r.out
}

// reacher is Reachable's walk. It visits statements and expressions in
// exactly WalkBlock's order, but as methods: the closure-based walk allocated
// a closure per function and per statement, and the back ends each call
// Reachable for every entry point.
//
// The visited set is a short slice searched linearly (a shader has a handful
// of functions), and becomes a map only for modules with many.
type reacher struct {
	seen    []*Function
	seenBuf [16]*Function
	seenMap map[*Function]bool
	out     []*Function
}

func (r *reacher) visit(f *Function) {
	if r.seenMap != nil {
		if r.seenMap[f] {
			return
		}
		r.seenMap[f] = true
	} else {
		for _, g := range r.seen {
			if g == f {
				return
			}
		}
		if len(r.seen) < 64 {
			r.seen = append(r.seen, f)
		} else {
			r.seenMap = make(map[*Function]bool, 2*len(r.seen))
			for _, g := range r.seen {
				r.seenMap[g] = true
			}
			r.seenMap[f] = true
		}
	}
	r.block(f.Body)
	r.out = append(r.out, f)
}

func (r *reacher) block(b Block) {
	for _, s := range b {
		r.stmt(s)
	}
}

func (r *reacher) stmt(s Stmt) {
	switch s := s.(type) {
	case *Store:
		r.expr(s.Place)
		r.expr(s.Value)
	case *ExprStmt:
		r.expr(s.X)
	case *If:
		r.expr(s.Cond)
		r.block(s.Then)
		r.block(s.Else)
	case *Loop:
		r.block(s.Body)
		r.block(s.Continuing)
		r.expr(s.BreakIf)
	case *Switch:
		r.expr(s.Selector)
		for _, c := range s.Cases {
			r.block(c.Body)
		}
	case *Return:
		r.expr(s.Value)
	}
}

func (r *reacher) expr(e Expr) {
	switch e := e.(type) {
	case nil:
	case *Index:
		r.expr(e.Base)
		r.expr(e.Idx)
	case *Member:
		r.expr(e.Base)
	case *Load:
		r.expr(e.Place)
	case *Swizzle:
		r.expr(e.Base)
	case *Unary:
		r.expr(e.X)
	case *Binary:
		r.expr(e.X)
		r.expr(e.Y)
	case *Select:
		r.expr(e.Cond)
		r.expr(e.True)
		r.expr(e.False)
	case *Convert:
		r.expr(e.X)
	case *Bitcast:
		r.expr(e.X)
	case *Construct:
		for _, a := range e.Args {
			r.expr(a)
		}
	case *Call:
		r.visit(e.Func)
		for _, a := range e.Args {
			r.expr(a)
		}
	case *Intrinsic:
		for _, a := range e.Args {
			r.expr(a)
		}
	}
}
