package produce

import (
	"fmt"
	"sort"
	"strings"

	"waverig/compiler"
	"waverig/compiler/diag"
	"waverig/compiler/reflect"
	"waverig/harness/glslang"
)

// DefaultCompilers is waverig's compiler and glslang (linked in).
func DefaultCompilers() []string { return []string{Ours, Glslang} }

// OursCompiler is waverig's own compiler (compiler/), in process: SPIR-V
// for Vulkan 1.2 and naga-dialect WGSL, bound by its own reflection.
type OursCompiler struct{}

// Spec is "ours".
func (OursCompiler) Spec() string { return Ours }

// Compile compiles with waverig's compiler. For WGSL, what WGSL cannot
// express is a skip (compileWGSL); any other failure is an error.
func (OursCompiler) Compile(src Source, t Target) (Module, string, error) {
	if t.IsWGSL() {
		return compileWGSL(src, t)
	}
	m, err := compileOurs(src.Name, src.HLSL, OursOptions(src))
	return m, "", err
}

// OursOptions are the options waverig's compiler compiles a Source to
// SPIR-V with (the run, exec cases, and the listing that reads [WaveSize]
// ranges): bindings chosen by the compiler as DXC would, Vulkan 1.2.
func OursOptions(src Source) compiler.Options {
	return compiler.Options{AutoBindings: true, Entry: src.Entry, Stage: src.Stage, Vulkan: "1.2", Defines: src.Defines, Extensions: src.Extensions}
}

// compileOurs compiles with waverig's compiler and maps registers through the
// reflection.
func compileOurs(name string, src []byte, opts compiler.Options) (Module, error) {
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

// compileWGSL compiles an entry point to WGSL: naga's dialect for wgpu-native
// (WGSL) or the standard one for Tint (WGSLStandard). What WGSL cannot
// express (64-bit types, wave operations in vertex shaders, …: the WGSL back
// end's E06xx codes) is a skip naming the compiler's coded reason, not an error;
// so is a pixel entry with [WaveOpsIncludeHelperLanes] (W0602: emitted without
// it).
func compileWGSL(s Source, t Target) (Module, string, error) {
	name, src, entry, stage, defines := s.Name, s.HLSL, s.Entry, s.Stage, s.Defines
	dialect := "naga"
	if t == WGSLStandard {
		dialect = "standard"
	}
	res, err := compiler.Compile(name, src, compiler.Options{AutoBindings: true, Entry: entry, Stage: stage, Defines: defines, WGSLVertexWaveSize: s.WaveSize,
		Targets: []compiler.Target{compiler.WGSL}, WGSLDialect: dialect})
	if err != nil {
		if why := wgslInexpressible(res.Diagnostics); why != "" {
			return Module{}, "WGSL cannot express this kernel: " + why, nil
		}
		return Module{}, "", fmt.Errorf("waverig compile (WGSL) failed:\n%s", res.Render())
	}
	for _, d := range res.Diagnostics {
		if d.Code == diag.WarnWGSLHelperLanes {
			// The WGSL was emitted without [WaveOpsIncludeHelperLanes]: running it
			// would hold a device to a request WebGPU cannot make.
			return Module{}, "WebGPU cannot make helper lanes take part in wave operations: " + string(d.Code) + ": " + d.Text, nil
		}
	}
	ep := res.Entry(entry)
	if ep == nil {
		return Module{}, "", fmt.Errorf("entry point %s missing from the reflection", entry)
	}
	m := Module{Entry: entry, WGSL: string(res.Find(entry, compiler.WGSL)), Bindings: map[string]reflect.Binding{}, WaveSize: ep.WaveSize}
	for _, b := range ep.Bindings {
		m.Bindings[reflect.NormalizeRegister(b.Register)] = b
	}
	return m, "", nil
}

// wgslInexpressible returns "E0601: message" when every error of a failed
// compile is a WGSL back end limitation (E06xx other than E0699, an internal
// error), and "" when any error is something else.
func wgslInexpressible(ds []diag.Msg) string {
	var first string
	for _, d := range ds {
		if d.Severity != diag.Error {
			continue
		}
		c := string(d.Code)
		if !strings.HasPrefix(c, "E06") || d.Code == diag.ErrWGSLInternal {
			return ""
		}
		if first == "" {
			first = c + ": " + d.Text
		}
	}
	return first
}

// GlslangCompiler is glslang, linked in (harness/glslang): SPIR-V only,
// bound by glslang's register map (set = space, binding = number).
type GlslangCompiler struct{}

// Spec is "glslang".
func (GlslangCompiler) Spec() string { return Glslang }

// Compile compiles with glslang; a shader glslang cannot compile is a skip,
// and so is any WGSL request. The Source's defines become #define lines
// ahead of its text (glslang's HLSL front end is given text, not a file).
func (GlslangCompiler) Compile(src Source, t Target) (Module, string, error) {
	if t.IsWGSL() {
		return Module{}, "glslang emits no WGSL", nil
	}
	var defs []string
	for k, v := range src.Defines {
		defs = append(defs, fmt.Sprintf("#define %s %s\n", k, v))
	}
	sort.Strings(defs)
	g, skip, err := glslang.CompileStage(strings.Join(defs, "")+string(src.HLSL), src.Entry, src.Stage, src.Registers)
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
