package plan

import (
	"regexp"
	"slices"
	"testing"

	"waverig/harness/kernels"
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
