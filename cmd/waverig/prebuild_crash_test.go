package main

import (
	"os"
	"path/filepath"
	"testing"

	"waverig/harness/results"
)

// A driver that dies while a child builds its pipelines in parallel (the
// prebuild) cannot say which kernel killed it: the parent restarts the child,
// which then builds one pipeline at a time. Nothing is lost and nothing is
// blamed: the run ends as a run without the crash would.
func TestCrashDuringPrebuildRestartsSerially(t *testing.T) {
	requireVulkan(t)
	args := []string{"run", "-api", "vulkan", "-compilers", "ours", "-sizes", "8", "-ops", "^(WaveActiveSum|WavePrefixSum)$", "-stages", "compute"}
	clean := t.TempDir()
	code, stdout, stderr := runCLI(append(args, "-out", clean)...)
	if code != exitOK {
		t.Fatalf("run without a crash: exit %d\n%s%s", code, stdout, stderr)
	}
	want, _ := readSummary(t, clean)
	marker := filepath.Join(t.TempDir(), "crashed")
	t.Setenv(abortDeviceEnv, "0")
	t.Setenv(abortOnceEnv, marker)
	t.Setenv(abortAtEnv, "prebuild")
	out := t.TempDir()
	code2, stdout2, stderr2 := runCLI(append(args, "-out", out)...)
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the child never crashed at the prebuild (%v)", err)
	}
	if code2 != exitOK {
		t.Fatalf("run with a crash during the prebuild: exit %d\n%s%s", code2, stdout2, stderr2)
	}
	recs, _, err := results.ReadRunDir(out)
	if err != nil {
		t.Fatal(err)
	}
	passed, cases := 0, 0
	for _, r := range recs {
		if r.Case == results.LayoutCase {
			continue
		}
		cases++
		// Vacuous: on lavapipe a workgroup one invocation wide in x (y64, z64,
		// 1x4x32) puts every invocation in a wave of its own at lane 0, so "odd"
		// picks no lane there; the run without the crash reports them alike.
		if r.Status == results.Pass || r.Status == results.Vacuous {
			passed++
		} else {
			t.Errorf("%s: %s (%s)", r.Case, r.Status, r.Reason)
		}
	}
	if cases == 0 || passed != cases || cases != want.Total.Cases {
		t.Fatalf("%d of %d cases passed after the restart; a run without the crash has %d", passed, cases, want.Total.Cases)
	}
}
