package harness

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"

	"waverig/compiler"
	"waverig/compiler/reflect"
	"waverig/harness/glslang"
	"waverig/harness/kernels"
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

// DefaultCompilers is waverig's compiler, plus glslang when it is installed.
func DefaultCompilers() []string {
	if glslang.Installed() {
		return []string{Ours, Glslang}
	}
	return []string{Ours}
}

func (r *Rig) compile(k kernels.Kernel, t target) *module {
	return r.compileEntry(k, t, k.Entry, results.Compute)
}

// compileEntry compiles one entry point of a kernel's source for a stage
// (draw kernels hold a vertex and a pixel entry point in one source).
func (r *Rig) compileEntry(k kernels.Kernel, t target, entry, stage string) *module {
	h := sha256.Sum256([]byte(k.HLSL))
	// One source compiled with different SPIR-V extensions (a portable and a
	// native kernel of the same operation) is two modules.
	key := fmt.Sprintf("%s/%s/%s/%x/%s", t, stage, entry, h[:8], strings.Join(k.Extensions, ","))
	r.mu.Lock()
	if m, ok := r.cache[key]; ok {
		r.mu.Unlock()
		return m
	}
	r.mu.Unlock()
	// Compile outside the lock so precompile can use every core; two racing
	// compiles of one kernel give the same module, and the first stored wins.
	var m *module
	comp := t.comp
	switch {
	case t.api == WebGPU && comp == Ours:
		m = compileWGSL(k.Name+".hlsl", []byte(k.HLSL), entry, stage, nil)
	case comp == Ours:
		m = compileOurs(k.Name+".hlsl", []byte(k.HLSL), oursOptions(k, entry, stage))
	case comp == Glslang && t.api == WebGPU:
		m = &module{skip: "glslang emits no WGSL"}
	case comp == Glslang:
		m = compileGlslang(k.HLSL, entry, stage, kernelRegisters(k))
	default:
		cc, ok := r.cfg.command(comp)
		if !ok {
			m = &module{err: fmt.Errorf("unknown compiler %q", comp)}
			break
		}
		// waverig's reflection of the same entry names each register's
		// resource; the command's module is matched to it by those names.
		names := resourceNames(r.compileEntry(k, target{Vulkan, Ours}, entry, stage))
		in := CommandInput{Source: []byte(k.HLSL), FileName: k.Name + ".hlsl", Entry: entry, Stage: stage, Extensions: k.Extensions}
		if t.api == WebGPU {
			m = compileCommandWGSL(cc, in, kernelRegisters(k), names)
		} else {
			m = compileCommand(cc, in, kernelRegisters(k), names)
		}
	}
	if m.err == nil && m.skip == "" && t.api == Vulkan {
		if err := r.validate(m); err != nil {
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

// kernelRegisters are the HLSL registers a kernel binds buffers at.
func kernelRegisters(k kernels.Kernel) []string {
	regs := make([]string, 0, len(k.Buffers))
	for _, b := range k.Buffers {
		regs = append(regs, b.Register)
	}
	return regs
}

// oursOptions are the options waverig's compiler compiles a kernel's entry
// point with (the run, and the listing that reads [WaveSize] ranges).
func oursOptions(k kernels.Kernel, entry, stage string) compiler.Options {
	return compiler.Options{AutoBindings: true, Entry: entry, Stage: stage, Vulkan: "1.2", Extensions: k.Extensions}
}

// validate is the rig's spirv-val policy on top of vulkan.Validate: a missing
// spirv-val makes the module a skip locally and an error when tools are
// required (CI); a rejected module is an error (it never reaches the driver).
func (r *Rig) validate(m *module) error {
	err := vulkan.Validate(m.spirv)
	if errors.Is(err, vulkan.ErrNoValidator) {
		if r.cfg.RequireTools {
			return fmt.Errorf("%w and tools are required (CI)", err)
		}
		m.skip = err.Error()
		return nil
	}
	return err
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
// before the (serial) dispatches start: glslangValidator and spirv-val are a
// process per module each.
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

// compileOurs compiles with waverig's compiler and maps registers through the
// reflection.
func compileOurs(name string, src []byte, opts compiler.Options) *module {
	res, err := compiler.Compile(name, src, opts)
	if err != nil {
		return &module{err: fmt.Errorf("waverig compile failed:\n%s", res.Render())}
	}
	ep := res.Entry(opts.Entry)
	if ep == nil {
		return &module{err: fmt.Errorf("entry point %s missing from the reflection", opts.Entry)}
	}
	m := &module{entry: opts.Entry, spirv: bytesToWords(res.Find(opts.Entry, compiler.SPIRV)), bindings: map[string]reflect.Binding{}, waveSize: ep.WaveSize}
	for _, b := range ep.Bindings {
		m.bindings[reflect.NormalizeRegister(b.Register)] = b
	}
	return m
}

// compileGlslang compiles with glslang; a kernel glslang cannot compile is a skip.
func compileGlslang(text, entry, stage string, registers []string) *module {
	g, skip, err := glslang.CompileStage(text, entry, stage, registers)
	switch {
	case err != nil:
		return &module{err: err}
	case skip != "":
		return &module{skip: skip}
	}
	return &module{spirv: g.SPIRV, entry: g.Entry, bindings: g.Bindings}
}

func bytesToWords(b []byte) []uint32 {
	w := make([]uint32, len(b)/4)
	for i := range w {
		w[i] = uint32(b[4*i]) | uint32(b[4*i+1])<<8 | uint32(b[4*i+2])<<16 | uint32(b[4*i+3])<<24
	}
	return w
}

func wordsToBytes(w []uint32) []byte {
	b := make([]byte, 4*len(w))
	for i, x := range w {
		b[4*i], b[4*i+1], b[4*i+2], b[4*i+3] = byte(x), byte(x>>8), byte(x>>16), byte(x>>24)
	}
	return b
}
