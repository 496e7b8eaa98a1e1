package report

import (
	"bytes"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"waverig/harness"
	"waverig/harness/kernels"
)

func recs() []harness.Record {
	return []harness.Record{
		{Case: "WaveActiveSum/uint/all/whole", Op: "WaveActiveSum", WaveSize: 4, Compiler: "ours", Status: harness.Pass},
		{Case: "WavePrefixSum/uint/even/whole", Op: "WavePrefixSum", WaveSize: 4, Compiler: "ours", Status: harness.Fail,
			Failures: []kernels.LaneFailure{{WaveKey: 0, Lane: 2, ActiveMask: "0x5", Input: "3", Expected: "1", Actual: "4"}}},
		{Case: "WavePrefixSum/uint/even/whole", Op: "WavePrefixSum", WaveSize: 4, Compiler: "glslang", Status: harness.Fail, Blame: "compiler:glslang"},
		{Case: "WaveActiveSum/half/all/whole", Op: "WaveActiveSum", WaveSize: 4, Compiler: "ours", Status: harness.Skip, Reason: "device lacks shaderFloat16"},
	}
}

func TestCompareFindsRegressionsAndFixes(t *testing.T) {
	before := recs()
	before[1].Status, before[1].Failures = harness.Pass, nil
	after := recs()
	after[0].Status = harness.Fail
	after = append(after, harness.Record{Case: "QuadReadAcrossX/int/all/whole", Compiler: "ours", WaveSize: 4, Status: harness.Pass})
	before = append(before, harness.Record{Case: "Gone/uint/all/whole", Compiler: "ours", WaveSize: 4, Status: harness.Pass})
	d := Compare(before, after)
	if len(d.Regressions) != 2 || len(d.Fixes) != 0 || len(d.New) != 1 || len(d.Missing) != 1 || d.Unchanged != 2 {
		t.Fatalf("unexpected diff: %+v", d)
	}
	var b bytes.Buffer
	d.WriteText(&b, "old", "new")
	if !strings.Contains(b.String(), "2 regressions") || !strings.Contains(b.String(), "expected 1, actual 4") {
		t.Fatalf("text:\n%s", b.String())
	}
}

func TestJUnitCountsAndBlame(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJUnit(&b, recs()); err != nil {
		t.Fatal(err)
	}
	var parsed junitSuites
	if err := xml.Unmarshal(b.Bytes(), &parsed); err != nil {
		t.Fatal(err)
	}
	tests, fails, skips := 0, 0, 0
	for _, s := range parsed.Suites {
		tests += s.Tests
		fails += s.Failures
		skips += s.Skipped
	}
	// The glslang failure is blamed on glslang: reported as skipped-with-reason, not a driver failure.
	if tests != 4 || fails != 1 || skips != 2 {
		t.Fatalf("tests=%d failures=%d skipped=%d\n%s", tests, fails, skips, b.String())
	}
}

func TestCSVAndHTML(t *testing.T) {
	var c, h bytes.Buffer
	if err := WriteCSV(&c, recs()); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(c.String(), "\n"); n != 5 {
		t.Fatalf("csv has %d lines", n)
	}
	if err := WriteHTML(&h, "lavapipe", recs()); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"1 failed", "1 blamed", "expected 1 actual 4", "device lacks shaderFloat16"} {
		if !strings.Contains(h.String(), want) {
			t.Errorf("html lacks %q", want)
		}
	}
}

func TestReadJSONLKeepsRecordsBeforeATruncatedLine(t *testing.T) {
	p := filepath.Join(t.TempDir(), "r.jsonl")
	os.WriteFile(p, []byte(`{"case":"a","status":"pass"}`+"\n"+`{"case":"b","status":"fail"}`+"\n"+`{"case":"c","sta`), 0o644)
	rs, err := ReadJSONL(p)
	if err != nil || len(rs) != 2 {
		t.Fatalf("got %d records, err %v", len(rs), err)
	}
	os.WriteFile(p, []byte(`{"case":"a"`+"\n"+`{"case":"b"}`+"\n"), 0o644)
	if _, err := ReadJSONL(p); err == nil {
		t.Fatal("a corrupt line in the middle must be an error")
	}
}
