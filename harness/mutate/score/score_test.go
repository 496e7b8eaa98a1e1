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
	if IsCFChild() {
		os.Exit(CFChildMain(os.Stdout))
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
		// The control-flow section (TestCFScore's) is kept as it is.
		prev, _ := os.ReadFile(docPath)
		_, cf := SplitDoc(string(prev))
		page := doc
		if cf != "" {
			page += "\n" + cf
		}
		if err := os.WriteFile(docPath, []byte(page), 0o644); err != nil {
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
	oldStatic, _ := SplitDoc(string(old))
	caught, planted, ok := Recorded(oldStatic)
	if !ok {
		t.Fatalf("%s records no score", docPath)
	}
	if s.Caught*planted < caught*s.Planted() {
		t.Errorf("mutation score dropped: %s, recorded %d/%d", s.ScoreLine(), caught, planted)
	}
	// The page is this run's only on the device and sizes it records (a machine
	// without AVX-512 runs lavapipe at 4 and 8 only): elsewhere the score alone holds.
	sameRun := strings.Contains(oldStatic, "- Device: `"+s.Device+"`\n") &&
		strings.Contains(oldStatic, "- Wave sizes: "+sizesString(s.Sizes)+"\n")
	if sameRun && oldStatic != doc {
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

var cfSeeds = flag.Int("cfseeds", 0, "TestCFScore: seeds 1 to N instead of CFSeeds() (to measure a seed set; the page records CFSeeds only)")

var cfAll = flag.Bool("cfall", false, "TestCFScore: run every wave size of the device's plan (default: the device's own size only)")

// TestCFScore runs the control-flow score (RunCF) at the device's default wave
// size, or at every size with -cfall, and holds it to docs/detection.md: no
// size's caught mutants or caught sites below the recorded ones, every
// survivor explained in mutate.CFSurvivors, no unmutated program failing, and
// (with every recorded size run on the recorded device) the section equal to
// this run. -update rewrites the section, keeping the static page.
func TestCFScore(t *testing.T) {
	if testing.Short() {
		t.Skip("the control-flow score runs every mutant site on the device (-short)")
	}
	need(t)
	opt := CFOptions{Log: testLog{t}}
	if *cfSeeds > 0 {
		if *update {
			t.Fatal("-update records CFSeeds(): change score.CFLastSeed instead of -cfseeds")
		}
		for s := 1; s <= *cfSeeds; s++ {
			opt.Seeds = append(opt.Seeds, uint64(s))
		}
	}
	if !*cfAll {
		opt.Sizes = defaultSize(t)
	}
	start := time.Now()
	res, err := RunCF(opt)
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summarize()
	t.Logf("\n%s", s.Text())
	t.Logf("runtime: %s", time.Since(start).Round(time.Second))
	old, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	static, oldCF := SplitDoc(string(old))
	section := s.Markdown()
	if *update {
		if !*cfAll {
			t.Fatal("-update records every size: add -cfall")
		}
		if err := os.WriteFile(docPath, []byte(static+"\n"+section), 0o644); err != nil {
			t.Fatal(err)
		}
		oldCF = section
	}
	if u := s.Unexplained(); len(u) > 0 {
		t.Errorf("control-flow survivors without a reason in mutate.CFSurvivors: %q", u)
	}
	for _, ss := range s.Sizes {
		if ss.FalseFailures > 0 {
			t.Errorf("%d unmutated programs fail at wave size %d: %v", ss.FalseFailures, ss.Size, ss.FalseWhy)
		}
	}
	if oldCF == "" {
		t.Fatalf("%s has no control-flow section (run scripts/mutation-score.sh -update)", docPath)
	}
	rec := RecordedCF(oldCF)
	for _, ss := range s.Sizes {
		r, ok := rec[ss.Size]
		if !ok {
			t.Logf("size %d: not recorded in %s", ss.Size, docPath)
			continue
		}
		if ss.Caught < r.Caught || ss.SitesCaught < r.SitesCaught {
			t.Errorf("control-flow score dropped at size %d: %d/%d mutants, %d/%d sites caught; recorded %d/%d, %d/%d",
				ss.Size, ss.Caught, ss.Planted, ss.SitesCaught, ss.Sites, r.Caught, r.Planted, r.SitesCaught, r.Sites)
		}
	}
	if *cfAll && strings.Contains(oldCF, "- Device: `"+s.Device+"`\n") && len(rec) == len(s.Sizes) && oldCF != section {
		t.Errorf("the control-flow section of %s is stale for this device: run scripts/mutation-score.sh -update", filepath.Base(docPath))
	}
}

// defaultSize is the first device's own wave size (lavapipe: the one its
// LP_NATIVE_VECTOR_WIDTH gives), the size the score runs at in a plain go test.
func defaultSize(t *testing.T) []uint32 {
	t.Helper()
	ds, err := devices.Enumerate()
	if err != nil || len(ds) == 0 {
		t.Fatalf("no device: %v", err)
	}
	return []uint32{ds[0].SubgroupSize}
}
