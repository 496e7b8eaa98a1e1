package spirv

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"waverig/compiler/diag"
	"waverig/compiler/intrinsics"
	"waverig/compiler/ir"
	. "waverig/compiler/ir/irtest"
	"waverig/internal/golden"
)

// payloadStruct is a small amplification-to-mesh payload: { uint ids[32]; uint count; }.
func payloadStruct() *ir.Struct {
	return &ir.Struct{Name: "Payload", Fields: []ir.Field{
		{Name: "ids", Type: &ir.Array{Elem: ir.U32, Len: 32}},
		{Name: "count", Type: ir.U32},
	}}
}

// amplification builds a task shader: each lane writes its lane index into the
// payload at its WavePrefixCountBits rank, then DispatchMesh(count, 1, 1). The
// store after DispatchMesh is unreachable and must not be emitted.
func amplification() *Builder {
	st := payloadStruct()
	b, pl := Amplification("ASMain", 32, st)
	b.M.Structs = append(b.M.Structs, st)
	lane := Intr(intrinsics.WaveGetLaneIndex, ir.U32)
	rank := Intr(intrinsics.WavePrefixCountBits, ir.U32, Bool(true))
	ids := &ir.Member{Base: GRef(pl), Field: 0}
	b.Add(Store(&ir.Index{Base: ids, Idx: rank, T: ir.U32}, lane))
	count := Intr(intrinsics.WaveActiveCountBits, ir.U32, Bool(true))
	b.Add(&ir.ExprStmt{X: Intr(intrinsics.DispatchMesh, ir.Void{}, count, Uint(1), Uint(1), GRef(pl))})
	b.Add(Store(&ir.Member{Base: GRef(pl), Field: 1}, Uint(7)))
	return b
}

// meshTriangles builds a mesh shader with 3 vertices and 1 triangle: the
// positions (BuiltIn Position array), one per-vertex and one per-primitive
// attribute, the PrimitiveId and CullPrimitive built-ins, a read of the task
// payload and a wave operation.
func meshTriangles(topo ir.Topology) *Builder {
	st := payloadStruct()
	b, idx := Mesh("MSMain", 32, topo, 3, 1)
	b.M.Structs = append(b.M.Structs, st)
	pl := b.Global(&ir.Global{Name: "payload", Type: st, Space: ir.SpaceTaskPayload})
	b.EP.Mesh.Payload = pl
	vec4 := ir.Vector{Elem: ir.F32, N: 4}
	pos := b.Output("pos", &ir.Array{Elem: vec4, Len: 3}, ir.BuiltinPosition, 0)
	col := b.Output("colour", &ir.Array{Elem: vec4, Len: 3}, ir.BuiltinNone, 0)
	prim := b.Output("meshlet", &ir.Array{Elem: ir.U32, Len: 1}, ir.BuiltinNone, 1)
	prim.PerPrimitive = true
	pid := b.Output("primitive_id", &ir.Array{Elem: ir.U32, Len: 1}, ir.BuiltinPrimitiveID, 0)
	pid.PerPrimitive = true
	cull := b.Output("cull", &ir.Array{Elem: ir.BoolT, Len: 1}, ir.BuiltinCullPrimitive, 0)
	cull.PerPrimitive = true
	tid := b.Input("tid", ir.Vector{Elem: ir.U32, N: 3}, ir.BuiltinLocalInvocationID, 0)
	b.Add(&ir.ExprStmt{X: Intr(intrinsics.SetMeshOutputCounts, ir.Void{}, Uint(3), Uint(1))})
	t := X(Load(GRef(tid)))
	first := Intr(intrinsics.WaveReadLaneFirst, ir.U32, Load(&ir.Member{Base: GRef(pl), Field: 1}))
	one := Float(1)
	b.Add(&ir.If{Cond: Bin(ir.Lt, t, Uint(3)), Then: ir.Block{
		Store(Elem(pos, t), &ir.Construct{T: vec4, Args: []ir.Expr{Conv(t, ir.F32), Float(0), Float(0), one}}),
		Store(Elem(col, t), Splat(one, 4)),
	}})
	n := 3
	if topo == ir.TopologyLine {
		n = 2
	}
	comps := []ir.Expr{Uint(0), Uint(1), Uint(2)}[:n]
	b.Add(&ir.If{Cond: Bin(ir.Eq, t, Uint(0)), Then: ir.Block{
		Store(Elem(idx, Uint(0)), &ir.Construct{T: ir.Vector{Elem: ir.U32, N: n}, Args: comps}),
		Store(Elem(prim, Uint(0)), first),
		Store(Elem(pid, Uint(0)), Uint(0)),
		Store(Elem(cull, Uint(0)), Bool(false)),
	}})
	return b
}

// TestMeshShaders emits the amplification and mesh modules for the targets that
// have SPV_EXT_mesh_shader (SPIR-V 1.5 and 1.6), validates each with spirv-val,
// checks what they declare, and checks the coded error for Vulkan 1.1 (SPIR-V 1.3).
func TestMeshShaders(t *testing.T) {
	for _, c := range []struct {
		name  string
		b     *Builder
		model string
		modes []string
	}{
		{"amplification", amplification(), "TaskEXT", []string{"LocalSize 32 1 1"}},
		{"mesh_triangles", meshTriangles(ir.TopologyTriangle), "MeshEXT", []string{"LocalSize 32 1 1", "OutputVertices 3", "OutputPrimitivesNV 1", "OutputTrianglesNV"}},
		{"mesh_lines", meshTriangles(ir.TopologyLine), "MeshEXT", []string{"OutputLinesNV", "PrimitiveLineIndicesEXT"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			Valid(t, c.b.M)
			for _, vk := range []struct{ vk, env string }{{"1.2", "vulkan1.2"}, {"1.3", "vulkan1.3"}} {
				mod, err := EmitEntry(c.b.M, c.b.EP, Options{Vulkan: vk.vk})
				if err != nil {
					t.Fatalf("vulkan %s: %v", vk.vk, err)
				}
				validate(t, mod, vk.env)
				dis := disassemble(t, mod)
				for _, want := range append([]string{"OpCapability MeshShadingEXT", `OpExtension "SPV_EXT_mesh_shader"`, "OpEntryPoint " + c.model}, c.modes...) {
					if !strings.Contains(dis, want) {
						t.Errorf("vulkan %s: no %q in\n%s", vk.vk, want, dis)
					}
				}
				if mod.SubgroupBits&^(intrinsics.VkBasic|intrinsics.VkBallot) != 0 || mod.SubgroupBits == 0 {
					t.Errorf("vulkan %s: SubgroupBits %#x, want Basic/Ballot only", vk.vk, mod.SubgroupBits)
				}
				if c.model == "TaskEXT" {
					// The barrier precedes OpEmitMeshTasksEXT, which ends the function:
					// the store after DispatchMesh is dead and not emitted.
					i := strings.Index(dis, "OpControlBarrier %uint_2 %uint_2 %uint_264")
					j := strings.Index(dis, "OpEmitMeshTasksEXT")
					if i < 0 || j < i || strings.Contains(dis[j:], "OpStore") || strings.Contains(dis[j:], "OpReturn") {
						t.Errorf("vulkan %s: want barrier, then OpEmitMeshTasksEXT ending the function:\n%s", vk.vk, dis)
					}
				} else {
					for _, want := range []string{"OpSetMeshOutputsEXT %uint_3 %uint_1", "BuiltIn Position", "BuiltIn PrimitiveId", "BuiltIn CullPrimitiveEXT",
						"OpDecorate %meshlet PerPrimitiveNV", "OpDecorate %cull PerPrimitiveNV", "OpDecorate %primitive_id PerPrimitiveNV", "TaskPayloadWorkgroupEXT"} {
						if !strings.Contains(dis, want) {
							t.Errorf("vulkan %s: no %q in\n%s", vk.vk, want, dis)
						}
					}
					if strings.Contains(dis, "OpDecorate %colour PerPrimitive") {
						t.Errorf("vulkan %s: the per-vertex attribute is marked per-primitive", vk.vk)
					}
				}
			}
			_, err := EmitEntry(c.b.M, c.b.EP, Options{Vulkan: "1.1"})
			var de *diag.Errors
			if !errors.As(err, &de) || de.Msgs[0].Code != diag.ErrSpvMeshTarget {
				t.Errorf("vulkan 1.1: got %v, want %s", err, diag.ErrSpvMeshTarget)
			}
		})
	}
}

// TestMeshGolden pins the disassembly of the amplification and mesh modules at the
// default target (Vulkan 1.2 / SPIR-V 1.5). Refresh with -update.
func TestMeshGolden(t *testing.T) {
	for name, b := range map[string]*Builder{"amplification": amplification(), "mesh_triangles": meshTriangles(ir.TopologyTriangle)} {
		mod, err := EmitEntry(b.M, b.EP, Options{})
		if err != nil {
			t.Fatal(err)
		}
		golden.Check(t, filepath.Join("testdata", name+".spvasm"), []byte(disassemble(t, mod)))
	}
}
