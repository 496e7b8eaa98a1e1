package pass

import (
	"fmt"

	"waverig/compiler/reflect"
	"waverig/harness/kernels"
	"waverig/harness/models"
	"waverig/harness/results"
	"waverig/harness/vulkan"
	"waverig/harness/webgpu"
)

// Graphics stages: a draw kernel holds a vertex and (for pixel kernels) a pixel
// entry point in one source; both are compiled by the same compiler, bound
// from their joint reflection, and drawn in one render pass per kernel (one
// draw per case replica).

// Vulkan's VkShaderStageFlagBits the rig reads from subgroupSupportedStages.
const (
	vkStageVertex   = 0x1
	vkStageFragment = 0x10
)

// stageMissing says why the device (or WebGPU adapter) cannot run wave
// operations of a draw kernel's stage, naming the field it read ("" when it
// can).
func (r *Rig) stageMissing(api string, k kernels.Kernel) string {
	d := r.dev
	quad := false
	for _, c := range k.Cases {
		quad = quad || models.IsQuadOp(c.Op)
	}
	switch k.Stage {
	case kernels.Pixel:
		if d.SupportedStages&vkStageFragment == 0 {
			return "device's subgroupSupportedStages lacks VK_SHADER_STAGE_FRAGMENT_BIT"
		}
		if !d.FragmentStoresAndAtomics {
			return "device lacks fragmentStoresAndAtomics (the pixel kernels write their records to a storage buffer)"
		}
	case kernels.Vertex:
		if d.SupportedStages&vkStageVertex == 0 {
			return "device's subgroupSupportedStages lacks VK_SHADER_STAGE_VERTEX_BIT"
		}
		if quad && !d.QuadOperationsInAllStages {
			return "device's subgroupQuadOperationsInAllStages is false (quad operations only in fragment and compute)"
		}
		if !d.VertexPipelineStoresAndAtomics {
			return "device lacks vertexPipelineStoresAndAtomics (the vertex kernels write their records to a storage buffer)"
		}
	}
	return ""
}

// drawModules compiles a draw kernel's entry points for a target; a skip or an
// error of either is the pair's.
func (r *Rig) drawModules(k kernels.Kernel, t target) (vs, ps *module, err error) {
	vs = r.compileEntry(k, t, k.Draw.VertexEntry, results.Vertex)
	if k.Draw.PixelEntry != "" {
		ps = r.compileEntry(k, t, k.Draw.PixelEntry, results.Pixel)
	}
	for _, m := range []*module{ps, vs} {
		switch {
		case m == nil:
		case m.skip != "":
			return nil, nil, skipError(m.skip)
		case m.err != nil:
			return nil, nil, m.err
		}
	}
	return vs, ps, nil
}

// drawBindings maps a kernel's registers to the joint bindings of its vertex
// and pixel modules: a register both use must have one binding in both.
func drawBindings(k kernels.Kernel, vs, ps *module) (regs []string, binds []reflect.Binding, err error) {
	for _, b := range k.Buffers {
		var got *reflect.Binding
		for _, m := range []*module{vs, ps} {
			if m == nil {
				continue
			}
			bd, ok := m.binding(b.Register)
			if !ok {
				continue
			}
			if got != nil && (got.Set != bd.Set || got.Binding != bd.Binding) {
				return nil, nil, fmt.Errorf("register %s is set %d binding %d in the vertex module but set %d binding %d in the pixel module",
					b.Register, got.Set, got.Binding, bd.Set, bd.Binding)
			}
			got = &bd
		}
		if got != nil {
			regs = append(regs, b.Register)
			binds = append(binds, *got)
		}
	}
	return regs, binds, nil
}

// drawJob is the job of a draw kernel on a target, built as runDraw builds it
// (the pipeline prebuild builds the same, so runDraw finds its pipeline
// cached): the Vulkan job for Vulkan targets, the WebGPU one for WebGPU, and
// the registers of their buffers, in order.
type drawJob struct {
	vulkan vulkan.DrawJob
	webgpu webgpu.DrawJob
	regs   []string
}

// drawJobOf compiles (cached) a draw kernel's modules for t and builds its job.
func (r *Rig) drawJobOf(k kernels.Kernel, t target) (drawJob, error) {
	var j drawJob
	vs, ps, err := r.drawModules(k, t)
	if err != nil {
		return j, err
	}
	regs, binds, err := drawBindings(k, vs, ps)
	if err != nil {
		return j, err
	}
	j.regs = regs
	data := map[string][]byte{}
	for _, b := range k.Buffers {
		data[b.Register] = b.Data
	}
	d := k.Draw
	if t.api == WebGPU {
		job := webgpu.DrawJob{VertexWGSL: vs.wgsl, VertexEntry: vs.entry, Width: d.Width, Height: d.Height,
			VertexCount: d.VertexCount, Draws: d.Draws, Color: webgpu.NoColor}
		if ps != nil {
			job.FragmentWGSL, job.FragmentEntry, job.Color = ps.wgsl, ps.entry, webgpu.RGBA32Uint
			if d.FloatColor {
				job.Color = webgpu.RGBA32Float
			}
		}
		for i, bd := range binds {
			job.Bindings = append(job.Bindings, webgpuBinding(bd, data[regs[i]]))
		}
		j.webgpu = job
		return j, nil
	}
	job := vulkan.DrawJob{VertexSPIRV: vs.spirv, VertexEntry: vs.entry, Width: d.Width, Height: d.Height,
		VertexCount: d.VertexCount, Draws: d.Draws, Color: vulkan.NoColor}
	if ps != nil {
		job.FragmentSPIRV, job.FragmentEntry, job.Color = ps.spirv, ps.entry, vulkan.RGBA32Uint
		if d.FloatColor {
			job.Color = vulkan.RGBA32Float
		}
	}
	for i, bd := range binds {
		job.Buffers = append(job.Buffers, vulkanBuffer(bd, data[regs[i]]))
	}
	j.vulkan = job
	return j, nil
}

// runDraw compiles (cached), draws and reads back one draw kernel; the colour
// target comes back under kernels.ColorTarget.
func (r *Rig) runDraw(k kernels.Kernel, t target) (map[string][]byte, error) {
	j, err := r.drawJobOf(k, t)
	if err != nil {
		return nil, err
	}
	var bufs [][]byte
	var color []byte
	if t.api == WebGPU {
		res, err := r.gpu.RunDraw(j.webgpu)
		if err != nil {
			return nil, err
		}
		bufs, color = res.Buffers, res.Color
	} else {
		res, err := r.runner.RunDraw(j.vulkan)
		if err != nil {
			return nil, err
		}
		bufs, color = res.Buffers, res.Color
	}
	out := map[string][]byte{}
	for i, reg := range j.regs {
		out[reg] = bufs[i]
	}
	if color != nil {
		out[kernels.ColorTarget] = color
	}
	return out, nil
}
