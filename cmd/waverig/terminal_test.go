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
