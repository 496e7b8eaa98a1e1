package score

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"waverig/devices"
	"waverig/harness/mutate"
)

var update = flag.Bool("update", false, "rewrite docs/detection.md from this run")

// TestMain lets the test binary double as a score child process.
func TestMain(m *testing.M) {
	if IsChild() {
		os.Exit(ChildMain(os.Stdout))
	}
	os.Exit(m.Run())
}

const docPath = "../../../docs/detection.md"

// need skips (locally) or fails (CI) without a device or the SPIR-V tools.
func need(t *testing.T) {
	t.Helper()
	missing := ""
	for _, tool := range []string{"spirv-dis", "spirv-as", "spirv-val"} {
		if _, err := exec.LookPath(tool); err != nil {
			missing = tool + " not installed"
		}
	}
	if missing == "" {
		if ds, err := devices.Enumerate(); err != nil || len(ds) == 0 {
			missing = "no Vulkan device"
		}
	}
	if missing != "" {
		if os.Getenv("CI") != "" {
			t.Fatal(missing)
		}
		t.Skip(missing)
	}
}

// TestMutationScore runs the score on the first device and holds it to
// docs/detection.md: not below the recorded score, every survivor explained,
// no false failure, and the page equal to this run on the device and sizes it
// records.
func TestMutationScore(t *testing.T) {
	if testing.Short() {
		t.Skip("the score runs every mutant on the device (-short)")
	}
	need(t)
	start := time.Now()
	res, err := Run(Options{Log: testLog{t}})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summarize()
	t.Logf("\n%s", s.Text())
	t.Logf("runtime: %s", time.Since(start).Round(time.Second))
	doc := s.Markdown()
	if *update {
		if err := os.WriteFile(docPath, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if u := s.Unexplained(); len(u) > 0 {
		t.Errorf("survivors without a reason in mutate.Survivors: %q", u)
	}
	for _, size := range s.Sizes {
		if n := s.FalseFailures[size]; n > 0 {
			t.Errorf("%d unmutated kernels fail at wave size %d", n, size)
		}
	}
	old, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatalf("%v (run scripts/mutation-score.sh -update)", err)
	}
	caught, planted, ok := Recorded(string(old))
	if !ok {
		t.Fatalf("%s records no score", docPath)
	}
	if s.Caught*planted < caught*s.Planted() {
		t.Errorf("mutation score dropped: %s, recorded %d/%d", s.ScoreLine(), caught, planted)
	}
	// The page is this run's only on the device and sizes it records (a machine
	// without AVX-512 runs lavapipe at 4 and 8 only): elsewhere the score alone holds.
	sameRun := strings.Contains(string(old), "- Device: `"+s.Device+"`\n") &&
		strings.Contains(string(old), "- Wave sizes: "+sizesString(s.Sizes)+"\n")
	if sameRun && string(old) != doc {
		t.Errorf("%s is stale for this device: run scripts/mutation-score.sh -update", filepath.Base(docPath))
	}
}

type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// TestDocListsEveryMutant: docs/detection.md names every mutant of the
// catalogue (it cannot lag behind mutate.All), without a device.
func TestDocListsEveryMutant(t *testing.T) {
	doc, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range mutate.All {
		if !strings.Contains(string(doc), "| `"+m.Name+"` |") {
			t.Errorf("%s does not list mutant %q: run scripts/mutation-score.sh -update", docPath, m.Name)
		}
	}
	for name := range mutate.Survivors {
		if _, ok := mutate.Find(name); !ok {
			t.Errorf("mutate.Survivors explains %q, which is not a mutant", name)
		}
	}
}
