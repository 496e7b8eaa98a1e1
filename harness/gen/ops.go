package gen

import (
	"fmt"
	"math/bits"
)

// Op is a Shader Model 6.0 wave or quad operation.
type Op int

// The 24 SM 6.0 wave and quad operations.
const (
	OpIsFirstLane Op = iota
	OpLaneCount
	OpLaneIndex
	OpAnyTrue
	OpAllTrue
	OpBallot
	OpReadLaneAt
	OpReadLaneFirst
	OpAllEqual
	OpCountBits
	OpSum
	OpProduct
	OpBitAnd
	OpBitOr
	OpBitXor
	OpMin
	OpMax
	OpPrefixCountBits
	OpPrefixSum
	OpPrefixProduct
	OpQuadReadLaneAt
	OpQuadReadAcrossX
	OpQuadReadAcrossY
	OpQuadReadAcrossDiagonal
	NumOps
)

var opNames = [NumOps]string{
	"WaveIsFirstLane", "WaveGetLaneCount", "WaveGetLaneIndex", "WaveActiveAnyTrue", "WaveActiveAllTrue",
	"WaveActiveBallot", "WaveReadLaneAt", "WaveReadLaneFirst", "WaveActiveAllEqual", "WaveActiveCountBits",
	"WaveActiveSum", "WaveActiveProduct", "WaveActiveBitAnd", "WaveActiveBitOr", "WaveActiveBitXor",
	"WaveActiveMin", "WaveActiveMax", "WavePrefixCountBits", "WavePrefixSum", "WavePrefixProduct",
	"QuadReadLaneAt", "QuadReadAcrossX", "QuadReadAcrossY", "QuadReadAcrossDiagonal",
}

func (o Op) String() string {
	if o >= 0 && o < NumOps {
		return opNames[o]
	}
	return fmt.Sprintf("Op(%d)", int(o))
}

// usesCond says the op's argument is the site's lane condition (a bool, or a
// bit that is set where it holds); the others take X.
func (o Op) usesCond() bool {
	switch o {
	case OpAnyTrue, OpAllTrue, OpBallot, OpCountBits, OpSum, OpProduct, OpBitAnd, OpBitOr, OpBitXor,
		OpPrefixCountBits, OpPrefixSum, OpPrefixProduct:
		return true
	}
	return false
}

func (o Op) usesX() bool {
	switch o {
	case OpReadLaneAt, OpReadLaneFirst, OpAllEqual, OpMin, OpMax,
		OpQuadReadLaneAt, OpQuadReadAcrossX, OpQuadReadAcrossY, OpQuadReadAcrossDiagonal:
		return true
	}
	return false
}

// member is one lane of a dynamic instance: its lane index and its arguments there.
type member struct {
	lane uint32
	cond bool
	x    uint32
}

// instance is the lanes of one wave that reached one dynamic instance of a site.
type instance struct {
	members []member
	byLane  map[uint32]member
	condSet uint64 // bits of member lanes below 64 whose condition holds
}

func newInstance(ms []member) *instance {
	in := &instance{members: ms, byLane: make(map[uint32]member, len(ms))}
	for _, m := range ms {
		in.byLane[m.lane] = m
		if m.cond && m.lane < 64 {
			in.condSet |= 1 << m.lane
		}
	}
	return in
}

func bit(lane uint32) uint64 {
	if lane >= 64 {
		return 0
	}
	return 1 << lane
}

func below(lane uint32) uint64 {
	if lane >= 64 {
		return ^uint64(0)
	}
	return 1<<lane - 1
}

func pow2(k int) uint32 {
	if k >= 32 {
		return 0
	}
	return 1 << k
}

// readSource is the lane a read operation reads from: WaveReadLaneAt's
// index, or a quad read's partner in the reading lane's quad.
func readSource(op Op, lane, k uint32) uint32 {
	switch op {
	case OpQuadReadLaneAt:
		return lane&^3 | k
	case OpQuadReadAcrossX:
		return lane ^ 1
	case OpQuadReadAcrossY:
		return lane ^ 2
	case OpQuadReadAcrossDiagonal:
		return lane ^ 3
	}
	return k // WaveReadLaneAt
}

// checkEvent says whether lo, hi is a result op could give lane self of inst
// (exact: with every lane of inst active; else with some subset containing
// self active) and, when it is not, what was expected in words.
func checkEvent(op Op, k uint32, self member, inst *instance, exact bool, waveSize uint32, lo, hi uint32) (bool, string) {
	got := uint64(lo) | uint64(hi)<<32
	rc := inst.condSet
	mine := uint64(0)
	if self.cond {
		mine = bit(self.lane)
	}
	// mask ops: got must be S∩C for some S ∋ self, S ⊆ R.
	mask := func(within uint64, must uint64) (bool, string) {
		want := rc & within
		if exact {
			return got == want, fmt.Sprintf("%#x", want)
		}
		return got&^want == 0 && got&must == must, fmt.Sprintf("a subset of %#x containing %#x", want, must)
	}
	// count ops: got in [lo, hi] (exact: hi).
	count := func(v uint32, min, max int, f func(int) uint32) (bool, string) {
		if exact {
			return v == f(max) && hi == 0, fmt.Sprintf("%d", f(max))
		}
		for c := min; c <= max; c++ {
			if v == f(c) && hi == 0 {
				return true, ""
			}
		}
		return false, fmt.Sprintf("one of %d..%d (as %s)", min, max, op)
	}
	id := func(c int) uint32 { return uint32(c) }
	b01 := func(c bool) uint32 {
		if c {
			return 1
		}
		return 0
	}
	vote := func(forced bool, want bool) (bool, string) {
		if hi != 0 || lo > 1 {
			return false, "0 or 1"
		}
		if exact || forced {
			return lo == b01(want), fmt.Sprint(b01(want))
		}
		return true, ""
	}
	minLane := self.lane
	for _, m := range inst.members {
		minLane = min(minLane, m.lane)
	}
	allCond, allEq := true, true
	for _, m := range inst.members {
		allCond = allCond && m.cond
		allEq = allEq && m.x == self.x
	}
	// read is a read of lane src's X: defined only if src is active; in the
	// subset contract it may not be.
	read := func(src uint32) (bool, string) {
		m, ok := inst.byLane[src]
		if !exact || !ok {
			return hi == 0, "any value"
		}
		return lo == m.x && hi == 0, fmt.Sprint(m.x)
	}
	switch op {
	case OpBallot, OpSum, OpBitOr, OpBitXor:
		return mask(^uint64(0), mine)
	case OpBitAnd:
		got = ^got
		return mask(^uint64(0), mine)
	case OpPrefixSum:
		return mask(below(self.lane), 0)
	case OpCountBits:
		return count(lo, int(b01(self.cond)), bits.OnesCount64(rc), id)
	case OpPrefixCountBits:
		return count(lo, 0, bits.OnesCount64(rc&below(self.lane)), id)
	case OpProduct:
		return count(lo, int(b01(self.cond)), bits.OnesCount64(rc), pow2)
	case OpPrefixProduct:
		return count(lo, 0, bits.OnesCount64(rc&below(self.lane)), pow2)
	case OpAnyTrue:
		any := rc != 0
		return vote(self.cond || !any, any)
	case OpAllTrue:
		return vote(!self.cond || allCond, allCond)
	case OpIsFirstLane:
		return vote(self.lane == minLane, self.lane == minLane)
	case OpAllEqual:
		return vote(allEq, allEq)
	case OpLaneCount:
		return lo == waveSize && hi == 0, fmt.Sprint(waveSize)
	case OpLaneIndex:
		return lo == self.lane && hi == 0, fmt.Sprint(self.lane)
	case OpMin, OpMax, OpReadLaneFirst:
		want, wantLane := self.x, self.lane
		for _, m := range inst.members {
			switch {
			case op == OpMin && m.x < want, op == OpMax && m.x > want, op == OpReadLaneFirst && m.lane < wantLane:
				want, wantLane = m.x, m.lane
			}
		}
		if exact || hi != 0 {
			return lo == want && hi == 0, fmt.Sprint(want)
		}
		for _, m := range inst.members {
			ok := false
			switch op {
			case OpMin:
				ok = m.x <= self.x
			case OpMax:
				ok = m.x >= self.x
			default:
				ok = m.lane <= self.lane
			}
			if ok && m.x == lo {
				return true, ""
			}
		}
		return false, fmt.Sprintf("the value of a lane of the instance (%s)", op)
	case OpReadLaneAt, OpQuadReadLaneAt, OpQuadReadAcrossX, OpQuadReadAcrossY, OpQuadReadAcrossDiagonal:
		return read(readSource(op, self.lane, k))
	}
	return false, "unknown op"
}
