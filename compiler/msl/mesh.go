package msl

import (
	"strings"

	"waverig/compiler/diag"
	"waverig/compiler/internal/textgen"
	"waverig/compiler/intrinsics"
	"waverig/compiler/ir"
)

// Amplification and mesh entry points become Metal 3 object and mesh functions.
//
// Amplification -> [[object]]. The payload (the groupshared struct passed to
// DispatchMesh, ir.SpaceTaskPayload) is the `object_data P& p [[payload]]`
// argument; DispatchMesh is wr_dispatch_mesh (prelude.go): a threadgroup
// barrier, then thread 0 calls mesh_grid_properties::set_threadgroups_per_grid.
//
// Mesh -> [[mesh]] with a `metal::mesh<V, P, NV, NP, metal::topology::…>`
// argument and the payload as `const object_data P& p [[payload]]`. Metal's mesh
// object takes whole vertices and primitives (set_vertex, set_primitive) and the
// indices one by one (set_index), while the IR keeps one output array per field
// (sema splits `out vertices MeshVertex verts[N]` into verts_position[N], …) and a
// thread may write any element of any field at any time. So the back end keeps
// the IR's arrays as they are, in threadgroup memory, and gathers at the end of
// the entry function: after a threadgroup barrier, thread i builds vertices
// i, i+T, i+2T, … (T = the group's thread count) and primitives likewise, and
// hands each to the mesh object. Writing at each store instead would need the
// whole struct at every field store (set_vertex replaces the vertex), i.e. the
// same arrays anyway. The gather costs one pass over the outputs per group.
//
// SetMeshOutputCounts(v, p) stores (v, p) in the threadgroup uint2
// _wr_mesh_counts (thread 0 only: SPIR-V's OpSetMeshOutputsEXT takes its operands
// from the first invocation). The gather calls set_primitive_count(p) and writes
// vertices [0, v) and primitives [0, p); Metal has no vertex-count setter (the
// vertices a mesh uses are the ones its indices name), so v only bounds the
// vertex gather. Both counts are clamped to the declared maxima, so an
// out-of-range count (undefined in HLSL) cannot read past the arrays. A group
// that never calls SetMeshOutputCounts emits nothing: thread 0 zeroes the counts
// before the body runs.

// isMeshStage reports whether the entry is one of the mesh pipeline's stages.
func isMeshStage(s ir.Stage) bool { return s == ir.Amplification || s == ir.Mesh }

// meshParams are the mesh-pipeline trailing parameters of a helper function.
func meshParams(in *fnInfo) []string {
	var ps []string
	if in.threadIndex {
		ps = append(ps, "uint _wr_thread_index")
	}
	if in.meshGrid {
		ps = append(ps, "thread mesh_grid_properties& _wr_grid")
	}
	if in.meshCounts {
		ps = append(ps, "threadgroup uint2& _wr_mesh_counts")
	}
	return ps
}

// meshArgs are the arguments matching meshParams (the same names in every scope).
func meshArgs(in *fnInfo) []string {
	var as []string
	if in.threadIndex {
		as = append(as, "_wr_thread_index")
	}
	if in.meshGrid {
		as = append(as, "_wr_grid")
	}
	if in.meshCounts {
		as = append(as, "_wr_mesh_counts")
	}
	return as
}

// payloadParam spells the task payload: writable object_data in the object
// function, read-only in the mesh function.
func (e *emitter) payloadParam(g *ir.Global) string {
	cst := ""
	if e.ep.Stage == ir.Mesh {
		cst = "const "
	}
	return cst + "object_data " + e.typeName(g.Type) + "& " + e.globalNames[g]
}

// meshIntrinsic lowers DispatchMesh and SetMeshOutputCounts to the prelude
// helpers; every thread evaluates the arguments (they may be wave operations).
func (e *emitter) meshIntrinsic(x *ir.Intrinsic) string {
	switch x.Op {
	case intrinsics.DispatchMesh:
		if e.ep.Stage != ir.Amplification {
			break
		}
		e.useHelper("wr_dispatch_mesh")
		return "wr_dispatch_mesh(_wr_grid, _wr_thread_index, uint3(" + e.expr(x.Args[0]) + ", " + e.expr(x.Args[1]) + ", " + e.expr(x.Args[2]) + "))"
	case intrinsics.SetMeshOutputCounts:
		if e.ep.Stage != ir.Mesh {
			break
		}
		e.useHelper("wr_set_mesh_output_counts")
		return "wr_set_mesh_output_counts(_wr_mesh_counts, _wr_thread_index, " + e.expr(x.Args[0]) + ", " + e.expr(x.Args[1]) + ")"
	}
	e.errorf(x.Pos, diag.ErrMSLMalformedInput, "%s in a %s entry point (sema allows it only in its own stage)", intrinsics.Get(x.Op).Name, e.ep.Stage)
	return "0"
}

// isDispatchMesh reports whether a statement is a DispatchMesh call: SPIR-V's
// OpEmitMeshTasksEXT ends the invocation, so the statements after it are dead and
// the function returns after it.
func isDispatchMesh(s ir.Stmt) bool {
	es, ok := s.(*ir.ExprStmt)
	if !ok {
		return false
	}
	x, ok := es.X.(*ir.Intrinsic)
	return ok && x.Op == intrinsics.DispatchMesh
}

// hasReturn reports whether a block returns anywhere: a mesh entry function must
// reach its end, where the outputs are gathered (sema's entry wrappers only call
// the HLSL function, whose returns end that call).
func hasReturn(b ir.Block) bool {
	for _, s := range b {
		switch s := s.(type) {
		case *ir.Return:
			return true
		case *ir.If:
			if hasReturn(s.Then) || hasReturn(s.Else) {
				return true
			}
		case *ir.Loop:
			if hasReturn(s.Body) || hasReturn(s.Continuing) {
				return true
			}
		case *ir.Switch:
			for _, c := range s.Cases {
				if hasReturn(c.Body) {
					return true
				}
			}
		}
	}
	return false
}

// meshOutput is one field of the Metal vertex or primitive struct: the IR's
// per-field output array and the Metal attribute of its element.
type meshOutput struct {
	g    *ir.Global
	attr string
}

// meshInterface is a mesh entry's Metal output: the vertex and primitive structs,
// the index array, and the mesh<…> type over them.
type meshInterface struct {
	vertexStruct, primStruct string // "" when there is no per-primitive data (P is void)
	vertices, prims          []meshOutput
	indices                  *ir.Global
	indexCount               int // indices per primitive (3 triangle, 2 line)
	meshType                 string
}

// meshEntryParams adds the object/mesh function's parameters (thread index, grid,
// payload, mesh object) and prints the mesh's vertex and primitive structs. It
// returns the mesh interface (nil for an amplification entry).
func (e *emitter) meshEntryParams(params, prologue *[]string) *meshInterface {
	ep := e.ep
	in := e.info[ep.Func]
	// The thread index: the entry's own SV_GroupIndex input when it has one
	// (one parameter per attribute), otherwise a parameter of ours.
	if in.threadIndex || ep.Stage == ir.Mesh {
		alias := ""
		for _, g := range ep.Inputs {
			if g.Builtin == ir.BuiltinLocalInvocationIndex {
				alias = e.globalNames[g]
			}
		}
		if alias != "" {
			*prologue = append(*prologue, "uint _wr_thread_index = uint("+alias+");")
		} else {
			*params = append(*params, "uint _wr_thread_index [[thread_index_in_threadgroup]]")
		}
	}
	for _, g := range in.globals {
		if g.Space == ir.SpaceTaskPayload {
			*params = append(*params, e.payloadParam(g)+" [[payload]]")
		}
	}
	if ep.Stage == ir.Amplification {
		if in.meshGrid {
			*params = append(*params, "mesh_grid_properties _wr_grid")
		}
		return nil
	}
	mi := e.meshStructs()
	if mi != nil {
		*params = append(*params, mi.meshType+" _wr_mesh")
	}
	return mi
}

// meshStructs prints the vertex and primitive structs of a mesh entry.
func (e *emitter) meshStructs() *meshInterface {
	ep := e.ep
	name := e.funcNames[ep.Func]
	mi := &meshInterface{vertexStruct: e.unique(name + "_vertex")}
	hasPosition := false
	for _, g := range ep.Outputs {
		a, ok := g.Type.(*ir.Array)
		if !ok || a.Len == 0 {
			e.errorf(g.Pos, diag.ErrMSLMalformedInput, "mesh output %s has type %s, not a sized array over the vertices or primitives", g.Name, g.Type)
			continue
		}
		switch g.Builtin {
		case ir.BuiltinPrimitiveTriangleIndices, ir.BuiltinPrimitiveLineIndices:
			mi.indices = g
			mi.indexCount = ir.Components(a.Elem)
			continue
		case ir.BuiltinPosition:
			hasPosition = true
			mi.vertices = append(mi.vertices, meshOutput{g, "position"})
			continue
		case ir.BuiltinCullPrimitive:
			mi.prims = append(mi.prims, meshOutput{g, "primitive_culled"})
			continue
		case ir.BuiltinPrimitiveID:
			mi.prims = append(mi.prims, meshOutput{g, "primitive_id"})
			continue
		case ir.BuiltinNone:
		default:
			e.errorf(g.Pos, diag.ErrMSLUnsupported, "mesh output %s: builtin %s is not supported as a mesh output", g.Name, g.Builtin)
			continue
		}
		o := meshOutput{g, "user(loc" + textgen.Dec(g.Location) + ")"}
		if g.PerPrimitive {
			mi.prims = append(mi.prims, o)
		} else {
			mi.vertices = append(mi.vertices, o)
		}
	}
	if e.log.HasErrors() {
		return nil
	}
	var fields []string
	if !hasPosition {
		// Metal rasterizes the [[position]] of every mesh vertex; HLSL leaves an
		// unwritten SV_Position undefined, here it is zero.
		fields = append(fields, "    float4 _wr_position [[position]];")
	}
	for _, o := range mi.vertices {
		fields = append(fields, "    "+e.typeName(o.g.Type.(*ir.Array).Elem)+" "+e.globalNames[o.g]+" [["+o.attr+"]];")
	}
	textgen.Write(e.out, "struct ", mi.vertexStruct, "\n{\n", strings.Join(fields, "\n"), "\n};\n\n")
	primType := "void"
	if len(mi.prims) > 0 {
		mi.primStruct = e.unique(name + "_primitive")
		fields = fields[:0]
		for _, o := range mi.prims {
			fields = append(fields, "    "+e.typeName(o.g.Type.(*ir.Array).Elem)+" "+e.globalNames[o.g]+" [["+o.attr+"]];")
		}
		textgen.Write(e.out, "struct ", mi.primStruct, "\n{\n", strings.Join(fields, "\n"), "\n};\n\n")
		primType = mi.primStruct
	}
	topo := "triangle"
	if ep.Mesh.Topology == ir.TopologyLine {
		topo = "line"
	}
	mi.meshType = "metal::mesh<" + mi.vertexStruct + ", " + primType + ", " + textgen.Dec(ep.Mesh.MaxVertices) + ", " +
		textgen.Dec(ep.Mesh.MaxPrimitives) + ", metal::topology::" + topo + ">"
	return mi
}

// meshPrologue zeroes the output counts before the body runs (thread 0, the
// only writer of _wr_mesh_counts, so no barrier is needed until the gather).
func (e *emitter) meshPrologue() {
	e.line("threadgroup uint2 _wr_mesh_counts;")
	e.line("if (_wr_thread_index == 0u) {")
	e.line("    _wr_mesh_counts = uint2(0u);")
	e.line("}")
}

// meshGather prints the end of a mesh entry function: the per-field arrays
// become Metal's vertices, indices and primitives (see the comment at the top).
func (e *emitter) meshGather(mi *meshInterface) {
	ep := e.ep
	threads := textgen.Dec(ep.NumThreads[0]*ep.NumThreads[1]*ep.NumThreads[2]) + "u"
	e.line("// The gather: every thread's output writes are done; thread i hands vertices")
	e.line("// and primitives i, i+%d, … to the mesh object.", ep.NumThreads[0]*ep.NumThreads[1]*ep.NumThreads[2])
	e.line("threadgroup_barrier(mem_flags::mem_threadgroup);")
	e.lineS("uint _wr_vertex_count = min(_wr_mesh_counts.x, ", textgen.Dec(ep.Mesh.MaxVertices), "u);")
	e.lineS("uint _wr_primitive_count = min(_wr_mesh_counts.y, ", textgen.Dec(ep.Mesh.MaxPrimitives), "u);")
	e.line("_wr_mesh.set_primitive_count(_wr_primitive_count);")
	e.lineS("for (uint _wr_i = _wr_thread_index; _wr_i < _wr_vertex_count; _wr_i += ", threads, ") {")
	e.indent++
	e.lineS(mi.vertexStruct, " _wr_v = {};")
	for _, o := range mi.vertices {
		n := e.globalNames[o.g]
		e.lineS("_wr_v.", n, " = ", n, "[_wr_i];")
	}
	e.line("_wr_mesh.set_vertex(_wr_i, _wr_v);")
	e.indent--
	e.line("}")
	e.lineS("for (uint _wr_i = _wr_thread_index; _wr_i < _wr_primitive_count; _wr_i += ", threads, ") {")
	e.indent++
	if mi.indices != nil {
		n := e.globalNames[mi.indices]
		for k := 0; k < mi.indexCount; k++ {
			kk := textgen.Dec(k)
			e.lineS("_wr_mesh.set_index(_wr_i * ", textgen.Dec(mi.indexCount), "u + ", kk, "u, ", n, "[_wr_i].", string("xyz"[k]), ");")
		}
	}
	if mi.primStruct != "" {
		e.lineS(mi.primStruct, " _wr_p = {};")
		for _, o := range mi.prims {
			n := e.globalNames[o.g]
			e.lineS("_wr_p.", n, " = ", n, "[_wr_i];")
		}
		e.line("_wr_mesh.set_primitive(_wr_i, _wr_p);")
	}
	e.indent--
	e.line("}")
}

// afterDispatchMesh returns from the function that called DispatchMesh. In a
// helper called from another function only that helper returns, where SPIR-V
// ends the whole invocation; sema's entry wrappers call the HLSL entry function
// last, so there nothing runs after it.
func (e *emitter) afterDispatchMesh() {
	_, void := e.fn.Result.(ir.Void)
	switch {
	case e.isEntry:
		e.lineS(e.entryReturn)
	case e.fn.Result != nil && !void:
		e.line("return {};")
	default:
		e.line("return;")
	}
}
