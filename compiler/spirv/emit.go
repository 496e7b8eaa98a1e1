package spirv

import (
	"fmt"
	"strings"

	"waverig/compiler/diag"
	"waverig/compiler/intrinsics"
	"waverig/compiler/ir"
)

// gvar is a declared global: a variable, or (for specialization constants) a
// constant id with no storage.
type gvar struct {
	g       *ir.Global
	id      uint32 // OpVariable id (0 for spec constants)
	sc      uint32 // storage class
	wrapped bool   // the variable is a wrapper struct { T data; }: access chains start with member 0
	pointee uint32 // the variable's pointee type id
	value   uint32 // constant value of Const globals / spec constant id (0 = none)
}

// versionFor maps the Vulkan target to the SPIR-V version word.
func versionFor(vk string) (uint32, bool) {
	switch vk {
	case "1.1":
		return 0x00010300, true
	case "", "1.2":
		return 0x00010500, true
	case "1.3":
		return 0x00010600, true
	}
	return 0, false
}

// EmitEntry emits one module containing one entry point and only the code and
// globals reachable from it.
func EmitEntry(m *ir.Module, ep *ir.EntryPoint, opts Options) (mod *Module, err error) {
	defer func() {
		// The emitter checks the IR shapes it relies on; a panic here is a bug,
		// reported as a coded internal error instead of crashing the compiler.
		if r := recover(); r != nil {
			pos := diag.Pos{}
			if ep != nil {
				pos = ep.Pos
			}
			mod = nil
			err = &diag.Errors{Msgs: []diag.Msg{{Severity: diag.Error, Code: diag.ErrSpvInternal, Pos: pos,
				Text: fmt.Sprintf("SPIR-V back end failed: %v", r)}}}
		}
	}()
	version, ok := versionFor(opts.Vulkan)
	if !ok {
		return nil, &diag.Errors{Msgs: []diag.Msg{{Severity: diag.Error, Code: diag.ErrSpvTarget,
			Text: fmt.Sprintf("unsupported Vulkan target %q: use 1.1, 1.2 or 1.3", opts.Vulkan)}}}
	}
	if m == nil || ep == nil || ep.Func == nil {
		return nil, &diag.Errors{Msgs: []diag.Msg{{Severity: diag.Error, Code: diag.ErrSpvShape, Text: "no entry point to emit"}}}
	}
	if (ep.Stage == ir.Amplification || ep.Stage == ir.Mesh) && version < spirv14 {
		return nil, &diag.Errors{Msgs: []diag.Msg{{Severity: diag.Error, Code: diag.ErrSpvMeshTarget, Pos: ep.Pos,
			Text: fmt.Sprintf("%s shader %s needs SPV_EXT_mesh_shader, which needs SPIR-V 1.4; Vulkan %s is SPIR-V 1.3: target Vulkan 1.2 or 1.3",
				strings.ToLower(ep.Stage.String()), ep.Name, opts.Vulkan)}}}
	}
	b := &builder{version: version, opts: opts, stage: ep.Stage}
	// One allocation for the sections of a typical kernel; a section that
	// outgrows its share is reallocated on its own by append.
	slab := make([]uint32, 1024)
	b.names, b.decos, b.globals, b.funcs = slab[0:0:128], slab[128:128:256], slab[256:256:512], slab[512:512:1024]
	b.types, b.consts = b.typesBuf[:0], b.constsBuf[:0]
	b.needCap(capShader)
	if ep.Stage == ir.Amplification || ep.Stage == ir.Mesh {
		// The execution model itself needs the capability and extension.
		b.needModeCap(intrinsics.CapMeshShadingEXT)
		b.needExt(extMeshShader)
	}

	fns := ir.Reachable(ep.Func)
	b.declareGlobals(m, ep, fns)
	b.fnIDs = make([]fnID, len(fns))
	for i, f := range fns {
		b.fnIDs[i] = fnID{f, b.id()}
	}
	for _, f := range fns {
		b.emitFunction(f, f == ep.Func)
	}
	if len(b.errs) > 0 {
		return nil, &diag.Errors{Msgs: b.errs}
	}
	entry, modes := b.entryPoint(ep)
	return b.assemble(entry, modes), nil
}

type fnID struct {
	f  *ir.Function
	id uint32
}

func (b *builder) funcID(f *ir.Function) uint32 {
	for _, e := range b.fnIDs {
		if e.f == f {
			return e.id
		}
	}
	return 0
}

// declareGlobals declares the globals the entry point uses, in module order.
func (b *builder) declareGlobals(m *ir.Module, ep *ir.EntryPoint, fns []*ir.Function) {
	var used []*ir.Global
	add := func(g *ir.Global) {
		for _, u := range used {
			if u == g {
				return
			}
		}
		used = append(used, g)
	}
	for _, g := range ep.Inputs {
		add(g)
	}
	for _, g := range ep.Outputs {
		add(g)
	}
	for _, f := range fns {
		ir.WalkBlock(f.Body, nil, func(e ir.Expr) {
			if r, ok := e.(*ir.GlobalRef); ok && r.G != nil {
				add(r.G)
			}
		})
	}
	// Non-constant initializers of private globals run in the entry point's
	// prologue; the globals they read are used too.
	for i := 0; i < len(used); i++ {
		if g := used[i]; g.Init != nil && g.Space == ir.SpacePrivate {
			ir.WalkExpr(g.Init, func(e ir.Expr) {
				if r, ok := e.(*ir.GlobalRef); ok && r.G != nil {
					add(r.G)
				}
			})
		}
	}
	b.gvars = make([]gvar, 0, len(used))
	for _, g := range m.Globals {
		for _, u := range used {
			if u == g {
				b.declareGlobal(g)
				break
			}
		}
	}
	for _, u := range used { // referenced but missing from m.Globals: still declare them
		if b.global(u) == nil {
			b.declareGlobal(u)
		}
	}
}

func (b *builder) global(g *ir.Global) *gvar {
	for i := range b.gvars {
		if b.gvars[i].g == g {
			return &b.gvars[i]
		}
	}
	return nil
}

var builtinWords = [...]uint32{
	ir.BuiltinGlobalInvocationID:   28,
	ir.BuiltinLocalInvocationID:    27,
	ir.BuiltinWorkgroupID:          26,
	ir.BuiltinLocalInvocationIndex: 29,
	ir.BuiltinFrontFacing:          17,
	ir.BuiltinSampleIndex:          18,
	ir.BuiltinVertexIndex:          42,
	ir.BuiltinInstanceIndex:        43,
	// Mesh-shader outputs (SPV_EXT_mesh_shader; PrimitiveId is core).
	ir.BuiltinPrimitiveTriangleIndices: 5296,
	ir.BuiltinPrimitiveLineIndices:     5295,
	ir.BuiltinPrimitiveID:              7,
	ir.BuiltinCullPrimitive:            5299,
}

func (b *builder) declareGlobal(g *ir.Global) {
	b.pos = g.Pos
	v := gvar{g: g}
	if g.Spec {
		v.value = b.specConstant(g)
		b.gvars = append(b.gvars, v)
		return
	}
	var pointee uint32
	switch g.Space {
	case ir.SpaceUniform, ir.SpaceStorage, ir.SpaceStorageRead, ir.SpacePushConstant:
		pointee, v.wrapped = b.blockStruct(g.Type, g.Name)
		v.sc = scStorageBuffer
		switch g.Space {
		case ir.SpaceUniform:
			v.sc = scUniform
		case ir.SpacePushConstant:
			v.sc = scPushConstant
		}
		if contains16(g.Type) {
			switch v.sc {
			case scStorageBuffer:
				b.needCap(capStorageBuffer16)
			case scUniform:
				b.needCap(capUniformStorage16)
			default:
				b.needCap(capPushConstant16)
			}
		}
	default:
		pointee = b.typeID(g.Type)
		switch g.Space {
		case ir.SpaceWorkgroup:
			v.sc = scWorkgroup
		case ir.SpaceTaskPayload:
			v.sc = scTaskPayload
		case ir.SpaceHandle:
			v.sc = scUniformConstant
		case ir.SpaceInput:
			v.sc = scInput
		case ir.SpaceOutput:
			v.sc = scOutput
		default:
			v.sc = scPrivate
		}
		if (v.sc == scInput || v.sc == scOutput) && contains16(g.Type) {
			b.needCap(capInputOutput16)
		}
	}
	v.id = b.id()
	v.pointee = pointee
	ptr := b.pointerType(v.sc, pointee)
	var init uint32
	if g.Init != nil && v.sc == scPrivate {
		init = b.constExpr(g.Init)
		if g.Const {
			v.value = init
		}
	}
	if init != 0 {
		inst(&b.globals, opVariable, ptr, v.id, v.sc, init)
	} else {
		inst(&b.globals, opVariable, ptr, v.id, v.sc)
	}
	instStr(&b.names, opName, []uint32{v.id}, g.Name)
	switch v.sc {
	case scStorageBuffer, scUniform, scUniformConstant:
		if g.Binding != nil {
			inst(&b.decos, opDecorate, v.id, decDescriptorSet, uint32(g.Binding.Set))
			inst(&b.decos, opDecorate, v.id, decBinding, uint32(g.Binding.Binding))
		}
		if g.Space == ir.SpaceStorageRead {
			inst(&b.decos, opDecorate, v.id, decNonWritable)
		}
	case scInput, scOutput:
		b.decorateIO(g, v.id, v.sc)
	}
	b.gvars = append(b.gvars, v)
}

func (b *builder) decorateIO(g *ir.Global, id, sc uint32) {
	if g.PerPrimitive {
		// Every per-primitive output, built-ins included, as Vulkan requires of a
		// mesh shader's PrimitiveId and CullPrimitiveEXT.
		inst(&b.decos, opDecorate, id, decPerPrimitive)
	}
	if g.Builtin == ir.BuiltinNone {
		inst(&b.decos, opDecorate, id, decLocation, uint32(g.Location))
		s, _ := ir.ScalarOf(g.Type)
		if sc == scInput && b.stage == ir.Pixel && (g.Flat || s.Kind == ir.Sint || s.Kind == ir.Uint || s.Bits == 64) {
			inst(&b.decos, opDecorate, id, decFlat)
		}
		return
	}
	var w uint32
	switch {
	case g.Builtin == ir.BuiltinPosition && sc == scInput:
		w = 15 // FragCoord
	case g.Builtin == ir.BuiltinPosition:
		w = 0 // Position
	case int(g.Builtin) < len(builtinWords):
		w = builtinWords[g.Builtin]
	}
	if g.Builtin == ir.BuiltinSampleIndex {
		b.needCap(capSampleRateShading)
	}
	inst(&b.decos, opDecorate, id, decBuiltIn, w)
	if s, _ := ir.ScalarOf(g.Type); sc == scInput && b.stage == ir.Pixel && (s.Kind == ir.Sint || s.Kind == ir.Uint) {
		inst(&b.decos, opDecorate, id, decFlat) // integer fragment inputs are Flat, builtins included (SampleId)
	}
}

// builtinVar returns an Input variable of a SPIR-V BuiltIn that has no IR global
// (SubgroupSize, SubgroupLocalInvocationId for WaveGetLaneCount/WaveGetLaneIndex).
func (b *builder) builtinVar(builtin uint16, t ir.Scalar) uint32 {
	for _, v := range b.extraIO {
		if v.builtin == builtin {
			return v.id
		}
	}
	id := b.id()
	inst(&b.globals, opVariable, b.pointerType(scInput, b.scalarType(t)), id, scInput)
	name := "SubgroupLocalInvocationId"
	switch builtin {
	case builtinSubgroupSize:
		name = "SubgroupSize"
	case builtinHelperInvocation:
		name = "HelperInvocation"
	}
	instStr(&b.names, opName, []uint32{id}, name)
	inst(&b.decos, opDecorate, id, decBuiltIn, uint32(builtin))
	if b.stage == ir.Pixel && t.Kind != ir.Bool {
		// Vulkan wants integer fragment inputs Flat; builtins included (as glslang does).
		inst(&b.decos, opDecorate, id, decFlat)
	}
	if builtin == builtinHelperInvocation && b.version >= 0x00010600 {
		// SPIR-V 1.6: HelperInvocation must be Volatile (a demoted lane changes it).
		inst(&b.decos, opDecorate, id, decVolatile)
	}
	b.extraIO = append(b.extraIO, extraVar{builtin, id})
	return id
}

type extraVar struct {
	builtin uint16
	id      uint32
}

// specConstant declares a [[vk::constant_id]] scalar with its default value.
func (b *builder) specConstant(g *ir.Global) uint32 {
	s, ok := g.Type.(ir.Scalar)
	c, _ := g.Init.(*ir.Const)
	if !ok || c == nil {
		if !ok {
			b.errorf(g.Pos, diag.ErrSpvSpecConst, "specialization constant %s has type %v; it must be a bool, integer or float scalar", g.Name, g.Type)
		} else {
			b.errorf(g.Pos, diag.ErrSpvSpecConst, "specialization constant %s needs a literal default value", g.Name)
		}
		return b.constant(ir.U32, 0)
	}
	t := b.scalarType(s)
	id := b.id()
	switch {
	case s.Kind == ir.Bool && c.Bits != 0:
		inst(&b.globals, opSpecConstantTrue, t, id)
	case s.Kind == ir.Bool:
		inst(&b.globals, opSpecConstantFalse, t, id)
	case s.Bits == 64:
		inst(&b.globals, opSpecConstant, t, id, uint32(c.Bits), uint32(c.Bits>>32))
	default:
		inst(&b.globals, opSpecConstant, t, id, uint32(c.Bits))
	}
	instStr(&b.names, opName, []uint32{id}, g.Name)
	inst(&b.decos, opDecorate, id, decSpecID, uint32(g.SpecID))
	return id
}

// constExpr lowers a constant expression (constants and constructors of
// constants) to a constant id; 0 if it is not constant.
func (b *builder) constExpr(e ir.Expr) uint32 {
	switch e := e.(type) {
	case *ir.Const:
		return b.constant(e.T, e.Bits)
	case *ir.Construct:
		parts := make([]uint32, 0, len(e.Args))
		if v, ok := e.T.(ir.Vector); ok {
			// Vector constructors may mix scalars and vectors; flatten to components.
			for _, a := range e.Args {
				switch a := a.(type) {
				case *ir.Const:
					parts = append(parts, b.constant(v.Elem, convertConstBits(a, v.Elem)))
				case *ir.Construct:
					for _, x := range a.Args {
						c, ok := x.(*ir.Const)
						if !ok {
							return 0
						}
						parts = append(parts, b.constant(v.Elem, convertConstBits(c, v.Elem)))
					}
				default:
					return 0
				}
			}
			if len(parts) == 1 && v.N > 1 {
				for len(parts) < v.N {
					parts = append(parts, parts[0])
				}
			}
			if len(parts) != v.N {
				return 0
			}
		} else {
			for _, a := range e.Args {
				c := b.constExpr(a)
				if c == 0 {
					return 0
				}
				parts = append(parts, c)
			}
			if m, ok := e.T.(ir.Matrix); ok && len(parts) == m.Rows*m.Cols {
				// Built from scalars: group them into the rows (SPIR-V columns).
				col := b.vectorType(m.Elem, m.Cols)
				rows := make([]uint32, m.Rows)
				for r := range rows {
					rows[r] = b.compositeConst(col, parts[r*m.Cols:(r+1)*m.Cols])
				}
				parts = rows
			}
			if len(parts) == 1 && b.isConst(parts[0]) && ir.Equal(e.Args[0].Type(), e.T) {
				return parts[0]
			}
		}
		return b.compositeConst(b.typeID(e.T), parts)
	}
	return 0
}

// convertConstBits keeps a constant's bits when its type already matches.
func convertConstBits(c *ir.Const, to ir.Scalar) uint64 {
	if c.T == to {
		return c.Bits
	}
	switch {
	case to.Kind == ir.Float && c.T.Kind == ir.Float:
		return ir.ConstFloat(to, c.Float()).Bits
	case to.Kind == ir.Float && c.T.Kind == ir.Sint:
		return ir.ConstFloat(to, float64(int64(c.Bits))).Bits
	case to.Kind == ir.Float:
		return ir.ConstFloat(to, float64(c.Bits)).Bits
	case to.Kind == ir.Bool:
		if c.Bits != 0 {
			return 1
		}
		return 0
	}
	return c.Bits
}

// entryPoint builds OpEntryPoint and its execution modes.
func (b *builder) entryPoint(ep *ir.EntryPoint) (entry, modes []uint32) {
	var model uint32
	switch ep.Stage {
	case ir.Pixel:
		model = 4
	case ir.Vertex:
		model = 0
	case ir.Amplification:
		model = modelTaskEXT
	case ir.Mesh:
		model = modelMeshEXT
	default:
		model = 5
	}
	fid := b.funcID(ep.Func)
	var iface []uint32
	for _, v := range b.gvars {
		if v.id == 0 {
			continue
		}
		// SPIR-V <= 1.3 lists only Input/Output variables; 1.4+ every global the entry point uses.
		if v.sc == scInput || v.sc == scOutput || b.version >= 0x00010400 {
			iface = append(iface, v.id)
		}
	}
	for _, v := range b.extraIO {
		iface = append(iface, v.id)
	}
	instStr(&entry, opEntryPoint, []uint32{model, fid}, ep.Name, iface...)
	switch ep.Stage {
	case ir.Pixel:
		inst(&modes, opExecutionMode, fid, modeOriginUpperLeft)
		if ep.WaveOpsIncludeHelperLanes {
			b.helperLaneModes(fid, &modes)
		}
	case ir.Compute, ir.Amplification, ir.Mesh:
		x, y, z := ep.NumThreads[0], ep.NumThreads[1], ep.NumThreads[2]
		inst(&modes, opExecutionMode, fid, modeLocalSize, uint32(max(x, 1)), uint32(max(y, 1)), uint32(max(z, 1)))
	}
	if mi := ep.Mesh; ep.Stage == ir.Mesh && mi != nil {
		inst(&modes, opExecutionMode, fid, modeOutputVertices, uint32(mi.MaxVertices))
		inst(&modes, opExecutionMode, fid, modeOutputPrimitives, uint32(mi.MaxPrimitives))
		if mi.Topology == ir.TopologyLine {
			inst(&modes, opExecutionMode, fid, modeOutputLinesEXT)
		} else {
			inst(&modes, opExecutionMode, fid, modeOutputTrianglesEXT)
		}
	}
	return entry, modes
}

// helperLaneModes declares what [WaveOpsIncludeHelperLanes] asks of Vulkan, as
// DXC emits it: MaximallyReconvergesKHR (SPV_KHR_maximal_reconvergence) keeps
// the helper lanes converged with the others at every wave operation, and
// RequireFullQuadsKHR (SPV_KHR_quad_control, capability QuadControlKHR) makes the
// helper lanes of every quad exist and take part in group operations. No
// -fspv-extension flag is needed: the attribute is the request, and there is no
// other way to honour it (a module without the modes leaves helper lanes to the
// driver). Both extensions need SPIR-V 1.3, the oldest target.
func (b *builder) helperLaneModes(fid uint32, modes *[]uint32) {
	b.needExt(extMaximalReconvergence)
	b.needExt(extQuadControl)
	b.needModeCap(intrinsics.CapQuadControlKHR)
	inst(modes, opExecutionMode, fid, modeMaximallyReconvergesKHR)
	inst(modes, opExecutionMode, fid, modeRequireFullQuadsKHR)
}
