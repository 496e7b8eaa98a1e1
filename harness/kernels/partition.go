package kernels

import (
	"fmt"
	"math"
	"strings"

	"waverig/compiler/intrinsics"
	"waverig/harness/models"
	"waverig/harness/results"
)

// The Shader Model 6.5 partitioned operations (WaveMatch, WaveMultiPrefix*), compiled
// with SPV_NV_shader_subgroup_partitioned. Every lane gets a partition key from one of
// the key schemes below, computed before any divergence and recorded in the record's
// lane-argument word; the operation then runs under the usual active-lane patterns,
// so every partition is taken over a subset of the wave.
//
//   - WaveMatch matches on a value of the case's type that the kernel derives from the
//     key (matchValue, the same function in HLSL and Go): equal keys give equal
//     values, and the values of different keys differ in one component or in one
//     half of a 64-bit component only, so a device that compares part of a value
//     merges partitions.
//   - WaveMultiPrefix* scans the case's pre-written inputs with a mask the kernel
//     builds without WaveMatch (a WaveReadLaneFirst / WaveActiveBallot loop over the
//     keys), so a broken WaveMatch does not fail every multi-prefix case too.
//
// The checker takes every lane's key from its record (and checks it against the
// scheme); the models partition the active lanes of an arm by the recorded keys.

// The key schemes (Case.Keys). Their index in KeySchemes is the kernel's "mode".
const (
	// KeysHash: a multiplicative hash of the lane index into four keys, as VK-CTS's
	// partitioned tests do: groups that are not runs of lanes (for 8 lanes
	// {0,2,5} {1,6} {3} {4,7}).
	KeysHash = "hash"
	// KeysDistinct: the lane index, every lane a partition of its own.
	KeysDistinct = "distinct"
	// KeysEqual: one key, one partition of all active lanes.
	KeysEqual = "equal"
	// KeysRandom: per invocation one of four keys (below 256, seeded by the case),
	// pre-written by the generator.
	KeysRandom = "random"
)

// KeySchemes lists the schemes in matrix order.
var KeySchemes = []string{KeysHash, KeysDistinct, KeysEqual, KeysRandom}

// equalKey is KeysEqual's key: any constant does; this one has bits in several
// digits of matchValue.
const equalKey = 0x9b

// PartitionedExtension is the SPIR-V extension every partitioned kernel is compiled
// with.
const PartitionedExtension = "SPV_NV_shader_subgroup_partitioned"

// PartitionOps are the partitioned operations the matrix tests, in matrix order;
// each needs a model (models.IsPartitioned) and nothing else here.
var PartitionOps = []intrinsics.Op{
	intrinsics.WaveMatch,
	intrinsics.WaveMultiPrefixSum, intrinsics.WaveMultiPrefixProduct,
	intrinsics.WaveMultiPrefixBitAnd, intrinsics.WaveMultiPrefixBitOr, intrinsics.WaveMultiPrefixBitXor,
	intrinsics.WaveMultiPrefixCountBits,
}

// partitionMatrix is the partitioned part of Matrix: one kernel per (operation, type
// family, shape), its cases every type × active-lane pattern (random with each seed)
// × key scheme.
func partitionMatrix(f Filter) []Kernel {
	withKeys := func(c Case) []Case {
		out := make([]Case, len(KeySchemes))
		for i, keys := range KeySchemes {
			out[i] = c
			out[i].Keys = keys
		}
		return out
	}
	return opMatrix(PartitionOps, f, withKeys, buildPartition)
}

func schemeID(keys string) int {
	for i, k := range KeySchemes {
		if k == keys {
			return i
		}
	}
	return -1
}

// buildPartition is build for partitioned cases: one replica per case, the key
// scheme as the control word's mode, KeysRandom's keys pre-written in the
// lane-argument word (the kernel overwrites it with the key it used).
func buildPartition(name string, cases []Case) (Kernel, error) {
	if len(cases) == 0 || len(cases) > 0xffff {
		return Kernel{}, fmt.Errorf("kernels: %s: %d cases", name, len(cases))
	}
	op, sh := cases[0].Op, cases[0].Shape
	if err := sh.validate(); err != nil {
		return Kernel{}, err
	}
	// One replica per case: its workgroups' records are one block (see build).
	per := sh.Threads() * sh.GroupCount()
	var types []Type
	variant := map[Type]int{}
	rec := newRecords(len(cases) * per)
	for g, c := range cases {
		if c.Op != op || c.Shape.Name != sh.Name || !models.IsPartitioned(op) {
			return Kernel{}, fmt.Errorf("kernels: %s: %s does not belong to a partitioned kernel of %s", name, c.ID(), op)
		}
		mt, err := c.Type.Model()
		if err != nil {
			return Kernel{}, err
		}
		if err := models.Supports(op, mt); err != nil {
			return Kernel{}, err
		}
		pid, scheme := patternID(c.Pattern), schemeID(c.Keys)
		if pid < 0 || scheme < 0 {
			return Kernel{}, fmt.Errorf("kernels: %s: unknown pattern or key scheme", c.ID())
		}
		if _, ok := variant[c.Type]; !ok {
			variant[c.Type] = len(types)
			types = append(types, c.Type)
		}
		in, coin := groupInputs(c, mt, scheme, per)
		keys := randomKeys(c, per)
		for i := 0; i < per; i++ {
			r := rec[(g*per+i)*recWords:][:recWords]
			r[wCtl] = ctl(pid, scheme, variant[c.Type], g)
			r[wRnd] = coin[i]
			r[wLaneArg] = keys[i]
			writeComps(r, wIn, mt.Scalar, in[i])
		}
	}
	if len(types) > 255 {
		return Kernel{}, fmt.Errorf("kernels: %s: too many types", name)
	}
	return Kernel{
		Name: name, Entry: "main", HLSL: partitionHLSL(name, op, sh, types), Cases: cases,
		Buffers:    []Buffer{{Register: "u0", Data: bytesOf(rec)}},
		Groups:     sh.Grid(len(cases)),
		Needs:      needsOf(types),
		Extensions: []string{PartitionedExtension},
	}, nil
}

// randomKeys are the pre-written keys of one workgroup: KeysRandom draws each from
// four distinct keys below 256 (so they differ in several digits of matchValue);
// the other schemes pre-write 0.
func randomKeys(c Case, threads int) []uint32 {
	out := make([]uint32, threads)
	if c.Keys != KeysRandom {
		return out
	}
	r := &rng{s: seedOf("keys", c.ID())}
	var pool []uint32
	for len(pool) < 4 {
		k := uint32(r.intn(256))
		if !containsKey(pool, k) {
			pool = append(pool, k)
		}
	}
	for i := range out {
		out[i] = pool[r.intn(len(pool))]
	}
	return out
}

func containsKey(ks []uint32, k uint32) bool {
	for _, x := range ks {
		if x == k {
			return true
		}
	}
	return false
}

// partitionKey is the Go twin of the kernel's key: the key a lane with this lane
// index must use under the case's scheme (pre is its pre-written lane-argument word).
func partitionKey(keys string, lane, pre uint32) uint32 {
	switch keys {
	case KeysHash:
		return 1 << ((lane * 0x9E3779B1 >> 30) * 2) &^ 1
	case KeysDistinct:
		return lane
	case KeysEqual:
		return equalKey
	}
	return pre
}

// digit is the part of the key component k of an n-component value is derived
// from: two bits per component, the last component taking the rest, so keys that
// differ in two bits only give vectors that differ in one component only.
func digit(key uint32, k, n int) uint32 {
	if k == n-1 {
		return key >> (2 * k)
	}
	return key >> (2 * k) & 3
}

// The mixing constants of matchValue (odd multipliers: injective on the digits).
const (
	mulU32  = 0x9E3779B1 // 32-bit integers, the high word of 64-bit ones
	mulLo   = 0x85EBCA6B // the low word of 64-bit integers
	mulF32  = 0x2F1B3    // float mantissas (23 bits)
	mulF16  = 0x2B3      // half mantissas (10 bits)
	f32One  = 0x3f800000 // 1.0f: floats in [1, 2)
	f32Tiny = 0x31800000 // 2^-28: a double's low part, below the high float's last bit
	f16One  = 0x3c00     // 1.0h
)

// matchValue is the Go twin of matchHLSL: the value WaveMatch matches on, derived
// from the lane's key, one bit pattern per component. Floats are positive and
// normal (never -0 or NaN); a 64-bit component's two halves come from different
// bits of the digit (the high half from d>>1, the low half from the rest), so a
// device that compares one half only merges partitions.
func matchValue(t models.Type, key uint32) []uint64 {
	out := make([]uint64, t.N)
	for k := range out {
		d, c := digit(key, k, t.N), uint32(k)
		lo := d&1 | d>>2<<1
		switch t.Scalar {
		case models.Bool:
			if d != 0 {
				out[k] = 1
			}
		case models.Int32, models.Uint32:
			out[k] = uint64(d*mulU32 + c*0x01000193 + 1)
		case models.Float32:
			out[k] = uint64(f32One | (d*mulF32+c*0x1235)&0x7fffff)
		case models.Float16:
			out[k] = uint64(f16One | (d*mulF16+c*0x51)&0x3ff)
		case models.Int64, models.Uint64:
			out[k] = uint64((d>>1)*mulU32+c)<<32 | uint64(lo*mulLo+c*3+7)
		case models.Float64:
			hi := math.Float32frombits(f32One | ((d>>1)*mulF32+c*0x1235)&0x7fffff)
			low := math.Float32frombits(f32Tiny | (lo*mulF32+c*0x1235)&0x7fffff)
			out[k] = math.Float64bits(float64(hi) + float64(low))
		}
	}
	return out
}

// matchHLSL spells matchValue for component k of t from the key pk.
func matchHLSL(t Type, k int) string {
	d := fmt.Sprintf("((pk >> %du) & 3u)", 2*k)
	if k == t.N-1 {
		d = fmt.Sprintf("(pk >> %du)", 2*k)
	}
	lo := fmt.Sprintf("((%s & 1u) | ((%s >> 2u) << 1u))", d, d)
	f32 := func(base uint32, v string) string {
		return fmt.Sprintf("asfloat(%#xu | ((%s * %#xu + %#xu) & 0x7fffffu))", base, v, mulF32, k*0x1235)
	}
	switch t.Scalar {
	case "bool":
		return "(" + d + " != 0u)"
	case "uint":
		return fmt.Sprintf("(%s * %#xu + %#xu)", d, mulU32, k*0x01000193+1)
	case "int":
		return fmt.Sprintf("asint(%s * %#xu + %#xu)", d, mulU32, k*0x01000193+1)
	case "float":
		return f32(f32One, d)
	case "half":
		return fmt.Sprintf("(half)f16tof32(%#xu | ((%s * %#xu + %#xu) & 0x3ffu))", f16One, d, mulF16, k*0x51)
	case "double":
		return fmt.Sprintf("((double)%s + (double)%s)", f32(f32One, "("+d+" >> 1u)"), f32(f32Tiny, lo))
	case "uint64_t", "int64_t":
		u := fmt.Sprintf("(((uint64_t)((%s >> 1u) * %#xu + %#xu) << 32) | (uint64_t)(%s * %#xu + %#xu))",
			d, mulU32, k, lo, mulLo, k*3+7)
		if t.Scalar == "int64_t" {
			return "(int64_t)" + u
		}
		return u
	}
	return "0"
}

// partitionHLSL generates a partitioned kernel: the record layout and pattern of
// kernelHLSL, then the key, then per type variant the value and the operation in
// the pattern's arms.
func partitionHLSL(name string, op intrinsics.Op, sh Shape, types []Type) string {
	var sb strings.Builder
	threads := sh.Threads()
	fmt.Fprintf(&sb, "// waverig generated kernel %s: %s, numthreads(%d, %d, %d), key schemes %s.\n", name, op,
		sh.NumThreads[0], sh.NumThreads[1], sh.NumThreads[2], strings.Join(KeySchemes, ", "))
	fmt.Fprintf(&sb, "// Record of %d uints per invocation: flat, key, lane, count, branch, partition key, ctl, coin, in[8], out[8].\n", recWords)
	sb.WriteString("RWStructuredBuffer<uint> rec : register(u0);\n")
	doubleView(&sb, op, types)
	sb.WriteString("\n")
	fmt.Fprintf(&sb, "[numthreads(%d, %d, %d)]\n", sh.NumThreads[0], sh.NumThreads[1], sh.NumThreads[2])
	sb.WriteString("void main(uint3 gid : SV_GroupID, uint gi : SV_GroupIndex)\n{\n")
	fmt.Fprintf(&sb, "    uint flat = %s;\n", sh.flatHLSL())
	emitPrologue(&sb, threads)
	fmt.Fprintf(&sb, `    // Partition key by scheme (mode): %s; the random keys are pre-written.
    uint pk = rec[b + 5u];
    if (mode == 0u) {
        pk = (1u << (((lane * 0x9E3779B1u) >> 30) * 2u)) & ~1u;
    } else if (mode == 1u) {
        pk = lane;
    } else if (mode == 2u) {
        pk = %#xu;
    }
    larg = pk;
`, strings.Join(KeySchemes, ", "), equalKey)
	for v, t := range types {
		kw := "if"
		if v > 0 {
			kw = "} else if"
		}
		fmt.Fprintf(&sb, "    %s (variant == %du) {\n", kw, v)
		rt := resultType(op, t)
		x := load(t)
		if op == intrinsics.WaveMatch {
			parts := make([]string, t.N)
			for k := range parts {
				parts[k] = matchHLSL(t, k)
			}
			x = parts[0]
			if t.N > 1 {
				x = t.HLSL() + "(" + strings.Join(parts, ", ") + ")"
			}
		}
		fmt.Fprintf(&sb, "        %s x = %s;\n", t.HLSL(), x)
		fmt.Fprintf(&sb, "        %s r = %s;\n", rt.HLSL(), splat(rt, zero(rt.Scalar)))
		sb.WriteString("        if (outer) {\n            if (inner) {\n")
		emitPartitionCall(&sb, "                ", op, 1)
		storeResult(&sb, "                ", rt, toRecord)
		if elseArm(t) {
			sb.WriteString("            } else {\n")
			emitPartitionCall(&sb, "                ", op, 2)
			storeResult(&sb, "                ", rt, toRecord)
		}
		sb.WriteString("            }\n        }\n")
	}
	sb.WriteString("    }\n")
	emitRecordStores(&sb)
	sb.WriteString("}\n")
	return sb.String()
}

// emitPartitionCall writes one arm: WaveMatch on x, or the waterfall that builds the
// lane's mask from the keys (each pass the first remaining lane's key group takes
// its ballot and leaves) followed by the multi-prefix operation.
func emitPartitionCall(sb *strings.Builder, ind string, op intrinsics.Op, branch int) {
	fmt.Fprintf(sb, "%sact = %du;\n", ind, branch)
	if op == intrinsics.WaveMatch {
		fmt.Fprintf(sb, "%sr = WaveMatch(x);\n", ind)
		return
	}
	for _, l := range []string{
		"uint4 m = uint4(0u, 0u, 0u, 0u);",
		"for (;;) {",
		"    uint k0 = WaveReadLaneFirst(pk);",
		"    if (pk == k0) {",
		"        m = WaveActiveBallot(true);",
		"        break;",
		"    }",
		"}",
		fmt.Sprintf("r = %s(x, m);", op),
	} {
		sb.WriteString(ind + l + "\n")
	}
}

// partitionLanes is the checker's part for partitioned cases (called from checkWave
// with the wave's decoded inputs): every lane's recorded key must be the one its
// scheme gives its recorded lane index, and WaveMatch's inputs become the values
// the kernel derived from the recorded keys. The models then partition by the
// recorded keys (Lane.LaneArg).
func partitionLanes(op intrinsics.Op, c Case, mt models.Type, wv []hdr, init []uint32, inputs [][]uint64, st *caseState) {
	for j, h := range wv {
		want := partitionKey(c.Keys, h.lane, init[h.idx*recWords+wLaneArg])
		if h.laneArg != want {
			st.fail(results.LaneFailure{WaveKey: h.key, Lane: h.lane, ActiveMask: armMask(wv, h.branch),
				Input: fmt.Sprintf("keys=%s (partition key)", c.Keys), Expected: fmt.Sprint(want), Actual: fmt.Sprint(h.laneArg)})
		}
		inputs[j] = partitionInput(op, mt, h.laneArg, inputs[j])
	}
}

// partitionInput is a lane's model input in a partitioned kernel: for WaveMatch the
// value the kernel derived from the lane's recorded key, else the pre-written input.
func partitionInput(op intrinsics.Op, mt models.Type, key uint32, in []uint64) []uint64 {
	if op == intrinsics.WaveMatch {
		return matchValue(mt, key)
	}
	return in
}
