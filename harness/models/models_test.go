package models

import (
	"math"
	"math/rand"
	"reflect"
	"testing"

	"waverig/compiler/intrinsics"
)

// wave builds lanes 0..len(inputs)-1 (scalar inputs) with the given active set.
func wave(inputs []uint64, active ...uint32) []Lane {
	act := map[uint32]bool{}
	for _, a := range active {
		act[a] = true
	}
	ls := make([]Lane, len(inputs))
	for i, in := range inputs {
		ls[i] = Lane{Index: uint32(i), Active: act[uint32(i)], Input: []uint64{in}}
	}
	return ls
}

func f32(x float32) uint64 { return uint64(math.Float32bits(x)) }
func i32(x int32) uint64   { return uint64(uint32(x)) }

// expectScalars checks a model's output: nil entries in want mean Undefined.
func expectScalars(t *testing.T, name string, s Scalar, got []Value, want []*uint64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values for %d lanes", name, len(got), len(want))
	}
	for i := range want {
		switch {
		case want[i] == nil && !got[i].Undefined:
			t.Errorf("%s lane %d: want undefined, got %s", name, i, Format(s, got[i]))
		case want[i] != nil && got[i].Undefined:
			t.Errorf("%s lane %d: want %s, got undefined", name, i, FormatComp(s, *want[i]))
		case want[i] != nil && !Equal(s, *want[i], got[i].Comps[0]):
			t.Errorf("%s lane %d: want %s, got %s", name, i, FormatComp(s, *want[i]), Format(s, got[i]))
		}
	}
}

func v(x uint64) *uint64 { return &x }

// agrees reports whether a candidate device output matches the model on every defined lane.
func agrees(s Scalar, model, device []Value) bool {
	for i := range model {
		if model[i].Undefined {
			continue
		}
		for k := range model[i].Comps {
			if !Equal(s, model[i].Comps[k], device[i].Comps[k]) {
				return false
			}
		}
	}
	return true
}

func TestPrefixSumIsExclusive(t *testing.T) {
	// 4 lanes, lanes 1 and 3 active: lane 1 reads 0, lane 3 reads x1.
	ls := wave([]uint64{i32(10), i32(20), i32(30), i32(40)}, 1, 3)
	got, err := Prefix(intrinsics.WavePrefixSum, Type{Int32, 1}, ls)
	if err != nil {
		t.Fatal(err)
	}
	expectScalars(t, "WavePrefixSum", Int32, got, []*uint64{nil, v(0), nil, v(20)})

	// Mutant: an inclusive scan (glslang's known bug) must disagree with the model.
	inclusive := []Value{{Undefined: true}, {Comps: []uint64{20}}, {Undefined: true}, {Comps: []uint64{60}}}
	if agrees(Int32, got, inclusive) {
		t.Fatal("an inclusive scan passed the exclusive WavePrefixSum model")
	}
}

func TestPrefixProductFloatIdentityAndOrder(t *testing.T) {
	ls := wave([]uint64{f32(2), f32(-0.5), f32(4), f32(-1)}, 0, 1, 2, 3)
	got, err := Prefix(intrinsics.WavePrefixProduct, Type{Float32, 1}, ls)
	if err != nil {
		t.Fatal(err)
	}
	expectScalars(t, "WavePrefixProduct", Float32, got, []*uint64{v(f32(1)), v(f32(2)), v(f32(-1)), v(f32(-4))})
}

func TestReduceIntegersWrapAndSignedMin(t *testing.T) {
	ls := wave([]uint64{i32(math.MaxInt32), i32(1), i32(-5), i32(7)}, 0, 1, 2)
	sum, _ := Reduce(intrinsics.WaveActiveSum, Type{Int32, 1}, ls)
	expectScalars(t, "WaveActiveSum", Int32, sum, []*uint64{v(i32(math.MaxInt32 - 4)), v(i32(math.MaxInt32 - 4)), v(i32(math.MaxInt32 - 4)), nil})
	// Lanes 0, 1, 3: MaxInt32 + 1 + 7 wraps to MinInt32 + 7.
	wrap, _ := Reduce(intrinsics.WaveActiveSum, Type{Int32, 1}, wave([]uint64{i32(math.MaxInt32), i32(1), i32(-5), i32(7)}, 0, 1, 3))
	expectScalars(t, "WaveActiveSum wrap", Int32, wrap, []*uint64{v(i32(math.MinInt32 + 7)), v(i32(math.MinInt32 + 7)), nil, v(i32(math.MinInt32 + 7))})
	mn, _ := Reduce(intrinsics.WaveActiveMin, Type{Int32, 1}, ls)
	expectScalars(t, "WaveActiveMin int", Int32, mn, []*uint64{v(i32(-5)), v(i32(-5)), v(i32(-5)), nil})
	umn, _ := Reduce(intrinsics.WaveActiveMin, Type{Uint32, 1}, ls)
	expectScalars(t, "WaveActiveMin uint", Uint32, umn, []*uint64{v(1), v(1), v(1), nil})
	x, _ := Reduce(intrinsics.WaveActiveBitXor, Type{Uint32, 1}, wave([]uint64{0xf0, 0x0f, 0xff, 0x1}, 0, 1, 3))
	expectScalars(t, "WaveActiveBitXor", Uint32, x, []*uint64{v(0xfe), v(0xfe), nil, v(0xfe)})
	if _, err := Reduce(intrinsics.WaveActiveBitAnd, Type{Float32, 1}, ls); err == nil {
		t.Error("WaveActiveBitAnd accepted float")
	}
}

func TestReduce64BitAndVectors(t *testing.T) {
	ls := []Lane{
		{Index: 5, Active: true, Input: []uint64{1 << 40, 3}},
		{Index: 2, Active: true, Input: []uint64{^uint64(0), 4}},
		{Index: 9, Active: false, Input: []uint64{7, 7}},
	}
	got, err := Reduce(intrinsics.WaveActiveSum, Type{Uint64, 2}, ls)
	if err != nil {
		t.Fatal(err)
	}
	want := []uint64{1<<40 - 1, 7}
	for _, i := range []int{0, 1} {
		if got[i].Undefined || got[i].Comps[0] != want[0] || got[i].Comps[1] != want[1] {
			t.Errorf("lane %d: got %v want %v", ls[i].Index, got[i].Comps, want)
		}
	}
	if !got[2].Undefined {
		t.Error("inactive lane got a value")
	}
	mx, _ := Reduce(intrinsics.WaveActiveMax, Type{Int64, 2}, ls)
	if mx[0].Comps[0] != 1<<40 || mx[0].Comps[1] != 4 {
		t.Errorf("int64 max: %v", mx[0].Comps)
	}
}

func TestBallotBitsAndCounts(t *testing.T) {
	// 40-lane wave: lanes 0, 2, 33, 39 active; predicate true on 0, 33, 39 and on inactive 5.
	in := make([]uint64, 40)
	in[0], in[33], in[39], in[5] = 1, 1, 1, 1
	ls := wave(in, 0, 2, 33, 39)
	b, err := Ballot(ls)
	if err != nil {
		t.Fatal(err)
	}
	want := []uint64{1, 1<<1 | 1<<7, 0, 0}
	for k, w := range want {
		if b[2].Comps[k] != w {
			t.Errorf("ballot word %d = %#x want %#x", k, b[2].Comps[k], w)
		}
	}
	if !b[5].Undefined {
		t.Error("inactive lane 5 got a ballot")
	}
	c, _ := CountBits(ls)
	expectScalars(t, "WaveActiveCountBits", Uint32, c[:3], []*uint64{v(3), nil, v(3)})
	p, _ := PrefixCountBits(ls)
	if p[0].Comps[0] != 0 || p[2].Comps[0] != 1 || p[33].Comps[0] != 1 || p[39].Comps[0] != 2 {
		t.Errorf("prefix count bits: %v %v %v %v", p[0], p[2], p[33], p[39])
	}
	// Mutant: an inclusive count disagrees.
	mut := make([]Value, len(p))
	copy(mut, p)
	mut[33] = Value{Comps: []uint64{2}}
	if agrees(Uint32, p, mut) {
		t.Error("inclusive prefix count passed")
	}
}

func TestVoteAndFirstLane(t *testing.T) {
	ls := wave([]uint64{0, 1, 1, 0}, 1, 2)
	all, _ := Vote(intrinsics.WaveActiveAllTrue, ls)
	anyT, _ := Vote(intrinsics.WaveActiveAnyTrue, ls)
	expectScalars(t, "AllTrue", Bool, all, []*uint64{nil, v(1), v(1), nil})
	expectScalars(t, "AnyTrue", Bool, anyT, []*uint64{nil, v(1), v(1), nil})
	ls[2].Input[0] = 0
	all, _ = Vote(intrinsics.WaveActiveAllTrue, ls)
	expectScalars(t, "AllTrue with a false lane", Bool, all, []*uint64{nil, v(0), v(0), nil})
	first, _ := IsFirstLane(ls)
	expectScalars(t, "IsFirstLane", Bool, first, []*uint64{nil, v(1), v(0), nil})
}

func TestAllEqualPerComponent(t *testing.T) {
	ls := []Lane{
		{Index: 0, Active: true, Input: []uint64{f32(1), f32(0)}},
		{Index: 1, Active: true, Input: []uint64{f32(1), f32(float32(math.Copysign(0, -1)))}},
		{Index: 2, Active: true, Input: []uint64{f32(2), f32(0)}},
		{Index: 3, Active: false, Input: []uint64{f32(9), f32(9)}},
	}
	got, _ := AllEqual(Type{Float32, 2}, ls)
	// Component 0 differs (1,1,2); component 1 is 0, -0, 0: equal as values.
	if got[0].Comps[0] != 0 || got[0].Comps[1] != 1 {
		t.Errorf("AllEqual = %v", got[0].Comps)
	}
	ls[2].Active = false
	got, _ = AllEqual(Type{Float32, 2}, ls)
	if got[0].Comps[0] != 1 || !got[2].Undefined {
		t.Errorf("AllEqual without lane 2 = %v, lane2 %v", got[0], got[2])
	}
}

func TestQuadPartnersAndUndefined(t *testing.T) {
	// Lanes 4..7 form one quad; lane 6 is inactive, lane 7 absent from the wave.
	ls := []Lane{
		{Index: 4, Active: true, Input: []uint64{40}},
		{Index: 5, Active: true, Input: []uint64{50}},
		{Index: 6, Active: false, Input: []uint64{60}},
	}
	x, _ := Quad(intrinsics.QuadReadAcrossX, Type{Uint32, 1}, ls)
	expectScalars(t, "QuadReadAcrossX", Uint32, x, []*uint64{v(50), v(40), nil})
	y, _ := Quad(intrinsics.QuadReadAcrossY, Type{Uint32, 1}, ls)
	expectScalars(t, "QuadReadAcrossY (partners 6 inactive, 7 absent)", Uint32, y, []*uint64{nil, nil, nil})
	d, _ := Quad(intrinsics.QuadReadAcrossDiagonal, Type{Uint32, 1}, ls)
	expectScalars(t, "QuadReadAcrossDiagonal", Uint32, d, []*uint64{nil, nil, nil})
	ls[0].LaneArg, ls[1].LaneArg = 1, 0
	at, _ := Quad(intrinsics.QuadReadLaneAt, Type{Uint32, 1}, ls)
	expectScalars(t, "QuadReadLaneAt", Uint32, at, []*uint64{v(50), v(40), nil})
	if _, err := Quad(intrinsics.QuadReadAcrossX, Type{Bool, 1}, ls); err == nil {
		t.Error("quad op accepted bool")
	}
}

func TestReadLaneAtAndFirst(t *testing.T) {
	ls := wave([]uint64{100, 101, 102, 103}, 1, 2, 3)
	ls[1].LaneArg, ls[2].LaneArg, ls[3].LaneArg = 3, 0, 7
	got, _ := ReadLaneAt(Type{Uint32, 1}, ls)
	// lane 0 is inactive, lane 7 absent: undefined.
	expectScalars(t, "WaveReadLaneAt", Uint32, got, []*uint64{nil, v(103), nil, nil})
	f, _ := ReadLaneFirst(Type{Uint32, 1}, ls)
	expectScalars(t, "WaveReadLaneFirst", Uint32, f, []*uint64{nil, v(101), v(101), v(101)})
}

func TestLaneOrderDoesNotMatter(t *testing.T) {
	// The same wave presented in a shuffled slice order gives the same per-lane results.
	r := rand.New(rand.NewSource(7))
	ls := make([]Lane, 32)
	for i := range ls {
		ls[i] = Lane{Index: uint32(i), Active: r.Intn(3) != 0, Input: []uint64{uint64(r.Intn(9))}}
	}
	ref, _ := Prefix(intrinsics.WavePrefixSum, Type{Uint32, 1}, ls)
	perm := r.Perm(len(ls))
	sh := make([]Lane, len(ls))
	for i, p := range perm {
		sh[i] = ls[p]
	}
	got, _ := Prefix(intrinsics.WavePrefixSum, Type{Uint32, 1}, sh)
	for i, p := range perm {
		if ref[p].Undefined != got[i].Undefined || (!ref[p].Undefined && ref[p].Comps[0] != got[i].Comps[0]) {
			t.Fatalf("lane %d: %v vs %v", ls[p].Index, ref[p], got[i])
		}
	}
}

func TestDuplicateLaneRejected(t *testing.T) {
	ls := []Lane{{Index: 1, Active: true, Input: []uint64{1}}, {Index: 1, Active: true, Input: []uint64{2}}}
	if _, err := Expected(intrinsics.WaveActiveSum, Type{Uint32, 1}, ls, 4); err == nil {
		t.Error("duplicate lane index accepted")
	}
}

func TestHalfConversion(t *testing.T) {
	for _, f := range []float32{0, 1, -2, 0.5, 65504, 6.103515625e-05, 5.9604645e-08, -1023.5} {
		h := Float32ToFloat16(f)
		if back := Float16ToFloat32(h); back != f {
			t.Errorf("%g -> %#04x -> %g", f, h, back)
		}
	}
	if Float32ToFloat16(1e6) != 0x7c00 {
		t.Error("overflow does not give inf")
	}
	// 1 + 2^-11 is halfway between 1 and the next half: ties to even gives 1.
	if Float32ToFloat16(1+1.0/2048) != 0x3c00 {
		t.Error("ties-to-even rounding broken")
	}
	// Every half bit pattern round-trips (NaNs aside).
	for h := 0; h < 0x10000; h++ {
		if h&0x7c00 == 0x7c00 && h&0x3ff != 0 {
			continue
		}
		if got := Float32ToFloat16(Float16ToFloat32(uint16(h))); got != uint16(h) {
			t.Fatalf("%#04x round-trips to %#04x", h, got)
		}
	}
	// Half sums are evaluated as half: 2048 + 1 rounds to 2048.
	s := binop(opAdd, Float16, uint64(Float32ToFloat16(2048)), uint64(Float32ToFloat16(1)))
	if Float16ToFloat32(uint16(s)) != 2048 {
		t.Errorf("half 2048+1 = %g", Float16ToFloat32(uint16(s)))
	}
}

func TestExpectedDispatchCoversWave24(t *testing.T) {
	for _, op := range intrinsics.Wave24 {
		ty := Type{Uint32, 1}
		switch op {
		case intrinsics.WaveIsFirstLane, intrinsics.WaveActiveAnyTrue, intrinsics.WaveActiveAllTrue,
			intrinsics.WaveActiveBallot, intrinsics.WaveActiveCountBits, intrinsics.WavePrefixCountBits:
			ty = Type{Bool, 1}
		}
		ls := wave([]uint64{1, 0, 1, 1}, 0, 1, 2, 3)
		got, err := Expected(op, ty, ls, 4)
		if err != nil {
			t.Errorf("%s: %v", op, err)
			continue
		}
		if got[0].Undefined {
			t.Errorf("%s: lane 0 undefined in a full wave", op)
		}
		if n := ResultType(op, ty).N; len(got[0].Comps) != n {
			t.Errorf("%s: %d components, result type has %d", op, len(got[0].Comps), n)
		}
	}
}

// TestScanSetsMatchScanAllowed: Prefix's running sets (scanSets) are, prefix by
// prefix, the sets scanAllowed works out from the prefix's terms anew: sums and
// products of every float type, waves up to 128 lanes, terms of mixed
// magnitudes and signs, NaNs and infinities.
func TestScanSetsMatchScanAllowed(t *testing.T) {
	seed := uint64(11)
	next := func() uint64 {
		seed = seed*6364136223846793005 + 1442695040888963407
		return seed >> 11
	}
	specials := map[Scalar][]uint64{
		Float16: {0x7e00, 0x7c00, 0x8000, 0x0001},
		Float32: {0x7fc00000, 0xff800000, 0x80000000, 0x00000001},
		Float64: {0x7ff8000000000000, 0x7ff0000000000000, 0x8000000000000000, 1},
	}
	compared := 0
	for _, s := range []Scalar{Float16, Float32, Float64} {
		for _, a := range []arith{opAdd, opMul} {
			for _, n := range []int{1, 2, 7, 32, 128} {
				for trial := 0; trial < 3; trial++ {
					ty := Type{s, 2}
					lanes := make([]Lane, n)
					for i := range lanes {
						in := make([]uint64, 2)
						for k := range in {
							// Products stay near 1 (as the rig's inputs do), sums roam.
							f := float64(int64(next()%2001)-1000) / 64
							if a == opMul {
								f = 1 + float64(int64(next()%201)-100)/1024
							}
							in[k] = FromFloat64(s, f)
							if next()%97 == 0 {
								in[k] = specials[s][next()%4]
							}
						}
						lanes[i] = Lane{Index: uint32(i), Active: true, Input: in}
					}
					sc := newScanSets(a, ty)
					ord := ordered(lanes)
					for m := range ord {
						if m > 0 {
							got, want := sc.sets(), scanAllowed(a, ty, lanes, ord[:m])
							if !reflect.DeepEqual(got, want) {
								t.Fatalf("%s %d lanes, prefix %d: running sets %v, from the terms %v", s, n, m, got, want)
							}
							compared++
						}
						sc.add(lanes[ord[m]])
					}
				}
			}
		}
	}
	if compared == 0 {
		t.Fatal("nothing compared")
	}
}
