package pass

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"waverig/devices"
	"waverig/harness/kernels"
	"waverig/harness/models"
	"waverig/harness/produce"
	"waverig/harness/results"
	"waverig/harness/vulkan"
)

// Task (amplification) and mesh kernels: a task entry (optional) and a mesh
// entry in one source, compiled by one compiler, bound from their joint
// reflection and drawn with vkCmdDrawMeshTasksEXT at the device's own size
// (the stage's size is what the records report: lavapipe 25.0.7 takes a
// required size in fragment and compute only). Vulkan only: WebGPU has no
// such stages (NotApplicable).

// webgpuNoMesh is NotApplicable's reason for the task and mesh kernels.
const webgpuNoMesh = "WebGPU has no task or mesh shaders"

var errNoMeshShaders = SkipError(webgpuNoMesh)

// amplificationStage is the task stage as compilers are asked for it (HLSL's
// name: waverig's -stage amplification); records and labels say task.
const amplificationStage = "amplification"

// MeshJob is one task or mesh kernel compiled for Vulkan: the task module
// (nil for a mesh kernel, drawn without a task stage) and the mesh module,
// the buffers in binding order.
type MeshJob struct {
	Kernel               kernels.Kernel
	TaskSPIRV, MeshSPIRV []uint32
	TaskEntry, MeshEntry string
	Buffers              []Buffer
}

func (d vulkanDevice) Mesh(j MeshJob) (map[string][]byte, error) {
	res, err := d.runner.RunMesh(d.meshJob(j, true))
	var le *vulkan.LimitError
	if errors.As(err, &le) {
		return nil, SkipError(err.Error())
	}
	if err != nil {
		return nil, err
	}
	return readBack(j.Buffers, res.Buffers), nil
}

// meshJob is a job in harness/vulkan's terms (copyData: the run's own copy of
// the buffers; the prebuild uploads nothing).
func (d vulkanDevice) meshJob(j MeshJob, copyData bool) vulkan.MeshJob {
	return vulkan.MeshJob{TaskSPIRV: j.TaskSPIRV, TaskEntry: j.TaskEntry, MeshSPIRV: j.MeshSPIRV, MeshEntry: j.MeshEntry,
		Groups: j.Kernel.MeshDraw.Groups, Buffers: d.vulkanBuffers(j.Buffers, copyData)}
}

// PrebuildMeshes creates the task and mesh pipelines of jobs on up to
// workers goroutines (meshPrebuilder): a GPU driver compiles at creation, and
// built one at a time in the loop the H200's 150 took 10 s of a cold run.
func (d vulkanDevice) PrebuildMeshes(jobs []MeshJob, workers int) int {
	vj := make([]vulkan.MeshJob, len(jobs))
	for i, j := range jobs {
		vj[i] = d.meshJob(j, false)
	}
	return d.runner.PrebuildMeshes(vj, workers)
}

// meshPrebuilder is a Device that can build task and mesh pipelines ahead of
// the loop (Vulkan; WebGPU has no such stages).
type meshPrebuilder interface {
	PrebuildMeshes(jobs []MeshJob, workers int) int
}

// meshMissing says why the device, or the target's compiler, cannot run a
// task or mesh kernel ("" when it can), naming the extension, feature or
// stage bit it read.
func (r *Rig) meshMissing(k kernels.Kernel, t target) string {
	if isWebGPU(t.api) {
		return webgpuNoMesh
	}
	if why := DeviceMeshMissing(r.dev, k); why != "" {
		return why
	}
	return r.meshCompiler(t.comp)
}

// DeviceMeshMissing is the device's half of meshMissing: why the Vulkan
// device cannot run a task or mesh kernel's wave operations ("" when it
// can), naming the extension, feature or stage bit it read. Like
// DeviceMissing, the suites ask it before a run.
func DeviceMeshMissing(d devices.Device, k kernels.Kernel) string {
	task := k.MeshDraw.TaskEntry != ""
	if why := vulkan.MeshMissing(d, task); why != "" {
		return why
	}
	// The stage the wave operations run in.
	bit, name := uint32(devices.StageMesh), "VK_SHADER_STAGE_MESH_BIT_EXT"
	if k.Stage == kernels.Task {
		bit, name = devices.StageTask, "VK_SHADER_STAGE_TASK_BIT_EXT"
	}
	if d.SupportedStages&bit == 0 {
		return fmt.Sprintf("device's subgroupSupportedStages (%#x) lacks %s", d.SupportedStages, name)
	}
	for _, c := range k.Cases {
		if models.IsQuadOp(c.Op) && !d.QuadOperationsInAllStages {
			return "device's subgroupQuadOperationsInAllStages is false (quad operations only in fragment and compute)"
		}
	}
	return ""
}

// meshProbeTask and meshProbeMesh are the smallest task and mesh sources
// (one entry point each): what a compiler must compile before the rig trusts
// its errors on the real kernels.
const meshProbeTask = `struct P { uint v; };
groupshared P pl;
[shader("amplification")]
[numthreads(4, 1, 1)]
void ASMain(uint gi : SV_GroupIndex)
{
    pl.v = gi;
    DispatchMesh(0u, 1u, 1u, pl);
}
`

const meshProbeMesh = `struct P { uint v; };
struct V { float4 pos : SV_Position; };
[shader("mesh")]
[outputtopology("triangle")]
[numthreads(1, 1, 1)]
void MSMain(in payload P p, out vertices V verts[3], out indices uint3 tris[1])
{
    SetMeshOutputCounts(0u, 0u);
}
`

var (
	meshCompilerMu  sync.Mutex
	meshCompilerWhy = map[string]string{}
)

// meshCompiler says why compiler comp cannot compile task and mesh shaders
// at all ("" when it can): the probe's first diagnostic. Until waverig's
// compiler has the stages (branch mesh) and for glslang 12 (its HLSL front
// end has no DispatchMesh), the kernels are skips with those words rather
// than errors of every case.
func (r *Rig) meshCompiler(comp string) string {
	meshCompilerMu.Lock()
	defer meshCompilerMu.Unlock()
	if why, ok := meshCompilerWhy[comp]; ok {
		return why
	}
	c, ok := r.compilers()[comp]
	if !ok {
		return ""
	}
	why := ""
	for _, e := range []struct{ src, entry, stage string }{{meshProbeTask, "ASMain", amplificationStage}, {meshProbeMesh, "MSMain", results.Mesh}} {
		_, skip, err := c.Compile(produce.Source{Name: "meshprobe.hlsl", HLSL: []byte(e.src), Entry: e.entry, Stage: e.stage}, produce.SPIRV)
		switch {
		case skip != "":
			why = skip
		case err != nil:
			why = err.Error()
		}
		if why != "" {
			why = fmt.Sprintf("compiler %s cannot compile %s shaders yet: %s", comp, e.stage, firstDiagnostic(why))
			break
		}
	}
	meshCompilerWhy[comp] = why
	return why
}

// meshModules compiles a task or mesh kernel's entry points for a target.
func (r *Rig) meshModules(k kernels.Kernel, t target) (ts, ms *module, err error) {
	if k.MeshDraw.TaskEntry != "" {
		ts = r.compileEntry(k, t, k.MeshDraw.TaskEntry, amplificationStage)
	}
	ms = r.compileEntry(k, t, k.MeshDraw.MeshEntry, results.Mesh)
	for _, m := range []*module{ts, ms} {
		switch {
		case m == nil:
		case m.skip != "":
			return nil, nil, SkipError(m.skip)
		case m.err != nil:
			return nil, nil, m.err
		}
	}
	return ts, ms, nil
}

// meshJobOf compiles (cached) a task or mesh kernel's modules and builds its
// job; the bindings are the two modules' joint ones (drawBindings).
func (r *Rig) meshJobOf(k kernels.Kernel, t target) (MeshJob, error) {
	ts, ms, err := r.meshModules(k, t)
	if err != nil {
		return MeshJob{}, err
	}
	regs, binds, err := drawBindings(k, ts, ms)
	if err != nil {
		return MeshJob{}, err
	}
	data := map[string][]byte{}
	for _, b := range k.Buffers {
		data[b.Register] = b.Data
	}
	j := MeshJob{Kernel: k, MeshSPIRV: ms.spirv, MeshEntry: ms.entry}
	if ts != nil {
		j.TaskSPIRV, j.TaskEntry = ts.spirv, ts.entry
	}
	for i, bd := range binds {
		j.Buffers = append(j.Buffers, bufferOf(regs[i], bd, data[regs[i]]))
	}
	return j, nil
}

// runMesh compiles (cached), draws and reads back one task or mesh kernel.
func (r *Rig) runMesh(k kernels.Kernel, t target) (map[string][]byte, error) {
	j, err := r.meshJobOf(k, t)
	if err != nil {
		return nil, err
	}
	return r.devs[t.api].Mesh(j)
}

// firstDiagnostic is the line of a compiler's error text that says what went
// wrong (the first with "error", else the first non-empty one), trimmed to
// what a skip reason can carry.
func firstDiagnostic(msg string) string {
	lines := strings.Split(msg, "\n")
	pick := ""
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if pick == "" && l != "" {
			pick = l
		}
		if strings.Contains(l, "error") && !strings.HasSuffix(l, ":") {
			pick = l
			break
		}
	}
	if len(pick) > 160 {
		pick = pick[:160] + "…"
	}
	return pick
}
