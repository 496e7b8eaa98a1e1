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
	var out []*Function
	seen := map[*Function]bool{}
	var visit func(f *Function)
	visit = func(f *Function) {
		if seen[f] {
			return
		}
		seen[f] = true
		WalkBlock(f.Body, nil, func(e Expr) {
			if c, ok := e.(*Call); ok {
				visit(c.Func)
			}
		})
		out = append(out, f)
	}
	visit(fn)
	return out
}
