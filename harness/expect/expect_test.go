package expect

import (
	"testing"

	"waverig/harness/results"
)

func TestBuiltinParsesAndMatchesLavapipe(t *testing.T) {
	sets, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	es := For(sets, "llvmpipe (LLVM 15.0.6, 128 bits) | llvmpipe | Mesa 22.3.6 (LLVM 15.0.6)")
	if len(es) == 0 {
		t.Fatal("no entries for lavapipe 22.3.6")
	}
	if Find(es, Crash, "WaveReadLaneFirst", "double2", "ours", 4) == nil {
		t.Error("double2 at 4 lanes should be a known crash")
	}
	if Find(es, Crash, "WaveReadLaneFirst", "double2", "ours", 8) != nil {
		t.Error("double2 at 8 lanes is not a known crash")
	}
	if Find(es, Crash, "WaveReadLaneFirst", "half2", "ours", 8) != nil {
		t.Error("half2 compiled by waverig does not crash")
	}
	if Find(es, Crash, "WaveReadLaneFirst", "half", "glslang", 16) == nil {
		t.Error("half with glslang crashes at 16 lanes too")
	}
	for _, e := range For(sets, "NVIDIA H200 | NVIDIA | 580.159.04") {
		if e.Kind == Crash || e.Compiler != "glslang" {
			t.Errorf("%s applies to the H200: only glslang's own wrong results may", e.Where)
		}
	}
	if Find(es, Fail, "WavePrefixProduct", "uint", "glslang", 8) == nil || Find(es, Fail, "WaveActiveAllEqual", "uint", "glslang", 8) != nil ||
		Find(es, Fail, "WaveActiveAllEqual", "uint3", "glslang", 8) == nil {
		t.Error("glslang's known wrong results are not matched as written")
	}
	for _, e := range es {
		if e.Reason == "" {
			t.Errorf("%s: entry without a reason", e.Where)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, bad := range []string{
		"crash op=X",                  // no driver line
		"driver: x\nboom op=X",        // unknown kind
		"driver: x\ncrash op",         // not key=value
		"driver: x\ncrash size=four",  // bad size
		"driver: x\ncrash colour=red", // unknown field
		"driver: (\ncrash op=X",       // bad regexp
		"driver: x\ncrash type=[",     // bad glob
	} {
		if _, err := Parse("t.txt", bad); err == nil {
			t.Errorf("no error for %q", bad)
		}
	}
}

func TestStaleFailEntries(t *testing.T) {
	s, err := Parse("t.txt", "driver: .*\n# wrong\nfail op=A\n# also wrong\nfail op=B\nfail op=C\n")
	if err != nil {
		t.Fatal(err)
	}
	if s.Entries[2].Reason != "also wrong" {
		t.Errorf("consecutive entries share their comment block: %q", s.Entries[2].Reason)
	}
	recs := []results.Record{
		{Case: "a1", Op: "A", Status: results.Fail}, {Case: "a2", Op: "A", Status: results.Pass},
		{Case: "b1", Op: "B", Status: results.Pass},
		{Case: "c1", Op: "C", Status: results.Skip},
	}
	stale := Stale(s.Entries, recs)
	if len(stale) != 1 || stale[0].Op != "B" {
		t.Fatalf("stale: %+v (A still fails somewhere, C never ran)", stale)
	}
}
