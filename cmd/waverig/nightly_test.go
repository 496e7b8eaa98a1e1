package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"waverig/harness/expect"
)

// TestNightlyScript runs scripts/nightly.sh twice on a narrow plan: the first
// night passes and writes its reports and index line; the second compares with
// it and is judged by the device's baseline directory, which (planted) names a
// case that passes: an UnexpectedImprovement(Pass), so the night fails.
func TestNightlyScript(t *testing.T) {
	requireVulkan(t)
	if testing.Short() {
		t.Skip("runs setup.sh, build.sh and two runs")
	}
	dir := t.TempDir()
	results, baselines := filepath.Join(dir, "nightly"), filepath.Join(dir, "baselines")
	night := func() (int, string) {
		cmd := exec.Command("bash", "../../scripts/nightly.sh")
		cmd.Env = append(os.Environ(), "WAVERIG_RESULTS="+results, "WAVERIG_BASELINES="+baselines,
			"WAVERIG_NIGHTLY_ARGS=-ops ^WaveActiveSum$ -sizes 4 -api vulkan -stages compute -compilers ours")
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, string(out)
	}
	code, out := night()
	if code != 0 || !strings.Contains(out, "== nightly ") {
		t.Fatalf("first night: exit %d\n%s", code, out)
	}
	slugs, _ := filepath.Glob(filepath.Join(results, "*", "*", "report.html"))
	if len(slugs) != 1 {
		t.Fatalf("reports: %v\n%s", slugs, out)
	}
	slug := filepath.Base(filepath.Dir(filepath.Dir(slugs[0])))
	if strings.Contains(slug, "bits") {
		t.Errorf("device folder %q keeps lavapipe's width", slug)
	}
	os.MkdirAll(filepath.Join(baselines, slug), 0o755)
	os.WriteFile(filepath.Join(baselines, slug, expect.FailsFile), []byte("# planted: this case passes\nvulkan/compute/WaveActiveSum/uint/all/whole/size=4,Fail\n"), 0o644)
	code, out = night()
	if code != 1 || !strings.Contains(out, "UnexpectedImprovement(Pass) vulkan/compute/WaveActiveSum/uint/all/whole/size=4") {
		t.Fatalf("second night against a baseline naming a passing case: exit %d, want 1\n%s", code, out)
	}
	if !strings.Contains(out, " regressions, ") {
		t.Errorf("the second night does not compare with the first:\n%s", out)
	}
	idx, _ := filepath.Glob(filepath.Join(results, "*.txt"))
	if len(idx) != 2 {
		t.Errorf("index files: %v", idx)
	}
}
