package models

import (
	"fmt"
	"math"
	"math/bits"

	"waverig/compiler/intrinsics"
)

// Every model takes one wave's lanes in any order and returns one Value per lane, in
// the same order. Inactive lanes always get Undefined: they did not call the intrinsic.

var reduceOps = map[intrinsics.Op]arith{
	intrinsics.WaveActiveSum: opAdd, intrinsics.WaveActiveProduct: opMul,
	intrinsics.WaveActiveMin: opMin, intrinsics.WaveActiveMax: opMax,
	intrinsics.WaveActiveBitAnd: opAnd, intrinsics.WaveActiveBitOr: opOr,
	intrinsics.WaveActiveBitXor: opXor,
}

var prefixOps = map[intrinsics.Op]arith{
	intrinsics.WavePrefixSum: opAdd, intrinsics.WavePrefixProduct: opMul,
}

// Supports says whether HLSL accepts the type for the operation (mirrors the argument
// kinds of the intrinsic table: bit operations take unsigned integers only, arithmetic
// takes no bool, quad operations take no bool, predicates are scalar bool).
func Supports(op intrinsics.Op, t Type) error {
	if err := t.valid(); err != nil {
		return err
	}
	bad := func() error { return fmt.Errorf("models: %s does not take %s", op, t) }
	switch op {
	case intrinsics.WaveGetLaneCount, intrinsics.WaveGetLaneIndex:
		if t != (Type{Uint32, 1}) {
			return bad()
		}
	case intrinsics.WaveIsFirstLane, intrinsics.WaveActiveAnyTrue, intrinsics.WaveActiveAllTrue,
		intrinsics.WaveActiveBallot, intrinsics.WaveActiveCountBits, intrinsics.WavePrefixCountBits,
		intrinsics.QuadAny, intrinsics.QuadAll:
		if t != (Type{Bool, 1}) {
			return bad()
		}
	case intrinsics.WaveActiveBitAnd, intrinsics.WaveActiveBitOr, intrinsics.WaveActiveBitXor:
		if t.Scalar != Uint32 && t.Scalar != Uint64 {
			return bad()
		}
	case intrinsics.WaveActiveSum, intrinsics.WaveActiveProduct, intrinsics.WaveActiveMin, intrinsics.WaveActiveMax,
		intrinsics.WavePrefixSum, intrinsics.WavePrefixProduct,
		intrinsics.QuadReadAcrossX, intrinsics.QuadReadAcrossY, intrinsics.QuadReadAcrossDiagonal, intrinsics.QuadReadLaneAt:
		if t.Scalar == Bool {
			return bad()
		}
	case intrinsics.WaveActiveAllEqual, intrinsics.WaveReadLaneAt, intrinsics.WaveReadLaneFirst:
	default:
		if IsPartitioned(op) {
			return supportsPartitioned(op, t)
		}
		return fmt.Errorf("models: no model for %s", op)
	}
	return nil
}

// ResultType is the HLSL result type of the operation applied to t.
func ResultType(op intrinsics.Op, t Type) Type {
	switch op {
	case intrinsics.WaveGetLaneCount, intrinsics.WaveGetLaneIndex, intrinsics.WaveActiveCountBits, intrinsics.WavePrefixCountBits,
		intrinsics.WaveMultiPrefixCountBits:
		return Type{Uint32, 1}
	case intrinsics.WaveIsFirstLane, intrinsics.WaveActiveAnyTrue, intrinsics.WaveActiveAllTrue, intrinsics.QuadAny, intrinsics.QuadAll:
		return Type{Bool, 1}
	case intrinsics.WaveActiveBallot, intrinsics.WaveMatch:
		return Type{Uint32, 4}
	case intrinsics.WaveActiveAllEqual:
		return Type{Bool, t.N}
	}
	return t
}

// Expected dispatches to the model of op. laneCount is the wave size (WaveGetLaneCount's
// expected value).
func Expected(op intrinsics.Op, t Type, lanes []Lane, laneCount uint32) ([]Value, error) {
	if err := Supports(op, t); err != nil {
		return nil, err
	}
	if IsPartitioned(op) {
		return expectedPartitioned(op, t, lanes)
	}
	switch op {
	case intrinsics.WaveGetLaneCount:
		return LaneCount(lanes, laneCount), nil
	case intrinsics.WaveGetLaneIndex:
		return LaneIndex(lanes), nil
	case intrinsics.WaveIsFirstLane:
		return IsFirstLane(lanes)
	case intrinsics.WaveActiveAnyTrue, intrinsics.WaveActiveAllTrue:
		return Vote(op, lanes)
	case intrinsics.WaveActiveAllEqual:
		return AllEqual(t, lanes)
	case intrinsics.WaveActiveBallot:
		return Ballot(lanes)
	case intrinsics.WaveActiveCountBits:
		return CountBits(lanes)
	case intrinsics.WavePrefixCountBits:
		return PrefixCountBits(lanes)
	case intrinsics.WaveReadLaneAt:
		return ReadLaneAt(t, lanes)
	case intrinsics.WaveReadLaneFirst:
		return ReadLaneFirst(t, lanes)
	case intrinsics.WavePrefixSum, intrinsics.WavePrefixProduct:
		return Prefix(op, t, lanes)
	case intrinsics.QuadReadAcrossX, intrinsics.QuadReadAcrossY, intrinsics.QuadReadAcrossDiagonal, intrinsics.QuadReadLaneAt:
		return Quad(op, t, lanes)
	case intrinsics.QuadAny, intrinsics.QuadAll:
		// The portable form: it defines a subset of the lanes the KHR form does and
		// agrees there, so it holds for either (QuadVote(op, QuadVoteKHR, …) is the
		// native form's full model).
		return QuadVote(op, QuadVoteSwaps, lanes)
	}
	return Reduce(op, t, lanes)
}

// LaneCount: every active lane reads the wave size.
func LaneCount(lanes []Lane, count uint32) []Value {
	out := undefined(len(lanes))
	for i, l := range lanes {
		if l.Active {
			out[i] = Value{Comps: []uint64{uint64(count)}}
		}
	}
	return out
}

// LaneIndex: every active lane reads its own recorded index (recorded in uniform
// control flow; the op under test runs in divergent flow and must agree).
func LaneIndex(lanes []Lane) []Value {
	out := undefined(len(lanes))
	for i, l := range lanes {
		if l.Active {
			out[i] = Value{Comps: []uint64{uint64(l.Index)}}
		}
	}
	return out
}

// IsFirstLane: true exactly for the active lane with the lowest index.
func IsFirstLane(lanes []Lane) ([]Value, error) {
	if err := checkLanes(Type{Bool, 1}, lanes, false); err != nil {
		return nil, err
	}
	out := undefined(len(lanes))
	ord := ordered(lanes)
	for k, i := range ord {
		out[i] = Value{Comps: []uint64{b2u(k == 0)}}
	}
	return out, nil
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// pred reads a lane's bool predicate.
func pred(l Lane) bool { return len(l.Input) > 0 && l.Input[0] != 0 }

// Vote: WaveActiveAnyTrue / WaveActiveAllTrue over the active lanes' predicates.
func Vote(op intrinsics.Op, lanes []Lane) ([]Value, error) {
	if op != intrinsics.WaveActiveAnyTrue && op != intrinsics.WaveActiveAllTrue {
		return nil, fmt.Errorf("models: Vote does not model %s", op)
	}
	if err := checkLanes(Type{Bool, 1}, lanes, true); err != nil {
		return nil, err
	}
	anyT, allT := false, true
	for _, l := range lanes {
		if l.Active {
			anyT = anyT || pred(l)
			allT = allT && pred(l)
		}
	}
	r := anyT
	if op == intrinsics.WaveActiveAllTrue {
		r = allT
	}
	out := undefined(len(lanes))
	for i, l := range lanes {
		if l.Active {
			out[i] = Value{Comps: []uint64{b2u(r)}}
		}
	}
	return out, nil
}

// ballotMask is the 128-bit ballot of the active lanes whose predicate holds.
func ballotMask(lanes []Lane) ([4]uint64, error) {
	var m [4]uint64
	for _, l := range lanes {
		if l.Index >= 128 {
			return m, fmt.Errorf("models: lane index %d does not fit a 128-bit ballot", l.Index)
		}
		if l.Active && pred(l) {
			m[l.Index/32] |= 1 << (l.Index % 32)
		}
	}
	return m, nil
}

// Ballot: every active lane reads the uint4 mask of active lanes whose predicate holds;
// bit i is lane index i, so bits of lanes beyond the wave are 0.
func Ballot(lanes []Lane) ([]Value, error) {
	if err := checkLanes(Type{Bool, 1}, lanes, true); err != nil {
		return nil, err
	}
	m, err := ballotMask(lanes)
	if err != nil {
		return nil, err
	}
	out := undefined(len(lanes))
	for i, l := range lanes {
		if l.Active {
			out[i] = Value{Comps: []uint64{m[0], m[1], m[2], m[3]}}
		}
	}
	return out, nil
}

// CountBits: the number of active lanes whose predicate holds.
func CountBits(lanes []Lane) ([]Value, error) {
	if err := checkLanes(Type{Bool, 1}, lanes, true); err != nil {
		return nil, err
	}
	n := 0
	for _, l := range lanes {
		if l.Active && pred(l) {
			n++
		}
	}
	out := undefined(len(lanes))
	for i, l := range lanes {
		if l.Active {
			out[i] = Value{Comps: []uint64{uint64(n)}}
		}
	}
	return out, nil
}

// PrefixCountBits: the number of active lanes with a lower index whose predicate holds
// (exclusive: a lane never counts itself).
func PrefixCountBits(lanes []Lane) ([]Value, error) {
	if err := checkLanes(Type{Bool, 1}, lanes, true); err != nil {
		return nil, err
	}
	m, err := ballotMask(lanes)
	if err != nil {
		return nil, err
	}
	out := undefined(len(lanes))
	for i, l := range lanes {
		if !l.Active {
			continue
		}
		n := 0
		for w := uint32(0); w < 4; w++ {
			lo := w * 32
			switch {
			case l.Index >= lo+32:
				n += bits.OnesCount64(m[w])
			case l.Index > lo:
				n += bits.OnesCount64(m[w] & (1<<(l.Index-lo) - 1))
			}
		}
		out[i] = Value{Comps: []uint64{uint64(n)}}
	}
	return out, nil
}

func comps(t Type, l Lane) []uint64 {
	c := make([]uint64, t.N)
	for k := range c {
		c[k] = mask(t.Scalar, l.Input[k])
	}
	return c
}

// Reduce: WaveActiveSum/Product/Min/Max/BitAnd/BitOr/BitXor, component-wise over the
// active lanes in ascending lane order (for the rig's inputs the order does not matter).
func Reduce(op intrinsics.Op, t Type, lanes []Lane) ([]Value, error) {
	a, ok := reduceOps[op]
	if !ok {
		return nil, fmt.Errorf("models: Reduce does not model %s", op)
	}
	if err := Supports(op, t); err != nil {
		return nil, err
	}
	if err := checkLanes(t, lanes, true); err != nil {
		return nil, err
	}
	ord := ordered(lanes)
	out := undefined(len(lanes))
	if len(ord) == 0 {
		return out, nil
	}
	acc := comps(t, lanes[ord[0]])
	for _, i := range ord[1:] {
		c := comps(t, lanes[i])
		for k := range acc {
			acc[k] = binop(a, t.Scalar, acc[k], c[k])
		}
	}
	var accept []*Allowed
	if t.Scalar.IsFloat() {
		accept = reduceAllowed(a, t, lanes, ord)
	}
	for _, i := range ord {
		if t.Scalar.IsFloat() && (a == opMin || a == opMax) {
			if accept == nil {
				continue // every component NaN: undefined (floats.go)
			}
		}
		out[i] = withAccept(t.Scalar, acc, accept)
	}
	return out, nil
}

// reduceAllowed is the accepted set per component of a float reduction over the
// lanes at positions ord (floats.go): an interval for Sum and Product, the
// Min/Max rule for Min and Max. For Min/Max it is nil when a component has only
// NaNs (the result is undefined).
func reduceAllowed(a arith, t Type, lanes []Lane, ord []int) []*Allowed {
	acc := make([]*Allowed, t.N)
	for k := range acc {
		vals := make([]uint64, len(ord))
		for n, i := range ord {
			vals[n] = mask(t.Scalar, lanes[i].Input[k])
		}
		ok := true
		switch a {
		case opAdd:
			acc[k], ok = SumAllowed(t.Scalar, vals)
		case opMul:
			acc[k], ok = ProductAllowed(t.Scalar, vals)
		case opMin, opMax:
			acc[k], ok = minMaxAllowed(t.Scalar, vals, a == opMax)
			if !ok {
				return nil
			}
		}
		if !ok {
			acc[k] = nil // NaN or infinite terms: the lane-order value, compared with Equal
		}
	}
	return acc
}

// scanAllowed is the accepted set per component of an exclusive float scan
// whose terms are the lanes at positions terms (none: the identity, exact).
func scanAllowed(a arith, t Type, lanes []Lane, terms []int) []*Allowed {
	if !t.Scalar.IsFloat() || len(terms) == 0 {
		return nil
	}
	return reduceAllowed(a, t, lanes, terms)
}

// scanSets is scanAllowed for every prefix of one scan, one term at a time:
// the exact sum (or product) and sum of magnitudes of the terms so far, so
// that a wave of n lanes costs n exact additions, not n²/2. The sets are
// SumAllowed's and ProductAllowed's for the same terms: the same exact values
// (float64 expansions, floatfast.go), bounded and rounded by the same search;
// where an expansion cannot be exact, math/big over the terms so far.
type scanSets struct {
	a     arith
	t     Type
	n     int
	xe    [][]float64 // per component: the sum so far (sums)
	ae    [][]float64 // per component: Σ|x_i| (sums)
	prod  []product   // per component: the product so far (products)
	terms [][]uint64  // per component: the terms so far (for math/big)
	nofin []bool      // per component: a NaN or infinite term was added (no bound)
	big   []bool      // per component: an expansion could not be exact
}

func newScanSets(a arith, t Type) *scanSets {
	sc := &scanSets{a: a, t: t, xe: make([][]float64, t.N), ae: make([][]float64, t.N), terms: make([][]uint64, t.N),
		nofin: make([]bool, t.N), big: make([]bool, t.N)}
	if a == opMul {
		sc.prod = make([]product, t.N)
		for k := range sc.prod {
			sc.prod[k] = newProduct()
		}
	}
	return sc
}

// add adds lane l's input as the next term.
func (sc *scanSets) add(l Lane) {
	sc.n++
	for k := range sc.terms {
		v := mask(sc.t.Scalar, l.Input[k])
		if sc.nofin[k] || !isFinite(sc.t.Scalar, v) {
			sc.nofin[k] = true
			continue
		}
		sc.terms[k] = append(sc.terms[k], v)
		f := ToFloat64(sc.t.Scalar, v)
		if sc.a == opMul {
			sc.prod[k].mul(f)
			continue
		}
		x := exact{ok: true}
		sc.xe[k] = x.grow(sc.xe[k], f)
		sc.ae[k] = x.grow(sc.ae[k], math.Abs(f))
		sc.big[k] = sc.big[k] || !x.ok
	}
}

// sets are the accepted sets of the terms added so far (at least one).
func (sc *scanSets) sets() []*Allowed {
	s := sc.t.Scalar
	acc := make([]*Allowed, sc.t.N)
	for k := range acc {
		if sc.nofin[k] {
			continue // NaN or infinite terms: the lane-order value, compared with Equal
		}
		ok := !sc.big[k]
		var lo, hi uint64
		if ok && sc.a == opMul {
			var pe []float64
			var tail float64
			if pe, tail, ok = sc.prod[k].expansion(); ok {
				lo, hi, ok = exactInterval(s, pe, absExpansion(pe), tail, sc.n-1)
			}
		} else if ok {
			lo, hi, ok = exactInterval(s, sc.xe[k], sc.ae[k], 0, sc.n-1)
		}
		switch {
		case ok:
			acc[k] = &Allowed{Interval: true, Lo: lo, Hi: hi}
		case sc.a == opMul:
			acc[k], _ = bigProductAllowed(s, sc.terms[k])
		default:
			acc[k], _ = bigSumAllowed(s, sc.terms[k])
		}
	}
	return acc
}

// Prefix: WavePrefixSum / WavePrefixProduct are exclusive scans over the active lanes
// ordered by lane index: the lowest active lane reads the identity (0 or 1).
func Prefix(op intrinsics.Op, t Type, lanes []Lane) ([]Value, error) {
	a, ok := prefixOps[op]
	if !ok {
		return nil, fmt.Errorf("models: Prefix does not model %s", op)
	}
	if err := Supports(op, t); err != nil {
		return nil, err
	}
	if err := checkLanes(t, lanes, true); err != nil {
		return nil, err
	}
	out := undefined(len(lanes))
	acc := make([]uint64, t.N)
	for k := range acc {
		acc[k] = identity(a, t.Scalar)
	}
	ord := ordered(lanes)
	var sc *scanSets
	if t.Scalar.IsFloat() {
		sc = newScanSets(a, t)
	}
	for n, i := range ord {
		var accept []*Allowed // scanAllowed(a, t, lanes, ord[:n]), kept up to date term by term
		if sc != nil && n > 0 {
			accept = sc.sets()
		}
		out[i] = withAccept(t.Scalar, acc, accept)
		if sc != nil {
			sc.add(lanes[i])
		}
		c := comps(t, lanes[i])
		for k := range acc {
			acc[k] = binop(a, t.Scalar, acc[k], c[k])
		}
	}
	return out, nil
}

// AllEqual: per component, whether every active lane holds the same value (floats
// compare as values: +0 equals -0, NaN equals nothing).
func AllEqual(t Type, lanes []Lane) ([]Value, error) {
	if err := Supports(intrinsics.WaveActiveAllEqual, t); err != nil {
		return nil, err
	}
	if err := checkLanes(t, lanes, true); err != nil {
		return nil, err
	}
	ord := ordered(lanes)
	out := undefined(len(lanes))
	if len(ord) == 0 {
		return out, nil
	}
	first := comps(t, lanes[ord[0]])
	res := make([]uint64, t.N)
	for k := range res {
		eq := true
		for _, i := range ord {
			c := mask(t.Scalar, lanes[i].Input[k])
			if t.Scalar.IsFloat() {
				eq = eq && ToFloat64(t.Scalar, c) == ToFloat64(t.Scalar, first[k])
			} else {
				eq = eq && c == first[k]
			}
		}
		res[k] = b2u(eq)
	}
	var accept []*Allowed
	if t.Scalar.IsFloat() {
		// Float comparison or bit identity (floats.go): a component where they
		// disagree accepts both answers.
		accept = make([]*Allowed, t.N)
		for k := range accept {
			vals := make([]uint64, len(ord))
			for n, i := range ord {
				vals[n] = mask(t.Scalar, lanes[i].Input[k])
			}
			if ans := allEqualAnswers(t.Scalar, vals); len(ans) > 1 {
				accept[k] = &Allowed{Bits: []uint64{0, 1}}
			}
		}
	}
	for _, i := range ord {
		out[i] = Value{Comps: append([]uint64(nil), res...), Accept: accept}
	}
	return out, nil
}

// byIndex maps recorded lane index to slice position.
func byIndex(lanes []Lane) *laneIndex {
	m := &laneIndex{}
	for i, l := range lanes {
		m.set(l.Index, i)
	}
	return m
}

// readFrom gives every active lane the input of the lane src(l) names, or Undefined
// when that lane is absent or inactive.
func readFrom(t Type, lanes []Lane, src func(l Lane) (uint32, bool)) ([]Value, error) {
	if err := checkLanes(t, lanes, true); err != nil {
		return nil, err
	}
	at := byIndex(lanes)
	out := undefined(len(lanes))
	reads := readAllowed(t.Scalar, 0) != nil // the type's reads have accepted sets
	for i, l := range lanes {
		if !l.Active {
			continue
		}
		idx, ok := src(l)
		if !ok {
			continue
		}
		j, present := at.get(idx)
		if !present || !lanes[j].Active {
			continue
		}
		v := Value{Comps: comps(t, lanes[j])}
		if reads {
			// A read moves bits (floats.go): float bit-exact, half up to what the
			// kernel's conversions may do.
			v.Accept = make([]*Allowed, t.N)
			for k, c := range v.Comps {
				v.Accept[k] = readAllowed(t.Scalar, c)
			}
		}
		out[i] = v
	}
	return out, nil
}

// ReadLaneAt: the input of lane LaneArg; undefined when that lane is absent or inactive.
func ReadLaneAt(t Type, lanes []Lane) ([]Value, error) {
	if err := Supports(intrinsics.WaveReadLaneAt, t); err != nil {
		return nil, err
	}
	return readFrom(t, lanes, func(l Lane) (uint32, bool) { return l.LaneArg, true })
}

// ReadLaneFirst: the input of the active lane with the lowest index.
func ReadLaneFirst(t Type, lanes []Lane) ([]Value, error) {
	if err := Supports(intrinsics.WaveReadLaneFirst, t); err != nil {
		return nil, err
	}
	ord := ordered(lanes)
	if len(ord) == 0 {
		return undefined(len(lanes)), checkLanes(t, lanes, true)
	}
	first := lanes[ord[0]].Index
	return readFrom(t, lanes, func(Lane) (uint32, bool) { return first, true })
}

// Quad: QuadReadAcrossX/Y/Diagonal and QuadReadLaneAt. A quad is the lanes of one wave
// whose recorded index shares index>>2 (Vulkan's compute mapping without derivative
// groups); the partner of lane i is (i &^ 3) | ((i & 3) ^ d) with d = 1, 2, 3, or
// (i &^ 3) | id for QuadReadLaneAt. An absent or inactive partner, or an id above 3,
// leaves the value undefined.
func Quad(op intrinsics.Op, t Type, lanes []Lane) ([]Value, error) {
	if err := Supports(op, t); err != nil {
		return nil, err
	}
	var d uint32
	switch op {
	case intrinsics.QuadReadAcrossX:
		d = 1
	case intrinsics.QuadReadAcrossY:
		d = 2
	case intrinsics.QuadReadAcrossDiagonal:
		d = 3
	case intrinsics.QuadReadLaneAt:
		return readFrom(t, lanes, func(l Lane) (uint32, bool) {
			return l.Index&^3 | l.LaneArg&3, l.LaneArg <= 3
		})
	default:
		return nil, fmt.Errorf("models: Quad does not model %s", op)
	}
	return readFrom(t, lanes, func(l Lane) (uint32, bool) { return l.Index&^3 | ((l.Index & 3) ^ d), true })
}
