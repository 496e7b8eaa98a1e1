package plan

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"

	"waverig/harness/kernels"
)

// Shards: a CI system spreads one big run over machines of its own matrix
// (`waverig run -shard K/N` on each) and joins the result directories with
// `waverig merge`; waverig has no scheduler of its own.
//
// The unit of a share is the kernel, not the case: a kernel's cases run in one
// dispatch, its Vulkan and WebGPU runs must meet in one process for the parity
// comparison, and its glslang cases are blamed against waverig's in the same
// pass. A kernel goes to shard FNV-1a(name) mod N, so the rule needs no list of
// the other kernels: adding kernels to the matrix moves no existing kernel, and
// `waverig list -shard` and `waverig run -shard` cannot disagree. The layout
// kernels are no kernel of the matrix: every shard checks the lane layout its
// own records rely on.

// Shard is the share K of N (1 ≤ K ≤ N) of a run's kernels; the zero value is
// the whole run.
type Shard struct {
	K int `json:"k,omitempty"`
	N int `json:"n,omitempty"`
}

// ParseShard reads "K/N" ("" is the whole run).
func ParseShard(s string) (Shard, error) {
	if s == "" {
		return Shard{}, nil
	}
	ks, ns, ok := strings.Cut(s, "/")
	k, kerr := strconv.Atoi(strings.TrimSpace(ks))
	n, nerr := strconv.Atoi(strings.TrimSpace(ns))
	if !ok || kerr != nil || nerr != nil {
		return Shard{}, fmt.Errorf("%q is not K/N (e.g. 2/4)", s)
	}
	if n < 1 || k < 1 || k > n {
		return Shard{}, fmt.Errorf("%q: want 1 ≤ K ≤ N", s)
	}
	return Shard{K: k, N: n}, nil
}

// Whole reports whether the shard is the whole run (no -shard, or 1/1).
func (s Shard) Whole() bool { return s.N <= 1 }

// String is "K/N", or "" for the whole run (summary.json's shard field).
func (s Shard) String() string {
	if s.N == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.K, s.N)
}

// ShardOf is the shard (1..n) a kernel name belongs to among n.
func ShardOf(kernel string, n int) int {
	h := fnv.New32a()
	h.Write([]byte(kernel))
	return int(h.Sum32()%uint32(n)) + 1
}

// Has reports whether the shard runs the kernel of this name.
func (s Shard) Has(kernel string) bool {
	return s.Whole() || ShardOf(kernel, s.N) == s.K
}

// Kernels keeps the kernels of the shard, in their order.
func (s Shard) Kernels(ks []kernels.Kernel) []kernels.Kernel {
	return keepKernels(ks, s.Whole(), s.Has)
}

// keepKernels keeps the kernels has accepts, in their order (all of them when whole).
func keepKernels(ks []kernels.Kernel, whole bool, has func(string) bool) []kernels.Kernel {
	if whole {
		return ks
	}
	out := ks[:0:0]
	for _, k := range ks {
		if has(k.Name) {
			out = append(out, k)
		}
	}
	return out
}

// Part is one of the N child processes that share one (device, wave size) of a
// run on a machine with more cores than the run has children (the pool's own
// split, harness.RunDevices; never a user's flag). A 2-core machine running
// lavapipe's three sizes as three children leaves a core idle while the last
// one runs alone; six children of half a size each keep both busy to the end,
// and the second and third sizes find the first one's modules in the disk
// caches. The rule is a shard's on a salted name, so that the parts of a -shard
// K/N run are as even as the parts of a whole one (FNV-1a(name) mod N would put
// every kernel of shard 2/4 into the second half of two). The zero value is
// the whole (device, size).
type Part struct {
	K int `json:"k,omitempty"`
	N int `json:"n,omitempty"`
}

// Whole reports whether the part is all of its (device, size).
func (p Part) Whole() bool { return Shard(p).Whole() }

// Has reports whether the part runs the kernel (or generated program) of this
// name: the shard rule on the salted name.
func (p Part) Has(name string) bool { return Shard(p).Has("part\x00" + name) }

// Kernels keeps the part's kernels, in their order.
func (p Part) Kernels(ks []kernels.Kernel) []kernels.Kernel { return keepKernels(ks, p.Whole(), p.Has) }
