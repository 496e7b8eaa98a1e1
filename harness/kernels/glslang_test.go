package kernels

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"waverig/harness/glslang"
	"waverig/harness/models"
)

// glslangGap names what glslang 12's HLSL front end cannot compile in a kernel, or "".
// It has no int64_t and no 64-bit integer vectors, so the int64 family is
// waverig-compiler only. (glslang also gets WavePrefixSum/Product wrong, inclusive,
// and WaveActiveAllEqual on vectors, one bool for the whole vector; this test only
// checks that the kernels compile.)
func glslangGap(k Kernel) string {
	if contains(k.Extensions, PartitionedExtension) {
		return "glslang 12's HLSL front end has no WaveMatch or WaveMultiPrefix*"
	}
	if k.Needs.Int64 {
		return "glslang 12's HLSL front end has no int64_t and no 64-bit integer vectors"
	}
	if len(k.Cases) > 0 && models.IsQuadVote(k.Cases[0].Op) {
		return "glslang 12's HLSL front end has no QuadAny/QuadAll (Shader Model 6.7)"
	}
	return ""
}

// TestGlslangCompilesEveryKernel compiles every generated kernel, and the layout
// kernel, with glslang as the second compiler (the linked library the engine
// uses; TestLinkedToolsMatchTheirCommands holds it to glslangValidator), the
// subtests in parallel: glslang compiles on several threads at once in a run.
func TestGlslangCompilesEveryKernel(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // compiled here, not read from a cache
	ks := append([]Kernel{Layout()}, fullMatrix...)
	// The driver-crash repros in testdata must stay valid kernels.
	repros, _ := filepath.Glob("testdata/*.hlsl")
	for _, r := range repros {
		src, err := os.ReadFile(r)
		if err != nil {
			t.Fatal(err)
		}
		ks = append(ks, Kernel{Name: strings.TrimSuffix(filepath.Base(r), ".hlsl"), Entry: "main", HLSL: string(src)})
	}
	for _, k := range ks {
		t.Run(k.Name, func(t *testing.T) {
			if why := glslangGap(k); why != "" {
				t.Skip(why)
			}
			t.Parallel()
			mod, skip, err := glslang.CompileStage(k.HLSL, k.Entry, "compute", nil)
			if err != nil || skip != "" || len(mod.SPIRV) < 5 {
				t.Fatalf("glslang rejects %s: %v %s", k.Name, err, skip)
			}
		})
	}
}
