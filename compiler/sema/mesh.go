package sema

import (
	"fmt"
	"strings"

	"waverig/compiler/diag"
	"waverig/compiler/intrinsics"
	"waverig/compiler/ir"
	"waverig/compiler/reflect"
	"waverig/compiler/syntax"
)

// Amplification and mesh shaders (Shader Model 6.5), as DXC checks them.
//
// A mesh entry point's qualified parameters are not values passed in: they are
// the workgroup's shared outputs (`out vertices V v[N]`, `out indices uint3 t[M]`,
// `out primitives P p[M]`), which each thread writes element by element, and the
// payload the amplification stage sent (`in payload P pl`). Copying them in and
// out of the function, as HLSL does for other parameters, would make every
// thread write every element. So funcBody binds such a parameter's name to a
// global (meshParamGlobal), the entry point drops the parameter, and
// splitMeshOutputs turns the array-of-struct outputs into one Output array per
// field (the shape SPIR-V and Metal give per-vertex and per-primitive
// attributes), rewriting every access.

// The Shader Model 6.5 limits DXC enforces (and Vulkan's guaranteed minimums of
// VK_EXT_mesh_shader: maxMeshOutputVertices, maxMeshOutputPrimitives and
// maxTaskPayloadSize; maxMeshWorkGroupInvocations and maxTaskWorkGroupInvocations
// guarantee 128).
const (
	maxMeshThreads   = 128
	maxMeshOutputs   = 256
	maxPayloadBytes  = 16384
	meshQualVertices = "vertices"
	meshQualIndices  = "indices"
	meshQualPrims    = "primitives"
	meshQualPayload  = "payload"
)

// meshParam is one qualified parameter of a function, bound to its global.
type meshParam struct {
	qual string
	g    *ir.Global
	pd   *syntax.VarDecl
}

// meshParamGlobal checks a qualified parameter (direction and type) and returns
// the global its name denotes in the body, or nil after an error.
func (c *checker) meshParamGlobal(fi *funcInfo, i int) *ir.Global {
	pd, p := fi.decl.Params[i], fi.params[i]
	q := pd.MeshQual
	wantDir := ir.Out
	if q == meshQualPayload {
		wantDir = ir.In
	}
	if p.dir != wantDir {
		dir := "out"
		if wantDir == ir.In {
			dir = "in"
		}
		c.errorf(pd.NamePos, diag.ErrMeshParam, "a %s parameter must be declared %s %s", q, dir, q)
		c.meshParamFailed(fi, q, pd)
		return nil
	}
	arr, _ := p.typ.(*ir.Array)
	switch q {
	case meshQualVertices, meshQualPrims:
		if arr == nil || !isStruct(arr.Elem) {
			c.errorf(pd.NamePos, diag.ErrMeshParam, "out %s %s must be a sized array of a struct with semantics, not %s", q, p.name, typeName(p.typ))
			c.meshParamFailed(fi, q, pd)
			return nil
		}
	case meshQualIndices:
		v, ok := elemOf(arr).(ir.Vector)
		if !ok || v.Elem != ir.U32 || v.N != 2 && v.N != 3 {
			c.errorf(pd.NamePos, diag.ErrMeshParam, "out indices %s must be a sized array of uint3 (triangles) or uint2 (lines), not %s", p.name, typeName(p.typ))
			c.meshParamFailed(fi, q, pd)
			return nil
		}
	case meshQualPayload:
		if !isStruct(p.typ) {
			c.errorf(pd.NamePos, diag.ErrMeshParam, "in payload %s must be a struct, not %s", p.name, typeName(p.typ))
			c.meshParamFailed(fi, q, pd)
			return nil
		}
	}
	g := &ir.Global{Name: c.uniqueGlobalName(p.name), Type: p.typ, Space: ir.SpaceOutput, Pos: pd.NamePos}
	if q == meshQualPayload {
		g.Space = ir.SpaceTaskPayload
	}
	if c.meshParams == nil {
		c.meshParams = map[*funcInfo][]meshParam{}
	}
	c.meshParams[fi] = append(c.meshParams[fi], meshParam{qual: q, g: g, pd: pd})
	return g
}

// meshParamFailed records a qualified parameter that was reported, so the entry
// point's checks do not report it again as missing.
func (c *checker) meshParamFailed(fi *funcInfo, q string, pd *syntax.VarDecl) {
	if c.meshParams == nil {
		c.meshParams = map[*funcInfo][]meshParam{}
	}
	c.meshParams[fi] = append(c.meshParams[fi], meshParam{qual: q, pd: pd})
}

func isStruct(t ir.Type) bool { _, ok := t.(*ir.Struct); return ok }

func elemOf(a *ir.Array) ir.Type {
	if a == nil {
		return nil
	}
	return a.Elem
}

// threadGroupAttrs reads [numthreads] of a compute, amplification or mesh entry
// point into ep.NumThreads; false after an error.
func (c *checker) threadGroupAttrs(fi *funcInfo, ep *ir.EntryPoint) bool {
	nt := findAttr(fi.attrs, "", "numthreads")
	stage := strings.ToLower(ep.Stage.String())
	if nt == nil {
		c.errorf(fi.decl.NamePos, diag.ErrMissingNumThreads, "%s entry point %s needs [numthreads(x, y, z)]", stage, fi.decl.Name)
		return false
	}
	if len(nt.Args) != 3 {
		c.errorf(nt.Pos, diag.ErrBadNumThreads, "numthreads takes three integers, got %d", len(nt.Args))
		return false
	}
	for i, a := range nt.Args {
		v, ok := c.constInt(a)
		if !ok {
			return false
		}
		if v < 1 {
			c.errorf(a.P(), diag.ErrBadNumThreads, "numthreads dimension %d must be 1 to %d, not %d", i+1, maxNumThreads[i], v)
			return false
		}
		if v > int64(maxNumThreads[i]) {
			c.errorf(a.P(), diag.ErrNumThreadsLimit, "numthreads %c is %d; HLSL allows at most %d", "xyz"[i], v, maxNumThreads[i])
			return false
		}
		ep.NumThreads[i] = int(v)
	}
	n := ep.NumThreads[0] * ep.NumThreads[1] * ep.NumThreads[2]
	if ep.Stage != ir.Compute && n > maxMeshThreads {
		c.errorf(nt.Pos, diag.ErrMeshThreadsLimit, "numthreads(%d, %d, %d) is %d threads per group; %s shaders allow at most %d (Shader Model 6.5)",
			ep.NumThreads[0], ep.NumThreads[1], ep.NumThreads[2], n, stage, maxMeshThreads)
		return false
	}
	if n > maxThreadsPerGroup {
		c.errorf(nt.Pos, diag.ErrNumThreadsLimit, "numthreads(%d, %d, %d) is %d threads per group; HLSL allows at most %d",
			ep.NumThreads[0], ep.NumThreads[1], ep.NumThreads[2], n, maxThreadsPerGroup)
		return false
	}
	return true
}

// meshEntry checks a mesh entry point's [outputtopology] and qualified
// parameters, declares its outputs and payload and splits the struct outputs
// into per-field arrays. False after an error.
func (c *checker) meshEntry(fi *funcInfo, ep *ir.EntryPoint) bool {
	mi := ep.Mesh
	if a := findAttr(fi.attrs, "", "outputtopology"); a == nil {
		c.errorf(fi.decl.NamePos, diag.ErrOutputTopology, "mesh entry point %s needs [outputtopology(\"triangle\")] or [outputtopology(\"line\")]", fi.decl.Name)
		return false
	} else {
		name := ""
		if len(a.Args) == 1 {
			if lit, ok := a.Args[0].(*syntax.Literal); ok {
				name = strings.Trim(lit.Text, `"`)
			}
		}
		switch name {
		case "triangle":
			mi.Topology = ir.TopologyTriangle
		case "line":
			mi.Topology = ir.TopologyLine
		default:
			c.errorf(a.Pos, diag.ErrOutputTopology, "outputtopology takes \"triangle\" or \"line\", not %s", attrArgText(a, name))
			return false
		}
	}
	byQual := map[string]meshParam{}
	for _, mp := range c.meshParams[fi] {
		if mp.g == nil {
			return false // reported by meshParamGlobal
		}
		if prev, dup := byQual[mp.qual]; dup {
			c.log.Add(diag.Msg{Severity: diag.Error, Code: diag.ErrMeshOutputsParam, Pos: mp.pd.NamePos,
				Text:  fmt.Sprintf("mesh entry point %s declares a second %s parameter", fi.decl.Name, mp.qual),
				Notes: []diag.Note{{Pos: prev.pd.NamePos, Text: "the first one"}}})
			return false
		}
		byQual[mp.qual] = mp
	}
	verts, okV := byQual[meshQualVertices]
	idx, okI := byQual[meshQualIndices]
	if !okV || !okI {
		missing := "out vertices"
		if okV {
			missing = "out indices"
		}
		c.errorf(fi.decl.NamePos, diag.ErrMeshOutputsParam, "mesh entry point %s has no %s parameter; DXC requires both out vertices and out indices", fi.decl.Name, missing)
		return false
	}
	vArr, iArr := verts.g.Type.(*ir.Array), idx.g.Type.(*ir.Array)
	mi.MaxVertices, mi.MaxPrimitives = vArr.Len, iArr.Len
	for _, lim := range []struct {
		what string
		n    int
		pos  diag.Pos
	}{{"vertices", vArr.Len, verts.pd.NamePos}, {"primitives", iArr.Len, idx.pd.NamePos}} {
		if lim.n > maxMeshOutputs {
			c.errorf(lim.pos, diag.ErrMeshOutputsLimit, "mesh entry point %s declares %d %s; at most %d are allowed", fi.decl.Name, lim.n, lim.what, maxMeshOutputs)
			return false
		}
	}
	want := 3
	idx.g.Builtin = ir.BuiltinPrimitiveTriangleIndices
	if mi.Topology == ir.TopologyLine {
		want, idx.g.Builtin = 2, ir.BuiltinPrimitiveLineIndices
	}
	if n := iArr.Elem.(ir.Vector).N; n != want {
		c.errorf(idx.pd.NamePos, diag.ErrMeshParam, "outputtopology(%q) needs out indices uint%d, not uint%d", mi.Topology, want, n)
		return false
	}
	prims, okP := byQual[meshQualPrims]
	if okP && prims.g.Type.(*ir.Array).Len != iArr.Len {
		c.errorf(prims.pd.NamePos, diag.ErrMeshParam, "out primitives has %d elements but out indices %d; they describe the same primitives", prims.g.Type.(*ir.Array).Len, iArr.Len)
		return false
	}
	if pl, ok := byQual[meshQualPayload]; ok {
		if !c.payloadSize(pl.g, ep) {
			return false
		}
		c.mod.Globals = append(c.mod.Globals, pl.g)
		mi.Payload = pl.g
	}
	split := &meshSplit{c: c, fn: fi.fn, fields: map[*ir.Global][]*ir.Global{}, asBool: map[*ir.Global]bool{}, names: map[*ir.Global]string{}}
	loc := 0
	for _, mp := range []meshParam{verts, prims} {
		if mp.g == nil {
			continue
		}
		fields := c.meshFieldGlobals(mp, ep, &loc, split.asBool)
		if fields == nil {
			return false
		}
		split.fields[mp.g] = fields
		split.names[mp.g] = mp.pd.Name
	}
	c.mod.Globals = append(c.mod.Globals, idx.g)
	ep.Outputs = append(ep.Outputs, idx.g)
	fi.fn.Body = split.block(fi.fn.Body)
	return !split.failed
}

func attrArgText(a *syntax.Attribute, name string) string {
	if name != "" {
		return fmt.Sprintf("%q", name)
	}
	return fmt.Sprintf("%d arguments", len(a.Args))
}

// meshFieldGlobals declares one Output array per field of a vertices or
// primitives parameter's struct: SV_Position, SV_PrimitiveID and SV_CullPrimitive
// become built-ins, other semantics take the next location (shared by the
// per-vertex and per-primitive attributes, which a pixel shader reads from one
// location space) unless [[vk::location]] gives one.
func (c *checker) meshFieldGlobals(mp meshParam, ep *ir.EntryPoint, loc *int, asBool map[*ir.Global]bool) []*ir.Global {
	arr := mp.g.Type.(*ir.Array)
	st := arr.Elem.(*ir.Struct)
	perPrim := mp.qual == meshQualPrims
	out := make([]*ir.Global, len(st.Fields))
	for i, f := range st.Fields {
		lt := c.fieldLogical(st, i)
		if shapeOf(lt) < 0 || shapeOf(lt) == 2 {
			c.errorf(mp.pd.NamePos, diag.ErrMissingSemantic, "field %s of out %s must be a scalar or vector, not %s", f.Name, mp.qual, typeName(lt))
			return nil
		}
		if f.Semantic == "" {
			c.errorf(mp.pd.NamePos, diag.ErrMissingSemantic, "field %s of out %s %s needs a semantic (SV_Position, TEXCOORD0 …)", f.Name, mp.qual, mp.pd.Name)
			return nil
		}
		g := &ir.Global{Name: c.uniqueGlobalName(mp.pd.Name + "_" + f.Name), Space: ir.SpaceOutput, Semantic: f.Semantic,
			Pos: mp.pd.NamePos, PerPrimitive: perPrim}
		up := strings.ToUpper(f.Semantic)
		elem := lt
		switch {
		case up == "SV_POSITION" && !perPrim:
			g.Builtin, elem = ir.BuiltinPosition, ir.Vector{Elem: ir.F32, N: 4}
		case up == "SV_PRIMITIVEID" && perPrim:
			g.Builtin, elem = ir.BuiltinPrimitiveID, ir.U32
		case up == "SV_CULLPRIMITIVE" && perPrim:
			g.Builtin, elem = ir.BuiltinCullPrimitive, ir.BoolT
		case strings.HasPrefix(up, "SV_"):
			c.errorf(mp.pd.NamePos, diag.ErrUnknownSemantic, "%s is not a mesh shader %s output waverig knows (SV_Position per vertex; SV_PrimitiveID, SV_CullPrimitive per primitive)", f.Semantic, strings.TrimSuffix(mp.qual, "s"))
			return nil
		default:
			g.Location = *loc
			*loc++
		}
		if !sameLogical(elem, lt) {
			c.errorf(mp.pd.NamePos, diag.ErrUnknownSemantic, "%s must be %s, not %s (field %s)", f.Semantic, typeName(elem), typeName(lt), f.Name)
			return nil
		}
		if !ir.Equal(elem, f.Type) {
			asBool[g] = true // a bool field is u32 in the IR struct; the built-in is bool
		}
		g.Type = &ir.Array{Elem: elem, Len: arr.Len}
		c.mod.Globals = append(c.mod.Globals, g)
		ep.Outputs = append(ep.Outputs, g)
		out[i] = g
	}
	return out
}

// payloadSize holds a payload struct to the 16 KB limit, counted as the
// reflection's payloadBytes (reflect.GroupSharedSize: natural sizes, no padding).
func (c *checker) payloadSize(g *ir.Global, ep *ir.EntryPoint) bool {
	if n := reflect.GroupSharedSize(g.Type); n > maxPayloadBytes {
		c.log.Add(diag.Msg{Severity: diag.Error, Code: diag.ErrPayloadSize, Pos: g.Pos,
			Text:  fmt.Sprintf("payload %s takes %s; at most %d bytes may pass from the amplification to the mesh stage", g.Name, byteCount(n), maxPayloadBytes),
			Notes: []diag.Note{{Pos: ep.Pos, Text: fmt.Sprintf("entry point %s", ep.Name)}}})
		return false
	}
	return true
}

// amplificationPayloads finds each amplification entry point's DispatchMesh
// calls: it needs one, and all of them must pass the same groupshared payload,
// which moves into the task-payload space. A mesh-parameter qualifier on a
// function that is not a mesh entry point is reported here too.
func (c *checker) amplificationPayloads() {
	for _, ep := range c.mod.EntryPoints {
		if ep.Stage != ir.Amplification {
			continue
		}
		var calls []*ir.Intrinsic
		for _, f := range ir.Reachable(ep.Func) {
			ir.WalkBlock(f.Body, nil, func(e ir.Expr) {
				if in, ok := e.(*ir.Intrinsic); ok && in.Op == intrinsics.DispatchMesh {
					calls = append(calls, in)
				}
			})
		}
		if len(calls) == 0 {
			if c.log.HasErrors() {
				continue // a DispatchMesh call may have been dropped with its error
			}
			c.errorf(ep.Pos, diag.ErrDispatchMeshCount, "amplification entry point %s never calls DispatchMesh(x, y, z, payload); DXC requires exactly one call", ep.Name)
			continue
		}
		g := calls[0].Args[3].(*ir.GlobalRef).G
		for _, call := range calls[1:] {
			if h := call.Args[3].(*ir.GlobalRef).G; h != g {
				c.errorf(call.Pos, diag.ErrMeshParam, "DispatchMesh passes payload %s, but an earlier call in %s passes %s; an amplification shader has one payload", h.Name, ep.Name, g.Name)
			}
		}
		if !c.payloadSize(g, ep) {
			continue
		}
		g.Space = ir.SpaceTaskPayload
		ep.Mesh.Payload = g
	}
	// A payload is task-payload memory, which only the two mesh stages have.
	for _, ep := range c.mod.EntryPoints {
		if ep.Stage == ir.Amplification || ep.Stage == ir.Mesh {
			continue
		}
		for _, g := range reflect.UsedGlobals(ep) {
			if g.Space == ir.SpaceTaskPayload {
				c.errorf(g.Pos, diag.ErrMeshParam, "groupshared %s is an amplification shader's DispatchMesh payload and cannot also be used by %s entry point %s",
					g.Name, strings.ToLower(ep.Stage.String()), ep.Name)
			}
		}
	}
	for _, fi := range c.funcs {
		// A [shader] function the compile did not select (-entry names another)
		// is still an entry point of the file: a source with an amplification
		// and a mesh entry compiles each of them, as MeshletCull.hlsl does.
		unselected := c.opts.Entry != "" && fi.decl.Name != c.opts.Entry && findAttr(fi.attrs, "", "shader") != nil
		if fi.meshEntry || unselected {
			continue
		}
		for _, mp := range c.meshParams[fi] {
			if mp.g == nil {
				continue
			}
			c.errorf(mp.pd.NamePos, diag.ErrMeshParam, "%s %s: the %s qualifier is only valid on the parameters of a mesh entry point", mp.pd.ParamDir, mp.pd.Name, mp.qual)
		}
	}
}

// payloadArg checks DispatchMesh's payload argument: a whole groupshared struct.
func (c *checker) payloadArg(info *intrinsics.Info, o operand, arg syntax.Expr) ir.Expr {
	if r, ok := o.e.(*ir.GlobalRef); ok && o.kind == opPlace && r.G.Space == ir.SpaceWorkgroup && isStruct(r.G.Type) {
		return r
	}
	c.errorf(arg.P(), diag.ErrMeshParam, "%s's payload must be a groupshared struct variable, not %s", info.Name, typeName(o.t))
	return nil
}

// meshSplit rewrites a mesh entry function's accesses to its array-of-struct
// outputs (fields) into accesses to the per-field arrays: v[i].f → v_f[i], and a
// whole element v[i] = s (or a read of one) into one store (load) per field.
type meshSplit struct {
	c      *checker
	fn     *ir.Function
	fields map[*ir.Global][]*ir.Global
	asBool map[*ir.Global]bool
	names  map[*ir.Global]string // the parameter names, for messages
	failed bool
}

func (m *meshSplit) block(b ir.Block) ir.Block {
	if b == nil {
		return nil
	}
	out := make(ir.Block, 0, len(b))
	for _, s := range b {
		out = append(out, m.stmt(s)...)
	}
	return out
}

func (m *meshSplit) stmt(s ir.Stmt) []ir.Stmt {
	switch s := s.(type) {
	case *ir.Store:
		if g := ir.RootGlobal(s.Place); g != nil && m.fields[g] != nil {
			return m.store(g, s)
		}
		return []ir.Stmt{&ir.Store{Place: m.expr(s.Place), Value: m.expr(s.Value)}}
	case *ir.ExprStmt:
		if s.X != nil {
			return []ir.Stmt{&ir.ExprStmt{X: m.expr(s.X)}}
		}
	case *ir.If:
		return []ir.Stmt{&ir.If{Cond: m.expr(s.Cond), Then: m.block(s.Then), Else: m.block(s.Else)}}
	case *ir.Loop:
		l := &ir.Loop{Body: m.block(s.Body), Continuing: m.block(s.Continuing), Unroll: s.Unroll}
		if s.BreakIf != nil {
			l.BreakIf = m.expr(s.BreakIf)
		}
		return []ir.Stmt{l}
	case *ir.Switch:
		sw := &ir.Switch{Selector: m.expr(s.Selector)}
		for _, cs := range s.Cases {
			sw.Cases = append(sw.Cases, &ir.Case{Values: cs.Values, Default: cs.Default, Body: m.block(cs.Body), FallThrough: cs.FallThrough})
		}
		return []ir.Stmt{sw}
	case *ir.Return:
		if s.Value != nil {
			return []ir.Stmt{&ir.Return{Value: m.expr(s.Value)}}
		}
	}
	return []ir.Stmt{s}
}

// element splits a place rooted at a split output into its element index and
// what follows it: v[i] (field -1) or v[i].f.rest (rest rebuilt on a new base).
func (m *meshSplit) element(place ir.Expr) (idx ir.Expr, field int, rebuild func(base ir.Expr) ir.Expr, ok bool) {
	var path []ir.Expr // from the place down to v[i]
	for e := place; ; {
		path = append(path, e)
		switch x := e.(type) {
		case *ir.Index:
			if _, root := x.Base.(*ir.GlobalRef); root {
				goto found
			}
			e = x.Base
		case *ir.Member:
			e = x.Base
		default:
			return nil, 0, nil, false // the whole array
		}
	}
found:
	elem := path[len(path)-1].(*ir.Index)
	if len(path) == 1 {
		return elem.Idx, -1, nil, true
	}
	mem := path[len(path)-2].(*ir.Member)
	rest := path[:len(path)-2]
	rebuild = func(base ir.Expr) ir.Expr {
		for i := len(rest) - 1; i >= 0; i-- {
			switch x := rest[i].(type) {
			case *ir.Index:
				base = &ir.Index{Base: base, Idx: m.expr(x.Idx), T: x.T}
			case *ir.Member:
				base = &ir.Member{Base: base, Field: x.Field}
			}
		}
		return base
	}
	return elem.Idx, mem.Field, rebuild, true
}

// stableIndex evaluates an element index once when it is not cheap to repeat.
func (m *meshSplit) stableIndex(idx ir.Expr, pre *[]ir.Stmt) ir.Expr {
	idx = m.expr(idx)
	if isCheap(idx) {
		return idx
	}
	t := m.fn.NewLocal("mesh_index", idx.Type())
	*pre = append(*pre, &ir.Store{Place: &ir.LocalRef{L: t}, Value: idx})
	return &ir.Load{Place: &ir.LocalRef{L: t}}
}

func (m *meshSplit) fieldPlace(g *ir.Global, field int, idx ir.Expr) (*ir.Global, ir.Expr) {
	fg := m.fields[g][field]
	return fg, &ir.Index{Base: &ir.GlobalRef{G: fg}, Idx: idx, T: fg.Type.(*ir.Array).Elem}
}

func (m *meshSplit) wholeArray(g *ir.Global) {
	if !m.failed {
		n := m.names[g]
		m.c.errorf(g.Pos, diag.ErrMeshParam, "out %s is written or read as a whole; access it one element at a time (%s[i] or %s[i].field)", n, n, n)
	}
	m.failed = true
}

func (m *meshSplit) store(g *ir.Global, s *ir.Store) []ir.Stmt {
	idx, field, rebuild, ok := m.element(s.Place)
	if !ok {
		m.wholeArray(g)
		return nil
	}
	var out []ir.Stmt
	idx = m.stableIndex(idx, &out)
	v := m.expr(s.Value)
	if field >= 0 {
		fg, p := m.fieldPlace(g, field, idx)
		if m.asBool[fg] {
			v = &ir.Convert{X: v, T: ir.BoolT}
		}
		return append(out, &ir.Store{Place: rebuild(p), Value: v})
	}
	if !isCheap(v) {
		t := m.fn.NewLocal("mesh_element", v.Type())
		out = append(out, &ir.Store{Place: &ir.LocalRef{L: t}, Value: v})
		v = &ir.Load{Place: &ir.LocalRef{L: t}}
	}
	for f := range m.fields[g] {
		fg, p := m.fieldPlace(g, f, idx)
		var fv ir.Expr = &ir.Member{Base: v, Field: f}
		if m.asBool[fg] {
			fv = &ir.Convert{X: fv, T: ir.BoolT}
		}
		out = append(out, &ir.Store{Place: p, Value: fv})
	}
	return out
}

// expr rewrites loads of split outputs; any other use of one is an error.
func (m *meshSplit) expr(e ir.Expr) ir.Expr {
	switch x := e.(type) {
	case *ir.Load:
		g := ir.RootGlobal(x.Place)
		if g == nil || m.fields[g] == nil {
			return &ir.Load{Place: m.expr(x.Place)}
		}
		idx, field, rebuild, ok := m.element(x.Place)
		if !ok {
			m.wholeArray(g)
			return x
		}
		idx = m.expr(idx)
		load := func(f int) ir.Expr {
			fg, p := m.fieldPlace(g, f, idx)
			var v ir.Expr = &ir.Load{Place: p}
			if m.asBool[fg] {
				v = &ir.Convert{X: v, T: ir.U32}
			}
			return v
		}
		if field >= 0 {
			if rebuild != nil && !m.asBool[m.fields[g][field]] {
				_, p := m.fieldPlace(g, field, idx)
				return &ir.Load{Place: rebuild(p)}
			}
			return load(field)
		}
		st := g.Type.(*ir.Array).Elem.(*ir.Struct)
		args := make([]ir.Expr, len(st.Fields))
		for f := range args {
			args[f] = load(f)
		}
		return &ir.Construct{T: st, Args: args}
	case *ir.GlobalRef:
		if m.fields[x.G] != nil {
			m.wholeArray(x.G)
		}
		return x
	case *ir.Index:
		return &ir.Index{Base: m.expr(x.Base), Idx: m.expr(x.Idx), T: x.T}
	case *ir.Member:
		return &ir.Member{Base: m.expr(x.Base), Field: x.Field}
	case *ir.Swizzle:
		return &ir.Swizzle{Base: m.expr(x.Base), Comps: x.Comps}
	case *ir.Unary:
		return &ir.Unary{Op: x.Op, X: m.expr(x.X)}
	case *ir.Binary:
		return &ir.Binary{Op: x.Op, X: m.expr(x.X), Y: m.expr(x.Y), T: x.T}
	case *ir.Select:
		return &ir.Select{Cond: m.expr(x.Cond), True: m.expr(x.True), False: m.expr(x.False)}
	case *ir.Convert:
		return &ir.Convert{X: m.expr(x.X), T: x.T}
	case *ir.Bitcast:
		return &ir.Bitcast{X: m.expr(x.X), T: x.T}
	case *ir.Construct:
		return &ir.Construct{T: x.T, Args: m.exprs(x.Args)}
	case *ir.Call:
		return &ir.Call{Func: x.Func, Args: m.exprs(x.Args), Pos: x.Pos}
	case *ir.Intrinsic:
		return &ir.Intrinsic{Op: x.Op, Args: m.exprs(x.Args), T: x.T, Pos: x.Pos}
	}
	return e
}

func (m *meshSplit) exprs(es []ir.Expr) []ir.Expr {
	out := make([]ir.Expr, len(es))
	for i, e := range es {
		out[i] = m.expr(e)
	}
	return out
}
