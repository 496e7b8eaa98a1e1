package main

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"waverig/harness/expect"
	"waverig/harness/results"
)

// gzRun writes a finished run directory as a saved run leaves it: only
// results.jsonl.gz (no plain results.jsonl) and summary.json, of the given
// records' lines.
func gzRun(t *testing.T, dir string, lines ...string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, results.CompressedResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	z := gzip.NewWriter(f)
	z.Write([]byte(strings.Join(lines, "")))
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	os.WriteFile(filepath.Join(dir, results.SummaryFile), []byte(`{"device":"dev","devices":[{"index":0,"device":"dev","sizes":[{"waveSize":4,"stats":{}}]}]}`), 0o644)
	return dir
}

// csvText is a run directory's results.csv.gz, uncompressed.
func csvText(t *testing.T, dir string) string {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, results.CSVFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(z)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func gzLine(c, status, known string) string {
	l := `{"case":"` + c + `","op":"WaveActiveSum","waveSize":4,"api":"vulkan","stage":"compute","compiler":"ours","device":"dev","driver":"d","kernel":"k","status":"` + status + `"`
	if known != "" {
		l += `,"known":"` + known + `","expected":"Fail"`
	}
	return l + "}\n"
}

// TestCompressedRunDirEverywhere: a run directory holding results.jsonl.gz
// and no results.jsonl (what every saved run leaves) is read by report, diff
// (as a directory and as the DIR/results.jsonl older commands name), merge,
// baseline and run -baseline.
func TestCompressedRunDirEverywhere(t *testing.T) {
	root := t.TempDir()
	pass, fail := "WaveActiveSum/uint/all/whole", "WaveActiveSum/uint/odd/whole"
	old := gzRun(t, filepath.Join(root, "old"), gzLine(pass, "pass", ""), gzLine(fail, "pass", ""))
	cur := gzRun(t, filepath.Join(root, "new"), gzLine(pass, "pass", ""), gzLine(fail, "fail", ""))
	shard := gzRun(t, filepath.Join(root, "shard"), gzLine("WaveActiveSum/uint/even/whole", "fail", "fails.csv:3: known"))

	code, stdout, stderr := runCLI("report", cur)
	if code != exitOK || !strings.Contains(stdout, "2 records") {
		t.Fatalf("report: exit %d\n%s%s", code, stdout, stderr)
	}
	if csv := csvText(t, cur); !strings.Contains(csv, "vulkan/compute/"+fail+"/size=4,Fail") {
		t.Errorf("report's results.csv lacks the failure:\n%s", csv)
	}
	for _, args := range [][]string{
		{old, cur},
		{filepath.Join(old, results.ResultsFile), filepath.Join(cur, results.ResultsFile)},
		{filepath.Join(old, results.CompressedResultsFile), cur},
	} {
		code, stdout, stderr := runCLI(append([]string{"diff"}, args...)...)
		if code != exitUnexpected || !strings.Contains(stdout, fail) {
			t.Errorf("diff %v: exit %d, want 1 naming the regression\n%s%s", args, code, stdout, stderr)
		}
	}
	if code, _, stderr := runCLI("diff", old, filepath.Join(root, "missing")); code != exitUsage || !strings.Contains(stderr, "new run") {
		t.Errorf("diff with a missing run: exit %d, want 2: %s", code, stderr)
	}

	merged := filepath.Join(root, "merged")
	code, stdout, stderr = runCLI("merge", "-out", merged, cur, shard)
	if code != exitUnexpected || !strings.Contains(stdout, results.CompressedResultsFile) {
		t.Fatalf("merge: exit %d, want 1\n%s%s", code, stdout, stderr)
	}
	recs, _, err := results.ReadRunDir(merged)
	if err != nil || len(recs) != 3 {
		t.Fatalf("merged run: %d records, %v", len(recs), err)
	}
	if _, err := os.Stat(filepath.Join(merged, results.ResultsFile)); err == nil {
		t.Error("merge left a plain results.jsonl beside results.jsonl.gz")
	}

	base := filepath.Join(root, "base")
	if code, stdout, stderr := runCLI("baseline", "-out", base, merged); code != exitOK {
		t.Fatalf("baseline: exit %d\n%s%s", code, stdout, stderr)
	}
	if fails := fileText(t, filepath.Join(base, expect.FailsFile)); !strings.Contains(fails, fail) {
		t.Errorf("fails.csv from a compressed run lacks %s:\n%s", fail, fails)
	}
	// run -baseline reads the previous run before anything runs: a missing
	// one is refused, naming it; a compressed one is read, and found to be of
	// another device ("dev") than the one this run would use.
	out := filepath.Join(root, "r")
	if code, _, stderr := runCLI("run", "-baseline", filepath.Join(root, "missing", results.ResultsFile), "-out", out); code != exitUsage || !strings.Contains(stderr, "-baseline") {
		t.Errorf("run -baseline of a missing run: exit %d: %s", code, stderr)
	}
	requireVulkan(t)
	for _, b := range []string{cur, filepath.Join(cur, results.ResultsFile)} {
		if code, _, stderr := runCLI("run", "-baseline", b, "-out", out); code != exitUsage || !strings.Contains(stderr, "the baseline ran on dev") {
			t.Errorf("run -baseline %s: exit %d, want 2 for another device: %s", b, code, stderr)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a run refused at its -baseline wrote its -out")
	}
}
