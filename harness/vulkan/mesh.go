package vulkan

import (
	"fmt"
	"time"

	"waverig/devices"
	"waverig/devices/vkx"
)

// MeshJob is one render pass of VK_EXT_mesh_shader: vkCmdDrawMeshTasksEXT
// of Groups, through an optional task (amplification) stage and a mesh
// stage, with no vertex input, no fragment stage and rasterizer discard.
// The kernels write storage buffers from both stages and emit no
// primitive (SetMeshOutputCounts(0, 0)).
type MeshJob struct {
	TaskSPIRV []uint32 // nil: no task stage, Groups are mesh workgroups
	TaskEntry string
	MeshSPIRV []uint32
	MeshEntry string
	Groups    [3]uint32
	// Buffers are the descriptor bindings, visible to the task and mesh
	// stages.
	Buffers []Buffer
	// RequiredSubgroupSize 0 runs at the device default. Otherwise it needs
	// subgroup size control, a legal size and one of the job's stages in
	// requiredSubgroupSizeStages; it is passed to each stage listed there
	// (lavapipe 25.0.7 lists only fragment and compute: there a request is a
	// *LimitError, and the pass runs at the device's size and reads the size
	// each stage reports).
	RequiredSubgroupSize uint32
}

// MeshResult is the outcome of one mesh job.
type MeshResult struct {
	Buffers         [][]byte // contents after the draw, in MeshJob.Buffers order
	PipelineCreated bool
	Elapsed         time.Duration
	PipelineTime    time.Duration
	// TaskSize and MeshSize are the required subgroup sizes passed to each
	// stage (0: none, the device chose).
	TaskSize, MeshSize uint32
}

// meshPrepared is a mesh job checked against the device, with its key and
// the shim's description and bindings.
type meshPrepared struct {
	key      pipeKey
	desc     vkx.MeshDesc
	bindings []vkx.Binding
	modules  [][]uint32
	label    string
}

// MeshMissing says why dev cannot run a mesh job with (task) or without a
// task stage, naming the extension or feature ("" when it can).
func MeshMissing(dev devices.Device, task bool) string {
	m := dev.Mesh
	switch {
	case !m.Extension:
		return "device lacks " + devices.MeshExtension
	case !m.MeshShader:
		return "device lacks VkPhysicalDeviceMeshShaderFeaturesEXT.meshShader"
	case task && !m.TaskShader:
		return "device lacks VkPhysicalDeviceMeshShaderFeaturesEXT.taskShader"
	}
	return ""
}

// prepareMesh checks a mesh job (caller holds r.mu): the modules, the
// extension and features, the stages' workgroup and group-count limits, the
// buffers and the required size, before anything is created.
func (r *Runner) prepareMesh(job MeshJob) (meshPrepared, error) {
	var p meshPrepared
	if r.closed {
		return p, errClosed
	}
	task := job.TaskSPIRV != nil
	if why := MeshMissing(r.dev, task); why != "" {
		return p, limitErr(meshFeatureName(r.dev, task), "%s: %s", r.dev.Name, why)
	}
	if !r.ctx.Mesh() {
		return p, fmt.Errorf("vulkan: %s reports %s but the device was created without it", r.dev.Name, devices.MeshExtension)
	}
	if len(job.MeshSPIRV) == 0 {
		return p, fmt.Errorf("vulkan: a mesh job needs a mesh shader")
	}
	label := fmt.Sprintf("mesh %q", job.MeshEntry)
	mhash := hashWords(job.MeshSPIRV)
	minfo, err := r.parse(mhash, job.MeshSPIRV, job.MeshEntry, execModelMeshEXT)
	if err != nil {
		return p, err
	}
	modules := [][]uint32{job.MeshSPIRV}
	var thash [32]byte
	var tinfo spirvInfo
	if task {
		label = fmt.Sprintf("task %q, %s", job.TaskEntry, label)
		thash = hashWords(job.TaskSPIRV)
		if tinfo, err = r.parse(thash, job.TaskSPIRV, job.TaskEntry, execModelTaskEXT); err != nil {
			return p, err
		}
		modules = append([][]uint32{job.TaskSPIRV}, modules...)
	}
	m := r.dev.Mesh
	if err := checkMeshStage("mesh", minfo.localSize, m.MaxMeshWorkGroupInvocations, m.MaxMeshWorkGroupSize, r.dev.Name); err != nil {
		return p, err
	}
	if task {
		if err := checkMeshStage("task", tinfo.localSize, m.MaxTaskWorkGroupInvocations, m.MaxTaskWorkGroupSize, r.dev.Name); err != nil {
			return p, err
		}
		if err := checkMeshGroups("Task", job.Groups, m.MaxTaskWorkGroupCount, m.MaxTaskWorkGroupTotalCount, r.dev.Name); err != nil {
			return p, err
		}
	} else if err := checkMeshGroups("Mesh", job.Groups, m.MaxMeshWorkGroupCount, m.MaxMeshWorkGroupTotalCount, r.dev.Name); err != nil {
		return p, err
	}
	if err := CheckDemand(r.dev, Demand{Buffers: bufferDemands(job.Buffers)}); err != nil {
		return p, err
	}
	tsSize, msSize, err := meshSubgroupSizes(r.dev, job.RequiredSubgroupSize, task)
	if err != nil {
		return p, err
	}
	bindings, layout, err := r.checkBuffers(job.Buffers)
	if err != nil {
		return p, err
	}
	for _, used := range [][]descriptorUse{tinfo.used, minfo.used} {
		if err := checkDescriptors(used, job.Buffers, nil, nil); err != nil {
			return p, err
		}
	}
	return meshPrepared{
		key: pipeKey{hash: mhash, entry: job.MeshEntry, size: job.RequiredSubgroupSize, layout: layout,
			graphics: true, mesh: true, fragHash: thash, fragEntry: job.TaskEntry},
		desc: vkx.MeshDesc{Task: job.TaskSPIRV, TaskEntry: job.TaskEntry, Mesh: job.MeshSPIRV, MeshEntry: job.MeshEntry,
			TaskSize: tsSize, MeshSize: msSize},
		bindings: bindings, modules: modules, label: label,
	}, nil
}

// meshFeatureName is the Vulkan name a mesh job's LimitError carries.
func meshFeatureName(dev devices.Device, task bool) string {
	switch {
	case !dev.Mesh.Extension:
		return devices.MeshExtension
	case !dev.Mesh.MeshShader:
		return "meshShader"
	case task && !dev.Mesh.TaskShader:
		return "taskShader"
	}
	return ""
}

// checkMeshStage holds a task or mesh module's LocalSize to the stage's
// maxTask/MeshWorkGroupSize and …Invocations.
func checkMeshStage(stage string, local [3]uint32, maxInv uint32, maxSize [3]uint32, dev string) error {
	if local[0] == 0 {
		return nil // no LocalSize mode: LocalSizeId, checked by the driver
	}
	name := "maxTaskWorkGroup"
	if stage == "mesh" {
		name = "maxMeshWorkGroup"
	}
	total := uint64(local[0]) * uint64(local[1]) * uint64(local[2])
	if maxInv > 0 && total > uint64(maxInv) {
		return limitErr(name+"Invocations", "%s shader of %d invocations exceeds %sInvocations %d on %s", stage, total, name, maxInv, dev)
	}
	for i := range local {
		if maxSize[i] > 0 && local[i] > maxSize[i] {
			return limitErr(name+"Size", "%s shader local size %v exceeds %sSize %v on %s", stage, local, name, maxSize, dev)
		}
	}
	return nil
}

// checkMeshGroups holds a draw's group counts to maxTask/MeshWorkGroupCount
// and …TotalCount (kind "Task" or "Mesh").
func checkMeshGroups(kind string, g, maxCount [3]uint32, maxTotal uint32, dev string) error {
	if g[0] == 0 || g[1] == 0 || g[2] == 0 {
		return fmt.Errorf("vulkan: mesh draw of %v groups runs no shader", g)
	}
	for i := range g {
		if maxCount[i] > 0 && g[i] > maxCount[i] {
			return limitErr("max"+kind+"WorkGroupCount", "%v groups exceed max%sWorkGroupCount %v on %s", g, kind, maxCount, dev)
		}
	}
	if total := uint64(g[0]) * uint64(g[1]) * uint64(g[2]); maxTotal > 0 && total > uint64(maxTotal) {
		return limitErr("max"+kind+"WorkGroupTotalCount", "%d groups exceed max%sWorkGroupTotalCount %d on %s", total, kind, maxTotal, dev)
	}
	return nil
}

// meshSubgroupSizes decides the required subgroup size passed to the task
// and mesh stages (0: none), as drawSubgroupSizes does for draws: only
// stages in requiredSubgroupSizeStages get one, and a request none of the
// job's stages takes is refused.
func meshSubgroupSizes(dev devices.Device, req uint32, task bool) (ts, ms uint32, err error) {
	if req == 0 {
		return 0, 0, nil
	}
	sc := dev.SizeControl
	if !sc.Supported {
		return 0, 0, limitErr("subgroupSizeControl", "required subgroup size %d needs subgroupSizeControl, which %s lacks", req, dev.Name)
	}
	if req&(req-1) != 0 || req < sc.MinSubgroupSize || req > sc.MaxSubgroupSize {
		return 0, 0, limitErr("subgroupSize", "subgroup size %d is not a power of two in [%d, %d] on %s", req, sc.MinSubgroupSize, sc.MaxSubgroupSize, dev.Name)
	}
	if task && sc.RequiredSubgroupSizeStages&devices.StageTask != 0 {
		ts = req
	}
	if sc.RequiredSubgroupSizeStages&devices.StageMesh != 0 {
		ms = req
	}
	if ts == 0 && ms == 0 {
		return 0, 0, limitErr("requiredSubgroupSizeStages", "required subgroup size %d: requiredSubgroupSizeStages on %s is %v, neither task nor mesh", req, dev.Name, devices.ShaderStageNames(sc.RequiredSubgroupSizeStages))
	}
	return ts, ms, nil
}

// RunMesh executes one mesh job and returns its buffers.
func (r *Runner) RunMesh(job MeshJob) (*MeshResult, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p, err := r.prepareMesh(job)
	if err != nil {
		return nil, err
	}
	pipe, created, took, err := r.pipeline(p.key, p.label, func() (*vkx.Pipeline, error) {
		return r.ctx.CreateMeshPipeline(p.desc, p.bindings)
	}, p.modules...)
	if err != nil {
		return nil, err
	}
	res := &MeshResult{PipelineCreated: created, PipelineTime: took, TaskSize: p.desc.TaskSize, MeshSize: p.desc.MeshSize}
	start := time.Now()
	if err := r.upload(job.Buffers); err != nil {
		return nil, err
	}
	if err := r.ctx.DrawMeshTasks(pipe, p.bindings, job.Groups, uint64(r.timeout.Nanoseconds())); err != nil {
		return nil, fmt.Errorf("vulkan: draw mesh tasks (%s) %v: %w", p.label, job.Groups, err)
	}
	if res.Buffers, err = r.readBack(job.Buffers); err != nil {
		return nil, err
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

// PrebuildMeshes creates the mesh pipelines of jobs on up to workers
// goroutines (the cache and rules of Prebuild); RunMesh then finds them.
func (r *Runner) PrebuildMeshes(jobs []MeshJob, workers int) int {
	r.mu.Lock()
	var items []buildItem
	seen := map[pipeKey]bool{}
	for _, job := range jobs {
		p, err := r.prepareMesh(job)
		if err != nil || seen[p.key] || r.pipes[p.key] != nil {
			continue
		}
		seen[p.key] = true
		items = append(items, buildItem{key: p.key, modules: p.modules, build: func() (*vkx.Pipeline, error) {
			return r.ctx.CreateMeshPipeline(p.desc, p.bindings)
		}})
	}
	return r.buildAll(items, workers) // unlocks r.mu
}
