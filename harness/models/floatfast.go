package models

import (
	"math"
	"math/bits"
)

// The exact float arithmetic of the sum and product intervals (floats.go),
// without math/big. SumAllowed, ProductAllowed and the prefix scans decide
// every endpoint by comparing a candidate value c of the result type with the
// exact r = x ∓ γ(k)·A (x the exact sum or product, A the sum of magnitudes or
// |x|, γ(k) = k·u/(1-k·u) = k/(2^p-k) with u = 2^-p). Since 2^p-k > 0,
//
//	sign(c - (x ∓ γ(k)·A)) = sign((c - x)·(2^p-k) ± k·A),
//
// and every quantity on the right is a finite sum of float64 products: it is
// computed exactly as a floating-point expansion (Shewchuk, "Adaptive Precision
// Floating-Point Arithmetic and Fast Robust Geometric Predicates", 1997: a sum
// of nonoverlapping float64 components in increasing magnitude, whose sign is
// its largest component's). Two-Sum and Two-Product (through math.FMA) give each
// rounding error exactly as long as nothing overflows and no product comes near
// the subnormal range; every step checks that, and where it does not hold the
// caller falls back to the math/big computation, which gives the same answer
// (the rounding search is the same, only its comparisons are computed another
// way). Sums of half and float terms never fall back; sums of doubles and
// products do only near the ends of the float64 range. A product of many
// factors has more bits than a float64 exponent spans: its expansion keeps the
// leading bits and a bound on the rest, and a comparison that bound could
// change falls back too.

const (
	// expHuge: a component at or beyond it might overflow a later step
	// (a scaling by 2^53 at most, then sums of a few hundred terms).
	expHuge = 0x1p960
	// expTiny: a nonzero product below it might have an error Two-Product
	// cannot represent (that needs an exponent ≥ emin + 52 = -970).
	expTiny = 0x1p-960
)

// exact is one exact computation's scratch; ok turns false when a step could
// not be exact (the caller then falls back to math/big).
type exact struct {
	ok bool
}

func twoSum(a, b float64) (s, e float64) {
	s = a + b
	bv := s - a
	av := s - bv
	return s, (a - av) + (b - bv)
}

// twoProd is a·b as hi + lo exactly (when checked by the caller).
func (x *exact) twoProd(a, b float64) (hi, lo float64) {
	hi = a * b
	if ab := math.Abs(hi); !(ab < expHuge) || (hi != 0 && ab < expTiny) {
		x.ok = false
		return hi, 0
	}
	return hi, math.FMA(a, b, -hi)
}

// grow appends b to expansion e in place (Shewchuk's Grow-Expansion with zero
// elimination): the result is e + b exactly, nonoverlapping, increasing.
func (x *exact) grow(e []float64, b float64) []float64 {
	q := b
	n := 0
	for _, c := range e {
		var h float64
		q, h = twoSum(q, c)
		if h != 0 {
			e[n] = h
			n++
		}
	}
	if !(math.Abs(q) < expHuge) {
		x.ok = false
	}
	if q != 0 {
		e = append(e[:n], q)
		n++
	}
	return e[:n]
}

// add appends expansion f to e (f's components one by one).
func (x *exact) add(e, f []float64, neg bool) []float64 {
	for _, c := range f {
		if neg {
			c = -c
		}
		e = x.grow(e, c)
	}
	return e
}

// scale is e·b as a new expansion in dst (Shewchuk's Scale-Expansion, zeros
// eliminated): exact, nonoverlapping, increasing.
func (x *exact) scale(dst, e []float64, b float64) []float64 {
	dst = dst[:0]
	if len(e) == 0 || b == 0 {
		return dst
	}
	q, h := x.twoProd(e[0], b)
	if h != 0 {
		dst = append(dst, h)
	}
	for _, c := range e[1:] {
		t1, t0 := x.twoProd(c, b)
		var s float64
		q, s = twoSum(q, t0)
		if s != 0 {
			dst = append(dst, s)
		}
		q, s = t1+q, q-((t1+q)-t1) // Fast-Two-Sum(t1, q): |t1| ≥ |q|
		if s != 0 {
			dst = append(dst, s)
		}
	}
	if !(math.Abs(q) < expHuge) {
		x.ok = false
	}
	if q != 0 {
		dst = append(dst, q)
	}
	return dst
}

// sign is the sign of an expansion: its largest (last) component's.
func sign(e []float64) int {
	if len(e) == 0 {
		return 0
	}
	if e[len(e)-1] > 0 {
		return 1
	}
	return -1
}

// approx is an expansion's value rounded (near it; for a first guess only).
func approx(e []float64) float64 {
	s := 0.0
	for _, c := range e {
		s += c
	}
	return s
}

// exactInterval is intervalAround(s, x, γ(k)·a) for x and a given as
// expansions (a ≥ 0), each within tail of the exact value (0: exact); ok false
// where the arithmetic could not decide.
func exactInterval(s Scalar, xe, ae []float64, tail float64, k int) (lo, hi uint64, ok bool) {
	if k < 0 {
		k = 0
	}
	p := unitRoundoff(s)
	if k >= 1<<p {
		return 0, 0, false
	}
	d := math.Ldexp(1, p) - float64(k) // 2^p - k, exact
	// A tail moves (c - x)·d ± k·a by at most tail·(d + k) = tail·2^p.
	bound := tail * math.Ldexp(1, p) * (1 + 0x1p-40)
	x := exact{ok: true}
	xd := x.scale(nil, xe, d)
	ka := x.scale(nil, ae, float64(k))
	// base[0] = -x·d + k·a (the lower end), base[1] = -x·d - k·a (the upper).
	var base [2][]float64
	for i := range base {
		b := make([]float64, len(xd), len(xd)+len(ka)+4)
		for j, c := range xd {
			b[j] = -c
		}
		base[i] = x.add(b, ka, i == 1)
	}
	if !x.ok {
		return 0, 0, false
	}
	scratch := make([]float64, 0, len(xd)+len(ka)+4)
	// cmp is sign(c - r) for the candidate bits c (cmpRat's answer).
	cmp := func(c uint64, end int) int {
		f := ToFloat64(s, c)
		switch {
		case math.IsInf(f, 1):
			return 1
		case math.IsInf(f, -1):
			return -1
		}
		z := append(scratch[:0], base[end]...)
		h, l := x.twoProd(f, d)
		z = x.grow(z, l)
		z = x.grow(z, h)
		scratch = z
		if tail != 0 {
			// The sign is the expansion's only where its value is beyond
			// what the tail can move.
			if len(z) == 0 {
				x.ok = false
				return 0
			}
			rest := 0.0
			for _, c := range z[:len(z)-1] {
				rest += math.Abs(c)
			}
			if !(math.Abs(z[len(z)-1])-rest*(1+0x1p-40) > bound) {
				x.ok = false
				return 0
			}
		}
		return sign(z)
	}
	ax, aa := approx(xe), approx(ae)*float64(k)/d
	lo = roundExact(s, ax-aa, true, &x, func(c uint64) int { return cmp(c, 0) })
	hi = roundExact(s, ax+aa, false, &x, func(c uint64) int { return cmp(c, 1) })
	if !x.ok {
		return 0, 0, false
	}
	return lo, hi, true
}

// roundExact is roundRat's search from the first guess f, with cmp(c) the
// sign of c - r: the least value of s ≥ r (up) or the greatest ≤ r. The
// answer does not depend on the guess (the values are ordered by key). It
// stops when x.ok turns false (a comparison could not decide).
func roundExact(s Scalar, f float64, up bool, x *exact, cmp func(c uint64) int) uint64 {
	c := FromFloat64(s, f)
	if math.IsNaN(f) {
		c = 0
	}
	inf := orderKey(s, FromFloat64(s, math.Inf(1)))
	k := orderKey(s, c)
	at := func(k int64) uint64 { return fromKey(s, k) }
	if up {
		for x.ok && k < inf && cmp(at(k)) < 0 {
			k++
		}
		for x.ok && k > -inf && cmp(at(k-1)) >= 0 {
			k--
		}
	} else {
		for x.ok && k > -inf && cmp(at(k)) > 0 {
			k--
		}
		for x.ok && k < inf && cmp(at(k+1)) <= 0 {
			k++
		}
	}
	return at(k)
}

// sumExpansions are the exact sum and sum of magnitudes of finite terms (bits
// of s) as expansions; ok false for a NaN or infinite term, or a step that
// could not be exact.
func sumExpansions(s Scalar, terms []uint64) (xe, ae []float64, finite, ok bool) {
	x := exact{ok: true}
	for _, t := range terms {
		if !isFinite(s, t) {
			return nil, nil, false, false
		}
		f := ToFloat64(s, t)
		xe = x.grow(xe, f)
		ae = x.grow(ae, math.Abs(f))
	}
	return xe, ae, true, x.ok
}

// fastSumAllowed is SumAllowed without math/big; exact false where it cannot
// decide (the caller computes it with math/big).
func fastSumAllowed(s Scalar, terms []uint64) (a *Allowed, ok, exact bool) {
	xe, ae, finite, ex := sumExpansions(s, terms)
	if !finite {
		return nil, false, true
	}
	if !ex {
		return nil, false, false
	}
	lo, hi, ex := exactInterval(s, xe, ae, 0, len(terms)-1)
	if !ex {
		return nil, false, false
	}
	return &Allowed{Interval: true, Lo: lo, Hi: hi}, true, true
}

// product is an exact product of floats: (-1)^neg · m · 2^e, m a natural
// number in 64-bit limbs (least significant first); zero when m is empty.
type product struct {
	m    []uint64
	e    int
	neg  bool
	zero bool
}

func newProduct() product { return product{m: []uint64{1}} }

// mul multiplies the product by the finite float64 f.
func (p *product) mul(f float64) {
	if f == 0 {
		p.zero = true
	}
	if p.zero {
		return
	}
	if f < 0 {
		p.neg = !p.neg
		f = -f
	}
	fr, ex := math.Frexp(f)
	m := uint64(math.Ldexp(fr, 53)) // f = m · 2^(ex-53), m < 2^53
	tz := bits.TrailingZeros64(m)
	m >>= uint(tz)
	p.e += ex - 53 + tz
	var carry uint64
	for i, l := range p.m {
		hi, lo := bits.Mul64(l, m)
		var c uint64
		lo, c = bits.Add64(lo, carry, 0)
		p.m[i] = lo
		carry = hi + c
	}
	if carry != 0 {
		p.m = append(p.m, carry)
	}
}

// productBits is how many of a product's leading bits its expansion keeps:
// enough to decide every comparison but those of a candidate within 2^-300 or
// so of an interval's end (those fall back to math/big).
const productBits = 320

// expansion is the product as an expansion: its leading productBits bits (all
// of them where there are no more) in 52-bit chunks, each exact in a float64,
// and a bound on the rest (tail; 0 when nothing was left out); ok false where
// the leading bits are beyond the range where the interval's steps are exact.
func (p *product) expansion() (e []float64, tail float64, ok bool) {
	if p.zero {
		return nil, 0, true
	}
	top := len(p.m)*64 - bits.LeadingZeros64(p.m[len(p.m)-1])
	from := max(top-productBits, 0) // the first bit kept
	if p.e+from < -900 || p.e+top > 900 {
		return nil, 0, false
	}
	for at := from; at < top; at += 52 {
		w, b := at/64, uint(at%64)
		chunk := p.m[w] >> b
		if b > 12 && w+1 < len(p.m) {
			chunk |= p.m[w+1] << (64 - b)
		}
		chunk &= 1<<52 - 1
		if chunk == 0 {
			continue
		}
		c := math.Ldexp(float64(chunk), p.e+at)
		if p.neg {
			c = -c
		}
		e = append(e, c)
	}
	if from > 0 {
		tail = math.Ldexp(1, p.e+from) // the bits below from are less than it
	}
	return e, tail, true
}

// abs is an expansion's absolute value (its sign is its last component's).
func absExpansion(e []float64) []float64 {
	if sign(e) >= 0 {
		return e
	}
	a := make([]float64, len(e))
	for i, c := range e {
		a[i] = -c
	}
	return a
}

// fastProductAllowed is ProductAllowed without math/big; exact false where it
// cannot decide.
func fastProductAllowed(s Scalar, factors []uint64) (a *Allowed, ok, exact bool) {
	p := newProduct()
	for _, t := range factors {
		if !isFinite(s, t) {
			return nil, false, true
		}
		p.mul(ToFloat64(s, t))
	}
	pe, tail, ex := p.expansion()
	if !ex {
		return nil, false, false
	}
	lo, hi, ex := exactInterval(s, pe, absExpansion(pe), tail, len(factors)-1)
	if !ex {
		return nil, false, false
	}
	return &Allowed{Interval: true, Lo: lo, Hi: hi}, true, true
}
