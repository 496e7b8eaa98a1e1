package produce

import (
	"fmt"

	"waverig/compiler"
	"waverig/compiler/reflect"
	"waverig/harness/glslang"
	"waverig/harness/results"
)

// The built-in compilers' names (results.Record.Compiler).
const (
	Ours    = results.Ours
	Glslang = results.Glslang
)

// Module is one kernel entry point compiled by one compiler: SPIR-V for
// Vulkan or WGSL for WebGPU, with the binding of each HLSL register.
type Module struct {
	SPIRV    []uint32 // Vulkan
	WGSL     string   // WebGPU
	Entry    string
	Bindings map[string]reflect.Binding // reflect.NormalizeRegister(register) -> binding
	// WaveSize is the [WaveSize] range waverig's reflection reports for the
	// entry point (nil without the attribute, and for other compilers' modules).
	WaveSize *reflect.WaveSize
}

// DefaultCompilers is waverig's compiler, plus glslang when it is installed.
func DefaultCompilers() []string {
	if glslang.Installed() {
		return []string{Ours, Glslang}
	}
	return []string{Ours}
}

// CompileOurs compiles with waverig's compiler and maps registers through the
// reflection.
func CompileOurs(name string, src []byte, opts compiler.Options) (Module, error) {
	res, err := compiler.Compile(name, src, opts)
	if err != nil {
		return Module{}, fmt.Errorf("waverig compile failed:\n%s", res.Render())
	}
	ep := res.Entry(opts.Entry)
	if ep == nil {
		return Module{}, fmt.Errorf("entry point %s missing from the reflection", opts.Entry)
	}
	m := Module{Entry: opts.Entry, SPIRV: bytesToWords(res.Find(opts.Entry, compiler.SPIRV)), Bindings: map[string]reflect.Binding{}, WaveSize: ep.WaveSize}
	for _, b := range ep.Bindings {
		m.Bindings[reflect.NormalizeRegister(b.Register)] = b
	}
	return m, nil
}

// CompileGlslang compiles with glslang; a kernel glslang cannot compile is a skip.
func CompileGlslang(text, entry, stage string, registers []string) (Module, string, error) {
	g, skip, err := glslang.CompileStage(text, entry, stage, registers)
	if err != nil || skip != "" {
		return Module{}, skip, err
	}
	return Module{SPIRV: g.SPIRV, Entry: g.Entry, Bindings: g.Bindings}, "", nil
}

func bytesToWords(b []byte) []uint32 {
	w := make([]uint32, len(b)/4)
	for i := range w {
		w[i] = uint32(b[4*i]) | uint32(b[4*i+1])<<8 | uint32(b[4*i+2])<<16 | uint32(b[4*i+3])<<24
	}
	return w
}
