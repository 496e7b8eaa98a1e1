package models

import (
	"testing"

	"waverig/compiler/intrinsics"
)

// quadLanes builds one quad (lanes base..base+3) from four predicates; act marks the
// active members (a lane absent from the wave is left out with present).
func quadLanes(base uint32, preds [4]bool, act [4]bool, present [4]bool) []Lane {
	var ls []Lane
	for i := 0; i < 4; i++ {
		if !present[i] {
			continue
		}
		ls = append(ls, Lane{Index: base + uint32(i), Active: act[i], Input: []uint64{b2u(preds[i])}})
	}
	return ls
}

var allFour = [4]bool{true, true, true, true}

// TestQuadVoteHandWritten: whole quads (all, none, one true) and partial ones, in
// both forms, with the expected values written out by hand from the specs.
func TestQuadVoteHandWritten(t *testing.T) {
	T, F := v(1), v(0)
	for _, c := range []struct {
		name    string
		op      intrinsics.Op
		form    QuadVoteForm
		preds   [4]bool
		act     [4]bool
		present [4]bool
		want    []*uint64 // per present lane; nil = undefined
	}{
		{"any none", intrinsics.QuadAny, QuadVoteSwaps, [4]bool{}, allFour, allFour, []*uint64{F, F, F, F}},
		{"any one", intrinsics.QuadAny, QuadVoteSwaps, [4]bool{false, false, true, false}, allFour, allFour, []*uint64{T, T, T, T}},
		{"any all", intrinsics.QuadAny, QuadVoteSwaps, allFour, allFour, allFour, []*uint64{T, T, T, T}},
		{"all all", intrinsics.QuadAll, QuadVoteSwaps, allFour, allFour, allFour, []*uint64{T, T, T, T}},
		{"all one false", intrinsics.QuadAll, QuadVoteSwaps, [4]bool{true, false, true, true}, allFour, allFour, []*uint64{F, F, F, F}},
		{"all none", intrinsics.QuadAll, QuadVoteKHR, [4]bool{}, allFour, allFour, []*uint64{F, F, F, F}},
		{"any one khr", intrinsics.QuadAny, QuadVoteKHR, [4]bool{false, false, false, true}, allFour, allFour, []*uint64{T, T, T, T}},
		// Lanes 1 and 3 inactive, their predicates true: the KHR vote ignores them;
		// the swaps read them (undefined) and no active member decides.
		{"any partial khr", intrinsics.QuadAny, QuadVoteKHR, [4]bool{false, true, false, true}, [4]bool{true, false, true, false}, allFour, []*uint64{F, nil, F, nil}},
		{"any partial swaps", intrinsics.QuadAny, QuadVoteSwaps, [4]bool{false, true, false, true}, [4]bool{true, false, true, false}, allFour, []*uint64{nil, nil, nil, nil}},
		// An active true member decides QuadAny in both forms.
		{"any partial decided", intrinsics.QuadAny, QuadVoteSwaps, [4]bool{false, false, true, false}, [4]bool{true, false, true, false}, allFour, []*uint64{T, nil, T, nil}},
		// QuadAll with the false lane inactive: true over the active ones (KHR), undefined (swaps).
		{"all partial khr", intrinsics.QuadAll, QuadVoteKHR, [4]bool{true, false, true, true}, [4]bool{true, false, true, true}, allFour, []*uint64{T, nil, T, T}},
		{"all partial swaps", intrinsics.QuadAll, QuadVoteSwaps, [4]bool{true, false, true, true}, [4]bool{true, false, true, true}, allFour, []*uint64{nil, nil, nil, nil}},
		{"all partial decided", intrinsics.QuadAll, QuadVoteSwaps, [4]bool{true, true, false, true}, [4]bool{true, false, true, true}, allFour, []*uint64{F, nil, F, F}},
		// A two-lane quad at the end of a partial wave (lanes 2 and 3 absent).
		{"any absent khr", intrinsics.QuadAny, QuadVoteKHR, [4]bool{false, false}, allFour, [4]bool{true, true}, []*uint64{F, F}},
		{"any absent swaps", intrinsics.QuadAny, QuadVoteSwaps, [4]bool{false, false}, allFour, [4]bool{true, true}, []*uint64{nil, nil}},
		{"all absent swaps", intrinsics.QuadAll, QuadVoteSwaps, [4]bool{false, true}, allFour, [4]bool{true, true}, []*uint64{F, F}},
		{"all absent khr", intrinsics.QuadAll, QuadVoteKHR, [4]bool{true, true}, allFour, [4]bool{true, true}, []*uint64{T, T}},
	} {
		got, err := QuadVote(c.op, c.form, quadLanes(8, c.preds, c.act, c.present))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		expectScalars(t, c.name, Bool, got, c.want)
	}
}

// TestQuadVoteQuadsAreIndependent: two quads of one wave, in shuffled order, vote on
// their own members only, and Expected is the portable form.
func TestQuadVoteQuadsAreIndependent(t *testing.T) {
	lanes := []Lane{
		{Index: 5, Active: true, Input: []uint64{0}}, {Index: 0, Active: true, Input: []uint64{0}},
		{Index: 6, Active: true, Input: []uint64{1}}, {Index: 2, Active: true, Input: []uint64{0}},
		{Index: 4, Active: true, Input: []uint64{0}}, {Index: 1, Active: true, Input: []uint64{0}},
		{Index: 7, Active: true, Input: []uint64{0}}, {Index: 3, Active: true, Input: []uint64{0}},
	}
	got, err := Expected(intrinsics.QuadAny, Type{Bool, 1}, lanes, 8)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range lanes {
		want := b2u(l.Index >= 4)
		if got[i].Undefined || got[i].Comps[0] != want {
			t.Errorf("lane %d: got %+v, want %d", l.Index, got[i], want)
		}
	}
}

// TestQuadVoteFormsAgree: on random quads the portable form defines a subset of the
// lanes the KHR form defines, with the same values; on whole active quads both
// define every lane; and a device that computes the wave vote or ignores inactive
// members' absorbing values differently is caught.
func TestQuadVoteFormsAgree(t *testing.T) {
	r := uint64(1)
	next := func() uint64 { r = r*6364136223846793005 + 1442695040888963407; return r >> 33 }
	for _, op := range intrinsics.QuadVotes {
		for trial := 0; trial < 500; trial++ {
			var lanes []Lane
			full := trial%3 == 0
			for i := uint32(0); i < 16; i++ {
				if !full && next()%8 == 0 {
					continue // absent
				}
				lanes = append(lanes, Lane{Index: i, Active: full || next()%4 != 0, Input: []uint64{next() & 1}})
			}
			sw, err := QuadVote(op, QuadVoteSwaps, lanes)
			if err != nil {
				t.Fatal(err)
			}
			khr, err := QuadVote(op, QuadVoteKHR, lanes)
			if err != nil {
				t.Fatal(err)
			}
			for i, l := range lanes {
				if l.Active == khr[i].Undefined {
					t.Fatalf("%s: lane %d active %v, KHR undefined %v", op, l.Index, l.Active, khr[i].Undefined)
				}
				if full && sw[i].Undefined {
					t.Fatalf("%s: lane %d of a whole active quad undefined in the portable form", op, l.Index)
				}
				if !sw[i].Undefined && sw[i].Comps[0] != khr[i].Comps[0] {
					t.Fatalf("%s: lane %d: forms disagree", op, l.Index)
				}
			}
		}
	}
	// Mutant: the wave-wide vote (WaveActiveAnyTrue) instead of the quad vote.
	lanes := wave([]uint64{0, 0, 0, 0, 1, 0, 0, 0}, 0, 1, 2, 3, 4, 5, 6, 7)
	quad, _ := QuadVote(intrinsics.QuadAny, QuadVoteSwaps, lanes)
	waveVote, _ := Vote(intrinsics.WaveActiveAnyTrue, lanes)
	if agrees(Bool, quad, waveVote) {
		t.Error("the wave-wide vote passes the quad model")
	}
	// Mutant: a KHR device that counts an inactive member's true predicate.
	lanes = quadLanes(0, [4]bool{false, true, false, false}, [4]bool{true, false, true, true}, allFour)
	khr, _ := QuadVote(intrinsics.QuadAny, QuadVoteKHR, lanes)
	counted := []Value{{Comps: []uint64{1}}, {Undefined: true}, {Comps: []uint64{1}}, {Comps: []uint64{1}}}
	if agrees(Bool, khr, counted) {
		t.Error("counting an inactive lane passes the KHR model")
	}
}

// TestQuadVoteHelperSets: helpers are in the portable vote (quad swaps read them:
// both sets are the included one); the KHR vote counts them only when they are
// active (excluded: the recorded members vote alone); a helper's true predicate
// decides QuadAny where helpers take part.
func TestQuadVoteHelperSets(t *testing.T) {
	rec := []Lane{{Index: 0, Active: true, Input: []uint64{0}}, {Index: 1, Active: true, Input: []uint64{0}}}
	hel := []Lane{{Index: 2, Active: true, Input: []uint64{1}}, {Index: 3, Active: true, Input: []uint64{0}}}
	for _, form := range []QuadVoteForm{QuadVoteSwaps, QuadVoteKHR} {
		exc, inc, err := QuadVoteHelperSets(intrinsics.QuadAny, form, rec, hel)
		if err != nil {
			t.Fatal(err)
		}
		wantExc := v(1)
		if form == QuadVoteKHR {
			wantExc = v(0)
		}
		expectScalars(t, "excluded "+form.String(), Bool, exc, []*uint64{wantExc, wantExc})
		expectScalars(t, "included "+form.String(), Bool, inc, []*uint64{v(1), v(1)})
	}
	// No helpers: one set.
	exc, inc, err := QuadVoteHelperSets(intrinsics.QuadAll, QuadVoteKHR, rec, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !SameValues(Bool, exc, inc) {
		t.Error("without helpers the KHR vote's two sets differ")
	}
	exc, inc, err = HelperSets(intrinsics.QuadAll, Type{Bool, 1}, rec, hel, 16)
	if err != nil {
		t.Fatal(err)
	}
	expectScalars(t, "HelperSets excluded", Bool, exc, []*uint64{v(0), v(0)})
	expectScalars(t, "HelperSets included", Bool, inc, []*uint64{v(0), v(0)})
	if !IsQuadOp(intrinsics.QuadAny) || !IsQuadOp(intrinsics.QuadAll) {
		t.Error("quad votes are not quad operations")
	}
}

// TestQuadVoteRejects: only scalar bool, only the quad votes, no duplicate lanes.
func TestQuadVoteRejects(t *testing.T) {
	if Supports(intrinsics.QuadAny, Type{Bool, 2}) == nil || Supports(intrinsics.QuadAll, Type{Uint32, 1}) == nil {
		t.Error("QuadAny/QuadAll accept a non-scalar-bool type")
	}
	if Supports(intrinsics.QuadAll, Type{Bool, 1}) != nil || ResultType(intrinsics.QuadAny, Type{Bool, 1}) != (Type{Bool, 1}) {
		t.Error("QuadAll(bool) -> bool not supported")
	}
	if _, err := QuadVote(intrinsics.WaveActiveAnyTrue, QuadVoteKHR, nil); err == nil {
		t.Error("QuadVote took WaveActiveAnyTrue")
	}
	if _, err := QuadVote(intrinsics.QuadAny, QuadVoteForm(7), nil); err == nil {
		t.Error("QuadVote took an unknown form")
	}
	dup := []Lane{{Index: 1, Active: true, Input: []uint64{1}}, {Index: 1, Active: true, Input: []uint64{0}}}
	if _, err := QuadVote(intrinsics.QuadAny, QuadVoteSwaps, dup); err == nil {
		t.Error("QuadVote took a lane twice")
	}
}
