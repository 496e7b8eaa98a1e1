package score

import (
	"strings"
	"testing"
	"time"

	"waverig/harness/mutate"
)

// TestCFHangGuard runs one program with a guard no dispatch can meet: the
// parent must kill the child in the first job (the unmutated program), record
// a hang with its reason, start a new child after it, and leave the seed's
// mutants uncounted (a program that fails unmutated says nothing of them).
func TestCFHangGuard(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a program on the device (-short)")
	}
	need(t)
	res, err := RunCF(CFOptions{Seeds: []uint64{5}, Timeout: time.Microsecond, Log: testLog{t}, Sizes: defaultSize(t)})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Sizes) != 1 {
		t.Fatalf("sizes run: %v (skipped: %v)", res.Sizes, res.Skipped)
	}
	size := res.Sizes[0]
	first := res.Outcomes[0][size]
	if res.Jobs[0].Mutant != "" || !first.Hang || !strings.Contains(first.Err, "hang guard") {
		t.Fatalf("job 0 (%s): %+v, want the unmutated program to hang", cfName(res.Jobs[0]), first)
	}
	for i, j := range res.Jobs[1:] {
		if o := res.Outcomes[i+1][size]; !o.NotCounted {
			t.Errorf("%s: %+v, want not counted after the unmutated program hung", cfName(j), o)
		}
	}
	s := res.Summarize()
	if ss := s.Sizes[0]; ss.FalseFailures != 1 || ss.FalseWhy[5] != "hang" || ss.Sites != 0 {
		t.Errorf("summary: %d false failures (%v), %d sites; want the hang as the one false failure and no site counted", ss.FalseFailures, ss.FalseWhy, ss.Sites)
	}
}

// TestCFDocRoundTrip: the numbers RecordedCF reads back from the section
// Markdown writes are the summary's, and SplitDoc cuts the page where the
// score tests join it. No device: the result is built by hand.
func TestCFDocRoundTrip(t *testing.T) {
	res := &CFResult{Device: "dev", Sizes: []uint32{4, 8}, Seeds: []uint64{1, 2}, Skipped: map[uint32]string{}}
	m0, m1 := mutate.ControlFlow[0].Name, mutate.ControlFlow[1].Name
	res.Jobs = []CFJob{{Seed: 1}, {Seed: 1, Mutant: m0, Site: "%10"}, {Seed: 1, Mutant: m1, Site: "%11"}, {Seed: 2}, {Seed: 2, Mutant: m0, Site: "%12"}}
	res.Outcomes = []map[uint32]CFOutcome{
		{4: {}, 8: {}},
		{4: {Failures: 2, First: "x"}, 8: {Hang: true, Err: "guard"}},
		{4: {}, 8: {Failures: 1, First: "y"}},
		{4: {}, 8: {Err: "boom"}},
		{4: {}, 8: {NotCounted: true}},
	}
	s := res.Summarize()
	rec := RecordedCF("# page\n\n" + s.Markdown())
	if len(rec) != len(s.Sizes) {
		t.Fatalf("recorded sizes %v, want %d", rec, len(s.Sizes))
	}
	for _, ss := range s.Sizes {
		want := CFRecorded{ss.Caught, ss.Planted, ss.SitesCaught, ss.Sites}
		if rec[ss.Size] != want {
			t.Errorf("size %d: recorded %+v, summary %+v", ss.Size, rec[ss.Size], want)
		}
	}
	if got := s.Survivors(); len(got) != 1 || !strings.Contains(got[0], m1) {
		t.Errorf("survivors %q, want %q at size 4 only", got, m1)
	}
	if s.Sizes[1].FalseFailures != 1 || s.Sizes[1].PerMutant[m0].Hangs != 1 {
		t.Errorf("size 8: %+v", s.Sizes[1])
	}
	static := "# page\n\n- a\n"
	gotStatic, gotCF := SplitDoc(static + "\n" + s.Markdown())
	if gotStatic != static || gotCF != s.Markdown() {
		t.Errorf("SplitDoc: static %q, section starts %.40q", gotStatic, gotCF)
	}
	if st, cf := SplitDoc(static); st != static || cf != "" {
		t.Errorf("SplitDoc of a page without the section: %q, %q", st, cf)
	}
}
