package syntax

import (
	"strconv"
	"strings"

	"waverig/compiler/diag"
)

// ppValue is an #if operand. C evaluates #if in intmax_t/uintmax_t; an operand
// is unsigned when it has a u suffix or comes from an unsigned operation.
type ppValue struct {
	v        int64
	unsigned bool
}

func (a ppValue) truth() bool { return a.v != 0 }

// ppEval evaluates one #if/#elif expression.
type ppEval struct {
	pp    *preprocessor
	toks  []token
	i     int
	dir   token
	err   bool
	depth int
}

// evalIf expands macros (leaving the operands of `defined` alone), resolves
// `defined`, then evaluates the line. Any error
// makes the condition false (after one coded message).
func (pp *preprocessor) evalIf(args []token, dir token) bool {
	args = pp.expandTokens(args, true)
	if pp.stopped {
		return false
	}
	var toks []token
	for i := 0; i < len(args); i++ {
		t := args[i]
		if !t.is(tIdent, "defined") {
			toks = append(toks, t)
			continue
		}
		paren := i+1 < len(args) && args[i+1].isPunct("(")
		j := i + 1
		if paren {
			j++
		}
		if j >= len(args) || args[j].Kind != tIdent || paren && (j+1 >= len(args) || !args[j+1].isPunct(")")) {
			pp.log.Errorf(t.Pos, diag.ErrPPMissingMacroName, "'defined' needs a macro name: defined(NAME) or defined NAME")
			return false
		}
		v := "0"
		if pp.isDefined(args[j].Text) {
			v = "1"
		}
		toks = append(toks, token{Kind: tNumber, Text: v, Pos: t.Pos})
		if paren {
			j++
		}
		i = j
	}
	if len(toks) == 0 {
		pp.log.Errorf(dir.Pos, diag.ErrPPBadIfExpr, "#%s with no expression", dir.Text)
		return false
	}
	e := &ppEval{pp: pp, toks: toks, dir: dir}
	v := e.comma(true)
	if !e.err && e.i < len(e.toks) {
		e.fail(e.toks[e.i], "unexpected %s in #%s expression", e.toks[e.i].describe(), dir.Text)
	}
	return !e.err && v.truth()
}

func (e *ppEval) fail(t token, format string, args ...any) {
	if !e.err {
		e.err = true
		pos := t.Pos
		if !pos.IsValid() {
			pos = e.dir.Pos
		}
		e.pp.log.Errorf(pos, diag.ErrPPBadIfExpr, format, args...)
	}
}

func (e *ppEval) peek() token {
	if e.i < len(e.toks) {
		return e.toks[e.i]
	}
	return token{Kind: tEOF, Pos: e.dir.Pos}
}

// comma: expr (',' expr)*. live is false inside a short-circuited operand, where
// division by zero is not an error because the operand is never evaluated.
func (e *ppEval) comma(live bool) ppValue {
	v := e.cond(live)
	for !e.err && e.peek().isPunct(",") {
		e.i++
		v = e.cond(live)
	}
	return v
}

func (e *ppEval) cond(live bool) ppValue {
	e.depth++
	defer func() { e.depth-- }()
	if e.depth > 1000 {
		e.fail(e.peek(), "#%s expression nested too deeply", e.dir.Text)
		return ppValue{}
	}
	c := e.binary(0, live)
	if e.err || !e.peek().isPunct("?") {
		return c
	}
	e.i++
	a := e.comma(live && c.truth())
	if !e.peek().isPunct(":") {
		e.fail(e.peek(), "expected ':' in #%s expression, found %s", e.dir.Text, e.peek().describe())
		return ppValue{}
	}
	e.i++
	b := e.cond(live && !c.truth())
	r := b
	if c.truth() {
		r = a
	}
	r.unsigned = a.unsigned || b.unsigned
	return r
}

// ppPrec is the binary precedence table (higher binds tighter).
func ppPrec(s string) (int, bool) {
	switch s {
	case "||":
		return 1, true
	case "&&":
		return 2, true
	case "|":
		return 3, true
	case "^":
		return 4, true
	case "&":
		return 5, true
	case "==", "!=":
		return 6, true
	case "<", ">", "<=", ">=":
		return 7, true
	case "<<", ">>":
		return 8, true
	case "+", "-":
		return 9, true
	case "*", "/", "%":
		return 10, true
	}
	return 0, false
}

func (e *ppEval) binary(minPrec int, live bool) ppValue {
	x := e.unary(live)
	for !e.err {
		op := e.peek()
		prec, ok := ppPrec(op.Text)
		if op.Kind != tPunct || !ok || prec <= minPrec {
			return x
		}
		e.i++
		yLive := live
		if op.Text == "&&" {
			yLive = live && x.truth()
		} else if op.Text == "||" {
			yLive = live && !x.truth()
		}
		y := e.binary(prec, yLive)
		if e.err {
			return x
		}
		x = e.apply(op, x, y, yLive)
	}
	return x
}

func b2v(b bool) ppValue {
	if b {
		return ppValue{v: 1}
	}
	return ppValue{}
}

func (e *ppEval) apply(op token, x, y ppValue, live bool) ppValue {
	u := x.unsigned || y.unsigned
	ux, uy := uint64(x.v), uint64(y.v)
	switch op.Text {
	case "||":
		return b2v(x.truth() || y.truth())
	case "&&":
		return b2v(x.truth() && y.truth())
	case "==":
		return b2v(x.v == y.v)
	case "!=":
		return b2v(x.v != y.v)
	case "<", ">", "<=", ">=":
		var lt, gt bool
		if u {
			lt, gt = ux < uy, ux > uy
		} else {
			lt, gt = x.v < y.v, x.v > y.v
		}
		switch op.Text {
		case "<":
			return b2v(lt)
		case ">":
			return b2v(gt)
		case "<=":
			return b2v(!gt)
		}
		return b2v(!lt)
	case "<<", ">>":
		// Shifts by a negative amount or by 64 or more are undefined in C; yield 0
		// (or the sign fill) rather than whatever the host does.
		n := y.v
		if n < 0 || n >= 64 {
			if op.Text == ">>" && !x.unsigned && x.v < 0 {
				return ppValue{v: -1}
			}
			return ppValue{unsigned: x.unsigned}
		}
		if op.Text == "<<" {
			return ppValue{v: int64(ux << uint(n)), unsigned: x.unsigned}
		}
		if x.unsigned {
			return ppValue{v: int64(ux >> uint(n)), unsigned: true}
		}
		return ppValue{v: x.v >> uint(n)}
	case "/", "%":
		if y.v == 0 {
			if live {
				e.pp.log.Errorf(op.Pos, diag.ErrPPIfDivByZero, "division by zero in #%s expression", e.dir.Text)
				e.err = true
			}
			return ppValue{unsigned: u}
		}
		if u {
			if op.Text == "/" {
				return ppValue{v: int64(ux / uy), unsigned: true}
			}
			return ppValue{v: int64(ux % uy), unsigned: true}
		}
		if y.v == -1 { // avoid the MinInt64 / -1 trap
			if op.Text == "/" {
				return ppValue{v: -x.v}
			}
			return ppValue{}
		}
		if op.Text == "/" {
			return ppValue{v: x.v / y.v}
		}
		return ppValue{v: x.v % y.v}
	case "+":
		return ppValue{v: x.v + y.v, unsigned: u}
	case "-":
		return ppValue{v: x.v - y.v, unsigned: u}
	case "*":
		return ppValue{v: x.v * y.v, unsigned: u}
	case "&":
		return ppValue{v: x.v & y.v, unsigned: u}
	case "|":
		return ppValue{v: x.v | y.v, unsigned: u}
	case "^":
		return ppValue{v: x.v ^ y.v, unsigned: u}
	}
	return x
}

func (e *ppEval) unary(live bool) ppValue {
	t := e.peek()
	if t.Kind == tPunct {
		switch t.Text {
		case "+", "-", "!", "~":
			e.i++
			e.depth++
			defer func() { e.depth-- }()
			if e.depth > 1000 {
				e.fail(t, "#%s expression nested too deeply", e.dir.Text)
				return ppValue{}
			}
			x := e.unary(live)
			switch t.Text {
			case "-":
				x.v = -x.v
			case "!":
				return b2v(!x.truth())
			case "~":
				x.v = ^x.v
			}
			return x
		case "(":
			e.i++
			x := e.comma(live)
			if e.err {
				return x
			}
			if !e.peek().isPunct(")") {
				e.fail(e.peek(), "expected ')' in #%s expression, found %s", e.dir.Text, e.peek().describe())
				return ppValue{}
			}
			e.i++
			return x
		}
	}
	e.i++
	switch t.Kind {
	case tIdent:
		// After expansion every remaining name is 0, except C++'s true.
		if t.Text == "true" {
			return ppValue{v: 1}
		}
		return ppValue{}
	case tNumber:
		v, ok := ppInt(t.Text)
		if !ok {
			e.fail(t, "invalid integer %q in #%s expression", t.Text, e.dir.Text)
		}
		return v
	case tChar:
		if s, err := strconv.Unquote(t.Text); err == nil && len(s) > 0 {
			return ppValue{v: int64(s[0])}
		}
		e.fail(t, "invalid character constant %s in #%s expression", t.Text, e.dir.Text)
		return ppValue{}
	}
	e.i--
	if t.Kind == tEOF {
		e.fail(t, "#%s expression ends unexpectedly", e.dir.Text)
	} else {
		e.fail(t, "unexpected %s in #%s expression", t.describe(), e.dir.Text)
	}
	return ppValue{}
}

// ppInt parses an integer literal of an #if line (floating point is not allowed there).
func ppInt(text string) (ppValue, bool) {
	lit, ok := splitNumber(text)
	if !ok || lit.float {
		return ppValue{}, false
	}
	n, err := strconv.ParseUint(lit.digits, 0, 64)
	if err != nil {
		return ppValue{}, false
	}
	return ppValue{v: int64(n), unsigned: strings.Contains(lit.suffix, "u") || n > 1<<63-1}, true
}
