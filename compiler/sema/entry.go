package sema

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"waverig/compiler/diag"
	"waverig/compiler/intrinsics"
	"waverig/compiler/ir"
	"waverig/compiler/syntax"
)

// builtinSem describes a system-value semantic.
type builtinSem struct {
	b     ir.Builtin
	t     ir.Type
	stage ir.Stage
	out   bool
}

// systemValues maps upper-cased system-value semantics to their built-ins. It is
// built on first use, not at package initialisation (the ir.Type values in it
// make it a dynamic initialiser), so processes that compile nothing skip it.
var systemValues = sync.OnceValue(func() map[string][]builtinSem {
	return map[string][]builtinSem{
		"SV_DISPATCHTHREADID": {{ir.BuiltinGlobalInvocationID, ir.Vector{Elem: ir.U32, N: 3}, ir.Compute, false}},
		"SV_GROUPTHREADID":    {{ir.BuiltinLocalInvocationID, ir.Vector{Elem: ir.U32, N: 3}, ir.Compute, false}},
		"SV_GROUPID":          {{ir.BuiltinWorkgroupID, ir.Vector{Elem: ir.U32, N: 3}, ir.Compute, false}},
		"SV_GROUPINDEX":       {{ir.BuiltinLocalInvocationIndex, ir.U32, ir.Compute, false}},
		"SV_POSITION": {{ir.BuiltinPosition, ir.Vector{Elem: ir.F32, N: 4}, ir.Pixel, false},
			{ir.BuiltinPosition, ir.Vector{Elem: ir.F32, N: 4}, ir.Vertex, true}},
		"SV_ISFRONTFACE": {{ir.BuiltinFrontFacing, ir.BoolT, ir.Pixel, false}},
		"SV_SAMPLEINDEX": {{ir.BuiltinSampleIndex, ir.U32, ir.Pixel, false}},
		"SV_VERTEXID":    {{ir.BuiltinVertexIndex, ir.U32, ir.Vertex, false}},
		"SV_INSTANCEID":  {{ir.BuiltinInstanceIndex, ir.U32, ir.Vertex, false}},
	}
})

func stageNames(s string) (ir.Stage, bool) {
	switch s {
	case "compute":
		return ir.Compute, true
	case "pixel":
		return ir.Pixel, true
	case "vertex":
		return ir.Vertex, true
	case "amplification":
		return ir.Amplification, true
	case "mesh":
		return ir.Mesh, true
	}
	return 0, false
}

// entryPoints finds the entry points (every [shader("…")] function, or only
// opts.Entry), checks their attributes and builds their wrappers.
func (c *checker) entryPoints() {
	var found bool
	for _, fi := range c.funcs {
		if fi.decl.Body == nil {
			continue
		}
		attr := findAttr(fi.attrs, "", "shader")
		if c.opts.Entry != "" && fi.decl.Name != c.opts.Entry {
			continue
		}
		var stage ir.Stage
		switch {
		case attr != nil:
			name := ""
			if len(attr.Args) == 1 {
				if lit, ok := attr.Args[0].(*syntax.Literal); ok {
					name = strings.Trim(lit.Text, `"`)
				} else if id, ok := attr.Args[0].(*syntax.Ident); ok {
					name = id.Name
				}
			}
			s, ok := stageNames(strings.ToLower(name))
			if !ok {
				c.errorf(attr.Pos, diag.ErrBadShaderAttr, "unsupported shader stage %q; waverig compiles compute, pixel, vertex, amplification and mesh shaders", name)
				continue
			}
			stage = s
		case c.opts.Entry != "":
			s, ok := stageNames(strings.ToLower(c.opts.Stage))
			if !ok {
				if c.opts.Stage == "" && findAttr(fi.attrs, "", "numthreads") != nil {
					s, ok = ir.Compute, true
				} else {
					c.errorf(fi.decl.NamePos, diag.ErrBadShaderAttr, "entry point %s has no [shader(\"…\")] attribute and -stage %q is not compute, pixel, vertex, amplification or mesh", fi.decl.Name, c.opts.Stage)
					continue
				}
			}
			stage = s
		default:
			continue
		}
		if found && c.opts.Entry != "" {
			c.errorf(fi.decl.NamePos, diag.ErrBadShaderAttr, "entry point %s is overloaded; -entry needs a unique function", fi.decl.Name)
			continue
		}
		found = true
		c.entry(fi, stage)
	}
	// Both are about the whole file: their position is the file, with no line.
	var file diag.Pos
	if c.mainSrc != nil {
		file = diag.FilePos(c.mainSrc)
	}
	if c.opts.Entry != "" && !found && !c.log.HasErrors() {
		c.errorf(file, diag.ErrUnknownEntry, "entry point %q not found", c.opts.Entry)
	} else if len(c.mod.EntryPoints) == 0 && !c.log.HasErrors() {
		c.errorf(file, diag.ErrNoEntryPoint, "no entry point: add [shader(\"compute\")] and [numthreads(…)] to a function, or pass -entry and -stage")
	}
	c.amplificationPayloads()
	c.stageChecks()
	c.groupSharedLimits()
}

// HLSL's compute limits (Shader Model 5.0 and later; DXC enforces them): at
// most 1024, 1024 and 64 threads along x, y and z, and 1024 in a group. Every
// Vulkan device supports at least 128×128×64 and 128 threads, most 1024.
var maxNumThreads = [3]int{1024, 1024, 64}

const maxThreadsPerGroup = 1024

// entry builds the IR entry point for one function.
func (c *checker) entry(fi *funcInfo, stage ir.Stage) {
	ep := &ir.EntryPoint{Name: fi.decl.Name, Stage: stage, Pos: fi.decl.NamePos}
	fi.meshEntry = stage == ir.Mesh
	ep.WaveSize = c.waveSize(fi.attrs, stage)
	ep.WaveOpsIncludeHelperLanes, ep.HelperLanesPos = c.helperLanes(fi.attrs, stage)
	nt := findAttr(fi.attrs, "", "numthreads")
	if stage.HasThreadGroups() {
		if !c.threadGroupAttrs(fi, ep) {
			return
		}
	} else if nt != nil {
		c.warnf(nt.Pos, diag.WarnIgnoredAttribute, "numthreads is ignored on a %s shader", strings.ToLower(stage.String()))
	}
	if stage == ir.Amplification || stage == ir.Mesh {
		ep.Mesh = &ir.MeshInfo{}
	}
	if stage == ir.Mesh {
		if !c.meshEntry(fi, ep) {
			return
		}
		// The qualified parameters are globals now: the IR function loses them.
		var kept []ir.Param
		for i, p := range fi.fn.Params {
			if fi.decl.Params[i].MeshQual == "" {
				kept = append(kept, p)
			}
		}
		fi.fn.Params = kept
	}
	_, void := fi.result.(ir.Void)
	if len(fi.fn.Params) == 0 && void {
		// Already parameterless and void: the function is its own entry.
		ep.Func = fi.fn
		c.mod.EntryPoints = append(c.mod.EntryPoints, ep)
		return
	}
	// The wrapper takes the HLSL name; the user function is renamed.
	fi.fn.Name = c.uniqueFuncName(fi.decl.Name + "_impl")
	w := &ir.Function{Name: fi.decl.Name, Result: ir.Void{}, Pos: fi.decl.NamePos}
	var body ir.Block
	saved := c.fn
	c.fn = &fnState{fn: w, stmts: &body}
	defer func() { c.fn = saved }()
	io := &ioBuilder{c: c, ep: ep, stage: stage}
	var args []ir.Expr
	type outParam struct {
		local *ir.Local
		sem   string
		pd    *syntax.VarDecl
	}
	var outs []outParam
	for i, p := range fi.params {
		pd := fi.decl.Params[i]
		if pd.MeshQual != "" && fi.meshEntry {
			continue
		}
		if p.dir != ir.In {
			l := w.NewLocal(p.name, p.typ)
			if p.dir == ir.InOut {
				v := io.input(p.typ, pd.Semantic, p.name, pd)
				if v == nil {
					return
				}
				c.emit(&ir.Store{Place: &ir.LocalRef{L: l}, Value: v})
			}
			args = append(args, &ir.LocalRef{L: l})
			outs = append(outs, outParam{l, pd.Semantic, pd})
			continue
		}
		v := io.input(p.typ, pd.Semantic, p.name, pd)
		if v == nil {
			return
		}
		args = append(args, v)
	}
	call := &ir.Call{Func: fi.fn, Args: args, Pos: fi.decl.NamePos}
	if void {
		c.emit(&ir.ExprStmt{X: call})
	} else {
		res := w.NewLocal("result", fi.result)
		c.emit(&ir.Store{Place: &ir.LocalRef{L: res}, Value: call})
		if !io.output(&ir.Load{Place: &ir.LocalRef{L: res}}, fi.result, fi.decl.Semantic, "out", nil) {
			return
		}
	}
	for _, o := range outs {
		if !io.output(&ir.Load{Place: &ir.LocalRef{L: o.local}}, o.local.Type, o.sem, o.local.Name, o.pd) {
			return
		}
	}
	w.Body = body
	ep.Func = w
	c.mod.EntryPoints = append(c.mod.EntryPoints, ep)
}

// ioBuilder creates the stage input/output globals of one entry point.
type ioBuilder struct {
	c             *checker
	ep            *ir.EntryPoint
	stage         ir.Stage
	inLoc, outLoc int
	usedOut       map[int]bool
}

// semanticIndex splits "TEXCOORD3" into ("TEXCOORD", 3, true).
func semanticIndex(s string) (string, int, bool) {
	i := len(s)
	for i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
		i--
	}
	if i == len(s) {
		return s, 0, false
	}
	n, _ := strconv.Atoi(s[i:])
	return s[:i], n, true
}

func (b *ioBuilder) pos(pd *syntax.VarDecl) diag.Pos {
	if pd != nil {
		return pd.NamePos
	}
	return b.ep.Pos
}

// input returns the value of an entry parameter read from input globals (structs
// are flattened field by field).
func (b *ioBuilder) input(t ir.Type, sem, name string, pd *syntax.VarDecl) ir.Expr {
	c := b.c
	if st, ok := t.(*ir.Struct); ok && sem == "" {
		args := make([]ir.Expr, len(st.Fields))
		for i, f := range st.Fields {
			lt := c.fieldLogical(st, i)
			v := b.input(lt, f.Semantic, name+"_"+f.Name, nil)
			if v == nil {
				return nil
			}
			if !ir.Equal(lt, f.Type) {
				v = c.relayoutOrConvert(v, f.Type)
			}
			args[i] = v
		}
		return &ir.Construct{T: t, Args: args}
	}
	if sem == "" {
		c.errorf(b.pos(pd), diag.ErrMissingSemantic, "entry point parameter %q needs a semantic (e.g. : SV_DispatchThreadID)", name)
		return nil
	}
	if shapeOf(t) < 0 || shapeOf(t) == 2 {
		c.errorf(b.pos(pd), diag.ErrMissingSemantic, "stage input %q must be a scalar or vector, not %s", name, typeName(t))
		return nil
	}
	g := &ir.Global{Name: c.uniqueGlobalName(name), Space: ir.SpaceInput, Semantic: sem, Pos: b.pos(pd)}
	// Only system values need the upper-cased spelling; testing the prefix
	// first saves the copy for every user semantic (TEXCOORD0 …). Semantics are
	// ASCII identifiers (the lexer takes no other), so EqualFold on the first
	// three bytes is the same test as HasPrefix(ToUpper(sem), "SV_").
	if len(sem) >= 3 && strings.EqualFold(sem[:3], "SV_") {
		bs, ok := b.builtin(strings.ToUpper(sem), false)
		if !ok {
			c.errorf(b.pos(pd), diag.ErrUnknownSemantic, "%s is not a %s shader input waverig knows", sem, strings.ToLower(b.stage.String()))
			return nil
		}
		g.Builtin, g.Type = bs.b, bs.t
	} else {
		g.Type = t
		g.Location = b.inLoc
		if pd != nil {
			if loc, ok := b.vkLocation(pd); ok {
				g.Location = loc
			}
		}
		b.inLoc = g.Location + 1
		if k := scalarOf(t).Kind; b.stage == ir.Pixel && (k == ir.Sint || k == ir.Uint) {
			g.Flat = true
		}
	}
	c.mod.Globals = append(c.mod.Globals, g)
	b.ep.Inputs = append(b.ep.Inputs, g)
	v := ir.Expr(&ir.Load{Place: &ir.GlobalRef{G: g}})
	// Builtins may be declared narrower (uint for SV_DispatchThreadID) or with
	// another element type (int3): swizzle and convert.
	if n, have := ir.Components(t), ir.Components(g.Type); n < have {
		v = &ir.Swizzle{Base: v, Comps: []int{0, 1, 2, 3}[:n]}
	} else if n > have {
		c.errorf(b.pos(pd), diag.ErrUnknownSemantic, "%s has %d components; %q is declared %s", sem, have, name, typeName(t))
		return nil
	}
	return convScalar(v, scalarOf(t))
}

func (b *ioBuilder) builtin(up string, out bool) (builtinSem, bool) {
	for _, bs := range systemValues()[up] {
		// The compute thread ids are the thread ids of every stage with thread groups.
		stage := bs.stage == b.stage || bs.stage == ir.Compute && b.stage.HasThreadGroups()
		if stage && bs.out == out {
			return bs, true
		}
	}
	return builtinSem{}, false
}

func (b *ioBuilder) vkLocation(pd *syntax.VarDecl) (int, bool) {
	a := findAttr(pd.Attrs, "vk", "location")
	if a == nil {
		return 0, false
	}
	if len(a.Args) != 1 {
		b.c.errorf(a.Pos, diag.ErrBadAttribute, "[[vk::location(n)]] takes one integer")
		return 0, false
	}
	v, ok := b.c.constInt(a.Args[0])
	if !ok || v < 0 {
		return 0, false
	}
	return int(v), true
}

// output stores v (of logical type t) into output globals.
func (b *ioBuilder) output(v ir.Expr, t ir.Type, sem, name string, pd *syntax.VarDecl) bool {
	c := b.c
	if st, ok := t.(*ir.Struct); ok && sem == "" {
		v = c.stable(v)
		for i, f := range st.Fields {
			lt := c.fieldLogical(st, i)
			var fv ir.Expr = &ir.Member{Base: v, Field: i}
			if !ir.Equal(lt, f.Type) {
				fv = convScalar(fv, scalarOf(lt))
			}
			if !b.output(fv, lt, f.Semantic, name+"_"+f.Name, nil) {
				return false
			}
		}
		return true
	}
	if sem == "" {
		c.errorf(b.pos(pd), diag.ErrMissingSemantic, "the %s of entry point %s needs a semantic (e.g. : SV_Target)", outWhat(name), b.ep.Name)
		return false
	}
	if shapeOf(t) < 0 || shapeOf(t) == 2 {
		c.errorf(b.pos(pd), diag.ErrMissingSemantic, "stage output %q must be a scalar or vector, not %s", name, typeName(t))
		return false
	}
	if b.stage == ir.Compute {
		c.errorf(b.pos(pd), diag.ErrUnknownSemantic, "compute shaders have no outputs; write results to a RW buffer")
		return false
	}
	if b.stage == ir.Amplification || b.stage == ir.Mesh {
		c.errorf(b.pos(pd), diag.ErrMeshParam, "%s shaders return nothing: a mesh shader writes its out vertices, out indices and out primitives parameters, an amplification shader passes its payload to DispatchMesh",
			strings.ToLower(b.stage.String()))
		return false
	}
	g := &ir.Global{Name: c.uniqueGlobalName(name), Space: ir.SpaceOutput, Semantic: sem, Pos: b.pos(pd), Type: t}
	up := strings.ToUpper(sem)
	base, idx, _ := semanticIndex(up)
	switch {
	case b.stage == ir.Pixel && base == "SV_TARGET":
		g.Location = idx
	case strings.HasPrefix(up, "SV_"):
		bs, ok := b.builtin(up, true)
		if !ok {
			c.errorf(b.pos(pd), diag.ErrUnknownSemantic, "%s is not a %s shader output waverig knows", sem, strings.ToLower(b.stage.String()))
			return false
		}
		g.Builtin, g.Type = bs.b, bs.t
	default:
		g.Location = b.outLoc
		if pd != nil {
			if loc, ok := b.vkLocation(pd); ok {
				g.Location = loc
			}
		}
		b.outLoc = g.Location + 1
	}
	if g.Builtin == ir.BuiltinNone {
		if b.usedOut == nil {
			b.usedOut = map[int]bool{}
		}
		if b.usedOut[g.Location] {
			c.errorf(b.pos(pd), diag.ErrUnknownSemantic, "output location %d (%s) is used twice", g.Location, sem)
			return false
		}
		b.usedOut[g.Location] = true
	}
	c.mod.Globals = append(c.mod.Globals, g)
	b.ep.Outputs = append(b.ep.Outputs, g)
	if !ir.Equal(g.Type, t) {
		c.errorf(b.pos(pd), diag.ErrUnknownSemantic, "%s must be %s, not %s", sem, typeName(g.Type), typeName(t))
		return false
	}
	c.emit(&ir.Store{Place: &ir.GlobalRef{G: g}, Value: v})
	return true
}

func outWhat(name string) string {
	if name == "out" {
		return "result"
	}
	return fmt.Sprintf("out parameter %q", name)
}

// stageChecks reports pixel-only operations (ddx/ddy/Sample, discard) reachable
// from non-pixel entry points.
func (c *checker) stageChecks() {
	reported := map[diag.Pos]bool{}
	for _, ep := range c.mod.EntryPoints {
		for _, f := range ir.Reachable(ep.Func) {
			ir.WalkBlock(f.Body, nil, func(e ir.Expr) {
				in, ok := e.(*ir.Intrinsic)
				if !ok || reported[in.Pos] {
					return
				}
				if st := intrinsics.Get(in.Op).Stages; st != 0 && st&ep.Stage.Mask() == 0 {
					reported[in.Pos] = true
					c.errorf(in.Pos, diag.ErrIntrinsicStage, "%s is only valid in %s shaders, but %s is %s entry point",
						intrinsics.Get(in.Op).Name, stageMaskText(st), ep.Name, aStage(ep.Stage))
					return
				}
				if !intrinsics.Get(in.Op).PixelOnly || ep.Stage == ir.Pixel {
					return
				}
				reported[in.Pos] = true
				hint := ""
				if in.Op == intrinsics.TextureSample {
					hint = "; use SampleLevel outside pixel shaders"
				}
				c.errorf(in.Pos, diag.ErrPixelOnly, "%s is only valid in pixel shaders, but %s is a %s entry point%s",
					intrinsics.Get(in.Op).Name, ep.Name, strings.ToLower(ep.Stage.String()), hint)
			})
			for _, d := range c.discards {
				if ep.Stage != ir.Pixel && d.fn == f && !reported[d.pos] {
					reported[d.pos] = true
					c.errorf(d.pos, diag.ErrDiscardStage, "discard is only valid in pixel shaders, but %s is a %s entry point", ep.Name, strings.ToLower(ep.Stage.String()))
				}
			}
		}
	}
}

// aStage is "a compute", "an amplification": the stage with its article.
func aStage(s ir.Stage) string {
	name := strings.ToLower(s.String())
	if strings.ContainsRune("aeiou", rune(name[0])) {
		return "an " + name
	}
	return "a " + name
}

// stageMaskText names the stages of a mask: "amplification", "compute or mesh".
func stageMaskText(m intrinsics.StageMask) string {
	var names []string
	for s := ir.Compute; s <= ir.Mesh; s++ {
		if m&s.Mask() != 0 {
			names = append(names, strings.ToLower(s.String()))
		}
	}
	return strings.Join(names, " or ")
}
