package kernels

import (
	"encoding/binary"
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// vertexKernels are the vertex kernels of the ops whose results a repeated
// vertex changes (a sum, a ballot, a count, a lane read, a prefix) on both shapes.
func vertexKernels(t *testing.T) []Kernel {
	t.Helper()
	ks := GraphicsMatrix(Vertex, Filter{Ops: regexp.MustCompile(`^(WaveActiveSum|WaveActiveBallot|WaveActiveCountBits|WaveReadLaneAt|WavePrefixSum|WaveActiveProduct|WaveReadLaneFirst)$`)})
	if len(ks) != 14 {
		t.Fatalf("%d vertex kernels", len(ks))
	}
	return ks
}

// TestVertexRepeatsOnSimulator: a device that pads its partial waves by repeating
// the last vertex (stores masked, as SwiftShader) and one that shades a mid-draw
// vertex twice (both storing, either last) pass, and each case says which
// repeats its waves held.
func TestVertexRepeatsOnSimulator(t *testing.T) {
	for _, k := range vertexKernels(t) {
		for _, size := range []uint32{4, 8} {
			for _, mode := range []string{RepeatPadLast, RepeatMidDraw} {
				for _, seed := range []uint64{0, 5} {
					l := SimLayout{WaveSize: size, Seed: seed, Repeats: mode}
					for _, r := range simCheck(t, k, l, seed == 0) {
						if !r.Passed {
							t.Fatalf("%s size %d %s seed %d: %s", k.Name, size, mode, seed, r)
						}
						threads := r.Case.Shape.Threads()
						partial := threads%int(size) != 0
						switch {
						case mode == RepeatPadLast && partial && seed == 0 && !strings.Contains(r.Repeats, "runs vertex 62 again"):
							t.Errorf("%s size %d: repeats %q, want the padded lanes of vertex 62", r.Case.ID(), size, r.Repeats)
						case mode == RepeatPadLast && partial && !strings.Contains(r.Repeats, " again"):
							t.Errorf("%s size %d seed %d: repeats %q, want the padded lanes", r.Case.ID(), size, seed, r.Repeats)
						case mode == RepeatPadLast && !partial && r.Repeats != "":
							t.Errorf("%s size %d: repeats %q in whole waves", r.Case.ID(), size, r.Repeats)
						case mode == RepeatMidDraw && !strings.Contains(r.Repeats, "ran 2 times"):
							t.Errorf("%s size %d seed %d: repeats %q, want a record two invocations wrote", r.Case.ID(), size, seed, r.Repeats)
						}
					}
				}
			}
			// No repeats: nothing to report.
			for _, r := range simCheck(t, k, SimLayout{WaveSize: size}, true) {
				if !r.Passed || r.Repeats != "" {
					t.Fatalf("%s size %d without repeats: %s (repeats %q)", k.Name, size, r, r.Repeats)
				}
			}
		}
	}
}

// TestVertexRepeatFaultsCaught: a wrong result that counts a repeat wrongly, a
// repeat the roster does not list, and a record that mixes two invocations'
// words all fail, at the lanes of the waves they touch.
func TestVertexRepeatFaultsCaught(t *testing.T) {
	sum := GraphicsMatrix(Vertex, Filter{Ops: regexp.MustCompile(`^WaveActiveSum$`), Shapes: []string{"vtx63"}})
	ballot := GraphicsMatrix(Vertex, Filter{Ops: regexp.MustCompile(`^WaveActiveBallot$`), Shapes: []string{"vtx63"}})
	if len(sum) != 1 || len(ballot) != 1 {
		t.Fatalf("%d sum, %d ballot kernels", len(sum), len(ballot))
	}
	const threads = 63
	for _, tc := range []struct {
		name string
		k    Kernel
		l    SimLayout
		// lane says whether a failing lane (its wave key's vertex and its lane)
		// is one the fault should touch; repeats is the case's Repeats.
		lane func(keyVertex, lane uint32, repeats string) bool
		want string
	}{
		{"a repeat counted as 0 in the sum", sum[0], SimLayout{WaveSize: 4, Repeats: RepeatPadLast, Fault: FaultRepeatZero},
			// The padded wave holds vertices 60, 61, 62 at lanes 0-2 and 62 again at 3.
			func(kv, lane uint32, _ string) bool { return kv == 60 && lane < 3 }, "lane 3 = vertex 62 again"},
		{"a repeat in the ballot that the roster does not list", ballot[0], SimLayout{WaveSize: 4, Repeats: RepeatPadLast, Fault: FaultRepeatUnlisted},
			func(kv, lane uint32, _ string) bool { return kv == 60 && lane < 3 }, ""},
		{"a record whose header is the original's and outputs the repeat's", sum[0], SimLayout{WaveSize: 4, Repeats: RepeatMidDraw, Fault: FaultRepeatMixed},
			// The repeat is a lane of the first wave (key vertex 0), which the
			// case's note names as one of the record's two writers.
			func(kv, lane uint32, repeats string) bool {
				return kv == 0 && lane != 0 && strings.Contains(repeats, fmt.Sprintf("lane %d, wave", lane))
			}, ""},
	} {
		failed := 0
		for _, r := range simCheck(t, tc.k, tc.l, true) {
			if r.Passed {
				continue
			}
			failed++
			if len(r.Failures) == 0 {
				t.Errorf("%s: %s fails with no failing lane: %s", tc.name, r.Case.ID(), r.Note)
			}
			for _, f := range r.Failures {
				if !tc.lane(f.WaveKey%threads, f.Lane, r.Repeats) {
					t.Errorf("%s: %s fails at wave %#x (vertex %d) lane %d (repeats %q)", tc.name, r.Case.ID(), f.WaveKey, f.WaveKey%threads, f.Lane, r.Repeats)
				}
				if !strings.Contains(f.Input, tc.want) {
					t.Errorf("%s: failing lane's input %q does not say %q", tc.name, f.Input, tc.want)
				}
			}
		}
		if failed == 0 {
			t.Errorf("%s: no case failed", tc.name)
		}
	}
}

// TestVertexRosterProblems: a record whose writer the roster does not list, a
// lane the roster puts at a record while another record claims it, and a full
// roster fail the case with a note that says so.
func TestVertexRosterProblems(t *testing.T) {
	k := GraphicsMatrix(Vertex, Filter{Ops: regexp.MustCompile(`^WaveActiveSum$`), Shapes: []string{"vtx63"}})[0]
	clean, err := Simulate(k, SimLayout{WaveSize: 4})
	if err != nil {
		t.Fatal(err)
	}
	n := len(clean["u0"]) / 4 / recWords
	for _, tc := range []struct {
		name  string
		plant func(ros []uint32)
		want  string
	}{
		{"writer not listed", func(ros []uint32) { ros[5*rosterSlots] = sighting(4, 3) }, "record 5 names wave 0x4 lane 1, which is none of"},
		{"lane claimed twice", func(ros []uint32) { ros[5*rosterSlots+1] = sighting(0, 2) }, "wave 0x0 lane 2 ran record 5, but record 2 claims that lane"},
		{"roster full", func(ros []uint32) { ros[n*rosterSlots] |= rosterFull }, "a vertex ran more than"},
		{"flat id out of range", func(ros []uint32) { ros[n*rosterSlots] |= rosterOutRange }, "not a record of this draw"},
	} {
		ros, err := words(clean[rosterRegister])
		if err != nil {
			t.Fatal(err)
		}
		tc.plant(ros)
		out := map[string][]byte{"u0": clean["u0"], rosterRegister: bytesOf(ros)}
		res := Check(k, out, 4)
		found := false
		for _, r := range res {
			if strings.Contains(r.Note, tc.want) {
				found = true
				if r.Passed {
					t.Errorf("%s: %s passed with %q", tc.name, r.Case.ID(), r.Note)
				}
			}
		}
		if !found {
			t.Errorf("%s: no case says %q; first: %s", tc.name, tc.want, res[0].Note)
		}
	}
	// A roster of the wrong size fails every case.
	out := map[string][]byte{"u0": clean["u0"], rosterRegister: binary.LittleEndian.AppendUint32(nil, 0)}
	for _, r := range Check(k, out, 4) {
		if r.Passed || !strings.Contains(r.Note, "roster came back with 1 words") {
			t.Fatalf("short roster: %s", r)
		}
	}
}
