package kernels

import (
	"encoding/binary"
	"math"
	"regexp"
	"strings"
	"testing"
)

// TestSeedSum: CSSum is in the compute matrix with the fixture's source as it
// is; a correct device passes at every wave size, and a total off by one, a
// stored instead of added total and a changed guard word each fail; two equal
// totals compare equal and two different ones differ.
func TestSeedSum(t *testing.T) {
	ks := Matrix(Filter{Ops: regexp.MustCompile(`^CSSum$`)})
	if len(ks) != 1 || ks[0].HLSL != wavesHLSL || ks[0].Entry != "CSSum" || ks[0].Groups != [3]uint32{sumGroups, 1, 1} {
		t.Fatalf("CSSum kernels: %+v", ks)
	}
	k := ks[0]
	if got := k.Cases[0].ID(); got != "CSSum/uint/all/grid5x64" {
		t.Errorf("case ID %q", got)
	}
	for _, size := range []uint32{4, 8, 16, 32, 64} {
		out, err := Simulate(k, SimLayout{WaveSize: size, Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		res := Check(k, out, size)
		if len(res) != 1 || !res[0].Passed || res[0].Lanes != totalWords {
			t.Errorf("size %d: %+v", size, res)
		}
	}
	good, _ := Simulate(k, SimLayout{WaveSize: 32})
	var sum uint32
	for _, v := range sumValues() {
		sum += v
	}
	if got := binary.LittleEndian.Uint32(good[sumTotalReg]); got != sumStart+sum || sum == 0 {
		t.Fatalf("simulated total %#x, want %#x", got, sumStart+sum)
	}
	plant := func(word int, v uint32) map[string][]byte {
		b := append([]byte(nil), good[sumTotalReg]...)
		binary.LittleEndian.PutUint32(b[4*word:], v)
		return map[string][]byte{sumTotalReg: b}
	}
	for name, out := range map[string]map[string][]byte{
		"off by one":  plant(0, sumStart+sum+1),
		"stored":      plant(0, sum),
		"guard":       plant(2, 0),
		"no Total":    {},
		"short Total": {sumTotalReg: good[sumTotalReg][:8]},
	} {
		if res := Check(k, out, 32); res[0].Passed {
			t.Errorf("%s: passed: %s", name, res[0].Note)
		}
	}
	if p, err := Compare(k, "a", good, "b", good); err != nil || p[0].Differing != 0 || p[0].Compared != totalWords {
		t.Errorf("equal totals: %+v, %v", p, err)
	}
	if p, err := Compare(k, "a", good, "b", plant(0, 1)); err != nil || p[0].Differing != 1 {
		t.Errorf("different totals: %+v, %v", p, err)
	}
}

// TestHeightTexture: the height map's texels are what the model reads, each
// level's in a range of its own, and the sampler describes itself validly.
func TestHeightTexture(t *testing.T) {
	tex := heightTexture("t2")
	if err := tex.Check(); err != nil {
		t.Fatal(err)
	}
	lo := float32(-1)
	for l := 0; l < heightLevels; l++ {
		w, h := tex.LevelSize(l)
		if w != heightSize>>l || h != heightSize>>l {
			t.Errorf("level %d is %dx%d", l, w, h)
		}
		min, max := tex.Texel(l, 0, 0), tex.Texel(l, w-1, h-1)
		if min <= lo || min != heightBase[l] || max != heightBase[l]+heightX[l]*float32(w-1)+heightY[l]*float32(h-1) {
			t.Errorf("level %d holds %g..%g after %g", l, min, max, lo)
		}
		lo = max
	}
	if err := linearSampler("s3").Check(); err != nil {
		t.Error(err)
	}
	if err := (Sampler{Register: "s0", Mag: "cubic", Min: Linear, Mip: Linear, Address: ClampToEdge}).Check(); err == nil {
		t.Error("a cubic filter passed")
	}
	bad := tex
	bad.Levels = bad.Levels[:1:1]
	bad.Levels = append(bad.Levels, []byte{1, 2})
	if err := bad.Check(); err == nil {
		t.Error("a short level passed")
	}
}

// TestSeedSlope: every PSSlope kernel passes on a simulated device drawing it
// either way up, and says which level it sampled; a device that sampled
// another level, returned 0 for a helper lane's sample, or ignored the helper
// lanes' samples altogether fails.
func TestSeedSlope(t *testing.T) {
	ks := GraphicsMatrix(Pixel, Filter{Ops: regexp.MustCompile(`^PSSlope$`)})
	if len(ks) != len(SlopeShapes)*len(slopeLevels) {
		t.Fatalf("%d PSSlope kernels", len(ks))
	}
	for _, k := range ks {
		level := slopeLevel(k.Cases[0])
		if !strings.Contains(k.HLSL, "Texture2D<float> Height : register(t2)") || k.Textures[0].Register != "t2" || k.Samplers[0].Register != "s3" {
			t.Errorf("%s: not the fixture's resources", k.Name)
		}
		for _, mirror := range []bool{false, true} {
			out, err := Simulate(k, SimLayout{WaveSize: 16, MirrorY: mirror})
			if err != nil {
				t.Fatal(err)
			}
			res := Check(k, out, 16)
			if !res[0].Passed || !strings.Contains(res[0].Note, "level "+string(rune('0'+level))+" sampled") {
				t.Errorf("%s mirrored %v: %+v", k.Name, mirror, res[0])
			}
			if mirror != strings.Contains(res[0].Note, "mirrored") {
				t.Errorf("%s mirrored %v: note %q", k.Name, mirror, res[0].Note)
			}
		}
		sc := *k.Cases[0].Shape.Scene
		cov := sc.Rasterize()
		w := sc.Width
		covered := func(x, y uint32) bool { return x < w && y < sc.Height && cov[y*w+x] }
		// pixels whose quad neighbour across x is a helper lane
		helperNeighbours := 0
		for y := uint32(0); y < sc.Height; y++ {
			for x := uint32(0); x < w; x++ {
				if covered(x, y) && !covered(x^1, y) {
					helperNeighbours++
				}
			}
		}
		if helperNeighbours == 0 {
			t.Errorf("%s: no pixel has a helper neighbour", k.Name)
		}
		plants := map[string]func(x, y uint32) [4]float64{
			"other level": func(x, y uint32) [4]float64 {
				want, _ := slopePixel(k.Textures[0], 1-level, x, y, false, sc.Height)
				return want
			},
			"helper sample 0": func(x, y uint32) [4]float64 {
				want, _ := slopePixel(k.Textures[0], level, x, y, false, sc.Height)
				if !covered(x^1, y) {
					want[0] = want[2]
				}
				return want
			},
			"helper reads its neighbour": func(x, y uint32) [4]float64 {
				want, _ := slopePixel(k.Textures[0], level, x, y, false, sc.Height)
				if !covered(x, y^1) {
					want[1] = 0
				}
				return want
			},
		}
		for name, f := range plants {
			color := make([]byte, sc.Width*sc.Height*16)
			for y := uint32(0); y < sc.Height; y++ {
				for x := uint32(0); x < w; x++ {
					if !covered(x, y) {
						continue
					}
					for c, v := range f(x, y) {
						binary.LittleEndian.PutUint32(color[(int(y*w+x)*4+c)*4:], math.Float32bits(float32(v)))
					}
				}
			}
			if res := Check(k, map[string][]byte{ColorTarget: color}, 16); res[0].Passed {
				t.Errorf("%s: %s passed: %s", k.Name, name, res[0].Note)
			}
		}
	}
}
