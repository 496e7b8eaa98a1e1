package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"waverig/harness/results"
)

// The tests that plant faults (a regression, a flaky case, a hung kernel, a
// generated program's bug) run a waverig built with -tags waverig_faults: the
// default build, this test binary included, has no fault hooks.

// faultBuild is the fault build: built once, on first use, into dir (which
// TestMain removes).
var faultBuild struct {
	once      sync.Once
	dir, path string
	err       error
}

// faultyCLI returns a runner of the fault build: args as waverig's, with this
// process's environment (t.Setenv'd WAVERIG_TEST_* included), exit status,
// stdout and stderr back, as runCLI gives them.
func faultyCLI(t *testing.T) func(args ...string) (int, string, string) {
	t.Helper()
	faultBuild.once.Do(func() {
		gobin, err := exec.LookPath("go")
		if err != nil {
			gobin = filepath.Join(runtime.GOROOT(), "bin", "go")
		}
		if faultBuild.dir, err = os.MkdirTemp("", "waverig-faults"); err != nil {
			faultBuild.err = err
			return
		}
		faultBuild.path = filepath.Join(faultBuild.dir, "waverig")
		out, err := exec.Command(gobin, "build", "-tags", "waverig_faults", "-o", faultBuild.path, ".").CombinedOutput()
		if err != nil {
			faultBuild.err = errors.New("go build -tags waverig_faults: " + err.Error() + "\n" + string(out))
		}
	})
	if faultBuild.err != nil {
		t.Fatal(faultBuild.err)
	}
	return func(args ...string) (int, string, string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		cmd := exec.Command(faultBuild.path, args...)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatalf("the fault build: %v", err)
		}
		return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
	}
}

// removeFaultBuild removes the fault build's directory (TestMain, at the end).
func removeFaultBuild() {
	if faultBuild.dir != "" {
		os.RemoveAll(faultBuild.dir)
	}
}

// TestDefaultBuildPlantsNoFaults: with every fault variable set, the default
// build (this test binary and the lavapipe children it starts) runs as
// without them — the run exits 0, no case is a planted failure, a flake or a
// timeout, fuzz finds nothing — while the fault build given the same run
// fails every case that passed.
func TestDefaultBuildPlantsNoFaults(t *testing.T) {
	requireVulkan(t)
	t.Setenv("WAVERIG_TEST_FAIL", ".")
	t.Setenv("WAVERIG_TEST_FLAKY", ".")
	t.Setenv("WAVERIG_TEST_HANG", ".")
	t.Setenv("WAVERIG_TEST_GEN_BUG", "inclusive-prefix")
	t.Setenv("WAVERIG_TEST_FUZZ_BUG", "inclusive-prefix")
	args := []string{"run", "-ops", "^WaveActiveSum$", "-sizes", "4", "-api", "vulkan", "-stages", "compute", "-compilers", "ours",
		"-gen-seeds", "1-3", "-kernel-timeout", "60s"}
	out := t.TempDir()
	code, stdout, stderr := runCLI(append(args, "-out", out)...)
	if code != exitOK {
		t.Fatalf("default build: exit %d\n%s%s", code, stdout, stderr)
	}
	recs := readRecords(t, out)
	gens := 0
	for name, r := range recs {
		planted := r.Status == results.Flake || r.Status == results.Timeout
		for _, f := range r.Failures {
			planted = planted || strings.Contains(f.Actual, "planted")
		}
		if planted {
			t.Errorf("default build: %s is %s (%s)", name, r.Status, r.Reason)
		}
		if strings.Contains(name, "/gen/seed=") {
			gens++
		}
	}
	if len(recs) == 0 || gens != 3 {
		t.Fatalf("default build: %d records, %d of seeds 1-3", len(recs), gens)
	}
	if code, stdout, stderr := runCLI("fuzz", "-n", "20", "-seed", "1", "-out", filepath.Join(t.TempDir(), "repro")); code != exitOK {
		t.Errorf("default build: fuzz exit %d\n%s%s", code, stdout, stderr)
	}

	// The fault build plants what the variables say: WAVERIG_TEST_FAIL alone
	// fails every case that passed.
	t.Setenv("WAVERIG_TEST_FLAKY", "")
	t.Setenv("WAVERIG_TEST_HANG", "")
	t.Setenv("WAVERIG_TEST_GEN_BUG", "")
	faulty := t.TempDir()
	if code, stdout, stderr := faultyCLI(t)(append(args, "-gen-seeds", "none", "-retries", "0", "-out", faulty)...); code != exitUnexpected {
		t.Fatalf("fault build: exit %d, want 1\n%s%s", code, stdout, stderr)
	}
	for name, r := range readRecords(t, faulty) {
		if want := recs[name]; want.Status == results.Pass && (r.Status != results.Fail || !strings.Contains(r.Failures[0].Actual, "planted")) {
			t.Errorf("fault build: %s is %s, want a planted Fail", name, r.Status)
		}
	}
}
