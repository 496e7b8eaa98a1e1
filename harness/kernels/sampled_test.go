package kernels

import (
	"encoding/binary"
	"math"
	"regexp"
	"testing"
)

// TestSampledPixels: every sampled kernel passes on a simulated device
// drawing it either way up; a device that read the wrong quad lane, sampled
// at its own coordinate instead of lane 0's, took lane 0's coordinate through
// the variant's level (non-zero derivatives), or lost a helper lane's sample
// or coordinate fails. The scenes give each planted fault pixels to show on.
func TestSampledPixels(t *testing.T) {
	ks := GraphicsMatrix(Pixel, Filter{Ops: regexp.MustCompile(`^PSSampled$`)})
	if len(ks) != len(SlopeShapes)*len(slopeLevels) {
		t.Fatalf("%d PSSampled kernels, want %d", len(ks), len(SlopeShapes)*len(slopeLevels))
	}
	helperLane0 := 0 // kernels with a quad whose lane 0 is a helper (thin has them)
	for _, k := range ks {
		for _, mirror := range []bool{false, true} {
			out, err := Simulate(k, SimLayout{WaveSize: 16, MirrorY: mirror})
			if err != nil {
				t.Fatal(err)
			}
			if res := Check(k, out, 16); !res[0].Passed {
				t.Errorf("%s mirrored %v: %+v", k.Name, mirror, res[0])
			}
		}
		sc := *k.Cases[0].Shape.Scene
		cov := sc.Rasterize()
		w := sc.Width
		covered := func(x, y uint32) bool { return x < w && y < sc.Height && cov[y*w+x] }
		tex, level := k.Textures[0], slopeLevel(k.Cases[0])
		model := func(x, y uint32) [4]float64 {
			want, _ := sampledPixel(tex, level, x, y, false, sc.Height)
			return want
		}
		h := func(l int, x, y uint32) float64 {
			return float64(tex.Texel(l, slopeTexel(x, false, 0), slopeTexel(y, false, sc.Height)))
		}
		plants := map[string]func(x, y uint32) [4]float64{
			"across x for the diagonal": func(x, y uint32) [4]float64 {
				m := model(x, y)
				m[0] = h(level, x^1, y)
				return m
			},
			"own lane for lane 1": func(x, y uint32) [4]float64 {
				m := model(x, y)
				m[1] = h(level, x, y)
				return m
			},
			"sampled at its own coordinate": func(x, y uint32) [4]float64 {
				m := model(x, y)
				m[2] = h(level, x, y)
				return m
			},
			"lane 0's coordinate at the variant's level": func(x, y uint32) [4]float64 {
				m := model(x, y)
				m[2] = h(level, x&^1, y&^1)
				return m
			},
			"a helper lane 0's coordinate lost": func(x, y uint32) [4]float64 {
				m := model(x, y)
				if !covered(x&^1, y&^1) {
					m[2] = 0
				}
				return m
			},
			"a helper lane 3's sample lost": func(x, y uint32) [4]float64 {
				m := model(x, y)
				if !covered(x|1, y|1) {
					m[3] = 0
				}
				return m
			},
		}
		for name, f := range plants {
			color := make([]byte, sc.Width*sc.Height*16)
			differs := false
			for y := uint32(0); y < sc.Height; y++ {
				for x := uint32(0); x < w; x++ {
					if !covered(x, y) {
						continue
					}
					v, m := f(x, y), model(x, y)
					differs = differs || v != m
					for c := range v {
						binary.LittleEndian.PutUint32(color[(int(y*w+x)*4+c)*4:], math.Float32bits(float32(v[c])))
					}
				}
			}
			if name == "a helper lane 0's coordinate lost" && differs {
				helperLane0++
			}
			if !differs {
				if level == 0 && name == "lane 0's coordinate at the variant's level" {
					continue // at level 0 that is the right sample
				}
				if name == "a helper lane 0's coordinate lost" {
					continue // a scene whose lane 0 is always covered; counted below
				}
				t.Errorf("%s: %q changes no pixel: the plant proves nothing here", k.Name, name)
				continue
			}
			if res := Check(k, map[string][]byte{ColorTarget: color}, 16); res[0].Passed {
				t.Errorf("%s: %s passed: %s", k.Name, name, res[0].Note)
			}
		}
	}
	if helperLane0 == 0 {
		t.Error("no scene has a quad whose lane 0 is a helper: z's helper case is untested")
	}
}
