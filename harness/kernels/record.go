package kernels

import (
	"encoding/binary"
	"fmt"
	"unsafe"

	"waverig/compiler/intrinsics"
	"waverig/harness/models"
)

// The record every invocation of an operation kernel owns in u0 (uint words). Words
// marked "pre" are written by the generator before the dispatch and only read by the
// kernel; the header words (flat .. lane arg) are written by every invocation after
// all divergence; the output words hold outSentinel until the arm that runs the
// operation stores the result's words there, so they are written by exactly the
// lanes that ran it, and only as many as the result has.
const (
	wFlat    = 0  // flat id = group * threads + SV_GroupIndex (= record index)
	wKey     = 1  // WaveReadLaneFirst(flat id) before any divergence
	wLane    = 2  // WaveGetLaneIndex()
	wCount   = 3  // WaveGetLaneCount()
	wBranch  = 4  // 0: did not run the op; 1: ran it (then-arm); 2: ran it in the else-arm (nested)
	wLaneArg = 5  // lane argument passed to WaveReadLaneAt / QuadReadLaneAt
	wCtl     = 6  // pre: pattern | mode<<4 | variant<<8 | case index<<16
	wRnd     = 7  // pre: the random pattern's coin (0/1)
	wIn      = 8  // pre: input, up to 4 components × 2 words
	wOut     = 16 // output, up to 8 words (uint4 ballot, 4 × 64-bit)
	recWords = 24
)

// outSentinel fills every output word of a record kernel's buffer before the
// dispatch (newRecords). A lane that did not run the operation must leave all
// eight as they are, and a lane that did must leave the words past its result's
// width: a store that escaped its branch, a store masked off in the wrong lanes,
// or a store that never happened shows as a changed or an unchanged sentinel.
// It is neither a NaN nor a small number (as a float about -1.58e38), so no
// float rule accepts a lane that never stored merely because its expected
// value is "any NaN"; the checker tells "not written" apart by the raw words.
const outSentinel uint32 = 0xFEEDC0DE

// newRecords is the u0 buffer of n records, zero but for the output words,
// which hold outSentinel.
func newRecords(n int) []uint32 {
	rec := make([]uint32, n*recWords)
	if n == 0 {
		return rec
	}
	for w := wOut; w < recWords; w++ {
		rec[w] = outSentinel
	}
	// The first record, then doubling copies: a whole matrix's records are
	// hundreds of megabytes, and word by word this loop was a sixth of
	// building the matrix (waverig list).
	for done := recWords; done < len(rec); done *= 2 {
		copy(rec[done:], rec[:done])
	}
	return rec
}

// ctl packs the per-invocation control word.
func ctl(pattern, mode, variant, caseIdx int) uint32 {
	return uint32(pattern&15) | uint32(mode&15)<<4 | uint32(variant&255)<<8 | uint32(caseIdx&0xffff)<<16
}

func unctl(w uint32) (pattern, mode, variant, caseIdx int) {
	return int(w & 15), int(w >> 4 & 15), int(w >> 8 & 255), int(w >> 16)
}

func patternID(p Pattern) int {
	for i, q := range Patterns {
		if q == p {
			return i
		}
	}
	return -1
}

// elseArm says whether a type's variant also calls the operation in the else-arm of
// the nested pattern. Scalars do; vectors do not, because every call site costs
// pipeline-creation time on lavapipe and the two-arm property does not depend on the
// vector width.
func elseArm(t Type) bool { return t.N == 1 }

// patternOf is the Go twin of the pattern block in the generated HLSL (emitPattern):
// the outer and inner conditions of an invocation from its recorded lane index, lane
// count, SV_GroupIndex and coin.
func patternOf(p Pattern, lane, count uint32, gi, threads int, rnd uint32) (outer, inner bool) {
	outer, inner = true, true
	switch p {
	case Even:
		outer = lane&1 == 0
	case Odd:
		outer = lane&1 == 1
	case First:
		outer = lane == 0
	case Last:
		outer = lane == count-1 || gi == threads-1
	case FirstHalf:
		outer = lane < count/2
	case Nested:
		outer = lane%3 != 2
		inner = (lane>>1)&1 == 0
	case Random:
		outer = rnd != 0
	}
	return outer, inner
}

// armOf turns the pattern's conditions into the arm (1 or 2; 0 = none) the invocation
// runs the operation in. twoArms is elseArm of the case's type.
func armOf(outer, inner, twoArms bool) uint32 {
	switch {
	case !outer:
		return 0
	case inner:
		return 1
	case twoArms:
		return 2
	}
	return 0
}

// branchOf is the per-lane pattern (patternOf, armOf): every arm of a pixel kernel,
// and of a record kernel outside the whole-quad replicas (waveArms).
func branchOf(p Pattern, lane, count uint32, gi, threads int, rnd uint32, twoArms bool) uint32 {
	outer, inner := patternOf(p, lane, count, gi, threads, rnd)
	return armOf(outer, inner, twoArms)
}

// laneArgOf is the Go twin of the lane argument a pixel kernel passes for a mode
// (record kernels: waveArms).
func laneArgOf(op intrinsics.Op, mode int, lane, count uint32) uint32 {
	switch op {
	case intrinsics.WaveReadLaneAt:
		switch mode {
		case 0:
			return 1
		case 1:
			return count - 1
		case 3:
			// Pixel kernels' whole-quad replica: the quad partner.
			return lane ^ 1
		}
		if count == 0 {
			return 0
		}
		return (lane + 1) % count
	case intrinsics.QuadReadLaneAt:
		return uint32(mode)
	}
	return 0
}

func hasLaneArg(op intrinsics.Op) bool {
	return op == intrinsics.WaveReadLaneAt || op == intrinsics.QuadReadLaneAt
}

// wordsPer is how many record words one component of a scalar takes.
func wordsPer(s models.Scalar) int {
	if s.Bits() == 64 {
		return 2
	}
	return 1
}

// encodeComp turns a component's bits into its record words. 64-bit integers and
// doubles are their (low, high) words, all 64 bits: the kernels move a double
// in with asdouble(low, high) and out with asuint(double, out low, out high) (or
// glslang's double view, storeResult), OpBitcast and OpStore, which carry every
// bit, NaN payloads, signed zeros and denormals included. A half is its 16 bits.
func encodeComp(s models.Scalar, v uint64) [2]uint32 {
	switch s {
	case models.Int64, models.Uint64, models.Float64:
		return [2]uint32{uint32(v), uint32(v >> 32)}
	case models.Float16:
		return [2]uint32{uint32(v & 0xffff)}
	}
	return [2]uint32{uint32(v)}
}

// decodeComp is the inverse of encodeComp.
func decodeComp(s models.Scalar, w []uint32) uint64 {
	switch s {
	case models.Int64, models.Uint64, models.Float64:
		return uint64(w[0]) | uint64(w[1])<<32
	case models.Float16:
		return uint64(w[0] & 0xffff)
	}
	return uint64(w[0])
}

// readComps decodes n components of scalar s starting at word off of a record.
func readComps(rec []uint32, off int, s models.Scalar, n int) []uint64 {
	out := make([]uint64, n)
	wp := wordsPer(s)
	for k := 0; k < n; k++ {
		out[k] = decodeComp(s, rec[off+k*wp:off+k*wp+wp])
	}
	return out
}

// writeComps encodes components into a record at word off.
func writeComps(rec []uint32, off int, s models.Scalar, comps []uint64) {
	wp := wordsPer(s)
	for k, c := range comps {
		e := encodeComp(s, c)
		copy(rec[off+k*wp:off+k*wp+wp], e[:wp])
	}
}

// words converts a buffer to uint32 words (little endian, as Vulkan hosts store them).
func words(b []byte) ([]uint32, error) {
	if len(b)%4 != 0 {
		return nil, fmt.Errorf("buffer of %d bytes is not whole uint words", len(b))
	}
	w := make([]uint32, len(b)/4)
	for i := range w {
		w[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return w, nil
}

func bytesOf(w []uint32) []byte {
	b := make([]byte, 4*len(w))
	if hostLittleEndian && len(w) > 0 {
		// The host's words are already the buffer's bytes: one copy (the
		// word loop was a quarter of building the matrix).
		copy(b, unsafe.Slice((*byte)(unsafe.Pointer(&w[0])), len(b)))
		return b
	}
	for i, x := range w {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
	return b
}
