package pass

// Running a `waverig exec` case on the rig's device: compile (or assemble) its
// shader, check it against the device's limits before a buffer is allocated,
// dispatch once and compare (harness/casefile has the format).

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"waverig/compiler"
	"waverig/compiler/reflect"
	"waverig/devices"
	"waverig/devices/vkx"
	"waverig/harness/casefile"
	"waverig/harness/kernels"
	"waverig/harness/plan"
	"waverig/harness/produce"
	"waverig/harness/results"
	"waverig/harness/vulkan"
)

// ExecCase compiles the case's shader (compiler "ours", "glslang" or a
// "cmd:NAME=PATH" spec; a module shader is not compiled), runs it on the
// rig's device through api — Vulkan runs the SPIR-V, WebGPU waverig's (or the
// command's) WGSL on the WebGPU adapter of the same device, for which the rig
// must have been opened with WebGPU in Config.APIs — and returns every
// mismatch (nil when all expectations hold). A problem with the case is a
// *casefile.Error; a case the device cannot run (a limit it exceeds, an
// illegal subgroup size) or a missing tool is a *casefile.Skip, found before
// any buffer is allocated.
func (r *Rig) ExecCase(api string, c *casefile.Case, comp string) ([]casefile.Mismatch, error) {
	if err := c.Check(); err != nil { // a case not made by casefile.Load
		return nil, err
	}
	bad := c.Errorf
	shaderPath := c.ShaderPath()
	src := c.Source()
	if src == nil {
		var err error
		if src, err = compiler.ReadSource(shaderPath); err != nil {
			return nil, bad("cannot read shader: %v", err)
		}
	}
	if casefile.ShaderKind(c.Shader) != casefile.ShaderHLSL {
		return r.execModule(api, c, comp, src)
	}
	var mod *module
	var waveSize *reflect.WaveSize // the shader's [WaveSize] range (Vulkan)
	in := produce.Source{Name: shaderPath, Path: shaderPath, HLSL: src, Entry: c.Entry, Stage: results.Compute, Defines: c.Defines, Extensions: c.Extensions, Registers: c.Registers()}
	cc, isCmd := produce.CommandOf(comp)
	switch {
	case runsWGSL(api) && comp != "" && comp != Ours && !strings.HasPrefix(comp, produce.CommandPrefix):
		return nil, bad("compiler %q emits no WGSL: WebGPU runs waverig's compiler or a command compiler", comp)
	case runsWGSL(api):
		if r.devs[api] == nil {
			return nil, &casefile.Skip{Reason: r.skips[api]}
		}
		ours := produced(produce.OursCompiler{}.Compile(in, apiTarget(api)))
		mod = ours
		if isCmd {
			// The command's WGSL, bound by the names waverig's reflection
			// gives the registers (as on Vulkan); [WaveSize] is waverig's.
			in.Names = func() map[string]string { return resourceNames(ours) }
			mod = produced(cc.Compile(in, apiTarget(api)))
			if mod.err != nil {
				return nil, mod.err // the compiler failed on the case (exit 1)
			}
			mod.waveSize = ours.waveSize
		} else if mod.err != nil {
			return nil, bad("shader does not compile:\n%s", strings.TrimPrefix(mod.err.Error(), "waverig compile (WGSL) failed:\n"))
		}
		if mod.skip != "" {
			return nil, &casefile.Skip{Reason: mod.skip}
		}
		if why := r.wgslWaveSize(api, c.SubgroupSize); why != "" {
			return nil, &casefile.Skip{Reason: why}
		}
		if len(c.Extensions) > 0 {
			return nil, &casefile.Skip{Reason: "the case needs the SPIR-V extension " + strings.Join(c.Extensions, ", ") + ", which WebGPU has no way to ask for"}
		}
		if mod.waveSize != nil {
			return nil, &casefile.Skip{Reason: "WebGPU cannot require a wave size ([WaveSize] " + plan.WaveSizeRange(mod.waveSize) + "; the WGSL back end warns W0601)"}
		}
		if _, err := bindBuffers(c, mod); err != nil {
			return nil, err
		}
		return r.execWGSL(api, c, mod)
	case comp == "" || comp == Ours:
		mod = compileOurs(in)
		if mod.err != nil {
			return nil, bad("shader does not compile:\n%s", strings.TrimPrefix(mod.err.Error(), "waverig compile failed:\n"))
		}
		waveSize = mod.waveSize
	case comp == Glslang:
		// glslang has no [WaveSize] reflection: the range comes from waverig's.
		if ours := compileOurs(in); ours.err == nil {
			waveSize = ours.waveSize
		}
		mod = produced(produce.GlslangCompiler{}.Compile(in, produce.SPIRV))
		if mod.err != nil {
			return nil, bad("%v", mod.err)
		}
		if mod.skip != "" {
			return nil, bad("shader does not compile with glslang: %s", mod.skip)
		}
	case strings.HasPrefix(comp, produce.CommandPrefix):
		if !isCmd {
			return nil, bad("compiler %q: write cmd:NAME=PATH", comp)
		}
		// As for glslang, [WaveSize] and the resources' names (which bind
		// the command's module) come from waverig's reflection, when waverig
		// can compile the shader.
		ours := compileOurs(in)
		if ours.err == nil {
			waveSize = ours.waveSize
		}
		in.Names = func() map[string]string { return resourceNames(ours) }
		mod = produced(cc.Compile(in, produce.SPIRV))
		if mod.err != nil {
			return nil, mod.err // the compiler failed on the case (exit 1)
		}
		if mod.skip != "" {
			return nil, &casefile.Skip{Reason: mod.skip}
		}
	default:
		return nil, bad("unknown compiler %q (use ours, glslang or cmd:NAME=PATH)", comp)
	}
	return r.execVulkan(c, mod, waveSize)
}

// execVulkan validates a case's module, checks everything the device must
// allow before a buffer is allocated, and runs it; waveSize is the shader's
// [WaveSize] range (nil without one).
func (r *Rig) execVulkan(c *casefile.Case, mod *module, waveSize *reflect.WaveSize) ([]casefile.Mismatch, error) {
	if err := vulkan.Validate(mod.spirv); err != nil {
		return nil, err
	} else if mod.skip != "" {
		return nil, &casefile.Skip{Reason: mod.skip}
	}

	// Everything the device must allow is checked before a buffer is allocated.
	demand, err := vulkan.ModuleDemand(mod.spirv, c.Entry)
	if err != nil {
		return nil, err
	}
	demand.Groups = c.Dispatch
	if c.SubgroupSize != r.dev.SubgroupSize {
		demand.SubgroupSize = c.SubgroupSize
	}
	full := false
	if waveSize != nil {
		size, err := waveSizeOn(c, r.dev, waveSize)
		if err != nil {
			return nil, err
		}
		// [WaveSize] is a requirement: the size is asked for even when it is
		// the default, with full subgroups when the workgroup is whole waves.
		demand.SubgroupSize = size
		full = demand.LocalSize[0] != 0 && demand.LocalSize[0]%size == 0
	}
	demands, err := bindBuffers(c, mod)
	if err != nil {
		return nil, err
	}
	demand.Buffers = demands
	if err := vulkan.CheckDemand(r.dev, demand); err != nil {
		return nil, skipOf(err)
	}

	job := vulkan.Job{SPIRV: mod.spirv, Entry: c.Entry, Groups: c.Dispatch, RequiredSubgroupSize: demand.SubgroupSize, FullSubgroups: full}
	for _, b := range c.Buffers {
		bd, _ := mod.binding(b.Binding) // checked by bindBuffers
		job.Buffers = append(job.Buffers, vulkanBuffer(bd, b.Initial()))
	}
	res, err := r.runner.Run(job)
	if err != nil {
		return nil, skipOf(err)
	}
	return c.Mismatches(res.Buffers), nil
}

// waveSizeOn is the size a case with a [WaveSize] shader runs at: the case
// file's subgroup_size when it is in the range (outside it the case contradicts
// its shader: a case error), else the size plan.PickWaveSize gives; a device with no
// legal size in the range is a skip naming it.
func waveSizeOn(c *casefile.Case, d devices.Device, ws *reflect.WaveSize) (uint32, error) {
	if s := c.SubgroupSize; s != 0 {
		if s < uint32(ws.Min) || s > uint32(ws.Max) {
			return 0, c.Errorf("subgroup_size %d is outside the shader's [WaveSize] %s", s, plan.WaveSizeRange(ws))
		}
		return s, nil
	}
	size, why := plan.PickWaveSize(ws, d)
	if size == 0 {
		return 0, &casefile.Skip{Reason: why}
	}
	return size, nil
}

// runsWGSL reports whether exec runs a case on api as WGSL: WebGPU through
// either implementation, or the browser's.
func runsWGSL(api string) bool { return isWebGPU(api) || api == Browser }

// wgslWaveSize says why a WGSL API cannot run a case that asks for wave size
// size ("" when it can: no size asked, or the one size the adapter runs).
// WebGPU cannot ask for a size; wgpu-native runs the Vulkan device's own.
func (r *Rig) wgslWaveSize(api string, size uint32) string {
	if size == 0 {
		return ""
	}
	lo, hi := r.dev.SubgroupSize, r.dev.SubgroupSize
	switch {
	case api == Dawn && r.dawn != nil:
		lo, hi = r.dawn.Adapter.SubgroupMinSize, r.dawn.Adapter.SubgroupMaxSize
	case api == Browser && r.browser != nil:
		lo, hi = r.browser.Adapter.SubgroupMinSize, r.browser.Adapter.SubgroupMaxSize
	}
	if lo == size && hi == size {
		return ""
	}
	return fmt.Sprintf("WebGPU cannot require wave size %d (the adapter runs %d..%d)", size, lo, hi)
}

// execWGSL binds a case's buffers to the WGSL module's bindings and runs it
// on a WGSL API (wgpu-native, Dawn, the browser).
func (r *Rig) execWGSL(api string, c *casefile.Case, mod *module) ([]casefile.Mismatch, error) {
	j := ComputeJob{Kernel: kernels.Kernel{Name: c.Shader, Groups: c.Dispatch}, WGSL: mod.wgsl, Entry: mod.entry}
	for _, b := range c.Buffers {
		bd, _ := mod.binding(b.Binding) // checked by bindBuffers
		j.Buffers = append(j.Buffers, bufferOf(b.Binding, bd, b.Initial()))
	}
	out, err := r.devs[api].Compute(j)
	if err != nil {
		return nil, err
	}
	bufs := make([][]byte, len(c.Buffers))
	for i, b := range c.Buffers {
		bufs[i] = out[b.Binding]
	}
	return c.Mismatches(bufs), nil
}

// skipOf turns a device limit the job exceeds into a skip; other errors pass.
func skipOf(err error) error {
	var le *vulkan.LimitError
	if errors.As(err, &le) {
		return &casefile.Skip{Reason: strings.TrimPrefix(le.Error(), "vulkan: ")}
	}
	return err
}

// sortedRegisters lists the registers of the module's resources, sorted.
func sortedRegisters(m *module) []string {
	regs := make([]string, 0, len(m.bindings))
	for reg := range m.bindings {
		regs = append(regs, reg)
	}
	sort.Strings(regs)
	return regs
}

// bindBuffers checks a case's buffers against the module's resources — every
// buffer names a buffer resource of the shader, big enough for its block, in
// a set the rig binds, and every resource the shader uses has a buffer — and
// returns what each buffer asks of the device.
func bindBuffers(c *casefile.Case, mod *module) ([]vulkan.BufferDemand, error) {
	bad := c.Errorf
	var demands []vulkan.BufferDemand
	bound := map[string]bool{}
	for i, b := range c.Buffers {
		bd, ok := mod.binding(b.Binding)
		if !ok {
			return nil, bad("buffers[%d]: the shader has no resource at %s %s", i, c.BindingWord(), b.Binding)
		}
		switch bd.Descriptor {
		case "VK_DESCRIPTOR_TYPE_STORAGE_BUFFER", "VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER":
		default:
			return nil, bad("buffers[%d]: %s %s is %s %s, not a buffer", i, c.BindingWord(), b.Binding, bd.Kind, bd.Name)
		}
		if bd.Size > b.Size() {
			return nil, bad("buffers[%d]: %s %s is %s of %d bytes; the case gives %d", i, c.BindingWord(), b.Binding, bd.Name, bd.Size, b.Size())
		}
		if bd.Set >= vkx.MaxSets {
			return nil, bad("buffers[%d]: %s %s is in descriptor set %d; the rig binds sets 0 to %d", i, c.BindingWord(), b.Binding, bd.Set, vkx.MaxSets-1)
		}
		bound[reflect.NormalizeRegister(b.Binding)] = true
		demands = append(demands, vulkan.BufferDemand{Kind: bufferKind(bd.Descriptor), Size: uint64(b.Size())})
	}
	for _, reg := range sortedRegisters(mod) {
		if bd, _ := mod.binding(reg); !bound[reg] {
			return nil, bad("the shader uses %s %s (%s %s) but the case has no buffer for it", bd.Kind, bd.Name, c.BindingWord(), reg)
		}
	}
	return demands, nil
}
