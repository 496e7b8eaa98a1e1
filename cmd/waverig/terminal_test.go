package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"waverig/harness"
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
	recs, _, err := results.ReadJSONL(filepath.Join(out, results.ResultsFile))
	if err != nil {
		t.Fatalf("exit %d, %v\n%s", code, err, text)
	}
	ran := 0
	for _, r := range recs {
		if r.API == harness.WebGPU && r.Case == results.LayoutCase && r.Status == results.Pass {
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
	recs, _, err := results.ReadJSONL(filepath.Join(out, results.ResultsFile))
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
