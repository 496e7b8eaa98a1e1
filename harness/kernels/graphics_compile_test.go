package kernels

import (
	"strings"
	"testing"

	"waverig/compiler"
	"waverig/harness/glslang"
)

// graphicsEntries lists a draw kernel's entry points and stages.
func graphicsEntries(k Kernel) [][2]string {
	e := [][2]string{{k.Draw.VertexEntry, "vertex"}}
	if k.Draw.PixelEntry != "" {
		e = append(e, [2]string{k.Draw.PixelEntry, "pixel"})
	}
	return e
}

// wgslGap names what keeps a kernel's entry off the WGSL target, or "". The compile
// must then fail with that code, so a lifted limit shows up here.
func wgslGap(k Kernel, stage, dialect string) string {
	switch {
	case k.Needs.Float64 || k.Needs.Int64:
		return "E06" // WGSL has no 64-bit types
	case stage == "vertex" && k.Stage == Vertex && dialect == "standard":
		return "E0602" // wave operations in vertex shaders (naga's dialect takes them)
	case stage == "pixel" && len(k.Cases) > 0 && k.Cases[0].Name == helperName:
		return "E0612" // no helper-invocation builtin
	}
	return ""
}

// TestGraphicsKernelsCompile compiles every pixel and vertex kernel's entry points
// with waverig's compiler to SPIR-V (checked by the linked validator, spirv-val's
// library) and to WGSL in both dialects, and with the linked glslang as the rig
// compiles them. (It ran a spirv-val and a glslangValidator process per entry
// point: about 1,100 processes and 50 s of a -short run.)
func TestGraphicsKernelsCompile(t *testing.T) {
	ks := append(append([]Kernel(nil), pixelMatrix...), vertexMatrix...)
	for _, k := range ks {
		t.Run(k.Name, func(t *testing.T) {
			t.Parallel()
			for _, e := range graphicsEntries(k) {
				res, err := compiler.Compile(k.Name+".hlsl", []byte(k.HLSL), compiler.Options{
					Targets: []compiler.Target{compiler.SPIRV}, Entry: e[0], Stage: e[1], AutoBindings: true, Vulkan: "1.2"})
				if err != nil {
					t.Fatalf("%s (%s) SPIR-V: %v", e[0], e[1], err)
				}
				spv := res.Find(e[0], compiler.SPIRV)
				if spv == nil {
					t.Fatalf("%s: no SPIR-V", e[0])
				}
				// The [WaveOpsIncludeHelperLanes] kernels' pixel modules declare
				// extensions SPIRV-Tools 2023.1 predates: TestHelperLanesKernelsCompile
				// validates them without those declarations.
				if !IncludesHelperLanes(k.Cases[0]) {
					validate(t, e[0], mustWords(t, spv))
				}
				for _, dialect := range []string{"naga", "standard"} {
					_, err = compiler.Compile(k.Name+".hlsl", []byte(k.HLSL), compiler.Options{
						Targets: []compiler.Target{compiler.WGSL}, Entry: e[0], Stage: e[1], AutoBindings: true, WGSLDialect: dialect, WGSLVertexWaveSize: 8})
					if gap := wgslGap(k, e[1], dialect); gap != "" {
						if err == nil || !strings.Contains(err.Error(), gap) {
							t.Errorf("%s WGSL (%s): want the compiler's %s refusal, got %v", e[0], dialect, gap, err)
						}
					} else if err != nil {
						t.Errorf("%s WGSL (%s): %v", e[0], dialect, err)
					}
				}
				if k.Cases[0].Name != helperName && glslangGap(k) == "" {
					_, skip, err := glslang.CompileStage(k.HLSL, e[0], e[1], nil)
					switch {
					case err != nil:
						t.Errorf("glslang %s: %v", e[0], err)
					case IncludesHelperLanes(k.Cases[0]):
						// The rig refuses glslang's module: glslang 12 ignores the attribute.
						if !strings.Contains(skip, "WaveOpsIncludeHelperLanes") {
							t.Errorf("glslang %s: want the rig's [WaveOpsIncludeHelperLanes] refusal, got %q", e[0], skip)
						}
					case skip != "":
						t.Errorf("glslang %s: %s", e[0], skip)
					}
				}
			}
		})
	}
}
