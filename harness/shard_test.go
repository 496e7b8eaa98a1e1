package harness

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"waverig/devices"
	"waverig/harness/kernels"
	"waverig/harness/results"
)

func TestParseShard(t *testing.T) {
	for in, want := range map[string]Shard{"": {}, "1/1": {1, 1}, "2/4": {2, 4}, " 3 / 3 ": {3, 3}} {
		got, err := ParseShard(in)
		if err != nil || got != want {
			t.Errorf("ParseShard(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"0/2", "3/2", "1/0", "-1/2", "2", "a/b", "1/2/3", "/"} {
		if s, err := ParseShard(in); err == nil {
			t.Errorf("ParseShard(%q) = %v, want an error", in, s)
		}
	}
	if (Shard{}).String() != "" || (Shard{2, 5}).String() != "2/5" || !(Shard{1, 1}).Whole() || (Shard{1, 2}).Whole() {
		t.Error("String/Whole")
	}
}

// TestShardRuleIsStable pins the rule: FNV-1a (32 bits) of the kernel name,
// mod N, plus one. A change here reshuffles every CI system's shards (and their
// per-shard baselines), so it must be deliberate. The hashes are FNV-1a's
// published test vectors.
func TestShardRuleIsStable(t *testing.T) {
	for _, c := range []struct {
		name string
		hash uint32
	}{{"a", 0xe40c292c}, {"foobar", 0xbf9cf968}} {
		for _, n := range []int{1, 2, 3, 7, 64} {
			if got, want := ShardOf(c.name, n), int(c.hash%uint32(n))+1; got != want {
				t.Errorf("ShardOf(%q, %d) = %d, want %d", c.name, n, got, want)
			}
		}
	}
	if ShardOf("WaveActiveSum_uint_whole", 7) != 6 || ShardOf("WaveActiveSum_uint_whole", 64) != 15 {
		t.Error("a real kernel name moved shard")
	}
}

// allKernels is the whole matrix: compute, pixel, vertex.
func allKernels(f kernels.Filter) []kernels.Kernel {
	ks := kernels.Matrix(f)
	ks = append(ks, kernels.GraphicsMatrix(kernels.Pixel, f)...)
	return append(ks, kernels.GraphicsMatrix(kernels.Vertex, f)...)
}

// TestShardsPartitionTheMatrixEvenly: over the real matrix, the shards of N are
// disjoint and together the whole; each holds a fair share of the kernels
// (within 25% of the mean for N up to 8; a hash is not a scheduler) and of
// the cases (within 50%: kernels differ in size); and a kernel's shard does
// not depend on what else is in the matrix (-ops, new kernels).
func TestShardsPartitionTheMatrixEvenly(t *testing.T) {
	all := allKernels(kernels.Filter{})
	total := 0
	for _, k := range all {
		total += len(k.Cases)
	}
	for _, n := range []int{2, 3, 4, 5, 8} {
		seen := map[string]int{}
		for k := 1; k <= n; k++ {
			share := Shard{k, n}.Kernels(all)
			cases := 0
			for _, kn := range share {
				if seen[kn.Name] != 0 {
					t.Fatalf("%s in shards %d and %d of %d", kn.Name, seen[kn.Name], k, n)
				}
				seen[kn.Name] = k
				cases += len(kn.Cases)
			}
			mean, meanCases := float64(len(all))/float64(n), float64(total)/float64(n)
			if f := float64(len(share)) / mean; f < 0.75 || f > 1.25 {
				t.Errorf("shard %d/%d: %d kernels, mean %.0f", k, n, len(share), mean)
			}
			if f := float64(cases) / meanCases; f < 0.5 || f > 1.5 {
				t.Errorf("shard %d/%d: %d cases, mean %.0f", k, n, cases, meanCases)
			}
		}
		if len(seen) != len(all) {
			t.Errorf("%d shards hold %d of %d kernels", n, len(seen), len(all))
		}
	}
	some := allKernels(kernels.Filter{Ops: regexp.MustCompile("^WavePrefix")})
	for _, k := range some {
		want := slices.ContainsFunc(Shard{2, 3}.Kernels(all), func(o kernels.Kernel) bool { return o.Name == k.Name })
		if (Shard{2, 3}).Has(k.Name) != want {
			t.Errorf("%s: shard depends on the rest of the matrix", k.Name)
		}
	}
	if got := (Shard{}).Kernels(all); len(got) != len(all) {
		t.Error("the zero shard is not the whole matrix")
	}
}

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
	count := func(cs []PlannedCase, keep func(PlannedCase) bool) int {
		n := 0
		for _, c := range cs {
			if keep(c) {
				n++
			}
		}
		return n
	}
	// lavapipe: sizes 4 and 8 are two children, each with its own size.
	lp := PlanCases(MakePlan(fakeLavapipe(), []uint32{4, 8}), cfg)
	for _, size := range []uint32{4, 8} {
		if count(lp, func(c PlannedCase) bool { return c.WaveSize == size && c.API == WebGPU && c.Stage == results.Pixel }) == 0 {
			t.Errorf("lavapipe size %d: no WebGPU pixel cases", size)
		}
	}
	// WaveSize8 runs in the child of size 8; in the child of size 4 it has no
	// legal size and is reported (skipped) there too. WaveSize4-64-16's range
	// holds each child's one size: both run it.
	for _, size := range []uint32{4, 8} {
		for _, op := range []string{"WaveSize8/", "WaveSize4-64-16/"} {
			if count(lp, func(c PlannedCase) bool {
				return strings.HasPrefix(c.Case, op) && c.WaveSize == size && c.API == Vulkan
			}) == 0 {
				t.Errorf("%s not listed at size %d", op, size)
			}
		}
	}
	// Size control: 16, 32, 64 in-process; WebGPU and draws at 32 only.
	sc := PlanCases(MakePlan(fakeSizeControl(), nil), cfg)
	if n := count(sc, func(c PlannedCase) bool { return (c.API == WebGPU || c.Stage != results.Compute) && c.WaveSize != 32 }); n != 0 {
		t.Errorf("%d WebGPU or draw cases outside the device's own size", n)
	}
	if count(sc, func(c PlannedCase) bool { return c.WaveSize == 64 && c.API == Vulkan && c.Compiler == Glslang }) == 0 {
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
	whole := CaseNames(sc)
	var parts []string
	for k := 1; k <= 3; k++ {
		c := cfg
		c.Shard = Shard{k, 3}
		parts = append(parts, CaseNames(PlanCases(MakePlan(fakeSizeControl(), nil), c))...)
	}
	slices.Sort(parts)
	if !slices.Equal(parts, whole) {
		t.Errorf("3 shards list %d names, the whole plan %d", len(parts), len(whole))
	}
}
