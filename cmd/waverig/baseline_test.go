package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"waverig/harness/expect"
	"waverig/harness/results"
)

// baselineRun is one run of the baseline flow: WaveActiveSum at wave size 4 in
// Vulkan compute (a lavapipe child process) by the fault build, with test
// hooks planting faults.
func baselineRun(t *testing.T, out string, plantFail, plantFlaky string, extra ...string) (int, string) {
	t.Helper()
	t.Setenv("WAVERIG_TEST_FAIL", plantFail)
	t.Setenv("WAVERIG_TEST_FLAKY", plantFlaky)
	args := append([]string{"run", "-ops", "^WaveActiveSum$", "-sizes", "4", "-api", "vulkan", "-stages", "compute", "-compilers", "ours", "-out", out}, extra...)
	code, stdout, stderr := faultyCLI(t)(args...)
	return code, stdout + stderr
}

func readRecords(t *testing.T, dir string) map[string]results.Record {
	t.Helper()
	recs, _, err := results.ReadRunDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]results.Record{}
	for _, r := range recs {
		if r.Case != results.LayoutCase {
			out[r.Name()] = r
		}
	}
	return out
}

func fileText(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestBaselineFlow is deqp-runner's workflow end to end on lavapipe: a run's
// failures.csv, committed as a baseline's fails.csv, makes the next run pass;
// a planted regression fails it and diff and the report name it; a case that
// fails once and then passes is a Flake; a fixed case is an
// UnexpectedImprovement(Pass) that fails the run until the line goes.
func TestBaselineFlow(t *testing.T) {
	requireVulkan(t)
	dir := t.TempDir()
	const known = "vulkan/compute/WaveActiveSum/uint/odd/partial/size=4"
	const regression = "vulkan/compute/WaveActiveSum/int/even/whole/size=4"
	const flaky = "vulkan/compute/WaveActiveSum/float/first/whole/size=4"

	// 1. A run with one (planted) failure: exit 1, and failures.csv lists it.
	run1 := filepath.Join(dir, "run1")
	if code, out := baselineRun(t, run1, "^"+known+"$", ""); code != exitUnexpected {
		t.Fatalf("run 1: exit %d, want 1\n%s", code, out)
	}
	fails := fileText(t, filepath.Join(run1, results.FailuresFile))
	if !strings.Contains(fails, "\n"+known+",Fail\n") || strings.Count(fails, ",Fail\n") != 1 {
		t.Fatalf("failures.csv:\n%s", fails)
	}
	// 2. failures.csv as is is the baseline: the same failure is ExpectedFail, exit 0.
	base := filepath.Join(dir, "baseline")
	os.MkdirAll(base, 0o755)
	os.WriteFile(filepath.Join(base, expect.FailsFile), []byte(fails), 0o644)
	os.WriteFile(filepath.Join(base, expect.FlakesFile), []byte("# none yet\n"), 0o644)
	run2 := filepath.Join(dir, "run2")
	if code, out := baselineRun(t, run2, "^"+known+"$", "", "-baseline", base); code != exitOK {
		t.Fatalf("run 2 against the baseline: exit %d, want 0\n%s", code, out)
	}
	if r := readRecords(t, run2)[known]; r.RunStatus() != results.OutcomeExpectedFail {
		t.Errorf("%s: %s, want ExpectedFail", known, r.RunStatus())
	}
	ex := fileText(t, filepath.Join(run2, results.ExpectationFile))
	if !strings.Contains(ex, base) || !strings.Contains(ex, "fails.csv") || strings.Contains(ex, "builtin:") {
		t.Errorf("expectation.json does not name the baseline it used (and only it):\n%s", ex)
	}
	// 3. A planted regression fails the run; diff and the report name it.
	run3 := filepath.Join(dir, "run3")
	code, out := baselineRun(t, run3, "^("+known+"|"+regression+")$", "", "-baseline", base+","+filepath.Join(run2, results.ResultsFile))
	if code != exitUnexpected || !strings.Contains(out, "FAIL "+regression) {
		t.Fatalf("run 3 with a regression: exit %d, want 1 naming it\n%s", code, out)
	}
	if !strings.Contains(out, "regress") || !strings.Contains(out, "WaveActiveSum/int/even/whole") {
		t.Errorf("the comparison with run 2 does not list the regression:\n%s", out)
	}
	dcode, dout, _ := runCLI("diff", filepath.Join(run2, results.ResultsFile), filepath.Join(run3, results.ResultsFile))
	if dcode != exitUnexpected || !strings.Contains(dout, "WaveActiveSum/int/even/whole") {
		t.Errorf("diff: exit %d, want 1 naming the regression\n%s", dcode, dout)
	}
	if html := fileText(t, filepath.Join(run3, results.HTMLFile)); !strings.Contains(html, regression) {
		t.Error("report.html does not name the regression")
	}
	if csv := csvText(t, run3); !strings.Contains(csv, "\n"+regression+",Fail,") || !strings.Contains(csv, "\n"+known+",ExpectedFail,") {
		t.Errorf("results.csv lacks the statuses")
	}
	// 4. A case that fails once, then passes on a re-run, is a Flake: exit 0.
	run4 := filepath.Join(dir, "run4")
	code, out = baselineRun(t, run4, "^"+known+"$", "^"+flaky+"$", "-baseline", base)
	if code != exitOK || !strings.Contains(out, "FLAKE "+flaky) {
		t.Fatalf("run 4 with a flaky case: exit %d, want 0 naming the flake\n%s", code, out)
	}
	r := readRecords(t, run4)[flaky]
	if r.RunStatus() != results.OutcomeFlake || r.Attempts != 2 || len(r.Failures) == 0 {
		t.Errorf("flaky case: %s after %d attempts, %d failing lanes kept", r.RunStatus(), r.Attempts, len(r.Failures))
	}
	if s, _ := readSummary(t, run4); s.Total.Flakes != 1 {
		t.Errorf("summary counts %d flakes", s.Total.Flakes)
	}
	// With -retries 0 the same case is a failure.
	if code, out := baselineRun(t, filepath.Join(dir, "run4b"), "^"+known+"$", "^"+flaky+"$", "-baseline", base, "-retries", "0"); code != exitUnexpected {
		t.Errorf("-retries 0: exit %d, want 1\n%s", code, out)
	}
	// `waverig baseline` makes a whole baseline directory of run 4: its failure
	// in fails.csv, its flake in flakes.txt, a driver.txt for this device. The
	// flaky case failing every time is then a KnownFlake: exit 0.
	gen := filepath.Join(dir, "generated")
	if code, stdout, stderr := runCLI("baseline", "-out", gen, run4); code != exitOK {
		t.Fatalf("baseline: exit %d\n%s%s", code, stdout, stderr)
	}
	if flakes := fileText(t, filepath.Join(gen, expect.FlakesFile)); !strings.Contains(flakes, "\n"+flaky+"\n") {
		t.Errorf("flakes.txt:\n%s", flakes)
	}
	run4c := filepath.Join(dir, "run4c")
	code, out = baselineRun(t, run4c, "^("+known+"|"+flaky+")$", "", "-baseline", gen)
	if code != exitOK {
		t.Fatalf("against the generated baseline, the flaky case failing: exit %d, want 0\n%s", code, out)
	}
	if r := readRecords(t, run4c)[flaky]; r.RunStatus() != results.OutcomeKnownFlake {
		t.Errorf("%s: %s, want KnownFlake", flaky, r.RunStatus())
	}
	// 5. The known failure fixed: UnexpectedImprovement(Pass), exit 1 until the line goes.
	run5 := filepath.Join(dir, "run5")
	code, out = baselineRun(t, run5, "", "", "-baseline", base)
	if code != exitUnexpected || !strings.Contains(out, "UnexpectedImprovement(Pass) "+known) {
		t.Fatalf("run 5 with the bug fixed: exit %d, want 1 naming the improvement\n%s", code, out)
	}
	if fails := fileText(t, filepath.Join(run5, results.FailuresFile)); strings.Contains(fails, ",Fail") {
		t.Errorf("failures.csv of a clean run lists failures:\n%s", fails)
	}
	// A baseline whose driver.txt names another driver is refused before the run.
	other := filepath.Join(dir, "other")
	os.MkdirAll(other, 0o755)
	os.WriteFile(filepath.Join(other, expect.DriverFile), []byte("NVIDIA\n"), 0o644)
	os.WriteFile(filepath.Join(other, expect.FailsFile), []byte(""), 0o644)
	if code, out := baselineRun(t, filepath.Join(dir, "run6"), "", "", "-baseline", other); code != exitUsage || !strings.Contains(out, "is for drivers matching") {
		t.Errorf("a baseline of another driver: exit %d, want 2\n%s", code, out)
	}
}

// TestBuiltinBaselineRealFailures: with glslang, the built-in baselines know
// its inclusive prefix sums (a real wrong result) and the run passes; without
// any baseline it fails, and its failures.csv, used as a baseline, passes.
func TestBuiltinBaselineRealFailures(t *testing.T) {
	requireVulkan(t)
	dir := t.TempDir()
	args := []string{"run", "-ops", "^WavePrefixSum$", "-sizes", "8", "-api", "vulkan", "-stages", "compute", "-compilers", "ours,glslang"}
	if code, stdout, stderr := runCLI(append(args, "-out", filepath.Join(dir, "builtin"))...); code != exitOK {
		t.Fatalf("with the built-in baselines: exit %d\n%s%s", code, stdout, stderr)
	}
	bare := filepath.Join(dir, "bare")
	if code, stdout, _ := runCLI(append(args, "-out", bare, "-no-baseline")...); code != exitUnexpected {
		t.Fatalf("without baselines: exit %d, want 1\n%s", code, stdout)
	}
	fails := fileText(t, filepath.Join(bare, results.FailuresFile))
	if n := strings.Count(fails, "/compiler=glslang,Fail\n"); n == 0 || strings.Count(fails, ",Fail\n") != n {
		t.Fatalf("failures.csv should list glslang's prefix sums only:\n%s", fails)
	}
	base := filepath.Join(dir, "base")
	os.MkdirAll(base, 0o755)
	os.WriteFile(filepath.Join(base, expect.FailsFile), []byte(fails), 0o644)
	if code, stdout, _ := runCLI(append(args, "-out", filepath.Join(dir, "again"), "-baseline", base)...); code != exitOK {
		t.Fatalf("against its own failures.csv: exit %d\n%s", code, stdout)
	}
}

// TestKernelTimeout: a kernel that hangs in a child process is killed by the
// watchdog; its cases are Timeout records (in failures.csv as Timeout), the
// run goes on with the next kernel and fails.
func TestKernelTimeout(t *testing.T) {
	requireVulkan(t)
	out := t.TempDir()
	t.Setenv("WAVERIG_TEST_HANG", "^WaveActiveSum_.*partial")
	code, stdout, stderr := faultyCLI(t)("run", "-ops", "^WaveActiveSum$", "-sizes", "4", "-api", "vulkan", "-stages", "compute", "-compilers", "ours", "-kernel-timeout", "3s", "-out", out)
	if code != exitUnexpected {
		t.Fatalf("exit %d, want 1\n%s%s", code, stdout, stderr)
	}
	timeouts, passed := 0, 0
	for name, r := range readRecords(t, out) {
		switch r.Status {
		case results.Timeout:
			timeouts++
			if !strings.Contains(name, "/partial/") || r.RunStatus() != results.OutcomeTimeout || !strings.Contains(r.Reason, "did not finish within 3s") {
				t.Errorf("%s: %s %q", name, r.RunStatus(), r.Reason)
			}
		case results.Pass:
			passed++
		}
	}
	if timeouts == 0 || passed == 0 {
		t.Errorf("%d timeouts, %d passes: the hung kernel times out and the others still run", timeouts, passed)
	}
	if fails := fileText(t, filepath.Join(out, results.FailuresFile)); !strings.Contains(fails, "/partial/size=4,Timeout\n") {
		t.Errorf("failures.csv:\n%s", fails)
	}
}

// TestCrashesLoseNoRecords: lavapipe crashes in both compilers' runs of
// WaveReadLaneFirst on doubles at 4 lanes (the built-in baseline's Crash
// lines, which run in child processes). Every case `waverig list` names must
// still get exactly one record: the restarted child re-runs the kernel's
// other targets and never a target that crashed.
func TestCrashesLoseNoRecords(t *testing.T) {
	requireVulkan(t)
	out := t.TempDir()
	args := []string{"-ops", "^WaveReadLaneFirst$", "-sizes", "4", "-api", "vulkan", "-stages", "compute"}
	code, stdout, stderr := runCLI(append([]string{"run", "-out", out}, args...)...)
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	lcode, listed, _ := runCLI(append([]string{"list"}, args...)...)
	if lcode != exitOK {
		t.Fatalf("list: exit %d", lcode)
	}
	want := strings.Fields(listed)
	recs, _, err := results.ReadRunDir(out)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	crashes := 0
	for _, r := range recs {
		if r.Case == results.LayoutCase || r.Status == results.Differs {
			continue
		}
		got[r.Name()]++
		if r.Status == results.Crash {
			crashes++
		}
	}
	if crashes == 0 {
		t.Fatal("no crash: the test needs lavapipe 22.3's WaveReadLaneFirst crash")
	}
	for _, n := range want {
		if got[n] != 1 {
			t.Errorf("%s: %d records", n, got[n])
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d names recorded, %d listed", len(got), len(want))
	}
}
