package pass

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"waverig/devices"
	"waverig/harness/kernels"
	"waverig/harness/plan"
	"waverig/harness/results"
)

// fakeLavapipe is a device as devices.Enumerate reports lavapipe at 256 bits.
func fakeLavapipe() devices.Device {
	d := devices.Device{Name: "llvmpipe (LLVM 15.0.6, 256 bits)", SubgroupSize: 8}
	d.SizeControl = devices.SizeControl{Supported: true, MinSubgroupSize: 8, MaxSubgroupSize: 8, RequiredSubgroupSizeStages: devices.StageCompute}
	return d
}

// fakeSizeControl is a device with size control over 16..64, default 32.
func fakeSizeControl() devices.Device {
	d := devices.Device{Name: "Some GPU", SubgroupSize: 32, Index: 1}
	d.SizeControl = devices.SizeControl{Supported: true, MinSubgroupSize: 16, MaxSubgroupSize: 64, RequiredSubgroupSizeStages: devices.StageCompute}
	return d
}

// TestPlanCases checks the listing's decisions without a device: every case of
// every kernel on every target of the pass; WebGPU and draw kernels only at
// the device's own size (every lavapipe size is its own); [WaveSize] kernels
// once, at the size they get (or skipped at the device's own); the shards of a
// plan partition it.
func TestPlanCases(t *testing.T) {
	f := kernels.Filter{Ops: regexp.MustCompile(`^(WaveActiveSum|WaveSize8|WaveSize4-64-16)$`)}
	cfg := Config{Filter: f, Compilers: []string{Ours, Glslang}, APIs: []string{Vulkan, WebGPU}}
	count := func(cs []plan.PlannedCase, keep func(plan.PlannedCase) bool) int {
		n := 0
		for _, c := range cs {
			if keep(c) {
				n++
			}
		}
		return n
	}
	// lavapipe: sizes 4 and 8 are two children, each with its own size.
	lp := PlanCases(plan.Make(fakeLavapipe(), []uint32{4, 8}), cfg)
	for _, size := range []uint32{4, 8} {
		if count(lp, func(c plan.PlannedCase) bool {
			return c.WaveSize == size && c.API == WebGPU && c.Stage == results.Pixel
		}) == 0 {
			t.Errorf("lavapipe size %d: no WebGPU pixel cases", size)
		}
	}
	// WaveSize8 runs in the child of size 8; in the child of size 4 it has no
	// legal size and is reported (skipped) there too. WaveSize4-64-16's range
	// holds each child's one size: both run it.
	for _, size := range []uint32{4, 8} {
		for _, op := range []string{"WaveSize8/", "WaveSize4-64-16/"} {
			if count(lp, func(c plan.PlannedCase) bool {
				return strings.HasPrefix(c.Case, op) && c.WaveSize == size && c.API == Vulkan
			}) == 0 {
				t.Errorf("%s not listed at size %d", op, size)
			}
		}
	}
	// Size control: 16, 32, 64 in-process; WebGPU and draws at 32 only.
	sc := PlanCases(plan.Make(fakeSizeControl(), nil), cfg)
	if n := count(sc, func(c plan.PlannedCase) bool {
		return (c.API == WebGPU || c.Stage != results.Compute) && c.WaveSize != 32
	}); n != 0 {
		t.Errorf("%d WebGPU or draw cases outside the device's own size", n)
	}
	if count(sc, func(c plan.PlannedCase) bool { return c.WaveSize == 64 && c.API == Vulkan && c.Compiler == Glslang }) == 0 {
		t.Error("no glslang cases at 64")
	}
	// WaveSize4-64-16 prefers 16: listed there and nowhere else.
	for _, c := range sc {
		if strings.HasPrefix(c.Case, "WaveSize4-64-16/") && c.WaveSize != 16 {
			t.Fatalf("%s listed at %d", c.Name(), c.WaveSize)
		}
		if c.Device != 1 {
			t.Fatalf("device index %d, want 1", c.Device)
		}
	}
	// Shards partition the plan.
	whole := plan.CaseNames(sc)
	var parts []string
	for k := 1; k <= 3; k++ {
		c := cfg
		c.Shard = plan.Shard{K: k, N: 3}
		parts = append(parts, plan.CaseNames(PlanCases(plan.Make(fakeSizeControl(), nil), c))...)
	}
	slices.Sort(parts)
	if !slices.Equal(parts, whole) {
		t.Errorf("3 shards list %d names, the whole plan %d", len(parts), len(whole))
	}
}
