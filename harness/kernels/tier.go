package kernels

// tier.go picks the CI tier of the matrix: a deterministic part of it that
// still covers every cell (operation × type family × stage) at every wave size,
// plus a 1/N fraction of the rest and every case a baseline expects to crash.
//
// It is the rig's answer to Mesa's pre-merge `deqp-runner --fraction`: the
// pre-merge run must stay short while the nightly runs everything (fraction 1).
// Unlike a plain every-Nth-test cut, the tier guarantees the coverage of each
// cell, because a cut that happens to drop every double case of one operation
// would let a regression there land unseen.
//
// The unit kept or dropped is a group: the cases of one (operation, type family,
// stage, shape), i.e. what shares one pipeline. Keeping a whole group costs
// almost nothing beyond its first case (the pipeline is the price on a CPU
// driver), and every type and active-lane pattern of the group comes with it.
// The suites (suites/wave_test.go) run the tier under WAVERIG_FRACTION, and the
// package's slow simulator tests run it under -short.

import (
	"hash/fnv"
	"strconv"
)

// TierItem is one case in one stage.
type TierItem struct {
	Case  Case
	Stage Stage // Compute, Pixel or Vertex
}

// group is what one pipeline shares; cell is what the tier must cover.
func (it TierItem) group() string { return it.cell() + "\x00" + it.Case.Shape.Name }
func (it TierItem) cell() string {
	return it.Case.OpName() + "\x00" + TypeFamily(it.Case.Type) + "\x00" + string(it.Stage)
}

// rank orders groups deterministically per wave size, so that each size runs a
// different shape of a cell and the tier as a whole sees more shapes.
func rank(group string, size uint32) uint64 {
	h := fnv.New64a()
	h.Write([]byte(group))
	h.Write([]byte{0})
	h.Write([]byte(strconv.FormatUint(uint64(size), 10)))
	return h.Sum64()
}

// Tier returns the items of the tier at one wave size, in their input order:
// every item of each cell's lowest-ranked group, of every group whose rank is
// 0 mod fraction, and of every group holding an item must keeps (a known crash,
// which pre-merge must still see crash or be fixed). fraction ≤ 1 keeps all.
func Tier(items []TierItem, size uint32, fraction int, must func(TierItem) bool) []TierItem {
	if fraction <= 1 {
		return items
	}
	best := map[string]string{} // cell -> lowest-ranked group
	bestRank := map[string]uint64{}
	keep := map[string]bool{}
	for _, it := range items {
		g, c := it.group(), it.cell()
		r := rank(g, size)
		if b, ok := bestRank[c]; !ok || r < b || (r == b && g < best[c]) {
			best[c], bestRank[c] = g, r
		}
		if r%uint64(fraction) == 0 || (must != nil && must(it)) {
			keep[g] = true
		}
	}
	for _, g := range best {
		keep[g] = true
	}
	var out []TierItem
	for _, it := range items {
		if keep[it.group()] {
			out = append(out, it)
		}
	}
	return out
}

// StageOf is a kernel's stage, Compute for a compute kernel (Stage "").
func StageOf(k Kernel) Stage {
	if k.Stage == "" {
		return Compute
	}
	return k.Stage
}

// TierKernels narrows kernels to the tier at one wave size: a kernel holding
// any case Tier keeps is kept whole (its pipeline is the cost; its other cases
// come with it), the others are dropped.
func TierKernels(ks []Kernel, size uint32, fraction int, must func(TierItem) bool) []Kernel {
	if fraction <= 1 {
		return ks
	}
	var items []TierItem
	for _, k := range ks {
		for _, c := range k.Cases {
			items = append(items, TierItem{Case: c, Stage: StageOf(k)})
		}
	}
	keep := map[string]bool{}
	for _, it := range Tier(items, size, fraction, must) {
		keep[string(it.Stage)+"\x00"+it.Case.ID()] = true
	}
	var out []Kernel
	for _, k := range ks {
		n := 0
		for _, c := range k.Cases {
			if keep[string(StageOf(k))+"\x00"+c.ID()] {
				n++
			}
		}
		if n > 0 {
			out = append(out, k)
		}
	}
	return out
}
