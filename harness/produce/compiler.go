package produce

import (
	"waverig/compiler/reflect"
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

// Target is what a module is for.
type Target int

const (
	SPIRV Target = iota // SPIR-V, for Vulkan
	WGSL                // WGSL text for wgpu-native (naga's dialect)
	// WGSLStandard is WGSL in the standard dialect (`enable subgroups;`,
	// `diagnostic(off, subgroup_uniformity);`): what Tint — Dawn and the
	// browsers — takes.
	WGSLStandard
)

func (t Target) String() string {
	switch t {
	case WGSL:
		return "WGSL"
	case WGSLStandard:
		return "WGSL (standard)"
	}
	return "SPIR-V"
}

// IsWGSL reports whether t is WGSL of either dialect.
func (t Target) IsWGSL() bool { return t == WGSL || t == WGSLStandard }

// Source is one entry point of an HLSL source, as every compiler is given it.
type Source struct {
	Name string // the file name messages call it (kernel.hlsl, or the case's path)
	// Path, when set, is the source's own file (an exec case's shader, whose
	// #includes are relative to it): a command compiler is given it instead
	// of a temporary copy of HLSL.
	Path       string
	HLSL       []byte
	Entry      string
	Stage      string // compute, pixel, vertex (results.Compute, …)
	Defines    map[string]string
	Extensions []string // SPIR-V extensions the module may use
	Registers  []string // the HLSL registers the rig binds buffers at
	// WaveSize is the device's wave size, for what naga's WGSL cannot read in
	// a vertex shader (WaveGetLaneCount); 0: unknown.
	WaveSize uint32
	// Names, when set, returns each (normalized) register's resource name in
	// waverig's reflection of the same source, nil when waverig cannot
	// compile it. A command compiler's module is bound by those names
	// (bindCommandModule); it is a function so that the compilers that do not
	// need it never cost the caller a compile of waverig's.
	Names func() map[string]string
}

// Compiler produces a module from a Source. skip, when not empty, says why
// the compiler cannot compile this shader for this target (a feature it
// lacks, not a bug it has); err is a compile that failed, which counts
// against the compiler. A Compiler keeps no state between calls.
type Compiler interface {
	// Spec is how a command line names the compiler, as ParseCompiler
	// returns it; CompilerName(Spec()) is what records call it.
	Spec() string
	Compile(src Source, t Target) (m Module, skip string, err error)
}

// FromSpec is the Compiler of a spec ParseCompiler accepted: "ours",
// "glslang" or "cmd:NAME=PATH". It checks nothing more (the path was checked
// when the spec was parsed, and a child process given the spec must not fail
// where its parent did not): false for any other string.
func FromSpec(spec string) (Compiler, bool) {
	switch spec {
	case Ours:
		return OursCompiler{}, true
	case Glslang:
		return GlslangCompiler{}, true
	}
	if c, ok := CommandOf(spec); ok && c.Name != "" && c.Path != "" {
		return c, true
	}
	return nil, false
}
