package pass

import (
	"regexp"
	"strings"
	"testing"

	"waverig/devices"
	"waverig/harness/kernels"
	"waverig/harness/results"
)

// TestSeedOnDevice runs the seed's CSSum and PSSlope on device 0 through
// Vulkan and wgpu-native (the textures and samplers of PSSlope bound on each):
// every case passes, PSSlope's at both levels, and the notes say what was
// checked.
func TestSeedOnDevice(t *testing.T) {
	if ds, err := devices.Enumerate(); err != nil || len(ds) == 0 {
		t.Skipf("no Vulkan device: %v", err)
	}
	for _, api := range []string{Vulkan, WebGPU} {
		rig, err := New(0, Config{Filter: kernels.Filter{Ops: regexp.MustCompile(`^(CSSum|PSSlope)$`)}, Compilers: []string{Ours},
			APIs: []string{api}, NoExpectations: true})
		if err != nil {
			t.Fatal(err)
		}
		passed := map[string]int{}
		levels := map[string]bool{}
		_, err = rig.Run(rig.WaveSize(), func(r results.Record) {
			switch {
			case r.Op == "layout":
			case r.Status == results.Skip && r.API != api:
			case r.Status != results.Pass:
				t.Errorf("%s %s: %s: %s", api, r.Case, r.Status, r.Reason)
			default:
				passed[r.Op]++
				if m := regexp.MustCompile(`level \d sampled`).FindString(r.Reason); m != "" {
					levels[m] = true
				}
				if r.Op == "CSSum" && !strings.Contains(r.Reason, "Σ Values") {
					t.Errorf("%s CSSum note %q", api, r.Reason)
				}
			}
		})
		rig.Close()
		t.Logf("%s: passed %v, %v", api, passed, levels)
		if err != nil {
			if api == WebGPU && strings.Contains(err.Error(), "WebGPU") {
				t.Logf("%s: %v", api, err)
				continue
			}
			t.Fatal(err)
		}
		if passed["CSSum"] != 1 || passed["PSSlope"] != 6 || !levels["level 0 sampled"] || !levels["level 1 sampled"] {
			t.Errorf("%s: passed %v, levels %v", api, passed, levels)
		}
	}
}
