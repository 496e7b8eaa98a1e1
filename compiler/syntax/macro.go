package syntax

import (
	"strconv"
	"strings"

	"waverig/compiler/diag"
)

// macro is one #define.
type macro struct {
	name     string
	funcLike bool
	params   []string // "__VA_ARGS__" last for a variadic macro
	variadic bool
	body     []token
}

func (m *macro) param(t token) int {
	if !m.funcLike || t.Kind != tIdent {
		return -1
	}
	for i, p := range m.params {
		if p == t.Text {
			return i
		}
	}
	return -1
}

// sameAs reports whether a redefinition is identical (C allows those silently).
func (m *macro) sameAs(o *macro) bool {
	if m.funcLike != o.funcLike || m.variadic != o.variadic || len(m.params) != len(o.params) || len(m.body) != len(o.body) {
		return false
	}
	for i := range m.params {
		if m.params[i] != o.params[i] {
			return false
		}
	}
	for i := range m.body {
		if m.body[i].Text != o.body[i].Text || (i > 0 && m.body[i].Space != o.body[i].Space) {
			return false
		}
	}
	return true
}

// hideSet is an immutable list of macro names a token must not be expanded by
// again. Sets are shared between tokens; they stay short (the nesting depth of
// the expansion that produced the token).
type hideSet struct {
	name string
	next *hideSet
	n    int // number of names, bounded by maxHideDepth
}

func (h *hideSet) has(name string) bool {
	for ; h != nil; h = h.next {
		if h.name == name {
			return true
		}
	}
	return false
}

func (h *hideSet) add(name string) *hideSet {
	if h.has(name) {
		return h
	}
	return &hideSet{name: name, next: h, n: h.len() + 1}
}

func (h *hideSet) len() int {
	if h == nil {
		return 0
	}
	return h.n
}

// union returns a ∪ b, sharing b's nodes.
func union(a, b *hideSet) *hideSet {
	if a == b || a == nil {
		return b
	}
	out := b
	for ; a != nil; a = a.next {
		out = out.add(a.name)
	}
	return out
}

func intersect(a, b *hideSet) *hideSet {
	if a == b {
		return a
	}
	var out *hideSet
	for ; a != nil; a = a.next {
		if b.has(a.name) {
			out = &hideSet{name: a.name, next: out, n: out.len() + 1}
		}
	}
	return out
}

// stream is a token source for macro expansion: a stack of pushed-back tokens
// (expansion results waiting to be rescanned) over either a plain list or, for
// the main stream, the current file, where it stops in front of each directive.
type stream struct {
	pending []token // reversed: the next token is last
	list    []token
	li      int
	pp      *preprocessor
	file    bool
}

func (s *stream) peek() (token, bool) {
	if n := len(s.pending); n > 0 {
		return s.pending[n-1], true
	}
	if s.file {
		f := s.pp.top()
		if f.i < len(f.toks) && !(f.toks[f.i].BOL && f.toks[f.i].isPunct("#")) {
			return f.toks[f.i], true
		}
		return token{}, false
	}
	if s.li < len(s.list) {
		return s.list[s.li], true
	}
	return token{}, false
}

func (s *stream) next() (token, bool) {
	t, ok := s.peek()
	if !ok {
		return t, false
	}
	switch {
	case len(s.pending) > 0:
		s.pending = s.pending[:len(s.pending)-1]
	case s.file:
		s.pp.top().i++
	default:
		s.li++
	}
	return t, true
}

func (s *stream) push(toks []token) {
	for i := len(toks) - 1; i >= 0; i-- {
		s.pending = append(s.pending, toks[i])
	}
}

// expandList fully macro-expands a token list in isolation (macro arguments,
// #if lines, #include operands).
func (pp *preprocessor) expandList(toks []token) []token { return pp.expandTokens(toks, false) }

// expandTokens is expandList; with inIf set, the operand of `defined` (as
// written, or produced by a macro such as `#define HAS_X defined(X)`, which
// GCC and clang accept) is passed through unexpanded.
func (pp *preprocessor) expandTokens(toks []token, inIf bool) []token {
	s := &stream{list: toks, pp: pp}
	var out []token
	for !pp.stopped {
		t, ok := s.next()
		if !ok {
			break
		}
		if inIf && t.is(tIdent, "defined") {
			out = append(out, t)
			n, ok := s.peek()
			if ok && n.isPunct("(") {
				s.next()
				out = append(out, n)
				n, ok = s.peek()
			}
			if ok && n.Kind == tIdent {
				s.next()
				out = append(out, n)
			}
			continue
		}
		if t, emit := pp.expandToken(s, t); emit {
			out = append(out, t)
		}
	}
	return out
}

// expandToken handles one token read from s: a macro use is replaced by its
// expansion, pushed back onto s to be rescanned (emit false); anything else is
// returned for output.
func (pp *preprocessor) expandToken(s *stream, t token) (token, bool) {
	if t.Kind != tIdent {
		return t, true
	}
	switch t.Text {
	case "__LINE__":
		line := 0
		if t.Pos.Src != nil {
			line, _ = t.Pos.Src.LineCol(t.Pos.Off)
		}
		t.Kind, t.Text = tNumber, strconv.Itoa(line)
		return t, true
	case "__FILE__":
		path := ""
		if t.Pos.Src != nil {
			path = t.Pos.Src.Path
		}
		t.Kind, t.Text = tString, strconv.Quote(path)
		return t, true
	}
	m := pp.macros[t.Text]
	if m == nil || t.hide.has(t.Text) {
		return t, true
	}
	if !m.funcLike {
		s.push(pp.subst(m, nil, t, t.hide.add(m.name)))
		return token{}, false
	}
	if nt, ok := s.peek(); !ok || !nt.isPunct("(") {
		return t, true // a function-like macro name without arguments is an ordinary name
	}
	s.next()
	args, rparen, ok := pp.collectArgs(s, m, t)
	if !ok {
		// Already reported; the error token keeps the parser from adding a
		// second message about the hole the failed expansion leaves.
		return token{Kind: tError, Text: t.Text, Pos: t.Pos}, true
	}
	s.push(pp.subst(m, args, t, intersect(t.hide, rparen.hide).add(m.name)))
	return token{}, false
}

// collectArgs reads the arguments of a function-like macro after its '('.
func (pp *preprocessor) collectArgs(s *stream, m *macro, name token) ([][]token, token, bool) {
	var args [][]token
	var cur []token
	depth := 0
	for {
		t, ok := s.next()
		if !ok && s.file && len(s.pending) == 0 && pp.atDirective() {
			// Directives between the arguments (an #ifdef choosing one) take
			// effect as they are met, as in clang and DXC.
			pp.directive()
			if !pp.stopped {
				continue
			}
		}
		if !ok {
			pp.log.Errorf(name.Pos, diag.ErrPPUnterminatedArgs, "unterminated argument list invoking macro %s", m.name)
			return nil, t, false
		}
		switch {
		case t.isPunct("("):
			// Only parentheses group arguments (as in C and DXC): F({1, 2}) has two.
			depth++
		case t.isPunct(")"):
			if depth == 0 {
				args = append(args, cur)
				return pp.checkArgs(m, name, args), t, pp.argCountOK(m, name, args)
			}
			depth--
		case t.isPunct(",") && depth == 0 && !(m.variadic && len(args) == len(m.params)-1):
			args = append(args, cur)
			cur = nil
			continue
		}
		cur = append(cur, t)
	}
}

// checkArgs normalises the argument list: `F()` for a macro with no parameters
// has zero arguments, and a variadic macro may omit its variable part.
func (pp *preprocessor) checkArgs(m *macro, name token, args [][]token) [][]token {
	if len(m.params) == 0 && len(args) == 1 && len(args[0]) == 0 {
		return nil
	}
	if m.variadic && len(args) == len(m.params)-1 {
		return append(args, nil)
	}
	return args
}

func (pp *preprocessor) argCountOK(m *macro, name token, args [][]token) bool {
	args = pp.checkArgs(m, name, args)
	if len(args) != len(m.params) {
		pp.log.Errorf(name.Pos, diag.ErrPPMacroArgCount, "macro %s expects %d argument(s), got %d", m.name, len(m.params), len(args))
		return false
	}
	return true
}

// subst builds the replacement of one macro use. Body tokens take the position
// of the use (inv), so diagnostics point at what the user wrote; argument tokens
// keep their own positions, which are in the user's text as well.
func (pp *preprocessor) subst(m *macro, args [][]token, inv token, hs *hideSet) []token {
	expanded := make([][]token, len(args))
	done := make([]bool, len(args))
	expArg := func(i int) []token {
		if !done[i] {
			done[i] = true
			if pp.argDepth >= maxArgDepth {
				if !pp.stopped {
					pp.stopped = true
					pp.log.Errorf(inv.Pos, diag.ErrPPExpansionLimit, "macro arguments nested more than %d levels deep", maxArgDepth)
				}
				expanded[i] = args[i]
			} else {
				pp.argDepth++
				expanded[i] = pp.expandList(args[i])
				pp.argDepth--
			}
		}
		return expanded[i]
	}
	fromBody := func(t token) token {
		t.Pos, t.BOL = inv.Pos, false
		return t
	}
	var out []token
	body := m.body
	for i := 0; i < len(body); i++ {
		t := body[i]
		if t.isPunct("#") && m.funcLike && i+1 < len(body) {
			if p := m.param(body[i+1]); p >= 0 {
				out = append(out, fromBody(token{Kind: tString, Text: stringize(args[p]), Space: t.Space}))
				i++
				continue
			}
		}
		if t.isPunct("##") && i+1 < len(body) && len(out) > 0 {
			i++
			rhs := []token{fromBody(body[i])}
			if p := m.param(body[i]); p >= 0 {
				rhs = args[p]
			}
			if len(rhs) == 0 {
				continue // pasting with an empty argument leaves the left side as it is
			}
			last := &out[len(out)-1]
			if last.Kind == tPlacemarker {
				*last = rhs[0]
			} else {
				*last = pp.paste(*last, rhs[0], inv)
			}
			out = append(out, rhs[1:]...)
			continue
		}
		if p := m.param(t); p >= 0 {
			if i+1 < len(body) && body[i+1].isPunct("##") {
				if len(args[p]) == 0 {
					out = append(out, token{Kind: tPlacemarker})
				} else {
					out = append(out, args[p]...)
				}
			} else {
				a := expArg(p)
				if len(a) > 0 {
					start := len(out)
					out = append(out, a...)
					out[start].Space = t.Space
				}
			}
			continue
		}
		out = append(out, fromBody(t))
	}
	if hs.len() > maxHideDepth {
		if !pp.stopped {
			pp.stopped = true
			pp.log.Errorf(inv.Pos, diag.ErrPPExpansionLimit, "macro expansion nested more than %d levels deep (at %s)", maxHideDepth, m.name)
		}
		return nil
	}
	// Tokens from one argument share a hide set, so unions are computed once per
	// distinct set rather than once per token.
	var memo map[*hideSet]*hideSet
	res := out[:0]
	for _, t := range out {
		if t.Kind == tPlacemarker {
			continue
		}
		t.BOL = false
		if t.hide == nil {
			t.hide = hs
		} else if u, ok := memo[t.hide]; ok {
			t.hide = u
		} else {
			if memo == nil {
				memo = map[*hideSet]*hideSet{}
			}
			u = union(t.hide, hs)
			memo[t.hide] = u
			t.hide = u
		}
		res = append(res, t)
	}
	if len(res) > 0 {
		res[0].Space = inv.Space
	}
	pp.charge(len(res)+1, inv.Pos)
	if pp.stopped {
		return nil
	}
	return res
}

// paste implements a ## b.
func (pp *preprocessor) paste(a, b token, inv token) token {
	t, ok := lexOne(a.Text+b.Text, inv.Pos)
	if !ok {
		pp.log.Errorf(inv.Pos, diag.ErrPPBadPaste, "pasting %q and %q does not give a valid token", a.Text, b.Text)
		return token{Kind: tError, Text: a.Text + b.Text, Pos: inv.Pos}
	}
	t.hide = intersect(a.hide, b.hide)
	return t
}

// stringize implements #param: the argument's spelling with single spaces
// between tokens that were separated, quotes and backslashes escaped inside
// string and character literals.
func stringize(arg []token) string {
	var b strings.Builder
	b.WriteByte('"')
	for i, t := range arg {
		if i > 0 && t.Space {
			b.WriteByte(' ')
		}
		if t.Kind == tString || t.Kind == tChar || t.Kind == tBadString {
			for j := 0; j < len(t.Text); j++ {
				if c := t.Text[j]; c == '"' || c == '\\' {
					b.WriteByte('\\')
				}
				b.WriteByte(t.Text[j])
			}
			continue
		}
		b.WriteString(t.Text)
	}
	b.WriteByte('"')
	return b.String()
}

// define handles `#define` (args are the tokens after the directive name).
func (pp *preprocessor) define(args []token, dir token) {
	if len(args) == 0 || args[0].Kind != tIdent {
		pp.log.Errorf(dir.Pos, diag.ErrPPBadDefine, "#define needs a macro name")
		return
	}
	name := args[0]
	if name.Text == "defined" {
		pp.log.Errorf(name.Pos, diag.ErrPPBadDefine, "\"defined\" cannot be used as a macro name")
		return
	}
	if isBuiltinMacro(name.Text) {
		pp.log.Warnf(name.Pos, diag.WarnPPUndefBuiltin, "%s is built in and cannot be redefined", name.Text)
		return
	}
	m := &macro{name: name.Text}
	rest := args[1:]
	// `#define F(x)` is function-like only when '(' touches the name.
	if len(rest) > 0 && rest[0].isPunct("(") && !rest[0].Space {
		m.funcLike = true
		i := 1
		for {
			if i >= len(rest) {
				pp.log.Errorf(name.Pos, diag.ErrPPBadDefine, "missing ')' in the parameter list of macro %s", name.Text)
				return
			}
			t := rest[i]
			if t.isPunct(")") && len(m.params) == 0 {
				i++
				break
			}
			switch {
			case t.isPunct("..."):
				m.variadic = true
				m.params = append(m.params, "__VA_ARGS__")
			case t.Kind == tIdent && t.Text != "__VA_ARGS__":
				for _, p := range m.params {
					if p == t.Text {
						pp.log.Errorf(t.Pos, diag.ErrPPBadDefine, "duplicate macro parameter %q", t.Text)
						return
					}
				}
				m.params = append(m.params, t.Text)
			default:
				pp.log.Errorf(t.Pos, diag.ErrPPBadDefine, "expected a parameter name in macro %s, found %s", name.Text, t.describe())
				return
			}
			i++
			if i < len(rest) && rest[i].isPunct(")") {
				i++
				break
			}
			if i >= len(rest) || !rest[i].isPunct(",") || m.variadic {
				pos := name.Pos
				if i < len(rest) {
					pos = rest[i].Pos
				}
				pp.log.Errorf(pos, diag.ErrPPBadDefine, "expected ',' or ')' in the parameter list of macro %s", name.Text)
				return
			}
			i++
		}
		rest = rest[i:]
	}
	m.body = make([]token, len(rest))
	copy(m.body, rest)
	for i := range m.body {
		m.body[i].BOL = false
	}
	if len(m.body) > 0 {
		if m.body[0].isPunct("##") || m.body[len(m.body)-1].isPunct("##") {
			pp.log.Errorf(m.body[0].Pos, diag.ErrPPBadPaste, "'##' cannot appear at either end of a macro body")
			return
		}
		m.body[0].Space = false
	}
	if m.funcLike {
		for i, t := range m.body {
			if t.isPunct("#") && (i+1 >= len(m.body) || m.param(m.body[i+1]) < 0) {
				pp.log.Errorf(t.Pos, diag.ErrPPBadStringize, "'#' is not followed by a macro parameter")
				return
			}
		}
	}
	if old := pp.macros[m.name]; old != nil && !old.sameAs(m) {
		pp.log.Warnf(name.Pos, diag.WarnPPMacroRedefined, "macro %s redefined", m.name)
	}
	pp.macros[m.name] = m
}
