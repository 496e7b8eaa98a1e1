package kernels

import (
	"errors"
	"fmt"
	"math/bits"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"waverig/devices"
	"waverig/harness/vulkan"
)

// simulateCompaction plays a device for a compaction kernel: waves are
// consecutive blocks of size invocations of SV_GroupIndex, and each task
// group launches the count of the wave decide picks (given the waves' counts).
func simulateCompaction(t *testing.T, k Kernel, size int, decide func(g int, counts []uint32) uint32) map[string][]byte {
	t.Helper()
	rec, err := words(k.Buffers[0].Data)
	if err != nil {
		t.Fatal(err)
	}
	rec = append([]uint32(nil), rec...)
	launch := make([]uint32, len(k.Buffers[1].Data)/4)
	copy(launch, mustWords(t, k.Buffers[1].Data))
	threads := k.Cases[0].Shape.Threads()
	groups := len(rec) / (threads * cWords)
	slot := 0
	for g := 0; g < groups; g++ {
		var counts []uint32
		for w0 := 0; w0 < threads; w0 += size {
			var ballot [4]uint32
			for gi := w0; gi < min(w0+size, threads); gi++ {
				if rec[(g*threads+gi)*cWords+cVisible] != 0 {
					ballot[(gi-w0)/32] |= 1 << ((gi - w0) % 32)
				}
			}
			count := 0
			for _, b := range ballot {
				count += bits.OnesCount32(b)
			}
			counts = append(counts, uint32(count))
			for gi := w0; gi < min(w0+size, threads); gi++ {
				r := rec[(g*threads+gi)*cWords:][:cWords]
				lane := gi - w0
				prefix := 0
				for l := 0; l < lane; l++ {
					prefix += int(ballot[l/32] >> (l % 32) & 1)
				}
				r[cFlat], r[cKey], r[cLane], r[cCount] = uint32(g*threads+gi), uint32(g*threads+w0), uint32(lane), uint32(size)
				r[cPrefix], r[cActive] = uint32(prefix), uint32(count)
				copy(r[cBallot:], ballot[:])
			}
		}
		n := decide(g, counts)
		for m := uint32(0); m < n; m++ {
			l := launch[launchHeader+slot*launchWords:][:launchWords]
			l[lGroup], l[lMeshGroup], l[lPayloadCount], l[lMarker] = uint32(g), m, counts[0], launchMarker
			slot++
		}
	}
	launch[0] = uint32(slot)
	return map[string][]byte{compactionReg: bytesOf(rec), launchReg: bytesOf(launch)}
}

func mustWords(t *testing.T, b []byte) []uint32 {
	t.Helper()
	w, err := words(b)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func compactionKernel(t *testing.T, shape string) Kernel {
	t.Helper()
	for _, k := range MeshMatrix(Task, Filter{}) {
		if k.Name == "task_"+Compaction+"_"+shape {
			return k
		}
	}
	t.Fatalf("no compaction kernel of shape %s", shape)
	return Kernel{}
}

// TestCompactionModel holds the compaction checker to the allowed set: a
// launch of the count of SV_GroupIndex 0's wave passes and is recorded as
// that wave's, a launch of another wave's count passes and is recorded as
// that wave's, and a launch no wave counted fails, for groups smaller and
// larger than the wave.
func TestCompactionModel(t *testing.T) {
	for _, shape := range []string{"ts4", "ts32", "ts128"} {
		k := compactionKernel(t, shape)
		for _, size := range []int{4, 8, 16, 32} {
			name := fmt.Sprintf("%s/size%d", shape, size)
			first := Check(k, simulateCompaction(t, k, size, func(_ int, c []uint32) uint32 { return c[0] }), uint32(size))
			for _, r := range first {
				if !r.Passed || !strings.Contains(r.Note, "another wave's in 0") || strings.Contains(r.Note, "from SV_GroupIndex 0's wave in 0, another wave's in 0, waves agreed in 0") {
					t.Errorf("%s %s, SV_GroupIndex 0's wave launching: %s", name, r.Case.ID(), r.Note)
				}
			}
			last := Check(k, simulateCompaction(t, k, size, func(_ int, c []uint32) uint32 { return c[len(c)-1] }), uint32(size))
			for _, r := range last {
				p := r.Case.Pattern
				if !r.Passed {
					t.Errorf("%s %s, the last wave launching: %s", name, r.Case.ID(), r.Note)
				}
				// FirstHalf over two waves: the last counts 0, the first all its
				// lanes, so the last alone decided; over more waves the second
				// half's waves all count 0, and they agree.
				threads := k.Cases[0].Shape.Threads()
				if p == FirstHalf && threads == 2*size && !strings.Contains(r.Note, "another wave's in 3") {
					t.Errorf("%s %s: the last of two waves decided, the note says %s", name, r.Case.ID(), r.Note)
				}
				if p == FirstHalf && threads > 2*size && !strings.Contains(r.Note, "waves agreed in 3") {
					t.Errorf("%s %s: second-half waves agree, the note says %s", name, r.Case.ID(), r.Note)
				}
			}
			wrong := Check(k, simulateCompaction(t, k, size, func(_ int, c []uint32) uint32 {
				m := uint32(0)
				for _, x := range c {
					m = max(m, x)
				}
				return m + 1 // more than any wave counted
			}), uint32(size))
			for _, r := range wrong {
				if r.Passed || !strings.Contains(r.Note, "its waves counted") {
					t.Errorf("%s %s: a launch count no wave computed passed: %s", name, r.Case.ID(), r.Note)
				}
			}
		}
	}
}

// compactionGLSL is the GLSL twin of compactionHLSL (GL_EXT_mesh_shader),
// until waverig's compiler has amplification and mesh shaders: the same
// records from the same buffers, so checkCompaction judges a real driver.
func compactionGLSL(threads int) (task, mesh string) {
	task = fmt.Sprintf(`#version 460
#extension GL_EXT_mesh_shader : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
layout(local_size_x = %[1]d) in;
layout(set = 0, binding = 0) buffer R { uint rec[]; };
struct CullPayload { uint group; uint count; };
taskPayloadSharedEXT CullPayload pl;
void main() {
    uint gi = gl_LocalInvocationIndex;
    uint id = gl_WorkGroupID.x * %[1]du + gi;
    uint b = id * %[2]du;
    bool visible = rec[b + 4u] != 0u;
    uvec4 ballot = subgroupBallot(visible);
    uint count = subgroupBallotBitCount(ballot);
    rec[b + 0u] = id;
    rec[b + 1u] = subgroupBroadcastFirst(id);
    rec[b + 2u] = gl_SubgroupInvocationID;
    rec[b + 3u] = gl_SubgroupSize;
    rec[b + 5u] = subgroupBallotExclusiveBitCount(ballot);
    rec[b + 6u] = count;
    rec[b + 7u] = ballot.x; rec[b + 8u] = ballot.y; rec[b + 9u] = ballot.z; rec[b + 10u] = ballot.w;
    if (gi == 0u) { pl.group = gl_WorkGroupID.x; pl.count = count; }
    barrier();
    EmitMeshTasksEXT(count, 1u, 1u);
}
`, threads, cWords)
	mesh = fmt.Sprintf(`#version 460
#extension GL_EXT_mesh_shader : require
layout(local_size_x = 1) in;
layout(triangles, max_vertices = 3, max_primitives = 1) out;
layout(set = 0, binding = 1) buffer L { uint launched[]; };
struct CullPayload { uint group; uint count; };
taskPayloadSharedEXT CullPayload pl;
void main() {
    SetMeshOutputsEXT(0u, 0u);
    uint slot = atomicAdd(launched[0], 1u);
    uint m = %du + slot * %du;
    launched[m + 0u] = pl.group;
    launched[m + 1u] = gl_WorkGroupID.x;
    launched[m + 2u] = pl.count;
    launched[m + 3u] = %du;
}
`, launchHeader, launchWords, uint32(launchMarker))
	return task, mesh
}

func glslModule(t *testing.T, stage, src string) []uint32 {
	t.Helper()
	tool, err := exec.LookPath("glslangValidator")
	if err != nil {
		t.Skip("glslangValidator not installed (Debian package glslang-tools)")
	}
	dir := t.TempDir()
	in, out := filepath.Join(dir, "k."+stage), filepath.Join(dir, "k.spv")
	if err := os.WriteFile(in, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if msg, err := exec.Command(tool, "-V", "--target-env", "vulkan1.3", "-o", out, in).CombinedOutput(); err != nil {
		t.Fatalf("glslangValidator %s: %v\n%s", stage, err, msg)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return mustWords(t, b)
}

// TestCompactionOnDevice runs every compaction kernel's buffers through its
// GLSL twin on the first device with VK_EXT_mesh_shader and judges them with
// the model; which wave decided DispatchMesh is logged per kernel. Under
// WAVERIG_MESH_WIDTHS=1 it re-runs itself at lavapipe's widths 128/256/512.
func TestCompactionOnDevice(t *testing.T) {
	ds, err := devices.Enumerate()
	if errors.Is(err, devices.ErrNoVulkan) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	dev := -1
	for _, d := range ds {
		if d.Mesh.Extension && d.Mesh.TaskShader {
			dev = d.Index
			break
		}
	}
	if dev < 0 {
		t.Skip("no device has VK_EXT_mesh_shader with taskShader")
	}
	r, err := vulkan.NewRunner(dev)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, sh := range CompactionShapes {
		k := compactionKernel(t, sh.Name)
		ts, ms := compactionGLSL(sh.Threads())
		res, err := r.RunMesh(vulkan.MeshJob{
			TaskSPIRV: glslModule(t, "task", ts), TaskEntry: "main",
			MeshSPIRV: glslModule(t, "mesh", ms), MeshEntry: "main",
			Groups: k.MeshDraw.Groups,
			Buffers: []vulkan.Buffer{
				{Set: 0, Binding: 0, Kind: vulkan.Storage, Data: append([]byte(nil), k.Buffers[0].Data...)},
				{Set: 0, Binding: 1, Kind: vulkan.Storage, Data: append([]byte(nil), k.Buffers[1].Data...)},
			},
		})
		if err != nil {
			t.Fatalf("%s: %v", k.Name, err)
		}
		out := map[string][]byte{compactionReg: res.Buffers[0], launchReg: res.Buffers[1]}
		for _, cr := range Check(k, out, 0) {
			if !cr.Passed {
				t.Errorf("%s on %s: %s", cr.Case.ID(), r.Device().Name, cr)
			}
			t.Logf("%s size %d: %s", cr.Case.ID(), r.Device().SubgroupSize, DecidedBy(cr))
		}
	}
	if os.Getenv("WAVERIG_MESH_WIDTHS") == "1" && os.Getenv("LP_NATIVE_VECTOR_WIDTH") == "" && strings.Contains(ds[dev].Name, "llvmpipe") {
		for _, w := range []string{"128", "256", "512"} {
			cmd := exec.Command(os.Args[0], "-test.run=^TestCompactionOnDevice$", "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), "LP_NATIVE_VECTOR_WIDTH="+w)
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "--- PASS: TestCompactionOnDevice") {
				t.Errorf("width %s: %v\n%s", w, err, out)
			}
		}
	}
}
