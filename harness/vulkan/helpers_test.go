package vulkan

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"waverig/devices"
)

// need skips a test for a missing prerequisite locally and fails it under
// CI, where the prerequisites are installed on purpose.
func need(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf("CI: %s", why)
	}
	t.Skip(why)
}

var (
	runnerOnce sync.Once
	runnerInst *Runner
	runnerErr  error
)

// sharedRunner opens device 0 once per test process; creating a logical
// device per test would dominate the run time on lavapipe.
func sharedRunner(t testing.TB) *Runner {
	t.Helper()
	runnerOnce.Do(func() { runnerInst, runnerErr = NewRunner(0) })
	if errors.Is(runnerErr, devices.ErrNoVulkan) {
		need(t, runnerErr.Error())
	}
	if runnerErr != nil {
		t.Fatalf("NewRunner: %v", runnerErr)
	}
	return runnerInst
}

var spvCache sync.Map // testdata file name -> []uint32

// compileGLSL compiles testdata/name with glslangValidator for Vulkan 1.1
// (the target whose output spirv-val accepts, see shared facts).
func compileGLSL(t testing.TB, name string) []uint32 {
	t.Helper()
	if w, ok := spvCache.Load(name); ok {
		return w.([]uint32)
	}
	tool, err := exec.LookPath("glslangValidator")
	if err != nil {
		need(t, "glslangValidator not installed (Debian package glslang-tools)")
	}
	out := filepath.Join(t.TempDir(), name+".spv")
	cmd := exec.Command(tool, "-V", "--target-env", "vulkan1.1", "-o", out, filepath.Join("testdata", name))
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("glslangValidator %s: %v\n%s", name, err, msg)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	w, err := WordsFromBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	spvCache.Store(name, w)
	return w
}
