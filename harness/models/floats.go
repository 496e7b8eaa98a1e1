package models

import (
	"fmt"
	"math"
	"math/big"
	"strings"
)

// The float rules of the models, each written down once with its source.
//
// Sums and products (WaveActiveSum/Product, WavePrefixSum/Product,
// WaveMultiPrefixSum/Product). SPIR-V (OpGroupNonUniformFAdd/FMul): "The method
// used to perform the group operation on the contributed Value(s) from active
// invocations is implementation defined" — any order and any association of the
// terms is legal. Vulkan ("Precision and Operation of SPIR-V Instructions") makes
// OpFAdd/OpFMul correctly rounded; the bound below assumes round to nearest, the
// default and the only mode lavapipe and the hardware the rig targets use. The
// standard error analysis of recursive summation (Higham, "Accuracy and Stability
// of Numerical Algorithms", §4.2, eq. 4.4) bounds every order and association of n
// terms by |ŝ - s| ≤ γ(n-1)·Σ|x_i|, with γ(k) = k·u/(1-k·u) and u the unit roundoff
// of the arithmetic (2^-11 half, 2^-24 float, 2^-53 double); a product of n
// factors by |p̂ - p| ≤ γ(n-1)·|p| (Higham §3.1, no underflow or overflow: the rig's
// product inputs are near 1). The exact s and p are float64 expansions
// (floatfast.go), or math/big rationals where those cannot be exact.
//
// Half arithmetic may be fp16 at every step, or any wider format (fp32, fp64)
// with one rounding to half at the end: γ16(n-1) covers both, since with a wider
// accumulator the error is at most u16·|s| + (1+u16)·γ32(n-1)·Σ|x_i|, below
// γ16(n-1)·Σ|x_i| for every n ≥ 2 up to 128. (What it does not cover is a device
// mixing the two precisions step by step, which no known implementation does.)
//
// The accepted set is every value of the result type inside [s-B, s+B] (the
// endpoints rounded inward to representable values: a device's result is one,
// so rounding outward would only admit results no legal order produces). Zeros
// compare by value there: a cancelling sum may give either sign.
//
// Min and Max (OpGroupNonUniformFMin/FMax, SPIR-V 1.3+): "From the set of
// Value(s) provided by active invocations within a subgroup, if for any two
// Values one of them is a NaN, the other is chosen. If all Value(s) that are used
// by the current invocation are NaN, then the result is an undefined value." The
// rig's kernels declare no float-controls execution modes, so Vulkan's defaults
// hold: "the implementation may perform optimizations ... that ignore sign of a
// zero" (min(-0,+0) and the sign of a zero result are free), and a denormal input
// to, or result of, floating-point arithmetic may be flushed to a zero of the same
// sign (VK_KHR_shader_float_controls, issue 1: conversion, arithmetic, relational
// and GLSL.std.450 instructions flush; D3D's min/max: "Denorms are flushed, with
// the sign preserved, before comparison. However, the result written to dest may
// or may not be denorm flushed").
//
// The SPIR-V NaN rule above binds only a shader that asks for it. Vulkan,
// "Precision and Operation of SPIR-V Instructions": "By default, the
// implementation may perform optimizations on half, single, or double-precision
// floating-point instructions that ignore sign of a zero, or assume that
// arguments and results are not NaNs or infinities. If the entry point is
// declared with the SignedZeroInfNanPreserve execution mode, then NaNs,
// infinities, and the sign of zero must not be ignored." The rig's kernels
// (ours and glslang's) declare no execution mode, so a component where any
// active lane holds a NaN or an infinity is unconstrained (freeOfSpecials false):
// any value, NaN included, is right there. This is not hypothetical: lavapipe
// (Mesa 22.3.6) reduces 16-bit FMin/FMax with a lane-order select(a < b, a, b),
// so a NaN lane replaces the running value and the next lane replaces the NaN
// (min over -7.75, NaN, 68.25, 27.75 is 27.75), while its 32-bit path happens to
// follow the SPIR-V rule. The other components stay exact, and the SPIR-V rule is
// still what a component without NaN or infinity is held to (±0, denormals).
//
// AllEqual (OpGroupNonUniformAllEqual: "The result is true if Value is equal for
// all active invocations in the group") does not say whether "equal" is the float
// comparison (NaN equals nothing, -0 equals +0, a denormal may be flushed before
// it, as for any relational instruction) or bit identity; either is accepted, and
// a component where the two disagree accepts both answers. Under the same Vulkan
// default a component with a NaN or an infinity among the active lanes accepts
// both answers: lavapipe tests "equal" as "not ordered-unequal" (an unordered
// pair counts as equal), so lanes holding NaN and -0.204 give true.
//
// Reads (WaveReadLaneAt/First, QuadReadAcrossX/Y/Diagonal, QuadReadLaneAt) move a
// value; they are not arithmetic, conversion or relational instructions, so no
// float rule lets them quiet or re-sign anything: a float or double read keeps
// NaN payloads, infinities and the sign of zero bit for bit. Denormals are the one
// freedom: Vulkan, "Precision and Operation of SPIR-V Instructions": "By default,
// any half, single, or double-precision denormalized value input into a shader or
// potentially generated by any instruction (except those listed above) ... may be
// flushed to zero", and the list of instructions that "must not flush denormalized
// values" (OpLoad, OpStore, OpBitcast, OpCompositeExtract, ...) names no group
// operation. So a read of a denormal may give its same-signed zero (the flush
// the half rule below and DenormFlushToZero hardware make), unless the module
// declared DenormPreserve, which the rig's kernels do not. The kernels' own moves
// of a double (asdouble's and asuint's OpBitcast, glslang's OpStore, the record's
// OpLoad) are on that list: the transport cannot flush.
// Half values reach the operation through the kernel's f16tof32/(half) conversions
// and leave through (float)/f32tof16 (the HLSL subset has no 16-bit bitcast):
// those conversions may flush a half denormal to a same-signed zero
// (VK_KHR_shader_float_controls: "Denormalized values obtained via unpacking an
// integer into a vector of values with smaller bit width ... must be flushed to
// zero, unless the entry point is declared with the DenormPreserve execution
// mode"), may drop the sign of a zero, and Vulkan does not promise NaN payloads
// through a conversion: a half read accepts exactly those changes. Doubles travel
// as their two words, all 64 bits (kernels/record.go), so they get every special
// value that floats get, under the same rules: the sentences quoted above name
// "half, single, or double-precision" alike.

// Allowed is the set of results a component may take when the specification
// allows more than one (Value.Accept).
type Allowed struct {
	// Interval: every non-NaN value in [Lo, Hi] (bit patterns; compared by value,
	// so both zeros are in when 0 is).
	Interval bool
	Lo, Hi   uint64
	// Values are accepted by value (either zero for a zero, never a NaN).
	Values []uint64
	// Bits are accepted bit for bit.
	Bits []uint64
	// AnyNaN accepts every NaN.
	AnyNaN bool
}

// Has reports whether got (bits of scalar s) is in the set.
func (a *Allowed) Has(s Scalar, got uint64) bool {
	got = mask(s, got)
	g := ToFloat64(s, got)
	for _, b := range a.Bits {
		if mask(s, b) == got {
			return true
		}
	}
	if s.IsFloat() && math.IsNaN(g) {
		return a.AnyNaN
	}
	if !s.IsFloat() {
		return false
	}
	if a.Interval && ToFloat64(s, a.Lo) <= g && g <= ToFloat64(s, a.Hi) {
		return true
	}
	for _, v := range a.Values {
		if ToFloat64(s, v) == g {
			return true
		}
	}
	return false
}

// String renders the set for a failure report: "[lo, hi]", values, bits in hex.
func (a *Allowed) String(s Scalar) string {
	var parts []string
	if a.Interval {
		if mask(s, a.Lo) == mask(s, a.Hi) {
			parts = append(parts, FormatComp(s, a.Lo))
		} else {
			parts = append(parts, fmt.Sprintf("[%s, %s]", FormatComp(s, a.Lo), FormatComp(s, a.Hi)))
		}
	}
	for _, v := range a.Values {
		parts = append(parts, FormatComp(s, v))
	}
	for _, b := range a.Bits {
		parts = append(parts, fmt.Sprintf("%s(%#x)", FormatComp(s, b), mask(s, b)))
	}
	if a.AnyNaN {
		parts = append(parts, "any NaN")
	}
	if len(parts) == 1 && a.Interval {
		return parts[0]
	}
	return "{" + strings.Join(parts, " | ") + "}"
}

// Accepts reports whether got is a right result for component k: in Accept[k]
// where the model gave a set, otherwise Equal to Comps[k].
func (v Value) Accepts(s Scalar, k int, got uint64) bool {
	if k < len(v.Accept) && v.Accept[k] != nil {
		return v.Accept[k].Has(s, got)
	}
	return k < len(v.Comps) && Equal(s, v.Comps[k], got)
}

// AcceptsAll reports whether every component of got is accepted.
func (v Value) AcceptsAll(s Scalar, got []uint64) bool {
	if len(got) < len(v.Comps) {
		return false
	}
	for k := range v.Comps {
		if !v.Accepts(s, k, got[k]) {
			return false
		}
	}
	return true
}

// FormatWant renders what a lane must read: the value, with the accepted set of
// each component that has one ("2.5 in [2.4999998, 2.5000002]").
func FormatWant(s Scalar, v Value) string {
	if v.Undefined {
		return "undefined"
	}
	if len(v.Accept) == 0 {
		return FormatComps(s, v.Comps)
	}
	parts := make([]string, len(v.Comps))
	for k, c := range v.Comps {
		parts[k] = FormatComp(s, c)
		if k < len(v.Accept) && v.Accept[k] != nil {
			parts[k] += " in " + v.Accept[k].String(s)
		}
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// unitRoundoff is u of a float type's own arithmetic, as a power of two: 2^-p.
func unitRoundoff(s Scalar) int {
	switch s {
	case Float16:
		return 11
	case Float32:
		return 24
	}
	return 53
}

// gamma is γ(k) = k·u/(1-k·u) exactly (u = 2^-p).
func gamma(s Scalar, k int) *big.Rat {
	if k <= 0 {
		return new(big.Rat)
	}
	u := new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), uint(unitRoundoff(s))))
	ku := new(big.Rat).Mul(big.NewRat(int64(k), 1), u)
	den := new(big.Rat).Sub(big.NewRat(1, 1), ku)
	return ku.Quo(ku, den)
}

// ratOf is the exact value of finite float bits (0 for NaN and infinities).
func ratOf(s Scalar, v uint64) *big.Rat {
	if !isFinite(s, v) {
		return new(big.Rat)
	}
	return new(big.Rat).SetFloat64(ToFloat64(s, v))
}

// isFinite reports a finite float component.
func isFinite(s Scalar, v uint64) bool {
	f := ToFloat64(s, v)
	return !math.IsNaN(f) && !math.IsInf(f, 0)
}

// orderKey maps float bits to an integer that orders them by value, -0 and +0
// apart by one step (the steps of nextAfter).
func orderKey(s Scalar, v uint64) int64 {
	v = mask(s, v)
	sign := uint64(1) << (s.Bits() - 1)
	if v&sign != 0 {
		return -int64(v&^sign) - 1
	}
	return int64(v)
}

func fromKey(s Scalar, k int64) uint64 {
	if k < 0 {
		sign := uint64(1) << (s.Bits() - 1)
		return sign | uint64(-(k + 1))
	}
	return uint64(k)
}

// cmpRat compares a non-NaN float component with a rational (infinities beyond all).
func cmpRat(s Scalar, v uint64, r *big.Rat) int {
	f := ToFloat64(s, v)
	switch {
	case math.IsInf(f, 1):
		return 1
	case math.IsInf(f, -1):
		return -1
	}
	return new(big.Rat).SetFloat64(f).Cmp(r)
}

// roundRat is r rounded to scalar s: up (the least value ≥ r) or down (the
// greatest ≤ r); beyond the finite range it is the infinity of that side.
func roundRat(s Scalar, r *big.Rat, up bool) uint64 {
	f, _ := new(big.Float).SetPrec(256).SetRat(r).Float64()
	c := FromFloat64(s, f) // within a few steps of the answer
	inf := orderKey(s, FromFloat64(s, math.Inf(1)))
	k := orderKey(s, c)
	at := func(k int64) uint64 { return fromKey(s, k) }
	if up {
		for k < inf && cmpRat(s, at(k), r) < 0 {
			k++
		}
		for k > -inf && cmpRat(s, at(k-1), r) >= 0 {
			k--
		}
	} else {
		for k > -inf && cmpRat(s, at(k), r) > 0 {
			k--
		}
		for k < inf && cmpRat(s, at(k+1), r) <= 0 {
			k++
		}
	}
	return at(k)
}

// RoundNearest is r rounded to scalar s, to nearest, ties to even; past the
// largest finite value by half its ulp or more it is infinity (IEEE 754 4.3.1).
func RoundNearest(s Scalar, r *big.Rat) uint64 {
	lo, hi := roundRat(s, r, false), roundRat(s, r, true)
	if mask(s, lo) == mask(s, hi) || cmpRat(s, lo, r) == 0 {
		return lo
	}
	if !isFinite(s, lo) || !isFinite(s, hi) {
		fin, inf := lo, hi
		if !isFinite(s, lo) {
			fin, inf = hi, lo
		}
		// The ulp at the top of the range is the step below the largest finite value.
		below := fromKey(s, orderKey(s, fin)-1)
		if r.Sign() < 0 {
			below = fromKey(s, orderKey(s, fin)+1)
		}
		half := new(big.Rat).Sub(ratOf(s, fin), ratOf(s, below))
		half.Mul(half, big.NewRat(1, 2))
		edge := new(big.Rat).Add(new(big.Rat).Abs(ratOf(s, fin)), new(big.Rat).Abs(half))
		if new(big.Rat).Abs(r).Cmp(edge) >= 0 {
			return inf
		}
		return fin
	}
	dl := new(big.Rat).Sub(r, ratOf(s, lo))
	dh := new(big.Rat).Sub(ratOf(s, hi), r)
	switch dl.Cmp(dh) {
	case -1:
		return lo
	case 1:
		return hi
	}
	if mask(s, lo)&1 == 0 {
		return lo
	}
	return hi
}

// SumAllowed is the accepted set of a float sum of terms (bits of s) in any order
// and association; ok is false when a term is NaN or infinite (no bound applies).
func SumAllowed(s Scalar, terms []uint64) (a *Allowed, ok bool) {
	if a, ok, exact := fastSumAllowed(s, terms); exact { // floatfast.go
		return a, ok
	}
	return bigSumAllowed(s, terms)
}

// bigSumAllowed is SumAllowed in math/big rationals: where the exact float64
// arithmetic of floatfast.go cannot decide.
func bigSumAllowed(s Scalar, terms []uint64) (a *Allowed, ok bool) {
	sum, abs := new(big.Rat), new(big.Rat)
	for _, t := range terms {
		if !isFinite(s, t) {
			return nil, false
		}
		x := ratOf(s, t)
		sum.Add(sum, x)
		abs.Add(abs, new(big.Rat).Abs(x))
	}
	b := new(big.Rat).Mul(gamma(s, len(terms)-1), abs)
	return intervalAround(s, sum, b), true
}

// ProductAllowed is the accepted set of a float product of factors in any order
// and association (relative bound γ(n-1)); ok is false for NaN or infinite factors.
func ProductAllowed(s Scalar, factors []uint64) (a *Allowed, ok bool) {
	if a, ok, exact := fastProductAllowed(s, factors); exact { // floatfast.go
		return a, ok
	}
	return bigProductAllowed(s, factors)
}

// bigProductAllowed is ProductAllowed in math/big rationals: where the exact
// float64 arithmetic of floatfast.go cannot decide.
func bigProductAllowed(s Scalar, factors []uint64) (a *Allowed, ok bool) {
	p := big.NewRat(1, 1)
	for _, t := range factors {
		if !isFinite(s, t) {
			return nil, false
		}
		p.Mul(p, ratOf(s, t))
	}
	b := new(big.Rat).Mul(gamma(s, len(factors)-1), new(big.Rat).Abs(p))
	return intervalAround(s, p, b), true
}

func intervalAround(s Scalar, x, b *big.Rat) *Allowed {
	lo := roundRat(s, new(big.Rat).Sub(x, b), true)
	hi := roundRat(s, new(big.Rat).Add(x, b), false)
	return &Allowed{Interval: true, Lo: lo, Hi: hi}
}

// isDenormal reports a nonzero float component with the minimum exponent.
func isDenormal(s Scalar, v uint64) bool {
	f := math.Abs(ToFloat64(s, v))
	if f == 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		return false
	}
	switch s {
	case Float16:
		return f < 1.0/16384 // 2^-14
	case Float32:
		return f < 0x1p-126
	case Float64:
		return f < 0x1p-1022
	}
	return false
}

// flushed is the same-signed zero a denormal may become.
func flushed(s Scalar, v uint64) uint64 {
	return mask(s, v) & (uint64(1) << (s.Bits() - 1))
}

// minMaxAllowed is the accepted set of FMin (max false) or FMax over the
// components vals (bits of s) under the rules above: NaNs are skipped (all NaN:
// ok false, the value is undefined); each value may be flushed before the
// comparison if denormal; the lane chosen may be any whose smallest (largest)
// possible value does not exceed (fall below) every other lane's largest
// (smallest) one; its value, flushed or not, is the result, a zero of either sign.
// With a NaN or an infinity among vals every value is accepted (default float mode).
func minMaxAllowed(s Scalar, vals []uint64, max bool) (a *Allowed, ok bool) {
	type cand struct{ lo, hi float64 }
	var cs []cand
	var vs []uint64
	for _, v := range vals {
		f := ToFloat64(s, v)
		if math.IsNaN(f) {
			continue
		}
		c := cand{f, f}
		if isDenormal(s, v) {
			c.lo, c.hi = math.Min(f, 0), math.Max(f, 0)
		}
		cs = append(cs, c)
		vs = append(vs, mask(s, v))
	}
	if len(cs) == 0 {
		return nil, false
	}
	if !freeOfSpecials(s, vals) {
		return anyValue(s), true
	}
	a = &Allowed{}
	seen := map[uint64]bool{}
	add := func(v uint64) {
		if !seen[v] {
			seen[v] = true
			a.Values = append(a.Values, v)
		}
	}
	for i, c := range cs {
		can := true
		for j, o := range cs {
			if j == i {
				continue
			}
			if (!max && c.lo > o.hi) || (max && c.hi < o.lo) {
				can = false
				break
			}
		}
		if can {
			add(vs[i])
			if isDenormal(s, vs[i]) {
				add(flushed(s, vs[i]))
			}
		}
	}
	return a, true
}

// freeOfSpecials reports that no component of vals is a NaN or an infinity: only
// then does the default float mode (above) constrain an arithmetic or relational
// result over them.
func freeOfSpecials(s Scalar, vals []uint64) bool {
	for _, v := range vals {
		if !isFinite(s, v) {
			return false
		}
	}
	return true
}

// anyValue is the set of every value of s, every NaN included.
func anyValue(s Scalar) *Allowed {
	return &Allowed{Interval: true, Lo: FromFloat64(s, math.Inf(-1)), Hi: FromFloat64(s, math.Inf(1)), AnyNaN: true}
}

// readAllowed is the accepted set of a read of x (see the reads rule): nil
// (compare with Equal) for non-float types; x's bits for float and double, and
// for a denormal also its same-signed zero; for half x's bits plus what the
// kernel's conversions may make of them.
func readAllowed(s Scalar, x uint64) *Allowed {
	switch s {
	case Float32, Float64:
		a := &Allowed{Bits: []uint64{mask(s, x)}}
		if isDenormal(s, x) {
			a.Bits = append(a.Bits, flushed(s, x))
		}
		return a
	case Float16:
		a := &Allowed{Bits: []uint64{mask(s, x)}}
		f := ToFloat64(s, x)
		switch {
		case math.IsNaN(f):
			a.AnyNaN = true
		case f == 0:
			a.Values = []uint64{0}
		case isDenormal(s, x):
			a.Bits = append(a.Bits, flushed(s, x))
		}
		return a
	}
	return nil
}

// allEqualAnswers is AllEqual's result for one component under each reading of
// "equal": float comparison without and with denormals flushed, and bit identity;
// both answers where a NaN or an infinity is among vals (the default float mode).
func allEqualAnswers(s Scalar, vals []uint64) (answers map[bool]bool) {
	answers = map[bool]bool{}
	if !freeOfSpecials(s, vals) {
		// Default float mode: a NaN or an infinity leaves the answer free.
		return map[bool]bool{false: true, true: true}
	}
	for _, flush := range []bool{false, true} {
		eq := true
		for _, v := range vals {
			a, b := ToFloat64(s, vals[0]), ToFloat64(s, v)
			if flush {
				if isDenormal(s, vals[0]) {
					a = 0
				}
				if isDenormal(s, v) {
					b = 0
				}
			}
			eq = eq && a == b
		}
		answers[eq] = true
	}
	eq := true
	for _, v := range vals {
		eq = eq && mask(s, v) == mask(s, vals[0])
	}
	answers[eq] = true
	return answers
}

// withAccept attaches accepted sets to a value and keeps Comps inside them: the
// lane-order evaluation (binop) may fall outside a rule's set (math.Min of a NaN,
// a half evaluated through float32), and Comps is what a simulated device writes.
func withAccept(s Scalar, comps []uint64, accept []*Allowed) Value {
	v := Value{Comps: append([]uint64(nil), comps...), Accept: accept}
	for k, a := range accept {
		if a == nil || k >= len(v.Comps) || a.Has(s, v.Comps[k]) {
			continue
		}
		switch {
		case a.Interval:
			v.Comps[k] = a.Lo
		case len(a.Values) > 0:
			v.Comps[k] = a.Values[0]
		case len(a.Bits) > 0:
			v.Comps[k] = a.Bits[0]
		}
	}
	return v
}
