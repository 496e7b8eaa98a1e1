package pass

import (
	"crypto/sha256"
	"fmt"
	"runtime"
	"strings"
	"sync"

	"waverig/compiler/reflect"
	"waverig/harness/kernels"
	"waverig/harness/produce"
	"waverig/harness/results"
	"waverig/harness/vulkan"
)

// module is one kernel compiled by one compiler and checked by spirv-val.
type module struct {
	spirv    []uint32 // Vulkan
	wgsl     string   // WebGPU
	entry    string
	bindings map[string]reflect.Binding // reflect.NormalizeRegister(register) -> binding
	err      error                      // counts against the compiler (or the rig)
	skip     string                     // not runnable here, and why
	// waveSize is the [WaveSize] range waverig's reflection reports for the
	// entry point (nil without the attribute, and for glslang's modules).
	waveSize *reflect.WaveSize
}

func (m *module) binding(register string) (reflect.Binding, bool) {
	b, ok := m.bindings[reflect.NormalizeRegister(register)]
	return b, ok
}

func (r *Rig) compile(k kernels.Kernel, t target) *module {
	return r.compileEntry(k, t, k.Entry, results.Compute)
}

// compilers are the rig's compilers by the name records give them: those
// the configuration lists, and waverig's always (its reflection names the
// resources a command compiler's module is bound by). Built on first use,
// so a Rig made without New (tests) has them too.
func (r *Rig) compilers() map[string]produce.Compiler {
	r.compilersOnce.Do(func() {
		r.byName = map[string]produce.Compiler{produce.Ours: produce.OursCompiler{}}
		for _, spec := range r.cfg.Compilers {
			if c, ok := produce.FromSpec(spec); ok {
				r.byName[produce.CompilerName(spec)] = c
			}
		}
	})
	return r.byName
}

// apiTarget is what an API runs: SPIR-V on Vulkan, naga's WGSL on
// wgpu-native, the standard dialect on Dawn.
func apiTarget(api string) produce.Target {
	switch api {
	case WebGPU:
		return produce.WGSL
	case Dawn, Browser:
		return produce.WGSLStandard
	}
	return produce.SPIRV
}

// kernelSource is one entry point of a kernel as every compiler is given it.
func kernelSource(k kernels.Kernel, entry, stage string) produce.Source {
	return produce.Source{Name: k.Name + ".hlsl", HLSL: []byte(k.HLSL), Entry: entry, Stage: stage, Extensions: k.Extensions, Registers: kernelRegisters(k)}
}

// compileEntry compiles one entry point of a kernel's source for a stage
// (draw kernels hold a vertex and a pixel entry point in one source), once
// per target (API and compiler): the rig's compile cache.
func (r *Rig) compileEntry(k kernels.Kernel, t target, entry, stage string) *module {
	h := sha256.Sum256([]byte(k.HLSL))
	// One source compiled with different SPIR-V extensions (a portable and a
	// native kernel of the same operation) is two modules.
	key := fmt.Sprintf("%s/%s/%s/%x/%s/%d", t, stage, entry, h[:8], strings.Join(k.Extensions, ","), r.dev.SubgroupSize)
	r.mu.Lock()
	if m, ok := r.cache[key]; ok {
		r.mu.Unlock()
		return m
	}
	r.mu.Unlock()
	// Compile outside the lock so precompile can use every core; two racing
	// compiles of one kernel give the same module, and the first stored wins.
	var m *module
	if c, ok := r.compilers()[t.comp]; ok {
		src := kernelSource(k, entry, stage)
		// naga's vertex shaders cannot read the wave size: the device's own
		// is the one draws run at.
		src.WaveSize = r.dev.SubgroupSize
		// waverig's reflection of the same entry (its Vulkan module, cached)
		// names each register's resource: a command's module is matched to
		// it by those names.
		src.Names = func() map[string]string { return resourceNames(r.compileEntry(k, target{Vulkan, Ours}, entry, stage)) }
		m = produced(c.Compile(src, apiTarget(t.api)))
	} else {
		m = &module{err: fmt.Errorf("unknown compiler %q", t.comp)}
	}
	if m.err == nil && m.skip == "" && t.api == Vulkan {
		if err := vulkan.Validate(m.spirv); err != nil {
			m.err = err
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if prev, ok := r.cache[key]; ok {
		return prev
	}
	r.cache[key] = m
	return m
}

// kernelRegisters are the HLSL registers a kernel binds buffers, textures and
// samplers at.
func kernelRegisters(k kernels.Kernel) []string {
	regs := make([]string, 0, len(k.Buffers))
	for _, b := range k.Buffers {
		regs = append(regs, b.Register)
	}
	for _, t := range k.Textures {
		regs = append(regs, t.Register)
	}
	for _, s := range k.Samplers {
		regs = append(regs, s.Register)
	}
	return regs
}

// remaining drops the kernels a crashed predecessor already ran (those up to the
// one named by resumeAfter, "api/kernel/compiler").
func remaining(ks []kernels.Kernel, resumeAfter string) []kernels.Kernel {
	parts := strings.Split(resumeAfter, "/")
	name := ""
	if len(parts) == 3 {
		name = parts[1]
	}
	if name == "" {
		return ks
	}
	for i, k := range ks {
		if k.Name == name {
			return ks[i:]
		}
	}
	return ks
}

// precompile compiles and validates every kernel with every compiler on all cores
// before the (serial) dispatches start: glslang's compiles, the validator and
// command compilers' processes are the CPU work of a kernel before its pipeline.
func (r *Rig) precompile(ks []kernels.Kernel, targets []target) {
	type job struct {
		k kernels.Kernel
		t target
	}
	jobs := make(chan job)
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				if j.k.Draw != nil {
					r.drawModules(j.k, j.t)
					continue
				}
				if j.k.MeshDraw != nil {
					r.meshModules(j.k, j.t)
					continue
				}
				r.compile(j.k, j.t)
			}
		}()
	}
	for _, k := range ks {
		for _, t := range targets {
			if r.missingFeature(t.api, k) == "" {
				jobs <- job{k, t}
			}
		}
	}
	close(jobs)
	wg.Wait()
}

// produced is a module of harness/produce as the rig keeps it: the skip or the
// error in the module, so the cache holds every outcome once.
func produced(pm produce.Module, skip string, err error) *module {
	switch {
	case err != nil:
		return &module{err: err}
	case skip != "":
		return &module{skip: skip}
	}
	return &module{spirv: pm.SPIRV, wgsl: pm.WGSL, entry: pm.Entry, bindings: pm.Bindings, waveSize: pm.WaveSize}
}

// compileOurs compiles a source with waverig's compiler to SPIR-V.
func compileOurs(src produce.Source) *module {
	return produced(produce.OursCompiler{}.Compile(src, produce.SPIRV))
}

// compileWGSL compiles a source with waverig's compiler to WGSL for
// wgpu-native (a skip for what WGSL cannot express).
func compileWGSL(name string, hlsl []byte, entry, stage string, defines map[string]string) *module {
	return produced(produce.OursCompiler{}.Compile(produce.Source{Name: name, HLSL: hlsl, Entry: entry, Stage: stage, Defines: defines}, produce.WGSL))
}

// compilerSpec is how a command line names one of the configuration's
// compilers (a repro's -compiler): "cmd:NAME=PATH" for a command compiler,
// else its name.
func (c Config) compilerSpec(name string) string {
	for _, spec := range c.Compilers {
		if comp, ok := produce.FromSpec(spec); ok && produce.CompilerName(spec) == name {
			return comp.Spec()
		}
	}
	return name
}

// resourceNames maps each register of a module waverig compiled to its
// resource's name.
func resourceNames(m *module) map[string]string {
	if m == nil || m.err != nil {
		return nil
	}
	names := map[string]string{}
	for reg, b := range m.bindings {
		names[reg] = b.Name
	}
	return names
}
