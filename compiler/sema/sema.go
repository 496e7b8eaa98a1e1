// Package sema gives an HLSL syntax tree its meaning: it resolves names and
// types, checks every expression, statement, call and intrinsic against HLSL's
// rules, lays out buffers, assigns resource bindings, builds entry-point
// wrappers and lowers the result to the typed IR of package ir, guaranteeing the
// invariants stated there.
//
// Conventions the back ends may rely on besides ir's invariants:
//   - In parameters are never stored to: a function that writes a parameter gets
//     a local copy of it.
//   - bool never lives in host-shareable memory nor in struct fields: struct
//     fields and buffer elements declared bool are u32 in the IR, converted on
//     every load and store.
//   - Function names are unique in the module (overloads get a suffix) and an
//     entry point's wrapper function carries the entry point's HLSL name.
package sema

import (
	"fmt"
	"strings"

	"waverig/compiler/diag"
	"waverig/compiler/ir"
	"waverig/compiler/syntax"
)

// Options are the front-end options that change semantic analysis.
type Options struct {
	Entry string // -entry: only this function is an entry point ("" = every [shader("…")] function)
	Stage string // -stage compute|pixel|vertex, used with Entry for functions without [shader]
	// Register shifts: -fvk-{b,t,u,s}-shift N M  => Shifts[class][space M] += N (class 'b','t','u','s')
	Shifts        map[byte]map[int]int
	AutoBindings  bool // -auto-bindings
	PartitionedNV bool // -fspv-extension=SPV_NV_shader_subgroup_partitioned: allow WaveMatch/WaveMultiPrefix*
}

// Check analyses a parsed file and returns its IR module. Every problem found is
// reported to log (checking continues past errors so one run reports them all);
// the module is returned only when no error was reported, so back ends never see
// IR built around a mistake.
func Check(f *syntax.File, opts Options, log *diag.Log) *ir.Module {
	if f == nil {
		return nil
	}
	c := newChecker(opts, log)
	c.file(f)
	if log.HasErrors() {
		return nil
	}
	return c.mod
}

type symKind uint8

const (
	symLocal symKind = iota + 1
	symGlobal
	symType
	symFunc
	symCBufMember // bare name of a cbuffer member
)

// symbol is what a name in scope denotes.
type symbol struct {
	kind   symKind
	pos    diag.Pos
	local  *ir.Local
	global *ir.Global
	typ    ir.Type // logical type (variables) or the named type (symType)
	field  int     // cbuffer member index
	// readOnly: const locals, static const globals, read-only resources, cbuffer members.
	readOnly bool
	// constVal is the folded value of a scalar constant (static const / const local), used
	// for array sizes, numthreads and case labels.
	constVal *ir.Const
	res      *resType // resources
	funcs    []*funcInfo
	name     string // as declared
}

type scope struct {
	parent *scope
	names  map[string]*symbol
}

func (s *scope) lookup(name string) *symbol {
	for ; s != nil; s = s.parent {
		if sym, ok := s.names[name]; ok {
			return sym
		}
	}
	return nil
}

// funcInfo is one user function (an overload).
type funcInfo struct {
	decl    *syntax.FuncDecl
	fn      *ir.Function
	params  []paramInfo
	result  ir.Type // logical result type
	attrs   []syntax.Attribute
	checked bool
	// meshEntry: the function is a mesh entry point, whose qualified parameters
	// (meshParams) are its outputs and payload.
	meshEntry bool
}

type paramInfo struct {
	name string
	typ  ir.Type // logical
	dir  ir.ParamDir
	def  syntax.Expr // default value
}

// fnState is the function whose body is being checked.
type fnState struct {
	fn     *ir.Function
	result ir.Type
	loops  int       // loop depth
	breaks int       // loop or switch depth (break targets)
	stmts  *ir.Block // where statements are being emitted
}

type checker struct {
	opts    Options
	log     *diag.Log
	mod     *ir.Module
	global  *scope
	scope   *scope
	fn      *fnState
	funcs   []*funcInfo    // in declaration order
	fnNames map[string]int // names taken by IR functions and globals
	// resources in declaration order, for binding assignment.
	resources []*resourceDecl
	// layoutOf records which layout rule a struct was laid out with.
	layoutOf map[*ir.Struct]layoutRule
	// structInfo keeps the logical (HLSL) field types of IR structs.
	structInfo map[*ir.Struct]*structInfo
	// localConst holds folded values of const locals (array sizes, case labels).
	localConst map[*ir.Local]*ir.Const
	// notConst records operator nodes fold found not constant: every binary
	// operator folds its new node, so without it a + 1 + 2 + … re-walked the
	// whole left spine at each operator (quadratic; issue 7). Nil until used.
	notConst map[ir.Expr]struct{}
	// mainSrc is the main source file, the position of whole-file messages.
	mainSrc *diag.Source
	// discards records discard statements for the pixel-stage check.
	discards []discardAt
	// meshParams holds each function's mesh-qualified parameters (vertices,
	// indices, primitives, payload) and the globals their names denote.
	meshParams map[*funcInfo][]meshParam
}

type structInfo struct {
	fields []ir.Type // logical types (bool where the IR field is u32)
	pos    diag.Pos
}

func newChecker(opts Options, log *diag.Log) *checker {
	// fnNames gets every function, entry wrapper and (synthesized) global: a
	// small shader already has more than the 8 a map holds before it first grows.
	c := &checker{opts: opts, log: log, mod: &ir.Module{}, fnNames: make(map[string]int, 16),
		layoutOf: map[*ir.Struct]layoutRule{}, structInfo: map[*ir.Struct]*structInfo{}, localConst: map[*ir.Local]*ir.Const{}}
	c.global = &scope{names: map[string]*symbol{}}
	c.scope = c.global
	return c
}

func (c *checker) errorf(pos diag.Pos, code diag.Code, format string, args ...any) {
	c.log.Errorf(pos, code, format, args...)
}

func (c *checker) warnf(pos diag.Pos, code diag.Code, format string, args ...any) {
	c.log.Warnf(pos, code, format, args...)
}

func (c *checker) push() { c.scope = &scope{parent: c.scope, names: map[string]*symbol{}} }
func (c *checker) pop()  { c.scope = c.scope.parent }

// declare adds a name to the innermost scope, reporting redeclarations.
func (c *checker) declare(name string, pos diag.Pos, sym *symbol) bool {
	if prev, ok := c.scope.names[name]; ok {
		if prev.kind == symFunc && sym.kind == symFunc {
			return true
		}
		c.log.Add(diag.Msg{Severity: diag.Error, Code: diag.ErrRedeclared, Pos: pos,
			Text:  fmt.Sprintf("%q is already declared in this scope", name),
			Notes: []diag.Note{{Pos: prev.pos, Text: "previous declaration here"}}})
		return false
	}
	sym.pos = pos
	sym.name = name
	c.scope.names[name] = sym
	return true
}

// uniqueFuncName gives every IR function a distinct name (overloads, entry wrappers).
func (c *checker) uniqueFuncName(name string) string {
	n := c.fnNames[name]
	c.fnNames[name] = n + 1
	if n == 0 {
		return name
	}
	return c.uniqueFuncName(fmt.Sprintf("%s_%d", name, n))
}

// uniqueGlobalName keeps global names distinct (stage IO globals are synthesized).
func (c *checker) uniqueGlobalName(name string) string {
	// Globals and functions share one namespace in WGSL and MSL, so synthesized
	// names avoid both.
	n := c.fnNames[name]
	c.fnNames[name] = n + 1
	if n == 0 {
		return name
	}
	return c.uniqueGlobalName(fmt.Sprintf("%s_%d", name, n))
}

// file runs the passes: declarations (types, globals, function signatures) in
// source order, then function bodies, then entry points, bindings and ordering.
func (c *checker) file(f *syntax.File) {
	c.mainSrc = f.Src
	for _, d := range f.Decls {
		c.topDecl(d)
	}
	for _, fi := range c.funcs {
		if fi.decl.Body != nil && !fi.checked {
			fi.checked = true
			c.funcBody(fi)
		}
	}
	c.entryPoints()
	c.assignBindings()
	c.orderFunctions()
}

func (c *checker) topDecl(d syntax.Decl) {
	switch d := d.(type) {
	case *syntax.DeclGroup:
		for _, x := range d.Decls {
			c.topDecl(x)
		}
	case *syntax.StructDecl:
		c.structDecl(d)
	case *syntax.TypedefDecl:
		c.typedefDecl(d)
	case *syntax.CBufferDecl:
		c.cbufferDecl(d)
	case *syntax.VarDecl:
		c.globalVar(d)
	case *syntax.FuncDecl:
		c.funcDecl(d)
	}
}

// orderFunctions reports recursion and puts callees before callers. Functions not
// reachable from any entry point are dropped (they were still checked).
func (c *checker) orderFunctions() {
	const (
		white = iota
		grey
		black
	)
	color := map[*ir.Function]int{}
	var order []*ir.Function
	var stack []*ir.Function
	reported := map[*ir.Function]bool{}
	var visit func(f *ir.Function)
	visit = func(f *ir.Function) {
		color[f] = grey
		stack = append(stack, f)
		var callees []*ir.Function
		ir.WalkBlock(f.Body, nil, func(e ir.Expr) {
			if call, ok := e.(*ir.Call); ok {
				callees = append(callees, call.Func)
			}
		})
		for _, g := range callees {
			switch color[g] {
			case white:
				visit(g)
			case grey:
				// Cycle: the part of the stack from g to f, back to g.
				i := len(stack) - 1
				for i > 0 && stack[i] != g {
					i--
				}
				var names []string
				for _, h := range stack[i:] {
					names = append(names, c.hlslName(h))
				}
				names = append(names, c.hlslName(g))
				if !reported[g] {
					reported[g] = true
					c.errorf(g.Pos, diag.ErrRecursion, "recursion is not allowed in shaders: %s; rewrite it as a loop", strings.Join(names, " -> "))
				}
			}
		}
		stack = stack[:len(stack)-1]
		color[f] = black
		order = append(order, f)
	}
	var roots []*ir.Function
	for _, e := range c.mod.EntryPoints {
		roots = append(roots, e.Func)
	}
	if len(roots) == 0 {
		// No entry point: keep every function (a library being checked).
		for _, fi := range c.funcs {
			if fi.fn != nil && fi.decl.Body != nil {
				roots = append(roots, fi.fn)
			}
		}
	}
	for _, r := range roots {
		if color[r] == white {
			visit(r)
		}
	}
	// Also walk unreachable functions so their recursion is reported, without keeping them.
	for _, fi := range c.funcs {
		if fi.fn != nil && fi.decl.Body != nil && color[fi.fn] == white {
			saved := order
			visit(fi.fn)
			order = saved
		}
	}
	c.mod.Functions = order
}

// hlslName maps an IR function back to the HLSL name the user wrote.
func (c *checker) hlslName(f *ir.Function) string {
	for _, fi := range c.funcs {
		if fi.fn == f {
			return fi.decl.Name
		}
	}
	return f.Name
}
