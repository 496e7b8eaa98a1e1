package kernels

import (
	"hash/fnv"
	"math"

	"waverig/compiler/intrinsics"
	"waverig/harness/models"
)

// rng is splitmix64: tiny, seedable, identical on every platform.
type rng struct{ s uint64 }

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// intn returns a value in [0, n).
func (r *rng) intn(n int) int { return int(r.next() % uint64(n)) }

// chance is true with probability num/den.
func (r *rng) chance(num, den int) bool { return r.intn(den) < num }

func seedOf(parts ...string) uint64 {
	h := fnv.New64a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return h.Sum64()
}

// densities are the fractions of true predicates for the bool operations, one per
// replica: all false, 1/8, 1/2, 7/8, all true (AllTrue needs all-true waves, AnyTrue
// all-false ones).
var densities = [][2]int{{0, 1}, {1, 8}, {1, 2}, {7, 8}, {1, 1}}

// mixedOdds is, per component, the chance that a lane of a "mixed" AllEqual group
// holds a different value from the group's base value.
var mixedOdds = [4][2]int{{1, 16}, {0, 1}, {1, 2}, {1, 64}}

// quarter returns k/4 as the bits of float scalar s.
func quarter(s models.Scalar, k int64) uint64 { return models.FromFloat64(s, float64(k)/4) }

// nonzero draws k in [-max, max] without 0 (a zero's sign is not the point of the test).
func nonzero(r *rng, max int) int64 {
	k := int64(r.intn(2*max)) - int64(max)
	if k >= 0 {
		k++
	}
	return k
}

// anyValue is a general value of a scalar type: random bits for integers, k/4 with
// |k| <= 400 for half and float (exact in half), and up to 38 significant bits for
// double (more than a float holds, within what the record's split double carries).
func anyValue(r *rng, s models.Scalar) uint64 {
	switch s {
	case models.Bool:
		return r.next() & 1
	case models.Int32, models.Uint32:
		return r.next() & 0xffffffff
	case models.Int64, models.Uint64:
		return r.next()
	case models.Float16:
		return quarter(s, nonzero(r, 400))
	case models.Float32:
		return models.FromFloat64(s, wideFloat(r))
	case models.Float64:
		return models.FromFloat64(s, wideDouble(r))
	}
	return 0
}

// sumValue keeps every partial sum of up to 128 lanes exact in any order: integers
// wrap (order-independent), floats are small multiples of 1/4 (half: integers up to
// 15, so partial sums stay below 2048), doubles stay within 45 bits.
func sumValue(r *rng, s models.Scalar) uint64 {
	switch s {
	case models.Float16:
		// A full 11-bit significand, |x| < 8: 128 lanes stay below half's 65504.
		f := math.Ldexp(float64(r.intn(1<<10)|1<<10), -10+r.intn(6)-3)
		if r.chance(1, 2) {
			f = -f
		}
		return models.FromFloat64(s, f)
	case models.Float32:
		return models.FromFloat64(s, wideFloat(r))
	case models.Float64:
		return quarter(s, nonzero(r, 1<<34))
	}
	return anyValue(r, s)
}

// productBudget bounds the number of ±2 and of ±0.5 factors in one workgroup: any
// product over any subset in any order is then ±2^k with |k| <= 6, exact in half.
const productBudget = 6

// productValue draws ±1, ±2 or ±0.5 for floats (within the group budget) and small
// odd-heavy integers for integer types (integer products wrap, order-independent).
func productValue(r *rng, s models.Scalar, twos, halves *int) uint64 {
	sign := 1.0
	if r.chance(1, 2) {
		sign = -1
	}
	if s == models.Float16 || s == models.Float32 {
		// Near 1 (1 + k·2^-10 half, 1 + k·2^-12 float: the float one not exact in
		// half): no overflow or underflow over 128 lanes, rounding in every order.
		step := -12
		if s == models.Float16 {
			step = -10
		}
		return models.FromFloat64(s, sign*(1+math.Ldexp(float64(nonzero(r, 8)), step)))
	}
	if s.IsFloat() {
		m := 1.0
		switch r.intn(8) {
		case 0:
			if *twos < productBudget {
				*twos++
				m = 2
			}
		case 1:
			if *halves < productBudget {
				*halves++
				m = 0.5
			}
		}
		return models.FromFloat64(s, sign*m)
	}
	vals := []int64{1, 1, 3, 5, 7, 2}
	v := vals[r.intn(len(vals))]
	if sign < 0 {
		v = -v
	}
	if s == models.Int32 || s == models.Uint32 {
		return uint64(v) & 0xffffffff
	}
	return uint64(v)
}

// groupInputs generates, for every invocation of one workgroup of a case replica, its
// input components (bit patterns) and its random-pattern coin.
func groupInputs(c Case, t models.Type, mode, threads int) (in [][]uint64, coin []uint32) {
	r := &rng{s: seedOf(c.ID(), string(rune('a'+mode)))}
	coinR := &rng{s: seedOf("coin", c.ID(), string(rune('a'+mode)))}
	in = make([][]uint64, threads)
	coin = make([]uint32, threads)
	var twos, halves int
	base := make([]uint64, t.N)
	alt := make([]uint64, t.N)
	for k := range base {
		base[k] = anyValue(r, t.Scalar)
		alt[k] = anyValue(r, t.Scalar)
		if hasSpecials(c.Op, t.Scalar) && r.chance(1, 3) {
			// AllEqual's special values: a special base, or a special alternative.
			if r.chance(1, 2) {
				base[k] = specialValue(r, c.Op, t.Scalar)
			} else {
				alt[k] = specialValue(r, c.Op, t.Scalar)
			}
		}
		for alt[k] == base[k] || (t.Scalar.IsFloat() && models.ToFloat64(t.Scalar, alt[k]) == models.ToFloat64(t.Scalar, base[k])) {
			alt[k] = anyValue(r, t.Scalar)
		}
	}
	for i := 0; i < threads; i++ {
		coin[i] = uint32(coinR.next() & 1)
		v := make([]uint64, t.N)
		for k := range v {
			switch c.Op {
			case intrinsics.WaveGetLaneCount, intrinsics.WaveGetLaneIndex, intrinsics.WaveIsFirstLane,
				intrinsics.WaveMatch: // WaveMatch's value comes from the lane's key (partition.go)
				v[k] = 0
			case intrinsics.WaveActiveAnyTrue, intrinsics.WaveActiveAllTrue, intrinsics.WaveActiveBallot,
				intrinsics.WaveActiveCountBits, intrinsics.WavePrefixCountBits, intrinsics.QuadAny, intrinsics.QuadAll:
				d := densities[mode%len(densities)]
				if r.chance(d[0], d[1]) {
					v[k] = 1
				}
			case intrinsics.WaveActiveAllEqual:
				v[k] = base[k]
				if mode == 1 && r.chance(mixedOdds[k][0], mixedOdds[k][1]) {
					v[k] = alt[k]
				}
			case intrinsics.WaveActiveSum, intrinsics.WavePrefixSum, intrinsics.WaveMultiPrefixSum:
				v[k] = sumValue(r, t.Scalar)
			case intrinsics.WaveActiveProduct, intrinsics.WavePrefixProduct, intrinsics.WaveMultiPrefixProduct:
				v[k] = productValue(r, t.Scalar, &twos, &halves)
			default:
				v[k] = anyValue(r, t.Scalar)
			}
			if c.Op != intrinsics.WaveActiveAllEqual && hasSpecials(c.Op, t.Scalar) && r.chance(1, 8) {
				v[k] = specialValue(r, c.Op, t.Scalar) // a fraction of lanes: ordinary values remain
			}
		}
		in[i] = v
	}
	return in, coin
}

// isNegZero is used by tests to prove no generated float is -0.
func isNegZero(s models.Scalar, v uint64) bool {
	f := models.ToFloat64(s, v)
	return f == 0 && math.Signbit(f)
}

// Float inputs tell precisions apart (models/floats.go accepts any legal order's
// rounding): a float value has more significant bits than a half holds, a double
// more than a float. General doubles (wideDouble) have all 53 significant bits, so
// a transport that kept fewer than 64 bits of a double (the float-plus-residual
// split the record once used kept about 48) fails on them; sums stay within 45
// bits so that every order is exact, products are ±1, ±2, ±0.5.

// wideDouble is a double with a full 53-bit significand (odd: its last bit is
// set), of magnitude 2^-4..2^8, either sign.
func wideDouble(r *rng) float64 {
	m := float64(r.next()>>11 | 1<<52 | 1)
	f := math.Ldexp(m, -52+r.intn(12)-4)
	if r.chance(1, 2) {
		f = -f
	}
	return f
}

// wideFloat is a float with a 16-bit significand (never exact in half), of
// magnitude 2^-4..2^8, either sign.
func wideFloat(r *rng) float64 {
	m := float64(r.intn(1<<15) | 1<<15 | 1)
	f := math.Ldexp(m, -15+r.intn(12)-4)
	if r.chance(1, 2) {
		f = -f
	}
	return f
}

// specialValue is one of the values the float rules single out: ±0, quiet NaNs
// (with and without payload, either sign), ±inf, the smallest and largest
// denormals of either sign. Min, Max and AllEqual get ±0 and denormals only:
// under Vulkan's default float mode a NaN or an infinity among the active
// lanes frees the component (models/floats.go), so it would compare nothing
// and could leave a one-lane case vacuous; the reads, bit-exact, get them all.
func specialValue(r *rng, op intrinsics.Op, s models.Scalar) uint64 {
	bits := s.Bits()
	sign := uint64(1) << (bits - 1)
	expAll := map[int]uint64{16: 0x7c00, 32: 0x7f800000, 64: 0x7ff0000000000000}[bits]
	quiet := map[int]uint64{16: 0x200, 32: 0x400000, 64: 1 << 51}[bits]
	frac := quiet*2 - 1
	vals := []uint64{0, sign, 1, sign | 1, frac, sign | frac}
	switch op {
	case intrinsics.WaveActiveAllEqual, intrinsics.WaveActiveMin, intrinsics.WaveActiveMax:
	default:
		vals = append(vals, expAll|quiet, expAll|quiet|0x15, sign|expAll|quiet|1, expAll, sign|expAll)
	}
	return vals[r.intn(len(vals))]
}

// hasSpecials: the operations whose float rules (models/floats.go) the special
// values exercise: AllEqual, Min, Max and the reads, in every float width (a
// double crosses the record with all 64 bits, record.go).
func hasSpecials(op intrinsics.Op, s models.Scalar) bool {
	if !s.IsFloat() {
		return false
	}
	switch op {
	case intrinsics.WaveActiveAllEqual, intrinsics.WaveActiveMin, intrinsics.WaveActiveMax,
		intrinsics.WaveReadLaneAt, intrinsics.WaveReadLaneFirst, intrinsics.QuadReadAcrossX,
		intrinsics.QuadReadAcrossY, intrinsics.QuadReadAcrossDiagonal, intrinsics.QuadReadLaneAt:
		return true
	}
	return false
}
