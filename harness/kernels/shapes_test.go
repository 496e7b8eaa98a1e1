package kernels

import (
	"strings"
	"testing"
)

// shapeTypes counts the types of a family's list a shape's cases take.
func shapeTypes(sh Shape, types []Type, fam []string) int {
	n := 0
	for _, t := range types {
		if sh.takes(t, fam) {
			n++
		}
	}
	return n
}

// patternCases is the number of pattern cases per type on a shape: the fixed
// patterns, and random once per seed.
func patternCases(sh Shape) int {
	n := 0
	for _, p := range Patterns {
		n += len(sh.seeds(p))
	}
	return n
}

// TestShapesBuildAndGrid: every compute shape is valid, its kernels' grids stack
// the replicas (grid27's uses y and z), the flat id reads the group id in every
// dimension the grid uses, and the buffer holds every workgroup of every replica.
func TestShapesBuildAndGrid(t *testing.T) {
	names := map[string]bool{}
	for _, sh := range Shapes {
		if err := sh.validate(); err != nil {
			t.Fatal(err)
		}
		if names[sh.Name] || strings.ContainsAny(sh.Name, "/&|!,() ") {
			t.Errorf("shape name %q repeats or cannot be a case-ID component", sh.Name)
		}
		names[sh.Name] = true
		ks := Matrix(Filter{Shapes: []string{sh.Name}})
		if len(ks) == 0 {
			t.Fatalf("%s: no kernels", sh.Name)
		}
		for _, k := range ks {
			var n int
			for _, c := range k.Cases {
				if c.Shape.Name != sh.Name {
					t.Fatalf("%s: case %s", k.Name, c.ID())
				}
			}
			n = len(k.Buffers[0].Data) / (recWords * 4 * sh.Threads() * sh.GroupCount())
			if k.Groups != sh.Grid(n) || n < len(k.Cases) {
				t.Errorf("%s: grid %v for %d replicas of %v", k.Name, k.Groups, n, sh.Groups)
			}
			for d, dim := range []string{"gid.y", "gid.z"} {
				if uses := k.Groups[d+1] > 1; uses != strings.Contains(k.HLSL, dim) {
					t.Errorf("%s: grid %v, HLSL reads %s: %v", k.Name, k.Groups, dim, !uses)
				}
			}
		}
	}
	g := Matrix(Filter{Shapes: []string{"grid27"}})[0]
	if g.Groups[1] < 2 || g.Groups[2] < 2 || g.Cases[0].Shape.GroupCount() < 2 {
		t.Errorf("grid27: grid %v, %d workgroups per replica", g.Groups, g.Cases[0].Shape.GroupCount())
	}
	bad := Shape{Name: "bad", NumThreads: [3]int{8, 0, 1}, Groups: [3]int{1, 1, 1}}
	if _, err := build("bad", []Case{{Op: g.Cases[0].Op, Type: g.Cases[0].Type, Pattern: All, Shape: bad}}); err == nil {
		t.Error("a zero workgroup dimension builds")
	}
	big := Shape{Name: "big", NumThreads: [3]int{16, 16, 1}, Groups: [3]int{1, 1, 1}}
	if _, err := build("big", []Case{{Op: g.Cases[0].Op, Type: g.Cases[0].Type, Pattern: All, Shape: big}}); err == nil {
		t.Error("a 256-invocation workgroup builds")
	}
}

// TestShapesSimulate: every compute shape's kernels (the reduced shapes' scalar
// types) pass the checker on the simulated device at every wave size 4..128,
// linear and shuffled: no false failures from partial waves of one lane, 3-D
// workgroups or replicas over several workgroups.
func TestShapesSimulate(t *testing.T) {
	for _, sh := range Shapes {
		ks := Matrix(Filter{Shapes: []string{sh.Name}, Types: []string{"int", "float", "bool", "uint64_t", "int4"}})
		for _, size := range []uint32{4, 8, 16, 32, 64, 128} {
			for _, seed := range []uint64{0, 7} {
				simulateAndCheck(t, ks, SimLayout{WaveSize: size, Seed: seed})
			}
		}
	}
}

// TestWaveAcrossWorkgroups: on grid27 a wave whose lanes are in two workgroups of
// one replica is a layout failure.
func TestWaveAcrossWorkgroups(t *testing.T) {
	k := Matrix(Filter{Shapes: []string{"grid27"}, Types: []string{"uint"}, Patterns: []Pattern{All}})[0]
	out, err := Simulate(k, SimLayout{WaveSize: 4})
	if err != nil {
		t.Fatal(err)
	}
	w, _ := words(out["u0"])
	// Move invocation 27 (workgroup 1, lane 0 of its first wave) into the last
	// wave of workgroup 0 (invocations 24..26, lanes 0..2) as lane 3.
	key := w[24*recWords+wKey]
	w[27*recWords+wKey], w[27*recWords+wLane] = key, 3
	// Its own wave's key must still name a member: make invocation 28 the key.
	for i := 28; i < 31; i++ {
		w[i*recWords+wKey] = 28
	}
	rs := Check(k, map[string][]byte{"u0": bytesOf(w)}, 4)
	if rs[0].Passed || !strings.Contains(rs[0].Note, "spans workgroups") {
		t.Errorf("a wave across workgroups passes: %s", rs[0].Note)
	}
}
