package kernels

import (
	"encoding/binary"
	"regexp"
	"testing"

	"waverig/harness/models"
)

// TestCompareParity: identical outputs agree; a changed defined result and a
// changed lane place are parity differences with both values; a changed value
// the model leaves undefined is not.
func TestCompareParity(t *testing.T) {
	ks := Matrix(Filter{Ops: regexp.MustCompile(`^(WaveActiveSum|QuadReadAcrossX)$`), Types: []string{"uint"}, Shapes: []string{"whole"}})
	if len(ks) != 2 {
		t.Fatalf("want 2 kernels, got %d", len(ks))
	}
	for _, k := range ks {
		a, err := Simulate(k, SimLayout{WaveSize: 8})
		if err != nil {
			t.Fatal(err)
		}
		copyOut := func() map[string][]byte {
			return map[string][]byte{"u0": append([]byte(nil), a["u0"]...)}
		}
		ps, err := Compare(k, "vulkan", a, "webgpu", copyOut())
		if err != nil {
			t.Fatal(err)
		}
		compared := 0
		for _, p := range ps {
			compared += p.Compared
			if p.Differing != 0 {
				t.Fatalf("%s: identical outputs differ: %+v", p.Case.ID(), p.Lanes)
			}
		}
		if compared == 0 {
			t.Fatalf("%s: nothing compared", k.Name)
		}

		// Find a record whose result the model defines (branch 1 of the "all" pattern).
		init, got, _ := kernelWords(k, a)
		idx := -1
		for i := 0; i < len(init)/recWords; i++ {
			h := readHdr(got, init, i, k.Cases[0].Shape.Threads())
			if k.Cases[h.caseIdx].Pattern == All && h.branch == 1 {
				idx = i
				break
			}
		}
		if idx < 0 {
			t.Fatal("no active record")
		}
		b := copyOut()
		b["u0"][(idx*recWords+wOut)*4] ^= 1
		ps, _ = Compare(k, "vulkan", a, "webgpu", b)
		if n := differing(ps); n != 1 {
			t.Fatalf("%s: changed result: %d differing lanes, want 1", k.Name, n)
		}
		for _, p := range ps {
			for _, l := range p.Lanes {
				if l.Flat != uint32(idx) || l.Values["vulkan"] == l.Values["webgpu"] {
					t.Fatalf("parity lane %+v: want flat %d with two different values", l, idx)
				}
			}
		}

		b = copyOut()
		b["u0"][(idx*recWords+wLane)*4] ^= 1
		ps, _ = Compare(k, "vulkan", a, "webgpu", b)
		if n := differing(ps); n != 1 {
			t.Fatalf("%s: changed lane index: %d differing lanes, want 1", k.Name, n)
		}
	}
}

// TestCompareIgnoresUndefined: an inactive lane's output is undefined, so
// changing it is no parity difference.
func TestCompareIgnoresUndefined(t *testing.T) {
	ks := Matrix(Filter{Ops: regexp.MustCompile(`^WaveActiveSum$`), Types: []string{"uint"}, Patterns: []Pattern{Even}, Shapes: []string{"whole"}})
	a, err := Simulate(ks[0], SimLayout{WaveSize: 8})
	if err != nil {
		t.Fatal(err)
	}
	init, got, _ := kernelWords(ks[0], a)
	b := map[string][]byte{"u0": append([]byte(nil), a["u0"]...)}
	changed := 0
	for i := 0; i < len(init)/recWords; i++ {
		if readHdr(got, init, i, 64).branch == 0 {
			b["u0"][(i*recWords+wOut)*4] ^= 0x55
			changed++
		}
	}
	if changed == 0 {
		t.Fatal("no inactive lane")
	}
	ps, err := Compare(ks[0], "vulkan", a, "webgpu", b)
	if err != nil {
		t.Fatal(err)
	}
	if n := differing(ps); n != 0 {
		t.Fatalf("%d differing lanes from undefined values", n)
	}
}

func differing(ps []Parity) int {
	n := 0
	for _, p := range ps {
		n += p.Differing
	}
	return n
}

// TestComparePixelParity: a pixel kernel drawn alike on both sides agrees; a
// pixel covered on one side only differs; a side's own wrong result is its
// failure, not a parity difference; two
// devices that each pass, one taking helpers into wave operations and one not,
// differ where the helpers change the result.
func TestComparePixelParity(t *testing.T) {
	ks := GraphicsMatrix(Pixel, Filter{Ops: regexp.MustCompile(`^WaveActiveSum$`), Types: []string{"uint"}, Patterns: []Pattern{All}, Shapes: []string{"diag16"}})
	if len(ks) != 1 {
		t.Fatalf("want 1 kernel, got %d", len(ks))
	}
	k := ks[0]
	a, err := Simulate(k, SimLayout{WaveSize: 8})
	if err != nil {
		t.Fatal(err)
	}
	clone := func(o map[string][]byte) map[string][]byte {
		c := map[string][]byte{}
		for r, b := range o {
			c[r] = append([]byte(nil), b...)
		}
		return c
	}
	ps, err := Compare(k, "vulkan", a, "webgpu", clone(a))
	if err != nil {
		t.Fatal(err)
	}
	if ps[0].Compared == 0 || ps[0].Differing != 0 {
		t.Fatalf("identical draws: compared %d, differing %d", ps[0].Compared, ps[0].Differing)
	}
	// Pixel 0,0 of draw 0 is covered in diag16. A wrong result there is the
	// wrong side's own failure (its wave is explained by no helper set, so it is
	// not compared); a pixel covered on one side only is a parity difference.
	b := clone(a)
	b["u0"][wOut*4] ^= 1
	if ps, _ = Compare(k, "vulkan", a, "webgpu", b); ps[0].Differing != 0 {
		t.Fatalf("a side's own wrong result counted as parity: %v", ps[0].Lanes)
	}
	b = clone(a)
	for w := 0; w < recWords; w++ {
		copy(b["u0"][w*4:], []byte{0xff, 0xff, 0xff, 0xff})
	}
	if ps, _ = Compare(k, "vulkan", a, "webgpu", b); ps[0].Differing != 1 || ps[0].Lanes[0].Values["webgpu"] != "not covered" {
		t.Fatalf("uncovered pixel: %+v", ps[0])
	}
	// Both legal, not alike: helpers excluded on one side, included on the other.
	inc, err := Simulate(k, SimLayout{WaveSize: 8, Helpers: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, side := range []map[string][]byte{a, inc} {
		for _, r := range Check(k, side, 8) {
			if !r.Passed {
				t.Fatalf("simulated side fails its model: %s", r)
			}
		}
	}
	if ps, _ = Compare(k, "vulkan", a, "webgpu", inc); ps[0].Differing == 0 {
		t.Fatal("helpers in and out of the sums gave no parity difference")
	}
}

// TestComparePixelParityAcceptedSet: two sides whose float sums differ but both
// lie in the interval the models accept (any order of the additions) agree; the
// pixel path compares through the accepted set as the compute path does.
func TestComparePixelParityAcceptedSet(t *testing.T) {
	ks := GraphicsMatrix(Pixel, Filter{Ops: regexp.MustCompile(`^WaveActiveSum$`), Types: []string{"float"}, Patterns: []Pattern{All}, Shapes: []string{"diag16"}})
	if len(ks) != 1 {
		t.Fatalf("want 1 kernel, got %d", len(ks))
	}
	k := ks[0]
	a, err := Simulate(k, SimLayout{WaveSize: 8})
	if err != nil {
		t.Fatal(err)
	}
	defs := make([][]models.Value, len(a["u0"])/4/recWords)
	res := make([]CaseResult, len(k.Cases))
	states := make([]*caseState, len(k.Cases))
	for i, c := range k.Cases {
		res[i] = CaseResult{Case: c, Passed: true}
		states[i] = &caseState{res: &res[i], choices: map[string]int{}}
	}
	checkPixelInto(k, a, 0, res, states, defs, NewMemo(k))
	b := map[string][]byte{}
	for r, w := range a {
		b[r] = append([]byte(nil), w...)
	}
	_, got, err := kernelWords(k, b)
	if err != nil {
		t.Fatal(err)
	}
	// Move every defined result whose interval has room to the interval's other
	// end: still right on its own, so no parity difference.
	moved := 0
	newOut := map[[2]uint32]uint32{} // (flat, old out word) -> new out word, for the colour target
	for i, ws := range defs {
		if ws == nil {
			continue
		}
		acc := ws[0].Accept
		if len(acc) == 0 || acc[0] == nil || !acc[0].Interval || acc[0].Lo == acc[0].Hi {
			continue
		}
		rec := got[i*recWords:][:recWords]
		other := acc[0].Lo
		if readComps(rec, wOut, models.Float32, 1)[0] == other {
			other = acc[0].Hi
		}
		was := rec[wOut]
		writeComps(rec, wOut, models.Float32, []uint64{other})
		newOut[[2]uint32{rec[wFlat], was}] = rec[wOut]
		binary.LittleEndian.PutUint32(b["u0"][(i*recWords+wOut)*4:], rec[wOut])
		moved++
	}
	if moved == 0 {
		t.Fatal("no defined sum with more than one accepted value")
	}
	// The colour target repeats the last draw's (flat, draw, out0, out1).
	c := b[ColorTarget]
	for px := 0; px+16 <= len(c); px += 16 {
		flat, out0 := binary.LittleEndian.Uint32(c[px:]), binary.LittleEndian.Uint32(c[px+8:])
		if v, ok := newOut[[2]uint32{flat, out0}]; ok {
			binary.LittleEndian.PutUint32(c[px+8:], v)
		}
	}
	for _, r := range Check(k, b, 8) {
		if !r.Passed {
			t.Fatalf("moved side fails its model: %s", r)
		}
	}
	ps, err := Compare(k, "vulkan", a, "webgpu", b)
	if err != nil {
		t.Fatal(err)
	}
	if ps[0].Compared == 0 || ps[0].Differing != 0 {
		t.Fatalf("%d sums moved inside their intervals: compared %d, differing %d: %v", moved, ps[0].Compared, ps[0].Differing, ps[0].Lanes)
	}
}
