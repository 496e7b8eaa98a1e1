package models

import (
	"math"
	"math/rand"
	"testing"
)

// The oracle of these tests is bigSumAllowed / bigProductAllowed: the
// math/big rationals SumAllowed and ProductAllowed were computed with before
// floatfast.go (unchanged, and still their fallback).

// specialValue draws one of the values at the edges of s: NaN, infinities,
// zeros, the smallest and largest denormals and normals, the largest finite
// value, ±1, halves, values just beside 1.
func specialValue(r *rand.Rand, s Scalar) uint64 {
	p := unitRoundoff(s)
	var minNormal, maxFinite float64
	switch s {
	case Float16:
		minNormal, maxFinite = 0x1p-14, 65504
	case Float32:
		minNormal, maxFinite = 0x1p-126, math.MaxFloat32
	default:
		minNormal, maxFinite = 0x1p-1022, math.MaxFloat64
	}
	minDenorm := math.Ldexp(minNormal, -(p - 1))
	vals := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1),
		minDenorm, minNormal - minDenorm, minNormal, maxFinite, 1, -1, 0.5, -0.5, 1.5, 2.5,
		1 + math.Ldexp(1, -(p-1)), 1 - math.Ldexp(1, -p), 3, float64(r.Intn(200)-100) + 0.5}
	f := vals[r.Intn(len(vals))]
	if r.Intn(2) == 0 {
		f = -f
	}
	return FromFloat64(s, f)
}

// diffTerms draws n terms of s from one of several families: random bits,
// specials mixed in, full significands over a few binades, near-1 factors,
// large cancellation (pairs x, -x and a small remainder), denormals, huge.
func diffTerms(r *rand.Rand, s Scalar, n int) []uint64 {
	out := make([]uint64, n)
	family := r.Intn(8)
	for i := range out {
		switch family {
		case 0: // any bits
			out[i] = mask(s, r.Uint64())
		case 1: // specials among ordinary values
			if r.Intn(4) == 0 {
				out[i] = specialValue(r, s)
			} else {
				out[i] = FromFloat64(s, r.NormFloat64()*8)
			}
		case 2, 3: // sums' and products' test values
			out[i] = testValues(r, s, family == 3, 1)[0]
		case 4: // cancellation: x, -x, and small terms
			if i%2 == 1 {
				out[i] = mask(s, out[i-1]^(uint64(1)<<(s.Bits()-1)))
			} else if r.Intn(3) == 0 {
				out[i] = FromFloat64(s, math.Ldexp(r.Float64(), -r.Intn(30)))
			} else {
				out[i] = FromFloat64(s, math.Ldexp(r.Float64()+1, r.Intn(20)))
			}
		case 5: // denormals and zeros
			out[i] = mask(s, uint64(r.Intn(1<<uint(unitRoundoff(s)-1))))
			if r.Intn(2) == 0 {
				out[i] |= uint64(1) << (s.Bits() - 1)
			}
		case 6: // near the top of the range
			out[i] = FromFloat64(s, math.Ldexp(1+r.Float64(), topExp(s)-r.Intn(4)))
			if r.Intn(2) == 0 {
				out[i] = mask(s, out[i]^(uint64(1)<<(s.Bits()-1)))
			}
		default: // small integers and halves (exact sums)
			out[i] = FromFloat64(s, float64(r.Intn(64)-32)/2)
		}
	}
	return out
}

// nearOne says every factor is finite and within [1/2, 2] in magnitude.
func nearOne(s Scalar, factors []uint64) bool {
	for _, f := range factors {
		if a := math.Abs(ToFloat64(s, f)); !(a >= 0.5 && a <= 2) {
			return false
		}
	}
	return true
}

func topExp(s Scalar) int {
	switch s {
	case Float16:
		return 14
	case Float32:
		return 126
	}
	return 1022
}

func sameAllowed(a, b *Allowed) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Interval == b.Interval && a.Lo == b.Lo && a.Hi == b.Hi && a.AnyNaN == b.AnyNaN &&
		len(a.Values) == 0 && len(b.Values) == 0 && len(a.Bits) == 0 && len(b.Bits) == 0
}

// TestFastIntervalsMatchBig: over random and special-value inputs the float64
// expansions give, wherever they decide, exactly the interval the math/big
// rationals give (and SumAllowed / ProductAllowed always do); sums of half and
// float terms always decide.
func TestFastIntervalsMatchBig(t *testing.T) {
	trials := 30000
	if testing.Short() {
		trials = 6000
	}
	r := rand.New(rand.NewSource(19))
	decided, fell := 0, 0
	for trial := 0; trial < trials; trial++ {
		s := []Scalar{Float16, Float32, Float64}[trial%3]
		n := []int{0, 1, 2, 3, 4, 7, 8, 16, 31, 32, 64, 128}[r.Intn(12)]
		terms := diffTerms(r, s, n)
		for _, mul := range []bool{false, true} {
			var fa, ba, pa *Allowed
			var fok, bok, pok, exact bool
			if mul {
				fa, fok, exact = fastProductAllowed(s, terms)
				ba, bok = bigProductAllowed(s, terms)
				pa, pok = ProductAllowed(s, terms)
			} else {
				fa, fok, exact = fastSumAllowed(s, terms)
				ba, bok = bigSumAllowed(s, terms)
				pa, pok = SumAllowed(s, terms)
			}
			if pok != bok || !sameAllowed(pa, ba) {
				t.Fatalf("%s mul=%v terms %s: got %v %v, math/big %v %v", s, mul, FormatComps(s, terms), pok, pa, bok, ba)
			}
			if !exact {
				fell++
				if !mul && s != Float64 {
					t.Fatalf("%s sum of %s fell back to math/big", s, FormatComps(s, terms))
				}
				if r0 := terms; mul && len(r0) > 0 && nearOne(s, r0) {
					t.Fatalf("%s product of factors near 1 %s fell back to math/big", s, FormatComps(s, terms))
				}
				continue
			}
			decided++
			if fok != bok || !sameAllowed(fa, ba) {
				t.Fatalf("%s mul=%v terms %s: expansions %v %+v, math/big %v %+v", s, mul, FormatComps(s, terms), fok, fa, bok, ba)
			}
		}
	}
	if decided < 3*(decided+fell)/4 {
		t.Fatalf("the expansions decided only %d of %d", decided, decided+fell)
	}
	t.Logf("%d decided by the expansions, %d by math/big", decided, fell)
}

// TestScanSetsMatchBig: every prefix's sets of a scan (Prefix's scanSets) are
// the math/big intervals of the terms so far.
func TestScanSetsMatchBig(t *testing.T) {
	trials := 1500
	if testing.Short() {
		trials = 300
	}
	r := rand.New(rand.NewSource(23))
	for trial := 0; trial < trials; trial++ {
		s := []Scalar{Float16, Float32, Float64}[trial%3]
		n := 1 + r.Intn(40)
		tp := Type{Scalar: s, N: 2}
		cols := [2][]uint64{diffTerms(r, s, n), diffTerms(r, s, n)}
		for _, a := range []arith{opAdd, opMul} {
			sc := newScanSets(a, tp)
			for i := 0; i < n; i++ {
				sc.add(Lane{Input: []uint64{cols[0][i], cols[1][i]}})
				got := sc.sets()
				for k := range got {
					var want *Allowed
					var ok bool
					if a == opMul {
						want, ok = bigProductAllowed(s, cols[k][:i+1])
					} else {
						want, ok = bigSumAllowed(s, cols[k][:i+1])
					}
					if !ok {
						want = nil
					}
					if !sameAllowed(got[k], want) {
						t.Fatalf("%s op %v prefix %d component %d (%s): got %+v, math/big %+v", s, a, i+1, k, FormatComps(s, cols[k][:i+1]), got[k], want)
					}
				}
			}
		}
	}
}

// BenchmarkSumAllowed compares the expansions with math/big on one wave's
// float terms (32 lanes, as at wave size 32).
func BenchmarkSumAllowed(b *testing.B) {
	r := rand.New(rand.NewSource(5))
	terms := testValues(r, Float32, false, 32)
	factors := testValues(r, Float32, true, 32)
	b.Run("fast/sum", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			SumAllowed(Float32, terms)
		}
	})
	b.Run("big/sum", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			bigSumAllowed(Float32, terms)
		}
	})
	b.Run("fast/product", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			ProductAllowed(Float32, factors)
		}
	})
	b.Run("big/product", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			bigProductAllowed(Float32, factors)
		}
	})
}
