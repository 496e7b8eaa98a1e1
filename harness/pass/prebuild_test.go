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
	if len(jobs.compute) == 0 || len(jobs.draws) == 0 {
		t.Fatalf("prebuild gathered %d compute and %d draw jobs for Vulkan; the selection has compute and pixel kernels", len(jobs.compute), len(jobs.draws))
	}
	if rig.gpu != nil {
		draws := 0
		for _, j := range jobs.webgpu {
			if j.Draw != nil {
				draws++
			}
		}
		if draws == 0 || draws == len(jobs.webgpu) {
			t.Fatalf("prebuild gathered %d WebGPU jobs, %d of them draws; want compute and draws", len(jobs.webgpu), draws)
		}
	} else {
		t.Logf("no WebGPU adapter (%s): Vulkan only", rig.gpuSkip)
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
