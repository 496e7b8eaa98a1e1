package pass

import (
	"cmp"
	"fmt"

	"waverig/compiler/reflect"
	"waverig/devices"
	"waverig/harness/kernels"
	"waverig/harness/models"
	"waverig/harness/results"
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
	if why := DeviceStageMissing(r.dev, k); why != "" {
		return why
	}
	if k.Stage == kernels.Vertex && api == WebGPU && r.gpu != nil {
		switch {
		case !r.gpu.Adapter.SubgroupVertex:
			return "WebGPU adapter lacks native-feature-subgroup-vertex (wave operations in vertex shaders)"
		case !r.gpu.Adapter.VertexWritableStorage:
			return "WebGPU adapter lacks native-feature-vertex-writable-storage (the vertex kernels write their records to a storage buffer)"
		}
	}
	return ""
}

// DeviceStageMissing is the device's half of stageMissing: why the Vulkan
// device cannot run wave operations of a draw kernel's stage, whatever the
// API ("" when it can). Like DeviceMissing, the suites ask it before a run.
func DeviceStageMissing(d devices.Device, k kernels.Kernel) string {
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
			return nil, nil, SkipError(m.skip)
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
		got, err := jointBinding(b.Register, vs, ps)
		if err != nil {
			return nil, nil, err
		}
		if got != nil {
			regs = append(regs, b.Register)
			binds = append(binds, *got)
		}
	}
	return regs, binds, nil
}

// jointBinding is where the vertex and pixel modules (either may be nil) bind
// a register: nil where neither uses it, an error where they disagree.
func jointBinding(register string, vs, ps *module) (*reflect.Binding, error) {
	var got *reflect.Binding
	for _, m := range []*module{vs, ps} {
		if m == nil {
			continue
		}
		bd, ok := m.binding(register)
		if !ok {
			continue
		}
		if got != nil && (got.Set != bd.Set || got.Binding != bd.Binding) {
			return nil, fmt.Errorf("register %s is set %d binding %d in the vertex module but set %d binding %d in the pixel module",
				register, got.Set, got.Binding, bd.Set, bd.Binding)
		}
		got = &bd
	}
	return got, nil
}

// drawJobOf compiles (cached) a draw kernel's modules for t and builds its
// job: runDraw and the pipeline prebuild build the same, so runDraw finds its
// pipeline cached.
func (r *Rig) drawJobOf(k kernels.Kernel, t target) (DrawJob, error) {
	vs, ps, err := r.drawModules(k, t)
	if err != nil {
		return DrawJob{}, err
	}
	regs, binds, err := drawBindings(k, vs, ps)
	if err != nil {
		return DrawJob{}, err
	}
	data := map[string][]byte{}
	for _, b := range k.Buffers {
		data[b.Register] = b.Data
	}
	j := DrawJob{Kernel: k, VertexSPIRV: vs.spirv, VertexWGSL: vs.wgsl, VertexEntry: vs.entry}
	if ps != nil {
		j.PixelSPIRV, j.PixelWGSL, j.PixelEntry = ps.spirv, ps.wgsl, ps.entry
	}
	for i, bd := range binds {
		j.Buffers = append(j.Buffers, bufferOf(regs[i], bd, data[regs[i]]))
	}
	var bindErr error
	j.Textures, j.Samplers = samplingOf(k, func(reg string) (reflect.Binding, bool) {
		bd, err := jointBinding(reg, vs, ps)
		if err != nil || bd == nil {
			bindErr = cmp.Or(bindErr, err)
			return reflect.Binding{}, false
		}
		return *bd, true
	})
	return j, bindErr
}

// runDraw compiles (cached), draws and reads back one draw kernel; the colour
// target comes back under kernels.ColorTarget.
func (r *Rig) runDraw(k kernels.Kernel, t target) (map[string][]byte, error) {
	j, err := r.drawJobOf(k, t)
	if err != nil {
		return nil, err
	}
	return r.devs[t.api].Draw(j)
}
