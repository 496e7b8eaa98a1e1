package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"waverig/harness"
	"waverig/harness/kernels"
	"waverig/harness/pass"
	"waverig/harness/results"
)

// What a run leaves on the terminal: its own lines, not the libraries'.

// withoutEnv is this process's environment less the named variables, as the
// waverig command (asMainEnv).
func withoutEnv(names ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		drop := false
		for _, n := range names {
			drop = drop || strings.HasPrefix(kv, n+"=")
		}
		if !drop {
			env = append(env, kv)
		}
	}
	return append(env, asMainEnv+"=1")
}

// Without XDG_RUNTIME_DIR, libwayland (through Mesa's device-select layer in
// wgpu-native's Vulkan instance) used to print "error: XDG_RUNTIME_DIR is
// invalid or not set in the environment." in the parent and every child.
// A run that drives WebGPU in child processes, and `waverig devices`, which
// lists every wgpu adapter, print no such line.
func TestNoXDGRuntimeDirLine(t *testing.T) {
	requireVulkan(t)
	env := withoutEnv("XDG_RUNTIME_DIR")
	out := t.TempDir()
	code, text := waverig(t, env, "run", "-api", "webgpu", "-stages", "compute", "-sizes", "4,8", "-ops", "^WaveActiveSum$", "-out", out)
	if strings.Contains(text, "XDG_RUNTIME_DIR") {
		t.Errorf("run printed libwayland's line:\n%s", text)
	}
	recs, _, err := results.ReadRunDir(out)
	if err != nil {
		t.Fatalf("exit %d, %v\n%s", code, err, text)
	}
	ran := 0
	for _, r := range recs {
		if r.API == pass.WebGPU && r.Case == results.LayoutCase && r.Status == results.Pass {
			ran++
		}
	}
	if ran == 0 {
		// No adapter: wgpu never made the instance that printed it.
		if os.Getenv("CI") != "" {
			t.Fatalf("CI needs WebGPU on the Vulkan device: no WebGPU layout passed\n%s", text)
		}
		t.Skipf("WebGPU did not run here, so the test proves nothing:\n%s", text)
	}
	code, text = waverig(t, env, "devices")
	if code != exitOK || strings.Contains(text, "XDG_RUNTIME_DIR") || !strings.Contains(text, "WebGPU adapters") {
		t.Errorf("devices: exit %d\n%s", code, text)
	}
}

// A child that writes junk to stderr and dies inside a kernel leaves one line
// on the terminal (the crash: the case's name, why, where the output went),
// the junk in children.log with the child's device and wave size, and the
// junk's tail in the crash records' reasons.
func TestChildStderrGoesToLog(t *testing.T) {
	requireVulkan(t)
	const junk = "JUNK-7f3a"
	env := append(withoutEnv(), abortDeviceEnv+"=0", abortOnceEnv+"="+filepath.Join(t.TempDir(), "crashed"), abortJunkEnv+"="+junk)
	out := t.TempDir()
	code, text := waverig(t, env, "run", "-api", "vulkan", "-compilers", "ours", "-stages", "compute", "-sizes", "8", "-ops", "^WaveActiveSum$", "-out", out)
	recs, _, err := results.ReadRunDir(out)
	if err != nil {
		t.Fatalf("exit %d, %v\n%s", code, err, text)
	}
	var crashed []results.Record
	for _, r := range recs {
		if r.Status == results.Crash {
			crashed = append(crashed, r)
		}
	}
	if len(crashed) == 0 {
		t.Fatalf("no crash record: the injected crash did not happen (exit %d)\n%s", code, text)
	}
	if code != exitUnexpected {
		t.Errorf("an unexpected crash: exit %d, want %d", code, exitUnexpected)
	}
	var crashLines []string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, junk) {
			t.Errorf("the child's stderr reached the terminal: %q", l)
		}
		if strings.HasPrefix(l, "CRASH ") {
			crashLines = append(crashLines, l)
		}
	}
	logPath := filepath.Join(out, harness.ChildLogFile)
	if len(crashLines) != 1 || !strings.Contains(crashLines[0], crashed[0].Name()) || !strings.Contains(crashLines[0], logPath) {
		t.Errorf("want one CRASH line naming %s and %s, got %q\n%s", crashed[0].Name(), logPath, crashLines, text)
	}
	log, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"device 0 wave 8: " + junk + " Cannot select: 0x1\n", "device 0 wave 8: " + junk + " In function: cs_variant\n", "device 0 wave 8: " + junk + " no newline\n"} {
		if !strings.Contains(string(log), want) {
			t.Errorf("%s lacks %q:\n%s", logPath, want, log)
		}
	}
	for _, r := range crashed {
		if !strings.Contains(r.Reason, junk+" no newline") {
			t.Errorf("%s: the reason lacks the driver's last output: %s", r.Name(), r.Reason)
		}
	}
}

// The summary leads with what ran; the skips (counted, by reason) come after,
// then what the plan left out by design, counted by the same decision the
// run and `waverig list` take (pass.NotApplicable): no record of such a
// pair is written, and the list is what the run recorded.
func TestSummaryLeadsWithWhatRan(t *testing.T) {
	requireVulkan(t)
	flags := []string{"-compilers", "ours", "-stages", "compute,vertex", "-sizes", "8", "-ops", "^(WaveActiveSum|WaveMatch)$", "-gen-seeds", "none"}
	out := t.TempDir()
	code, stdout, stderr := runCLI(append(append([]string{"run"}, flags...), "-out", out)...)
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	lines := strings.Split(stdout, "\n")
	at := func(prefix string) int {
		for i, l := range lines {
			if strings.HasPrefix(l, prefix) {
				return i
			}
		}
		t.Fatalf("no line starts with %q:\n%s", prefix, stdout)
		return -1
	}
	first := 1 // after "waverig run on …" (and "WebGPU not run: …")
	for first < len(lines) && (lines[first] == "" || strings.HasPrefix(lines[first], "WebGPU not run") || strings.HasPrefix(lines[first], "waverig run on")) {
		first++
	}
	ran, table, skipped, sizes := at("ran "), at("api "), at("skipped: "), at("size ")
	if first != ran || table != ran+1 || skipped < table || sizes < skipped {
		t.Errorf("order: ran at %d (first summary line %d), table %d, skipped %d, size table %d\n%s", ran, first, table, skipped, sizes, stdout)
	}
	recs, _, err := results.ReadRunDir(out)
	if err != nil {
		t.Fatal(err)
	}
	sum, _ := readSummary(t, out)
	if want := fmt.Sprintf("ran %d of %d cases: %d passed", sum.Total.Cases-sum.Total.Skipped, sum.Total.Cases, sum.Total.Passed); !strings.HasPrefix(lines[ran], want) {
		t.Errorf("%q does not start with %q", lines[ran], want)
	}
	webgpu := strings.Contains(stdout, "APIs vulkan, webgpu")
	f := kernels.Filter{Ops: regexp.MustCompile(flags[7])}
	ks := append(kernels.Matrix(f), kernels.GraphicsMatrix(kernels.Vertex, f)...)
	notApplicable := map[string]bool{}
	excluded := 0
	for _, k := range ks {
		if pass.NotApplicable(pass.WebGPU, k) != "" {
			notApplicable[k.Name] = true
			excluded += len(k.Cases)
		}
	}
	if excluded == 0 {
		t.Fatal("no kernel of the selection is left out by design: the test proves nothing")
	}
	for _, r := range recs {
		if r.API == pass.WebGPU && notApplicable[r.Kernel] {
			t.Errorf("%s: a record of a kernel WebGPU cannot run by design", r.Name())
		}
	}
	line := fmt.Sprintf("not applicable by design, so not planned: %d WebGPU cases (", excluded)
	if got := strings.Contains(stdout, line); got != webgpu {
		t.Errorf("WebGPU run %v, but the line %q is there: %v\n%s", webgpu, line, got, stdout)
	}
	if i := strings.Index(stdout, line); i >= 0 && i < strings.Index(stdout, "\nskipped: ") {
		t.Errorf("the by-design line comes before the skips\n%s", stdout)
	}
	// list names exactly the records the run wrote.
	code, listed, lerr := runCLI(append([]string{"list"}, flags...)...)
	if code != exitOK {
		t.Fatalf("list: exit %d: %s", code, lerr)
	}
	recorded := map[string]bool{}
	for _, r := range recs {
		if r.Case != results.LayoutCase && r.Status != results.Differs {
			recorded[r.Name()] = true
		}
	}
	names := strings.Fields(listed)
	for _, n := range names {
		if !recorded[n] {
			t.Errorf("listed, not recorded: %s", n)
		}
	}
	if len(names) != len(recorded) {
		t.Errorf("list: %d names, run: %d records", len(names), len(recorded))
	}
}
