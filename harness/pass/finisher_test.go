package pass

import (
	"encoding/json"
	"regexp"
	"testing"

	"waverig/devices"
	"waverig/harness/kernels"
	"waverig/harness/results"
)

// An in-process run checks kernels while later ones are dispatched (the
// asynchronous finisher); a child checks each kernel before announcing the
// next. Both must give the same records, in the same order, and the same
// counts: the order of results.jsonl and the statistics do not depend on how
// the checks were scheduled.
func TestFinisherOrderAndCountsDoNotDependOnScheduling(t *testing.T) {
	ds, err := devices.Enumerate()
	if err != nil || len(ds) == 0 {
		t.Skip("no Vulkan device")
	}
	cfg := Config{Filter: kernels.Filter{Ops: regexp.MustCompile(`^(WaveActiveSum|WavePrefixSum|QuadReadAcrossX|WaveActiveBallot)$`)},
		Compilers: []string{Ours}, APIs: []string{Vulkan}, NoExpectations: true}
	run := func(child bool) ([]string, results.Stats) {
		rig, err := New(0, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer rig.Close()
		if child {
			rig.onBegin = func(string, []results.Record) {} // makes the finisher synchronous
		}
		var lines []string
		st, err := rig.Run(0, func(r results.Record) {
			r.Duration = 0 // measured: differs between any two runs
			b, _ := json.Marshal(r)
			lines = append(lines, string(b))
		})
		if err != nil {
			t.Fatal(err)
		}
		st.Seconds, st.Pipelines = 0, 0
		return lines, st
	}
	async, stA := run(false)
	sync, stS := run(true)
	if len(async) == 0 || len(async) != len(sync) {
		t.Fatalf("%d records in process, %d as a child", len(async), len(sync))
	}
	for i := range async {
		if async[i] != sync[i] {
			t.Fatalf("record %d differs:\nin process: %s\nas a child: %s", i, async[i], sync[i])
		}
	}
	if stA != stS {
		t.Fatalf("stats differ: in process %+v, as a child %+v", stA, stS)
	}
	if stA.Cases == 0 || stA.Passed == 0 {
		t.Fatalf("nothing ran: %+v", stA)
	}
}
