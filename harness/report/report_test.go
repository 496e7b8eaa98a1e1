package report

import (
	"bytes"
	"compress/gzip"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"testing"

	"waverig/harness/results"
)

func recs() []results.Record {
	return []results.Record{
		{Case: "WaveActiveSum/uint/all/whole", Op: "WaveActiveSum", WaveSize: 4, Compiler: "ours", Device: "dev", Status: results.Pass},
		{Case: "WavePrefixSum/uint/even/whole", Op: "WavePrefixSum", WaveSize: 4, Compiler: "ours", Device: "dev", Status: results.Fail,
			Failures: []results.LaneFailure{{WaveKey: 16, Lane: 2, ActiveMask: "0x5", Input: "3", Expected: "1", Actual: "4"}}},
		{Case: "WavePrefixSum/uint/even/whole", Op: "WavePrefixSum", WaveSize: 4, Compiler: "glslang", Device: "dev", Status: results.Fail,
			Blame: "compiler:glslang", Known: "glslang.txt:9: inclusive scan"},
		{Case: "WaveActiveSum/half/all/whole", Op: "WaveActiveSum", WaveSize: 4, Compiler: "ours", Device: "dev", Status: results.Skip, Reason: "device lacks shaderFloat16"},
		{Case: "WaveReadLaneFirst/double2/all/whole", Op: "WaveReadLaneFirst", WaveSize: 4, Compiler: "ours", Device: "dev", Status: results.Error,
			Reason: "the driver crashed the process"},
	}
}

func TestCompareFindsRegressionsAndFixesByVerdict(t *testing.T) {
	before := recs()
	before[1].Status, before[1].Failures = results.Pass, nil
	after := recs()
	after[0].Status = results.Fail
	after[2].Known = "" // a known failure that became unknown is a regression too
	after = append(after, results.Record{Case: "QuadReadAcrossX/int/all/whole", Compiler: "ours", WaveSize: 4, Status: results.Pass})
	before = append(before, results.Record{Case: "Gone/uint/all/whole", Compiler: "ours", WaveSize: 4, Status: results.Pass})
	d := Compare(before, after)
	if len(d.Regressions) != 3 || len(d.Fixes) != 0 || len(d.New) != 1 || len(d.Missing) != 1 || d.Unchanged != 2 {
		t.Fatalf("unexpected diff: %+v", d)
	}
	var b bytes.Buffer
	if err := d.WriteText(&b, "old", "new"); err != nil {
		t.Fatal(err)
	}
	// The one rendering of a lane: wave key in hex.
	if !strings.Contains(b.String(), "3 regressions") || !strings.Contains(b.String(), "wave 0x10 lane 2 active 0x5 input 3 expected 1 actual 4") {
		t.Fatalf("text:\n%s", b.String())
	}
	fixed := Compare(after, before)
	if len(fixed.Fixes) != 2 {
		t.Fatalf("fixes: %+v", fixed.Fixes)
	}
}

// TestAFailureDoesNotHideAChange: a case that fails as known in both runs
// but on other lanes or values is a changed failure, not unchanged.
func TestAFailureDoesNotHideAChange(t *testing.T) {
	was := results.Record{Case: "WavePrefixSum/uint/all/whole", Compiler: "glslang", WaveSize: 8, Status: results.Fail, Known: "glslang-12/fails.csv:9: inclusive",
		Failures: []results.LaneFailure{{WaveKey: 0, Lane: 1, ActiveMask: "0xff", Input: "3", Expected: "0", Actual: "3"}}}
	same := was
	same.Failures = append([]results.LaneFailure(nil), was.Failures...)
	other := was
	other.Failures = []results.LaneFailure{{WaveKey: 0, Lane: 1, ActiveMask: "0xff", Input: "3", Expected: "0", Actual: "7"}}
	if d := Compare([]results.Record{was}, []results.Record{same}); d.Unchanged != 1 || len(d.FailureChanged) != 0 {
		t.Errorf("the same failure: %+v", d)
	}
	d := Compare([]results.Record{was}, []results.Record{other})
	if len(d.FailureChanged) != 1 || d.Unchanged != 0 || len(d.Regressions) != 0 {
		t.Fatalf("a changed failure: %+v", d)
	}
	var b bytes.Buffer
	d.WriteText(&b, "old", "new")
	if !strings.Contains(b.String(), "1 failures changed") || !strings.Contains(b.String(), "now: wave 0x0 lane 1 active 0xff input 3 expected 0 actual 7") {
		t.Errorf("text:\n%s", b.String())
	}
}

func TestJUnitFollowsTheVerdict(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJUnit(&b, recs()); err != nil {
		t.Fatal(err)
	}
	var parsed junitSuites
	if err := xml.Unmarshal(b.Bytes(), &parsed); err != nil {
		t.Fatal(err)
	}
	tests, fails, errs, skips := 0, 0, 0, 0
	for _, s := range parsed.Suites {
		tests += s.Tests
		fails += s.Failures
		errs += s.Errors
		skips += s.Skipped
	}
	// The known glslang failure is skipped with its entry; the crash is an error
	// in the same device's suite, not a separate one.
	if tests != 5 || fails != 1 || errs != 1 || skips != 2 || len(parsed.Suites) != 2 {
		t.Fatalf("suites=%d tests=%d failures=%d errors=%d skipped=%d\n%s", len(parsed.Suites), tests, fails, errs, skips, b.String())
	}
	if !strings.Contains(b.String(), "known problem: glslang.txt:9") {
		t.Errorf("known entry not named:\n%s", b.String())
	}
}

// manyRecords is a suite's worth of every kind of record: passes and skips
// (two reasons) of two operations, vacuous cases, known failures of two
// baseline lines, a new failure, an error, an improvement, a flake, a parity
// difference and the layout check.
func manyRecords() []results.Record {
	var out []results.Record
	add := func(n int, r results.Record) {
		for i := 0; i < n; i++ {
			r.Case = fmt.Sprintf("%s/uint/c%d/whole", r.Op, len(out))
			r.WaveSize, r.API, r.Stage, r.Compiler, r.Device = 8, "vulkan", "compute", "ours", "dev"
			out = append(out, r)
		}
	}
	add(1, results.Record{Op: "", Status: results.Pass})
	out[0].Case = results.LayoutCase
	add(40, results.Record{Op: "WaveActiveSum", Status: results.Pass})
	add(25, results.Record{Op: "WavePrefixSum", Status: results.Pass})
	add(7, results.Record{Op: "WaveActiveSum", Status: results.Skip, Reason: "device lacks shaderFloat16"})
	add(3, results.Record{Op: "WaveActiveSum", Status: results.Skip, Reason: "WGSL cannot express this kernel"})
	add(2, results.Record{Op: "WaveActiveSum", Status: results.Vacuous})
	add(6, results.Record{Op: "WavePrefixSum", Status: results.Fail, Expected: results.OutcomeFail, Known: "glslang-12/fails.csv:8: inclusive scan",
		Failures: []results.LaneFailure{{WaveKey: 0, Lane: 1, ActiveMask: "0xff", Input: "3", Expected: "0", Actual: "3"}}})
	add(2, results.Record{Op: "WavePrefixSum", Status: results.Crash, Expected: results.OutcomeCrash, Known: "lavapipe/fails.csv:3: LLVM aborts"})
	add(1, results.Record{Op: "WavePrefixSum", Status: results.Fail, Failures: []results.LaneFailure{{WaveKey: 8, Lane: 2, ActiveMask: "0xf", Input: "1", Expected: "1", Actual: "2"}}})
	add(1, results.Record{Op: "WaveActiveSum", Status: results.Error, Reason: "spirv-val rejects the module"})
	add(1, results.Record{Op: "WaveActiveSum", Status: results.Fail, Expected: results.OutcomeCrash, Known: "lavapipe/fails.csv:4: crash"})
	add(1, results.Record{Op: "WaveActiveSum", Status: results.Flake, Reason: "failed, then passed on re-run 1 of 2"})
	add(1, results.Record{Op: "WaveActiveSum", Status: results.Differs, Parity: []results.ParityLane{{Flat: 3, Values: map[string]string{"vulkan": "1", "webgpu": "2"}}}})
	return out
}

// TestJUnitAggregatesWhatNeedsNoOne: every record a CI system must show —
// new failures, errors, improvements, flakes, parity differences — is a
// testcase of its own with its full account; passes, skips (per reason),
// vacuous cases and known problems (per baseline line, listing their cases)
// are one testcase per operation whose name says how many cases it stands
// for; the suite's attributes count records, not testcases.
func TestJUnitAggregatesWhatNeedsNoOne(t *testing.T) {
	in := manyRecords()
	var b bytes.Buffer
	if err := WriteJUnit(&b, in); err != nil {
		t.Fatal(err)
	}
	var parsed junitSuites
	if err := xml.Unmarshal(b.Bytes(), &parsed); err != nil {
		t.Fatal(err)
	}
	if len(parsed.Suites) != 1 {
		t.Fatalf("%d suites, want 1", len(parsed.Suites))
	}
	s := parsed.Suites[0]
	var want junitSuite
	own := map[string]results.Record{} // testcase name -> the record it must be
	aggregated := map[string]int{}     // "op|kind" -> cases
	for _, r := range in {
		want.Tests++
		op := r.Op
		if op == "" {
			op = r.Case
		}
		switch v := r.Verdict(); v {
		case results.VerdictUnexpected, results.VerdictImproved:
			if r.Status == results.Fail || v == results.VerdictImproved {
				want.Failures++
			} else {
				want.Errors++
			}
			own[r.Case] = r
		case results.VerdictFlake:
			own[r.Case] = r
		case results.VerdictDiffers:
			own[r.Case+" (parity)"] = r
		case results.VerdictKnown:
			want.Skipped++
			aggregated[op+"|known problem ("+knownWhere(r.Known)+")"]++
		case results.VerdictSkip:
			want.Skipped++
			aggregated[op+"|skipped ("+r.Reason+")"]++
		case results.VerdictVacuous:
			want.Skipped++
			aggregated[op+"|vacuous"]++
		default:
			aggregated[op+"|passed"]++
		}
	}
	if s.Tests != want.Tests || s.Failures != want.Failures || s.Errors != want.Errors || s.Skipped != want.Skipped {
		t.Errorf("suite counts tests=%d failures=%d errors=%d skipped=%d, want %d %d %d %d", s.Tests, s.Failures, s.Errors, s.Skipped, want.Tests, want.Failures, want.Errors, want.Skipped)
	}
	if len(s.Cases) != len(own)+len(aggregated) {
		t.Errorf("%d testcases, want %d of their own and %d aggregated", len(s.Cases), len(own), len(aggregated))
	}
	for _, c := range s.Cases {
		if r, ok := own[c.Name]; ok {
			body := ""
			for _, m := range []*junitMessage{c.Failure, c.Error, c.Skipped} {
				if m != nil {
					body += m.Body
				}
			}
			if !strings.Contains(body+c.SystemOut, r.Describe()) {
				t.Errorf("%s: the testcase lacks the record's account:\n%+v", c.Name, c)
			}
			delete(own, c.Name)
			continue
		}
		op := strings.TrimPrefix(c.Classname, "waverig.")
		found := false
		for k, n := range aggregated {
			kop, kind, _ := strings.Cut(k, "|")
			if kop == op && c.Name == fmt.Sprintf("%s: %d %s %s", op, n, plural(n, "case", "cases"), kind) {
				found = true
				delete(aggregated, k)
				if strings.HasPrefix(kind, "known problem") {
					for _, r := range in {
						if r.Op == op && "known problem ("+knownWhere(r.Known)+")" == kind && !strings.Contains(c.Skipped.Body, r.Case+": "+r.RunStatus()+"\n") {
							t.Errorf("%s does not list %s", c.Name, r.Case)
						}
					}
				}
				if (kind == "passed") != (c.Skipped == nil) {
					t.Errorf("%s: skipped %v", c.Name, c.Skipped)
				}
			}
		}
		if !found {
			t.Errorf("unexpected testcase %q", c.Name)
		}
	}
	if len(own) > 0 || len(aggregated) > 0 {
		t.Errorf("missing testcases: own %v, aggregated %v", own, aggregated)
	}
}

func TestCSVAndHTML(t *testing.T) {
	var c, h bytes.Buffer
	if err := WriteCSV(&c, recs()); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(c.String(), "\n"); n != 6 {
		t.Fatalf("csv has %d lines", n)
	}
	if !strings.Contains(c.String(), ",unexpected,") || !strings.Contains(c.String(), ",known,glslang.txt:9") {
		t.Errorf("csv lacks verdicts:\n%s", c.String())
	}
	// results.csv.gz is the same CSV, gzipped.
	var z bytes.Buffer
	if err := WriteCSVGzip(&z, recs()); err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(&z)
	if err != nil {
		t.Fatal(err)
	}
	if plain, err := io.ReadAll(zr); err != nil || !bytes.Equal(plain, c.Bytes()) {
		t.Errorf("WriteCSVGzip is not WriteCSV gzipped (%v)", err)
	}
	if err := WriteHTML(&h, Page{Title: "lavapipe", Records: recs()}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"unexpected <b>2</b>", "known <b>1</b>", "<td>0x10</td>", "device lacks shaderFloat16"} {
		if !strings.Contains(h.String(), want) {
			t.Errorf("html lacks %q", want)
		}
	}
}

// TestDevicesOfOneName: two devices of one name in one run are two devices
// (" #index"), a baseline is matched per device, and an older file without
// device indices still matches a device of its name.
func TestDevicesOfOneName(t *testing.T) {
	rec := func(dev string, idx int, status string) results.Record {
		return results.Record{Case: "c", Op: "WaveActiveSum", WaveSize: 8, API: "vulkan", Stage: "compute", Compiler: "ours", Device: dev, DeviceIndex: idx, Status: status}
	}
	lvp := "llvmpipe (LLVM 15.0.6, 256 bits)"
	two := []results.Record{rec(lvp, 0, results.Pass), rec(lvp, 1, results.Fail)}
	if got := fmt.Sprint(Devices(two)); got != "[llvmpipe (LLVM 15.0.6) #0 llvmpipe (LLVM 15.0.6) #1]" {
		t.Errorf("Devices: %s", got)
	}
	if got := fmt.Sprint(Devices(two[1:])); got != "[llvmpipe (LLVM 15.0.6)]" {
		t.Errorf("a device alone keeps its name: %s", got)
	}
	// A run compared with itself, device by device: nothing changes, although
	// the same case passed on one device and failed on the other.
	ds, err := CompareDevices(two, []results.Record{two[1], two[0]})
	if err != nil || len(ds) != 2 || ds[0].Diff.Unchanged != 1 || ds[1].Diff.Unchanged != 1 {
		t.Fatalf("%v %+v", err, ds)
	}
	// An old single-device baseline (no index) is the baseline of each device.
	old := []results.Record{rec("llvmpipe (LLVM 15.0.6, 128 bits)", 0, results.Pass)}
	ds, err = CompareDevices(old, two[1:])
	if err != nil || len(ds[0].Diff.Regressions) != 1 {
		t.Fatalf("old baseline: %v %+v", err, ds)
	}
	if recs, ok := MatchDevice(two, DeviceID{Identity: "llvmpipe (LLVM 15.0.6)", Index: 1}); !ok || recs[0].Status != results.Fail {
		t.Errorf("MatchDevice by index: %v %v", recs, ok)
	}
	if _, ok := MatchDevice(two, DeviceID{Identity: "NVIDIA H200"}); ok {
		t.Error("MatchDevice found a device the baseline did not run")
	}
	if _, err := CompareDevices(two, two[:1]); err == nil {
		t.Error("a baseline with a device the new run lacks was accepted")
	}
	var junit strings.Builder
	WriteJUnit(&junit, two)
	if !strings.Contains(junit.String(), lvp+` #1/vulkan/compute/ours/wave8"`) {
		t.Errorf("JUnit suites do not tell the devices apart:\n%s", junit.String())
	}
}

func TestDeviceIdentity(t *testing.T) {
	for in, want := range map[string]string{
		"llvmpipe (LLVM 15.0.6, 256 bits)": "llvmpipe (LLVM 15.0.6)",
		"llvmpipe (LLVM 15.0.6, 128 bits)": "llvmpipe (LLVM 15.0.6)",
		"NVIDIA H200":                      "NVIDIA H200",
		"x (a, b bits)":                    "x (a, b bits)",
		"x (, bits)":                       "x (, bits)",
		"x ( bits)":                        "x ( bits)",
		"x (y, 12 bits) z":                 "x (y, 12 bits) z",
		"":                                 "",
	} {
		if got := DeviceIdentity(in); got != want {
			t.Errorf("DeviceIdentity(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestDevicesOfTwoDrivers: two lavapipes of one name and ids, from two Mesa
// releases, are told apart by the release (not by an index that moves when a
// driver is added), and a baseline of both is matched driver by driver even
// where the indices changed; a run of one release still compares with a run of
// the other (a driver upgrade is what baselines are for).
func TestDevicesOfTwoDrivers(t *testing.T) {
	rec := func(idx int, driver, status string) results.Record {
		return results.Record{Case: "c", Op: "WaveActiveSum", WaveSize: 8, API: "vulkan", Stage: "compute", Compiler: "ours",
			Device: "llvmpipe (LLVM 15.0.6, 256 bits)", DeviceIndex: idx, Driver: driver, Status: status}
	}
	old, cur := "llvmpipe Mesa 22.3.6 (LLVM 15.0.6)", "llvmpipe Mesa 25.0.7-2~bpo12+1 (LLVM 15.0.6)"
	two := []results.Record{rec(0, old, results.Pass), rec(1, cur, results.Fail)}
	if got := fmt.Sprint(Devices(two)); got != "[llvmpipe (LLVM 15.0.6) [Mesa 22.3.6] llvmpipe (LLVM 15.0.6) [Mesa 25.0.7-2~bpo12+1]]" {
		t.Errorf("Devices: %s", got)
	}
	if got := DriverLabel("SwiftShader Device (Subzero)", "SwiftShader driver 5.0.0"); got != "driver 5.0.0" {
		t.Errorf("DriverLabel of SwiftShader: %q", got)
	}
	if got := DriverLabel("llvmpipe (LLVM 15.0.6)", "llvmpipe (LLVM 15.0.6)"); got != "llvmpipe (LLVM 15.0.6)" {
		t.Errorf("a label with nothing new keeps the driver string: %q", got)
	}
	// The same two drivers at swapped indices (a third driver added before
	// them): each is compared with its own driver's records.
	swapped := []results.Record{rec(2, old, results.Pass), rec(1, cur, results.Pass)}
	ds, err := CompareDevices(two, swapped)
	if err != nil || len(ds) != 2 {
		t.Fatalf("%v %+v", err, ds)
	}
	for _, d := range ds {
		want := 0
		if strings.Contains(d.Device, "25.0.7") {
			want = 1 // failed in the baseline, passes now
		}
		if len(d.Diff.Fixes) != want || len(d.Diff.Regressions) != 0 {
			t.Errorf("%s: %+v", d.Device, d.Diff)
		}
	}
	// One release's run against the other's: one device each, compared.
	ds, err = CompareDevices(two[:1], []results.Record{rec(0, cur, results.Fail)})
	if err != nil || len(ds) != 1 || len(ds[0].Diff.Regressions) != 1 {
		t.Fatalf("22.3.6 → 25.0.7: %v %+v", err, ds)
	}
	var junit strings.Builder
	if err := WriteJUnit(&junit, two); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`llvmpipe (LLVM 15.0.6, 256 bits) [Mesa 22.3.6]/`, `llvmpipe (LLVM 15.0.6, 256 bits) [Mesa 25.0.7-2~bpo12+1]/`} {
		if !strings.Contains(junit.String(), want) {
			t.Errorf("JUnit has no suite %q", want)
		}
	}
}
