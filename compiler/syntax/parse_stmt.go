package syntax

import "waverig/compiler/diag"

// block parses `{ statements }`; each statement recovers on its own.
func (p *parser) block() *BlockStmt {
	p.enter()
	defer p.leave()
	b := &BlockStmt{Pos: p.expect("{", "to open a block").Pos}
	for !p.isP("}") && p.tok().Kind != tEOF {
		p.protect(func() {
			if s := p.statement(); s != nil {
				b.Stmts = append(b.Stmts, s)
			}
		})
	}
	p.expect("}", "to close the block")
	return b
}

func (p *parser) statement() Stmt {
	p.enter()
	defer p.leave()
	attrs := p.attributes()
	t := p.tok()
	pos := t.Pos
	if len(attrs) > 0 {
		pos = attrs[0].Pos
	}
	if t.Kind == tPunct {
		switch t.Text {
		case "{":
			return p.block()
		case ";":
			p.advance()
			return &EmptyStmt{Pos: pos}
		}
	}
	if t.Kind == tIdent {
		switch t.Text {
		case "if":
			p.advance()
			s := &IfStmt{Pos: pos, Attrs: attrs, Cond: p.parenExpr("if")}
			s.Then = p.statement()
			if p.isKw("else") {
				p.advance()
				s.Else = p.statement()
			}
			return s
		case "for":
			return p.forStmt(pos, attrs)
		case "while":
			p.advance()
			s := &WhileStmt{Pos: pos, Attrs: attrs, Cond: p.parenExpr("while")}
			s.Body = p.statement()
			return s
		case "do":
			p.advance()
			s := &DoWhileStmt{Pos: pos, Attrs: attrs, Body: p.statement()}
			if !p.isKw("while") {
				p.failAt(p.tok(), diag.ErrSynExpected, "expected 'while' after the body of do, found %s", p.tok().describe())
			}
			p.advance()
			s.Cond = p.parenExpr("do-while")
			p.expect(";", "after do-while")
			return s
		case "switch":
			return p.switchStmt(pos, attrs)
		case "break", "continue", "discard":
			p.advance()
			p.expect3(";", "after ", t.Text, "")
			switch t.Text {
			case "break":
				return &BreakStmt{Pos: pos}
			case "continue":
				return &ContinueStmt{Pos: pos}
			}
			return &DiscardStmt{Pos: pos}
		case "return":
			p.advance()
			s := &ReturnStmt{Pos: pos}
			if !p.isP(";") {
				s.Value = p.expr()
			}
			p.expect(";", "after return")
			return s
		case "else":
			p.failAt(t, diag.ErrSynElseWithoutIf, "'else' without a matching 'if'")
		case "case", "default":
			p.failAt(t, diag.ErrSynCaseOutsideSwitch, "'%s' label outside a switch", t.Text)
		}
	}
	if p.startsDecl() {
		return p.declStmt()
	}
	x := p.expr()
	p.expect(";", "after the expression")
	return &ExprStmt{Pos: pos, X: x}
}

// startsDecl decides whether a statement is a declaration: it starts with a
// storage word or a type name that is not used as a constructor (`float3(…)`),
// or it is `Name name` (an unknown type, which sema reports).
func (p *parser) startsDecl() bool {
	t := p.tok()
	if t.Kind != tIdent {
		return false
	}
	if storageWords(t.Text) || typeModWords(t.Text) || paramDirWords(t.Text) || t.Text == "struct" || t.Text == "typedef" {
		return true
	}
	if _, bad := unsupportedWords(t.Text); bad {
		return true // specifiers() reports it
	}
	n := p.peekN(1)
	if p.isTypeName(t.Text) {
		if n.isPunct("<") { // vector<float, 3> v; but vector<float, 3>(…) is a constructor
			return !p.peekN(p.skipAngles(1)).isPunct("(")
		}
		return n.Kind == tIdent
	}
	return n.Kind == tIdent && !keywords(t.Text) && !keywords(n.Text)
}

func (p *parser) declStmt() Stmt {
	pos := p.tok().Pos
	if p.isKw("typedef") {
		return &DeclStmt{Pos: pos, Decls: p.typedef()}
	}
	return &DeclStmt{Pos: pos, Decls: p.declaration(nil, false)}
}

func (p *parser) parenExpr(what string) Expr {
	p.expect3("(", "after ", what, "")
	x := p.expr()
	p.expect3(")", "after the ", what, " condition")
	return x
}

func (p *parser) forStmt(pos diag.Pos, attrs []Attribute) Stmt {
	p.advance()
	s := &ForStmt{Pos: pos, Attrs: attrs}
	p.expect("(", "after for")
	switch {
	case p.accept(";"):
	case p.startsDecl():
		s.Init = p.declStmt() // consumes the ';'
	default:
		ipos := p.tok().Pos
		s.Init = &ExprStmt{Pos: ipos, X: p.expr()}
		p.expect(";", "after the for initializer")
	}
	if !p.isP(";") {
		s.Cond = p.expr()
	}
	p.expect(";", "after the for condition")
	if !p.isP(")") {
		s.Post = p.expr()
	}
	p.expect(")", "after the for clauses")
	s.Body = p.statement()
	return s
}

func (p *parser) switchStmt(pos diag.Pos, attrs []Attribute) Stmt {
	p.advance()
	s := &SwitchStmt{Pos: pos, Attrs: attrs, Tag: p.parenExpr("switch")}
	p.expect("{", "to open the switch body")
	var cur *CaseClause
	for !p.isP("}") && p.tok().Kind != tEOF {
		p.protect(func() {
			t := p.tok()
			switch {
			case t.is(tIdent, "case"):
				p.advance()
				cur = &CaseClause{Pos: t.Pos, Values: []Expr{p.cond()}}
				p.expect(":", "after the case value")
				s.Cases = append(s.Cases, cur)
			case t.is(tIdent, "default"):
				p.advance()
				p.expect(":", "after default")
				cur = &CaseClause{Pos: t.Pos, Default: true}
				s.Cases = append(s.Cases, cur)
			case cur == nil:
				p.failAt(t, diag.ErrSynExpected, "expected 'case' or 'default' in switch, found %s", t.describe())
			default:
				if st := p.statement(); st != nil {
					cur.Body = append(cur.Body, st)
				}
			}
		})
	}
	p.expect("}", "to close the switch body")
	return s
}
