package kernels

import (
	"fmt"

	"waverig/harness/models"
)

// Where a simulated vertex device shades a vertex more than once (SimLayout.Repeats).
const (
	// RepeatPadLast pads each draw's partial wave by repeating its last vertex in
	// the wave's free lanes, whose stores and atomics are masked (SwiftShader).
	RepeatPadLast = "pad-last"
	// RepeatMidDraw shades one vertex of each draw (a lane of a wave that is not
	// its lowest) a second time, alone in a wave of its own, whose stores take
	// effect: even draws store that repeat last (its record wins), odd draws
	// first (the original's wins).
	RepeatMidDraw = "mid-draw"
)

// The bugs a simulated vertex device can plant (SimLayout.Fault).
const (
	// FaultRepeatZero: a repeat's operand reads 0 in its wave's operations.
	FaultRepeatZero = "repeat-zero"
	// FaultRepeatUnlisted: repeats take part in wave operations, but the roster
	// lists only the invocations whose stores take effect.
	FaultRepeatUnlisted = "repeat-unlisted"
	// FaultRepeatMixed: a repeat that stores writes its outputs but leaves the
	// header words its original wrote (a record no single invocation wrote).
	FaultRepeatMixed = "repeat-mixed"
)

// simVertex is one invocation of a simulated vertex wave.
type simVertex struct {
	rec    int    // the record (flat id) of the vertex it runs
	lane   uint32 // its lane index
	stores bool   // its stores and atomics take effect
	repeat bool   // a second invocation of its vertex
}

// simulateVertex draws a vertex kernel on a Go model of a device: each draw's
// vertices are placed in waves as place does for a compute workgroup, repeats
// added as l.Repeats says, and every wave's results taken from the models over
// all its invocations, repeats included. Invocations that store write their
// records and, as the kernel's roster walk does, list every member of their wave.
func simulateVertex(k Kernel, l SimLayout) (map[string][]byte, error) {
	size := l.WaveSize
	init, threads, err := initialRecords(k, "draws")
	if err != nil {
		return nil, err
	}
	if l.Repeats == RepeatMidDraw && size < 2 {
		return nil, fmt.Errorf("kernels: a mid-draw repeat needs waves of two lanes or more")
	}
	n := len(init) / recWords
	rec := append([]uint32(nil), init...)
	ros := newRoster(n)
	r := &rng{s: l.Seed}
	for g := 0; g < n/threads; g++ {
		var waves [][]simVertex
		for _, pl := range place(threads, size, l.Seed, r) {
			var w []simVertex
			used := map[uint32]bool{}
			for _, m := range pl {
				w = append(w, simVertex{rec: g*threads + m[0], lane: uint32(m[1]), stores: true})
				used[uint32(m[1])] = true
			}
			if l.Repeats == RepeatPadLast && len(w) < int(size) {
				last := w[len(w)-1].rec
				for lane := uint32(0); lane < size; lane++ {
					if !used[lane] {
						w = append(w, simVertex{rec: last, lane: lane, repeat: true})
					}
				}
			}
			waves = append(waves, w)
		}
		if l.Repeats == RepeatMidDraw {
			dup, ok := midDrawRepeat(k, waves, init, threads, size)
			if !ok {
				return nil, fmt.Errorf("kernels: %s: no vertex for a mid-draw repeat in draw %d", k.Name, g)
			}
			if g%2 == 0 {
				waves = append(waves, []simVertex{dup})
			} else {
				waves = append([][]simVertex{{dup}}, waves...)
			}
		}
		for _, w := range waves {
			if err := simVertexWave(k, l, w, init, rec, ros, threads); err != nil {
				return nil, err
			}
		}
	}
	return map[string][]byte{"u0": bytesOf(rec), rosterRegister: bytesOf(ros)}, nil
}

// midDrawRepeat picks the invocation a RepeatMidDraw device adds: a vertex that
// is not the lowest lane of its wave (so the repeat's own wave, keyed by it,
// shares no key with another), at the same lane, alone in its wave, and running
// the same arm there as in its own wave: both invocations store the whole record
// or neither stores the outputs, so the record is one writer's whichever stores
// last (the checker's rule, vertexroster.go).
func midDrawRepeat(k Kernel, waves [][]simVertex, init []uint32, threads int, size uint32) (simVertex, bool) {
	for _, w := range waves {
		if len(w) < 2 {
			continue
		}
		hs := simHeaders(w, init, threads, size)
		if hs[0].caseIdx >= len(k.Cases) {
			return simVertex{}, false
		}
		arms, _ := waveArms(k.Cases[hs[0].caseIdx], hs, threads)
		low := 0
		for j := range w {
			if w[j].lane < w[low].lane {
				low = j
			}
		}
		for j, m := range w {
			if j == low {
				continue
			}
			dup := simVertex{rec: m.rec, lane: m.lane, stores: true, repeat: true}
			alone, _ := waveArms(k.Cases[hs[j].caseIdx], simHeaders([]simVertex{dup}, init, threads, size), threads)
			if alone[0] == arms[j] {
				return dup, true
			}
		}
	}
	return simVertex{}, false
}

// simHeaders are the headers waveArms reads of a simulated wave's members.
func simHeaders(w []simVertex, init []uint32, threads int, size uint32) []hdr {
	hs := make([]hdr, len(w))
	for j, m := range w {
		_, mode, _, ci := unctl(init[m.rec*recWords+wCtl])
		hs[j] = hdr{idx: m.rec, lane: m.lane, count: size, gi: m.rec % threads, mode: mode, caseIdx: ci, coin: init[m.rec*recWords+wRnd]}
	}
	return hs
}

// simVertexWave runs one simulated vertex wave: the roster sightings, then each
// arm's results over every member, stored by the members whose stores take effect.
func simVertexWave(k Kernel, l SimLayout, w []simVertex, init, rec, ros []uint32, threads int) error {
	size := l.WaveSize
	low := w[0]
	for _, m := range w {
		if m.lane < low.lane {
			low = m
		}
	}
	key := uint32(low.rec)
	op := k.Cases[0].Op
	hs := simHeaders(w, init, threads, size)
	for _, h := range hs {
		if h.caseIdx >= len(k.Cases) {
			return fmt.Errorf("kernels: record %d names case %d", h.idx, h.caseIdx)
		}
	}
	c := k.Cases[hs[0].caseIdx]
	// The roster: each storing invocation lists every member it sees.
	stores := false
	for _, m := range w {
		stores = stores || m.stores
	}
	for _, m := range w {
		if !stores || (l.Fault == FaultRepeatUnlisted && !m.stores) {
			continue
		}
		addSighting(ros, m.rec, sighting(key, m.lane))
	}
	arms, args := waveArms(c, hs, threads)
	for j := range hs {
		hs[j].branch = arms[j]
		if arms[j] != 0 && hasLaneArg(op) {
			hs[j].laneArg = args[j]
		}
	}
	mt, err := c.Type.Model()
	if err != nil {
		return err
	}
	rt := models.ResultType(op, mt)
	outs := make([][]uint32, len(w)) // the result words each member would store
	for arm := uint32(1); arm <= 2; arm++ {
		lanes := make([]models.Lane, len(hs))
		for j, h := range hs {
			in := readComps(init[h.idx*recWords:][:recWords], wIn, mt.Scalar, mt.N)
			if w[j].repeat && l.Fault == FaultRepeatZero {
				in = make([]uint64, mt.N)
			}
			lanes[j] = models.Lane{Index: h.lane, Active: h.branch == arm, Input: in, LaneArg: h.laneArg}
		}
		want, err := expectedOf(c, op, mt, lanes, size)
		if err != nil {
			return err
		}
		for j, h := range hs {
			if h.branch != arm {
				continue
			}
			o := make([]uint32, recWords)
			copy(o[wOut:], init[h.idx*recWords+wOut:(h.idx+1)*recWords])
			nw := rt.N * wordsPer(rt.Scalar)
			if want[j].Undefined {
				for x := 0; x < nw; x++ {
					o[wOut+x] = 0xdeadbeef // garbage, but stored: the result's words only
				}
			} else {
				writeComps(o, wOut, rt.Scalar, want[j].Comps)
			}
			outs[j] = o[wOut:]
		}
	}
	for j, m := range w {
		if !m.stores {
			continue
		}
		r := rec[m.rec*recWords:][:recWords]
		if !(m.repeat && l.Fault == FaultRepeatMixed) {
			h := hs[j]
			r[wFlat], r[wKey], r[wLane], r[wCount], r[wBranch], r[wLaneArg] = uint32(m.rec), key, m.lane, size, h.branch, h.laneArg
		}
		if outs[j] != nil {
			copy(r[wOut:], outs[j])
		}
	}
	return nil
}

// addSighting adds a sighting to record f's roster slots as the kernel does
// (compare-exchange into the first empty slot, nothing when it is there).
func addSighting(ros []uint32, f int, v uint32) {
	s := ros[f*rosterSlots : (f+1)*rosterSlots]
	for i := range s {
		if s[i] == 0 {
			s[i] = v
			return
		}
		if s[i] == v {
			return
		}
	}
	ros[len(ros)-rosterSlots] |= rosterFull
}
