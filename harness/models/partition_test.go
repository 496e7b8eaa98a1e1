package models

import (
	"math"
	"strings"
	"testing"

	"waverig/compiler/intrinsics"
)

// pwave builds lanes from parallel slices: lane indices, active flags, one input
// component each (scalar waves) and the partition key each lane recorded.
func pwave(idx []uint32, active []bool, in []uint64, keys []uint32) []Lane {
	out := make([]Lane, len(idx))
	for i := range idx {
		out[i] = Lane{Index: idx[i], Active: active[i], Input: []uint64{in[i]}}
		if keys != nil {
			out[i].LaneArg = keys[i]
		}
	}
	return out
}

func allActive(n int) []bool {
	a := make([]bool, n)
	for i := range a {
		a[i] = true
	}
	return a
}

func seq(n int) []uint32 {
	s := make([]uint32, n)
	for i := range s {
		s[i] = uint32(i)
	}
	return s
}

// lanesMask builds a Mask from lane indices.
func lanesMask(lanes ...uint32) Mask {
	var m Mask
	for _, l := range lanes {
		m.set(l)
	}
	return m
}

// want4 is a Value holding a mask as the four uint components WaveMatch returns.
func want4(m Mask) Value {
	return Value{Comps: []uint64{uint64(m[0]), uint64(m[1]), uint64(m[2]), uint64(m[3])}}
}

func sameValues(t *testing.T, name string, got, want []Value) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", name, len(got), len(want))
	}
	for i := range want {
		if got[i].Undefined != want[i].Undefined {
			t.Errorf("%s: lane slot %d undefined=%v, want %v (%v)", name, i, got[i].Undefined, want[i].Undefined, want[i].Comps)
			continue
		}
		if want[i].Undefined {
			continue
		}
		if len(got[i].Comps) != len(want[i].Comps) {
			t.Errorf("%s: slot %d: %v, want %v", name, i, got[i].Comps, want[i].Comps)
			continue
		}
		for k := range want[i].Comps {
			if got[i].Comps[k] != want[i].Comps[k] {
				t.Errorf("%s: slot %d: %v, want %v", name, i, got[i].Comps, want[i].Comps)
				break
			}
		}
	}
}

func TestMatch(t *testing.T) {
	u := func(v ...uint64) []uint64 { return v }
	f32 := func(f float32) uint64 { return uint64(math.Float32bits(f)) }
	U := Value{Undefined: true}
	tests := []struct {
		name   string
		typ    Type
		lanes  []Lane
		expect []Value
	}{
		{
			// Groups {0,2,5}, {1,4}, {3,6,7}: none of them contiguous.
			name: "non-contiguous groups", typ: Type{Uint32, 1},
			lanes: pwave(seq(8), allActive(8), u(5, 9, 5, 1, 9, 5, 1, 1), nil),
			expect: []Value{want4(lanesMask(0, 2, 5)), want4(lanesMask(1, 4)), want4(lanesMask(0, 2, 5)), want4(lanesMask(3, 6, 7)),
				want4(lanesMask(1, 4)), want4(lanesMask(0, 2, 5)), want4(lanesMask(3, 6, 7)), want4(lanesMask(3, 6, 7))},
		},
		{
			// Inactive lanes neither match nor get a value; slice order is not lane order.
			name: "inactive lanes and shuffled slots", typ: Type{Int32, 1},
			lanes: pwave([]uint32{6, 1, 4, 0, 3}, []bool{true, false, true, true, true}, u(7, 7, 7, 2, 7), nil),
			expect: []Value{want4(lanesMask(3, 4, 6)), U, want4(lanesMask(3, 4, 6)), want4(lanesMask(0)),
				want4(lanesMask(3, 4, 6))},
		},
		{
			name: "all distinct", typ: Type{Uint32, 1},
			lanes:  pwave(seq(4), allActive(4), u(1, 2, 3, 4), nil),
			expect: []Value{want4(lanesMask(0)), want4(lanesMask(1)), want4(lanesMask(2)), want4(lanesMask(3))},
		},
		{
			// Lanes above 31 land in the higher words of the uint4.
			name: "wave of 128, all equal", typ: Type{Uint32, 1},
			lanes: func() []Lane {
				in := make([]uint64, 128)
				return pwave(seq(128), allActive(128), in, nil)
			}(),
			expect: func() []Value {
				all := Mask{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}
				out := make([]Value, 128)
				for i := range out {
					out[i] = want4(all)
				}
				return out
			}(),
		},
		{
			// +0 and -0 are equal values with different bits: the model compares
			// bits (the rig never generates -0 keys, see partition.go).
			name: "floats compare bit patterns", typ: Type{Float32, 1},
			lanes:  pwave(seq(3), allActive(3), u(f32(1.5), f32(0), uint64(math.Float32bits(float32(math.Copysign(0, -1))))), nil),
			expect: []Value{want4(lanesMask(0)), want4(lanesMask(1)), want4(lanesMask(2))},
		},
		{
			// A 64-bit value that differs only in its high word is another value.
			name: "64-bit high word", typ: Type{Uint64, 1},
			lanes:  pwave(seq(3), allActive(3), u(0x1_00000005, 0x2_00000005, 0x1_00000005), nil),
			expect: []Value{want4(lanesMask(0, 2)), want4(lanesMask(1)), want4(lanesMask(0, 2))},
		},
		{
			// Only the half's 16 bits count (the rest of the word is not the value).
			name: "half ignores bits above 16", typ: Type{Float16, 1},
			lanes:  pwave(seq(2), allActive(2), u(0x3c00, 0xabcd3c00), nil),
			expect: []Value{want4(lanesMask(0, 1)), want4(lanesMask(0, 1))},
		},
		{
			name: "bool", typ: Type{Bool, 1},
			lanes:  pwave(seq(4), allActive(4), u(1, 0, 0, 1), nil),
			expect: []Value{want4(lanesMask(0, 3)), want4(lanesMask(1, 2)), want4(lanesMask(1, 2)), want4(lanesMask(0, 3))},
		},
		{
			// Vectors match only when every component does: lanes 0 and 1 share x,
			// lanes 0 and 2 share y, only 0 and 3 share both.
			name: "vector needs every component", typ: Type{Uint32, 2},
			lanes: []Lane{
				{Index: 0, Active: true, Input: u(1, 2)}, {Index: 1, Active: true, Input: u(1, 3)},
				{Index: 2, Active: true, Input: u(4, 2)}, {Index: 3, Active: true, Input: u(1, 2)},
			},
			expect: []Value{want4(lanesMask(0, 3)), want4(lanesMask(1)), want4(lanesMask(2)), want4(lanesMask(0, 3))},
		},
	}
	for _, tc := range tests {
		got, err := Match(tc.typ, tc.lanes)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		sameValues(t, tc.name, got, tc.expect)
		viaExpected, err := Expected(intrinsics.WaveMatch, tc.typ, tc.lanes, 128)
		if err != nil {
			t.Fatalf("%s via Expected: %v", tc.name, err)
		}
		sameValues(t, tc.name+" via Expected", viaExpected, tc.expect)
	}
	if _, err := Match(Type{Uint32, 1}, pwave([]uint32{3, 3}, allActive(2), u(1, 1), nil)); err == nil {
		t.Error("a lane index recorded twice was accepted")
	}
	if _, err := Match(Type{Uint32, 1}, pwave([]uint32{200}, allActive(1), u(1), nil)); err == nil {
		t.Error("lane index 200 fits no uint4 ballot but was accepted")
	}
}

func TestKeyMasks(t *testing.T) {
	lanes := pwave([]uint32{0, 1, 2, 3, 4, 5}, []bool{true, true, false, true, true, true}, make([]uint64, 6),
		[]uint32{7, 3, 7, 7, 3, 9})
	got, err := KeyMasks(lanes)
	if err != nil {
		t.Fatal(err)
	}
	// Lane 2 shares key 7 but is inactive: no lane names it, and it gets no mask.
	want := []Mask{lanesMask(0, 3), lanesMask(1, 4), {}, lanesMask(0, 3), lanesMask(1, 4), lanesMask(5)}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("lane %d: mask %v, want %v", lanes[i].Index, got[i], want[i])
		}
	}
	if s := lanesMask(0, 33).String(); s != "0x200000001" {
		t.Errorf("Mask.String = %s", s)
	}
}

// multi is one hand-written WaveMultiPrefix case: lanes (scalar inputs), masks, and
// the expected values per slot.
type multi struct {
	name   string
	op     intrinsics.Op
	typ    Type
	lanes  []Lane
	masks  []Mask
	expect []Value
}

func TestMultiPrefix(t *testing.T) {
	u := func(v ...uint64) []uint64 { return v }
	U := Value{Undefined: true}
	v := func(x uint64) Value { return Value{Comps: []uint64{x}} }
	f := func(x float32) Value { return Value{Comps: []uint64{uint64(math.Float32bits(x))}} }
	fin := func(xs ...float32) []uint64 {
		out := make([]uint64, len(xs))
		for i, x := range xs {
			out[i] = uint64(math.Float32bits(x))
		}
		return out
	}
	// The non-contiguous partition {0,2,5}, {1,6}, {3}, {4,7} of an 8-lane wave.
	g025, g16, g3, g47 := lanesMask(0, 2, 5), lanesMask(1, 6), lanesMask(3), lanesMask(4, 7)
	part := []Mask{g025, g16, g025, g3, g47, g025, g16, g47}
	in := u(1, 2, 3, 4, 5, 6, 7, 8)
	tests := []multi{
		{name: "sum", op: intrinsics.WaveMultiPrefixSum, typ: Type{Uint32, 1},
			lanes: pwave(seq(8), allActive(8), in, nil), masks: part,
			expect: []Value{v(0), v(0), v(1), v(0), v(0), v(1 + 3), v(2), v(5)}},
		{name: "product", op: intrinsics.WaveMultiPrefixProduct, typ: Type{Int32, 1},
			lanes: pwave(seq(8), allActive(8), in, nil), masks: part,
			expect: []Value{v(1), v(1), v(1), v(1), v(1), v(1 * 3), v(2), v(5)}},
		{name: "bitand identity is all ones", op: intrinsics.WaveMultiPrefixBitAnd, typ: Type{Uint32, 1},
			lanes: pwave(seq(8), allActive(8), u(0xf0, 0xff, 0x3c, 1, 6, 0xf, 3, 2), nil), masks: part,
			expect: []Value{v(0xffffffff), v(0xffffffff), v(0xf0), v(0xffffffff), v(0xffffffff), v(0x30), v(0xff), v(6)}},
		{name: "bitor", op: intrinsics.WaveMultiPrefixBitOr, typ: Type{Uint64, 1},
			lanes: pwave(seq(8), allActive(8), u(1<<40, 2, 4, 8, 16, 32, 64, 128), nil), masks: part,
			expect: []Value{v(0), v(0), v(1 << 40), v(0), v(0), v(1<<40 | 4), v(2), v(16)}},
		{name: "bitxor", op: intrinsics.WaveMultiPrefixBitXor, typ: Type{Uint32, 1},
			lanes: pwave(seq(8), allActive(8), u(3, 1, 5, 7, 9, 6, 2, 4), nil), masks: part,
			expect: []Value{v(0), v(0), v(3), v(0), v(0), v(3 ^ 5), v(1), v(9)}},
		{name: "float sum", op: intrinsics.WaveMultiPrefixSum, typ: Type{Float32, 1},
			lanes: pwave(seq(8), allActive(8), fin(0.5, 1, 0.25, 4, -2, 8, 3, 1), nil), masks: part,
			expect: []Value{f(0), f(0), f(0.5), f(0), f(0), f(0.75), f(1), f(-2)}},
		{name: "one partition is the whole-wave exclusive scan", op: intrinsics.WaveMultiPrefixSum, typ: Type{Uint32, 1},
			lanes: pwave(seq(4), allActive(4), u(1, 2, 3, 4), nil), masks: []Mask{lanesMask(0, 1, 2, 3), lanesMask(0, 1, 2, 3), lanesMask(0, 1, 2, 3), lanesMask(0, 1, 2, 3)},
			expect: []Value{v(0), v(1), v(3), v(6)}},
		{name: "inactive lanes take no part", op: intrinsics.WaveMultiPrefixSum, typ: Type{Uint32, 1},
			lanes: pwave(seq(4), []bool{true, false, true, true}, u(1, 100, 3, 4), nil), masks: []Mask{lanesMask(0, 2, 3), {}, lanesMask(0, 2, 3), lanesMask(0, 2, 3)},
			expect: []Value{v(0), U, v(1), v(4)}},
		{name: "slots out of lane order", op: intrinsics.WaveMultiPrefixSum, typ: Type{Uint32, 1},
			lanes: pwave([]uint32{5, 0, 2}, allActive(3), u(10, 20, 30), nil), masks: []Mask{lanesMask(0, 2, 5), lanesMask(0, 2, 5), lanesMask(0, 2, 5)},
			expect: []Value{v(50), v(0), v(20)}},
		// Masks that are not a partition: HLSL leaves the values undefined.
		{name: "mask without the lane's own bit", op: intrinsics.WaveMultiPrefixSum, typ: Type{Uint32, 1},
			lanes: pwave(seq(4), allActive(4), u(1, 2, 3, 4), nil), masks: []Mask{lanesMask(0, 1), lanesMask(0), lanesMask(2, 3), lanesMask(2, 3)},
			// Lane 1 lacks itself; lane 0 names lane 1, whose mask differs.
			expect: []Value{U, U, v(0), v(3)}},
		{name: "overlapping masks", op: intrinsics.WaveMultiPrefixSum, typ: Type{Uint32, 1},
			lanes: pwave(seq(4), allActive(4), u(1, 2, 3, 4), nil), masks: []Mask{lanesMask(0, 1), lanesMask(0, 1, 2), lanesMask(1, 2), lanesMask(3)},
			expect: []Value{U, U, U, v(0)}},
		{name: "mask naming an inactive lane", op: intrinsics.WaveMultiPrefixSum, typ: Type{Uint32, 1},
			lanes: pwave(seq(4), []bool{true, false, true, true}, u(1, 2, 3, 4), nil), masks: []Mask{lanesMask(0, 1), lanesMask(0, 1), lanesMask(2), lanesMask(3)},
			expect: []Value{U, U, v(0), v(0)}},
		{name: "mask naming an absent lane", op: intrinsics.WaveMultiPrefixBitOr, typ: Type{Uint32, 1},
			lanes: pwave(seq(2), allActive(2), u(1, 2), nil), masks: []Mask{lanesMask(0, 1, 9), lanesMask(0, 1, 9)},
			expect: []Value{U, U}},
	}
	for _, tc := range tests {
		got, err := MultiPrefix(tc.op, tc.typ, tc.lanes, tc.masks)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		sameValues(t, tc.name, got, tc.expect)
	}
}

// TestMultiPrefixVectorAndExpected: vectors scan per component, and Expected takes
// each lane's mask from the partition of the active lanes by recorded key.
func TestMultiPrefixVectorAndExpected(t *testing.T) {
	lanes := []Lane{
		{Index: 0, Active: true, Input: []uint64{1, 10}, LaneArg: 4},
		{Index: 1, Active: true, Input: []uint64{2, 20}, LaneArg: 0},
		{Index: 2, Active: false, Input: []uint64{3, 30}, LaneArg: 4},
		{Index: 3, Active: true, Input: []uint64{4, 40}, LaneArg: 4},
		{Index: 4, Active: true, Input: []uint64{5, 50}, LaneArg: 0},
	}
	got, err := Expected(intrinsics.WaveMultiPrefixSum, Type{Uint32, 2}, lanes, 8)
	if err != nil {
		t.Fatal(err)
	}
	want := []Value{{Comps: []uint64{0, 0}}, {Comps: []uint64{0, 0}}, {Undefined: true},
		{Comps: []uint64{1, 10}}, {Comps: []uint64{2, 20}}}
	sameValues(t, "key partition", got, want)
}

// TestMultiPrefixMutants: the mistakes a device or compiler can make give other
// values than the model, so the checker would see them.
func TestMultiPrefixMutants(t *testing.T) {
	in := []uint64{1, 2, 3, 4, 5, 6, 7, 8}
	lanes := pwave(seq(8), allActive(8), in, []uint32{0, 1, 0, 2, 3, 0, 1, 3})
	masks, err := KeyMasks(lanes)
	if err != nil {
		t.Fatal(err)
	}
	model, err := MultiPrefix(intrinsics.WaveMultiPrefixSum, Type{Uint32, 1}, lanes, masks)
	if err != nil {
		t.Fatal(err)
	}
	// Ignoring the mask: the plain exclusive scan over the wave.
	plain, _ := Prefix(intrinsics.WavePrefixSum, Type{Uint32, 1}, lanes)
	// Inclusive within the partition.
	differs := func(name string, other func(i int) uint64) {
		for i := range model {
			if model[i].Comps[0] != other(i) {
				return
			}
		}
		t.Errorf("%s gives the model's values", name)
	}
	differs("ignoring the mask", func(i int) uint64 { return plain[i].Comps[0] })
	differs("inclusive scan", func(i int) uint64 { return model[i].Comps[0] + in[i] })
	// Scanning the partitions as if they were contiguous runs of lanes.
	differs("contiguous runs", func(i int) uint64 {
		s := uint64(0)
		for j := i - 1; j >= 0 && lanes[j].LaneArg == lanes[i].LaneArg; j-- {
			s += in[j]
		}
		return s
	})
}

func TestMultiPrefixCountBits(t *testing.T) {
	lanes := pwave(seq(6), []bool{true, true, true, true, false, true}, []uint64{1, 1, 0, 1, 1, 1}, nil)
	masks := []Mask{lanesMask(0, 2, 5), lanesMask(1, 3), lanesMask(0, 2, 5), lanesMask(1, 3), {}, lanesMask(0, 2, 5)}
	got, err := MultiPrefixCountBits(lanes, masks)
	if err != nil {
		t.Fatal(err)
	}
	// Through Expected, the masks come from the recorded keys: the same partition.
	keyed := pwave(seq(6), []bool{true, true, true, true, false, true}, []uint64{1, 1, 0, 1, 1, 1}, []uint32{2, 8, 2, 8, 2, 2})
	viaKeys, err := Expected(intrinsics.WaveMultiPrefixCountBits, Type{Bool, 1}, keyed, 8)
	if err != nil {
		t.Fatal(err)
	}
	sameValues(t, "count bits via keys", viaKeys, got)
	v := func(x uint64) Value { return Value{Comps: []uint64{x}} }
	sameValues(t, "count bits", got, []Value{v(0), v(0), v(1), v(1), {Undefined: true}, v(1)})
	masks[1] = lanesMask(1) // lane 3 still names lane 1, whose mask now differs
	got, _ = MultiPrefixCountBits(lanes, masks)
	if !got[3].Undefined || got[1].Undefined {
		t.Errorf("non-partition: lane 3 %+v, lane 1 %+v", got[3], got[1])
	}
}

func TestPartitionedSupportsAndResultType(t *testing.T) {
	for _, tc := range []struct {
		op intrinsics.Op
		t  Type
		ok bool
	}{
		{intrinsics.WaveMatch, Type{Bool, 3}, true},
		{intrinsics.WaveMatch, Type{Float16, 4}, true},
		{intrinsics.WaveMatch, Type{Int64, 1}, true},
		{intrinsics.WaveMultiPrefixSum, Type{Float64, 2}, true},
		{intrinsics.WaveMultiPrefixSum, Type{Bool, 1}, false},
		{intrinsics.WaveMultiPrefixProduct, Type{Int32, 4}, true},
		{intrinsics.WaveMultiPrefixBitAnd, Type{Uint64, 2}, true},
		{intrinsics.WaveMultiPrefixBitOr, Type{Int32, 1}, false},
		{intrinsics.WaveMultiPrefixBitXor, Type{Float32, 1}, false},
		{intrinsics.WaveMatch, Type{Uint32, 5}, false},
		{intrinsics.WaveMultiPrefixCountBits, Type{Bool, 1}, true},
		{intrinsics.WaveMultiPrefixCountBits, Type{Bool, 2}, false},
		{intrinsics.WaveMultiPrefixCountBits, Type{Uint32, 1}, false},
	} {
		err := Supports(tc.op, tc.t)
		if (err == nil) != tc.ok {
			t.Errorf("Supports(%s, %s) = %v, want ok=%v", tc.op, tc.t, err, tc.ok)
		}
	}
	if rt := ResultType(intrinsics.WaveMatch, Type{Float64, 3}); rt != (Type{Uint32, 4}) {
		t.Errorf("WaveMatch result %s", rt)
	}
	if rt := ResultType(intrinsics.WaveMultiPrefixCountBits, Type{Bool, 1}); rt != (Type{Uint32, 1}) {
		t.Errorf("WaveMultiPrefixCountBits result %s", rt)
	}
	if rt := ResultType(intrinsics.WaveMultiPrefixProduct, Type{Float16, 3}); rt != (Type{Float16, 3}) {
		t.Errorf("WaveMultiPrefixProduct result %s", rt)
	}
	if _, err := MultiPrefix(intrinsics.WaveMatch, Type{Uint32, 1}, nil, nil); err == nil || !strings.Contains(err.Error(), "does not model") {
		t.Errorf("MultiPrefix(WaveMatch): %v", err)
	}
	if _, err := MultiPrefix(intrinsics.WaveMultiPrefixSum, Type{Uint32, 1}, make([]Lane, 2), nil); err == nil {
		t.Error("MultiPrefix accepted fewer masks than lanes")
	}
	if !IsPartitioned(intrinsics.WaveMultiPrefixBitXor) || IsPartitioned(intrinsics.WavePrefixSum) {
		t.Error("IsPartitioned")
	}
}
