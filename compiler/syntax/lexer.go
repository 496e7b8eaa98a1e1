package syntax

import (
	"strings"

	"waverig/compiler/diag"
)

// tokKind is the lexical class of a preprocessing token. Keywords are plain
// identifiers here: the parser decides what they mean, which keeps the
// preprocessor free to #define any name.
type tokKind uint8

const (
	tEOF         tokKind = iota
	tIdent               // names and keywords
	tNumber              // a C "pp-number": digits, letters, '.', and exponent signs; validated by the parser
	tString              // "…" (Text keeps the quotes)
	tChar                // '…' (Text keeps the quotes)
	tPunct               // operators and punctuation
	tBadChar             // a character no token can start with; reported when consumed
	tBadString           // a string or char literal that runs to the end of the line; reported when consumed
	tPlacemarker         // an empty macro argument during ## pasting; never leaves the expander
	tError               // stands for a macro use the preprocessor already reported; the parser bails silently
)

// token is one preprocessing token. The fields are ordered so the three
// one-byte fields share a word: 48 bytes instead of 56, and tokens are copied
// by value throughout the lexer, preprocessor and parser.
type token struct {
	Text string
	Pos  diag.Pos
	// hide is the set of macros that must not expand this token again (the
	// "painted blue" rule that makes `#define A A` terminate).
	hide *hideSet
	Kind tokKind
	// Space is set when whitespace (or a comment) precedes the token on its line;
	// stringizing (#x) needs it to reproduce spacing.
	Space bool
	// BOL is set on the first token of a source line: a '#' there starts a directive.
	BOL bool
}

func (t token) is(kind tokKind, text string) bool { return t.Kind == kind && t.Text == text }
func (t token) isPunct(text string) bool          { return t.Kind == tPunct && t.Text == text }

// describe renders a token for "expected X, found Y" messages.
func (t token) describe() string {
	switch t.Kind {
	case tEOF:
		return "end of file"
	case tString, tChar:
		return t.Text
	}
	return "'" + t.Text + "'"
}

// puncts lists the punctuators, longest first within each leading character so the
// lexer can take the first match. `[[` is deliberately absent: the parser pairs two
// '[' tokens only where an attribute may start, so `a[b[0]]` stays indexing.
var puncts = []string{
	"<<=", ">>=", "...",
	"::", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
	"+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "##",
	"+", "-", "*", "/", "%", "<", ">", "=", "!", "&", "|", "^", "~", "?", ":",
	";", ",", ".", "(", ")", "[", "]", "{", "}", "#",
}

// punctsByFirst groups puncts by their first byte, longest first. It is an
// array literal rather than a map built from puncts at start-up: the linker lays
// it out statically (no package initialisation work) and the lexer's lookup per
// punctuator is an index instead of a map access. TestPunctsByFirst checks that
// it matches puncts.
var punctsByFirst = [256][]string{
	'<': {"<<=", "<<", "<=", "<"},
	'>': {">>=", ">>", ">=", ">"},
	'.': {"...", "."},
	':': {"::", ":"},
	'-': {"->", "--", "-=", "-"},
	'+': {"++", "+=", "+"},
	'=': {"==", "="},
	'!': {"!=", "!"},
	'&': {"&&", "&=", "&"},
	'|': {"||", "|=", "|"},
	'*': {"*=", "*"},
	'/': {"/=", "/"},
	'%': {"%=", "%"},
	'^': {"^=", "^"},
	'#': {"##", "#"},
	'~': {"~"},
	'?': {"?"},
	';': {";"},
	',': {","},
	'(': {"("},
	')': {")"},
	'[': {"["},
	']': {"]"},
	'{': {"{"},
	'}': {"}"},
}

// lexer splits one source into preprocessing tokens. Line continuations (`\`
// followed by a newline) are treated as whitespace between tokens and inside
// comments; that covers multi-line #define bodies, which is where HLSL uses them.
type lexer struct {
	src  *diag.Source
	text string
	i    int
	log  *diag.Log
}

// lexAll returns every token of src. The only error reported here is an
// unterminated block comment (it swallows the rest of the file, so it cannot be
// deferred); other lexical errors become tBadChar/tBadString tokens.
func lexAll(src *diag.Source, log *diag.Log) []token {
	lx := &lexer{src: src, text: src.Text, log: log}
	out := make([]token, 0, len(src.Text)/6) // typical HLSL has a token every 5-8 bytes
	bol, space := true, false
	for {
		// Skip whitespace, comments and continuations, remembering line starts.
		for lx.i < len(lx.text) {
			c := lx.text[lx.i]
			switch {
			case c == '\n':
				bol, space = true, false
				lx.i++
			case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
				space = true
				lx.i++
			case c == '\\' && lx.continuation(lx.i) > 0:
				space = true
				lx.i += lx.continuation(lx.i)
			case c == '/' && lx.peek(1) == '/':
				lx.lineComment()
				space = true
			case c == '/' && lx.peek(1) == '*':
				start := lx.i
				end := strings.Index(lx.text[lx.i+2:], "*/")
				if end < 0 {
					log.Errorf(diag.Pos{Src: src, Off: start}, diag.ErrPPUnterminatedComment, "unterminated /* comment")
					lx.i = len(lx.text)
				} else {
					// A comment is one space even when it spans lines (C phase 3), so
					// a directive line continues past a multi-line comment and
					// bol stays as it was.
					lx.i += 2 + end + 2
				}
				space = true
			default:
				goto token
			}
		}
		return out
	token:
		t := lx.next()
		t.BOL, t.Space = bol, space
		out = append(out, t)
		bol, space = false, false
	}
}

// continuation returns the length of a `\` newline sequence at i, or 0.
func (lx *lexer) continuation(i int) int {
	if i+1 < len(lx.text) && lx.text[i+1] == '\n' {
		return 2
	}
	if i+2 < len(lx.text) && lx.text[i+1] == '\r' && lx.text[i+2] == '\n' {
		return 3
	}
	return 0
}

func (lx *lexer) peek(k int) byte {
	if lx.i+k < len(lx.text) {
		return lx.text[lx.i+k]
	}
	return 0
}

// lineComment skips a // comment; like C, a continuation at its end extends it.
// It jumps from newline to newline with IndexByte instead of testing every byte
// for a continuation: a newline belongs to a continuation exactly when a `\`
// (or `\` CR) directly precedes it, and the comment's leading "//" guarantees
// those bytes are inside the comment.
func (lx *lexer) lineComment() {
	for {
		j := strings.IndexByte(lx.text[lx.i:], '\n')
		if j < 0 {
			lx.i = len(lx.text)
			return
		}
		nl := lx.i + j
		if lx.text[nl-1] == '\\' || lx.text[nl-1] == '\r' && lx.text[nl-2] == '\\' {
			lx.i = nl + 1
			continue
		}
		lx.i = nl
		return
	}
}

func isIdentStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool      { return c >= '0' && c <= '9' }
func isIdentChar(c byte) bool  { return isIdentStart(c) || isDigit(c) }

// next lexes one token starting at lx.i (which is not whitespace).
func (lx *lexer) next() token {
	start := lx.i
	pos := diag.Pos{Src: lx.src, Off: start}
	c := lx.text[start]
	switch {
	case isIdentStart(c):
		for lx.i < len(lx.text) && isIdentChar(lx.text[lx.i]) {
			lx.i++
		}
		return token{Kind: tIdent, Text: lx.text[start:lx.i], Pos: pos}
	case isDigit(c) || c == '.' && isDigit(lx.peek(1)):
		lx.i++
		for lx.i < len(lx.text) {
			d := lx.text[lx.i]
			if (d == '+' || d == '-') && (lx.text[lx.i-1] == 'e' || lx.text[lx.i-1] == 'E') && !isHexNumber(lx.text[start:lx.i]) {
				lx.i++
				continue
			}
			if !isIdentChar(d) && d != '.' {
				break
			}
			lx.i++
		}
		return token{Kind: tNumber, Text: lx.text[start:lx.i], Pos: pos}
	case c == '"' || c == '\'':
		lx.i++
		for lx.i < len(lx.text) {
			d := lx.text[lx.i]
			if d == '\\' && lx.i+1 < len(lx.text) && lx.text[lx.i+1] != '\n' {
				lx.i += 2
				continue
			}
			if d == '\n' {
				break
			}
			lx.i++
			if d == c {
				kind := tString
				if c == '\'' {
					kind = tChar
				}
				return token{Kind: kind, Text: lx.text[start:lx.i], Pos: pos}
			}
		}
		return token{Kind: tBadString, Text: lx.text[start:lx.i], Pos: pos}
	}
	for _, p := range punctsByFirst[c] {
		if strings.HasPrefix(lx.text[lx.i:], p) {
			lx.i += len(p)
			return token{Kind: tPunct, Text: p, Pos: pos}
		}
	}
	// One byte, or one whole UTF-8 sequence so the message shows the character.
	lx.i++
	for lx.i < len(lx.text) && lx.text[lx.i]&0xC0 == 0x80 && lx.i-start < 4 {
		lx.i++
	}
	return token{Kind: tBadChar, Text: lx.text[start:lx.i], Pos: pos}
}

func isHexNumber(s string) bool { return len(s) > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') }

// lexOne re-lexes text produced by ## pasting; ok is false unless it is exactly one token.
func lexOne(text string, pos diag.Pos) (token, bool) {
	src := diag.NewSource("<paste>", text)
	var log diag.Log
	toks := lexAll(src, &log)
	if len(toks) != 1 || log.HasErrors() || toks[0].Kind == tBadChar || toks[0].Kind == tBadString || toks[0].Space {
		return token{}, false
	}
	t := toks[0]
	t.Pos = pos
	return t, true
}
