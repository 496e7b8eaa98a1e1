package expect

import "testing"

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
	if len(For(sets, "NVIDIA H200 | NVIDIA | 580.159.04")) != 0 {
		t.Error("lavapipe entries must not apply to other drivers")
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
