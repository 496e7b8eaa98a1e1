package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"waverig/devices"
	"waverig/harness"
	"waverig/harness/report"
	"waverig/harness/results"
)

// Several devices in one run, tested with two lavapipes: the Vulkan loader
// enumerates one device per ICD manifest it is given, and two manifests naming
// the same library give two llvmpipe devices (checked with loader 1.3.239; the
// loader does not fold them into one).

// Crash injection for the multi-device tests: a child of device
// abortDeviceEnv, while abortOnceEnv (a file path) does not exist yet, creates
// that file and kills itself with SIGKILL right after announcing its first
// matrix kernel (after the layout check, whose crash would leave nothing to
// check), as a driver crash inside that kernel would.
const (
	abortDeviceEnv = "WAVERIG_TEST_ABORT_DEVICE"
	abortOnceEnv   = "WAVERIG_TEST_ABORT_ONCE"
	// abortAtEnv=prebuild moves the crash to the announcement of the parallel
	// pipeline prebuild (a driver dying while pipelines are built on every core).
	abortAtEnv = "WAVERIG_TEST_ABORT_AT"
	// abortJunkEnv: before it dies, the child writes three lines starting
	// with this text to stderr (the last without a newline), as a driver's
	// crash dump would.
	abortJunkEnv = "WAVERIG_TEST_ABORT_JUNK"
)

// injectedCrashChild runs ChildMain with the crash injection when this process
// is a child the test environment asks to crash; ok is false otherwise.
func injectedCrashChild() (code int, ok bool) {
	dev, marker := os.Getenv(abortDeviceEnv), os.Getenv(abortOnceEnv)
	if dev == "" || marker == "" || !harness.IsChild() {
		return 0, false
	}
	var req harness.ChildRequest
	if json.Unmarshal([]byte(os.Getenv(harness.ChildEnv)), &req) != nil || strconv.Itoa(req.Device) != dev {
		return 0, false
	}
	return harness.ChildMain(crashAfterBegin{marker, os.Getenv(abortAtEnv) == "prebuild"}), true
}

// crashAfterBegin forwards the child's messages (one per Write) to stdout and
// kills the process after the first "begin" message of a matrix kernel (one
// with pending case records: not the layout check, not the pipeline prebuild),
// once per marker file.
type crashAfterBegin struct {
	marker   string
	prebuild bool // crash at the prebuild's announcement instead
}

func (c crashAfterBegin) Write(p []byte) (int, error) {
	n, err := os.Stdout.Write(p)
	kernel := bytes.Contains(p, []byte(`"begin":`)) && bytes.Contains(p, []byte(`"pending":[{`)) && !bytes.Contains(p, []byte(`"begin":"vulkan/Layout/`))
	if c.prebuild {
		kernel = bytes.Contains(p, []byte(`"begin":"vulkan/prebuild/pipelines"`))
	}
	if kernel {
		if f, err := os.OpenFile(c.marker, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644); err == nil {
			f.Close()
			if j := os.Getenv(abortJunkEnv); j != "" {
				os.Stderr.WriteString(j + " Cannot select: 0x1\n" + j + " In function: cs_variant\n" + j + " no newline")
			}
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {} // the signal is on its way
		}
	}
	return n, err
}

// twoLavapipes returns an environment in which the Vulkan loader enumerates
// lavapipe twice: two ICD manifests in a temporary directory, both naming the
// installed lavapipe library, given through VK_DRIVER_FILES (and its older
// name VK_ICD_FILENAMES).
func twoLavapipes(t *testing.T) []string {
	t.Helper()
	manifests, _ := filepath.Glob("/usr/share/vulkan/icd.d/lvp_icd*.json")
	if len(manifests) == 0 {
		if os.Getenv("CI") != "" {
			t.Fatal("CI needs lavapipe (mesa-vulkan-drivers): no /usr/share/vulkan/icd.d/lvp_icd*.json")
		}
		t.Skip("lavapipe is not installed (no /usr/share/vulkan/icd.d/lvp_icd*.json; apt install mesa-vulkan-drivers)")
	}
	data, err := os.ReadFile(manifests[0])
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var files []string
	for _, name := range []string{"lvp-a.json", "lvp-b.json"} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	list := strings.Join(files, string(os.PathListSeparator))
	return append(os.Environ(), "VK_DRIVER_FILES="+list, "VK_ICD_FILENAMES="+list, asMainEnv+"=1")
}

// waverig runs this test binary as the waverig command in env.
func waverig(t *testing.T, env []string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), out.String()
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, out.String()
}

// runTwo runs WaveActiveSum at wave size 8 on both lavapipes and returns the
// exit status, the output, the records per device index and the summary.
func runTwo(t *testing.T, env []string) (int, string, map[int][]results.Record, results.Summary) {
	t.Helper()
	out := t.TempDir()
	code, text := waverig(t, env, "run", "-device", "all", "-api", "vulkan", "-compilers", "ours", "-sizes", "8", "-ops", "^WaveActiveSum$", "-out", out)
	recs, truncated, err := results.ReadRunDir(out)
	if err != nil || truncated {
		t.Fatalf("results.jsonl: %v (truncated %v)\n%s", err, truncated, text)
	}
	by := map[int][]results.Record{}
	for _, r := range recs {
		by[r.DeviceIndex] = append(by[r.DeviceIndex], r)
	}
	s, _ := readSummary(t, out)
	junit, _ := os.ReadFile(filepath.Join(out, results.JUnitFile))
	for _, suite := range []string{`#0/vulkan/compute/ours/wave8"`, `#1/vulkan/compute/ours/wave8"`} {
		if !strings.Contains(string(junit), suite) {
			t.Errorf("no JUnit suite ending %s: two devices of one name must not share suites", suite)
		}
	}
	return code, text, by, s
}

// TestTwoLavapipesOneRun: `waverig devices` lists both lavapipes, and `run
// -device all` puts both devices' records, equally many, in one results.jsonl
// and one summary.json with a row per device.
func TestTwoLavapipesOneRun(t *testing.T) {
	requireVulkan(t)
	env := twoLavapipes(t)
	code, text := waverig(t, env, "devices")
	if code != exitOK || strings.Count(text, "\nGPU1 ") != 1 || !strings.HasPrefix(text[strings.Index(text, "GPU0"):], "GPU0") || strings.Count(text, "llvmpipe (") < 2 {
		t.Fatalf("devices: exit %d, want GPU0 and GPU1, both llvmpipe:\n%s", code, text)
	}
	code, text, by, s := runTwo(t, env)
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, text)
	}
	if len(by) != 2 || len(by[0]) == 0 || len(by[0]) != len(by[1]) {
		t.Fatalf("records per device: %d and %d (devices %d), want equal and non-zero\n%s", len(by[0]), len(by[1]), len(by), text)
	}
	if len(s.Devices) != 2 || s.Devices[0].Index != 0 || s.Devices[1].Index != 1 {
		t.Fatalf("summary devices: %+v", s.Devices)
	}
	a, b := s.Devices[0].Total, s.Devices[1].Total
	if a.Cases == 0 || a.Cases != b.Cases || a.Passed != b.Passed || a.Skipped != b.Skipped || s.Total.Cases != a.Cases+b.Cases {
		t.Fatalf("summary totals: device 0 %+v, device 1 %+v, run %+v", a, b, s.Total)
	}
	if s.Devices[0].Name == s.Devices[1].Name || !strings.HasSuffix(s.Devices[1].Name, " #1") {
		t.Errorf("device names %q and %q: two lavapipes must be told apart", s.Devices[0].Name, s.Devices[1].Name)
	}
	for _, want := range []string{"\n0    8 ", "\n1    8 ", "\n     total "} {
		if !strings.Contains(text, want) {
			t.Errorf("the size table lacks a row %q:\n%s", want, text)
		}
	}
	// Each device's records compare with that device's own: no regression.
	diffs, err := report.CompareDevices(append(by[0], by[1]...), append(by[1], by[0]...))
	if err != nil || len(diffs) != 2 || len(diffs[0].Diff.Regressions)+len(diffs[0].Diff.New)+len(diffs[1].Diff.New) != 0 {
		t.Fatalf("per-device compare of a run with itself: %v %+v", err, diffs)
	}
}

// TestTwoLavapipesOneCrashes: the driver of device 1 "crashes" (the injected
// SIGKILL) in its first kernel; that kernel's cases become device 1's error
// records, device 1 resumes after it, and device 0's results are complete and
// untouched.
func TestTwoLavapipesOneCrashes(t *testing.T) {
	requireVulkan(t)
	env := append(twoLavapipes(t), abortDeviceEnv+"=1", abortOnceEnv+"="+filepath.Join(t.TempDir(), "crashed"))
	code, text, by, s := runTwo(t, env)
	if code != exitUnexpected {
		t.Fatalf("exit %d, want 1 (device 1's crash is an unexpected error)\n%s", code, text)
	}
	crashed := 0
	for _, r := range by[1] {
		if r.Status == results.Crash && strings.Contains(r.Reason, "crashed") {
			crashed++
		}
	}
	if crashed == 0 {
		t.Fatalf("device 1 has no crash records\n%s", text)
	}
	for _, r := range by[0] {
		if r.Verdict() == results.VerdictUnexpected {
			t.Fatalf("device 0 was hit by device 1's crash: %+v", r)
		}
	}
	// Device 1 resumed after the crashed kernel: both devices account for every case.
	if len(by[0]) == 0 || len(by[0]) != len(by[1]) {
		t.Fatalf("records: device 0 %d, device 1 %d, want equal\n%s", len(by[0]), len(by[1]), text)
	}
	if len(s.Devices) != 2 || s.Devices[0].Total.Unexpected != 0 || s.Devices[1].Total.Errors != crashed || s.Devices[0].Total.Passed != s.Devices[1].Total.Passed+crashed {
		t.Fatalf("summary devices: %+v", s.Devices)
	}
}

// TestPickDevices: -device takes indices, name substrings and all, in a comma
// list, each device once.
func TestPickDevices(t *testing.T) {
	devs := []devices.Device{{Name: "llvmpipe (LLVM 15.0.6, 256 bits)"}, {Name: "NVIDIA H200"}, {Name: "NVIDIA H200"}}
	for _, c := range []struct {
		sel  string
		want string
		err  bool
	}{
		{"0", "[0]", false},
		{"h200", "[1]", false},
		{"all", "[0 1 2]", false},
		{"2,0,2", "[2 0]", false},
		{"1, llvmpipe", "[1 0]", false},
		{"ALL,1", "[0 1 2]", false},
		{"3", "", true},
		{"0,,1", "", true},
		{"radeon", "", true},
	} {
		got, err := pickDevices(devs, c.sel)
		if (err != nil) != c.err || (err == nil && strconv.Quote(c.want) != strconv.Quote(fmtInts(got))) {
			t.Errorf("-device %q: %v, %v; want %s (error %v)", c.sel, got, err, c.want, c.err)
		}
	}
	names := deviceNames(devs, []int{0, 1, 2})
	if names[0] != devs[0].Name || names[1] != "NVIDIA H200 #1" || names[2] != "NVIDIA H200 #2" {
		t.Errorf("names %v", names)
	}
	if names := deviceNames(devs, []int{2}); names[2] != "NVIDIA H200" {
		t.Errorf("a device alone keeps its name: %v", names)
	}
}

func fmtInts(v []int) string {
	var s []string
	for _, i := range v {
		s = append(s, strconv.Itoa(i))
	}
	return "[" + strings.Join(s, " ") + "]"
}
