package models

import (
	"fmt"

	"waverig/compiler/intrinsics"
)

// QuadIndex is the quad lane (index & 3) of the pixel at framebuffer position (x, y)
// in a fragment shader: Vulkan ("Quad Group Operations") and WebGPU number a quad's
// invocations 0 top-left, 1 top-right, 2 bottom-left, 3 bottom-right, the quad being
// the pixels (2qx..2qx+1, 2qy..2qy+1).
func QuadIndex(x, y uint32) uint32 { return x&1 | (y&1)<<1 }

// IsQuadOp reports the quad operations (the four reads and the quad votes QuadAny and
// QuadAll): helper lanes always take part in the reads and in the portable votes
// (quad swaps; a fragment shader that runs quad operations gets the helper
// invocations it needs). The SPV_KHR_quad_control votes count only active
// invocations, helpers being active only with RequireFullQuadsKHR
// (QuadVoteHelperSets).
func IsQuadOp(op intrinsics.Op) bool {
	switch op {
	case intrinsics.QuadReadAcrossX, intrinsics.QuadReadAcrossY, intrinsics.QuadReadAcrossDiagonal, intrinsics.QuadReadLaneAt,
		intrinsics.QuadAny, intrinsics.QuadAll:
		return true
	}
	return false
}

// HelperSets is the pixel-stage model of one wave: recorded are the lanes that wrote a
// record (the covered pixels), helpers the helper lanes of the wave's quads (lane index
// from their quad's base and quad position, input from their position, Active when their
// branch ran the operation). Whether helpers take part in wave operations is
// implementation-defined, so it returns the results of the recorded lanes for both
// choices: excluded (helpers inactive) and included (helpers active as given). Quad
// operations always include helpers, so both sets are the included one. Where the two
// sets agree for every lane the wave cannot tell which one the device chose.
func HelperSets(op intrinsics.Op, t Type, recorded, helpers []Lane, laneCount uint32) (excluded, included []Value, err error) {
	all := make([]Lane, 0, len(recorded)+len(helpers))
	all = append(all, recorded...)
	all = append(all, helpers...)
	inc, err := Expected(op, t, all, laneCount)
	if err != nil {
		return nil, nil, err
	}
	included = inc[:len(recorded)]
	if IsQuadOp(op) || len(helpers) == 0 {
		return included, included, nil
	}
	off := append([]Lane(nil), recorded...)
	for _, h := range helpers {
		h.Active = false
		off = append(off, h)
	}
	exc, err := Expected(op, t, off, laneCount)
	if err != nil {
		return nil, nil, err
	}
	return exc[:len(recorded)], included, nil
}

// SameValues reports whether two expectations agree on every lane (both undefined, or
// both defined and equal component by component).
func SameValues(s Scalar, a, b []Value) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Undefined != b[i].Undefined {
			return false
		}
		if a[i].Undefined {
			continue
		}
		if len(a[i].Comps) != len(b[i].Comps) {
			return false
		}
		for k := range a[i].Comps {
			if !Equal(s, a[i].Comps[k], b[i].Comps[k]) {
				return false
			}
		}
	}
	return true
}

// QuadSlope is the model of the seed's PSSlope: for an attribute that is the affine
// function v(p) = a*p + b of one framebuffer coordinate p (pixel centres p = i + 0.5),
// QuadReadAcrossX/Y(v) - v at pixel i reads the quad neighbour i^1: +a on the quad's
// first column (row), -a on its second. Helper neighbours hold the same function.
func QuadSlope(i uint32, a, b float32) (float32, error) {
	v := func(i uint32) float32 { return a*(float32(i)+0.5) + b }
	d := v(i^1) - v(i)
	want := a
	if i&1 == 1 {
		want = -a
	}
	if d != want {
		return d, fmt.Errorf("models: slope a=%g b=%g at %d is %g, not exactly %g: choose a and b exact in float", a, b, i, d, want)
	}
	return d, nil
}
