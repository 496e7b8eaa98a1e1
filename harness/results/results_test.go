package results

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestVerdictIsTheOneRule(t *testing.T) {
	for _, c := range []struct {
		r    Record
		want Verdict
	}{
		{Record{Status: Pass}, VerdictPass},
		{Record{Status: Skip, Known: "x.txt:3: crash"}, VerdictSkip},
		{Record{Status: Fail}, VerdictUnexpected},
		{Record{Status: Error}, VerdictUnexpected},
		{Record{Status: Fail, Known: "x.txt:3: wrong"}, VerdictKnown},
		{Record{Status: Error, Known: "x.txt:3: crash"}, VerdictKnown},
		// Blame says whom a failure implicates; a compiler's unknown wrong result
		// still fails the run.
		{Record{Status: Fail, Blame: "compiler:glslang"}, VerdictUnexpected},
		{Record{Status: Fail, Blame: "compiler:glslang", Known: "glslang.txt:5"}, VerdictKnown},
	} {
		if got := c.r.Verdict(); got != c.want {
			t.Errorf("%+v: verdict %s, want %s", c.r, got, c.want)
		}
		if c.r.Verdict().Counts() != (c.want == VerdictUnexpected) {
			t.Errorf("%+v: Counts wrong", c.r)
		}
	}
}

func TestStatsCountByStatusAndVerdict(t *testing.T) {
	var s Stats
	for _, r := range []Record{
		{Case: LayoutCase, Status: Pass},
		{Case: "a", Status: Pass},
		{Case: "b", Status: Fail},
		{Case: "c", Status: Fail, Known: "k"},
		{Case: "d", Status: Error},
		{Case: "e", Status: Skip},
	} {
		s.Add(r)
	}
	want := Stats{Cases: 5, Passed: 1, Failed: 2, Errors: 1, Skipped: 1, Known: 1, Unexpected: 2}
	if s != want {
		t.Fatalf("got %+v, want %+v", s, want)
	}
	var bad Stats
	bad.Add(Record{Case: LayoutCase, Status: Error})
	if bad.Unexpected != 1 || bad.Cases != 0 {
		t.Fatalf("a failed layout check must count against the run without being a case: %+v", bad)
	}
	var total Stats
	total.Merge(s)
	total.Merge(s)
	if total.Cases != 10 || total.Unexpected != 4 {
		t.Fatalf("merge: %+v", total)
	}
}

func TestOneRenderingOfALane(t *testing.T) {
	f := LaneFailure{WaveKey: 32, Lane: 3, ActiveMask: "0xf", Input: "7", Expected: "1", Actual: "2"}
	if got := f.String(); got != "wave 0x20 lane 3 active 0xf input 7 expected 1 actual 2" {
		t.Fatalf("got %q", got)
	}
	r := Record{Case: "c", Compiler: "ours", WaveSize: 8, Status: Fail, Failures: []LaneFailure{f, f}}
	if h := r.Headline(); h != f.String()+" (+1 more lanes)" {
		t.Fatalf("headline %q", h)
	}
	var b bytes.Buffer
	WriteLaneTable(&b, "", []LaneFailure{f})
	if !strings.Contains(b.String(), "0x20 ") || !strings.Contains(r.Describe(), "0x20 ") {
		t.Fatalf("table:\n%s\n%s", b.String(), r.Describe())
	}
}

func TestOpenDirLocksAndStartsClean(t *testing.T) {
	dir := t.TempDir()
	// A previous run's files, a stale repro bundle among them.
	os.MkdirAll(filepath.Join(dir, ReproDir, "old.kernel"), 0o755)
	os.WriteFile(filepath.Join(dir, SummaryFile), []byte("{}"), 0o644)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644)
	d, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, gone := range []string{ReproDir, SummaryFile} {
		if _, err := os.Stat(filepath.Join(dir, gone)); err == nil {
			t.Errorf("%s of the previous run survived", gone)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "notes.txt")); err != nil {
		t.Error("a file the run does not own was removed")
	}
	if _, err := OpenDir(dir); !errors.Is(err, ErrBusy) {
		t.Fatalf("second run into a held directory: %v, want ErrBusy", err)
	}
	if err := d.Append(Record{Case: "a", Status: Pass}); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	d2, err := OpenDir(dir)
	if err != nil {
		t.Fatalf("after Close the directory is free: %v", err)
	}
	d2.Close()
}

func TestWriteFailuresAreKeptAndReported(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full on this system")
	}
	d, err := OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	d.out.Close()
	d.out = full // every write now fails with ENOSPC, as on a full disk
	if err := d.Append(Record{Case: "a", Status: Pass}); err == nil {
		t.Fatal("a failed write was not reported")
	}
	if d.Append(Record{Case: "b", Status: Pass}) == nil || d.Err() == nil {
		t.Fatal("the first failure must stick")
	}
	if err := d.Close(); err == nil || !strings.Contains(err.Error(), "no space") {
		t.Fatalf("Close: %v", err)
	}
}

func TestWriteFileAtomicLeavesNoPartialFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, HTMLFile)
	os.WriteFile(p, []byte("old"), 0o644)
	err := WriteFileAtomic(p, func(w io.Writer) error {
		w.Write([]byte("half a page"))
		return errors.New("template failed")
	})
	if err == nil {
		t.Fatal("error lost")
	}
	if data, _ := os.ReadFile(p); string(data) != "old" {
		t.Fatalf("the old file was replaced by %q", data)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("temporary files left: %v", ents)
	}
	if err := WriteFileAtomic(p, func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(p); string(data) != "new" {
		t.Fatalf("got %q", data)
	}
}

func TestParseJSONL(t *testing.T) {
	for _, c := range []struct {
		name, in  string
		n         int
		truncated bool
		err       string
	}{
		{"complete", `{"case":"a","status":"pass"}` + "\n" + `{"case":"b","status":"fail"}` + "\n", 2, false, ""},
		{"cut last line", `{"case":"a","status":"pass"}` + "\n" + `{"case":"c","sta`, 1, true, ""},
		{"empty", "", 0, false, "no records"},
		{"only a cut line", `{"case":"c","sta`, 0, true, "no records"},
		{"corrupt middle", `{"case":"a"` + "\n" + `{"case":"b","status":"pass"}` + "\n", 0, false, ":1: not a results record"},
		{"not a record", `{"foo":1}` + "\n", 0, false, "unknown field"},
		{"bad status", `{"case":"a","status":"great"}` + "\n", 0, false, `status "great"`},
		{"NUL bytes of an interleaved write", "\x00\x00" + "\n" + `{"case":"a","status":"pass"}` + "\n", 0, false, ":1:"},
		{"parity record", `{"case":"a","api":"vulkan+webgpu","status":"differs","parity":[{"flat":3,"waveKey":0,"lane":3,"input":"1","values":{"vulkan":"1","webgpu":"2"}}]}` + "\n", 1, false, ""},
	} {
		recs, truncated, err := ParseJSONL("r.jsonl", strings.NewReader(c.in))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: err %v, want %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil || len(recs) != c.n || truncated != c.truncated {
			t.Errorf("%s: %d records, truncated %v, err %v", c.name, len(recs), truncated, err)
		}
	}
}

// TestReadJSONLGzip: a compressed results file (a baseline kept in the
// repository) reads like the plain one.
func TestReadJSONLGzip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.jsonl.gz")
	var b bytes.Buffer
	z := gzip.NewWriter(&b)
	z.Write([]byte(`{"case":"a","status":"pass"}` + "\n" + `{"case":"b","status":"differs"}` + "\n"))
	z.Close()
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	recs, truncated, err := ReadJSONL(path)
	if err != nil || truncated || len(recs) != 2 || recs[1].Verdict() != VerdictDiffers {
		t.Fatalf("%d records, truncated %v, %v", len(recs), truncated, err)
	}
	if err := os.WriteFile(path, []byte("not gzip"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadJSONL(path); err == nil {
		t.Fatal("a .gz that is not gzip was read")
	}
}

func TestReadJSONLRefusesNonRegularFiles(t *testing.T) {
	if _, _, err := ReadJSONL("/dev/zero"); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("/dev/zero: %v", err)
	}
}

// FuzzParseJSONL: any bytes give records or an error, never a panic, and every
// record returned is one Verdict can judge.
func FuzzParseJSONL(f *testing.F) {
	f.Add([]byte(`{"case":"a","status":"pass"}` + "\n"))
	f.Add([]byte(`{"case":"WavePrefixSum/uint/even/partial","op":"WavePrefixSum","status":"fail","failures":[{"waveKey":4,"lane":1,"activeMask":"0x5","input":"1","expected":"0","actual":"1"}]}` + "\n{"))
	f.Add([]byte("\x00\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, _, err := ParseJSONL("fuzz", bytes.NewReader(data))
		if err == nil && len(recs) == 0 {
			t.Fatal("no error and no records")
		}
		for _, r := range recs {
			if r.Case == "" {
				t.Fatal("record without a case")
			}
			_ = r.Verdict()
			_ = r.Describe()
		}
	})
}
