package results

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

func dirRecords(n int) []Record {
	var recs []Record
	for i := 0; i < n; i++ {
		recs = append(recs, Record{Case: fmt.Sprintf("WaveActiveSum/uint/c%d/whole", i), Op: "WaveActiveSum", WaveSize: 8, Compiler: Ours, Status: Pass, Reason: strings.Repeat("x", i%50)})
	}
	return recs
}

// TestSealCompressesTheResults: a saved run leaves results.jsonl.gz holding
// every record appended, and no plain results.jsonl; the next run into the
// directory removes it.
func TestSealCompressesTheResults(t *testing.T) {
	dir := t.TempDir()
	d, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := dirRecords(300)
	for _, r := range want {
		d.Append(r)
	}
	if err := d.Seal(); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, ResultsFile)); err == nil {
		t.Error("results.jsonl is still there after Seal")
	}
	path, err := FindResults(dir)
	if err != nil || filepath.Base(path) != CompressedResultsFile {
		t.Fatalf("FindResults: %q, %v", path, err)
	}
	got, truncated, err := ReadRunDir(dir)
	if err != nil || truncated || !reflect.DeepEqual(got, want) {
		t.Fatalf("read back %d records (truncated %v, %v), want the %d appended", len(got), truncated, err, len(want))
	}
	if err := d.Seal(); err == nil {
		t.Error("a second Seal succeeded")
	}
	// A new run clears the saved one's compressed results, and the plain
	// results.csv an older waverig wrote.
	os.WriteFile(filepath.Join(dir, "results.csv"), []byte("test,status\n"), 0o644)
	d2, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d2.Close()
	for _, name := range []string{CompressedResultsFile, "results.csv"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			t.Errorf("a new run left the previous run's %s", name)
		}
	}
}

// killedRunEnv names the directory a re-executed test binary appends records
// to before it kills itself (TestAKilledRunLeavesReadableResults).
const killedRunEnv = "WAVERIG_TEST_KILLED_RUN"

func TestMain(m *testing.M) {
	if dir := os.Getenv(killedRunEnv); dir != "" {
		n, _ := strconv.Atoi(os.Getenv(killedRunEnv + "_N"))
		d, err := OpenDir(dir)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		for _, r := range dirRecords(n) {
			if err := d.Append(r); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(3)
			}
		}
		// Killed mid-run: no Seal, no Close, no deferred cleanup.
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	}
	os.Exit(m.Run())
}

// TestAKilledRunLeavesReadableResults: a process killed (SIGKILL) in the
// middle of a run, after appending records, leaves a results file that
// FindResults finds and that holds every record appended, none cut.
func TestAKilledRunLeavesReadableResults(t *testing.T) {
	dir := t.TempDir()
	const n = 500
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), killedRunEnv+"="+dir, killedRunEnv+"_N="+strconv.Itoa(n))
	out, err := cmd.CombinedOutput()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("the child was not killed: %v\n%s", err, out)
	}
	got, truncated, err := ReadRunDir(dir)
	if err != nil || truncated || !reflect.DeepEqual(got, dirRecords(n)) {
		t.Fatalf("after the kill: %d records (truncated %v, %v), want %d", len(got), truncated, err, n)
	}
	// The lock died with the process: the next run may open the directory.
	d, err := OpenDir(dir)
	if err != nil {
		t.Fatalf("the killed run's directory stays locked: %v", err)
	}
	d.Close()
}

// TestFindResults: a run directory's results file is results.jsonl when it is
// there (a run writing, or killed), else results.jsonl.gz; ResolveResults
// also takes the file itself, and DIR/results.jsonl of a run saved since.
func TestFindResults(t *testing.T) {
	root := t.TempDir()
	mk := func(name string, files ...string) string {
		d := filepath.Join(root, name)
		os.MkdirAll(d, 0o755)
		for _, f := range files {
			os.WriteFile(filepath.Join(d, f), nil, 0o644)
		}
		return d
	}
	plain, gz := mk("plain", ResultsFile), mk("gz", CompressedResultsFile)
	both, none := mk("both", ResultsFile, CompressedResultsFile), mk("none", SummaryFile)
	for _, c := range []struct {
		dir, want string
	}{
		{plain, filepath.Join(plain, ResultsFile)},
		{gz, filepath.Join(gz, CompressedResultsFile)},
		{both, filepath.Join(both, ResultsFile)},
	} {
		if got, err := FindResults(c.dir); err != nil || got != c.want {
			t.Errorf("FindResults(%s) = %q, %v; want %q", c.dir, got, err, c.want)
		}
		if got, err := ResolveResults(c.dir); err != nil || got != c.want {
			t.Errorf("ResolveResults(%s) = %q, %v; want %q", c.dir, got, err, c.want)
		}
	}
	if _, err := FindResults(none); err == nil || !strings.Contains(err.Error(), "no results.jsonl or results.jsonl.gz") {
		t.Errorf("a directory without results: %v", err)
	}
	if _, err := FindResults(filepath.Join(plain, ResultsFile)); err == nil {
		t.Error("FindResults took a file for a run directory")
	}
	for in, want := range map[string]string{
		filepath.Join(gz, ResultsFile):              filepath.Join(gz, CompressedResultsFile),
		filepath.Join(plain, ResultsFile):           filepath.Join(plain, ResultsFile),
		filepath.Join(gz, CompressedResultsFile):    filepath.Join(gz, CompressedResultsFile),
		filepath.Join(both, CompressedResultsFile):  filepath.Join(both, CompressedResultsFile),
		filepath.Join(none, ResultsFile):            "",
		filepath.Join(none, "old.jsonl"):            "",
		filepath.Join(root, "missing", ResultsFile): "",
	} {
		got, err := ResolveResults(in)
		if got != want || (want == "") != (err != nil) {
			t.Errorf("ResolveResults(%s) = %q, %v; want %q", in, got, err, want)
		}
	}
}
