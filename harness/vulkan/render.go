package vulkan

import (
	"fmt"
	"time"

	"waverig/devices"
	"waverig/devices/vkx"
)

// ColorFormat is the colour attachment of a draw.
type ColorFormat int

const (
	NoColor     ColorFormat = iota // no colour attachment (vertex-stage jobs use rasterizer discard)
	RGBA32Uint                     // VK_FORMAT_R32G32B32A32_UINT, shader output uint4
	RGBA32Float                    // VK_FORMAT_R32G32B32A32_SFLOAT, shader output float4
)

func (f ColorFormat) String() string {
	switch f {
	case NoColor:
		return "none"
	case RGBA32Uint:
		return "R32G32B32A32_UINT"
	case RGBA32Float:
		return "R32G32B32A32_SFLOAT"
	}
	return fmt.Sprintf("ColorFormat(%d)", int(f))
}

// shim returns the vkx colour constant of f.
func (f ColorFormat) shim() (uint32, error) {
	switch f {
	case NoColor:
		return vkx.ColorNone, nil
	case RGBA32Uint:
		return vkx.ColorRGBA32Uint, nil
	case RGBA32Float:
		return vkx.ColorRGBA32Float, nil
	}
	return 0, fmt.Errorf("vulkan: unknown colour format %v", f)
}

// texelBytes is the size of one pixel of every colour format the runner
// offers (four 32-bit words).
const texelBytes = 16

// DrawJob is one render pass: Draws draws of a triangle list of VertexCount
// vertices (no vertex buffers; the vertex shader uses SV_VertexID), draw i
// with firstInstance i, into a Width x Height target cleared to zero.
type DrawJob struct {
	VertexSPIRV   []uint32 // vertex shader module (required)
	VertexEntry   string
	FragmentSPIRV []uint32 // nil: no fragment stage, rasterizerDiscardEnable = VK_TRUE
	FragmentEntry string
	Width, Height uint32 // framebuffer size
	Color         ColorFormat
	VertexCount   uint32 // vertices per draw, triangle list
	Draws         uint32 // draws recorded in one render pass; 0 means 1
	// Buffers are the descriptor bindings, visible to the vertex and
	// fragment stages; each stage's module must find the ones it uses.
	Buffers []Buffer
	// Images and Samplers are the sampled images and samplers, visible to
	// both stages like the buffers (images.go).
	Images   []Image
	Samplers []Sampler
	// RequiredSubgroupSize 0 runs at the device default. Otherwise it needs
	// subgroup size control, a size in [minSubgroupSize, maxSubgroupSize]
	// and at least one of the job's stages in requiredSubgroupSizeStages; it
	// is passed (VkPipelineShaderStageRequiredSubgroupSizeCreateInfo) to each
	// of the job's stages listed there. Anything else is a *LimitError.
	RequiredSubgroupSize uint32
}

// DrawResult is the outcome of one draw job.
type DrawResult struct {
	Buffers         [][]byte      // contents after the draws, in DrawJob.Buffers order
	Color           []byte        // Width*Height*16 bytes, row y at y*Width*16; nil for NoColor
	PipelineCreated bool          // this job built a pipeline (cache miss)
	Elapsed         time.Duration // buffer upload, submit to fence signalled, readback
	PipelineTime    time.Duration // time spent building the pipeline (0 on a cache hit)
}

// drawPrepared is a draw job checked against the device, with its
// pipeline-cache key, the shim's description and bindings.
type drawPrepared struct {
	key      pipeKey
	desc     vkx.GraphicsDesc
	bindings []vkx.Binding
	modules  [][]uint32 // checked by the validator before the first build
	label    string
	draws    uint32
}

// prepareDraw checks a draw job (caller holds r.mu) and works out its
// pipeline: RunDraw and PrebuildDraws share it, so both build the same
// pipeline under the same key. Like prepare it checks everything it can
// before the driver sees the job: the modules' structure and descriptors,
// the device's limits and the storage-write features.
func (r *Runner) prepareDraw(job DrawJob) (drawPrepared, error) {
	var p drawPrepared
	if r.closed {
		return p, errClosed
	}
	if !r.ctx.Graphics() {
		return p, fmt.Errorf("vulkan: %s has no queue family with graphics and compute; it cannot draw", r.dev.Name)
	}
	color, err := job.Color.shim()
	if err != nil {
		return p, err
	}
	if len(job.VertexSPIRV) == 0 {
		return p, fmt.Errorf("vulkan: a draw needs a vertex shader")
	}
	if job.VertexCount == 0 {
		return p, fmt.Errorf("vulkan: a draw of 0 vertices runs no shader")
	}
	label := fmt.Sprintf("vertex %q", job.VertexEntry)
	vhash := hashWords(job.VertexSPIRV)
	vinfo, err := r.parse(vhash, job.VertexSPIRV, job.VertexEntry, execModelVertex)
	if err != nil {
		return p, err
	}
	var fhash [32]byte
	var finfo spirvInfo
	modules := [][]uint32{job.VertexSPIRV}
	if job.FragmentSPIRV != nil {
		label += fmt.Sprintf(", fragment %q", job.FragmentEntry)
		fhash = hashWords(job.FragmentSPIRV)
		if finfo, err = r.parse(fhash, job.FragmentSPIRV, job.FragmentEntry, execModelFragment); err != nil {
			return p, err
		}
		modules = append(modules, job.FragmentSPIRV)
	}
	// Limits and features first: nothing is created for a job the device
	// cannot run.
	if err := checkFramebuffer(r.dev, job.Width, job.Height); err != nil {
		return p, err
	}
	if err := CheckDemand(r.dev, Demand{Buffers: bufferDemands(job.Buffers)}); err != nil {
		return p, err
	}
	if err := checkStoreFeatures(r.dev, vinfo.used, finfo.used); err != nil {
		return p, err
	}
	vsSize, fsSize, err := drawSubgroupSizes(r.dev, job.RequiredSubgroupSize, job.FragmentSPIRV != nil)
	if err != nil {
		return p, err
	}
	bindings, layout, err := r.checkBindings(job.Buffers, job.Images, job.Samplers)
	if err != nil {
		return p, err
	}
	for _, used := range [][]descriptorUse{vinfo.used, finfo.used} {
		if err := checkDescriptors(used, job.Buffers, job.Images, job.Samplers); err != nil {
			return p, err
		}
	}
	return drawPrepared{
		key: pipeKey{
			hash: vhash, entry: job.VertexEntry, size: job.RequiredSubgroupSize, layout: layout,
			graphics: true, fragHash: fhash, fragEntry: job.FragmentEntry,
			color: job.Color, width: job.Width, height: job.Height,
		},
		desc: vkx.GraphicsDesc{
			Vertex: job.VertexSPIRV, VertexEntry: job.VertexEntry,
			Fragment: job.FragmentSPIRV, FragmentEntry: job.FragmentEntry,
			Color: color, Width: job.Width, Height: job.Height,
			VertexSize: vsSize, FragmentSize: fsSize,
		},
		bindings: bindings, modules: modules, label: label, draws: max(job.Draws, 1),
	}, nil
}

// RunDraw executes one draw job and returns its buffers and colour target.
func (r *Runner) RunDraw(job DrawJob) (*DrawResult, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p, err := r.prepareDraw(job)
	if err != nil {
		return nil, err
	}
	pipe, created, took, err := r.pipeline(p.key, p.label, func() (*vkx.Pipeline, error) {
		return r.ctx.CreateGraphicsPipeline(p.desc, p.bindings)
	}, p.modules...)
	if err != nil {
		return nil, err
	}
	res := &DrawResult{PipelineCreated: created, PipelineTime: took}

	start := time.Now()
	if err := r.upload(job.Buffers); err != nil {
		return nil, err
	}
	if err := r.uploadImages(job.Images, job.Samplers); err != nil {
		return nil, err
	}
	colorBytes := 0
	if job.Color != NoColor {
		colorBytes = int(job.Width) * int(job.Height) * texelBytes
	}
	img, err := r.ctx.Draw(pipe, p.bindings, job.VertexCount, p.draws, uint64(r.timeout.Nanoseconds()), colorBytes)
	if err != nil {
		return nil, fmt.Errorf("vulkan: draw (%s) %dx%d, %d x %d vertices: %w", p.label, job.Width, job.Height, p.draws, job.VertexCount, err)
	}
	if img != nil {
		res.Color = append([]byte(nil), img...)
	}
	if res.Buffers, err = r.readBack(job.Buffers); err != nil {
		return nil, err
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

// PrebuildDraws creates the graphics pipelines of jobs on up to workers
// goroutines, as Prebuild does for compute pipelines (same cache, bound and
// rules): RunDraw then finds them cached. Nothing is drawn here.
func (r *Runner) PrebuildDraws(jobs []DrawJob, workers int) int {
	r.mu.Lock()
	var items []buildItem
	seen := map[pipeKey]bool{}
	for _, job := range jobs {
		p, err := r.prepareDraw(job)
		if err != nil || seen[p.key] || r.pipes[p.key] != nil {
			continue
		}
		seen[p.key] = true
		items = append(items, buildItem{key: p.key, modules: p.modules, build: func() (*vkx.Pipeline, error) {
			return r.ctx.CreateGraphicsPipeline(p.desc, p.bindings)
		}})
	}
	return r.buildAll(items, workers) // unlocks r.mu
}

// checkFramebuffer refuses an empty framebuffer and one over the device's
// maxFramebufferWidth/Height.
func checkFramebuffer(dev devices.Device, w, h uint32) error {
	if w == 0 || h == 0 {
		return fmt.Errorf("vulkan: framebuffer %dx%d is empty", w, h)
	}
	if lim := dev.MaxFramebufferWidth; lim > 0 && w > lim {
		return limitErr("maxFramebufferWidth", "framebuffer width %d exceeds maxFramebufferWidth %d on %s", w, lim, dev.Name)
	}
	if lim := dev.MaxFramebufferHeight; lim > 0 && h > lim {
		return limitErr("maxFramebufferHeight", "framebuffer height %d exceeds maxFramebufferHeight %d on %s", h, lim, dev.Name)
	}
	return nil
}

// checkStoreFeatures refuses a draw whose vertex or fragment module uses a
// storage buffer when the device lacks vertexPipelineStoresAndAtomics or
// fragmentStoresAndAtomics. Without the feature the stage may only read
// storage buffers declared NonWritable; the rule here is simpler (any use
// needs the feature), which only errs on the side of a skip for read-only
// storage buffers, and the rig's kernels write records from both stages.
// The *LimitError's Limit is the feature's name.
func checkStoreFeatures(dev devices.Device, vertex, fragment []descriptorUse) error {
	stages := []struct {
		used    []descriptorUse
		have    bool
		feature string
		stage   string
	}{
		{vertex, dev.VertexPipelineStoresAndAtomics, "vertexPipelineStoresAndAtomics", "vertex"},
		{fragment, dev.FragmentStoresAndAtomics, "fragmentStoresAndAtomics", "fragment"},
	}
	for _, s := range stages {
		if s.have {
			continue
		}
		for _, d := range s.used {
			if d.kind == Storage {
				return limitErr(s.feature, "the %s shader uses storage buffer set %d binding %d, which needs %s; %s lacks it", s.stage, d.set, d.binding, s.feature, dev.Name)
			}
		}
	}
	return nil
}

// drawSubgroupSizes decides the required subgroup size passed to the
// vertex and fragment stages (0: none). Only stages in
// requiredSubgroupSizeStages may get one; a request no stage of the job can
// honour is refused rather than silently run at the default size.
func drawSubgroupSizes(dev devices.Device, req uint32, hasFragment bool) (vs, fs uint32, err error) {
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
	if sc.RequiredSubgroupSizeStages&devices.StageVertex != 0 {
		vs = req
	}
	if hasFragment && sc.RequiredSubgroupSizeStages&devices.StageFragment != 0 {
		fs = req
	}
	if vs == 0 && fs == 0 {
		return 0, 0, limitErr("requiredSubgroupSizeStages", "required subgroup size %d: requiredSubgroupSizeStages on %s is %v, none of the draw's stages", req, dev.Name, devices.ShaderStageNames(sc.RequiredSubgroupSizeStages))
	}
	return vs, fs, nil
}
