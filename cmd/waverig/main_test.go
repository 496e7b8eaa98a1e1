package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"waverig/devices"
)

func runCLI(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// TestCompileSeed is the acceptance check: the seed's Waves.hlsl prints the
// two reflection lines, and -o writes SPIR-V (valid for Vulkan 1.2), WGSL using
// subgroupAdd and MSL using simd_sum.
func TestCompileSeed(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := runCLI("compile", "-target", "spirv,wgsl,msl", "-o", dir, "../../fixtures/Waves.hlsl")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	want := "CSSum (Compute): Basic, Arithmetic = 0x5\nPSSlope (Pixel): Quad = 0x80\n"
	if out != want {
		t.Fatalf("got %q, want %q", out, want)
	}
	for _, f := range []string{"CSSum.spv", "CSSum.wgsl", "CSSum.metal", "PSSlope.spv", "PSSlope.wgsl", "PSSlope.metal"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("missing %s", f)
		}
	}
	wgsl, _ := os.ReadFile(filepath.Join(dir, "CSSum.wgsl"))
	metal, _ := os.ReadFile(filepath.Join(dir, "CSSum.metal"))
	if !strings.Contains(string(wgsl), "subgroupAdd(") {
		t.Errorf("CSSum.wgsl does not use subgroupAdd:\n%s", wgsl)
	}
	if !strings.Contains(string(metal), "simd_sum(") {
		t.Errorf("CSSum.metal does not use simd_sum:\n%s", metal)
	}
	if val, err := exec.LookPath("spirv-val"); err == nil {
		for _, f := range []string{"CSSum.spv", "PSSlope.spv"} {
			if o, err := exec.Command(val, "--target-env", "vulkan1.2", filepath.Join(dir, f)).CombinedOutput(); err != nil {
				t.Errorf("%s: %s", f, o)
			}
		}
	} else if os.Getenv("CI") != "" {
		t.Fatal("spirv-val required in CI")
	}
}

func TestCompileErrorsAndFlags(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.hlsl")
	os.WriteFile(bad, []byte("[shader(\"compute\")] [numthreads(1,1,1)]\nvoid main() { undeclared = 1; }\n"), 0o644)
	out := filepath.Join(dir, "out")
	code, _, errs := runCLI("compile", "-o", out, bad)
	if code != 1 {
		t.Fatalf("compile error: exit %d, want 1", code)
	}
	if !strings.Contains(errs, "bad.hlsl:2:15: error E") || !strings.Contains(errs, "^") {
		t.Errorf("diagnostic not in path:line:col: error CODE form with a caret:\n%s", errs)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("files were written despite errors")
	}
	for _, args := range [][]string{
		{"compile"},
		{"compile", "-target", "dxil", "x.hlsl"},
		{"compile", "-fvk-t-shift", "1", "x.hlsl"},
		{"compile", "-nonsense", "x.hlsl"},
		{"compile", "-entry"},
		{"frobnicate"},
	} {
		if code, _, _ := runCLI(args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
	// A collision in the default binding mode names both resources and the fixes.
	col := filepath.Join(dir, "collide.hlsl")
	os.WriteFile(col, []byte("StructuredBuffer<uint> In : register(t0);\nRWStructuredBuffer<uint> Out : register(u0);\n[shader(\"compute\")] [numthreads(1,1,1)]\nvoid main() { Out[0] = In[0]; }\n"), 0o644)
	code, _, errs = runCLI("compile", col)
	if code != 1 || !strings.Contains(errs, "In") || !strings.Contains(errs, "Out") || !strings.Contains(errs, "-auto-bindings") {
		t.Errorf("collision: exit %d:\n%s", code, errs)
	}
	if code, o, e := runCLI("compile", "-auto-bindings", col); code != 0 {
		t.Errorf("-auto-bindings: exit %d %s %s", code, o, e)
	}
	if code, o, e := runCLI("compile", "-fvk-u-shift", "8", "0", col); code != 0 {
		t.Errorf("-fvk-u-shift: exit %d %s %s", code, o, e)
	}
}

func TestCompileJSON(t *testing.T) {
	code, out, errs := runCLI("compile", "-json", "../../fixtures/Waves.hlsl")
	if code != 0 {
		t.Fatal(errs)
	}
	for _, want := range []string{`"subgroupOperations": 5`, `"subgroupOperations": 128`, `"register": "t0"`, `"binding": 1`, `"numthreads": [`} {
		if !strings.Contains(out, want) {
			t.Errorf("JSON lacks %s", want)
		}
	}
}

func requireVulkan(t *testing.T) {
	if _, err := devices.Enumerate(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI needs a Vulkan device: %v", err)
		}
		t.Skipf("no Vulkan device: %v", err)
	}
}

// TestExecCaseFiles runs the example case files: one that holds (exit 0), one with
// a wrong expectation (exit 1, mismatches listed), a malformed one (exit 2), and
// the same kernel compiled by glslang, whose inclusive WavePrefixSum is caught.
func TestExecCaseFiles(t *testing.T) {
	requireVulkan(t)
	if code, out, errs := runCLI("exec", "../../fixtures/cases/prefix.json"); code != 0 {
		t.Fatalf("prefix.json: exit %d\n%s%s", code, out, errs)
	}
	code, out, _ := runCLI("exec", "../../fixtures/cases/prefix_wrong_expectation.json")
	if code != 1 || !strings.Contains(out, "u0[0]: expected 1, actual 0") {
		t.Errorf("wrong expectation: exit %d\n%s", code, out)
	}
	if code, _, errs := runCLI("exec", "../../fixtures/cases/bad_unknown_key.json"); code != 2 || !strings.Contains(errs, "colour") {
		t.Errorf("unknown key: exit %d %s", code, errs)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "broken.hlsl"), []byte("void CSMain( {"), 0o644)
	os.WriteFile(filepath.Join(dir, "broken.json"), []byte(`{"shader":"broken.hlsl","entry":"CSMain","dispatch":[1,1,1],"buffers":[{"binding":"u0","format":"uint32","count":1}]}`), 0o644)
	if code, _, errs := runCLI("exec", filepath.Join(dir, "broken.json")); code != 2 || !strings.Contains(errs, "does not compile") {
		t.Errorf("shader error: exit %d %s", code, errs)
	}
	if _, err := exec.LookPath("glslangValidator"); err == nil {
		code, out, _ := runCLI("exec", "../../fixtures/cases/prefix.json", "-compiler", "glslang")
		if code != 1 || !strings.Contains(out, "mismatch") {
			t.Errorf("glslang's inclusive WavePrefixSum should fail the case: exit %d\n%s", code, out)
		}
	}
}

func TestDevicesCommand(t *testing.T) {
	requireVulkan(t)
	code, out, errs := runCLI("devices", "-json")
	if code != 0 || !strings.Contains(out, "subgroupSize") {
		t.Fatalf("exit %d %s %s", code, out, errs)
	}
	code, out, _ = runCLI("devices")
	if code != 0 || out == "" {
		t.Fatalf("table: exit %d", code)
	}
}
