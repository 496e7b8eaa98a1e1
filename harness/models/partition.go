package models

import (
	"fmt"

	"waverig/compiler/intrinsics"
)

// The Shader Model 6.5 partitioned operations (SPV_NV_shader_subgroup_partitioned):
// WaveMatch builds the partition, WaveMultiPrefix* scan within one.
//
// WaveMatch(value) gives every active lane the uint4 ballot of the active lanes of
// its call site whose value is "the same" as its own. Neither HLSL nor
// OpGroupNonUniformPartitionNV ("invocations with the same value") says what "same"
// means for floats whose bits differ while their values compare equal (+0 and -0) or
// whose bits agree while their values do not (NaN). The model compares bit patterns,
// all components (a vector matches only when every component does), and the rig
// never generates -0 or NaN keys, so the open question is never asked of a device.
//
// WaveMultiPrefixOp(value, mask) is an exclusive scan over the active lanes that
// share the lane's partition (the bits of mask) and have a lower lane index; the
// lowest lane of each partition reads the identity (0 for Sum/BitOr/BitXor, 1 for
// Product, all ones for BitAnd). HLSL leaves the result undefined unless the masks
// form a partition of the active lanes: each active lane's mask holds its own bit
// and no bit of an inactive or absent lane, and every lane a mask names has the very
// same mask. The model returns Undefined for every lane where that does not hold
// (its own mask, or the mask of a lane it names, breaks the rule) instead of guessing.

// multiPrefixOps are the combining operations of WaveMultiPrefix*; the keys are the
// operations the model serves (WaveMultiPrefixCountBits, a bool count rather than a
// combination of values, is MultiPrefixCountBits).
var multiPrefixOps = map[intrinsics.Op]arith{
	intrinsics.WaveMultiPrefixSum: opAdd, intrinsics.WaveMultiPrefixProduct: opMul,
	intrinsics.WaveMultiPrefixBitAnd: opAnd, intrinsics.WaveMultiPrefixBitOr: opOr,
	intrinsics.WaveMultiPrefixBitXor: opXor,
}

// IsPartitioned reports the SM 6.5 partitioned operations these models serve
// (WaveMatch, WaveMultiPrefix* and WaveMultiPrefixCountBits).
func IsPartitioned(op intrinsics.Op) bool {
	_, ok := multiPrefixOps[op]
	return ok || op == intrinsics.WaveMatch || op == intrinsics.WaveMultiPrefixCountBits
}

// Mask is a uint4 ballot: bit i of word i/32 is lane index i.
type Mask [4]uint32

// Has reports whether the mask names lane index i.
func (m Mask) Has(i uint32) bool { return i < 128 && m[i/32]>>(i%32)&1 != 0 }

func (m *Mask) set(i uint32) { m[i/32] |= 1 << (i % 32) }

// String renders the mask as the checker's failure reports do (hex, bit i = lane i).
func (m Mask) String() string {
	s := ""
	for w := 3; w >= 0; w-- {
		if s == "" && m[w] == 0 && w > 0 {
			continue
		}
		if s == "" {
			s = fmt.Sprintf("%x", m[w])
		} else {
			s += fmt.Sprintf("%08x", m[w])
		}
	}
	return "0x" + s
}

// supportsPartitioned is Supports for the partitioned operations: WaveMatch takes
// every scalar and vector type (the table's "any" kind, bool included), the
// arithmetic multi-prefix operations every numeric type, the bit operations unsigned
// integers only (as WaveActiveBit* do), WaveMultiPrefixCountBits a scalar bool.
func supportsPartitioned(op intrinsics.Op, t Type) error {
	switch a, ok := multiPrefixOps[op]; {
	case op == intrinsics.WaveMatch:
		return nil
	case op == intrinsics.WaveMultiPrefixCountBits:
		if t != (Type{Bool, 1}) {
			return fmt.Errorf("models: %s does not take %s", op, t)
		}
		return nil
	case !ok:
		return fmt.Errorf("models: no model for %s", op)
	case t.Scalar == Bool, (a == opAnd || a == opOr || a == opXor) && t.Scalar != Uint32 && t.Scalar != Uint64:
		return fmt.Errorf("models: %s does not take %s", op, t)
	}
	return nil
}

// expectedPartitioned is Expected for the partitioned operations. For
// WaveMultiPrefix*, every lane's mask is the partition of the active lanes by the
// key each lane recorded in LaneArg (KeyMasks): the rig's kernels derive the mask
// from that key with a WaveReadLaneFirst/WaveActiveBallot loop and record the key.
func expectedPartitioned(op intrinsics.Op, t Type, lanes []Lane) ([]Value, error) {
	if op == intrinsics.WaveMatch {
		return Match(t, lanes)
	}
	masks, err := KeyMasks(lanes)
	if err != nil {
		return nil, err
	}
	if op == intrinsics.WaveMultiPrefixCountBits {
		return MultiPrefixCountBits(lanes, masks)
	}
	return MultiPrefix(op, t, lanes, masks)
}

// Match is WaveMatch: every active lane reads the mask of the active lanes whose
// value has the same bit pattern in every component; inactive lanes are undefined.
func Match(t Type, lanes []Lane) ([]Value, error) {
	if err := t.valid(); err != nil {
		return nil, err
	}
	if err := checkLanes(t, lanes, true); err != nil {
		return nil, err
	}
	out := undefined(len(lanes))
	for i, l := range lanes {
		if !l.Active {
			continue
		}
		var m Mask
		for _, o := range lanes {
			if !o.Active || !sameComps(t, l, o) {
				continue
			}
			if o.Index >= 128 {
				return nil, fmt.Errorf("models: lane index %d does not fit a 128-bit ballot", o.Index)
			}
			m.set(o.Index)
		}
		out[i] = Value{Comps: []uint64{uint64(m[0]), uint64(m[1]), uint64(m[2]), uint64(m[3])}}
	}
	return out, nil
}

func sameComps(t Type, a, b Lane) bool {
	for k := 0; k < t.N; k++ {
		if mask(t.Scalar, a.Input[k]) != mask(t.Scalar, b.Input[k]) {
			return false
		}
	}
	return true
}

// KeyMasks is the partition of the active lanes by key (Lane.LaneArg): each active
// lane gets the mask of the active lanes with its key; inactive lanes get 0.
func KeyMasks(lanes []Lane) ([]Mask, error) {
	masks := make([]Mask, len(lanes))
	for i, l := range lanes {
		if !l.Active {
			continue
		}
		for _, o := range lanes {
			if !o.Active || o.LaneArg != l.LaneArg {
				continue
			}
			if o.Index >= 128 {
				return nil, fmt.Errorf("models: lane index %d does not fit a 128-bit ballot", o.Index)
			}
			masks[i].set(o.Index)
		}
	}
	return masks, nil
}

// partitionOK reports, per lane, whether its mask is a well-formed part of a
// partition of the active lanes: it holds the lane's own bit, names only active
// lanes, and every lane it names has the same mask.
func partitionOK(lanes []Lane, masks []Mask) []bool {
	at := byIndex(lanes)
	ok := make([]bool, len(lanes))
	for i, l := range lanes {
		if !l.Active || !masks[i].Has(l.Index) {
			continue
		}
		good := true
		for b := uint32(0); b < 128 && good; b++ {
			if !masks[i].Has(b) {
				continue
			}
			j, present := at.get(b)
			good = present && lanes[j].Active && masks[j] == masks[i]
		}
		ok[i] = good
	}
	return ok
}

// MultiPrefix is WaveMultiPrefixSum/Product/BitAnd/BitOr/BitXor with an explicit
// mask per lane (masks[i] is lanes[i]'s mask argument): the exclusive scan, in lane
// order, over the active lanes of the lane's part; Undefined where the masks do not
// form a partition (see partitionOK) and for inactive lanes.
func MultiPrefix(op intrinsics.Op, t Type, lanes []Lane, masks []Mask) ([]Value, error) {
	a, ok := multiPrefixOps[op]
	if !ok {
		return nil, fmt.Errorf("models: MultiPrefix does not model %s", op)
	}
	if err := supportsPartitioned(op, t); err != nil {
		return nil, err
	}
	if err := t.valid(); err != nil {
		return nil, err
	}
	if len(masks) != len(lanes) {
		return nil, fmt.Errorf("models: %d masks for %d lanes", len(masks), len(lanes))
	}
	if err := checkLanes(t, lanes, true); err != nil {
		return nil, err
	}
	good := partitionOK(lanes, masks)
	ord := ordered(lanes)
	out := undefined(len(lanes))
	for i, l := range lanes {
		if !good[i] {
			continue
		}
		acc := make([]uint64, t.N)
		for k := range acc {
			acc[k] = identity(a, t.Scalar)
		}
		// ord keeps the scan in lane order (one legal order; floats accept any,
		// scanAllowed).
		var terms []int
		for _, j := range ord {
			o := lanes[j]
			if o.Index >= l.Index {
				break
			}
			if !masks[i].Has(o.Index) {
				continue
			}
			terms = append(terms, j)
			c := comps(t, o)
			for k := range acc {
				acc[k] = binop(a, t.Scalar, acc[k], c[k])
			}
		}
		out[i] = withAccept(t.Scalar, acc, scanAllowed(a, t, lanes, terms))
	}
	return out, nil
}

// MultiPrefixCountBits is WaveMultiPrefixCountBits(bool, mask): the number of active
// lanes of the lane's part with a lower index whose predicate (Input[0]) holds;
// Undefined where the masks do not form a partition and for inactive lanes.
func MultiPrefixCountBits(lanes []Lane, masks []Mask) ([]Value, error) {
	if len(masks) != len(lanes) {
		return nil, fmt.Errorf("models: %d masks for %d lanes", len(masks), len(lanes))
	}
	if err := checkLanes(Type{Bool, 1}, lanes, true); err != nil {
		return nil, err
	}
	good := partitionOK(lanes, masks)
	out := undefined(len(lanes))
	for i, l := range lanes {
		if !good[i] {
			continue
		}
		n := uint64(0)
		for _, o := range lanes {
			if o.Active && o.Index < l.Index && masks[i].Has(o.Index) && pred(o) {
				n++
			}
		}
		out[i] = Value{Comps: []uint64{n}}
	}
	return out, nil
}
