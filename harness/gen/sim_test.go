package gen

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"waverig/harness/casefile"
)

func konst(k uint32) Expr { return Expr{Kind: EConst, K: k} }

// A hand-written program: for (i < lane % 3) { if (lane < 2) continue; ballot(lane odd) }.
func handProgram() *Program {
	ballot := &Wave{Site: 2, Op: OpBallot, Cond: Cond{Op: Eq, A: Expr{Kind: EAnd, A: &Expr{Kind: ELane}, K: 1}, B: konst(1)}}
	loop := &Loop{ID: 1, Bound: Expr{Kind: EMod, A: &Expr{Kind: ELane}, K: 3}, Body: []Stmt{
		&If{Cond: Cond{Op: Lt, A: Expr{Kind: ELane}, B: konst(2)}, Then: []Stmt{&Continue{}}},
		ballot,
	}}
	sum := &Wave{Site: 3, Op: OpPrefixSum, Cond: Cond{Op: Ge, A: Expr{Kind: ELane}, B: konst(0)}}
	p := &Program{Threads: 8, Groups: 1, Input: make([]uint32, 8), Main: []Stmt{loop, &If{Cond: Cond{Op: Eq, A: Expr{Kind: ELane}, B: konst(7)}, Then: []Stmt{&Return{}}}, sum}}
	return p
}

func TestSimulateHand(t *testing.T) {
	p := handProgram()
	// Lane 5: lane % 3 = 2 iterations, both past the continue.
	ev := p.Simulate(LaneInput{Lane: 5})
	want := []Event{{Site: 2, Instance: "l1.0/s2", Cond: true}, {Site: 2, Instance: "l1.1/s2", Cond: true}, {Site: 3, Instance: "s3", Cond: true}}
	if !reflect.DeepEqual(ev, want) {
		t.Fatalf("lane 5: %+v, want %+v", ev, want)
	}
	// Lane 1: one iteration, continued before the ballot; lane 7 returns early.
	if ev := p.Simulate(LaneInput{Lane: 1}); len(ev) != 1 || ev[0].Site != 3 {
		t.Fatalf("lane 1: %+v", ev)
	}
	if ev := p.Simulate(LaneInput{Lane: 7}); len(ev) != 1 || ev[0].Instance != "l1.0/s2" {
		t.Fatalf("lane 7: %+v", ev)
	}
	// A maximal device at size 8: iteration 0's ballot has lanes 2,4,5,7
	// (lane%3 ≥ 1, lane ≥ 2), odd ones 5 and 7: 0xa0. The prefix sum of lane
	// 6 over lanes 0-6 (7 returned) is 0x3f.
	words := Emulated{Size: 8}.Run(p)
	rec := func(flat, k int) (uint32, uint32) {
		b := flat*RecWords + hdr + 3*k
		return words[b+1], words[b+2]
	}
	if lo, _ := rec(5, 0); lo != 0xa0 {
		t.Errorf("ballot of lane 5, iteration 0: %#x, want 0xa0", lo)
	}
	if lo, _ := rec(5, 1); lo != 0x20 { // iteration 1: lanes 2 and 5, odd: 5
		t.Errorf("ballot of lane 5, iteration 1: %#x, want 0x20", lo)
	}
	if lo, _ := rec(6, 0); lo != 0x3f {
		t.Errorf("prefix sum of lane 6: %#x, want 0x3f", lo)
	}
	if f := p.Check(words, Exact); len(f) != 0 {
		t.Fatalf("exact: %v", f)
	}
	// A ballot that names a lane of the other iteration fails both contracts;
	// one that leaves another lane out fails only the exact one.
	b := 5*RecWords + hdr + 1
	words[b] = 0xa0 | 1<<2 // lane 2 was there, but its condition is false
	if len(p.Check(words, Subset)) == 0 {
		t.Error("a ballot bit of a lane whose condition is false passed the subset contract")
	}
	words[b] = 0x20 // lane 7 left out: another group
	if len(p.Check(words, Subset)) != 0 || len(p.Check(words, Exact)) == 0 {
		t.Error("a ballot without lane 7: want a subset pass and an exact failure")
	}
	words[b] = 0x80 // lane 5 itself missing
	if len(p.Check(words, Subset)) == 0 {
		t.Error("a ballot without its own lane passed")
	}
}

// TestCountAndSites: a lane that logs one event too many, or a wrong site, fails.
func TestCountAndSites(t *testing.T) {
	p := handProgram()
	words := Emulated{Size: 4}.Run(p)
	words[3*RecWords+wEvents]++
	if f := p.Check(words, Subset); len(f) == 0 || !strings.Contains(f[0].Msg, "events") {
		t.Errorf("count: %v", f)
	}
	words = Emulated{Size: 4}.Run(p)
	words[5*RecWords+hdr] = 99
	if f := p.Check(words, Subset); len(f) == 0 || !strings.Contains(f[0].Msg, "site") {
		t.Errorf("site: %v", f)
	}
	words = Emulated{Size: 4}.Run(p)
	words[6*RecWords+wKey] = 5
	if f := p.Check(words, Subset); len(f) == 0 || !strings.Contains(f[0].Msg, "layout") {
		t.Errorf("layout: %v", f)
	}
}

// TestSplitIsNotExact: the exact contract tells a splitting device from a
// maximal one (else it would check nothing more than the subset one).
func TestSplitIsNotExact(t *testing.T) {
	caught := 0
	for seed := uint64(0); seed < 40; seed++ {
		p := Generate(seed)
		if len(p.Check(Emulated{Size: 16, Split: RandomSplit(seed)}.Run(p), Exact)) > 0 {
			caught++
		}
	}
	if caught < 20 {
		t.Fatalf("the exact contract caught a splitting device in %d of 40 programs", caught)
	}
}

// TestPlantedBug: an inclusive WavePrefixSum (a classic driver bug) is caught
// within a few seeds at every size and shrinks to a small repro.
func TestPlantedBug(t *testing.T) {
	for _, size := range []uint32{4, 8, 16} {
		dev := Emulated{Size: size, Split: RandomSplit(7), Bug: func(op Op, self member, lo, hi uint32) (uint32, uint32) {
			if op == OpPrefixSum && self.cond {
				b := bit(self.lane)
				return lo | uint32(b), hi | uint32(b>>32)
			}
			return lo, hi
		}}
		fails := func(p *Program) bool { return len(p.Check(dev.Run(p), Subset)) > 0 }
		var p *Program
		for seed := uint64(0); seed < 200 && p == nil; seed++ {
			if q := Generate(seed); fails(q) {
				p = q
			}
		}
		if p == nil {
			t.Fatalf("size %d: the planted bug was not caught in 200 programs", size)
		}
		s, tries := Shrink(p, fails, 5000, time.Now().Add(time.Minute))
		if !fails(s) {
			t.Fatalf("size %d: the shrunk program passes", size)
		}
		if testing.Verbose() {
			t.Logf("size %d: %d → %d statements, %d tries:\n%s", size, p.Size(), s.Size(), tries, s.HLSL())
		}
		if s.Size() > 3 {
			t.Errorf("size %d: shrunk from %d to %d statements (%d tries), want ≤ 3:\n%s", size, p.Size(), s.Size(), tries, s.HLSL())
		}
		if !strings.Contains(s.HLSL(), "WavePrefixSum") {
			t.Errorf("size %d: the shrunk program lost the prefix sum:\n%s", size, s.HLSL())
		}
		if _, err := Compile(s.HLSL()); err != nil {
			t.Errorf("size %d: the shrunk program does not compile: %v", size, err)
		}
		// The repro directory.
		fl := &Failed{Seed: p.Seed, Original: p, Shrunk: s, Failures: s.Check(dev.Run(s), Subset), WaveSize: size, Device: "emulated", OriginalSize: p.Size()}
		dir := t.TempDir()
		if err := fl.WriteRepro(dir); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"program.hlsl", "original.hlsl", "README.md", "case.json"} {
			if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
				t.Error(err)
			}
		}
		// case.json is exec's format: it loads, and the words the program
		// failed on are its expectations.
		c, err := casefile.Load(filepath.Join(dir, "case.json"))
		if err != nil {
			t.Fatal(err)
		}
		if b := c.Buffers[0]; c.Shader != "program.hlsl" || c.SubgroupSize != size || len(b.Record) != RecWords || b.Size() != 4*RecWords*s.Lanes() {
			t.Errorf("size %d: case %+v", size, c)
		}
	}
}
