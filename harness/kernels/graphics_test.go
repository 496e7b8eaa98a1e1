package kernels

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"waverig/compiler/intrinsics"
)

var (
	pixelMatrix  = GraphicsMatrix(Pixel, Filter{})
	vertexMatrix = GraphicsMatrix(Vertex, Filter{})
)

func TestSeedCopyIsTheFixture(t *testing.T) {
	src, err := os.ReadFile("../../fixtures/Waves.hlsl")
	if err != nil {
		t.Fatal(err)
	}
	if string(src) != wavesHLSL {
		t.Fatal("testdata/seed/Waves.hlsl differs from fixtures/Waves.hlsl: run go generate ./harness/kernels")
	}
}

func TestGraphicsMatrixShape(t *testing.T) {
	compute := map[string]bool{}
	for _, k := range fullMatrix {
		for _, c := range k.Cases {
			compute[c.ID()] = true
		}
	}
	for _, m := range []struct {
		stage   Stage
		ks      []Kernel
		minK    int
		maxK    int
		minCase int
	}{{Pixel, pixelMatrix, 100, 250, 2000}, {Vertex, vertexMatrix, 40, 60, 1000}} { // pixel: 150 SM 6.0 kernels, 24 quad votes, 60 [WaveOpsIncludeHelperLanes]
		ids := map[string]bool{}
		perOp := map[string]int{}
		perShape := map[string]int{}
		for _, k := range m.ks {
			if k.Stage != m.stage || k.Draw == nil || k.Draw.Draws == 0 || k.Draw.VertexEntry == "" {
				t.Errorf("%s: stage %q draw %+v", k.Name, k.Stage, k.Draw)
			}
			if (m.stage == Pixel) != (k.Draw.PixelEntry != "") || k.Groups != [3]uint32{} {
				t.Errorf("%s: pixel entry %q, groups %v", k.Name, k.Draw.PixelEntry, k.Groups)
			}
			for _, c := range k.Cases {
				if ids[c.ID()] || compute[c.ID()] {
					t.Errorf("case %s twice or collides with compute", c.ID())
				}
				ids[c.ID()] = true
				perOp[c.OpName()]++
				perShape[c.Shape.Name]++
			}
		}
		for _, op := range intrinsics.Wave24 {
			if perOp[op.String()] == 0 {
				t.Errorf("%s: %s has no cases", m.stage, op)
			}
		}
		if len(m.ks) < m.minK || len(m.ks) > m.maxK || len(ids) < m.minCase {
			t.Errorf("%s: %d kernels, %d cases", m.stage, len(m.ks), len(ids))
		}
		t.Logf("%s: %d kernels, %d cases, per shape %v", m.stage, len(m.ks), len(ids), perShape)
	}
	if d := digest(GraphicsMatrix(Pixel, Filter{})); d != digest(pixelMatrix) {
		t.Error("pixel matrix differs between two calls")
	}
	ks := GraphicsMatrix(Pixel, Filter{Ops: regexp.MustCompile(`^PSSlope$`)})
	if len(ks) != len(SlopeShapes)*len(slopeLevels) || ks[0].Cases[0].ID() != "PSSlope/float/all/fb15x15" ||
		ks[1].Cases[0].ID() != "PSSlope/float/all/fb15x15.lod1" || !ks[0].Draw.FloatColor ||
		!strings.Contains(ks[0].HLSL, wavesHLSL) || len(ks[0].Textures) != 1 || len(ks[0].Samplers) != 1 {
		t.Errorf("PSSlope kernels: %d, first %+v", len(ks), ks[0].Cases)
	}
}

// simCheck simulates k and checks it, failing the test on any failing case; it returns
// the results.
func simCheck(t *testing.T, k Kernel, l SimLayout, required bool) []CaseResult {
	t.Helper()
	out, err := Simulate(k, l)
	if err != nil {
		t.Fatalf("%s: %v", k.Name, err)
	}
	ws := l.WaveSize
	if !required {
		ws = 0
	}
	return Check(k, out, ws)
}

// TestGraphicsKernelsPassOnSimulator: every pixel and vertex kernel passes on a
// correct simulated device at every wave size, with helpers in wave operations and
// without, linear and shuffled, with the size required and not; pixel cases with
// helper lanes and a wave operation say which helper set the device used.
func TestGraphicsKernelsPassOnSimulator(t *testing.T) {
	ks := append(append([]Kernel(nil), pixelMatrix...), vertexMatrix...)
	if testing.Short() {
		ks = append(GraphicsMatrix(Pixel, Filter{Shapes: []string{"diag16", "fb15x15"}}), vertexMatrix[:4]...)
	}
	decided := map[string]int{}
	for _, k := range ks {
		for i, size := range []uint32{4, 8, 16, 32, 64} {
			for _, helpers := range []bool{false, true} {
				if !helpers && IncludesHelperLanes(k.Cases[0]) {
					// A device without helpers is wrong for these (TestHelperLanesOnSimulator).
					continue
				}
				l := SimLayout{WaveSize: size, Seed: uint64(i) * 7, Helpers: helpers, MirrorY: size == 16 && helpers, Split: size == 8 || size == 32}
				for _, r := range simCheck(t, k, l, i%2 == 0) {
					if !r.Passed {
						t.Fatalf("%s size %d helpers %v: %s", k.Name, size, helpers, r)
					}
					if r.Lanes == 0 && r.Case.Pattern == All {
						t.Errorf("%s: compared nothing", r.Case.ID())
					}
					want := HelpersExcluded
					if helpers {
						want = HelpersIncluded
					}
					if r.Helpers != "" && r.Helpers != want {
						t.Errorf("%s size %d: helpers %q, simulated %s", r.Case.ID(), size, r.Helpers, want)
					}
					if r.Helpers != "" {
						decided[r.Case.OpName()]++
					}
				}
			}
		}
	}
	// The ops whose result helpers change must decide somewhere.
	for _, op := range []intrinsics.Op{intrinsics.WaveActiveSum, intrinsics.WaveActiveBallot, intrinsics.WavePrefixSum,
		intrinsics.WaveReadLaneFirst, intrinsics.WaveIsFirstLane, intrinsics.WaveActiveCountBits} {
		if decided[op.String()] == 0 {
			t.Errorf("%s never decided the helper set", op)
		}
	}
	for _, op := range []intrinsics.Op{intrinsics.WaveGetLaneCount, intrinsics.QuadReadAcrossX, intrinsics.QuadReadLaneAt} {
		if decided[op.String()] != 0 {
			t.Errorf("%s decided a helper set; its result does not depend on one", op)
		}
	}
}
