package pass

import (
	"regexp"
	"testing"

	"waverig/devices"
	"waverig/harness/kernels"
	"waverig/harness/results"
)

// TestPrebuildCoversTheLoop: the prebuild gathers Vulkan compute, Vulkan
// draw and WebGPU jobs as the serial loop builds them, so after it the loop
// of Run creates no pipeline at all (every one is a cache hit), and what the
// prebuild built is what PipelinesCreated counted.
func TestPrebuildCoversTheLoop(t *testing.T) {
	ds, err := devices.Enumerate()
	if err != nil || len(ds) == 0 {
		t.Skip("no Vulkan device")
	}
	cfg := Config{Filter: kernels.Filter{Ops: regexp.MustCompile(`^(WaveActiveSum|QuadReadAcrossX)$`)},
		APIs: []string{Vulkan, WebGPU}, NoExpectations: true}
	rig, err := New(0, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer rig.Close()
	size := rig.dev.SubgroupSize
	layouts := map[string]results.Record{}
	for _, api := range cfg.apis() {
		layouts[api] = rig.checkLayout(api, size)
	}
	targets := rig.targets()
	matrix := rig.matrix(size)
	rig.precompile(matrix, targets)

	jobs := rig.prebuildJobs(matrix, targets, size, layouts)
	if vk := jobs[Vulkan]; vk == nil || len(vk.compute) == 0 || len(vk.draws) == 0 {
		t.Fatalf("prebuild gathered %+v for Vulkan; the selection has compute and pixel kernels", vk)
	}
	if rig.gpu != nil {
		if wg := jobs[WebGPU]; wg == nil || len(wg.compute) == 0 || len(wg.draws) == 0 {
			t.Fatalf("prebuild gathered %+v for WebGPU; want compute and draws", wg)
		}
	} else {
		t.Logf("no WebGPU adapter (%s): Vulkan only", rig.skips[WebGPU])
	}

	before := rig.Pipelines()
	built := rig.prebuild(matrix, targets, size, layouts)
	if built == 0 || rig.Pipelines()-before != built {
		t.Fatalf("prebuild built %d pipelines, PipelinesCreated grew by %d", built, rig.Pipelines()-before)
	}
	// Run's own prebuild now finds everything cached, and so does its loop.
	before = rig.Pipelines()
	ran := 0
	if _, err := rig.Run(size, func(r results.Record) {
		if r.Case != results.LayoutCase && r.Status != results.Skip {
			ran++
		}
	}); err != nil {
		t.Fatal(err)
	}
	if ran == 0 {
		t.Fatal("Run ran no case")
	}
	if n := rig.Pipelines() - before; n != 0 {
		t.Fatalf("the loop created %d pipelines after the prebuild, want 0", n)
	}
}
