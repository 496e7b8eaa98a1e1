package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFuzzUsage(t *testing.T) {
	for _, args := range [][]string{{"-n", "-1"}, {"extra"}, {"-sizes", "3"}, {"-sizes", "all"}, {"-nope"}} {
		var out, errb bytes.Buffer
		if code := run(append([]string{"fuzz"}, args...), &out, &errb); code != exitUsage {
			t.Errorf("fuzz %v: exit %d, want %d (%s)", args, code, exitUsage, errb.String())
		}
	}
}

// TestFuzzDevice: a few seeds pass on the device at its current size; with a
// planted bug (an inclusive WavePrefixSum, made in the log after readback by
// the fault build) the same command exits 1 with a shrunk repro whose case file passes
// `waverig exec` on the correct device.
func TestFuzzDevice(t *testing.T) {
	requireVulkan(t)
	var out, errb bytes.Buffer
	if code := run([]string{"fuzz", "-n", "10", "-seed", "7"}, &out, &errb); code != exitOK {
		t.Fatalf("fuzz: exit %d\n%s%s", code, out.String(), errb.String())
	}
	if !strings.Contains(out.String(), "10 programs") || !strings.Contains(out.String(), "no failures") {
		t.Errorf("fuzz output: %s", out.String())
	}

	t.Setenv("WAVERIG_TEST_FUZZ_BUG", "inclusive-prefix") // for the fault build
	dir := filepath.Join(t.TempDir(), "repro")
	if code, stdout, stderr := faultyCLI(t)("fuzz", "-n", "200", "-seed", "1", "-out", dir); code != exitUnexpected {
		t.Fatalf("fuzz with a planted bug: exit %d, want 1\n%s%s", code, stdout, stderr)
	}
	prog, err := os.ReadFile(filepath.Join(dir, "program.hlsl"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(prog), "WavePrefixSum") || strings.Count(string(prog), "ev(b, n,") > 3 {
		t.Errorf("the shrunk program:\n%s", prog)
	}
	for _, name := range []string{"README.md", "original.hlsl", "case.json"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Error(err)
		}
	}
	out.Reset()
	errb.Reset()
	if code := run([]string{"exec", filepath.Join(dir, "case.json")}, &out, &errb); code != exitOK {
		t.Errorf("exec of the repro's case on the correct device: exit %d\n%s%s", code, out.String(), errb.String())
	}
}
