package gen

import (
	"math/bits"
	"math/rand/v2"
	"sort"
)

// Emulated is a Go model of a device for the checker's own tests and for
// shrinking against a planted bug: a wave size, consecutive lanes from the
// start of each workgroup, and how each dynamic instance's lanes are split
// into groups that run the operation together.
type Emulated struct {
	Size uint32
	// Split, if set, divides the lanes of an instance (sorted by lane) into
	// the groups that run together; nil runs them all together (maximal
	// reconvergence).
	Split func(ms []member) [][]member
	// Bug, if set, changes a result before it is logged (a planted bug).
	Bug func(op Op, self member, lo, hi uint32) (uint32, uint32)
}

// RandomSplit is a Split that breaks every instance into random groups, as
// a device without maximal reconvergence may.
func RandomSplit(seed uint64) func(ms []member) [][]member {
	r := rand.New(rand.NewPCG(seed, 1))
	return func(ms []member) [][]member {
		groups := map[int][]member{}
		k := 1 + r.IntN(3)
		for _, m := range ms {
			g := r.IntN(k)
			groups[g] = append(groups[g], m)
		}
		var out [][]member
		for g := 0; g < k; g++ {
			if len(groups[g]) > 0 {
				out = append(out, groups[g])
			}
		}
		return out
	}
}

// Run returns the log buffer the modelled device writes for p.
func (d Emulated) Run(p *Program) []uint32 {
	n := p.Lanes()
	words := make([]uint32, n*RecWords)
	type at struct{ flat, k, site int }
	type wave struct {
		byInst map[string][]member
		where  map[string][]at
	}
	var waves []*wave
	for f := 0; f < n; f++ {
		gi := f % p.Threads
		idx := uint32(gi) % d.Size
		key := f - int(idx)
		r := words[f*RecWords:]
		r[wFlat], r[wKey], r[wLane], r[wCount], r[wInput] = uint32(f), uint32(key), idx, d.Size, p.Input[f]
		if idx == 0 {
			waves = append(waves, &wave{byInst: map[string][]member{}, where: map[string][]at{}})
		}
		w := waves[len(waves)-1]
		evs := p.Simulate(LaneInput{Lane: idx, Gi: uint32(gi), Data: p.Input[f]})
		r[wEvents] = uint32(len(evs))
		for k, e := range evs {
			if k < MaxEvents {
				r[hdr+3*k] = uint32(e.Site)
			}
			// Events past the log's end still take part in their instance.
			w.byInst[e.Instance] = append(w.byInst[e.Instance], member{lane: idx, cond: e.Cond, x: e.X})
			w.where[e.Instance] = append(w.where[e.Instance], at{f, k, e.Site})
		}
	}
	ops := p.siteOps()
	for _, w := range waves {
		insts := make([]string, 0, len(w.byInst))
		for k := range w.byInst {
			insts = append(insts, k)
		}
		sort.Strings(insts) // a deterministic order for Split's random choices
		for _, name := range insts {
			ms := w.byInst[name]
			groups := [][]member{ms}
			if d.Split != nil {
				groups = d.Split(ms)
			}
			for _, g := range groups {
				in := newInstance(g)
				for i, m := range ms {
					if _, ok := in.byLane[m.lane]; !ok {
						continue
					}
					a := w.where[name][i]
					if a.k >= MaxEvents {
						continue
					}
					op := ops[a.site]
					lo, hi := exactResult(op.Op, op.K, m, in, d.Size)
					if d.Bug != nil {
						lo, hi = d.Bug(op.Op, m, lo, hi)
					}
					words[a.flat*RecWords+hdr+3*a.k+1] = lo
					words[a.flat*RecWords+hdr+3*a.k+2] = hi
				}
			}
		}
	}
	return words
}

// exactResult is op's result for self when exactly the lanes of in are
// active; reads of inactive lanes give 0.
func exactResult(op Op, k uint32, self member, in *instance, size uint32) (lo, hi uint32) {
	split := func(m uint64) (uint32, uint32) { return uint32(m), uint32(m >> 32) }
	b01 := func(c bool) uint32 {
		if c {
			return 1
		}
		return 0
	}
	rc := in.condSet
	read := func(src uint32) (uint32, uint32) { return in.byLane[src].x, 0 }
	switch op {
	case OpBallot, OpSum, OpBitOr, OpBitXor:
		return split(rc)
	case OpBitAnd:
		return split(^rc)
	case OpPrefixSum:
		return split(rc & below(self.lane))
	case OpCountBits:
		return uint32(bits.OnesCount64(rc)), 0
	case OpPrefixCountBits:
		return uint32(bits.OnesCount64(rc & below(self.lane))), 0
	case OpProduct:
		return pow2(bits.OnesCount64(rc)), 0
	case OpPrefixProduct:
		return pow2(bits.OnesCount64(rc & below(self.lane))), 0
	case OpAnyTrue:
		return b01(rc != 0), 0
	case OpAllTrue:
		all := true
		for _, m := range in.members {
			all = all && m.cond
		}
		return b01(all), 0
	case OpIsFirstLane:
		first := true
		for _, m := range in.members {
			first = first && m.lane >= self.lane
		}
		return b01(first), 0
	case OpAllEqual:
		eq := true
		for _, m := range in.members {
			eq = eq && m.x == self.x
		}
		return b01(eq), 0
	case OpLaneCount:
		return size, 0
	case OpLaneIndex:
		return self.lane, 0
	case OpMin, OpMax, OpReadLaneFirst:
		v, l := self.x, self.lane
		for _, m := range in.members {
			switch {
			case op == OpMin && m.x < v, op == OpMax && m.x > v, op == OpReadLaneFirst && m.lane < l:
				v, l = m.x, m.lane
			}
		}
		return v, 0
	case OpReadLaneAt, OpQuadReadLaneAt, OpQuadReadAcrossX, OpQuadReadAcrossY, OpQuadReadAcrossDiagonal:
		return read(readSource(op, self.lane, k))
	}
	return 0, 0
}
