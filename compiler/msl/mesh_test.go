package msl

import (
	"strings"
	"testing"

	"waverig/compiler/diag"
	"waverig/compiler/intrinsics"
	"waverig/compiler/ir"
	. "waverig/compiler/ir/irtest"
)

// meshCases are the table cases of the mesh-pipeline rows, each in the stage it
// belongs to: DispatchMesh in an object function that fills its payload with a
// wave operation, SetMeshOutputCounts in triangle and line mesh functions that
// write every kind of output (position, a user vertex attribute, indices, a
// per-primitive user attribute, SV_PrimitiveID, SV_CullPrimitive).
func meshCases() []*rowCase {
	var cs []*rowCase
	f4 := vec(f32, 4)
	{
		st := &ir.Struct{Name: "Payload", Fields: []ir.Field{{Name: "ids", Type: &ir.Array{Elem: u32, Len: 32}}, {Name: "n", Type: u32}}}
		b, pl := Amplification("main", 32, st)
		b.M.Structs = append(b.M.Structs, st)
		id := b.Input("id", vec(u32, 3), ir.BuiltinLocalInvocationID, 0)
		lane := X(Load(GRef(id)))
		keep := Bin(ir.Lt, lane, Uint(20))
		ids := &ir.Member{Base: GRef(pl), Field: 0}
		b.Add(Store(&ir.Index{Base: ids, Idx: Intr(intrinsics.WavePrefixCountBits, u32, keep), T: u32}, lane))
		call := Intr(intrinsics.DispatchMesh, ir.Void{}, Intr(intrinsics.WaveActiveCountBits, u32, keep), Uint(1), Uint(1), GRef(pl))
		b.Add(&ir.ExprStmt{X: call})
		// Dead after DispatchMesh (SPIR-V's OpEmitMeshTasksEXT ends the invocation): not printed.
		b.Add(Store(&ir.Member{Base: GRef(pl), Field: 1}, Uint(7)))
		cs = append(cs, &rowCase{name: "row_DispatchMesh", b: b, call: call})
	}
	for _, topo := range []ir.Topology{ir.TopologyTriangle, ir.TopologyLine} {
		b, idx := Mesh("main", 32, topo, 64, 16)
		id := b.Input("id", vec(u32, 3), ir.BuiltinLocalInvocationID, 0)
		lane := X(Load(GRef(id)))
		pos := b.Output("pos", &ir.Array{Elem: f4, Len: 64}, ir.BuiltinPosition, 0)
		col := b.Output("colour", &ir.Array{Elem: vec(f32, 2), Len: 64}, ir.BuiltinNone, 0)
		tag := b.Output("tag", &ir.Array{Elem: u32, Len: 16}, ir.BuiltinNone, 1)
		tag.PerPrimitive = true
		prim := b.Output("prim", &ir.Array{Elem: u32, Len: 16}, ir.BuiltinPrimitiveID, 0)
		prim.PerPrimitive = true
		cull := b.Output("cull", &ir.Array{Elem: ir.BoolT, Len: 16}, ir.BuiltinCullPrimitive, 0)
		cull.PerPrimitive = true
		call := Intr(intrinsics.SetMeshOutputCounts, ir.Void{}, Uint(64), Uint(16))
		n := ir.Components(idx.Type.(*ir.Array).Elem)
		var corners []ir.Expr
		for k := 0; k < n; k++ {
			corners = append(corners, Bin(ir.Add, lane, Uint(uint64(k))))
		}
		b.Add(&ir.ExprStmt{X: call},
			// 64 vertices from 32 threads: each writes two.
			Store(Elem(pos, lane), Splat(Conv(lane, f32), 4)),
			Store(Elem(pos, Bin(ir.Add, lane, Uint(32))), Splat(Float(1), 4)),
			Store(Elem(col, lane), Splat(Float(0.5), 2)),
			&ir.If{Cond: Bin(ir.Lt, lane, Uint(16)), Then: ir.Block{
				Store(Elem(idx, lane), &ir.Construct{T: idx.Type.(*ir.Array).Elem, Args: corners}),
				Store(Elem(tag, lane), Intr(intrinsics.WaveReadLaneFirst, u32, lane)),
				Store(Elem(prim, lane), lane),
				Store(Elem(cull, lane), Bin(ir.Gt, lane, Uint(12))),
			}})
		cs = append(cs, &rowCase{name: "row_SetMeshOutputCounts_" + topo.String(), b: b, call: call})
	}
	return cs
}

// TestMeshOutputs checks the parts of the object and mesh functions the goldens
// show but a reader might miss: the Metal 3 header, the stage attributes, the
// payload and grid arguments, the per-field arrays in threadgroup memory and
// their gather, the dead store after DispatchMesh, and the void primitive type
// of a mesh without per-primitive outputs.
func TestMeshOutputs(t *testing.T) {
	cases := map[string]*rowCase{}
	for _, c := range meshCases() {
		cases[c.name] = c
	}
	emit := func(name string) string {
		t.Helper()
		out, err := EmitEntry(cases[name].b.M, cases[name].b.EP, Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return out.Source
	}
	mustHave := func(name, src string, parts ...string) {
		t.Helper()
		for _, p := range parts {
			if !strings.Contains(src, p) {
				t.Errorf("%s: missing %q in\n%s", name, p, src)
			}
		}
	}
	obj := emit("row_DispatchMesh")
	mustHave("row_DispatchMesh", obj, "(MSL 3.0)", "[[object]] void main_(", "object_data Payload& payload [[payload]]",
		"mesh_grid_properties _wr_grid", "uint _wr_thread_index [[thread_index_in_threadgroup]]",
		"wr_dispatch_mesh(_wr_grid, _wr_thread_index, uint3(wr_ballot_count(", "threadgroup_barrier(mem_flags::mem_threadgroup);\n    if (thread_index == 0u) {\n        grid.set_threadgroups_per_grid(groups);")
	if strings.Contains(obj, "7u") {
		t.Errorf("row_DispatchMesh: the store after DispatchMesh was printed:\n%s", obj)
	}
	tri := emit("row_SetMeshOutputCounts_triangle")
	mustHave("triangle", tri, "[[mesh]] void main_(", "metal::mesh<main__vertex, main__primitive, 64, 16, metal::topology::triangle> _wr_mesh",
		"float4 pos [[position]];", "float2 colour [[user(loc0)]];", "uint tag [[user(loc1)]];", "uint prim [[primitive_id]];", "bool cull [[primitive_culled]];",
		"threadgroup wr_array<float4, 64> pos;", "threadgroup wr_array<uint3, 16> indices;",
		"_wr_mesh.set_primitive_count(_wr_primitive_count);", "_wr_i += 32u", "_wr_mesh.set_vertex(_wr_i, _wr_v);",
		"_wr_mesh.set_index(_wr_i * 3u + 2u, indices[_wr_i].z);", "_wr_mesh.set_primitive(_wr_i, _wr_p);",
		"uint _wr_vertex_count = min(_wr_mesh_counts.x, 64u);", "uint _wr_primitive_count = min(_wr_mesh_counts.y, 16u);")
	line := emit("row_SetMeshOutputCounts_line")
	mustHave("line", line, "metal::topology::line>", "_wr_mesh.set_index(_wr_i * 2u + 1u, indices[_wr_i].y);")
	if strings.Contains(line, "_wr_i * 2u + 2u") {
		t.Errorf("line topology sets a third index:\n%s", line)
	}

	// No per-primitive outputs and no SV_Position: P is void, the vertex gets a zero position.
	b, _ := Mesh("main", 8, ir.TopologyTriangle, 3, 1)
	b.Add(&ir.ExprStmt{X: Intr(intrinsics.SetMeshOutputCounts, ir.Void{}, Uint(3), Uint(1))})
	out, err := EmitEntry(b.M, b.EP, Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustHave("bare", out.Source, ", void, 3, 1, metal::topology::triangle>", "float4 _wr_position [[position]];", "_wr_i += 8u")
	if strings.Contains(out.Source, "set_primitive(") {
		t.Errorf("a mesh with void primitives sets primitives:\n%s", out.Source)
	}
}

// TestMeshMalformed: IR the gather cannot handle is a coded error, not a crash.
func TestMeshMalformed(t *testing.T) {
	b, _ := Mesh("main", 8, ir.TopologyTriangle, 3, 1)
	b.Add(&ir.Return{}, &ir.ExprStmt{X: Intr(intrinsics.SetMeshOutputCounts, ir.Void{}, Uint(3), Uint(1))})
	if _, err := EmitEntry(b.M, b.EP, Options{}); !hasCode(err, diag.ErrMSLMalformedInput) {
		t.Errorf("early return in a mesh entry function: want %s, got %v", diag.ErrMSLMalformedInput, err)
	}
	b, _ = Mesh("main", 8, ir.TopologyTriangle, 3, 1)
	b.EP.Mesh = nil
	if _, err := EmitEntry(b.M, b.EP, Options{}); !hasCode(err, diag.ErrMSLMalformedInput) {
		t.Errorf("mesh entry without MeshInfo: want %s, got %v", diag.ErrMSLMalformedInput, err)
	}
	b, _ = Mesh("main", 8, ir.TopologyTriangle, 3, 1)
	b.Output("scalar", vec(f32, 4), ir.BuiltinPosition, 0)
	if _, err := EmitEntry(b.M, b.EP, Options{}); !hasCode(err, diag.ErrMSLMalformedInput) {
		t.Errorf("mesh output that is not an array: want %s, got %v", diag.ErrMSLMalformedInput, err)
	}
}
