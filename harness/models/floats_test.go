package models

import (
	"math"
	"math/big"
	"math/rand"
	"testing"

	"waverig/compiler/intrinsics"
)

// devOp is one operation of a device in precision s: the exact result of two
// values of s rounded to nearest in s (every rounding a legal order performs).
func devOp(s Scalar, mul bool, a, b uint64) uint64 {
	x, y := ratOf(s, a), ratOf(s, b)
	if mul {
		return RoundNearest(s, x.Mul(x, y))
	}
	return RoundNearest(s, x.Add(x, y))
}

// randomTree combines the values in a random order and a random association
// (a random binary tree over a random permutation), rounding every step in s.
func randomTree(r *rand.Rand, s Scalar, mul bool, vals []uint64) uint64 {
	work := append([]uint64(nil), vals...)
	r.Shuffle(len(work), func(i, j int) { work[i], work[j] = work[j], work[i] })
	for len(work) > 1 {
		i := r.Intn(len(work) - 1)
		work[i] = devOp(s, mul, work[i], work[i+1])
		work = append(work[:i+1], work[i+2:]...)
	}
	return work[0]
}

// wideThenRound is the other legal half evaluation: exact in a wider format
// (fp32 steps) with one rounding to half at the end.
func wideThenRound(r *rand.Rand, s Scalar, mul bool, vals []uint64) uint64 {
	w := make([]uint64, len(vals))
	for i, v := range vals {
		w[i] = FromFloat64(Float32, ToFloat64(s, v))
	}
	return RoundNearest(s, ratOf(Float32, randomTree(r, Float32, mul, w)))
}

// testValues draws n values of s: sums get mixed signs and magnitudes over
// several binades with full significands (cancellation included), products
// 1 + k·2^-(p-2) factors (not exact in any narrower type).
func testValues(r *rand.Rand, s Scalar, mul bool, n int) []uint64 {
	p := unitRoundoff(s)
	out := make([]uint64, n)
	for i := range out {
		var f float64
		if mul {
			f = 1 + float64(r.Intn(64)-32)*math.Ldexp(1, -(p-2))
		} else {
			m := float64(r.Int63n(1<<uint(p-1)) + 1<<uint(p-1)) // p-bit significand
			f = math.Ldexp(m, -(p-1)+r.Intn(8)-4)
			if s == Float16 {
				f = math.Ldexp(m, -(p-1)+r.Intn(6)-3)
			}
			if r.Intn(2) == 0 {
				f = -f
			}
		}
		out[i] = FromFloat64(s, f)
	}
	return out
}

// TestIntervalsAcceptEveryOrder: the accepted interval of a sum or product holds
// every result of many random orders and associations in the device's precision
// (and, for half, of a wider accumulation rounded once) — soundness.
func TestIntervalsAcceptEveryOrder(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for _, s := range []Scalar{Float16, Float32, Float64} {
		for _, mul := range []bool{false, true} {
			for _, n := range []int{2, 3, 5, 16, 64} {
				for trial := 0; trial < 6; trial++ {
					vals := testValues(r, s, mul, n)
					var a *Allowed
					var ok bool
					if mul {
						a, ok = ProductAllowed(s, vals)
					} else {
						a, ok = SumAllowed(s, vals)
					}
					if !ok {
						t.Fatalf("%s: no interval for finite values", s)
					}
					for k := 0; k < 40; k++ {
						got := randomTree(r, s, mul, vals)
						if s == Float16 && k%2 == 1 {
							got = wideThenRound(r, s, mul, vals)
						}
						if !a.Has(s, got) {
							t.Fatalf("%s mul=%v n=%d: legal result %s outside %s", s, mul, n, FormatComp(s, got), a.String(s))
						}
					}
				}
			}
		}
	}
}

// TestIntervalsRejectWrongResults: a few ulps beyond the interval, and a sum that
// drops or duplicates a lane, are rejected — tightness.
func TestIntervalsRejectWrongResults(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	for _, s := range []Scalar{Float16, Float32, Float64} {
		for _, n := range []int{4, 16, 64} {
			vals := testValues(r, s, false, n)
			a, _ := SumAllowed(s, vals)
			for steps := int64(1); steps <= 3; steps++ {
				if a.Has(s, fromKey(s, orderKey(s, a.Hi)+steps)) || a.Has(s, fromKey(s, orderKey(s, a.Lo)-steps)) {
					t.Errorf("%s n=%d: %d ulps outside %s accepted", s, n, steps, a.String(s))
				}
			}
			// The lane of largest magnitude dropped or counted twice.
			big1 := 0
			for i, v := range vals {
				if math.Abs(ToFloat64(s, v)) > math.Abs(ToFloat64(s, vals[big1])) {
					big1 = i
				}
			}
			sum := new(big.Rat)
			for _, v := range vals {
				sum.Add(sum, ratOf(s, v))
			}
			drop := new(big.Rat).Sub(sum, ratOf(s, vals[big1]))
			dup := new(big.Rat).Add(sum, ratOf(s, vals[big1]))
			for name, x := range map[string]*big.Rat{"dropped": drop, "duplicated": dup} {
				if got := RoundNearest(s, x); a.Has(s, got) {
					t.Errorf("%s n=%d: sum with lane %d %s (%s) accepted by %s", s, n, big1, name, FormatComp(s, got), a.String(s))
				}
			}
			// A product with one factor missing.
			pv := testValues(r, s, true, n)
			pa, _ := ProductAllowed(s, pv)
			far := 0
			for i, v := range pv {
				if math.Abs(ToFloat64(s, v)-1) > math.Abs(ToFloat64(s, pv[far])-1) {
					far = i
				}
			}
			p := big.NewRat(1, 1)
			for i, v := range pv {
				if i != far {
					p.Mul(p, ratOf(s, v))
				}
			}
			if got := RoundNearest(s, p); pa.Has(s, got) {
				t.Errorf("%s n=%d: product without factor %s accepted by %s", s, n, FormatComp(s, pv[far]), pa.String(s))
			}
		}
	}
}

// TestSpecialValueRules: Min/Max leave a component with a NaN or an infinity
// free (Vulkan's default float mode) and the zero's sign and a denormal's flush
// free; AllEqual accepts both answers where float and bit
// equality disagree; a float read is bit-exact, a half read allows the
// conversions' changes.
func TestSpecialValueRules(t *testing.T) {
	f32 := func(f float32) uint64 { return uint64(math.Float32bits(f)) }
	nan := uint64(0x7fc00001)
	den := uint64(1) // smallest float denormal
	lanes := func(vs ...uint64) []Lane {
		ls := make([]Lane, len(vs))
		for i, v := range vs {
			ls[i] = Lane{Index: uint32(i), Active: true, Input: []uint64{v}}
		}
		return ls
	}
	ft := Type{Float32, 1}
	// Vulkan's default float mode: a NaN or an infinity among the lanes leaves
	// that component free (lavapipe's 16-bit min gives 27.75 for -7.75, NaN, 68.25,
	// 27.75), and only that component: the other stays exact.
	inf := f32(float32(math.Inf(1)))
	vt := Type{Float32, 2}
	vl := []Lane{
		{Index: 0, Active: true, Input: []uint64{f32(-7.75), f32(3)}},
		{Index: 1, Active: true, Input: []uint64{nan, f32(2)}},
		{Index: 2, Active: true, Input: []uint64{f32(68.25), f32(5)}},
		{Index: 3, Active: true, Input: []uint64{f32(27.75), f32(4)}},
	}
	mn, _ := Reduce(intrinsics.WaveActiveMin, vt, vl)
	for _, got := range []uint64{f32(-7.75), f32(27.75), nan, inf} {
		if !mn[0].Accepts(Float32, 0, got) {
			t.Errorf("min over a NaN lane must accept %s: %s", FormatComp(Float32, got), FormatWant(Float32, mn[0]))
		}
	}
	if !mn[0].Accepts(Float32, 1, f32(2)) || mn[0].Accepts(Float32, 1, f32(3)) || mn[0].Accepts(Float32, 1, nan) {
		t.Errorf("min's NaN-free component must stay exact: %s", FormatWant(Float32, mn[0]))
	}
	mx, _ := Reduce(intrinsics.WaveActiveMax, ft, lanes(f32(58.75), inf))
	if !mx[0].Accepts(Float32, 0, f32(58.75)) || !mx[0].Accepts(Float32, 0, inf) {
		t.Errorf("max over an infinite lane must accept any value: %s", FormatWant(Float32, mx[0]))
	}
	mn, _ = Reduce(intrinsics.WaveActiveMin, ft, lanes(f32(0), uint64(math.Float32bits(float32(math.Copysign(0, -1))))))
	if !mn[0].Accepts(Float32, 0, f32(0)) || !mn[0].Accepts(Float32, 0, 0x80000000) {
		t.Errorf("min(+0, -0) must accept either zero: %s", FormatWant(Float32, mn[0]))
	}
	mx, _ = Reduce(intrinsics.WaveActiveMax, ft, lanes(den, f32(0), f32(-1)))
	if !mx[0].Accepts(Float32, 0, den) || !mx[0].Accepts(Float32, 0, f32(0)) || mx[0].Accepts(Float32, 0, f32(-1)) {
		t.Errorf("max(denormal, 0, -1): %s", FormatWant(Float32, mx[0]))
	}
	all, _ := Reduce(intrinsics.WaveActiveMax, ft, lanes(nan, nan))
	if !all[0].Undefined {
		t.Error("max of NaNs only must be undefined")
	}
	eq, _ := AllEqual(ft, lanes(nan, nan))
	if !eq[0].Accepts(Float32, 0, 0) || !eq[0].Accepts(Float32, 0, 1) {
		t.Errorf("AllEqual(same NaN): %s", FormatWant(Bool, eq[0]))
	}
	// Default float mode: lavapipe's "not ordered-unequal" gives true here.
	eq, _ = AllEqual(ft, lanes(nan, f32(1)))
	if !eq[0].Accepts(Float32, 0, 0) || !eq[0].Accepts(Float32, 0, 1) {
		t.Errorf("AllEqual(NaN, 1) must accept both: %s", FormatWant(Bool, eq[0]))
	}
	eq, _ = AllEqual(ft, lanes(f32(-1), f32(1)))
	if eq[0].Accepts(Float32, 0, 1) {
		t.Error("AllEqual(-1, 1) true accepted")
	}
	rd, _ := ReadLaneFirst(ft, lanes(0x80000000, f32(1)))
	if rd[1].Accepts(Float32, 0, 0) || !rd[1].Accepts(Float32, 0, 0x80000000) {
		t.Error("float read of -0 must be bit-exact")
	}
	rd, _ = ReadLaneFirst(ft, lanes(nan))
	if rd[0].Accepts(Float32, 0, 0x7fc00000) {
		t.Error("float read must keep the NaN payload")
	}
	ht := Type{Float16, 1}
	rd, _ = ReadLaneFirst(ht, lanes(0x8001))
	if !rd[0].Accepts(Float16, 0, 0x8000) || rd[0].Accepts(Float16, 0, 0) {
		t.Errorf("half read of a denormal: same-signed flush only: %s", FormatWant(Float16, rd[0]))
	}
}

// TestDoubleSpecialValueRules: doubles follow the float rules now that they
// cross the record whole: a read keeps every bit (NaN payload, -0, infinities)
// and may flush a denormal to its same-signed zero only; Min/Max leave a
// component with a NaN or an infinity free and a zero's sign and a denormal's
// flush free; AllEqual accepts both answers where the readings of "equal"
// disagree; a sum of ordinary doubles is held to double precision.
func TestDoubleSpecialValueRules(t *testing.T) {
	f64 := math.Float64bits
	lanes := func(vs ...uint64) []Lane {
		ls := make([]Lane, len(vs))
		for i, v := range vs {
			ls[i] = Lane{Index: uint32(i), Active: true, Input: []uint64{v}}
		}
		return ls
	}
	dt := Type{Float64, 1}
	nan := uint64(0x7ff8000000000015)
	negZero := uint64(1) << 63
	den := uint64(1) | negZero // the smallest negative denormal
	inf := f64(math.Inf(1))
	pi := f64(math.Pi) // 53 significant bits

	rd, _ := ReadLaneFirst(dt, lanes(pi, 0))
	if !rd[1].Accepts(Float64, 0, pi) || rd[1].Accepts(Float64, 0, f64(float64(float32(math.Pi)))) || rd[1].Accepts(Float64, 0, pi^1) {
		t.Errorf("double read of pi must be bit-exact: %s", FormatWant(Float64, rd[1]))
	}
	rd, _ = ReadLaneFirst(dt, lanes(negZero))
	if !rd[0].Accepts(Float64, 0, negZero) || rd[0].Accepts(Float64, 0, 0) {
		t.Error("double read of -0 must keep the sign")
	}
	rd, _ = ReadLaneFirst(dt, lanes(nan))
	if !rd[0].Accepts(Float64, 0, nan) || rd[0].Accepts(Float64, 0, 0x7ff8000000000000) {
		t.Error("double read must keep the NaN payload")
	}
	rd, _ = ReadLaneFirst(dt, lanes(inf))
	if !rd[0].Accepts(Float64, 0, inf) || rd[0].Accepts(Float64, 0, f64(math.MaxFloat64)) {
		t.Error("double read of +inf must be +inf")
	}
	rd, _ = ReadLaneFirst(dt, lanes(den))
	if !rd[0].Accepts(Float64, 0, den) || !rd[0].Accepts(Float64, 0, negZero) || rd[0].Accepts(Float64, 0, 0) || rd[0].Accepts(Float64, 0, 1) {
		t.Errorf("double read of a denormal: its bits or its same-signed zero: %s", FormatWant(Float64, rd[0]))
	}
	// The same rule for float (one sentence of the spec covers both).
	rd, _ = ReadLaneFirst(Type{Float32, 1}, lanes(0x80000001))
	if !rd[0].Accepts(Float32, 0, 0x80000001) || !rd[0].Accepts(Float32, 0, 0x80000000) || rd[0].Accepts(Float32, 0, 0) {
		t.Errorf("float read of a denormal: %s", FormatWant(Float32, rd[0]))
	}

	mn, _ := Reduce(intrinsics.WaveActiveMin, dt, lanes(f64(-7.75), nan, f64(68.25)))
	for _, got := range []uint64{f64(-7.75), f64(68.25), nan, inf} {
		if !mn[0].Accepts(Float64, 0, got) {
			t.Errorf("double min over a NaN lane must accept %s: %s", FormatComp(Float64, got), FormatWant(Float64, mn[0]))
		}
	}
	mn, _ = Reduce(intrinsics.WaveActiveMin, dt, lanes(0, negZero, f64(1)))
	if !mn[0].Accepts(Float64, 0, 0) || !mn[0].Accepts(Float64, 0, negZero) || mn[0].Accepts(Float64, 0, f64(1)) {
		t.Errorf("double min(+0, -0, 1) must accept either zero only: %s", FormatWant(Float64, mn[0]))
	}
	mx, _ := Reduce(intrinsics.WaveActiveMax, dt, lanes(1, 0, f64(-1)))
	if !mx[0].Accepts(Float64, 0, 1) || !mx[0].Accepts(Float64, 0, 0) || mx[0].Accepts(Float64, 0, f64(-1)) {
		t.Errorf("double max(denormal, 0, -1): %s", FormatWant(Float64, mx[0]))
	}
	mx, _ = Reduce(intrinsics.WaveActiveMax, dt, lanes(pi, f64(3)))
	if !mx[0].Accepts(Float64, 0, pi) || mx[0].Accepts(Float64, 0, f64(float64(float32(math.Pi)))) {
		t.Errorf("double max of ordinary values must be exact: %s", FormatWant(Float64, mx[0]))
	}
	eq, _ := AllEqual(dt, lanes(den, negZero))
	if !eq[0].Accepts(Float64, 0, 0) || !eq[0].Accepts(Float64, 0, 1) {
		t.Errorf("AllEqual(denormal, -0): flushed equal, unflushed not: both: %s", FormatWant(Bool, eq[0]))
	}
	eq, _ = AllEqual(dt, lanes(pi, f64(math.Pi+4e-16)))
	if eq[0].Accepts(Float64, 0, 1) {
		t.Error("AllEqual of doubles one ulp apart: true accepted")
	}
	// Sums: the interval is double precision's, so a float-precision sum fails.
	a, b := f64(1), f64(0x1p-40)
	sum, _ := Reduce(intrinsics.WaveActiveSum, dt, lanes(a, b))
	if !sum[0].Accepts(Float64, 0, f64(1+0x1p-40)) || sum[0].Accepts(Float64, 0, f64(1)) {
		t.Errorf("double sum 1 + 2^-40: %s", FormatWant(Float64, sum[0]))
	}
}
