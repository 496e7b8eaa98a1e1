package main

import (
	"testing"

	"waverig/harness/results"
)

// -stages narrows a run to the named shader stages: with compute only, no
// pixel or vertex record is written; a stage waverig does not know is exit 2
// before anything runs.
func TestRunStages(t *testing.T) {
	requireVulkan(t)
	out := t.TempDir()
	code, stdout, stderr := runCLI("run", "-stages", "compute", "-api", "vulkan", "-ops", "^WaveActiveSum$", "-sizes", "8", "-compilers", "ours", "-out", out)
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	recs, _, err := results.ReadRunDir(out)
	if err != nil {
		t.Fatal(err)
	}
	cases := 0
	for _, r := range recs {
		if r.Stage != results.Compute {
			t.Fatalf("-stages compute wrote a %s record: %s", r.Stage, r.Case)
		}
		if r.Case != results.LayoutCase {
			cases++
		}
	}
	if cases == 0 {
		t.Fatal("no compute cases ran")
	}
	if code, _, stderr := runCLI("run", "-stages", "geometry", "-out", t.TempDir()); code != exitUsage {
		t.Fatalf("-stages geometry: exit %d, want %d (%s)", code, exitUsage, stderr)
	}
}
