package kernels

import (
	"regexp"
	"strings"
	"testing"
)

// mismatched lists the records whose defined words differ from what came back.
func mismatched(e RecordExpectation, got []uint32) map[int]bool {
	bad := map[int]bool{}
	for i, w := range got {
		if e.Defined[i] && e.Words[i] != w {
			bad[i/recWords] = true
		}
	}
	return bad
}

// failingRecords are the records of the lanes Check failed, found by wave key and lane.
func failingRecords(t *testing.T, k Kernel, out map[string][]byte, size uint32, got []uint32) map[int]bool {
	t.Helper()
	at := map[[2]uint32]int{}
	for i := 0; i < len(got)/recWords; i++ {
		at[[2]uint32{got[i*recWords+wKey], got[i*recWords+wLane]}] = i
	}
	recs := map[int]bool{}
	for _, r := range Check(k, out, size) {
		if len(r.Failures) == MaxFailures {
			t.Fatalf("%s: %d failures, the test needs them all", r.Case.ID(), MaxFailures)
		}
		for _, f := range r.Failures {
			i, ok := at[[2]uint32{f.WaveKey, f.Lane}]
			if !ok {
				t.Fatalf("failure %+v names no record", f)
			}
			recs[i] = true
		}
	}
	return recs
}

// On a simulated correct device (undefined results are garbage there) every
// defined word is met, at every wave size, with a shuffled layout, for every
// compute kernel family: the Wave24 kernels, partitions, quad votes, [WaveSize].
func TestExpectedRecordsMetByCorrectDevice(t *testing.T) {
	sample := Matrix(Filter{Types: []string{"int", "uint4", "float2", "bool", "half", "double2", "uint64_t"}, Shapes: []string{"partial", "2d"}})
	for _, size := range []uint32{4, 32} {
		for _, k := range sample {
			out, err := Simulate(k, SimLayout{WaveSize: size, Seed: 7})
			if err != nil {
				t.Fatal(err)
			}
			e, err := ExpectedRecords(k, out, size)
			if err != nil {
				t.Fatalf("%s: %v", k.Name, err)
			}
			got, _ := words(out["u0"])
			if bad := mismatched(e, got); len(bad) > 0 {
				t.Fatalf("%s at size %d: %d records differ from a correct device's", k.Name, size, len(bad))
			}
			outputs := 0
			for i, d := range e.Defined {
				if d && i%recWords >= wOut {
					outputs++
				}
			}
			if outputs == 0 {
				t.Errorf("%s at size %d: no output word defined", k.Name, size)
			}
		}
	}
}

// A planted bug — a wrong value in one lane, an inclusive scan, a lane in the
// wrong arm — makes exactly the records of the lanes Check fails differ from
// the expectation.
func TestExpectedRecordsFailExactlyCheckedFailures(t *testing.T) {
	plant := []struct {
		name, ops, typ, shape string
		size                  uint32
		bug                   func(t *testing.T, k Kernel, w []uint32)
	}{
		// A sum, not a Min/Max: a Max component with a NaN or an infinity among
		// its lanes accepts any value (Vulkan's default float mode), so a
		// flipped bit there is no bug; a sum's interval is far narrower than it.
		{"one wrong lane", `^WaveActiveSum$`, "float2", "partial", 16, func(t *testing.T, k Kernel, w []uint32) {
			w[recordOf(t, k, w, Odd)*recWords+wOut+1] ^= 0x00400000
		}},
		{"inclusive scan", `^WavePrefixSum$`, "uint", "whole", 8, func(t *testing.T, k Kernel, w []uint32) {
			for i := 0; i < len(w)/recWords; i++ {
				if r := w[i*recWords:][:recWords]; r[wBranch] != 0 && r[wLane]%4 == 1 && r[wCtl]>>16 < 2 {
					r[wOut] += r[wIn] + 1
				}
			}
		}},
		{"control flow", `^WaveActiveCountBits$`, "bool", "2d", 8, func(t *testing.T, k Kernel, w []uint32) {
			w[recordOf(t, k, w, FirstHalf)*recWords+wBranch] = 0
		}},
		{"lane argument", `^WaveReadLaneAt$`, "int", "whole", 4, func(t *testing.T, k Kernel, w []uint32) {
			w[recordOf(t, k, w, Even)*recWords+wLaneArg] += 1
		}},
	}
	for _, p := range plant {
		t.Run(p.name, func(t *testing.T) {
			ks := Matrix(Filter{Ops: regexp.MustCompile(p.ops), Types: []string{p.typ}, Shapes: []string{p.shape}})
			k := ks[0]
			out, _ := Simulate(k, SimLayout{WaveSize: p.size, Seed: 9})
			w, _ := words(out["u0"])
			p.bug(t, k, w)
			out["u0"] = bytesOf(w)
			want := failingRecords(t, k, out, p.size, w)
			if len(want) == 0 {
				t.Fatal("the planted bug failed no lane")
			}
			e, err := ExpectedRecords(k, out, p.size)
			if err != nil {
				t.Fatal(err)
			}
			got := mismatched(e, w)
			for i := range want {
				if !got[i] {
					t.Errorf("record %d failed Check but meets the expectation", i)
				}
			}
			for i := range got {
				if !want[i] {
					t.Errorf("record %d differs from the expectation but passed Check", i)
				}
			}
		})
	}
}

// A broken layout keeps the key, count and flat id Check demands; a WebGPU
// run (size 0, observed) expects the count it observed; draw kernels have no
// record expectation.
func TestExpectedRecordsLayoutAndLimits(t *testing.T) {
	k := Matrix(Filter{Ops: regexp.MustCompile(`^WaveActiveSum$`), Types: []string{"uint"}, Shapes: []string{"whole"}})[0]
	out, _ := Simulate(k, SimLayout{WaveSize: 8, Seed: 2})
	w, _ := words(out["u0"])
	w[5*recWords+wKey] += 1
	w[9*recWords+wFlat] = 77
	out["u0"] = bytesOf(w)
	e, err := ExpectedRecords(k, out, 8)
	if err != nil {
		t.Fatal(err)
	}
	if bad := mismatched(e, w); !bad[5] || !bad[9] || e.BrokenWaves == 0 {
		t.Errorf("broken key and flat id met the expectation: %v", bad)
	}
	if e.Words[9*recWords+wFlat] != 9 || e.Words[5*recWords+wCount] != 8 {
		t.Errorf("flat id %d, count %d", e.Words[9*recWords+wFlat], e.Words[5*recWords+wCount])
	}
	clean, _ := Simulate(k, SimLayout{WaveSize: 8, Seed: 2})
	e, _ = ExpectedRecords(k, clean, 8)
	w, _ = words(clean["u0"])
	if i := e.Find(w[12*recWords+wKey], w[12*recWords+wLane]); i != 12 {
		t.Errorf("Find of record 12's lane: %d", i)
	}
	if i := e.Find(1<<30, 0); i != -1 {
		t.Errorf("Find of no lane: %d", i)
	}
	out, _ = Simulate(k, SimLayout{WaveSize: 16, Seed: 2})
	if e, err = ExpectedRecords(k, out, 0); err != nil || e.Words[wCount] != 16 || !e.Defined[wOut] {
		t.Errorf("observed size: count %d, %v", e.Words[wCount], err)
	}
	if names := RecordWordNames(); len(names) != recWords || names[wKey] != "key" || names[wOut+7] != "out7" || names[wIn] != "in0" {
		t.Errorf("names %v", names)
	}
	px := GraphicsMatrix(Pixel, Filter{})
	if len(px) > 0 {
		if _, err := ExpectedRecords(px[0], nil, 8); err == nil || !strings.Contains(err.Error(), "draw kernel") {
			t.Errorf("pixel kernel: %v", err)
		}
	}
	if _, err := ExpectedRecords(k, map[string][]byte{}, 8); err == nil {
		t.Error("missing buffer: no error")
	}
}
