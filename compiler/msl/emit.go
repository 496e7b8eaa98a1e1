package msl

import (
	"fmt"
	"sort"
	"strings"

	"waverig/compiler/diag"
	"waverig/compiler/internal/textgen"
	"waverig/compiler/intrinsics"
	"waverig/compiler/ir"
)

// Options controls MSL output. There are none yet: the target is MSL 2.4, and
// MSL 3.0 for amplification and mesh entry points (Metal's object and mesh functions).
type Options struct{}

// ArgumentBinding is one row of the Metal argument table: the resource bound at
// [[buffer(Index)]], [[texture(Index)]] or [[sampler(Index)]] and the Vulkan
// descriptor (set, binding) it came from (-1, -1 for push constants and the
// _buffer_sizes table).
type ArgumentBinding struct {
	Kind         string // "buffer", "texture", "sampler"
	Index        int
	Set, Binding int
	Name         string
}

// Output is one translated entry point.
type Output struct {
	Source    string
	Arguments []ArgumentBinding
	// EntryName is the Metal function name (the HLSL name unless Metal reserves it,
	// e.g. main -> main_).
	EntryName string
	// Warnings are the back end's warnings (W07xx); the output is still valid.
	Warnings []diag.Msg
}

// fnInfo is what a function needs from its callers beyond its IR parameters.
type fnInfo struct {
	globals   []*ir.Global // module-scope state it (transitively) uses, in module order
	laneCount bool         // reads [[threads_per_simdgroup]]
	laneIndex bool         // reads [[thread_index_in_simdgroup]]
	sizes     bool         // reads _buffer_sizes
	// The mesh-pipeline state (mesh.go): threadIndex reads
	// [[thread_index_in_threadgroup]], meshGrid takes the object function's
	// mesh_grid_properties (DispatchMesh), meshCounts writes the threadgroup
	// vertex/primitive counts (SetMeshOutputCounts).
	threadIndex, meshGrid, meshCounts bool
}

type emitter struct {
	m   *ir.Module
	ep  *ir.EntryPoint
	log diag.Log

	names          map[string]bool       // module-scope names taken
	structNames    map[*ir.Struct]string // every module struct is named up front, so locals cannot take the names
	usedStructs    map[*ir.Struct]bool   // the structs this entry point needs declared
	checkedStructs map[*ir.Struct]bool
	globalNames    map[*ir.Global]string
	funcNames      map[*ir.Function]string
	info           map[*ir.Function]*fnInfo
	argIndex       map[*ir.Global]int
	texAccess      map[*ir.Global]string
	sizesIndex     int // [[buffer]] index of _buffer_sizes, -1 when unused
	args           []ArgumentBinding

	helpers     map[string]bool
	dynHelpers  []string // per-type helpers, in first-use order
	needArray   bool
	needStrided bool

	// Per function.
	fn         *ir.Function
	isEntry    bool
	localNames map[*ir.Local]string
	tmp        int
	indent     int
	// entryReturn is the statement a return in the entry function prints.
	entryReturn string
	// inStruct and outStruct are the reserved names of the stage-IO structs.
	inStruct, outStruct string
	out                 *strings.Builder
}

// EmitEntry translates one entry point of m to MSL. Errors are *diag.Errors whose
// messages carry E07xx codes.
func EmitEntry(m *ir.Module, ep *ir.EntryPoint, opts Options) (out *Output, err error) {
	defer func() {
		// The checks above the printer cover the IR invariants it relies on; IR that
		// breaks them in a way not yet checked is reported, not crashed on.
		if r := recover(); r != nil {
			out = nil
			err = &diag.Errors{Msgs: []diag.Msg{{Code: diag.ErrMSLMalformedInput, Text: fmt.Sprintf("invalid IR reached the MSL back end: %v", r)}}}
		}
	}()
	if m == nil || ep == nil || ep.Func == nil {
		return nil, &diag.Errors{Msgs: []diag.Msg{{Code: diag.ErrMSLMalformedInput, Text: "nil module, entry point or entry function"}}}
	}
	if (ep.Stage == ir.Amplification || ep.Stage == ir.Mesh) && ep.Mesh == nil {
		return nil, &diag.Errors{Msgs: []diag.Msg{{Code: diag.ErrMSLMalformedInput, Pos: ep.Pos, Text: fmt.Sprintf("%s entry %s has no mesh interface (EntryPoint.Mesh is nil)", ep.Stage, ep.Name)}}}
	}
	e := &emitter{m: m, ep: ep, names: map[string]bool{}, structNames: map[*ir.Struct]string{}, usedStructs: map[*ir.Struct]bool{},
		checkedStructs: map[*ir.Struct]bool{}, globalNames: map[*ir.Global]string{}, funcNames: map[*ir.Function]string{},
		info: map[*ir.Function]*fnInfo{}, argIndex: map[*ir.Global]int{}, texAccess: map[*ir.Global]string{},
		helpers: map[string]bool{}, sizesIndex: -1}
	out, err = e.run()
	if w := ep.WaveSize; out != nil && w != nil {
		// Metal has no attribute that requires a SIMD-group size; the host learns
		// it from the reflection (threadExecutionWidth is the device's choice).
		out.Warnings = append(out.Warnings, diag.Msg{Severity: diag.Warning, Code: diag.WarnMSLWaveSize, Pos: w.Pos,
			Text: fmt.Sprintf("the wave size %s of %s ([WaveSize]) is carried in the reflection, but Metal cannot require a SIMD-group size: the MSL runs at the device's threadExecutionWidth", w, ep.Name)})
	}
	if out != nil && ep.WaveOpsIncludeHelperLanes {
		// Metal has no function attribute that makes helper threads take part in
		// SIMD-group and quad-group functions; whether they do is the device's.
		out.Warnings = append(out.Warnings, diag.Msg{Severity: diag.Warning, Code: diag.WarnMSLHelperLanes, Pos: ep.HelperLanesPos,
			Text: fmt.Sprintf("%s has [WaveOpsIncludeHelperLanes] (carried in the reflection), but Metal cannot require helper threads to take part in SIMD-group and quad-group functions: whether they do is the device's (simd_is_helper_thread() tells them apart)", ep.Name)})
	}
	return out, err
}

func (e *emitter) errorf(pos diag.Pos, code diag.Code, format string, args ...any) {
	e.log.Errorf(pos, code, format, args...)
}

func (e *emitter) fail() error {
	return &diag.Errors{Msgs: e.log.Sorted()}
}

// unique reserves a module-scope name.
func (e *emitter) unique(base string) string {
	n := base
	for i := 1; e.names[n]; i++ {
		n = base + "_" + textgen.Dec(i)
	}
	e.names[n] = true
	return n
}

func (e *emitter) run() (*Output, error) {
	funcs := ir.Reachable(e.ep.Func)
	if !e.validate(funcs) {
		return nil, e.fail()
	}
	e.analyze(funcs)

	// Names: the entry first so it keeps its HLSL name when it can, then functions, globals.
	for _, f := range funcs {
		if f == e.ep.Func {
			e.funcNames[f] = e.unique(ident(e.ep.Name))
		}
	}
	for _, f := range funcs {
		if f != e.ep.Func {
			e.funcNames[f] = e.unique(ident(f.Name))
		}
	}
	for _, g := range e.m.Globals {
		e.globalNames[g] = e.unique(ident(g.Name))
	}
	for _, s := range e.m.Structs {
		e.structNames[s] = e.unique(ident(s.Name))
	}
	e.inStruct = e.unique(e.funcNames[e.ep.Func] + "_in")
	e.outStruct = e.unique(e.funcNames[e.ep.Func] + "_out")
	args := e.assignArguments()
	e.args = args
	if e.log.HasErrors() {
		return nil, e.fail()
	}

	// Sized up front: growing a builder by doubling copies the text several times.
	var funcText strings.Builder
	funcText.Grow(1024)
	e.out = &funcText
	consts := e.constants(funcs)
	for _, f := range funcs {
		if f == e.ep.Func {
			continue
		}
		e.function(f)
		funcText.WriteString("\n")
	}
	e.entry()
	if e.log.HasErrors() {
		return nil, e.fail()
	}

	// Declare used structs members-first: Module.Structs order, then any struct
	// reached only through another type, each after the structs its fields hold.
	var structs []*ir.Struct
	done := map[*ir.Struct]bool{}
	var declare func(s *ir.Struct)
	declare = func(s *ir.Struct) {
		if done[s] || !e.usedStructs[s] {
			return
		}
		done[s] = true
		for _, f := range s.Fields {
			if fs, ok := elemType(f.Type).(*ir.Struct); ok {
				declare(fs)
			}
		}
		structs = append(structs, s)
	}
	for _, s := range e.m.Structs {
		declare(s)
	}
	var extra []*ir.Struct
	for s := range e.usedStructs {
		extra = append(extra, s)
	}
	sort.Slice(extra, func(i, j int) bool { return e.structNames[extra[i]] < e.structNames[extra[j]] })
	for _, s := range extra {
		declare(s)
	}
	var decls strings.Builder
	for _, s := range structs {
		decls.WriteString(e.structDecl(s))
		decls.WriteString("\n")
	}
	// The prelude comes last: struct declarations may need wr_array / wr_strided.
	prelude := e.prelude()
	// Object and mesh functions are Metal 3; every other entry stays MSL 2.4.
	version := "2.4"
	if e.ep.Stage == ir.Amplification || e.ep.Stage == ir.Mesh {
		version = "3.0"
	}
	header := "// Generated by waverig (MSL " + version + "). Do not edit.\n#include <metal_stdlib>\n\nusing namespace metal;\n\n"
	var src strings.Builder
	src.Grow(len(header) + len(prelude) + decls.Len() + len(consts) + funcText.Len())
	src.WriteString(header)
	src.WriteString(prelude)
	src.WriteString(decls.String())
	if e.log.HasErrors() {
		return nil, e.fail()
	}
	src.WriteString(consts)
	src.WriteString(funcText.String())
	return &Output{Source: src.String(), Arguments: args, EntryName: e.funcNames[e.ep.Func]}, nil
}

// validate rejects types and operations Metal cannot express before anything is printed.
func (e *emitter) validate(funcs []*ir.Function) bool {
	// what is prefix+name, put together only for an error: building it for
	// every local and global cost an allocation each.
	checkType := func(t ir.Type, pos diag.Pos, prefix, name string) {
		if s, ok := ir.ScalarOf(t); ok && s.Kind == ir.Float && s.Bits == 64 {
			e.errorf(pos, diag.ErrMSLType, "%s has type %s: Metal has no 64-bit floating point", prefix+name, t)
		}
	}
	used := map[*ir.Global]bool{}
	for _, f := range funcs {
		for _, l := range f.Locals {
			checkType(l.Type, f.Pos, "local ", l.Name)
		}
		checkType(f.Result, f.Pos, "the result of ", f.Name)
		ir.WalkBlock(f.Body, nil, func(x ir.Expr) {
			switch x := x.(type) {
			case *ir.GlobalRef:
				used[x.G] = true
			case *ir.Intrinsic:
				e.validateIntrinsic(x)
			case *ir.Const, *ir.Convert, *ir.Bitcast, *ir.Construct:
				checkType(x.Type(), f.Pos, "an expression", "")
			}
		})
	}
	for _, g := range e.m.Globals {
		if !used[g] && !inList(e.ep.Inputs, g) && !inList(e.ep.Outputs, g) {
			continue
		}
		// Stage IO reaches Metal only through the entry's interface lists.
		if used[g] && (g.Space == ir.SpaceInput && !inList(e.ep.Inputs, g) || g.Space == ir.SpaceOutput && !inList(e.ep.Outputs, g)) {
			e.errorf(g.Pos, diag.ErrMSLMalformedInput, "%s %s is used but not in entry %s's interface", g.Space, g.Name, e.ep.Name)
		}
		checkType(elemType(g.Type), g.Pos, "global ", g.Name)
		if g.Space == ir.SpaceStorage || g.Space == ir.SpaceStorageRead || g.Space == ir.SpaceUniform || g.Space == ir.SpacePushConstant {
			e.checkMemType(g.Type, g.Pos, g.Name)
		}
	}
	return !e.log.HasErrors()
}

func elemType(t ir.Type) ir.Type {
	for {
		a, ok := t.(*ir.Array)
		if !ok {
			return t
		}
		t = a.Elem
	}
}

func inList(l []*ir.Global, g *ir.Global) bool {
	for _, x := range l {
		if x == g {
			return true
		}
	}
	return false
}

// analyze computes, callee first, the module-scope state every function needs.
func (e *emitter) analyze(funcs []*ir.Function) {
	index := make(map[*ir.Global]int, len(e.m.Globals))
	for i, g := range e.m.Globals {
		index[g] = i
	}
	// The globals a function uses are marked by module index, which yields them
	// already in module order; a map per function plus a sort cost more. Globals
	// missing from Module.Globals (malformed IR) take the general path below.
	marks := make([]bool, len(e.m.Globals))
	for _, f := range funcs {
		in := &fnInfo{}
		clear(marks)
		var extra map[*ir.Global]bool
		mark := func(g *ir.Global) {
			if i, ok := index[g]; ok {
				marks[i] = true
				return
			}
			if extra == nil {
				extra = map[*ir.Global]bool{}
			}
			extra[g] = true
		}
		ir.WalkBlock(f.Body, nil, func(x ir.Expr) {
			switch x := x.(type) {
			case *ir.GlobalRef:
				if !programScope(x.G) {
					mark(x.G)
				}
			case *ir.Call:
				ci := e.info[x.Func]
				for _, g := range ci.globals {
					mark(g)
				}
				in.laneCount = in.laneCount || ci.laneCount
				in.laneIndex = in.laneIndex || ci.laneIndex
				in.sizes = in.sizes || ci.sizes
				in.threadIndex = in.threadIndex || ci.threadIndex
				in.meshGrid = in.meshGrid || ci.meshGrid
				in.meshCounts = in.meshCounts || ci.meshCounts
			case *ir.Intrinsic:
				switch x.Op {
				case intrinsics.WaveGetLaneCount, intrinsics.WaveActiveBallot, intrinsics.WaveActiveCountBits:
					in.laneCount = true
				case intrinsics.WaveGetLaneIndex:
					in.laneIndex = true
				case intrinsics.BufferGetDimensions:
					in.sizes = true
				case intrinsics.DispatchMesh:
					in.threadIndex, in.meshGrid = true, true
				case intrinsics.SetMeshOutputCounts:
					in.threadIndex, in.meshCounts = true, true
				case intrinsics.TextureLoad, intrinsics.TextureStore:
					if g := ir.RootGlobal(x.Args[0]); g != nil {
						if x.Op == intrinsics.TextureLoad {
							e.texAccess[g] += "r"
						} else {
							e.texAccess[g] += "w"
						}
					}
				}
			}
		})
		if extra == nil {
			for i, g := range e.m.Globals {
				if marks[i] && index[g] == i {
					in.globals = append(in.globals, g)
				}
			}
		} else {
			set := extra
			for i, g := range e.m.Globals {
				if marks[i] {
					set[g] = true
				}
			}
			for g := range set {
				in.globals = append(in.globals, g)
			}
			sort.Slice(in.globals, func(i, j int) bool { return index[in.globals[i]] < index[in.globals[j]] })
		}
		e.info[f] = in
	}
	// Stage IO is part of the entry's interface even when the body never reads it.
	ein := e.info[e.ep.Func]
	for _, g := range append(append([]*ir.Global{}, e.ep.Inputs...), e.ep.Outputs...) {
		if !inList(ein.globals, g) {
			ein.globals = append(ein.globals, g)
		}
	}
	sort.Slice(ein.globals, func(i, j int) bool { return index[ein.globals[i]] < index[ein.globals[j]] })
	if e.ep.Stage == ir.Vertex && (ein.laneCount || ein.laneIndex) {
		e.errorf(e.ep.Pos, diag.ErrMSLVertexSimd, "vertex entry %s uses WaveGetLaneCount, WaveGetLaneIndex or a wave ballot: Metal has no [[threads_per_simdgroup]] or [[thread_index_in_simdgroup]] in vertex functions", e.ep.Name)
	}
}

// programScope reports whether a global is printed as a program-scope Metal
// constant (static const, specialization constant) rather than passed around.
func programScope(g *ir.Global) bool {
	return g.Spec || (g.Const && g.Space == ir.SpacePrivate)
}

// isResource reports whether a global is a Metal argument (buffer, texture, sampler).
func isResource(g *ir.Global) bool {
	switch g.Space {
	case ir.SpaceUniform, ir.SpaceStorage, ir.SpaceStorageRead, ir.SpacePushConstant, ir.SpaceHandle:
		return true
	}
	return false
}

// assignArguments numbers the entry's resources deterministically (see doc.go).
func (e *emitter) assignArguments() []ArgumentBinding {
	var res []*ir.Global
	var push []*ir.Global
	for _, g := range e.info[e.ep.Func].globals {
		if !isResource(g) {
			continue
		}
		if g.Space == ir.SpacePushConstant {
			push = append(push, g)
		} else {
			res = append(res, g)
		}
	}
	key := func(g *ir.Global) (int, int) {
		if g.Binding == nil {
			return 1 << 30, 1 << 30
		}
		return g.Binding.Set, g.Binding.Binding
	}
	sort.SliceStable(res, func(i, j int) bool {
		si, bi := key(res[i])
		sj, bj := key(res[j])
		if si != sj {
			return si < sj
		}
		if bi != bj {
			return bi < bj
		}
		return res[i].Name < res[j].Name
	})
	var out []ArgumentBinding
	counts := map[string]int{}
	add := func(g *ir.Global, kind string) {
		set, bind := -1, -1
		if g.Binding != nil {
			set, bind = g.Binding.Set, g.Binding.Binding
		}
		e.argIndex[g] = counts[kind]
		out = append(out, ArgumentBinding{Kind: kind, Index: counts[kind], Set: set, Binding: bind, Name: e.globalNames[g]})
		counts[kind]++
	}
	for _, g := range append(res, push...) {
		switch g.Type.(type) {
		case ir.Texture2D:
			add(g, "texture")
		case ir.Sampler:
			add(g, "sampler")
		default:
			add(g, "buffer")
		}
	}
	if e.info[e.ep.Func].sizes {
		e.sizesIndex = counts["buffer"]
		out = append(out, ArgumentBinding{Kind: "buffer", Index: e.sizesIndex, Set: -1, Binding: -1, Name: "_buffer_sizes"})
	}
	sort.SliceStable(out, func(i, j int) bool {
		order := map[string]int{"buffer": 0, "texture": 1, "sampler": 2}
		return order[out[i].Kind] < order[out[j].Kind]
	})
	return out
}

// textureType spells a texture parameter with the access its uses need.
func (e *emitter) textureType(g *ir.Global) string {
	t := g.Type.(ir.Texture2D)
	access := "sample"
	if t.Storage {
		a := e.texAccess[g]
		switch {
		case strings.Contains(a, "r") && strings.Contains(a, "w"):
			access = "read_write"
		case strings.Contains(a, "r"):
			access = "read"
		default:
			access = "write"
		}
	}
	return "texture2d<" + scalarName(t.Elem) + ", access::" + access + ">"
}

// globalParam spells how a helper function receives a piece of module-scope state.
func (e *emitter) globalParam(g *ir.Global) string {
	n := e.globalNames[g]
	switch g.Space {
	case ir.SpaceStorage, ir.SpaceStorageRead:
		cst := ""
		if g.Space == ir.SpaceStorageRead {
			cst = "const "
		}
		if a, ok := g.Type.(*ir.Array); ok && a.Len == 0 {
			return cst + "device " + e.elemMemTypeName(a) + "* " + n
		}
		return cst + "device " + e.memTypeName(g.Type, false) + "& " + n
	case ir.SpaceUniform, ir.SpacePushConstant:
		if a, ok := g.Type.(*ir.Array); ok && a.Len == 0 {
			return "constant " + e.elemMemTypeName(a) + "* " + n
		}
		return "constant " + e.memTypeName(g.Type, false) + "& " + n
	case ir.SpaceHandle:
		if _, ok := g.Type.(ir.Texture2D); ok {
			return e.textureType(g) + " " + n
		}
		return "sampler " + n
	case ir.SpaceWorkgroup:
		return "threadgroup " + e.typeName(g.Type) + "& " + n
	case ir.SpaceTaskPayload:
		return e.payloadParam(g)
	case ir.SpaceOutput:
		if e.ep.Stage == ir.Mesh {
			// A mesh shader's per-field output arrays live in threadgroup memory
			// until the entry function gathers them into the mesh<…> (mesh.go).
			return "threadgroup " + e.typeName(g.Type) + "& " + n
		}
	}
	return "thread " + e.typeName(g.Type) + "& " + n
}

// extraParams lists the trailing parameters of a helper function.
func (e *emitter) extraParams(in *fnInfo) []string {
	var ps []string
	for _, g := range in.globals {
		ps = append(ps, e.globalParam(g))
	}
	if in.sizes {
		ps = append(ps, "constant uint* _buffer_sizes")
	}
	if in.laneCount {
		ps = append(ps, "uint _wr_lane_count")
	}
	if in.laneIndex {
		ps = append(ps, "uint _wr_lane_index")
	}
	return append(ps, meshParams(in)...)
}

// extraArgs lists the trailing arguments a call passes (the same names in every scope).
func (e *emitter) extraArgs(in *fnInfo) []string {
	var as []string
	for _, g := range in.globals {
		as = append(as, e.globalNames[g])
	}
	if in.sizes {
		as = append(as, "_buffer_sizes")
	}
	if in.laneCount {
		as = append(as, "_wr_lane_count")
	}
	if in.laneIndex {
		as = append(as, "_wr_lane_index")
	}
	return append(as, meshArgs(in)...)
}

// constants prints static consts and specialization constants at program scope.
func (e *emitter) constants(funcs []*ir.Function) string {
	var b strings.Builder
	used := map[*ir.Global]bool{}
	for _, f := range funcs { // ir.Reachable(e.ep.Func), computed once in run
		ir.WalkBlock(f.Body, nil, func(x ir.Expr) {
			if r, ok := x.(*ir.GlobalRef); ok && programScope(r.G) {
				used[r.G] = true
			}
		})
	}
	saved := e.out
	for _, g := range e.m.Globals {
		if !used[g] {
			continue
		}
		e.noteType(g.Type)
		n := e.globalNames[g]
		init := "{}"
		if g.Init != nil {
			init = e.expr(g.Init)
		}
		if g.Spec {
			// A Metal function constant may be left unset by the pipeline; fall back to the HLSL default.
			textgen.Write(&b, "constant ", e.typeName(g.Type), " ", n, "_fc [[function_constant(", textgen.Dec(g.SpecID), ")]];\n")
			textgen.Write(&b, "constant ", e.typeName(g.Type), " ", n, " = is_function_constant_defined(", n, "_fc) ? ", n, "_fc : ", e.typeName(g.Type), "(", init, ");\n")
			continue
		}
		textgen.Write(&b, "constant ", e.typeName(g.Type), " ", n, " = ", init, ";\n")
	}
	e.out = saved
	if b.Len() > 0 {
		b.WriteString("\n")
	}
	return b.String()
}

// beginFunction sets up per-function naming.
func (e *emitter) beginFunction(f *ir.Function, entry bool) {
	e.fn, e.isEntry = f, entry
	e.localNames = make(map[*ir.Local]string, len(f.Locals)+len(f.Params))
	e.tmp = 0
	// taken holds only this function's names; module names are looked up in
	// e.names directly (it cannot grow while locals are named) instead of being
	// copied into taken for every function.
	taken := make(map[string]bool, len(f.Locals)+len(f.Params))
	// next is, per base name, the last suffix handed out (base_1 … base_next
	// are taken), so k locals of one name cost k probes, not k² (issue 7).
	next := map[string]int{}
	name := func(l *ir.Local) string {
		base := ident(l.Name)
		n := base
		if e.names[n] || taken[n] {
			i := next[base]
			for {
				i++
				n = base + "_" + textgen.Dec(i)
				if !e.names[n] && !taken[n] {
					break
				}
			}
			next[base] = i
		}
		taken[n] = true
		return n
	}
	for _, l := range f.Locals {
		e.localNames[l] = name(l)
	}
	for _, p := range f.Params {
		if _, ok := e.localNames[p.Local]; !ok {
			e.localNames[p.Local] = name(p.Local)
		}
	}
}

// function prints a helper function.
func (e *emitter) function(f *ir.Function) {
	e.beginFunction(f, false)
	var ps []string
	isParam := map[*ir.Local]bool{}
	for _, p := range f.Params {
		isParam[p.Local] = true
		if p.Dir == ir.In {
			ps = append(ps, e.typeName(p.Local.Type)+" "+e.localNames[p.Local])
		} else {
			ps = append(ps, "thread "+e.typeName(p.Local.Type)+"& "+e.localNames[p.Local])
		}
	}
	ps = append(ps, e.extraParams(e.info[f])...)
	textgen.Write(e.out, e.typeName(f.Result), " ", e.funcNames[f], "(", strings.Join(ps, ", "), ")\n{\n")
	e.indent = 1
	for _, l := range f.Locals {
		if !isParam[l] {
			e.lineS(e.typeName(l.Type), " ", e.localNames[l], " = {};")
		}
	}
	e.block(f.Body)
	e.out.WriteString("}\n")
}

func (e *emitter) line(format string, args ...any) {
	textgen.Line(e.out, e.indent, "    ", format, args...)
}

func (e *emitter) lineS(parts ...string) {
	textgen.LineS(e.out, e.indent, "    ", parts...)
}

func (e *emitter) writeIndent() {
	textgen.Indent(e.out, e.indent, "    ")
}
