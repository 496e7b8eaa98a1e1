package syntax

import (
	"strconv"
	"strings"

	"waverig/compiler/diag"
)

// Binary operator precedences (C/HLSL); higher binds tighter.
const (
	precOr = iota + 1
	precAnd
	precBitOr
	precBitXor
	precBitAnd
	precEq
	precRel
	precShift
	precAdd
	precMul
)

func binaryPrec(s string) (int, bool) {
	switch s {
	case "||":
		return precOr, true
	case "&&":
		return precAnd, true
	case "|":
		return precBitOr, true
	case "^":
		return precBitXor, true
	case "&":
		return precBitAnd, true
	case "==", "!=":
		return precEq, true
	case "<", ">", "<=", ">=":
		return precRel, true
	case "<<", ">>":
		return precShift, true
	case "+", "-":
		return precAdd, true
	case "*", "/", "%":
		return precMul, true
	}
	return 0, false
}

func assignOps(s string) bool {
	switch s {
	case "=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^=":
		return true
	}
	return false
}

// expr parses a full expression including the comma operator.
func (p *parser) expr() Expr {
	x := p.assign()
	for p.isP(",") {
		op := p.advance()
		x = &BinaryExpr{Pos: op.Pos, Op: ",", X: x, Y: p.assign()}
	}
	return x
}

// assign parses an assignment (right associative) or a conditional expression.
// Only the recursive step counts toward the nesting limit, so the limit means
// roughly "levels of parentheses or operators" to the user.
func (p *parser) assign() Expr {
	x := p.cond()
	if t := p.tok(); t.Kind == tPunct && assignOps(t.Text) {
		p.advance()
		p.enter()
		defer p.leave()
		return &AssignExpr{Pos: t.Pos, Op: t.Text, X: x, Y: p.assign()}
	}
	return x
}

// cond parses `c ? a : b` (C++ grammar: the last operand is an assignment expression).
func (p *parser) cond() Expr {
	c := p.binary(0)
	if !p.isP("?") {
		return c
	}
	p.advance()
	p.enter()
	defer p.leave()
	a := p.expr()
	p.expect(":", "in the conditional expression")
	return &CondExpr{Pos: c.P(), Cond: c, X: a, Y: p.assign()}
}

// binary is precedence climbing over the operators that bind tighter than minPrec.
func (p *parser) binary(minPrec int) Expr {
	x := p.unary()
	for {
		t := p.tok()
		prec, ok := binaryPrec(t.Text)
		if t.Kind != tPunct || !ok || prec <= minPrec {
			return x
		}
		p.advance()
		p.enter()
		y := p.binary(prec)
		p.leave()
		x = &BinaryExpr{Pos: t.Pos, Op: t.Text, X: x, Y: y}
	}
}

func (p *parser) unary() Expr {
	p.enter()
	defer p.leave()
	t := p.tok()
	if t.Kind == tPunct {
		switch t.Text {
		case "+", "-", "!", "~", "++", "--":
			p.advance()
			return &UnaryExpr{Pos: t.Pos, Op: t.Text, X: p.unary()}
		case "(":
			if p.isCast() {
				p.advance()
				typ := p.parseType()
				p.expect(")", "after the cast type")
				return &CastExpr{Pos: t.Pos, Type: typ, X: p.unary()}
			}
		}
	}
	return p.postfix(p.primary())
}

// isCast looks past '(' for `type )`: a cast when the name is a type (built-in,
// struct or typedef), possibly with modifiers and template arguments.
func (p *parser) isCast() bool {
	k := 1
	for p.peekN(k).Kind == tIdent && typeModWords(p.peekN(k).Text) {
		k++
	}
	name := p.peekN(k)
	if name.Kind != tIdent || !p.isTypeName(name.Text) {
		return false
	}
	k = p.skipAngles(k + 1)
	return p.peekN(k).isPunct(")")
}

// skipAngles returns the index (relative to p.i) after a template argument
// list starting at k, or k itself when there is no '<' there. It is a token
// scan without parsing, used only to decide between declarations, casts and
// expressions; an unclosed list returns an index past the statement.
func (p *parser) skipAngles(k int) int {
	if !p.peekN(k).isPunct("<") {
		return k
	}
	depth := 0
	for start := k; ; k++ {
		t := p.peekN(k)
		switch {
		// A real template argument list is short; giving up on long ones keeps
		// hostile input from making every '(' rescan the rest of the file.
		case t.Kind == tEOF || t.isPunct(";") || t.isPunct("{") || t.isPunct("}") || k-start > 256:
			return k
		case t.isPunct("<"):
			depth++
		case t.isPunct(">"):
			depth--
		case t.isPunct(">>"):
			depth -= 2
		}
		if depth <= 0 {
			return k + 1
		}
	}
}

func (p *parser) primary() Expr {
	t := p.tok()
	switch t.Kind {
	case tNumber:
		p.advance()
		return p.number(t)
	case tChar:
		p.advance()
		v, err := strconv.Unquote(t.Text)
		if err != nil || len(v) != 1 {
			p.errorf(t.Pos, diag.ErrSynBadNumber, "invalid character literal %s", t.Text)
			v = "\x00"
		}
		return &Literal{Pos: t.Pos, Kind: IntLit, Text: strconv.Itoa(int(v[0]))}
	case tString:
		// Adjacent string literals concatenate, as in C.
		var b strings.Builder
		for p.tok().Kind == tString {
			s := p.advance()
			v, err := strconv.Unquote(s.Text)
			if err != nil {
				v = s.Text[1 : len(s.Text)-1]
			}
			b.WriteString(v)
		}
		return &Literal{Pos: t.Pos, Kind: StringLit, Text: b.String()}
	case tIdent:
		switch {
		case t.Text == "true" || t.Text == "false":
			p.advance()
			return &Literal{Pos: t.Pos, Kind: BoolLit, Text: t.Text}
		case templateTypes(t.Text) && p.peekN(1).isPunct("<"):
			typ := p.parseType()
			if !p.isP("(") {
				p.failAt(p.tok(), diag.ErrSynExpected, "expected '(' after the type %s, found %s", typ.Name, p.tok().describe())
			}
			return &TypeName{Pos: t.Pos, Type: typ}
		case keywords(t.Text) || storageWords(t.Text):
			p.failAt(t, diag.ErrSynExpectedExpr, "expected an expression, found '%s'", t.Text)
		}
		p.advance()
		return &Ident{Pos: t.Pos, Name: t.Text}
	case tPunct:
		if t.Text == "(" {
			p.advance()
			x := p.expr()
			p.expect(")", "to close the parenthesis")
			return &ParenExpr{Pos: t.Pos, X: x}
		}
	}
	p.failAt(t, diag.ErrSynExpectedExpr, "expected an expression, found %s", t.describe())
	return nil
}

func (p *parser) postfix(x Expr) Expr {
	for {
		t := p.tok()
		if t.Kind != tPunct {
			return x
		}
		switch t.Text {
		case "[":
			p.advance()
			idx := p.expr()
			p.expect("]", "after the index")
			x = &IndexExpr{Pos: x.P(), X: x, Index: idx}
		case "(":
			x = &CallExpr{Pos: x.P(), Fun: x, Args: p.args()}
		case ".":
			p.advance()
			name := p.expectIdent("after '.'")
			if p.isP("(") {
				x = &MethodCall{Pos: x.P(), X: x, Name: name.Text, NamePos: name.Pos, Args: p.args()}
			} else {
				x = &SelectorExpr{Pos: x.P(), X: x, Name: name.Text, NamePos: name.Pos}
			}
		case "++", "--":
			p.advance()
			x = &PostfixExpr{Pos: x.P(), Op: t.Text, X: x}
		default:
			return x
		}
	}
}

func (p *parser) args() []Expr {
	p.enter()
	defer p.leave()
	p.expect("(", "to open the arguments")
	var args []Expr
	for !p.isP(")") {
		args = append(args, p.assign())
		if !p.accept(",") {
			break
		}
	}
	p.expect(")", "after the arguments")
	return args
}

// number turns a pp-number into a Literal, reporting malformed ones (and
// continuing with the literal as written, since its shape is still known).
func (p *parser) number(t token) *Literal {
	lit, ok := splitNumber(t.Text)
	l := &Literal{Pos: t.Pos, Kind: IntLit, Text: lit.digits, Suffix: lit.suffix}
	if lit.float {
		l.Kind = FloatLit
	}
	if !ok {
		p.errorf(t.Pos, diag.ErrSynBadNumber, "invalid number %q: %s", t.Text, lit.err)
		return l
	}
	if !lit.float {
		if _, err := strconv.ParseUint(lit.digits, 0, 64); err != nil {
			p.errorf(t.Pos, diag.ErrSynBadNumber, "integer literal %s is too large for 64 bits", t.Text)
		}
	}
	return l
}
