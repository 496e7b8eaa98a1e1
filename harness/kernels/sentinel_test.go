package kernels

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"testing"

	"waverig/compiler/intrinsics"
	"waverig/harness/models"
)

// The host fills every output word with the sentinel, and the kernels store
// inside the arm that ran the operation, so a correct device leaves the
// sentinel exactly where no lane should have stored.
func TestSentinelLeftWhereNoStoreBelongs(t *testing.T) {
	for _, f := range []Filter{
		{Ops: regexp.MustCompile(`^WaveActiveSum$`), Types: []string{"uint", "float2"}, Shapes: []string{"partial"}},
		{Ops: regexp.MustCompile(`^WaveActiveBallot$`), Shapes: []string{"whole"}},
		{Ops: regexp.MustCompile(`^WaveMultiPrefixSum$`), Types: []string{"uint"}, Shapes: []string{"whole"}},
	} {
		ks := Matrix(f)
		if len(ks) == 0 {
			t.Fatalf("no kernels for %v", f.Ops)
		}
		k := ks[0]
		init, _ := words(k.Buffers[0].Data)
		for i := 0; i < len(init)/recWords; i++ {
			for w := wOut; w < recWords; w++ {
				if init[i*recWords+w] != outSentinel {
					t.Fatalf("%s: record %d word %d is %#x before the dispatch, want the sentinel", k.Name, i, w, init[i*recWords+w])
				}
			}
		}
		// Every store of an output word sits inside the arms (after "if (outer)",
		// before the header stores that follow all divergence).
		arms, after := strings.Index(k.HLSL, "    if (outer) {"), strings.Index(k.HLSL, "    rec[b + 0u] = flat;")
		stores := regexp.MustCompile(`rec\[b \+ (1[6-9]|2[0-3])u\] =`).FindAllStringIndex(k.HLSL, -1)
		if arms < 0 || after < arms || len(stores) == 0 {
			t.Fatalf("%s: no arms, header stores or output stores found:\n%s", k.Name, k.HLSL)
		}
		for _, at := range stores {
			if at[0] < arms || at[0] > after {
				t.Errorf("%s: an output word is stored outside the arms:\n%s", k.Name, k.HLSL)
				break
			}
		}
		out, err := Simulate(k, SimLayout{WaveSize: 8, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := words(out["u0"])
		kept, stored := 0, 0
		for i := 0; i < len(got)/recWords; i++ {
			if got[i*recWords+wBranch] == 0 {
				kept++
			} else if got[i*recWords+wOut] != outSentinel {
				stored++
			}
		}
		if kept == 0 || stored == 0 {
			t.Errorf("%s: %d lanes ran no arm, %d stored: the test needs both", k.Name, kept, stored)
		}
		for _, r := range Check(k, out, 8) {
			if !r.Passed {
				t.Errorf("correct device fails: %s", r)
			}
		}
	}
}

// strayStoreFaults plants one store bug in the records of a correct device and
// returns the failures Check reports.
func strayStoreFault(t *testing.T, k Kernel, plant func(w []uint32) int) []string {
	t.Helper()
	out, err := Simulate(k, SimLayout{WaveSize: 16, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	w, _ := words(out["u0"])
	i := plant(w)
	out["u0"] = bytesOf(w)
	var fails []string
	for _, r := range Check(k, out, 16) {
		if r.Passed {
			continue
		}
		for _, f := range r.Failures {
			if f.Lane != w[i*recWords+wLane] || f.WaveKey != w[i*recWords+wKey] {
				t.Errorf("failure names lane %d of wave %#x, the bug is in record %d (lane %d)", f.Lane, f.WaveKey, i, w[i*recWords+wLane])
			}
			fails = append(fails, f.String())
		}
	}
	return fails
}

func TestCheckCatchesStrayAndMissingStores(t *testing.T) {
	ks := Matrix(Filter{Ops: regexp.MustCompile(`^WaveActiveSum$`), Types: []string{"uint"}, Shapes: []string{"partial"}})
	k := ks[0]
	inactive := func(w []uint32) int {
		for i := 0; i < len(w)/recWords; i++ {
			if _, _, _, ci := unctl(w[i*recWords+wCtl]); k.Cases[ci].Pattern == Odd && w[i*recWords+wBranch] == 0 {
				return i
			}
		}
		t.Fatal("no inactive lane")
		return 0
	}
	for _, tc := range []struct {
		name, want string
		plant      func(w []uint32) int
	}{
		{"inactive lane stores", "did not run the operation", func(w []uint32) int {
			i := inactive(w)
			w[i*recWords+wOut] = 0 // the zero a kernel that stores after its branch writes
			return i
		}},
		{"store past the result", "past the result's words", func(w []uint32) int {
			i := recordOf(t, k, w, Odd)
			w[i*recWords+wOut+1] = 0
			return i
		}},
		{"store missing", "not written", func(w []uint32) int {
			i := recordOf(t, k, w, Odd)
			w[i*recWords+wOut] = outSentinel
			return i
		}},
	} {
		fails := strayStoreFault(t, k, tc.plant)
		if len(fails) != 1 || !strings.Contains(fails[0], tc.want) {
			t.Errorf("%s: failures %q, want one saying %q", tc.name, fails, tc.want)
		}
	}
}

// A float rule may accept any value (a NaN among a minimum's inputs frees it
// under Vulkan's default float mode): a lane that never stored is still caught.
func TestUnwrittenCaughtWhereAnyValueIsAccepted(t *testing.T) {
	free := models.Value{Comps: []uint64{uint64(math.Float32bits(1))},
		Accept: []*models.Allowed{{Interval: true, Lo: uint64(math.Float32bits(float32(math.Inf(-1)))), Hi: uint64(math.Float32bits(float32(math.Inf(1)))), AnyNaN: true}}}
	rt := models.Type{Scalar: models.Float32, N: 1}
	rec := newRecords(1)
	if !free.AcceptsAll(rt.Scalar, readComps(rec, wOut, rt.Scalar, 1)) {
		t.Fatal("the test needs a value that accepts the sentinel")
	}
	if !unwritten(rec, rt, free) {
		t.Error("a lane that left the sentinel is not reported unwritten")
	}
	rec[wOut] = math.Float32bits(2)
	if unwritten(rec, rt, free) {
		t.Error("a stored value is reported unwritten")
	}
	// A result that is the sentinel's bits is a store, not a missing one.
	u := models.Type{Scalar: models.Uint32, N: 1}
	if unwritten(newRecords(1), u, models.Value{Comps: []uint64{uint64(outSentinel)}}) {
		t.Error("an expected value equal to the sentinel is reported unwritten")
	}
}

// Pixel kernels: the same sentinel in the output words (the header words start
// unset), stores inside the arms, and the colour's o0/o1 zero where a pixel did
// not run the operation.
func TestPixelSentinel(t *testing.T) {
	// The even pattern leaves lanes out of the operation.
	ks := GraphicsMatrix(Pixel, Filter{Ops: regexp.MustCompile(`^WaveActiveSum$`), Types: []string{"uint"}, Shapes: []string{"diag16"}, Patterns: []Pattern{Even}})
	if len(ks) != 1 {
		t.Fatalf("%d even-pattern pixel kernels", len(ks))
	}
	k := ks[0]
	out, err := Simulate(k, SimLayout{WaveSize: 16, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	if n, first := failed(Check(k, out, 16)); n > 0 {
		t.Fatalf("correct device: %s", first)
	}
	recs, _ := words(out["u0"])
	var active, inactive, uncovered = -1, -1, -1
	for i := 0; i < len(recs)/recWords; i++ {
		r := recs[i*recWords:][:recWords]
		switch {
		case !headerWritten(r) && uncovered < 0:
			uncovered = i
		case headerWritten(r) && r[wBranch] == 0 && inactive < 0:
			inactive = i
		case headerWritten(r) && r[wBranch] != 0 && active < 0:
			active = i
		}
	}
	if active < 0 || inactive < 0 || uncovered < 0 {
		t.Fatalf("records: active %d, inactive %d, uncovered %d: the test needs each", active, inactive, uncovered)
	}
	for _, tc := range []struct {
		name, want string
		rec, word  int
		v          uint32
	}{
		{"inactive pixel stores", "did not run the operation", inactive, 0, 0},
		{"store past the result", "past the result's words", active, 1, 0},
		{"store missing", "not written", active, 0, outSentinel},
		{"uncovered pixel's output changed", "is no covered pixel's", uncovered, 3, 7},
	} {
		bad := append([]uint32(nil), recs...)
		bad[tc.rec*recWords+wOut+tc.word] = tc.v
		o := map[string][]byte{"u0": bytesOf(bad), ColorTarget: out[ColorTarget]}
		var all []string
		for _, r := range Check(k, o, 16) {
			if !r.Passed {
				all = append(all, r.String())
			}
		}
		if len(all) == 0 || !strings.Contains(strings.Join(all, "\n"), tc.want) {
			t.Errorf("%s: results %q, want a failure saying %q", tc.name, all, tc.want)
		}
	}
}

// TestMemoryAccessesPerKernel: lavapipe compiles every buffer load and store into a
// loop over the lanes, so a record kernel loads each operand word once and stores
// each output word once per arm, however many type variants it holds (emitVariants).
func TestMemoryAccessesPerKernel(t *testing.T) {
	ks := Matrix(Filter{Ops: regexp.MustCompile(`^(WaveActiveSum|WaveReadLaneAt|QuadReadAcrossX|WaveActiveBallot|WaveGetLaneIndex)$`), Shapes: []string{"whole"}})
	if len(ks) < 5 {
		t.Fatalf("%d kernels", len(ks))
	}
	for _, k := range ks {
		nin, nout, arms := 0, 0, 1
		for _, c := range k.Cases {
			mt, _ := c.Type.Model()
			rt := resultType(c.Op, c.Type)
			rm, _ := rt.Model()
			if !operandFree(c.Op) {
				nin = max(nin, mt.N*wordsPer(mt.Scalar))
			}
			nout = max(nout, rm.N*wordsPer(rm.Scalar))
			if elseArm(c.Type) {
				arms = 2
			}
		}
		for w := 0; w < 8; w++ {
			want := 0
			if w < nin {
				want = 1
			}
			if got := strings.Count(k.HLSL, fmt.Sprintf("rec[b + %du];", wIn+w)); got != want {
				t.Errorf("%s: input word %d loaded %d times, want %d", k.Name, w, got, want)
			}
			want = 0
			if w < nout {
				want = arms
			}
			if got := strings.Count(k.HLSL, fmt.Sprintf("rec[b + %du] =", wOut+w)); got != want {
				t.Errorf("%s: output word %d stored %d times, want %d (once per arm)", k.Name, w, got, want)
			}
		}
	}
}

func operandFree(op intrinsics.Op) bool {
	return op == intrinsics.WaveGetLaneCount || op == intrinsics.WaveGetLaneIndex || op == intrinsics.WaveIsFirstLane
}
