package kernels

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"waverig/compiler"
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
// with waverig's compiler to SPIR-V (checked by spirv-val when installed) and to WGSL
// in both dialects, and with glslang when installed.
func TestGraphicsKernelsCompile(t *testing.T) {
	ks := append(append([]Kernel(nil), pixelMatrix...), vertexMatrix...)
	spirvVal, _ := exec.LookPath("spirv-val")
	glslang, _ := exec.LookPath("glslangValidator")
	dir := t.TempDir()
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
				// extensions spirv-val 2023.1 predates: TestHelperLanesKernelsCompile
				// validates them without those declarations.
				if spirvVal != "" && !IncludesHelperLanes(k.Cases[0]) {
					f := filepath.Join(dir, k.Name+"."+e[0]+".spv")
					if err := os.WriteFile(f, spv, 0o644); err != nil {
						t.Fatal(err)
					}
					if out, err := exec.Command(spirvVal, "--target-env", "vulkan1.2", f).CombinedOutput(); err != nil {
						t.Errorf("spirv-val %s: %v\n%s", e[0], err, out)
					}
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
				if glslang != "" && k.Cases[0].Name != helperName && glslangGap(k) == "" {
					src := filepath.Join(dir, k.Name+".hlsl")
					if err := os.WriteFile(src, []byte(k.HLSL), 0o644); err != nil {
						t.Fatal(err)
					}
					st := map[string]string{"vertex": "vert", "pixel": "frag"}[e[1]]
					out, err := exec.Command(glslang, "-V", "-D", "--target-env", "vulkan1.1", "-S", st, "-e", e[0],
						"--auto-map-bindings", "-o", filepath.Join(dir, k.Name+"."+e[0]+".g.spv"), src).CombinedOutput()
					if err != nil {
						t.Errorf("glslang %s: %v\n%s", e[0], err, out)
					}
				}
			}
		})
	}
}
