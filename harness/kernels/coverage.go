package kernels

import (
	"fmt"
	"strings"

	"waverig/compiler/intrinsics"
)

// No vacuous cases. A quad read whose partner is inactive, and a WaveReadLaneAt whose
// source lane is, has an undefined result that the checker cannot compare, and a case
// whose every lane is like that can never fail. Record kernels (compute and vertex)
// therefore add replicas in which the sources are active whatever the pattern, the
// wave size or the workgroup shape:
//
//   - Quad reads run every pattern per lane (partial quads) and per quad: in the
//     whole-quad replicas a lane runs the op when the pattern picks a lane of its quad
//     or of the next quad, so every picked lane brings its whole quad (a lone last
//     lane the quad before it) and partners are active.
//   - WaveReadLaneAt reads a constant lane (1), the highest lane of the reader's own
//     arm, and the next lane of its own arm after the reader (cyclically); the arms'
//     lane sets come from ballots taken before any divergence.
//
// The Go twins (waveArms) compute both from the recorded lanes of a wave, so the
// checker keeps working from recorded data on any layout. Pixel kernels keep the
// per-lane lane arguments (laneArgOf): helper lanes may or may not take part in a
// ballot. Their quad swaps (QuadReadAcrossX/Y/Diagonal) add whole-quad replicas
// too, decided without a ballot: a pixel quad is always whole (helpers fill it), so
// a lane runs the op when the pattern picks any lane of its quad, which every lane
// of the quad can work out from the quad's lane indices and its pixels' coins
// (pixelArm; emitPixelCoverage).

// recordReplicas is replicas for record kernels: the quad reads add the whole-quad
// replicas (QuadReadLaneAt: mode = id | whole<<2).
func recordReplicas(op intrinsics.Op) int {
	switch op {
	case intrinsics.QuadReadAcrossX, intrinsics.QuadReadAcrossY, intrinsics.QuadReadAcrossDiagonal:
		return 2
	case intrinsics.QuadReadLaneAt:
		return 8
	}
	return replicas(op)
}

// pixelReplicas is replicas for pixel kernels: the quad swaps add the whole-quad
// replica, WaveReadLaneAt a fourth, whole-quad replica that reads the quad
// partner lane ^ 1 (its per-lane sources 1, count - 1 and lane + 1 are all
// inactive for the even pattern). QuadReadLaneAt, whose four ids read some
// active lane of each quad, keeps its per-lane replicas only.
func pixelReplicas(op intrinsics.Op) int {
	if pixelWhole(op) {
		return replicas(op) + 1
	}
	return replicas(op)
}

// pixelWhole says whether a pixel kernel of op has the whole-quad replica: the
// one after its per-lane replicas, mode replicas(op).
func pixelWhole(op intrinsics.Op) bool {
	switch op {
	case intrinsics.QuadReadAcrossX, intrinsics.QuadReadAcrossY, intrinsics.QuadReadAcrossDiagonal, intrinsics.WaveReadLaneAt:
		return true
	}
	return false
}

// pixelArm is the Go twin of a pixel kernel's arm for the lane at pixel (x, y):
// the per-lane pattern (branchOf), or in a whole-quad replica the quad's: run
// when the pattern picks any of the quad's lanes (lane indices lane&^3 + i, the
// coin of the pixel with quad index i), nested's arms by quad parity. coin reads
// a pixel's coin from the padded input grid, helper positions included.
func pixelArm(c Case, mode int, lane, count, x, y uint32, coin func(x, y uint32) uint32) uint32 {
	twoArms := elseArm(c.Type)
	if !pixelWhole(c.Op) || mode != replicas(c.Op) {
		return branchOf(c.Pattern, lane, count, 0, 0, coin(x, y), twoArms)
	}
	qb := lane &^ 3
	outer := false
	for i := uint32(0); i < 4; i++ {
		o, _ := patternOf(c.Pattern, qb+i, count, 0, 0, coin(x&^1+i&1, y&^1+i>>1))
		outer = outer || o
	}
	inner := c.Pattern != Nested || (qb>>2)&1 == 0
	return armOf(outer, inner, twoArms)
}

// emitPixelCoverage writes, after a pixel kernel's pattern block, the whole-quad
// replica's arms of a quad swap (pixelArm), each pattern's "any lane of the quad"
// worked out: all, even, odd and nested pick a lane of every quad, first the
// quad of lane 0, last the quad of lane count - 1, first half the quads below
// half the lane count, random ORs the coins of the quad's four pixels (padded
// grid: a helper's position has a coin too). pw is the padded grid's width.
func emitPixelCoverage(sb *strings.Builder, op intrinsics.Op, pw uint32) {
	if !pixelWhole(op) {
		return
	}
	fmt.Fprintf(sb, `    // Whole-quad replica: the op runs where the pattern picks any lane of the quad.
    if (mode == %du) {
        uint qb = lane & ~3u;
        uint qt = (pid - (y & 1u) * %du - (x & 1u)) * %du + %du;
        if (pat == 3u) {
            outer = qb == 0u;
        } else if (pat == 4u) {
            outer = cnt - 1u <= qb + 3u;
        } else if (pat == 5u) {
            outer = qb < cnt / 2u;
        } else if (pat == 7u) {
            outer = (inp[qt] | inp[qt + %du] | inp[qt + %du] | inp[qt + %du]) != 0u;
        } else {
            outer = true;
        }
        inner = pat != 6u || ((qb >> 2) & 1u) == 0u;
    }
`, replicas(op), pw, tWords, tCoin, tWords, pw*tWords, (pw+1)*tWords)
}

// wholeBit is the bit of the mode that selects a whole-quad replica (0: none).
func wholeBit(op intrinsics.Op) int {
	switch op {
	case intrinsics.QuadReadAcrossX, intrinsics.QuadReadAcrossY, intrinsics.QuadReadAcrossDiagonal:
		return 1
	case intrinsics.QuadReadLaneAt:
		return 4
	}
	return 0
}

// waveArms is the Go twin of a record kernel's pattern block and lane argument for
// one wave (ws, any order, with recorded lane, count, group index, coin and mode):
// the arm each lane runs the op in and, for WaveReadLaneAt / QuadReadLaneAt, the lane
// argument of each lane that runs it (0 elsewhere).
func waveArms(c Case, ws []hdr, threads int) (arms, args []uint32) {
	op := c.Op
	twoArms := elseArm(c.Type)
	arms = make([]uint32, len(ws))
	args = make([]uint32, len(ws))
	outer := make([]bool, len(ws))
	inner := make([]bool, len(ws))
	for j, h := range ws {
		outer[j], inner[j] = patternOf(c.Pattern, h.lane, h.count, h.gi, threads, h.coin)
	}
	if wb := wholeBit(op); wb != 0 && len(ws) > 0 && ws[0].mode&wb != 0 {
		// The kernel's ballot of outer, then per quad.
		picked := map[uint32]bool{}
		for j, h := range ws {
			if outer[j] {
				picked[h.lane>>2] = true
			}
		}
		for j, h := range ws {
			q := h.lane >> 2
			outer[j] = picked[q] || picked[q+1]
			inner[j] = c.Pattern != Nested || q&1 == 0
		}
	}
	for j := range ws {
		arms[j] = armOf(outer[j], inner[j], twoArms)
	}
	for j, h := range ws {
		if arms[j] == 0 {
			continue
		}
		switch op {
		case intrinsics.QuadReadLaneAt:
			args[j] = uint32(h.mode & 3)
		case intrinsics.WaveReadLaneAt:
			// The lanes of the kernel's ballot for this lane's arm: outer && inner
			// (arm 1) or outer && !inner (arm 2).
			var hi, lo, next uint32
			haveLo, haveNext := false, false
			for i, g := range ws {
				if !outer[i] || inner[i] != inner[j] {
					continue
				}
				hi = max(hi, g.lane)
				if !haveLo || g.lane < lo {
					lo, haveLo = g.lane, true
				}
				if g.lane > h.lane && (!haveNext || g.lane < next) {
					next, haveNext = g.lane, true
				}
			}
			if !haveNext {
				next = lo
			}
			switch h.mode {
			case 0:
				args[j] = 1
			case 1:
				args[j] = hi
			default:
				args[j] = next
			}
		}
	}
	return arms, args
}

// waveReadArgs are WaveReadLaneAt's lane arguments by mode: pixel kernels keep the
// per-lane choices (constant, lane count - 1, the next lane index) and add the quad
// partner for their whole-quad replica (laneArgOf), record kernels take the last
// two from their arm's ballot (emitArmLanes).
func waveReadArgs(record bool) []string {
	if record {
		return []string{"1u", "hiLane", "nextLane"}
	}
	return []string{"1u", "cnt - 1u", "(lane + 1u) % cnt", "lane ^ 1u"}
}

// emitCoverage writes, after the pattern block and in uniform control flow, what a
// record kernel of op adds to it: the whole-quad replicas' arms (quad reads) or the
// arm-relative lane arguments (WaveReadLaneAt). See waveArms.
func emitCoverage(sb *strings.Builder, op intrinsics.Op) {
	if wb := wholeBit(op); wb != 0 {
		word := func(q string) string {
			return fmt.Sprintf("((%s < 8u) ? sel.x : ((%s < 16u) ? sel.y : ((%s < 24u) ? sel.z : sel.w)))", q, q, q)
		}
		fmt.Fprintf(sb, `    // Whole-quad replicas: a lane runs the op when the pattern picks a lane of its
    // quad or of the next quad (nested: arms by quad parity).
    uint4 sel = WaveActiveBallot(outer);
    if ((mode & %du) != 0u) {
        uint q = lane >> 2;
        uint q1 = q + 1u;
        uint s0 = %s;
        uint s1 = %s;
        bool p0 = ((s0 >> ((q & 7u) * 4u)) & 15u) != 0u;
        bool p1 = q1 < 32u && ((s1 >> ((q1 & 7u) * 4u)) & 15u) != 0u;
        outer = p0 || p1;
        inner = pat != 6u || (q & 1u) == 0u;
    }
`, wb, word("q"), word("q1"))
		return
	}
	if op != intrinsics.WaveReadLaneAt {
		return
	}
	sb.WriteString(`    // WaveReadLaneAt's sources are lanes of the reader's own arm: its ballot, taken
    // here, gives the highest lane and the next lane after this one (cyclically).
    uint4 m1 = WaveActiveBallot(outer && inner);
    uint4 m2 = WaveActiveBallot(outer && !inner);
    uint4 am = m1;
    if (!inner) {
        am = m2;
    }
    uint above = lane + 1u;
    uint hiLane = 0u;
    uint loLane = 0u;
    uint nextLane = 0xffffffffu;
`)
	comp := []string{"x", "y", "z", "w"}
	for k := 0; k < 4; k++ {
		fmt.Fprintf(sb, "    if (am.%s != 0u) {\n        hiLane = %du + firstbithigh(am.%s);\n    }\n", comp[k], 32*k, comp[k])
	}
	for k := 3; k >= 0; k-- {
		c := comp[k]
		fmt.Fprintf(sb, "    if (am.%s != 0u) {\n        loLane = %du + firstbitlow(am.%s);\n    }\n", c, 32*k, c)
		fmt.Fprintf(sb, "    if (above < %du) {\n        uint n%d = am.%s;\n", 32*(k+1), k, c)
		if k > 0 {
			fmt.Fprintf(sb, "        if (above > %du) {\n            n%d = n%d & ~((1u << (above - %du)) - 1u);\n        }\n", 32*k, k, k, 32*k)
		} else {
			fmt.Fprintf(sb, "        n0 = n0 & ~((1u << above) - 1u);\n")
		}
		fmt.Fprintf(sb, "        if (n%d != 0u) {\n            nextLane = %du + firstbitlow(n%d);\n        }\n    }\n", k, 32*k, k)
	}
	sb.WriteString("    if (nextLane == 0xffffffffu) {\n        nextLane = loLane;\n    }\n")
}

// minThreads is the smallest workgroup in which op can have a defined result at all:
// a quad read needs its partner in the same wave (lanes 0 and 1 for X; 0 and 2 for Y;
// 1 and 2 for the diagonal), so a smaller workgroup would give only vacuous cases and
// the matrix leaves the op out of it.
func minThreads(op intrinsics.Op) int {
	switch op {
	case intrinsics.QuadReadAcrossX:
		return 2
	case intrinsics.QuadReadAcrossY, intrinsics.QuadReadAcrossDiagonal:
		return 3
	}
	return 1
}
