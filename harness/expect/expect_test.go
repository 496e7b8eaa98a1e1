package expect

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"waverig/harness/results"
)

const lavapipe = "llvmpipe (LLVM 15.0.6, 128 bits) | llvmpipe | Mesa 22.3.6 (LLVM 15.0.6)"

func rec(api, stage, c, comp string, size uint32, status string) results.Record {
	op, _, _ := strings.Cut(c, "/")
	return results.Record{API: api, Stage: stage, Case: c, Op: op, Compiler: comp, WaveSize: size, Status: status}
}

func TestBuiltinBaselinesMatchAsWritten(t *testing.T) {
	sets, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	j := For(sets, lavapipe)
	if len(j.Sets) != 2 {
		t.Fatalf("lavapipe 22.3.6 gets %d baselines, want its own and glslang's", len(j.Sets))
	}
	want := []struct {
		name, status string
	}{
		// The double crashes (LLVM instruction selection on the float-plus-residual
		// kernels) went with that transport: the 64-bit kernels run and pass.
		{"vulkan/compute/WaveReadLaneFirst/double2/all/whole/size=4", ""},
		{"vulkan/compute/WaveReadLaneFirst/double/odd/partial/size=16/compiler=glslang", ""},
		{"vulkan/compute/WaveReadLaneFirst/uint64_t2/all/whole/size=8", ""},
		{"vulkan/compute/WaveReadLaneAt/double2/all/whole/size=8", ""},
		{"vulkan/compute/WaveReadLaneFirst/half2/all/whole/size=8", ""},
		{"vulkan/compute/WaveReadLaneFirst/half/all/whole/size=16/compiler=glslang", "Crash"},
		{"vulkan/compute/WavePrefixProduct/uint/all/whole/size=8/compiler=glslang", "Fail"},
		{"vulkan/compute/WavePrefixProduct/uint/all/whole/size=8", ""},
		{"vulkan/compute/WaveActiveAllEqual/uint/all/whole/size=8/compiler=glslang", ""},
		{"vulkan/compute/WaveActiveAllEqual/uint3/all/whole/size=8/compiler=glslang", "Fail"},
		{"webgpu/pixel/QuadAll/bool/all/fb16x16/size=4", "Fail"},
		{"webgpu/pixel/QuadAll.khr/bool/all/fb16x16/size=4", ""},
		{"vulkan/pixel/WaveActiveSum/uint/all/fb15x15/size=8/compiler=glslang", "Fail"},
	}
	for _, w := range want {
		got := ""
		if l := j.Expected(w.name); l != nil {
			got = l.Status
			if l.Reason == "" {
				t.Errorf("%s: a line without a reason", l.Where)
			}
		}
		if got != w.status {
			t.Errorf("%s: expected %q, baseline says %q", w.name, w.status, got)
		}
	}
	if l := j.Skip("vulkan/pixel/WaveActiveSum/uint/all/fb15x15/size=16"); l == nil || !l.HidesCrash() {
		t.Errorf("pixel kernels at 16 lanes are a skip hiding a crash: %+v", l)
	}
	if j.Skip("vulkan/pixel/WaveActiveSum/uint/all/fb15x15/size=8") != nil {
		t.Error("pixel kernels at 8 lanes run")
	}
	h200 := For(sets, "NVIDIA H200 | NVIDIA | 580.159.04")
	if len(h200.Sets) != 1 || h200.Sets[0].Name != "builtin:glslang-12" {
		t.Errorf("the H200 gets only glslang's baseline: %v", h200.Sets)
	}
}

func TestParseErrors(t *testing.T) {
	for _, bad := range []map[string]string{
		{FailsFile: "vulkan/compute/A/uint/all/whole/size=4"},        // no status
		{FailsFile: "vulkan/compute/A/uint/all/whole/size=4,Broken"}, // unknown status
		{FailsFile: "vulkan/compute/A/uint/all/whole/size=4,Pass"},   // a pass is not expected
		{FailsFile: "vulkan/(,Fail"},                                 // bad pattern
		{FailsFile: "a/b,Fail\na/b,Crash"},                           // twice
		{DriverFile: "("},                                            // bad driver pattern
		{DriverFile: "a\nb"},                                         // two patterns
		{SkipsFile: "vulkan/[compute"},                               // bad pattern
		{FlakesFile: "a(b"},                                          // bad pattern
	} {
		if _, err := Parse("t", bad); err == nil {
			t.Errorf("no error for %q", bad)
		}
	}
}

func TestExactLinesAndPatternLines(t *testing.T) {
	s, err := Parse("t", map[string]string{
		FailsFile: "# wrong sums\nvulkan/compute/WaveActiveSum/uint/odd/partial/size=8,Fail\n" +
			"# crashes\nvulkan/compute/WaveReadLaneFirst/.*,Crash\n",
		FlakesFile: "# sometimes\nvulkan/compute/WaveActiveMax/.*\n",
	})
	if err != nil {
		t.Fatal(err)
	}
	j := For([]*Set{s}, "any")
	if l := s.Fails[0]; !l.Exact || l.Reason != "wrong sums" || l.Where != "t/fails.csv:2" {
		t.Errorf("exact line: %+v", l)
	}
	if s.Fails[1].Exact {
		t.Error("a pattern is not an exact line")
	}
	cases := []struct {
		r    results.Record
		want results.Verdict
		run  string
	}{
		// An exact line: the same outcome is known, a pass is an improvement.
		{rec("vulkan", "compute", "WaveActiveSum/uint/odd/partial", "ours", 8, results.Fail), results.VerdictKnown, "ExpectedFail"},
		{rec("vulkan", "compute", "WaveActiveSum/uint/odd/partial", "ours", 8, results.Pass), results.VerdictImproved, "UnexpectedImprovement(Pass)"},
		{rec("vulkan", "compute", "WaveActiveSum/uint/odd/partial", "ours", 8, results.Crash), results.VerdictUnexpected, "Crash"},
		// Not named: a failure is new.
		{rec("vulkan", "compute", "WaveActiveSum/uint/odd/partial", "ours", 4, results.Fail), results.VerdictUnexpected, "Fail"},
		// A pattern Crash line: a pass is a pass, a wrong result is not a fix.
		{rec("vulkan", "compute", "WaveReadLaneFirst/double/all/whole", "ours", 4, results.Pass), results.VerdictPass, "Pass"},
		{rec("vulkan", "compute", "WaveReadLaneFirst/double/all/whole", "ours", 4, results.Fail), results.VerdictImproved, "UnexpectedImprovement(Fail)"},
		{rec("vulkan", "compute", "WaveReadLaneFirst/double/all/whole", "ours", 4, results.Crash), results.VerdictKnown, "ExpectedFail"},
		{rec("vulkan", "compute", "WaveReadLaneFirst/double/all/whole", "ours", 4, results.Timeout), results.VerdictUnexpected, "Timeout"},
		// flakes.txt: a failure is a known flake.
		{rec("vulkan", "compute", "WaveActiveMax/int/all/whole", "ours", 4, results.Fail), results.VerdictKnown, "KnownFlake"},
		{rec("vulkan", "compute", "WaveActiveMax/int/all/whole", "ours", 4, results.Pass), results.VerdictPass, "Pass"},
		// A new failure that passed when re-run.
		{rec("vulkan", "compute", "WaveActiveMin/int/all/whole", "ours", 4, results.Flake), results.VerdictFlake, "Flake"},
	}
	for _, c := range cases {
		r := c.r
		j.Apply(&r)
		if got := r.Verdict(); got != c.want {
			t.Errorf("%s %s: verdict %s, want %s", r.Name(), r.Status, got, c.want)
		}
		if got := r.RunStatus(); got != c.run {
			t.Errorf("%s %s: status %s, want %s", r.Name(), r.Status, got, c.run)
		}
	}
}

func TestStalePatternLines(t *testing.T) {
	s, err := Parse("t", map[string]string{FailsFile: "vulkan/compute/A/.*,Fail\nvulkan/compute/B/.*,Fail\nvulkan/compute/C/.*,Fail\nvulkan/compute/D/.*,Crash\n"})
	if err != nil {
		t.Fatal(err)
	}
	j := For([]*Set{s}, "x")
	recs := []results.Record{
		rec("vulkan", "compute", "A/uint/all/whole", "ours", 4, results.Fail), rec("vulkan", "compute", "A/uint/odd/whole", "ours", 4, results.Pass),
		rec("vulkan", "compute", "B/uint/all/whole", "ours", 4, results.Pass),
		rec("vulkan", "compute", "C/uint/all/whole", "ours", 4, results.Skip),
		rec("vulkan", "compute", "D/uint/all/whole", "ours", 4, results.Fail),
	}
	for i := range recs {
		j.Apply(&recs[i])
	}
	var where []string
	for _, l := range j.Stale(recs) {
		where = append(where, l.Where)
	}
	if strings.Join(where, " ") != "t/fails.csv:2 t/fails.csv:4" {
		t.Errorf("stale: %v (A still fails somewhere, C never ran, D no longer crashes)", where)
	}
}

func TestFailuresCSVIsTheNextFailsCSV(t *testing.T) {
	s, err := Parse("t", map[string]string{FailsFile: "# the helper bug\nvulkan/pixel/QuadAll/.*,Fail\n"})
	if err != nil {
		t.Fatal(err)
	}
	j := For([]*Set{s}, "x")
	recs := []results.Record{
		rec("vulkan", "pixel", "QuadAll/bool/all/fb16x16", "ours", 4, results.Fail),
		rec("vulkan", "pixel", "QuadAll/bool/all/fb15x15", "ours", 4, results.Pass),
		rec("vulkan", "compute", "WaveActiveSum/uint/all/whole", "ours", 8, results.Crash),
		rec("vulkan", "compute", "WaveActiveSum/uint/odd/whole", "ours", 8, results.Flake),
		rec("vulkan", "compute", "WaveActiveSum/uint/even/whole", "ours", 8, results.Error),
	}
	for i := range recs {
		j.Apply(&recs[i])
	}
	text := FailuresCSV(recs)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, FailsFile), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	next, err := LoadDir(dir)
	if err != nil {
		t.Fatalf("failures.csv does not parse as fails.csv: %v\n%s", err, text)
	}
	nj := For([]*Set{next}, "x")
	for _, r := range recs {
		r.Expected, r.ExpectedExact, r.Known = "", false, ""
		nj.Apply(&r)
		if r.Verdict().Counts() {
			t.Errorf("%s (%s) still counts against the new baseline:\n%s", r.Name(), r.Status, text)
		}
	}
	if len(next.Fails) != 3 || !strings.Contains(text, "# the helper bug\n") || !strings.Contains(text, "# New: no baseline knew these") {
		t.Errorf("failures.csv:\n%s", text)
	}
}

func TestRequiredLiteral(t *testing.T) {
	for p, want := range map[string]string{
		"vulkan/pixel/QuadAll/.*": "vulkan/pixel/QuadAll/",
		"vulkan/[a-z]+/WaveReadLaneFirst/double[234]?/.*/size=4(/compiler=glslang)?": "/WaveReadLaneFirst/double",
		"a|b":      "",
		"abc?de":   "ab",
		"ab{2}cde": "cde",
		`x\.yz`:    "yz",
	} {
		if got := requiredLiteral(p); got != want {
			t.Errorf("requiredLiteral(%q) = %q, want %q", p, got, want)
		}
	}
}

func TestLoadDirAndIsDir(t *testing.T) {
	dir := t.TempDir()
	if IsDir(dir) {
		t.Error("an empty directory is not a baseline")
	}
	if _, err := LoadDir(dir); err == nil {
		t.Error("an empty directory loads as a baseline")
	}
	os.WriteFile(filepath.Join(dir, SkipsFile), []byte("# none\n"), 0o644)
	if !IsDir(dir) {
		t.Error("a directory with skips.txt is a baseline")
	}
	s, err := LoadDir(dir)
	if err != nil || s.Driver != nil || !s.Applies("anything") {
		t.Errorf("%v %+v", err, s)
	}
	if n := s.Lines(); n[SkipsFile] != 0 || len(n) != 1 {
		t.Errorf("lines: %v", n)
	}
}
