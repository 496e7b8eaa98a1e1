package mutate

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func tool(t *testing.T, name string) {
	if _, err := exec.LookPath(name); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s required in CI", name)
		}
		t.Skipf("%s not installed", name)
	}
}

// glslangModule compiles a fixture with glslang (any valid producer will do: the
// mutations only need real SPIR-V to edit).
func glslangModule(t *testing.T, fixture string) []uint32 {
	out := filepath.Join(t.TempDir(), "m.spv")
	src := filepath.Join("..", "..", "fixtures", "wave", fixture)
	args := []string{"-V", "-D", "--target-env", "vulkan1.1", "-S", "comp", "-e", "main", "-o", out, src}
	if strings.HasSuffix(fixture, ".comp") {
		// GLSL source: glslang's HLSL front end turns WavePrefixSum into an
		// inclusive scan, so the exclusive-scan mutant needs GLSL's subgroupExclusiveAdd.
		src = filepath.Join(t.TempDir(), fixture)
		os.WriteFile(src, []byte(exclusiveGLSL), 0o644)
		args = []string{"-V", "--target-env", "vulkan1.1", "-o", out, src}
	}
	cmd := exec.Command("glslangValidator", args...)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("glslang: %v %s", err, msg)
	}
	data, _ := os.ReadFile(out)
	w := make([]uint32, len(data)/4)
	for i := range w {
		w[i] = uint32(data[4*i]) | uint32(data[4*i+1])<<8 | uint32(data[4*i+2])<<16 | uint32(data[4*i+3])<<24
	}
	return w
}

// TestMutationsProduceValidChangedModules: each planted bug applies to a module
// that has the construct, changes it, and still passes spirv-val (so a driver
// runs it and only the rig's checks can catch it).
func TestMutationsProduceValidChangedModules(t *testing.T) {
	for _, tl := range []string{"glslangValidator", "spirv-dis", "spirv-as", "spirv-val"} {
		tool(t, tl)
	}
	fixtureFor := map[string]string{
		"Reduce->ExclusiveScan":              "WaveActiveSum_uint.hlsl",
		"IAdd->IMul":                         "WaveActiveSum_uint.hlsl",
		"Shuffle lane+1":                     "WaveReadLaneAt_uint.hlsl",
		"QuadSwap direction":                 "QuadReadAcrossX_uint.hlsl",
		"wrong identity for an empty prefix": "prefix.comp",
	}
	for _, m := range All {
		fx, ok := fixtureFor[m.Name]
		if !ok {
			continue // the branch inversion needs a kernel with divergence: the suite covers it
		}
		t.Run(m.Name, func(t *testing.T) {
			words := glslangModule(t, fx)
			before, _ := Disassemble(words)
			mut, err := m.ApplyTo(words, "vulkan1.1")
			if err != nil {
				t.Fatal(err)
			}
			after, err := Disassemble(mut)
			if err != nil {
				t.Fatal(err)
			}
			if before == after {
				t.Fatal("module unchanged")
			}
			f := filepath.Join(t.TempDir(), "mut.spv")
			os.WriteFile(f, toBytes(mut), 0o644)
			if out, err := exec.Command("spirv-val", "--target-env", "vulkan1.1", f).CombinedOutput(); err != nil {
				t.Fatalf("mutant is not valid SPIR-V: %s\n%s", out, after)
			}
		})
	}
}

func TestInvertGuardSwapsTargets(t *testing.T) {
	text := strings.Join([]string{
		"%1 = OpLabel",
		"%k = OpGroupNonUniformBroadcastFirst %uint %uint_3 %id",
		"OpSelectionMerge %m None",
		"OpBranchConditional %c %then %m",
		"%then = OpLabel",
		"%r = OpGroupNonUniformIAdd %uint %uint_3 Reduce %x",
		"OpBranch %m",
		"%m = OpLabel",
	}, "\n")
	out, err := invertGuard(text)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "OpBranchConditional %c %m %then") {
		t.Fatalf("targets not swapped:\n%s", out)
	}
}

const exclusiveGLSL = `#version 450
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer B { uint v[]; };
void main() { v[gl_GlobalInvocationID.x] = subgroupExclusiveAdd(v[gl_GlobalInvocationID.x]); }
`
