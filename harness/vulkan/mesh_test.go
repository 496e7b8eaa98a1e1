package vulkan

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"

	"waverig/devices"
)

// The task+mesh probe (testdata/meshcull.task, .mesh): meshTaskGroups task
// workgroups of 64 invocations; each records its lane layout and its wave's
// ballot of a per-invocation "visible" bit and launches the ballot's bit
// count of 32-invocation mesh groups, each invocation of which records its
// task group (read from the payload), its mesh group and its lane layout.
const (
	meshTaskGroups  = 4
	meshTaskThreads = 64
	meshThreads     = 32
	meshRecWords    = 8
)

var (
	meshRunnerOnce sync.Once
	meshRunnerInst *Runner
	meshRunnerErr  error
	meshLess       []devices.Device
)

// meshRunner opens the first device with VK_EXT_mesh_shader (lavapipe 25.0.7
// on the CPU machines, the GPU on the device machine) and lists the devices
// without it.
func meshRunner(t *testing.T) *Runner {
	t.Helper()
	meshRunnerOnce.Do(func() {
		ds, err := devices.Enumerate()
		if err != nil {
			meshRunnerErr = err
			return
		}
		for _, d := range ds {
			if !d.Mesh.Extension {
				meshLess = append(meshLess, d)
			} else if meshRunnerInst == nil {
				meshRunnerInst, meshRunnerErr = NewRunner(d.Index)
			}
		}
	})
	if errors.Is(meshRunnerErr, devices.ErrNoVulkan) {
		need(t, meshRunnerErr.Error())
	}
	if meshRunnerErr != nil {
		t.Fatal(meshRunnerErr)
	}
	if meshRunnerInst == nil {
		need(t, "no device has VK_EXT_mesh_shader (scripts/setup.sh provisions lavapipe 25.0.7)")
	}
	return meshRunnerInst
}

func meshProbeJob(t *testing.T) MeshJob {
	task := make([]uint32, meshTaskGroups*meshTaskThreads*meshRecWords)
	for i := range task {
		task[i] = sentinel
	}
	mesh := make([]uint32, meshRecWords+meshTaskGroups*meshTaskThreads*meshThreads*meshRecWords)
	for i := range mesh {
		mesh[i] = sentinel
	}
	mesh[0] = 0 // the slot counter
	return MeshJob{
		TaskSPIRV: compileGLSLFor(t, "meshcull.task", "vulkan1.3"), TaskEntry: "main",
		MeshSPIRV: compileGLSLFor(t, "meshcull.mesh", "vulkan1.3"), MeshEntry: "main",
		Groups: [3]uint32{meshTaskGroups, 1, 1},
		Buffers: []Buffer{
			{Set: 0, Binding: 0, Kind: Storage, Data: bytesOf(task)},
			{Set: 0, Binding: 1, Kind: Storage, Data: bytesOf(mesh)},
		},
	}
}

// TestMeshTasks runs the probe and checks both stages' records: every task
// invocation wrote its record; within a wave (the records that share a key)
// lanes are unique and below the lane count, the lane count is the device's
// subgroup size, and the wave's ballot, count and prefix counts agree with
// its visible bits; each task group launched exactly the count its first
// invocation's wave computed (OpEmitMeshTasksEXT takes its arguments from
// the first invocation), every launched mesh group ran all its invocations
// once, read its own task group's payload and laid out its lanes as waves do.
func TestMeshTasks(t *testing.T) {
	r := meshRunner(t)
	d := r.Device()
	res, err := r.RunMesh(meshProbeJob(t))
	if err != nil {
		t.Fatal(err)
	}
	if res.TaskSize != 0 || res.MeshSize != 0 {
		t.Errorf("no size was asked for, yet task %d mesh %d were passed", res.TaskSize, res.MeshSize)
	}
	task, err := WordsFromBytes(res.Buffers[0])
	if err != nil {
		t.Fatal(err)
	}
	mesh, err := WordsFromBytes(res.Buffers[1])
	if err != nil {
		t.Fatal(err)
	}
	size := uint32(0)
	launched := make([]uint32, meshTaskGroups) // what each group's first invocation passed
	for g := 0; g < meshTaskGroups; g++ {
		waves := map[uint32][][]uint32{}
		for li := 0; li < meshTaskThreads; li++ {
			id := g*meshTaskThreads + li
			rec := task[id*meshRecWords:][:meshRecWords]
			if rec[0] != uint32(id) {
				t.Fatalf("task record %d: %v (not written, or by another invocation)", id, rec)
			}
			if size == 0 {
				size = rec[3]
			}
			if rec[3] != size || rec[2] >= size {
				t.Fatalf("task record %d: lane %d of %d, other waves have %d lanes", id, rec[2], rec[3], size)
			}
			waves[rec[1]] = append(waves[rec[1]], rec)
		}
		launched[g] = task[g*meshTaskThreads*meshRecWords+6]
		for key, wv := range waves {
			var ballot, seen uint64
			for _, rec := range wv {
				if seen&(1<<rec[2]) != 0 {
					t.Fatalf("task group %d wave %d: lane %d twice", g, key, rec[2])
				}
				seen |= 1 << rec[2]
				ballot |= uint64(rec[4]) << rec[2]
			}
			for _, rec := range wv {
				below := ballot & (1<<rec[2] - 1)
				if rec[6] != uint32(popcount(ballot)) || rec[5] != uint32(popcount(below)) || rec[7] != uint32(ballot) {
					t.Errorf("task group %d wave %d lane %d: count %d prefix %d ballot %#x, want %d %d %#x",
						g, key, rec[2], rec[6], rec[5], rec[7], popcount(ballot), popcount(below), uint32(ballot))
				}
			}
		}
	}
	if size != d.SubgroupSize {
		t.Errorf("task waves of %d lanes, the device reports subgroupSize %d", size, d.SubgroupSize)
	}
	// The mesh side: group (task g, mesh group m) ran meshThreads invocations.
	slots := int(mesh[0])
	ran := map[[2]uint32]map[uint32]bool{}
	meshWaves := map[[3]uint32]map[uint32]bool{}
	for s := 0; s < slots; s++ {
		rec := mesh[meshRecWords+s*meshRecWords:][:meshRecWords]
		g, m, li := rec[0], rec[1], rec[2]
		if g >= meshTaskGroups || m >= launched[g] || li >= meshThreads || rec[6] != 1 || rec[7] != 2 {
			t.Fatalf("mesh record %d: %v (task groups launched %v)", s, rec, launched)
		}
		k := [2]uint32{g, m}
		if ran[k] == nil {
			ran[k] = map[uint32]bool{}
		}
		if ran[k][li] {
			t.Fatalf("mesh group %v: invocation %d ran twice", k, li)
		}
		ran[k][li] = true
		if rec[5] != size || rec[4] >= size {
			t.Errorf("mesh record %d: lane %d of %d; task waves have %d", s, rec[4], rec[5], size)
		}
		wk := [3]uint32{g, m, rec[3]}
		if meshWaves[wk] == nil {
			meshWaves[wk] = map[uint32]bool{}
		}
		if meshWaves[wk][rec[4]] {
			t.Errorf("mesh group %v wave %d: lane %d twice", k, rec[3], rec[4])
		}
		meshWaves[wk][rec[4]] = true
	}
	want := 0
	for g, n := range launched {
		want += int(n) * meshThreads
		for m := uint32(0); m < n; m++ {
			if got := len(ran[[2]uint32{uint32(g), m}]); got != meshThreads {
				t.Errorf("task group %d mesh group %d: %d invocations ran, want %d", g, m, got, meshThreads)
			}
		}
	}
	if slots != want {
		t.Errorf("%d mesh invocations ran, the first invocations launched %v groups (%d invocations)", slots, launched, want)
	}
	t.Logf("%s: wave size %d in both stages; task groups launched %v mesh groups", d.Name, size, launched)
	if want := os.Getenv("WAVERIG_EXPECT_SUBGROUP"); want != "" {
		if w, _ := strconv.Atoi(want); uint32(w) != size {
			t.Errorf("with LP_NATIVE_VECTOR_WIDTH=%s the probe saw size %d, want %s", os.Getenv("LP_NATIVE_VECTOR_WIDTH"), size, want)
		}
	}
}

func popcount(v uint64) int {
	n := 0
	for ; v != 0; v &= v - 1 {
		n++
	}
	return n
}

// TestMeshTasksAtLavapipeWidths re-runs TestMeshTasks in a child per
// lavapipe vector width (the ICD reads it when it loads): sizes 4, 8, 16.
func TestMeshTasksAtLavapipeWidths(t *testing.T) {
	if os.Getenv("WAVERIG_EXPECT_SUBGROUP") != "" {
		t.Skip("already the child")
	}
	r := meshRunner(t)
	if !strings.Contains(r.Device().Name, "llvmpipe") {
		t.Skip("the mesh device is not lavapipe; LP_NATIVE_VECTOR_WIDTH does not apply")
	}
	for _, w := range []struct{ width, size string }{{"128", "4"}, {"256", "8"}, {"512", "16"}} {
		t.Run("width"+w.width, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestMeshTasks$", "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), "LP_NATIVE_VECTOR_WIDTH="+w.width, "WAVERIG_EXPECT_SUBGROUP="+w.size)
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "--- PASS: TestMeshTasks") ||
				!strings.Contains(string(out), fmt.Sprintf("wave size %s in both stages", w.size)) {
				t.Fatalf("child at width %s: %v\n%s", w.width, err, out)
			}
		})
	}
}

// TestMeshRefusals: a device without VK_EXT_mesh_shader (lavapipe 22.3.6,
// SwiftShader) refuses a mesh job with a *LimitError naming the extension
// before anything is created, and on the mesh device a required size no
// stage can take (lavapipe 25.0.7: requiredSubgroupSizeStages is fragment and
// compute) is refused by name.
func TestMeshRefusals(t *testing.T) {
	r := meshRunner(t)
	job := meshProbeJob(t)
	for _, d := range meshLess {
		if why := MeshMissing(d, true); why != "device lacks "+devices.MeshExtension {
			t.Errorf("%s (%s): MeshMissing = %q", d.Name, d.DriverInfo, why)
		}
		other, err := NewRunner(d.Index)
		if err != nil {
			t.Fatalf("%s: %v", d.Name, err)
		}
		_, err = other.RunMesh(job)
		var le *LimitError
		if !errors.As(err, &le) || le.Limit != devices.MeshExtension || other.PipelinesCreated() != 0 {
			t.Errorf("%s (%s): RunMesh = %v, want a LimitError naming %s and no pipeline", d.Name, d.DriverInfo, err, devices.MeshExtension)
		}
		other.Close()
	}
	sc := r.Device().SizeControl
	if sc.Supported && sc.RequiredSubgroupSizeStages&(devices.StageTask|devices.StageMesh) == 0 {
		job.RequiredSubgroupSize = r.Device().SubgroupSize
		_, err := r.RunMesh(job)
		var le *LimitError
		if !errors.As(err, &le) || le.Limit != "requiredSubgroupSizeStages" {
			t.Errorf("a required size on %s: %v, want a LimitError naming requiredSubgroupSizeStages", r.Device().Name, err)
		}
	}
}
