package repro

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"waverig/harness/kernels"
	"waverig/harness/results"
)

// knownFail is a failure a baseline line (known) expects.
func knownFail(c, known string) results.Record {
	return results.Record{Case: c, Op: "WavePrefixSum", Status: results.Fail, Expected: results.OutcomeFail, Known: known}
}

// TestReproGate: an unexpected failure always gets a bundle; a known one only
// as the first of its baseline line; a kernel with a new line among old ones
// gets one for the new line; an improvement (a Fail where the line expects a
// Crash) is unexpected and gets one.
func TestReproGate(t *testing.T) {
	reproDir := t.TempDir()
	lineA, lineB, lineC := "fails.csv:3: scan", "fails.csv:4: other", "fails.csv:5: crash"
	unexpected := results.Record{Case: "c", Op: "WavePrefixSum", Status: results.Fail}
	improved := knownFail("d", lineC)
	improved.Expected = results.OutcomeCrash
	for i, c := range []struct {
		failed  []results.Record
		want    bool
		firstOf []string
	}{
		{[]results.Record{unexpected}, true, nil},
		{[]results.Record{unexpected}, true, nil},
		{[]results.Record{knownFail("a1", lineA), knownFail("a2", lineA)}, true, []string{lineA}},
		{[]results.Record{knownFail("a3", lineA)}, false, nil},
		{[]results.Record{knownFail("a4", lineA), knownFail("b1", lineB)}, true, []string{lineB}},
		{[]results.Record{knownFail("b2", lineB), unexpected}, true, nil},
		{[]results.Record{improved}, true, []string{lineC}},
		{[]results.Record{improved}, true, nil},
	} {
		want, firstOf, err := Gate(reproDir, c.failed, fmt.Sprintf("bundle%d", i))
		if err != nil || want != c.want || strings.Join(firstOf, "|") != strings.Join(c.firstOf, "|") {
			t.Errorf("%d: want %v, first of %q (%v); want %v, %q", i, want, firstOf, err, c.want, c.firstOf)
		}
	}
	// The marker says which line and which bundle.
	marks, _ := filepath.Glob(filepath.Join(reproDir, KnownMarkDir, "*"))
	if len(marks) != 3 {
		t.Fatalf("markers: %v, want one per line (3)", marks)
	}
	found := false
	for _, m := range marks {
		data, _ := os.ReadFile(m)
		found = found || string(data) == lineA+"\nbundle: bundle2\n"
	}
	if !found {
		t.Errorf("no marker names line A and bundle2")
	}
}

// TestReproGateOneWinnerAcrossGoroutines: many goroutines sharing one repro
// directory race for one line: exactly one wins.
func TestReproGateOneWinnerAcrossGoroutines(t *testing.T) {
	reproDir := t.TempDir()
	var wins atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < 64; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			want, _, err := Gate(reproDir, []results.Record{knownFail(fmt.Sprint(i), "fails.csv:9: race")}, fmt.Sprint("k", i))
			if err != nil {
				t.Error(err)
			}
			if want {
				wins.Add(1)
			}
		}()
	}
	wg.Wait()
	if n := wins.Load(); n != 1 {
		t.Fatalf("%d bundles for one known line, want 1", n)
	}
}

// gateChildEnv names the repro directory a re-executed test binary claims a
// line in (TestReproGateChild); the child prints "won N" for its wins.
const gateChildEnv = "WAVERIG_TEST_GATE_DIR"

// TestReproGateChild is the child half of TestReproGateOneWinnerAcrossProcesses
// (skipped unless re-executed by it).
func TestReproGateChild(t *testing.T) {
	dir := os.Getenv(gateChildEnv)
	if dir == "" {
		t.Skip("child of TestReproGateOneWinnerAcrossProcesses only")
	}
	var wins atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if want, _, err := Gate(dir, []results.Record{knownFail("c", "fails.csv:7: processes")}, "k"); err != nil {
				t.Error(err)
			} else if want {
				wins.Add(1)
			}
		}()
	}
	wg.Wait()
	fmt.Printf("won %d\n", wins.Load())
}

// TestReproGateOneWinnerAcrossProcesses: child processes (as a run's, one
// per wave size, each with a restart after a crash) writing into one repro
// directory at once give a known line one bundle in all.
func TestReproGateOneWinnerAcrossProcesses(t *testing.T) {
	dir := t.TempDir()
	const n = 6
	outs := make([]string, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^TestReproGateChild$", "-test.v")
			cmd.Env = append(os.Environ(), gateChildEnv+"="+dir)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Errorf("child %d: %v\n%s", i, err, out)
			}
			outs[i] = string(out)
		}()
	}
	wg.Wait()
	total := 0
	re := regexp.MustCompile(`(?m)^won (\d+)$`)
	for i, out := range outs {
		m := re.FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("child %d said nothing of its wins:\n%s", i, out)
		}
		w, _ := strconv.Atoi(m[1])
		total += w
	}
	if total != 1 {
		t.Fatalf("%d bundles for one known line across %d processes, want 1", total, n)
	}
}

// TestWriteReproOnlyForTheFirstKnownKernel: of two kernels whose failures
// one baseline line explains, only the first gets a bundle, and its README.txt
// says it is the line's one bundle; a new failure in the second gets one.
func TestWriteReproOnlyForTheFirstKnownKernel(t *testing.T) {
	reproDir := t.TempDir()
	px := kernels.GraphicsMatrix(kernels.Pixel, kernels.Filter{Ops: regexp.MustCompile(`^WaveActiveSum$`)})
	if len(px) < 2 {
		t.Fatalf("%d pixel kernels, want 2", len(px))
	}
	line := "lavapipe/fails.csv:12: quads"
	bundleDir := func(k kernels.Kernel) string { return filepath.Join(reproDir, k.Name+".vulkan.ours.wave8") }
	for _, k := range px[:2] {
		if err := Write(reproDir, bundle(k, 8, []results.Record{knownFail(k.Cases[0].ID(), line)}, map[string][]byte{})); err != nil {
			t.Fatal(err)
		}
	}
	readme, err := os.ReadFile(filepath.Join(bundleDir(px[0]), "README.txt"))
	if err != nil || !strings.Contains(string(readme), "Known problem: "+line+"\nThis is the run's one bundle for that baseline line") {
		t.Errorf("the first kernel's bundle (%v):\n%s", err, readme)
	}
	if _, err := os.Stat(bundleDir(px[1])); !os.IsNotExist(err) {
		t.Errorf("the second kernel of a known line got a bundle (%v)", err)
	}
	fresh := results.Record{Case: px[1].Cases[0].ID(), Op: "WaveActiveSum", Status: results.Fail}
	if err := Write(reproDir, bundle(px[1], 8, []results.Record{fresh}, map[string][]byte{})); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(bundleDir(px[1]), "README.txt")); err != nil {
		t.Errorf("a new failure got no bundle: %v", err)
	}
}
