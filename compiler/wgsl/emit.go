// Package wgsl is the compiler's IR -> WGSL back end: it prints one WGSL module
// per entry point, lowering the HLSL wave/quad intrinsics WGSL lacks and
// keeping buffer bytes identical to the SPIR-V back end's.
//
// Dialects. Standard WGSL (Tint/Dawn, browsers) needs `enable subgroups;` and
// the `diagnostic(off, subgroup_uniformity);` filter. The Naga dialect is for
// wgpu-native: naga rejects `enable subgroups;` ("not yet supported"), warns
// about the unknown diagnostic rule (so the line is left out), has no
// subgroupElect (lowered to lane == subgroupBroadcastFirst(lane)) and spells
// push constants `var<immediate>`. Those are the only differences; a test
// checks that nothing else differs. Both dialects switch derivative_uniformity
// off when the module takes derivatives (HLSL allows them in divergent flow).
//
// Matrices. IR Matrix is HLSL floatRxC (R rows of C columns). In WGSL an HLSL
// row is a WGSL column: the value type is matRxC<T> (R columns of vecC), so
// m[r] is HLSL's row r and mul(v, M) = M_w * v, mul(M, v) = v * M_w,
// mul(A, B) = B_w * A_w. In memory that is R contiguous C-vectors: exactly the
// IR's row-major layout. Column-major buffer matrices (HLSL's default packing)
// are declared matCxR<T> so the bytes match, and loads/stores go through
// transpose(); element and row accesses swap their indices instead.
//
// Integer semantics. WGSL's % truncates like HLSL's; shift amounts are masked
// to the bit width (explicitly, since naga's SPIR-V output does not mask);
// WGSL defines integer division by zero as the dividend (HLSL leaves it
// undefined), so our output is deterministic where HLSL is not.
package wgsl

import (
	"fmt"
	"sort"
	"strings"

	"waverig/compiler/diag"
	"waverig/compiler/internal/textgen"
	"waverig/compiler/intrinsics"
	"waverig/compiler/ir"
)

// Dialect selects the WGSL flavour.
type Dialect int

const (
	// Standard is WGSL as the W3C spec and Tint/Dawn define it.
	Standard Dialect = iota
	// Naga is WGSL as wgpu-native (naga 29) accepts it.
	Naga
)

func (d Dialect) String() string {
	if d == Naga {
		return "naga"
	}
	return "standard"
}

// Options configure EmitEntry.
type Options struct {
	Dialect Dialect
	// VertexWaveSize is the wave size a vertex entry point's
	// WaveGetLaneCount returns in the naga dialect: naga 29 has no
	// subgroup_size built-in in vertex shaders, so the caller, which knows
	// the device's subgroupSize, supplies it (0: E0613 if the entry needs it).
	VertexWaveSize uint32
}

// Output is one WGSL module.
type Output struct {
	Source string
	// RequiredFeatures are the device features the module needs: "subgroups",
	// "shader-f16" (standard) or "native-feature-subgroup", "shader-f16",
	// "native-feature-immediates" (wgpu-native names), sorted.
	RequiredFeatures []string
	// Warnings are the back end's warnings (W06xx); the output is still valid.
	Warnings []diag.Msg
}

// EmitEntry prints the WGSL module for one entry point of m. Only what the
// entry point reaches is declared. Errors are *diag.Errors with E06xx codes.
func EmitEntry(m *ir.Module, ep *ir.EntryPoint, opts Options) (out *Output, err error) {
	if m == nil || ep == nil || ep.Func == nil {
		return nil, &diag.Errors{Msgs: []diag.Msg{{Code: diag.ErrWGSLInternal, Text: "wgsl: nil module or entry point"}}}
	}
	if ep.Stage == ir.Amplification || ep.Stage == ir.Mesh {
		// WebGPU has only vertex, fragment and compute pipelines (the WGSL spec's
		// shader stages); there is nothing to lower a mesh pipeline stage to.
		return nil, &diag.Errors{Msgs: []diag.Msg{{Severity: diag.Error, Code: diag.ErrWGSLMeshStage, Pos: ep.Pos,
			Text: fmt.Sprintf("%s is a%s %s shader, and WebGPU has no mesh shaders: compile it for SPIR-V or MSL only (-target spirv,msl)",
				ep.Name, map[bool]string{true: "n", false: ""}[ep.Stage == ir.Amplification], strings.ToLower(ep.Stage.String()))}}}
	}
	e := newEmitter(m, ep, opts)
	defer func() {
		// A panic here is a back-end bug on IR it did not expect; report it as a
		// coded internal error instead of taking the compiler down.
		if r := recover(); r != nil {
			out = nil
			err = &diag.Errors{Msgs: append(e.log.Msgs, diag.Msg{Code: diag.ErrWGSLInternal, Pos: ep.Pos,
				Text: fmt.Sprintf("wgsl: internal error in entry point %s: %v", ep.Name, r)})}
		}
	}()
	src := e.run()
	if e.log.HasErrors() {
		return nil, &diag.Errors{Msgs: e.log.Msgs}
	}
	out = &Output{Source: src, RequiredFeatures: e.features()}
	if w := ep.WaveSize; w != nil {
		// WGSL has no attribute that requires a subgroup size; the host learns it
		// from the reflection (and WebGPU cannot request one).
		out.Warnings = append(out.Warnings, diag.Msg{Severity: diag.Warning, Code: diag.WarnWGSLWaveSize, Pos: w.Pos,
			Text: fmt.Sprintf("the wave size %s of %s ([WaveSize]) is carried in the reflection, but WebGPU cannot require a subgroup size: the WGSL runs at the size the device picks", w, ep.Name)})
	}
	if ep.WaveOpsIncludeHelperLanes {
		// WGSL says helper invocations "may be active or inactive" in a subgroup
		// operation, device by device, and has no attribute to require them.
		out.Warnings = append(out.Warnings, diag.Msg{Severity: diag.Warning, Code: diag.WarnWGSLHelperLanes, Pos: ep.HelperLanesPos,
			Text: fmt.Sprintf("%s has [WaveOpsIncludeHelperLanes] (carried in the reflection), but WebGPU cannot make helper invocations take part in subgroup operations: in WGSL they may be active or not, as the device chooses", ep.Name)})
	}
	return out, nil
}

type emitter struct {
	m    *ir.Module
	ep   *ir.EntryPoint
	opts Options
	log  diag.Log

	names       *namer
	globalNames map[*ir.Global]string
	funcNames   map[*ir.Function]string
	funcs       []*ir.Function // reachable, callees first
	atomic      map[*ir.Global]bool
	texAccess   map[*ir.Global]int // bit 1 read, bit 2 write (storage textures)

	structs     map[structKey]string
	plainStruct map[*ir.Struct]string // names claimed up front for module structs
	structDecls []string
	helpers     map[string]string // key -> function name
	helperDecls []string
	reported    map[string]bool // deduplicates errors
	usedOps     map[intrinsics.Op]bool

	barrierMemo map[*ir.Function]bool

	usesF16, usesSubgroup, usesImmediates bool
	// usesSubgroupVertex: a wave operation in a vertex entry (naga dialect only).
	usesSubgroupVertex           bool
	usesLaneIndex, usesLaneCount bool
	laneIndexVar, laneCountVar   string
}

type structKey struct {
	s *ir.Struct
	v view
}

func newEmitter(m *ir.Module, ep *ir.EntryPoint, opts Options) *emitter {
	return &emitter{m: m, ep: ep, opts: opts, names: newNamer(nil),
		globalNames: map[*ir.Global]string{}, funcNames: map[*ir.Function]string{},
		atomic: map[*ir.Global]bool{}, texAccess: map[*ir.Global]int{},
		structs: map[structKey]string{}, plainStruct: map[*ir.Struct]string{}, helpers: map[string]string{}, reported: map[string]bool{}, usedOps: map[intrinsics.Op]bool{}}
}

func (e *emitter) errorf(pos diag.Pos, code diag.Code, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	key := string(code) + msg
	if e.reported[key] {
		return
	}
	e.reported[key] = true
	if !pos.IsValid() {
		pos = e.ep.Pos
	}
	e.log.Errorf(pos, code, "%s", msg)
}

func (e *emitter) features() []string {
	var fs []string
	naga := e.opts.Dialect == Naga
	if e.usesSubgroup {
		if naga {
			fs = append(fs, "native-feature-subgroup")
			if e.usesSubgroupVertex {
				fs = append(fs, "native-feature-subgroup-vertex")
			}
		} else {
			fs = append(fs, "subgroups")
		}
	}
	if e.usesF16 {
		fs = append(fs, "shader-f16")
	}
	if e.usesImmediates {
		fs = append(fs, "native-feature-immediates")
	}
	sort.Strings(fs)
	return fs
}

// run emits the whole module and returns its text.
func (e *emitter) run() string {
	e.funcs = ir.Reachable(e.ep.Func)
	used := e.scan()

	// Names: the entry point keeps its exact name (the pipeline looks it up);
	// globals and functions are named in declaration order so output is stable.
	if sanitize(e.ep.Name) != e.ep.Name {
		e.errorf(e.ep.Pos, diag.ErrWGSLEntryName, "entry point name %q is a WGSL keyword or reserved word (or not a WGSL identifier)", e.ep.Name)
	}
	e.names.reserve(e.ep.Name)
	for _, g := range e.m.Globals {
		if used[g] {
			e.globalNames[g] = e.names.fresh(g.Name)
		}
	}
	// Struct names are claimed before any function is printed, so a local
	// variable can never shadow a struct type that its function uses.
	for _, st := range e.m.Structs {
		e.plainStruct[st] = e.names.fresh(st.Name)
	}
	for _, f := range e.funcs {
		name := f.Name
		if f == e.ep.Func && name == e.ep.Name {
			name += "_body" // the WGSL entry wrapper takes the HLSL name
		}
		e.funcNames[f] = e.names.fresh(name)
	}
	if e.uses(intrinsics.WaveGetLaneIndex) || (e.opts.Dialect == Naga && e.uses(intrinsics.WaveIsFirstLane)) {
		e.usesLaneIndex = true
		e.laneIndexVar = "wr_lane_index"
	}
	if e.uses(intrinsics.WaveGetLaneCount) {
		e.usesLaneCount = true
		e.laneCountVar = "wr_lane_count"
	}

	var globals strings.Builder
	for _, g := range e.m.Globals {
		if used[g] {
			e.global(&globals, g)
		}
	}
	if e.usesLaneIndex {
		textgen.Write(&globals, "var<private> ", e.laneIndexVar, ": u32;\n")
	}
	if e.usesLaneCount {
		textgen.Write(&globals, "var<private> ", e.laneCountVar, ": u32;\n")
	}

	// Sized up front: growing a builder by doubling copies the text several times.
	var fns strings.Builder
	fns.Grow(1024)
	for _, f := range e.funcs {
		fns.WriteString("\n")
		newFuncEmitter(e, f).emit(&fns)
	}
	fns.WriteString("\n")
	e.entry(&fns)

	var b strings.Builder
	size := 256 + globals.Len() + fns.Len()
	for _, s := range e.structDecls {
		size += len(s) + 1
	}
	for _, h := range e.helperDecls {
		size += len(h) + 1
	}
	b.Grow(size)
	if e.usesF16 {
		b.WriteString("enable f16;\n")
	}
	if e.opts.Dialect == Standard {
		if e.usesSubgroup {
			b.WriteString("enable subgroups;\n")
		}
		b.WriteString("diagnostic(off, subgroup_uniformity);\n")
	}
	if e.uses(intrinsics.Ddx) || e.uses(intrinsics.Ddy) || e.uses(intrinsics.TextureSample) {
		// HLSL samples and takes derivatives in divergent flow (the result is
		// undefined there, not an error); WGSL's uniformity analysis would
		// reject the module. Both dialects know this rule.
		b.WriteString("diagnostic(off, derivative_uniformity);\n")
	}
	textgen.Write(&b, "// waverig WGSL: entry point ", e.ep.Name, " (", e.ep.Stage.String(), ")\n")
	for _, s := range e.structDecls {
		b.WriteString("\n")
		b.WriteString(s)
	}
	if globals.Len() > 0 {
		b.WriteString("\n")
		b.WriteString(globals.String())
	}
	for _, h := range e.helperDecls {
		b.WriteString("\n")
		b.WriteString(h)
	}
	b.WriteString(fns.String())
	return b.String()
}

// scan walks the reachable code once: which globals are used, which are
// atomic, how storage textures are accessed, which intrinsics occur.
func (e *emitter) scan() map[*ir.Global]bool {
	used := map[*ir.Global]bool{}
	for _, g := range e.ep.Inputs {
		used[g] = true
	}
	for _, g := range e.ep.Outputs {
		used[g] = true
	}
	for _, f := range e.funcs {
		ir.WalkBlock(f.Body, nil, func(x ir.Expr) {
			switch x := x.(type) {
			case *ir.GlobalRef:
				used[x.G] = true
			case *ir.Intrinsic:
				e.usedOps[x.Op] = true
				in := intrinsics.Get(x.Op)
				if in.Class == intrinsics.ClassAtomic && len(x.Args) > 0 {
					if g := ir.RootGlobal(x.Args[0]); g != nil {
						e.atomic[g] = true
					}
				}
				if len(x.Args) > 0 {
					if r, ok := x.Args[0].(*ir.GlobalRef); ok {
						switch x.Op {
						case intrinsics.TextureLoad:
							e.texAccess[r.G] |= 1
						case intrinsics.TextureStore:
							e.texAccess[r.G] |= 2
						}
					}
				}
			}
		})
	}
	for _, g := range e.m.Globals {
		if g.Atomic {
			e.atomic[g] = true
		}
		if used[g] && g.Init != nil {
			ir.WalkExpr(g.Init, func(x ir.Expr) {
				if r, ok := x.(*ir.GlobalRef); ok {
					used[r.G] = true
				}
			})
		}
	}
	return used
}

// uses reports whether an intrinsic occurs in the reachable code.
func (e *emitter) uses(op intrinsics.Op) bool { return e.usedOps[op] }

// global declares one module-scope variable.
func (e *emitter) global(b *strings.Builder, g *ir.Global) {
	name := e.globalNames[g]
	v := viewOf(g, e.atomic[g])
	binding := func() string {
		if g.Binding == nil {
			e.errorf(g.Pos, diag.ErrWGSLInternal, "resource %s has no binding", g.Name)
			return ""
		}
		return "@group(" + textgen.Dec(g.Binding.Set) + ") @binding(" + textgen.Dec(g.Binding.Binding) + ") "
	}
	switch g.Space {
	case ir.SpacePrivate:
		t := e.typ(g.Type, v, g.Pos)
		switch {
		case g.Spec:
			textgen.Write(b, "@id(", textgen.Dec(g.SpecID), ") override ", name, ": ", t)
		case g.Const && isConstType(g.Type):
			textgen.Write(b, "const ", name, ": ", t)
		default:
			textgen.Write(b, "var<private> ", name, ": ", t)
		}
		if g.Init != nil {
			fe := newFuncEmitter(e, nil)
			textgen.Write(b, " = ", fe.expr(g.Init))
		}
		b.WriteString(";\n")
	case ir.SpaceWorkgroup:
		textgen.Write(b, "var<workgroup> ", name, ": ", e.typ(g.Type, v, g.Pos), ";\n")
	case ir.SpaceUniform:
		textgen.Write(b, binding(), "var<uniform> ", name, ": ", e.typ(g.Type, v, g.Pos), ";\n")
	case ir.SpaceStorage, ir.SpaceStorageRead:
		access := "read_write"
		if g.Space == ir.SpaceStorageRead && !e.atomic[g] {
			access = "read"
		}
		textgen.Write(b, binding(), "var<storage, ", access, "> ", name, ": ", e.typ(g.Type, v, g.Pos), ";\n")
	case ir.SpacePushConstant:
		if e.opts.Dialect != Naga {
			e.errorf(g.Pos, diag.ErrWGSLPushConstant, "push constant %s: WebGPU has no push constants (the naga dialect emits var<immediate>)", g.Name)
			return
		}
		e.usesImmediates = true
		textgen.Write(b, "var<immediate> ", name, ": ", e.typ(g.Type, v, g.Pos), ";\n")
	case ir.SpaceHandle:
		textgen.Write(b, binding(), "var ", name, ": ", e.handleType(g), ";\n")
	case ir.SpaceInput, ir.SpaceOutput:
		// Stage IO lives in private variables: the entry wrapper copies inputs in
		// and outputs out, so helper functions can read and write them.
		textgen.Write(b, "var<private> ", name, ": ", e.typ(g.Type, v, g.Pos), ";\n")
	default:
		e.errorf(g.Pos, diag.ErrWGSLInternal, "global %s in unknown space %v", g.Name, g.Space)
	}
}

func isConstType(t ir.Type) bool {
	switch t.(type) {
	case ir.Scalar, ir.Vector, ir.Matrix:
		return true
	}
	return false
}

func (e *emitter) handleType(g *ir.Global) string {
	switch t := g.Type.(type) {
	case ir.Sampler:
		return "sampler"
	case ir.Texture2D:
		if t.Elem.Bits == 16 {
			e.errorf(g.Pos, diag.ErrWGSLType, "texture %s: WGSL textures have no 16-bit sampled type", g.Name)
		}
		if !t.Storage {
			return "texture_2d<" + scalarName(ir.Scalar{Kind: t.Elem.Kind, Bits: 32}) + ">"
		}
		// The format follows the declared component count (RWTexture2D<uint> is
		// r32uint): WebGPU allows read_write access only for the r32 formats.
		channels := map[int]string{1: "r", 2: "rg"}[t.Components]
		if channels == "" {
			channels = "rgba"
		}
		format := channels + map[ir.ScalarKind]string{ir.Float: "32float", ir.Uint: "32uint", ir.Sint: "32sint"}[t.Elem.Kind]
		access := "write"
		switch e.texAccess[g] {
		case 1:
			access = "read"
		case 3:
			access = "read_write"
			if channels != "r" {
				e.errorf(g.Pos, diag.ErrWGSLTextureAccess, "%s (RWTexture2D with %d components) is read and written: WebGPU allows read_write storage textures only for r32 formats", g.Name, t.Components)
			}
		}
		return "texture_storage_2d<" + format + ", " + access + ">"
	}
	e.errorf(g.Pos, diag.ErrWGSLType, "resource %s of type %s has no WGSL handle type", g.Name, g.Type)
	return "sampler"
}
