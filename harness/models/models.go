// Package models holds the Go reference models of the 24 Shader Model 6.0 wave and
// quad intrinsics: given one wave's recorded lanes (lane index, whether the lane took
// part, its input), each model says what every lane must read back, or that HLSL leaves
// the value undefined. The models never assume a lane layout: membership, order and
// quads come from the recorded lane indices only.
//
// Values travel as bit patterns (one uint64 per component) so that one representation
// serves int, uint, half, float, double, int64_t, uint64_t and bool.
package models

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// Scalar is the scalar type of a value.
type Scalar uint8

// The scalar types the models understand.
const (
	Bool Scalar = iota + 1
	Int32
	Uint32
	Float16
	Float32
	Float64
	Int64
	Uint64
)

var scalarNames = map[Scalar]string{
	Bool: "bool", Int32: "int", Uint32: "uint", Float16: "half", Float32: "float",
	Float64: "double", Int64: "int64_t", Uint64: "uint64_t",
}

func (s Scalar) String() string {
	if n, ok := scalarNames[s]; ok {
		return n
	}
	return fmt.Sprintf("Scalar(%d)", uint8(s))
}

// ParseScalar maps an HLSL scalar spelling to a Scalar.
func ParseScalar(name string) (Scalar, bool) {
	for s, n := range scalarNames {
		if n == name {
			return s, true
		}
	}
	return 0, false
}

// Bits is the width of the scalar in memory (bool: 32, as HLSL stores it).
func (s Scalar) Bits() int {
	switch s {
	case Float16:
		return 16
	case Float64, Int64, Uint64:
		return 64
	}
	return 32
}

// IsFloat reports half, float and double.
func (s Scalar) IsFloat() bool { return s == Float16 || s == Float32 || s == Float64 }

// IsInt reports the signed and unsigned integer types.
func (s Scalar) IsInt() bool { return s == Int32 || s == Uint32 || s == Int64 || s == Uint64 }

// Type is a scalar or vector type: N is 1 for a scalar, 2..4 for a vector.
type Type struct {
	Scalar Scalar
	N      int
}

func (t Type) String() string {
	if t.N <= 1 {
		return t.Scalar.String()
	}
	return fmt.Sprintf("%s%d", t.Scalar, t.N)
}

func (t Type) valid() error {
	if _, ok := scalarNames[t.Scalar]; !ok {
		return fmt.Errorf("models: unknown scalar type %d", t.Scalar)
	}
	if t.N < 1 || t.N > 4 {
		return fmt.Errorf("models: %s: vector width %d is not 1..4", t.Scalar, t.N)
	}
	return nil
}

// Lane is one recorded lane of a wave.
type Lane struct {
	// Index is the lane's WaveGetLaneIndex as recorded (not its position in the slice).
	Index uint32
	// Active: the lane executed the operation (it was in the branch that called it).
	Active bool
	// Input holds one bit pattern per component (int32 as its 32 bits, half as its 16
	// bits, bool as 0/1). Bool predicates (AnyTrue, Ballot …) read Input[0] != 0.
	Input []uint64
	// LaneArg is the lane argument of WaveReadLaneAt / QuadReadLaneAt.
	LaneArg uint32
}

// Value is the expected result of one lane.
type Value struct {
	// Undefined: HLSL does not define the value (inactive lane, absent or inactive
	// partner); it must not be compared.
	Undefined bool
	// Comps are the result components as bit patterns of the result type (for a
	// component with an accepted set, one legal result: the lane-order one).
	Comps []uint64
	// Accept, where non-nil, holds per component the set of results the
	// specification allows (floats.go); a nil entry compares Comps[k] with Equal.
	Accept []*Allowed
}

func undefined(n int) []Value {
	out := make([]Value, n)
	for i := range out {
		out[i].Undefined = true
	}
	return out
}

// mask keeps the low bits of a scalar.
func mask(s Scalar, v uint64) uint64 {
	switch s.Bits() {
	case 16:
		return v & 0xffff
	case 32:
		return v & 0xffffffff
	}
	return v
}

// Float16ToFloat32 converts IEEE binary16 bits to a float32 (exactly: every half is a float).
func Float16ToFloat32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := int(h>>10) & 0x1f
	frac := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f: // inf / NaN
		return math.Float32frombits(sign | 0x7f800000 | frac<<13)
	case exp == 0:
		if frac == 0 {
			return math.Float32frombits(sign)
		}
		// Subnormal half: value = frac * 2^-24, exact in float32.
		f := float32(frac) * float32(1.0/16777216.0)
		if sign != 0 {
			f = -f
		}
		return f
	}
	return math.Float32frombits(sign | uint32(exp-15+127)<<23 | frac<<13)
}

// Float32ToFloat16 rounds a float32 to binary16 bits, to nearest even (overflow gives inf).
func Float32ToFloat16(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23) & 0xff
	frac := b & 0x7fffff
	if exp == 0xff {
		if frac != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	}
	e := exp - 127 + 15
	if e >= 0x1f {
		return sign | 0x7c00
	}
	if e <= 0 {
		if e < -10 {
			return sign
		}
		// Subnormal result: shift the full significand, round to nearest even.
		m := frac | 0x800000
		shift := uint32(14 - e)
		half := uint32(1) << (shift - 1)
		r := m >> shift
		rem := m & ((1 << shift) - 1)
		if rem > half || (rem == half && r&1 == 1) {
			r++
		}
		return sign | uint16(r)
	}
	r := uint32(e)<<10 | frac>>13
	rem := frac & 0x1fff
	if rem > 0x1000 || (rem == 0x1000 && r&1 == 1) {
		r++ // may carry into the exponent, which is the right rounding (up to inf)
	}
	return sign | uint16(r)
}

// ToFloat64 reads a float scalar's bits as a float64 (exact for every float type).
func ToFloat64(s Scalar, v uint64) float64 {
	switch s {
	case Float16:
		return float64(Float16ToFloat32(uint16(v)))
	case Float32:
		return float64(math.Float32frombits(uint32(v)))
	case Float64:
		return math.Float64frombits(v)
	}
	return 0
}

// FromFloat64 rounds a float64 to the bits of a float scalar type.
func FromFloat64(s Scalar, f float64) uint64 {
	switch s {
	case Float16:
		return uint64(Float32ToFloat16(float32(f)))
	case Float32:
		return uint64(math.Float32bits(float32(f)))
	case Float64:
		return math.Float64bits(f)
	}
	return 0
}

// signed reads an integer scalar's bits as int64 (sign-extending 32-bit ints).
func signed(s Scalar, v uint64) int64 {
	if s == Int32 {
		return int64(int32(uint32(v)))
	}
	return int64(v)
}

// binop applies one arithmetic/bit operation to two components of scalar type s.
// Floats are evaluated in their own precision (float32 arithmetic for float; half is
// evaluated in float32 and rounded, which is exact for the order-independent inputs
// the rig generates); integers wrap.
func binop(op arith, s Scalar, a, b uint64) uint64 {
	if s.IsFloat() {
		switch s {
		case Float64:
			x, y := math.Float64frombits(a), math.Float64frombits(b)
			return math.Float64bits(fop(op, x, y))
		default:
			x, y := float32(ToFloat64(s, a)), float32(ToFloat64(s, b))
			var r float32
			switch op {
			case opAdd:
				r = x + y // rounded to float32 by Go's spec, as the device rounds
			case opMul:
				r = x * y
			default:
				r = float32(fop(op, float64(x), float64(y))) // min/max are exact
			}
			if s == Float16 {
				return uint64(Float32ToFloat16(r))
			}
			return uint64(math.Float32bits(r))
		}
	}
	switch op {
	case opAdd:
		return mask(s, a+b)
	case opMul:
		return mask(s, a*b)
	case opAnd:
		return a & b
	case opOr:
		return a | b
	case opXor:
		return a ^ b
	case opMin, opMax:
		less := a < b
		if s == Int32 || s == Int64 {
			less = signed(s, a) < signed(s, b)
		}
		if (op == opMin) == less {
			return a
		}
		return b
	}
	return 0
}

func fop(op arith, x, y float64) float64 {
	switch op {
	case opAdd:
		return x + y
	case opMul:
		return x * y
	case opMin:
		return math.Min(x, y)
	case opMax:
		return math.Max(x, y)
	}
	return math.NaN()
}

// arith is the combining operation of a reduction or scan.
type arith uint8

const (
	opAdd arith = iota + 1
	opMul
	opMin
	opMax
	opAnd
	opOr
	opXor
)

// identity is the value an exclusive scan gives the first active lane.
func identity(op arith, s Scalar) uint64 {
	switch op {
	case opAdd, opOr, opXor:
		return 0 // +0.0 for floats too
	case opMul:
		if s.IsFloat() {
			return FromFloat64(s, 1)
		}
		return 1
	case opAnd:
		return mask(s, ^uint64(0))
	case opMin, opMax:
		// Not reached: SM 6.0 has no prefix min/max.
		return 0
	}
	return 0
}

// ordered returns the positions of the active lanes sorted by recorded lane index;
// duplicate lane indices are a layout error the caller reports.
func ordered(lanes []Lane) []int {
	idx := make([]int, 0, len(lanes))
	sorted := true
	for i, l := range lanes {
		if l.Active {
			if len(idx) > 0 && l.Index < lanes[idx[len(idx)-1]].Index {
				sorted = false
			}
			idx = append(idx, i)
		}
	}
	if !sorted { // the checkers hand the lanes over in lane order
		sort.SliceStable(idx, func(a, b int) bool { return lanes[idx[a]].Index < lanes[idx[b]].Index })
	}
	return idx
}

// laneIndex maps lane indices to positions: an array for the legal ones (<
// 128), a map beyond (a broken device's).
type laneIndex struct {
	at   [128]int32 // position + 1; 0: absent
	more map[uint32]int
}

func (x *laneIndex) set(lane uint32, i int) {
	if lane < 128 {
		x.at[lane] = int32(i) + 1
		return
	}
	if x.more == nil {
		x.more = map[uint32]int{}
	}
	x.more[lane] = i
}

func (x *laneIndex) get(lane uint32) (int, bool) {
	if lane < 128 {
		return int(x.at[lane]) - 1, x.at[lane] != 0
	}
	i, ok := x.more[lane]
	return i, ok
}

// checkLanes rejects malformed waves: duplicate lane indices or inputs of the wrong width.
func checkLanes(t Type, lanes []Lane, needInput bool) error {
	var seen laneIndex
	for i, l := range lanes {
		if _, had := seen.get(l.Index); had {
			return fmt.Errorf("models: lane index %d recorded twice in one wave", l.Index)
		}
		seen.set(l.Index, i)
		if needInput && len(l.Input) < t.N {
			return fmt.Errorf("models: lane %d has %d input components, %s needs %d", l.Index, len(l.Input), t, t.N)
		}
	}
	return nil
}

// Equal compares an expected and an actual component of scalar type s. Integers and
// bools compare exactly; floats compare by value, bit-exact except that +0 equals -0
// (the inputs are chosen so every float result is exact, so no tolerance is needed;
// a zero's sign is the one freedom an implementation has in a sum that cancels).
func Equal(s Scalar, want, got uint64) bool {
	want, got = mask(s, want), mask(s, got)
	if !s.IsFloat() {
		return want == got
	}
	w, g := ToFloat64(s, want), ToFloat64(s, got)
	if math.IsNaN(w) || math.IsNaN(g) {
		return math.IsNaN(w) && math.IsNaN(g)
	}
	return w == g
}

// FormatComp renders one component for a failure report.
func FormatComp(s Scalar, v uint64) string {
	v = mask(s, v)
	switch s {
	case Bool:
		if v != 0 {
			return "true"
		}
		return "false"
	case Int32, Int64:
		return fmt.Sprint(signed(s, v))
	case Uint32, Uint64:
		return fmt.Sprint(v)
	}
	return fmt.Sprintf("%g", ToFloat64(s, v))
}

// Format renders a value ("undefined", "7", "(1, 2.5, -3)").
func Format(s Scalar, v Value) string {
	if v.Undefined {
		return "undefined"
	}
	return FormatComps(s, v.Comps)
}

// FormatComps renders components; several are parenthesised.
func FormatComps(s Scalar, comps []uint64) string {
	parts := make([]string, len(comps))
	for i, c := range comps {
		parts[i] = FormatComp(s, c)
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return "(" + strings.Join(parts, ", ") + ")"
}
