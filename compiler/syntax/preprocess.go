package syntax

import (
	"errors"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"waverig/compiler/diag"
)

// Options configure preprocessing.
type Options struct {
	Defines     map[string]string                 // -D NAME[=VALUE]; VALUE "" means "1"
	IncludeDirs []string                          // -I dirs, searched after the including file's directory
	ReadFile    func(path string) ([]byte, error) // nil = ReadSource (tests/fuzz inject a map)
}

// Limits that keep hostile input (fuzzers, include loops, exponential macros)
// finite. They are far above anything a real shader needs.
const (
	maxIncludeDepth = 64
	maxWork         = 1_000_000 // tokens produced by expansion plus tokens read from included files
	includeCost     = 100       // work charged per #include, so empty self-including files still stop
	maxArgDepth     = 200       // nesting of macro arguments that are themselves expanded
	maxHideDepth    = 256       // macros a token was produced through (A expands to B expands to C …)
)

// condState is one open #if group.
type condState struct {
	pos     diag.Pos // the '#' of the #if, for "unterminated #if"
	taken   bool     // a branch of this group has been selected already
	sawElse bool
}

// fileFrame is one file on the include stack.
type fileFrame struct {
	src   *diag.Source
	toks  []token
	i     int
	conds []condState
}

type lexedFile struct {
	src  *diag.Source
	toks []token
}

// preprocessor turns the token stream of the main file into the fully expanded
// stream the parser reads. Directives are recognised only in file tokens (a '#'
// first on its line), never in macro output.
type preprocessor struct {
	opts     Options
	log      *diag.Log
	macros   map[string]*macro
	files    []*fileFrame
	sources  []*diag.Source
	cache    map[string]*lexedFile
	once     map[string]bool
	work     int
	stopped  bool // a limit was hit: stop producing tokens
	argDepth int
	main     *stream // the stream over the include stack
	out      []token
}

func newPreprocessor(opts Options, log *diag.Log) *preprocessor {
	if opts.ReadFile == nil {
		opts.ReadFile = ReadSource
	}
	pp := &preprocessor{opts: opts, log: log, macros: map[string]*macro{},
		cache: map[string]*lexedFile{}, once: map[string]bool{}}
	pp.main = &stream{pp: pp, file: true}
	return pp
}

// preprocess runs the whole preprocessor over the main file and returns the
// token stream (ending in tEOF) and every source read, main first.
// When a limit stopped preprocessing, the stream is just the tEOF token: the
// truncated text would only produce follow-on syntax errors.
func preprocess(name string, text []byte, opts Options, log *diag.Log) ([]token, []*diag.Source) {
	pp := newPreprocessor(opts, log)
	main := diag.NewSource(name, string(text))
	lf := &lexedFile{src: main, toks: lexAll(main, log)}
	pp.cache[filepath.Clean(name)] = lf
	pp.sources = append(pp.sources, main)
	pp.predefine()
	pp.work += len(lf.toks)
	pp.files = append(pp.files, &fileFrame{src: main, toks: lf.toks})
	// Most shaders expand to about as many tokens as the main file has; sizing
	// the output for that (plus tEOF) saves the repeated growth of a slice of
	// large tokens, which was the preprocessor's main cost.
	pp.out = make([]token, 0, len(lf.toks)+1)
	pp.run()
	if pp.stopped {
		pp.out = pp.out[:0]
	}
	pp.out = append(pp.out, token{Kind: tEOF, Pos: diag.Pos{Src: main, Off: len(main.Text)}, BOL: true})
	return pp.out, pp.sources
}

// predefine installs the built-in macros and the -D options. Command-line
// definitions are lexed from a synthetic source so their tokens have positions
// that render.
func (pp *preprocessor) predefine() {
	var b strings.Builder
	b.WriteString("__HLSL_VERSION 2021\n__waverig__ 1\n")
	names := make([]string, 0, len(pp.opts.Defines))
	for n := range pp.opts.Defines {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		v := pp.opts.Defines[n]
		if v == "" {
			v = "1"
		}
		// A newline inside a value would start a new definition; flatten it.
		b.WriteString(n + " " + strings.ReplaceAll(v, "\n", " ") + "\n")
	}
	src := diag.NewSource("<command line>", b.String())
	toks := lexAll(src, pp.log)
	for i := 0; i < len(toks); {
		j := i + 1
		for j < len(toks) && !toks[j].BOL {
			j++
		}
		pp.define(toks[i:j], toks[i])
		i = j
	}
}

func (pp *preprocessor) top() *fileFrame { return pp.files[len(pp.files)-1] }

// charge adds expansion work and stops everything once the limit is passed.
func (pp *preprocessor) charge(n int, pos diag.Pos) {
	pp.work += n
	if pp.work > maxWork && !pp.stopped {
		pp.stopped = true
		pp.log.Errorf(pos, diag.ErrPPExpansionLimit, "preprocessing stopped: macro expansion and #include produced more than %d tokens", maxWork)
	}
}

func (pp *preprocessor) run() {
	for !pp.stopped {
		// Fast path for the common token: nothing is pushed back and the next
		// file token is neither a directive's '#' nor a macro name, so it goes
		// straight to the output without the copies through stream.next and
		// expandToken (which would return it unchanged).
		if f := pp.top(); len(pp.main.pending) == 0 && f.i < len(f.toks) {
			t := &f.toks[f.i]
			if t.Kind == tIdent && pp.macros[t.Text] == nil && !isBuiltinMacro(t.Text) ||
				t.Kind != tIdent && !(t.BOL && t.isPunct("#")) {
				pp.out = append(pp.out, *t)
				f.i++
				continue
			}
		}
		t, ok := pp.main.next()
		if !ok {
			f := pp.top()
			if f.i < len(f.toks) {
				pp.directive()
				continue
			}
			pp.popFile()
			if len(pp.files) == 0 {
				return
			}
			continue
		}
		if t, emit := pp.expandToken(pp.main, t); emit {
			pp.out = append(pp.out, t)
		}
	}
}

// atDirective reports whether the current file continues with a directive.
func (pp *preprocessor) atDirective() bool {
	f := pp.top()
	return f.i < len(f.toks) && f.toks[f.i].BOL && f.toks[f.i].isPunct("#")
}

func (pp *preprocessor) popFile() {
	f := pp.top()
	for i := len(f.conds) - 1; i >= 0; i-- {
		pp.log.Errorf(f.conds[i].pos, diag.ErrPPUnterminatedIf, "unterminated conditional: this #if has no matching #endif")
	}
	pp.files = pp.files[:len(pp.files)-1]
}

// lineRest returns the tokens after f.i up to the end of the directive line and advances past them.
func lineRest(f *fileFrame) []token {
	start := f.i
	for f.i < len(f.toks) && !f.toks[f.i].BOL {
		f.i++
	}
	return f.toks[start:f.i]
}

// directive handles the directive whose '#' is at top().i.
func (pp *preprocessor) directive() {
	f := pp.top()
	hash := f.toks[f.i]
	f.i++
	line := lineRest(f)
	if len(line) == 0 {
		return // the null directive
	}
	name, args := line[0], line[1:]
	if name.Kind != tIdent {
		pp.log.Errorf(name.Pos, diag.ErrPPUnknownDirective, "invalid preprocessor directive %s", name.describe())
		return
	}
	switch name.Text {
	case "define":
		pp.define(args, name)
	case "undef":
		if len(args) == 0 || args[0].Kind != tIdent {
			pp.log.Errorf(name.Pos, diag.ErrPPMissingMacroName, "#undef needs a macro name")
			return
		}
		if isBuiltinMacro(args[0].Text) {
			pp.log.Warnf(args[0].Pos, diag.WarnPPUndefBuiltin, "%s is built in and cannot be undefined", args[0].Text)
			return
		}
		delete(pp.macros, args[0].Text)
		pp.extra(args[1:], "#undef")
	case "if":
		pp.openCond(hash.Pos, pp.evalIf(args, name))
	case "ifdef", "ifndef":
		if len(args) == 0 || args[0].Kind != tIdent {
			pp.log.Errorf(name.Pos, diag.ErrPPMissingMacroName, "#%s needs a macro name", name.Text)
			pp.openCond(hash.Pos, false)
			return
		}
		pp.extra(args[1:], "#"+name.Text)
		pp.openCond(hash.Pos, pp.isDefined(args[0].Text) == (name.Text == "ifdef"))
	case "elif", "else", "endif":
		if len(f.conds) == 0 {
			pp.log.Errorf(name.Pos, diag.ErrPPStrayConditional, "#%s without #if", name.Text)
			return
		}
		c := &f.conds[len(f.conds)-1]
		switch name.Text {
		case "endif":
			pp.extra(args, "#endif")
			f.conds = f.conds[:len(f.conds)-1]
		case "else":
			pp.extra(args, "#else")
			if c.sawElse {
				pp.log.Errorf(name.Pos, diag.ErrPPElseAfterElse, "#else after #else")
			}
			c.sawElse = true
			pp.skip() // the group being left was taken, so every later branch is skipped
		case "elif":
			if c.sawElse {
				pp.log.Errorf(name.Pos, diag.ErrPPElseAfterElse, "#elif after #else")
			}
			pp.skip()
		}
	case "include":
		pp.include(args, name)
	case "error":
		pp.log.Errorf(name.Pos, diag.ErrPPUserError, "#error %s", spell(args))
	case "pragma":
		if len(args) == 1 && args[0].Text == "once" {
			pp.once[filepath.Clean(f.src.Path)] = true
			return
		}
		pp.log.Warnf(name.Pos, diag.WarnPPPragmaIgnored, "#pragma %s is ignored", spell(args))
	case "line":
		pp.log.Warnf(name.Pos, diag.WarnPPLineIgnored, "#line is ignored")
	default:
		pp.log.Errorf(name.Pos, diag.ErrPPUnknownDirective, "unknown preprocessor directive #%s", name.Text)
	}
}

// extra warns about tokens after a directive that takes none (more).
func (pp *preprocessor) extra(args []token, dir string) {
	if len(args) > 0 {
		pp.log.Warnf(args[0].Pos, diag.WarnPPExtraTokens, "extra tokens at end of %s directive", dir)
	}
}

func (pp *preprocessor) isDefined(name string) bool {
	return pp.macros[name] != nil || isBuiltinMacro(name)
}

func isBuiltinMacro(name string) bool { return name == "__LINE__" || name == "__FILE__" }

// openCond pushes a new #if group; when its first branch is false the following
// lines are skipped up to the branch that is taken.
func (pp *preprocessor) openCond(pos diag.Pos, cond bool) {
	f := pp.top()
	f.conds = append(f.conds, condState{pos: pos, taken: cond})
	if !cond {
		pp.skip()
	}
}

// skip discards lines of the current group until a branch of the innermost #if
// is taken or its #endif is reached. Nested groups inside skipped text are
// matched but their conditions are never evaluated.
func (pp *preprocessor) skip() {
	f := pp.top()
	depth := 0
	for f.i < len(f.toks) {
		t := f.toks[f.i]
		f.i++
		if !t.BOL || !t.isPunct("#") || f.i >= len(f.toks) || f.toks[f.i].BOL {
			continue
		}
		name := f.toks[f.i]
		switch name.Text {
		case "if", "ifdef", "ifndef":
			depth++
		case "endif":
			if depth > 0 {
				depth--
				continue
			}
			f.i++
			pp.extra(lineRest(f), "#endif")
			f.conds = f.conds[:len(f.conds)-1]
			return
		case "else", "elif":
			if depth > 0 {
				continue
			}
			c := &f.conds[len(f.conds)-1]
			if c.sawElse {
				pp.log.Errorf(name.Pos, diag.ErrPPElseAfterElse, "#%s after #else", name.Text)
			}
			f.i++
			args := lineRest(f)
			if name.Text == "else" {
				pp.extra(args, "#else")
				c.sawElse = true
				if !c.taken {
					c.taken = true
					return
				}
				continue
			}
			if !c.taken && !c.sawElse && pp.evalIf(args, name) {
				c.taken = true
				return
			}
		}
	}
}

// spell renders tokens as source text (for #error and #pragma messages).
func spell(toks []token) string {
	var b strings.Builder
	for i, t := range toks {
		if i > 0 && t.Space {
			b.WriteByte(' ')
		}
		b.WriteString(t.Text)
	}
	return b.String()
}

// include handles #include "file" and #include <file>.
func (pp *preprocessor) include(args []token, dir token) {
	if len(args) > 0 && args[0].Kind != tString && !args[0].isPunct("<") {
		args = pp.expandList(args) // #include MACRO
	}
	if len(args) == 0 {
		pp.log.Errorf(dir.Pos, diag.ErrPPBadInclude, "#include expects \"FILENAME\" or <FILENAME>")
		return
	}
	var name string
	angled := false
	switch {
	case args[0].Kind == tString:
		name = args[0].Text[1 : len(args[0].Text)-1]
		pp.extra(args[1:], "#include")
	case args[0].isPunct("<"):
		angled = true
		var b strings.Builder
		closed := false
		for i, t := range args[1:] {
			if t.isPunct(">") {
				closed = true
				pp.extra(args[i+2:], "#include")
				break
			}
			if i > 0 && t.Space {
				b.WriteByte(' ')
			}
			b.WriteString(t.Text)
		}
		if !closed {
			pp.log.Errorf(args[0].Pos, diag.ErrPPBadInclude, "missing '>' in #include <FILENAME>")
			return
		}
		name = b.String()
	default:
		pp.log.Errorf(args[0].Pos, diag.ErrPPBadInclude, "#include expects \"FILENAME\" or <FILENAME>, found %s", args[0].describe())
		return
	}
	if name == "" {
		pp.log.Errorf(args[0].Pos, diag.ErrPPBadInclude, "empty file name in #include")
		return
	}
	if len(pp.files) > maxIncludeDepth {
		pp.log.Errorf(args[0].Pos, diag.ErrPPIncludeDepth, "#include nested more than %d levels deep (does %q include itself?)", maxIncludeDepth, name)
		return
	}
	lf, err := pp.findInclude(name, angled)
	if err != nil {
		// The file is there but is not a source: a device, a FIFO, too large.
		pp.log.Errorf(args[0].Pos, diag.ErrReadFile, "cannot read include file %q: %s", name, ReadErrorText(err))
		return
	}
	if lf == nil {
		pp.log.Errorf(args[0].Pos, diag.ErrPPIncludeNotFound, "cannot open include file %q", name)
		return
	}
	if pp.once[filepath.Clean(lf.src.Path)] {
		return
	}
	pp.charge(includeCost+len(lf.toks), args[0].Pos)
	if pp.stopped {
		return
	}
	pp.files = append(pp.files, &fileFrame{src: lf.src, toks: lf.toks})
}

// findInclude resolves and reads an include: "file" looks next to the including
// file first, then in the -I directories; <file> looks in the -I directories first.
// When no candidate can be read it returns nil and the error of the first
// candidate that exists but is not a source (ReadSource refuses devices, FIFOs
// and files over MaxSourceBytes), or nil when none exists.
func (pp *preprocessor) findInclude(name string, angled bool) (*lexedFile, error) {
	var first error
	var cands []string
	if filepath.IsAbs(name) {
		cands = []string{name}
	} else {
		local := filepath.Join(filepath.Dir(pp.top().src.Path), name)
		if !angled {
			cands = append(cands, local)
		}
		for _, d := range pp.opts.IncludeDirs {
			cands = append(cands, filepath.Join(d, name))
		}
		if angled {
			cands = append(cands, local)
		}
	}
	for _, c := range cands {
		c = filepath.Clean(c)
		if lf := pp.cache[c]; lf != nil {
			return lf, nil
		}
		data, err := pp.opts.ReadFile(c)
		if err != nil {
			if first == nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
				first = err
			}
			continue
		}
		src := diag.NewSource(c, string(data))
		lf := &lexedFile{src: src, toks: lexAll(src, pp.log)}
		pp.cache[c] = lf
		pp.sources = append(pp.sources, src)
		return lf, nil
	}
	return nil, first
}
