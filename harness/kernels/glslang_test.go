package kernels

import (
	"os"
	"os/exec"
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
// kernel, with glslang as the second compiler (the command line the engine uses).
func TestGlslangCompilesEveryKernel(t *testing.T) {
	bin, err := exec.LookPath("glslangValidator")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("glslangValidator is not on PATH and CI is set")
		}
		t.Skip("glslangValidator is not on PATH")
	}
	dir := t.TempDir()
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
			src := filepath.Join(dir, k.Name+".hlsl")
			if err := os.WriteFile(src, []byte(k.HLSL), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(bin, "-V", "-D", "-D"+glslang.Macro+"=1", "--target-env", "vulkan1.1", "-S", "comp", "-e", k.Entry,
				"-o", filepath.Join(dir, k.Name+".spv"), src).CombinedOutput()
			if err != nil {
				t.Fatalf("glslang rejects %s: %v\n%s", k.Name, err, strings.TrimSpace(string(out)))
			}
		})
	}
}
