package pass

import (
	"regexp"
	"slices"
	"testing"

	"waverig/devices"
	"waverig/harness/kernels"
	"waverig/harness/results"
)

func TestParseGenSeeds(t *testing.T) {
	for in, want := range map[string][]uint64{"": nil, "none": nil, "3": {3}, "2-4": {2, 3, 4}, "9, 1-2,2": {1, 2, 9}} {
		if got, err := ParseGenSeeds(in); err != nil || !slices.Equal(got, want) {
			t.Errorf("%q: %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"a", "4-2", "1,,2", "0-10000", "-1"} {
		if _, err := ParseGenSeeds(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestRunGenInProcess: an in-process pass (no child: the path of devices
// with size control) records each seed once after the matrix, checked at the
// device's size; a child resuming after a seed's key runs only the seeds
// after it and no kernel.
func TestRunGenInProcess(t *testing.T) {
	ds, err := devices.Enumerate()
	if err != nil || len(ds) == 0 {
		t.Skip("no Vulkan device")
	}
	cfg := Config{Filter: kernels.Filter{Ops: regexp.MustCompile(`^WaveActiveSum$`)}, Compilers: []string{Ours}, APIs: []string{Vulkan},
		Stages: []string{results.Compute}, NoExpectations: true, GenSeeds: []uint64{1, 2, 3}}
	run := func(resumeAfter string) (kernelRecs int, gens []string, st results.Stats) {
		rig, err := New(0, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer rig.Close()
		if resumeAfter != "" {
			rig.resumeAfter, rig.crashed = resumeAfter, map[string]bool{resumeAfter: true}
			rig.onBegin = func(string, []results.Record) {}
		}
		st, err = rig.Run(0, func(r results.Record) {
			switch {
			case r.Op == GenOp:
				if r.Status != results.Pass || r.WaveSize != rig.WaveSize() || r.Lanes == 0 {
					t.Errorf("%s: %s %q", r.Name(), r.Status, r.Reason)
				}
				gens = append(gens, r.Case)
			case r.Case != results.LayoutCase:
				if len(gens) > 0 {
					t.Errorf("%s after a generated program: the seeds run after the matrix", r.Name())
				}
				kernelRecs++
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		return kernelRecs, gens, st
	}
	n, gens, st := run("")
	if n == 0 || !slices.Equal(gens, []string{GenCase(1), GenCase(2), GenCase(3)}) {
		t.Fatalf("%d kernel records, seeds %v", n, gens)
	}
	if st.Cases != n+3 || st.Passed < 3 {
		t.Errorf("stats %+v: the seeds are not counted", st)
	}
	if n, gens, _ := run(genKey(1)); n != 0 || !slices.Equal(gens, []string{GenCase(2), GenCase(3)}) {
		t.Errorf("resumed after seed 1: %d kernel records, seeds %v", n, gens)
	}
}
