package vulkan

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
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

// testDevice is the device the tests run on: WAVERIG_TEST_DEVICE (an index
// of devices.Enumerate), default 0.
func testDevice() int {
	if s := os.Getenv("WAVERIG_TEST_DEVICE"); s != "" {
		if n, err := strconv.Atoi(s); err == nil {
			return n
		}
	}
	return 0
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
	runnerOnce.Do(func() { runnerInst, runnerErr = NewRunner(testDevice()) })
	if errors.Is(runnerErr, devices.ErrNoVulkan) {
		need(t, runnerErr.Error())
	}
	if runnerErr != nil {
		t.Fatalf("NewRunner: %v", runnerErr)
	}
	return runnerInst
}

var update = flag.Bool("update", false, "rewrite the checked-in testdata/*.spv from glslangValidator")

var spvCache sync.Map // testdata file name -> []uint32

// compileGLSL returns the SPIR-V of testdata/name. The module is checked in
// as testdata/name.spv (so machines without glslang, like a bare GPU host,
// still run the kernels); where glslangValidator exists the test compiles
// the source again for Vulkan 1.1 (the target whose output spirv-val
// accepts) and fails if the checked-in copy is stale (-update rewrites it).
func compileGLSL(t testing.TB, name string) []uint32 {
	t.Helper()
	return compileGLSLFor(t, name, "vulkan1.1")
}

// compileGLSLFor is compileGLSL for a target environment of its own: the
// task and mesh probes need SPIR-V 1.4 and up (vulkan1.3).
func compileGLSLFor(t testing.TB, name, env string) []uint32 {
	t.Helper()
	if w, ok := spvCache.Load(name); ok {
		return w.([]uint32)
	}
	golden := filepath.Join("testdata", name+".spv")
	var spv []byte
	if tool, err := exec.LookPath("glslangValidator"); err == nil {
		out := filepath.Join(t.TempDir(), name+".spv")
		cmd := exec.Command(tool, "-V", "--target-env", env, "-o", out, filepath.Join("testdata", name))
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("glslangValidator %s: %v\n%s", name, err, msg)
		}
		if spv, err = os.ReadFile(out); err != nil {
			t.Fatal(err)
		}
		if *update {
			if err := os.WriteFile(golden, spv, 0o644); err != nil {
				t.Fatal(err)
			}
		} else if old, err := os.ReadFile(golden); err != nil || !bytes.Equal(old, spv) {
			t.Fatalf("%s is missing or stale (run go test ./harness/vulkan -update): %v", golden, err)
		}
	} else {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI: glslangValidator not installed (Debian package glslang-tools)")
		}
		if spv, err = os.ReadFile(golden); err != nil {
			t.Fatal(err)
		}
	}
	w, err := WordsFromBytes(spv)
	if err != nil {
		t.Fatal(err)
	}
	spvCache.Store(name, w)
	return w
}
