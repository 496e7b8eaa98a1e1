package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"waverig/harness/kernels"
	"waverig/harness/pass"
	"waverig/harness/results"
)

// TestReproBundleExec: a real failing run — glslang 12 lowers WavePrefixSum to
// an inclusive scan, a known wrong result — leaves case.json in the failing
// kernel's bundle. The exec line README.txt gives, run in the bundle, exits 1
// and names output words of records README.txt lists as failing lanes; the
// same case compiled by waverig's compiler, which computes the exclusive scan
// the models expect, exits 0: the expectations are a correct device's. The
// run is the rig's own (one kernel, at the device's own size, so this process
// can exec the bundle too): `waverig run` has no flag narrowing it to one
// kernel, and its whole WavePrefixSum matrix takes several times as long.
func TestReproBundleExec(t *testing.T) {
	requireVulkan(t)
	out := t.TempDir()
	rig, err := pass.New(0, pass.Config{
		Filter:    kernels.Filter{Ops: regexp.MustCompile(`^WavePrefixSum$`), Types: []string{"uint"}, Shapes: []string{"whole"}},
		Compilers: []string{pass.Ours, pass.Glslang}, ReproDir: filepath.Join(out, "repro"),
		APIs: []string{pass.Vulkan}, Stages: []string{results.Compute},
	})
	if err != nil {
		t.Fatal(err)
	}
	size := rig.WaveSize()
	failed := 0
	_, err = rig.Run(0, func(r results.Record) {
		if r.Status == results.Fail {
			failed++
			if r.Compiler != pass.Glslang {
				t.Errorf("waverig's compiler failed %s", r.Case)
			}
		}
	})
	rig.Close()
	if err != nil || failed == 0 {
		t.Fatalf("run: %d failed cases, %v", failed, err)
	}
	dir := filepath.Join(out, "repro", fmt.Sprintf("WavePrefixSum_base_whole.vulkan.glslang.wave%d", size))
	readme, err := os.ReadFile(filepath.Join(dir, "README.txt"))
	if err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`(?m)^Exec: +(.*)$`).FindSubmatch(readme)
	if line == nil {
		t.Fatalf("README.txt has no Exec line:\n%.2000s", readme)
	}
	// "[LP_NATIVE_VECTOR_WIDTH=N] waverig exec case.json -compiler glslang":
	// this process's device already runs at the size the width gives.
	fields := strings.Fields(string(line[1]))
	for len(fields) > 0 && fields[0] != "waverig" {
		fields = fields[1:]
	}
	if len(fields) != 5 || fields[1] != "exec" || fields[2] != "case.json" || fields[3] != "-compiler" || fields[4] != "glslang" {
		t.Fatalf("exec line %q", line[1])
	}
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	code, got, errs := runCLI(fields[1:]...)
	if code != exitUnexpected || !strings.Contains(got, "mismatch(es) in case.json") {
		t.Fatalf("%s: exit %d, want 1\n%.3000s%s", line[1], code, got, errs)
	}
	first := regexp.MustCompile(`u0\[\d+\] \(record (\d+) out0\): expected \d+, actual \d+`).FindStringSubmatch(got)
	if first == nil || !strings.Contains(string(readme), "record "+first[1]+" = u0[") {
		t.Errorf("exec names no failing lane's output word that README.txt lists:\n%.1500s", got)
	}
	code, got, errs = runCLI(fields[1:3]...) // waverig's compiler
	if code != exitOK || !strings.HasPrefix(got, "ok: case.json") {
		t.Errorf("the bundle's case compiled by waverig: exit %d, want 0\n%.1500s%s", code, got, errs)
	}
}
