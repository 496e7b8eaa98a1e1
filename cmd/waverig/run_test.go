package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"waverig/harness/results"
)

// asMainEnv makes the test binary behave as the waverig binary (its main), so
// tests can run it as a process: with a closed stdout, or as a run's child.
const asMainEnv = "WAVERIG_TEST_AS_MAIN"

func TestMain(m *testing.M) {
	// A run started by a test re-executes this binary for each lavapipe wave size.
	if os.Getenv(asMainEnv) != "" || os.Getenv("WAVERIG_CHILD") != "" {
		if code, ok := injectedCrashChild(); ok {
			os.Exit(code)
		}
		os.Exit(mainStatus())
	}
	code := m.Run()
	removeFaultBuild()
	os.Exit(code)
}

func readSummary(t *testing.T, dir string) (results.Summary, map[string]any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, results.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	var s results.Summary
	var raw map[string]any
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(data, &raw)
	return s, raw
}

// TestRunSummaryAndRecords: a small run exits 0, summary.json uses results.jsonl's
// lower-case names with a real total, and every record names device and driver.
func TestRunSummaryAndRecords(t *testing.T) {
	requireVulkan(t)
	out := t.TempDir()
	code, stdout, stderr := runCLI("run", "-ops", "^WaveActiveSum$", "-sizes", "4", "-compilers", "ours", "-out", out)
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	s, raw := readSummary(t, out)
	total := raw["total"].(map[string]any)
	for _, k := range []string{"cases", "passed", "unexpected", "kernels", "seconds"} {
		if _, ok := total[k]; !ok {
			t.Errorf("summary total lacks %q: %v", k, total)
		}
	}
	if s.Total.Cases == 0 || s.Total.Kernels == 0 || s.Total.Seconds <= 0 || s.Total.Seconds > 3600 || s.ExitStatus != 0 {
		t.Errorf("summary total %+v exit %d", s.Total, s.ExitStatus)
	}
	recs, truncated, err := results.ReadRunDir(out)
	layouts := map[string]bool{}
	for _, r := range recs {
		if r.Case == results.LayoutCase {
			layouts[r.API] = true
		}
	}
	// + one layout record per API (WebGPU's only where an adapter was found)
	if err != nil || truncated || len(recs) != s.Total.Cases+s.Total.Differs+len(layouts) || !layouts[results.Vulkan] {
		t.Fatalf("%d records (summary %d cases, %d parity, layouts %v), truncated %v, %v", len(recs), s.Total.Cases, s.Total.Differs, layouts, truncated, err)
	}
	for _, r := range recs {
		if r.Device == "" || r.Driver == "" || r.API == "" || r.Stage == "" {
			t.Fatalf("record without device, driver, api or stage: %+v", r)
		}
	}
}

// TestRunCrashIsUnexpectedAndNamesTheDevice: with the expectation files off, a
// known lavapipe crash is an unexpected error record (exit 1) that carries the
// device and driver and sits in the device's JUnit suite.
func TestRunCrashIsUnexpectedAndNamesTheDevice(t *testing.T) {
	requireVulkan(t)
	out := t.TempDir()
	code, stdout, stderr := runCLI("run", "-ops", "^WaveReadLaneFirst$", "-sizes", "4", "-compilers", "glslang", "-no-expectations", "-out", out)
	if code != exitUnexpected {
		t.Fatalf("exit %d, want 1\n%s%s", code, stdout, stderr)
	}
	recs, _, _ := results.ReadRunDir(out)
	crashes := 0
	for _, r := range recs {
		if r.Status == results.Crash && strings.Contains(r.Reason, "crashed") {
			crashes++
			if r.Device == "" || r.Driver == "" || r.Verdict() != results.VerdictUnexpected {
				t.Fatalf("crash record: %+v", r)
			}
		}
	}
	if crashes == 0 {
		t.Fatal("no crash record: is half with glslang still a lavapipe crash?")
	}
	junit, _ := os.ReadFile(filepath.Join(out, results.JUnitFile))
	if !strings.Contains(string(junit), `<testsuite name="llvmpipe`) || strings.Contains(string(junit), `<testsuite name="/`) {
		t.Errorf("crash records must sit in their device's JUnit suite:\n%.2000s", junit)
	}
}

// TestRunAtSixteenLanesPassesWithExpectations is the AVX-512 first run: wave size
// 16 (forced here where the CPU lacks AVX-512) with the built-in expectations
// exits 0, the glslang half crash being known at 16 too.
func TestRunAtSixteenLanesPassesWithExpectations(t *testing.T) {
	requireVulkan(t)
	out := t.TempDir()
	code, stdout, stderr := runCLI("run", "-ops", "^WaveReadLaneFirst$", "-sizes", "16", "-out", out)
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
}

func TestRunRefusesBadInputBeforeRunning(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.jsonl")
	os.WriteFile(empty, nil, 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "-baseline", filepath.Join(dir, "missing.jsonl")}, "-baseline"},
		{[]string{"run", "-baseline", empty}, "no records"},
		{[]string{"run", "-baseline", "/dev/zero"}, "not a regular file"},
		{[]string{"run", "-ops", "NoSuchOp"}, "matches no operation"},
		{[]string{"run", "-ops", "("}, "-ops"},
		{[]string{"run", "-types", "quad7"}, "matches no case"},
		{[]string{"run", "-ops", "WaveActiveBitAnd", "-types", "double*"}, "matches no case"},
		{[]string{"run", "-sizes", "3"}, "power of two"},
		{[]string{"run", "-retries", "-1"}, "-retries"},
		{[]string{"run", "-ops", "WaveActiveSum", "stray", "-sizes", "4"}, "argument"},
		{[]string{"report"}, "usage"},
		{[]string{"diff", "a.jsonl"}, "usage"},
	} {
		out := filepath.Join(dir, "out")
		code, _, stderr := runCLI(append(c.args, "-out", out)...)
		if c.args[0] != "run" {
			code, _, stderr = runCLI(c.args...)
		}
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q (want 2 and %q)", c.args, code, stderr, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: a run directory was made before the input was checked", c.args)
		}
	}
	for _, cmd := range []string{"run", "exec", "devices", "compile", "report", "diff"} {
		if code, stdout, _ := runCLI(cmd, "-h"); code != exitOK || !strings.Contains(stdout, "usage") {
			t.Errorf("%s -h: exit %d, stdout %q", cmd, code, stdout)
		}
	}
}

func TestRunRefusesABusyDirectory(t *testing.T) {
	requireVulkan(t)
	out := t.TempDir()
	held, err := results.OpenDir(out)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	code, _, stderr := runCLI("run", "-ops", "^WaveActiveSum$", "-sizes", "4", "-out", out)
	if code != exitUsage || !strings.Contains(stderr, "another waverig run") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
}

// TestRunOnAFullDiskFailsLoudly runs into a 32 KiB tmpfs: results.jsonl cannot
// hold the run, and the run must say so with exit 3, never exit 0.
func TestRunOnAFullDiskFailsLoudly(t *testing.T) {
	requireVulkan(t)
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root (CI runs as root)")
	}
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=32k"); err != nil {
		t.Skipf("cannot mount tmpfs here: %v", err)
	}
	defer syscall.Unmount(dir, 0)
	code, _, stderr := runCLI("run", "-ops", "^WaveActiveSum$", "-sizes", "4", "-compilers", "ours", "-out", filepath.Join(dir, "out"))
	if code != exitIncomplete || !strings.Contains(stderr, "RESULTS NOT SAVED") || !strings.Contains(stderr, "no space") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}

// TestRunSurvivesAClosedStdout is `waverig run | head -1`: the reader goes away,
// and the run still finishes and writes its summary.
func TestRunSurvivesAClosedStdout(t *testing.T) {
	requireVulkan(t)
	out := t.TempDir()
	cmd := exec.Command(os.Args[0], "run", "-ops", "^WaveActiveSum$", "-sizes", "4", "-compilers", "ours", "-out", out)
	cmd.Env = append(os.Environ(), asMainEnv+"=1")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close() // like head after its first line: every write gets EPIPE
	cmd.Stdout = w
	err = cmd.Run()
	w.Close()
	if err != nil {
		t.Fatalf("run with a closed stdout: %v", err)
	}
	if s, _ := readSummary(t, out); s.Total.Cases == 0 {
		t.Fatal("no summary")
	}
}

func TestDiffRefusesWhatIsNotTwoRunsOfOneDevice(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(text), 0o644)
		return p
	}
	line := func(dev, status string) string {
		return `{"case":"c","op":"WaveActiveSum","waveSize":4,"compiler":"ours","device":"` + dev + `","driver":"d","status":"` + status + `"}` + "\n"
	}
	a := write("a.jsonl", line("llvmpipe (LLVM 15.0.6, 128 bits)", "pass"))
	b := write("b.jsonl", line("llvmpipe (LLVM 15.0.6, 256 bits)", "fail"))
	other := write("other.jsonl", line("NVIDIA H200", "pass"))
	empty := write("empty.jsonl", "")
	cut := write("cut.jsonl", line("x", "pass")+`{"case":"c2","sta`)
	for _, c := range []struct {
		args []string
		want int
	}{
		{[]string{a, b}, exitUnexpected}, // same device (the width is not identity), a regression
		{[]string{b, a}, exitOK},
		{[]string{a, empty}, exitUsage},
		{[]string{a, cut}, exitUsage},
		{[]string{a, other}, exitUsage},
		{[]string{"-cross-device", a, other}, exitOK},
	} {
		if code, _, stderr := runCLI(append([]string{"diff"}, c.args...)...); code != c.want {
			t.Errorf("diff %v: exit %d, want %d (%s)", c.args, code, c.want, stderr)
		}
	}
}
