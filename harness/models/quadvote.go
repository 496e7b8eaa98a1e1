package models

import (
	"fmt"

	"waverig/compiler/intrinsics"
)

// QuadVoteForm is the form a Shader Model 6.7 quad vote (QuadAny, QuadAll) was
// compiled to. HLSL defines the vote over the ACTIVE lanes of the quad, but the two
// SPIR-V forms waverig emits define different sets of lanes, so the model takes the
// form.
type QuadVoteForm uint8

const (
	// QuadVoteSwaps is the portable form (SPIR-V without SPV_KHR_quad_control, as
	// DXC emits it; WGSL always): the lane's predicate combined (or / and) with its
	// three OpGroupNonUniformQuadSwap (quadSwapX, quadSwapY, quadSwapDiagonal). A swap
	// that reads an inactive or absent lane returns an undefined value (SPIR-V:
	// "undefined", WGSL: "indeterminate" — an arbitrary value of the type, not a
	// trap), so the result is defined only where the defined operands decide it: any
	// active quad member true for QuadAny (true absorbs an arbitrary operand), any
	// false for QuadAll (false absorbs); with all four members active every operand
	// is defined. Otherwise Undefined.
	QuadVoteSwaps QuadVoteForm = iota
	// QuadVoteKHR is OpGroupNonUniformQuadAnyKHR / OpGroupNonUniformQuadAllKHR
	// (SPV_KHR_quad_control): "evaluates a predicate for all active invocations in
	// the quad", HLSL's own definition, so every active lane's result is defined
	// over the active members of its quad, whatever the others do.
	QuadVoteKHR
)

func (f QuadVoteForm) String() string {
	switch f {
	case QuadVoteSwaps:
		return "quad swaps"
	case QuadVoteKHR:
		return "SPV_KHR_quad_control"
	}
	return fmt.Sprintf("QuadVoteForm(%d)", uint8(f))
}

// IsQuadVote reports the Shader Model 6.7 quad votes, QuadAny and QuadAll.
func IsQuadVote(op intrinsics.Op) bool {
	return op == intrinsics.QuadAny || op == intrinsics.QuadAll
}

// QuadVote is the model of QuadAny / QuadAll (scalar bool predicate in Input[0]) in
// the given form. A quad is the lanes whose recorded index shares index>>2, as for
// the other quad operations (Quad): the four lanes 4q..4q+3 of a compute wave, a
// 2x2 pixel quad in a fragment shader (QuadIndex). Inactive lanes get Undefined.
func QuadVote(op intrinsics.Op, form QuadVoteForm, lanes []Lane) ([]Value, error) {
	if !IsQuadVote(op) {
		return nil, fmt.Errorf("models: QuadVote does not model %s", op)
	}
	if form != QuadVoteSwaps && form != QuadVoteKHR {
		return nil, fmt.Errorf("models: %s: unknown form %s", op, form)
	}
	if err := checkLanes(Type{Bool, 1}, lanes, true); err != nil {
		return nil, err
	}
	// The vote's absorbing value: one active member holding it decides the result
	// in both forms (QuadAny: true, QuadAll: false).
	absorb := op == intrinsics.QuadAny
	type quad struct{ active, decided int }
	quads := map[uint32]*quad{}
	for _, l := range lanes {
		q := quads[l.Index>>2]
		if q == nil {
			q = &quad{}
			quads[l.Index>>2] = q
		}
		if l.Active {
			q.active++
			if pred(l) == absorb {
				q.decided++
			}
		}
	}
	out := undefined(len(lanes))
	for i, l := range lanes {
		if !l.Active {
			continue
		}
		q := quads[l.Index>>2]
		switch {
		case q.decided > 0:
			out[i] = Value{Comps: []uint64{b2u(absorb)}}
		case form == QuadVoteKHR || q.active == 4:
			// No active member holds the absorbing value: the KHR vote is over the
			// active members only; the swaps are all defined in a full quad.
			out[i] = Value{Comps: []uint64{b2u(!absorb)}}
		}
	}
	return out, nil
}

// QuadVoteHelperSets is HelperSets for a quad vote in the given form (helpers
// Active when their branch ran the vote, inputs those they compute).
//
// Quad swaps read the quad's helpers (quad operations), so for QuadVoteSwaps both
// sets are the included one. The KHR instructions evaluate the predicate "for all
// active invocations in the quad" (SPV_KHR_quad_control), and whether a helper
// invocation is active for them is left to the implementation unless the entry
// point has RequireFullQuadsKHR ("Do the new quad operations invoke helpers
// automatically? ... they do not", VK_KHR_shader_quad_control proposal): for
// QuadVoteKHR excluded is the vote over the recorded lanes' quad members alone.
func QuadVoteHelperSets(op intrinsics.Op, form QuadVoteForm, recorded, helpers []Lane) (excluded, included []Value, err error) {
	all := make([]Lane, 0, len(recorded)+len(helpers))
	all = append(append(all, recorded...), helpers...)
	inc, err := QuadVote(op, form, all)
	if err != nil {
		return nil, nil, err
	}
	if form != QuadVoteKHR || len(helpers) == 0 {
		return inc[:len(recorded)], inc[:len(recorded)], nil
	}
	off := append([]Lane(nil), recorded...)
	for _, h := range helpers {
		h.Active = false
		off = append(off, h)
	}
	exc, err := QuadVote(op, form, off)
	if err != nil {
		return nil, nil, err
	}
	return exc[:len(recorded)], inc[:len(recorded)], nil
}
