package models

import (
	"testing"

	"waverig/compiler/intrinsics"
)

func TestQuadIndex(t *testing.T) {
	for _, c := range []struct{ x, y, want uint32 }{
		{0, 0, 0}, {1, 0, 1}, {0, 1, 2}, {1, 1, 3}, {14, 6, 0}, {15, 6, 1}, {14, 111, 2}, {3, 5, 3},
	} {
		if got := QuadIndex(c.x, c.y); got != c.want {
			t.Errorf("QuadIndex(%d, %d) = %d, want %d", c.x, c.y, got, c.want)
		}
	}
}

func u32(v uint32) []uint64 { return []uint64{uint64(v)} }

// TestHelperSets: one quad, lanes 0 and 1 covered, lanes 2 and 3 helpers.
func TestHelperSets(t *testing.T) {
	rec := []Lane{{Index: 0, Active: true, Input: u32(1)}, {Index: 1, Active: true, Input: u32(2)}}
	hel := []Lane{{Index: 2, Active: true, Input: u32(4)}, {Index: 3, Active: true, Input: u32(8)}}
	ui := Type{Uint32, 1}
	for _, c := range []struct {
		op       intrinsics.Op
		t        Type
		rec, hel []Lane
		exc, inc [][]uint64
	}{
		{intrinsics.WaveActiveSum, ui, rec, hel, [][]uint64{{3}, {3}}, [][]uint64{{15}, {15}}},
		{intrinsics.WavePrefixSum, ui, rec, hel, [][]uint64{{0}, {1}}, [][]uint64{{0}, {1}}},
		// A helper below the recorded lanes: prefix and first lane change.
		{intrinsics.WavePrefixSum, ui, []Lane{{Index: 2, Active: true, Input: u32(1)}}, []Lane{{Index: 0, Active: true, Input: u32(5)}},
			[][]uint64{{0}}, [][]uint64{{5}}},
		{intrinsics.WaveReadLaneFirst, ui, []Lane{{Index: 3, Active: true, Input: u32(1)}}, []Lane{{Index: 1, Active: true, Input: u32(9)}},
			[][]uint64{{1}}, [][]uint64{{9}}},
		{intrinsics.WaveIsFirstLane, Type{Bool, 1}, []Lane{{Index: 3, Active: true}}, []Lane{{Index: 1, Active: true}},
			[][]uint64{{1}}, [][]uint64{{0}}},
		{intrinsics.WaveActiveBallot, Type{Bool, 1}, []Lane{{Index: 1, Active: true, Input: u32(1)}}, []Lane{{Index: 2, Active: true, Input: u32(1)}},
			[][]uint64{{2, 0, 0, 0}}, [][]uint64{{6, 0, 0, 0}}},
		// An inactive helper (its branch did not run the op) never counts.
		{intrinsics.WaveActiveSum, ui, rec, []Lane{{Index: 2, Input: u32(4)}}, [][]uint64{{3}, {3}}, [][]uint64{{3}, {3}}},
		// The lane count is the wave size either way.
		{intrinsics.WaveGetLaneCount, ui, rec, hel, [][]uint64{{16}, {16}}, [][]uint64{{16}, {16}}},
		// Quad ops always read the helper: both sets are "included".
		{intrinsics.QuadReadAcrossY, ui, rec, hel, [][]uint64{{4}, {8}}, [][]uint64{{4}, {8}}},
	} {
		exc, inc, err := HelperSets(c.op, c.t, c.rec, c.hel, 16)
		if err != nil {
			t.Fatalf("%s: %v", c.op, err)
		}
		for _, s := range []struct {
			name string
			got  []Value
			want [][]uint64
		}{{"excluded", exc, c.exc}, {"included", inc, c.inc}} {
			if len(s.got) != len(c.rec) {
				t.Fatalf("%s %s: %d values for %d recorded lanes", c.op, s.name, len(s.got), len(c.rec))
			}
			for i, v := range s.got {
				if v.Undefined || len(v.Comps) != len(s.want[i]) {
					t.Errorf("%s %s lane %d: %+v, want %v", c.op, s.name, c.rec[i].Index, v, s.want[i])
					continue
				}
				for k := range v.Comps {
					if v.Comps[k] != s.want[i][k] {
						t.Errorf("%s %s lane %d: %v, want %v", c.op, s.name, c.rec[i].Index, v.Comps, s.want[i])
					}
				}
			}
		}
		same := SameValues(c.t.Scalar, exc, inc)
		differ := false
		for i := range c.exc {
			for k := range c.exc[i] {
				differ = differ || c.exc[i][k] != c.inc[i][k]
			}
		}
		if same == differ {
			t.Errorf("%s: SameValues = %v", c.op, same)
		}
	}
	// ReadLaneAt from a helper: undefined without helpers, its value with them.
	exc, inc, err := HelperSets(intrinsics.WaveReadLaneAt, ui, []Lane{{Index: 0, Active: true, Input: u32(1), LaneArg: 3}},
		[]Lane{{Index: 3, Active: true, Input: u32(7)}}, 4)
	if err != nil || !exc[0].Undefined || inc[0].Undefined || inc[0].Comps[0] != 7 {
		t.Errorf("ReadLaneAt from a helper: %+v / %+v (%v)", exc, inc, err)
	}
}

func TestQuadSlope(t *testing.T) {
	for _, c := range []struct {
		i    uint32
		a, b float32
		want float32
	}{{0, 0.25, 1, 0.25}, {1, 0.25, 1, -0.25}, {14, -0.5, 8, -0.5}, {15, -0.5, 8, 0.5}} {
		got, err := QuadSlope(c.i, c.a, c.b)
		if err != nil || got != c.want {
			t.Errorf("QuadSlope(%d, %g, %g) = %g, %v; want %g", c.i, c.a, c.b, got, err, c.want)
		}
	}
	// A slope that is not exact in float is refused rather than compared loosely.
	if _, err := QuadSlope(1<<24, 1, 0.1); err == nil {
		t.Error("an inexact slope was accepted")
	}
}
