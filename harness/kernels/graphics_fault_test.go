package kernels

import (
	"regexp"
	"strings"
	"testing"
)

func onePixelKernel(t *testing.T, op, shape string) Kernel {
	t.Helper()
	ks := GraphicsMatrix(Pixel, Filter{Ops: regexp.MustCompile("^" + op + "$"), Shapes: []string{shape}, Patterns: []Pattern{All}})
	if len(ks) != 1 {
		t.Fatalf("%s on %s: %d kernels", op, shape, len(ks))
	}
	return ks[0]
}

func failed(rs []CaseResult) (n int, first string) {
	for _, r := range rs {
		if !r.Passed {
			if n == 0 {
				first = r.String()
			}
			n++
		}
	}
	return n, first
}

// TestPlantedPixelBugsFail: each planted device bug fails the cases it touches.
func TestPlantedPixelBugsFail(t *testing.T) {
	for _, c := range []struct{ fault, op, shape string }{
		{FaultQuadXReadsY, "QuadReadAcrossX", "fb15x15"},
		{FaultHelperQuadZero, "QuadReadAcrossY", "diag16"},
		{FaultHelperQuadZero, "QuadReadLaneAt", "fb3x111"},
		{FaultHelpersSomeLanes, "WaveActiveSum", "thin"},
		{FaultHelpersSomeLanes, "WavePrefixSum", "diag16"},
		{FaultLaneCount, "WaveGetLaneCount", "fb15x15"},
	} {
		k := onePixelKernel(t, c.op, c.shape)
		for _, helpers := range []bool{false, true} {
			if c.fault == FaultHelpersSomeLanes && !helpers {
				continue // the planted bug makes odd lanes include helpers
			}
			good := simCheck(t, k, SimLayout{WaveSize: 16, Seed: 3, Helpers: helpers}, true)
			if n, first := failed(good); n > 0 {
				t.Fatalf("%s without the fault: %s", k.Name, first)
			}
			bad := simCheck(t, k, SimLayout{WaveSize: 16, Seed: 3, Helpers: helpers, Fault: c.fault}, true)
			if n, _ := failed(bad); n == 0 {
				t.Errorf("%s: planted %s (helpers %v) passed", k.Name, c.fault, helpers)
			}
		}
	}
}

// TestPixelLayoutProblemsReported: a broken layout is reported, not trusted.
func TestPixelLayoutProblemsReported(t *testing.T) {
	k := onePixelKernel(t, "WaveActiveSum", "fb15x15")
	out, err := Simulate(k, SimLayout{WaveSize: 16})
	if err != nil {
		t.Fatal(err)
	}
	recs, _ := words(out["u0"])
	lay := pixelLayout{w: 15, h: 15}
	set := func(x, y uint32, word int, v uint32) []uint32 {
		o := append([]uint32(nil), recs...)
		o[lay.flat(0, x, y)*recWords+word] = v
		return o
	}
	at := func(x, y uint32, word int) uint32 { return recs[lay.flat(0, x, y)*recWords+word] }
	for _, c := range []struct {
		name string
		recs []uint32
		want string
	}{
		// Pixel (1,0) claims the lane of pixel (0,0): one index twice, and its quad
		// position no longer matches.
		{"duplicate lane", set(1, 0, wLane, at(0, 0, wLane)), "recorded twice"},
		// Pixel (0,1) moves to quad lane 1 of another quad slot.
		{"quad index", set(0, 1, wLane, at(0, 1, wLane)^4), "quad"},
		{"lane count", set(2, 2, wCount, 8), "lane count"},
		{"wrong position", set(3, 3, pPos, 0), "position"},
	} {
		o := map[string][]byte{"u0": bytesOf(c.recs), ColorTarget: out[ColorTarget]}
		rs := Check(k, o, 16)
		n, first := failed(rs)
		if n == 0 || !strings.Contains(first, c.want) || !strings.Contains(first, "layout") && c.want != "position" {
			t.Errorf("%s: %d failing, first %q", c.name, n, first)
		}
	}
	// Without a required size, waves of two sizes in one kernel are a problem.
	o16 := simCheck(t, k, SimLayout{WaveSize: 16}, false)
	if n, first := failed(o16); n > 0 {
		t.Fatal(first)
	}
	mixed := append([]uint32(nil), recs...)
	for y := uint32(0); y < 15; y++ {
		for x := uint32(0); x < 15; x++ {
			if at(x, y, wKey) == at(0, 0, wKey) {
				mixed[lay.flat(0, x, y)*recWords+wCount] = 32
			}
		}
	}
	if n, first := failed(Check(k, map[string][]byte{"u0": bytesOf(mixed), ColorTarget: out[ColorTarget]}, 0)); n == 0 || !strings.Contains(first, "other waves") {
		t.Errorf("two wave sizes with waveSize 0: %d failing, %q", n, first)
	}
	// A colour target that lost a pixel fails the last draw's case.
	col := append([]byte(nil), out[ColorTarget]...)
	col[0] ^= 1
	if n, _ := failed(Check(k, map[string][]byte{"u0": out["u0"], ColorTarget: col}, 16)); n == 0 {
		t.Error("a wrong colour pixel passed")
	}
	// Missing coverage: a covered pixel whose record was never written.
	lost := append([]uint32(nil), recs...)
	for w := 0; w < recWords; w++ {
		lost[lay.flat(0, 7, 7)*recWords+w] = unset
	}
	if n, first := failed(Check(k, map[string][]byte{"u0": bytesOf(lost), ColorTarget: out[ColorTarget]}, 16)); n == 0 || !strings.Contains(first, "coverage") {
		t.Errorf("a lost pixel: %d failing, %q", n, first)
	}
}

// TestComputeCheckWithoutRequiredSize: the compute checker takes the reported size
// when none is required, and rejects a kernel whose waves report different sizes.
func TestComputeCheckWithoutRequiredSize(t *testing.T) {
	k := fullMatrix[0]
	out, err := Simulate(k, SimLayout{WaveSize: 32})
	if err != nil {
		t.Fatal(err)
	}
	if n, first := failed(Check(k, out, 0)); n > 0 {
		t.Fatal(first)
	}
	w, _ := words(out["u0"])
	w[wCount] = 16 // one record of the first wave
	for i := 0; i < len(w)/recWords; i++ {
		if w[i*recWords+wKey] == w[wKey] {
			w[i*recWords+wCount] = 16
		}
	}
	if n, _ := failed(Check(k, map[string][]byte{"u0": bytesOf(w)}, 0)); n == 0 {
		t.Error("waves of 16 and 32 lanes in one kernel passed with waveSize 0")
	}
}
