package syntax

import (
	"fmt"
	"strconv"
	"strings"

	"waverig/compiler/diag"
)

// ParseFile reads path, preprocesses and parses it. Errors/warnings go to log.
// Returns a (possibly partial) *File, never nil, and never panics on any input.
// Sources lists every file read (main first) so callers can render carets.
func ParseFile(path string, opts Options, log *diag.Log) (*File, []*diag.Source) {
	read := opts.ReadFile
	if read == nil {
		read = ReadSource
	}
	text, err := read(path)
	if err != nil {
		log.Add(ReadError(path, err))
		return &File{}, nil
	}
	return Parse(path, text, opts, log)
}

// Parse is ParseFile for in-memory text (name is used in positions and for relative #include).
func Parse(name string, text []byte, opts Options, log *diag.Log) (f *File, srcs []*diag.Source) {
	f = &File{}
	defer func() {
		// The parser recovers from its own bail-outs; anything else is a bug, which
		// must still not take the caller down.
		if r := recover(); r != nil {
			log.Errorf(diag.Pos{}, diag.ErrInternal, "internal error in the HLSL front end: %v", r)
		}
	}()
	var toks []token
	toks, srcs = preprocess(name, text, opts, log)
	if len(srcs) > 0 {
		f.Src = srcs[0]
	}
	p := &parser{toks: toks, log: log, types: map[string]bool{}}
	if log.HasErrors() {
		// An unterminated comment or a failed #include usually leaves the text
		// cut short; complaints about the end of the file would repeat it.
		p.errs = 1
	}
	p.parseFile(f)
	return f, srcs
}

// maxDepth bounds the nesting of expressions, statements, initialisers and types.
const maxDepth = 1000

// bailout is panicked by the parser after reporting an error; the innermost
// statement or declaration loop recovers and resynchronises, so one mistake
// gives one message.
type bailout struct{}

type parser struct {
	toks   []token // ends with tEOF
	i      int
	log    *diag.Log
	types  map[string]bool // struct and typedef names seen so far
	depth  int
	anon   int
	lastEr diag.Pos
	errs   int
}

func (p *parser) tok() token { return p.toks[p.i] }

func (p *parser) peekN(k int) token {
	if p.i+k < len(p.toks) {
		return p.toks[p.i+k]
	}
	return p.toks[len(p.toks)-1]
}

func (p *parser) advance() token {
	t := p.toks[p.i]
	if p.i < len(p.toks)-1 {
		p.i++
	}
	return t
}

// isP and isKw look at the current token in place rather than through tok(),
// which copies the whole token: they run several times per token.
func (p *parser) isP(text string) bool {
	t := &p.toks[p.i]
	return t.Kind == tPunct && t.Text == text
}

func (p *parser) isKw(word string) bool {
	t := &p.toks[p.i]
	return t.Kind == tIdent && t.Text == word
}
func (p *parser) accept(text string) bool {
	if p.isP(text) {
		p.advance()
		return true
	}
	return false
}

// errorf reports an error without unwinding; a second error at the same
// position is dropped (it is the same mistake seen twice).
func (p *parser) errorf(pos diag.Pos, code diag.Code, format string, args ...any) {
	if pos == p.lastEr && pos.IsValid() {
		return
	}
	// After an error, complaints about the end of the file are nearly always the
	// same mistake (an unclosed block swallowed by recovery).
	if p.errs > 0 && p.tok().Kind == tEOF && pos == p.tok().Pos {
		return
	}
	p.lastEr = pos
	p.errs++
	p.log.Errorf(pos, code, format, args...)
}

// failAt reports a problem at token t and unwinds to the nearest recovery point.
// A bad token is reported as what it is rather than as "expected X".
func (p *parser) failAt(t token, code diag.Code, format string, args ...any) {
	switch t.Kind {
	case tError:
		p.errs++ // reported by the preprocessor
	case tBadChar:
		p.errorf(t.Pos, diag.ErrSynBadChar, "invalid character %q", t.Text)
	case tBadString:
		p.errorf(t.Pos, diag.ErrSynUnterminatedStr, "unterminated string or character literal")
	default:
		p.errorf(t.Pos, code, format, args...)
	}
	panic(bailout{})
}

func (p *parser) expect(text, context string) token {
	if !p.isP(text) {
		p.failAt(p.tok(), diag.ErrSynExpected, "expected '%s' %s, found %s", text, context, p.tok().describe())
	}
	return p.advance()
}

// expect3 is expect(text, pre+what+post) but builds the context only when the
// token is missing: the concatenation allocated on every statement and
// declaration that parsed fine.
func (p *parser) expect3(text, pre, what, post string) token {
	if !p.isP(text) {
		return p.expect(text, pre+what+post)
	}
	return p.advance()
}

// expectIdentIn is expectIdent("in "+what), concatenating only on failure.
func (p *parser) expectIdentIn(what string) token {
	if t := p.tok(); t.Kind != tIdent || keywords(t.Text) {
		return p.expectIdent("in " + what)
	}
	return p.advance()
}

func (p *parser) expectIdent(context string) token {
	t := p.tok()
	if t.Kind != tIdent || keywords(t.Text) {
		p.failAt(t, diag.ErrSynExpected, "expected a name %s, found %s", context, t.describe())
	}
	return p.advance()
}

// enter guards recursion depth; every recursive production calls it.
func (p *parser) enter() {
	p.depth++
	if p.depth > maxDepth {
		p.failAt(p.tok(), diag.ErrSynNestingTooDeep, "nesting is deeper than %d levels", maxDepth)
	}
}

func (p *parser) leave() { p.depth-- }

// protect runs one statement or declaration; after a bail-out it skips to a
// synchronisation point and reports false. It always makes progress.
func (p *parser) protect(f func()) (ok bool) {
	start, depth := p.i, p.depth
	defer func() {
		if r := recover(); r != nil {
			if _, isBail := r.(bailout); !isBail {
				panic(r)
			}
			p.depth = depth
			p.sync()
			if p.i == start {
				p.advance()
			}
			ok = false
		}
	}()
	f()
	return true
}

// sync skips to just after the next ';' at this brace level, to just after a
// '}' that closes a block opened while skipping, or to a '}' that closes the
// enclosing block (left for the caller).
func (p *parser) sync() {
	depth := 0
	for {
		t := p.tok()
		switch {
		case t.Kind == tEOF:
			return
		case t.isPunct("{"):
			depth++
		case t.isPunct("}"):
			if depth == 0 {
				return
			}
			depth--
			if depth == 0 {
				p.advance()
				p.accept(";")
				return
			}
		case t.isPunct(";") && depth == 0:
			p.advance()
			return
		}
		p.advance()
	}
}

func (p *parser) isTypeName(name string) bool { return isBuiltinType(name) || p.types[name] }

// --- declarations ---

func (p *parser) parseFile(f *File) {
	for p.tok().Kind != tEOF {
		p.protect(func() {
			ds := p.topDecl()
			switch len(ds) {
			case 0:
			case 1:
				f.Decls = append(f.Decls, ds[0])
			default:
				f.Decls = append(f.Decls, &DeclGroup{Pos: ds[0].P(), Decls: ds})
			}
		})
	}
}

// topDecl parses one file-scope declaration (several for `struct S {…} s;` or `int a, b;`).
func (p *parser) topDecl() []Decl {
	t := p.tok()
	if t.isPunct(";") {
		p.advance()
		return nil
	}
	if t.Kind != tIdent && !t.isPunct("[") {
		p.failAt(t, diag.ErrSynExpectedDecl, "expected a declaration, found %s", t.describe())
	}
	if t.Kind == tIdent && stmtWords(t.Text) {
		p.failAt(t, diag.ErrSynExpectedDecl, "expected a declaration, found '%s' (statements belong inside a function)", t.Text)
	}
	attrs := p.attributes()
	t = p.tok()
	switch {
	case t.is(tIdent, "cbuffer") || t.is(tIdent, "tbuffer"):
		return []Decl{p.cbuffer(attrs)}
	case t.is(tIdent, "typedef"):
		return p.typedef()
	}
	return p.declaration(attrs, true)
}

// specs are the words in front of a declared type.
type specs struct {
	storage []string
	mods    []string
	dir     string
	dirTok  token
}

func (p *parser) specifiers() specs {
	var s specs
	for {
		t := p.tok()
		if t.Kind != tIdent {
			return s
		}
		switch {
		case storageWords(t.Text):
			s.storage = append(s.storage, t.Text)
		case typeModWords(t.Text):
			s.mods = append(s.mods, t.Text)
		case paramDirWords(t.Text):
			if s.dir != "" && !(s.dir == "in" && t.Text == "out" || s.dir == "out" && t.Text == "in") {
				p.errorf(t.Pos, diag.ErrSynBadParamDir, "'%s' after '%s'", t.Text, s.dir)
			}
			if s.dir != "" && s.dir != t.Text { // `in out` is inout
				s.dir = "inout"
			} else {
				s.dir = t.Text
			}
			s.dirTok = t
		default:
			if w, bad := unsupportedWords(t.Text); bad {
				p.failAt(t, diag.ErrSynUnsupportedSyntax, "%s are not supported", w)
			}
			return s
		}
		p.advance()
	}
}

// declaration parses `specs type name …` as a function or as variables.
// At file scope (top) functions are allowed.
func (p *parser) declaration(attrs []Attribute, top bool) []Decl {
	pos := p.tok().Pos
	if len(attrs) > 0 {
		pos = attrs[0].Pos
	}
	s := p.specifiers()
	if s.dir != "" {
		p.errorf(s.dirTok.Pos, diag.ErrSynBadParamDir, "'%s' is allowed only on function parameters", s.dir)
	}
	var out []Decl
	var typ *TypeExpr
	if p.isKw("struct") {
		sd, body := p.structDecl()
		typ = &TypeExpr{Pos: sd.Pos, Name: sd.Name}
		if body {
			out = append(out, sd)
			if p.accept(";") {
				return out
			}
			// `struct S {…}` then a new declaration: the ';' was forgotten.
			if n := p.tok(); n.Kind != tIdent || p.isTypeName(n.Text) || storageWords(n.Text) || typeModWords(n.Text) || n.Text == "struct" {
				p.failAt(n, diag.ErrSynExpected, "expected ';' after the struct definition, found %s", n.describe())
			}
		}
	} else {
		first := p.tok()
		typ = p.parseType()
		// `x = 1;` or `f();` at file scope: an expression, not a declaration.
		if n := p.tok(); top && len(s.storage)+len(s.mods) == 0 && len(typ.Args) == 0 && !p.isTypeName(typ.Name) && n.Kind == tPunct {
			p.failAt(first, diag.ErrSynExpectedDecl, "expected a declaration, found an expression starting with '%s' (statements belong inside a function)", first.Text)
		}
	}
	typ.Modifiers = append(s.mods, typ.Modifiers...)
	name := p.expectIdent("in declaration")
	if p.isP("(") {
		if !top {
			p.failAt(p.tok(), diag.ErrSynUnsupportedSyntax, "functions cannot be declared inside a function")
		}
		return append(out, p.function(pos, attrs, s.storage, typ, name))
	}
	for _, v := range p.declarators(pos, attrs, s.storage, typ, name, "declaration") {
		out = append(out, v)
	}
	return out
}

// declarators parses `name[dims] : semantics = init, name2 … ;` after the first
// name and returns one VarDecl per name.
func (p *parser) declarators(pos diag.Pos, attrs []Attribute, storage []string, typ *TypeExpr, name token, what string) []*VarDecl {
	var out []*VarDecl
	for {
		v := &VarDecl{Pos: pos, Attrs: attrs, Storage: storage, Type: typ, Name: name.Text, NamePos: name.Pos}
		v.ArrayDims = p.arrayDims()
		p.semantics(v)
		if p.accept("=") {
			v.Init = p.initializer()
		}
		out = append(out, v)
		if !p.accept(",") {
			break
		}
		name = p.expectIdentIn(what)
	}
	p.expect3(";", "after ", what, "")
	return out
}

func (p *parser) arrayDims() []Expr {
	var dims []Expr
	for p.isP("[") {
		p.advance()
		if p.accept("]") {
			dims = append(dims, nil)
			continue
		}
		dims = append(dims, p.expr())
		p.expect("]", "after array size")
	}
	return dims
}

// semantics parses any number of `: SEMANTIC`, `: register(…)` and `: packoffset(…)`.
func (p *parser) semantics(v *VarDecl) {
	for p.accept(":") {
		t := p.expectIdent("after ':' (a semantic, register or packoffset)")
		switch t.Text {
		case "register":
			v.Register = p.register(t)
		case "packoffset":
			v.PackOffset = p.packOffset(t)
		default:
			v.Semantic = t.Text
		}
	}
}

// register parses `(u1)` or `(u1, space2)` after `register`. A leading shader
// profile (`register(ps_5_0, t0)`) is accepted and ignored.
func (p *parser) register(kw token) *Register {
	p.expect("(", "after register")
	r := &Register{Pos: kw.Pos}
	t := p.expectIdent("in register(…)")
	if strings.Contains(t.Text, "_") && p.isP(",") { // a profile such as ps_5_0
		p.advance()
		t = p.expectIdent("in register(…)")
	}
	cls, idx, ok := splitRegister(t.Text)
	if !ok || !strings.ContainsRune("btusc", rune(cls)) {
		p.errorf(t.Pos, diag.ErrSynBadRegister, "invalid register %q: expected b, t, u or s followed by a number", t.Text)
	}
	r.Class, r.Index = cls, idx
	if p.accept(",") {
		s := p.expectIdent("in register(…)")
		if !strings.HasPrefix(s.Text, "space") {
			p.errorf(s.Pos, diag.ErrSynBadRegister, "invalid register space %q: expected space<number>", s.Text)
		} else if n, err := strconv.Atoi(s.Text[5:]); err != nil || n < 0 {
			p.errorf(s.Pos, diag.ErrSynBadRegister, "invalid register space %q: expected space<number>", s.Text)
		} else {
			r.Space = n
		}
	}
	p.expect(")", "after register")
	return r
}

func splitRegister(s string) (byte, int, bool) {
	if len(s) < 2 {
		return 0, 0, false
	}
	cls := s[0] | 0x20 // lower-case
	n, err := strconv.Atoi(s[1:])
	if err != nil || n < 0 || s[1] == '+' || s[1] == '-' {
		return cls, 0, false
	}
	return cls, n, true
}

// packOffset parses `(c0)` or `(c0.x)` after `packoffset` and returns "c0.x".
func (p *parser) packOffset(kw token) string {
	p.expect("(", "after packoffset")
	t := p.expectIdent("in packoffset(…)")
	text := t.Text
	if cls, _, ok := splitRegister(t.Text); !ok || cls != 'c' {
		p.errorf(t.Pos, diag.ErrSynBadPackOffset, "invalid packoffset %q: expected c<number>", t.Text)
	}
	if p.accept(".") {
		c := p.expectIdent("in packoffset(…)")
		if len(c.Text) != 1 || !strings.Contains("xyzw", c.Text) {
			p.errorf(c.Pos, diag.ErrSynBadPackOffset, "invalid packoffset component %q: expected x, y, z or w", c.Text)
		}
		text += "." + c.Text
	}
	p.expect(")", "after packoffset")
	return text
}

func (p *parser) initializer() Expr {
	if p.isP("{") {
		return p.initList()
	}
	return p.assign()
}

func (p *parser) initList() Expr {
	p.enter()
	defer p.leave()
	l := &InitList{Pos: p.advance().Pos}
	for !p.isP("}") {
		l.Elems = append(l.Elems, p.initializer())
		if !p.accept(",") {
			break
		}
	}
	p.expect("}", "at the end of the initializer list")
	return l
}

// function parses the rest of a function after its name.
func (p *parser) function(pos diag.Pos, attrs []Attribute, storage []string, result *TypeExpr, name token) *FuncDecl {
	fn := &FuncDecl{Pos: pos, Attrs: attrs, Storage: storage, Result: result, Name: name.Text, NamePos: name.Pos}
	p.expect("(", "after function name")
	if p.isKw("void") && p.peekN(1).isPunct(")") {
		p.advance()
	}
	for !p.isP(")") {
		fn.Params = append(fn.Params, p.param())
		if !p.accept(",") {
			break
		}
	}
	p.expect(")", "after the parameters")
	for p.accept(":") {
		fn.Semantic = p.expectIdent("after ':' (a return semantic)").Text
	}
	if p.accept(";") {
		return fn
	}
	if !p.isP("{") {
		p.failAt(p.tok(), diag.ErrSynExpected, "expected '{' or ';' after the function declaration, found %s", p.tok().describe())
	}
	fn.Body = p.block()
	return fn
}

func (p *parser) param() *VarDecl {
	attrs := p.attributes()
	pos := p.tok().Pos
	if len(attrs) > 0 {
		pos = attrs[0].Pos
	}
	s := p.specifiers()
	// The mesh-shader qualifiers are contextual: `out vertices V verts[64]` has one,
	// while a parameter typed or named `indices` has none (a name follows the type).
	var meshQual string
	if t := p.tok(); t.Kind == tIdent && meshQualWords(t.Text) && p.peekN(1).Kind == tIdent {
		meshQual = t.Text
		p.advance()
		if more := p.specifiers(); s.dir == "" {
			s.dir, s.dirTok = more.dir, more.dirTok
		}
	}
	typ := p.parseType()
	typ.Modifiers = append(s.mods, typ.Modifiers...)
	v := &VarDecl{Pos: pos, Attrs: attrs, Storage: s.storage, Type: typ, ParamDir: s.dir, MeshQual: meshQual}
	if t := p.tok(); t.Kind == tIdent && !keywords(t.Text) {
		v.Name, v.NamePos = t.Text, t.Pos
		p.advance()
	}
	v.ArrayDims = p.arrayDims()
	p.semantics(v)
	if p.accept("=") {
		v.Init = p.assign() // a default argument; sema substitutes it at calls that omit it
	}
	return v
}

// structDecl parses `struct [Name] [{ members }]`; body reports whether a
// member list was present.
func (p *parser) structDecl() (*StructDecl, bool) {
	kw := p.advance()
	sd := &StructDecl{Pos: kw.Pos}
	if t := p.tok(); t.Kind == tIdent && !keywords(t.Text) {
		sd.Name = t.Text
		p.types[t.Text] = true // visible inside its own body and from here on
		p.advance()
	}
	if !p.isP("{") {
		if sd.Name == "" {
			p.failAt(p.tok(), diag.ErrSynExpected, "expected a struct name or '{', found %s", p.tok().describe())
		}
		return sd, false
	}
	if sd.Name == "" {
		sd.Name = fmt.Sprintf("__anon_struct%d", p.anon)
		p.anon++
	}
	p.enter()
	defer p.leave()
	p.advance()
	sd.Members = p.memberList("struct member")
	p.expect("}", "at the end of the struct")
	return sd, true
}

// memberList parses struct or cbuffer members up to (not including) '}'.
func (p *parser) memberList(what string) []*VarDecl {
	var out []*VarDecl
	for !p.isP("}") && p.tok().Kind != tEOF {
		p.protect(func() {
			if p.accept(";") {
				return
			}
			attrs := p.attributes()
			pos := p.tok().Pos
			if len(attrs) > 0 {
				pos = attrs[0].Pos
			}
			s := p.specifiers()
			if s.dir != "" {
				p.errorf(s.dirTok.Pos, diag.ErrSynBadParamDir, "'%s' is allowed only on function parameters", s.dir)
			}
			if p.isKw("struct") {
				p.failAt(p.tok(), diag.ErrSynUnsupportedSyntax, "nested struct declarations are not supported; declare the struct at file scope")
			}
			typ := p.parseType()
			typ.Modifiers = append(s.mods, typ.Modifiers...)
			name := p.expectIdentIn(what)
			if p.isP("(") {
				p.failAt(p.tok(), diag.ErrSynUnsupportedSyntax, "member functions are not supported")
			}
			out = append(out, p.declarators(pos, attrs, s.storage, typ, name, what)...)
		})
	}
	return out
}

// cbuffer parses `cbuffer Name [: register(b0)] { members } [;]`.
func (p *parser) cbuffer(attrs []Attribute) Decl {
	kw := p.advance()
	cb := &CBufferDecl{Pos: kw.Pos, Attrs: attrs, TBuffer: kw.Text == "tbuffer"}
	if len(attrs) > 0 {
		cb.Pos = attrs[0].Pos
	}
	cb.Name = p.expectIdent("after " + kw.Text).Text
	for p.accept(":") {
		t := p.expectIdent("after ':'")
		if t.Text != "register" {
			p.failAt(t, diag.ErrSynExpected, "expected 'register' after ':' in %s, found %s", kw.Text, t.describe())
		}
		cb.Register = p.register(t)
	}
	p.expect3("{", "to open the ", kw.Text, "")
	cb.Members = p.memberList(kw.Text + " member")
	p.expect3("}", "at the end of the ", kw.Text, "")
	p.accept(";")
	return cb
}

// typedef parses `typedef T Name[dims];` (T may be a struct definition).
func (p *parser) typedef() []Decl {
	kw := p.advance()
	var out []Decl
	s := p.specifiers()
	var typ *TypeExpr
	if p.isKw("struct") {
		sd, body := p.structDecl()
		if body {
			out = append(out, sd)
		}
		typ = &TypeExpr{Pos: sd.Pos, Name: sd.Name}
	} else {
		typ = p.parseType()
	}
	typ.Modifiers = append(s.mods, typ.Modifiers...)
	for {
		name := p.expectIdent("in typedef")
		td := &TypedefDecl{Pos: kw.Pos, Type: typ, Name: name.Text, ArrayDims: p.arrayDims()}
		p.types[name.Text] = true
		out = append(out, td)
		if !p.accept(",") {
			break
		}
	}
	p.expect(";", "after typedef")
	return out
}

// parseType parses a type as written: modifiers, a name and template arguments.
func (p *parser) parseType() *TypeExpr {
	p.enter()
	defer p.leave()
	var mods []string
	for p.tok().Kind == tIdent && typeModWords(p.tok().Text) {
		mods = append(mods, p.advance().Text)
	}
	t := p.tok()
	if t.Kind != tIdent || keywords(t.Text) || storageWords(t.Text) {
		p.failAt(t, diag.ErrSynExpectedType, "expected a type, found %s", t.describe())
	}
	p.advance()
	te := &TypeExpr{Pos: t.Pos, Name: t.Text, Modifiers: mods}
	if !p.isP("<") {
		return te
	}
	p.advance()
	for !p.isP(">") && !p.isP(">>") {
		// The first argument is always a type (vector<float,3>, Buffer<S>);
		// later ones are types when they name one (Texture2DMS<float4, 8>).
		if a := p.tok(); len(te.Args) == 0 || a.Kind == tIdent && (p.isTypeName(a.Text) || typeModWords(a.Text)) {
			te.Args = append(te.Args, TemplateArg{Type: p.parseType()})
		} else {
			// Above the relational operators, so '>' closes the list.
			te.Args = append(te.Args, TemplateArg{Expr: p.binary(precShift)})
		}
		if !p.accept(",") {
			break
		}
	}
	p.closeAngle()
	return te
}

// closeAngle consumes a '>' closing template arguments, splitting '>>' as C++11 does.
func (p *parser) closeAngle() {
	t := p.tok()
	if t.isPunct(">>") {
		p.toks[p.i].Text = ">"
		p.toks[p.i].Pos.Off++
		return
	}
	p.expect(">", "to close the template arguments")
}

// attributes parses any run of `[name(args)]` and `[[ns::name(args)]]`.
func (p *parser) attributes() []Attribute {
	var out []Attribute
	for p.isP("[") {
		open := p.advance()
		double := p.accept("[")
		for {
			a := Attribute{Pos: open.Pos}
			name := p.expectIdent("in attribute")
			if double && p.accept("::") {
				a.Namespace = name.Text
				name = p.expectIdent("in attribute")
			}
			a.Name = name.Text
			if p.accept("(") {
				for !p.isP(")") {
					a.Args = append(a.Args, p.assign())
					if !p.accept(",") {
						break
					}
				}
				p.expect(")", "after the attribute arguments")
			}
			out = append(out, a)
			if !double || !p.accept(",") {
				break
			}
		}
		if !p.isP("]") || double && !p.peekN(1).isPunct("]") {
			want := "]"
			if double {
				want = "]]"
			}
			p.failAt(p.tok(), diag.ErrSynBadAttribute, "expected '%s' to close the attribute, found %s", want, p.tok().describe())
		}
		p.advance()
		if double {
			p.advance()
		}
	}
	return out
}
