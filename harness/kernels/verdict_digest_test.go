package kernels

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"testing"
)

// The verdict digest is every result the checkers and the parity comparison
// give over a fixed set of simulated runs: correct devices at 8 and 32 lanes
// (linear and shuffled layouts), the planted pixel bugs of simulate_draw.go,
// and buffers changed the ways a broken device or a second API differs (a
// result bit, a lane index, an arm, a sentinel word, a lane count). It is the
// proof that a change meant to make the checkers cheaper changes no verdict:
// WAVERIG_DIGEST_OUT=FILE writes it (run it at the base commit),
// WAVERIG_DIGEST_WANT=FILE compares this tree's with it, run by run. Without
// either it is skipped: the package's other tests pin the verdicts one by one.

// digestRun is one simulated run and its second API.
type digestRun struct {
	name  string
	k     Kernel
	size  uint32
	a, b  map[string][]byte
	sizeB uint32
}

// digestLCG is a fixed pseudo-random sequence for the changes.
type digestLCG uint64

func (r *digestLCG) next(n int) int {
	*r = *r*6364136223846793005 + 1442695040888963407
	return int(uint64(*r>>33) % uint64(n))
}

func cloneOut(out map[string][]byte) map[string][]byte {
	c := make(map[string][]byte, len(out))
	for r, b := range out {
		c[r] = append([]byte(nil), b...)
	}
	return c
}

// mutate changes one word of n records of u0 (word w of the record, xor x).
func mutate(out map[string][]byte, r *digestLCG, n, w int, x uint32) map[string][]byte {
	c := cloneOut(out)
	u := c["u0"]
	recs := len(u) / 4 / recWords
	for i := 0; i < n && recs > 0; i++ {
		at := (r.next(recs)*recWords + w) * 4
		u[at] ^= byte(x)
		u[at+1] ^= byte(x >> 8)
	}
	return c
}

// digestRuns are the runs of every stride-th compute kernel (and every
// stride/3-rd pixel kernel); the digest takes 11.
func digestRuns(t *testing.T, stride int) []digestRun {
	var runs []digestRun
	r := digestLCG(1)
	ks := Matrix(Filter{})
	for i := 0; i < len(ks); i += stride {
		k := ks[i]
		for _, l := range []SimLayout{{WaveSize: 32}, {WaveSize: 8, Seed: 3}} {
			a, err := Simulate(k, l)
			if err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("%s@%d/%d", k.Name, l.WaveSize, l.Seed)
			runs = append(runs, digestRun{name + "/same", k, l.WaveSize, a, cloneOut(a), l.WaveSize})
			switch i / stride % 5 {
			case 0: // a result bit on either side
				runs = append(runs, digestRun{name + "/out", k, l.WaveSize, mutate(a, &r, 3, wOut, 1), mutate(a, &r, 2, wOut, 0x100), l.WaveSize})
			case 1: // a lane index
				runs = append(runs, digestRun{name + "/lane", k, l.WaveSize, a, mutate(a, &r, 1, wLane, 1), l.WaveSize})
			case 2: // an arm
				runs = append(runs, digestRun{name + "/arm", k, l.WaveSize, mutate(a, &r, 2, wBranch, 3), a, l.WaveSize})
			case 3: // a sentinel word
				runs = append(runs, digestRun{name + "/sentinel", k, l.WaveSize, a, mutate(a, &r, 2, recWords-1, 0x40), l.WaveSize})
			case 4: // a lane count, checked at the required size and at none
				runs = append(runs, digestRun{name + "/count", k, l.WaveSize, mutate(a, &r, 1, wCount, 0x30), a, 0})
			}
		}
	}
	px := GraphicsMatrix(Pixel, Filter{})
	faults := []string{"", FaultQuadXReadsY, FaultHelperQuadZero, FaultHelpersSomeLanes, FaultLaneCount}
	ps := max(stride/3, 1)
	for i := 0; i < len(px); i += ps {
		k := px[i]
		inc := IncludesHelperLanes(k.Cases[0])
		f := faults[i/ps%len(faults)]
		for _, l := range []SimLayout{{WaveSize: 32, Helpers: inc}, {WaveSize: 16, Seed: 5, Helpers: !inc, Split: true}, {WaveSize: 8, Seed: 2, Fault: f, MirrorY: true}} {
			a, err := Simulate(k, l)
			if err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("%s@%d/%d/%s", k.Name, l.WaveSize, l.Seed, l.Fault)
			runs = append(runs, digestRun{name + "/same", k, l.WaveSize, a, cloneOut(a), l.WaveSize})
			// The other helper choice on the second API: mixed helper sets.
			l2 := l
			l2.Helpers = !l.Helpers
			if b, err := Simulate(k, l2); err == nil {
				runs = append(runs, digestRun{name + "/helpers", k, l.WaveSize, a, b, 0})
			}
			runs = append(runs, digestRun{name + "/out", k, l.WaveSize, a, mutate(a, &r, 2, wOut, 1), l.WaveSize})
		}
	}
	return runs
}

// digestLine is one run's verdicts, as JSON: each side checked, then compared.
func digestLine(d digestRun) string {
	a, b := Check(d.k, d.a, d.size), Check(d.k, d.b, d.sizeB)
	ps, err := Compare(d.k, "vulkan", d.a, "webgpu", d.b)
	return digestOf(d.name, a, b, ps, err)
}

// digestOf renders one run's verdicts (the cases by position: a case's
// description is the kernel's).
func digestOf(run string, a, b []CaseResult, ps []Parity, perr error) string {
	type verdict struct {
		Run       string
		A, B      []CaseResult
		Parity    []Parity
		ParityErr string
	}
	v := verdict{Run: run, A: append([]CaseResult(nil), a...), B: append([]CaseResult(nil), b...), Parity: append([]Parity(nil), ps...)}
	if perr != nil {
		v.ParityErr = perr.Error()
	}
	for i := range v.A {
		v.A[i].Case = Case{}
	}
	for i := range v.B {
		v.B[i].Case = Case{}
	}
	for i := range v.Parity {
		v.Parity[i].Case = Case{}
	}
	j, err := json.Marshal(v)
	if err != nil {
		return "marshal: " + err.Error()
	}
	return string(j)
}

func TestVerdictDigest(t *testing.T) {
	outPath, wantPath := os.Getenv("WAVERIG_DIGEST_OUT"), os.Getenv("WAVERIG_DIGEST_WANT")
	if outPath == "" && wantPath == "" {
		t.Skip("set WAVERIG_DIGEST_OUT or WAVERIG_DIGEST_WANT (see the comment above)")
	}
	runs := digestRuns(t, 11)
	if outPath != "" {
		f, err := os.Create(outPath)
		if err != nil {
			t.Fatal(err)
		}
		w := bufio.NewWriter(f)
		for _, d := range runs {
			fmt.Fprintln(w, digestLine(d))
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		t.Logf("%d runs written to %s", len(runs), outPath)
		return
	}
	f, err := os.Open(wantPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	n, bad := 0, 0
	for _, d := range runs {
		if !sc.Scan() {
			t.Fatalf("%s holds %d runs, this tree makes %d", wantPath, n, len(runs))
		}
		n++
		if got := digestLine(d); got != sc.Text() {
			bad++
			if bad <= 3 {
				t.Errorf("run %s: verdicts differ\nwant %.600s\ngot  %.600s", d.name, sc.Text(), got)
			}
		}
	}
	if sc.Scan() {
		t.Fatalf("%s holds more runs than the %d this tree makes", wantPath, len(runs))
	}
	if bad > 0 {
		t.Fatalf("%d of %d runs differ", bad, n)
	}
	t.Logf("%d runs, every verdict identical", n)
}

// TestMemoSharesVerdicts: checking a kernel's buffers on two targets and
// comparing them through one memo, as the rig does, gives every verdict that
// fresh, unshared calls give, over the digest's kinds of runs (correct
// devices, planted pixel bugs, changed results, lanes, arms, sentinels and
// lane counts, mixed helper sets across the two sides). The second check of a
// side and the comparison take their model values from the memo.
func TestMemoSharesVerdicts(t *testing.T) {
	runs := digestRuns(t, 47)
	hits := 0
	for _, d := range runs {
		want := digestLine(d) // fresh memos
		m := NewMemo(d.k)
		a, b := m.Check(d.a, d.size), m.Check(d.b, d.sizeB)
		entries := m.entries()
		again := m.Check(d.a, d.size) // every model answer from the memo now
		if m.entries() != entries {
			t.Fatalf("%s: a second check of the same buffers asked the models again (%d entries, then %d)", d.name, entries, m.entries())
		}
		ps, err := m.Compare("vulkan", d.a, "webgpu", d.b)
		got := digestOf(d.name, a, b, ps, err)
		if got != want {
			t.Fatalf("run %s: shared memo's verdicts differ\nwant %.600s\ngot  %.600s", d.name, want, got)
		}
		if ga, wa := digestOf(d.name, again, b, ps, err), digestOf(d.name, a, b, ps, err); ga != wa {
			t.Fatalf("run %s: the second check through the memo differs from the first", d.name)
		}
		if entries > 0 {
			hits++
		}
	}
	if hits == 0 {
		t.Fatal("no run asked the models anything")
	}
	t.Logf("%d runs, %d through the models", len(runs), hits)
}
