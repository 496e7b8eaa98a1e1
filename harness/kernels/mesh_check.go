package kernels

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"

	"waverig/harness/results"
)

// The meshlet-compaction model. Which invocation's arguments launch the mesh
// groups is the one choice the specs leave open here:
//
//   - SPV_EXT_mesh_shader, OpEmitMeshTasksEXT (what DispatchMesh becomes on
//     Vulkan): "The arguments are taken from the first invocation in each
//     workgroup. Any invocation must execute this instruction exactly once and
//     under uniform control flow."
//   - Neither SPIR-V nor Vulkan orders the invocations of a workgroup, so
//     "first" names one invocation without saying which; a MeshletCull-style
//     shader passes WaveActiveCountBits(visible), the same in every lane of a
//     wave and different between waves.
//
// So the allowed set for a task group is the counts of its waves: the number
// of mesh groups launched must be the count of one wave of the group (exactly
// that wave's WaveActiveCountBits), every mesh group 0..n-1 must run once and
// read its own task group's payload. The checker accepts exactly that set and
// records which wave decided: the wave holding SV_GroupIndex 0, another wave
// (named by its SV_GroupIndex range), or several whose counts agree.

// decider is which wave's count a task group launched.
type decider int

const (
	decidedIndex0    decider = iota // the wave holding SV_GroupIndex 0, alone in its count
	decidedOther                    // another wave, alone in its count
	decidedAmbiguous                // several waves had the count launched
)

// checkCompaction checks a compaction kernel's buffers (u0: task records, u1:
// launch records); waveSize 0 means the device chose (every wave must then
// report one lane count).
func checkCompaction(k Kernel, out map[string][]byte, waveSize uint32, res []CaseResult, states []*caseState) []CaseResult {
	failAll := func(note string) []CaseResult {
		for i := range res {
			res[i].Passed, res[i].Note = false, note
		}
		return res
	}
	var init []uint32
	for _, b := range k.Buffers {
		if b.Register == compactionReg {
			w, err := words(b.Data)
			if err != nil {
				return failAll(err.Error())
			}
			init = w
		}
	}
	got, err := words(out[compactionReg])
	if err != nil || len(got) != len(init) {
		return failAll(fmt.Sprintf("task records: %d words back, %d sent (%v)", len(got), len(init), err))
	}
	launch, err := words(out[launchReg])
	if err != nil || len(launch) < launchHeader {
		return failAll(fmt.Sprintf("launch records: %d words (%v)", len(launch), err))
	}
	sh := k.Cases[0].Shape
	threads, per := sh.Threads(), sh.GroupCount()
	groups := len(init) / (threads * cWords)
	// Launch records by task group.
	slots := int(launch[0])
	if max := (len(launch) - launchHeader) / launchWords; slots > max {
		return failAll(fmt.Sprintf("launch counter %d: more mesh groups than the %d the buffer holds", slots, max))
	}
	type launchRec struct{ mesh, payloadCount uint32 }
	byGroup := make([][]launchRec, groups)
	for s := 0; s < slots; s++ {
		l := launch[launchHeader+s*launchWords:][:launchWords]
		if l[lMarker] != launchMarker || l[lGroup] >= uint32(groups) {
			return failAll(fmt.Sprintf("launch record %d: %#x (task group, mesh group, payload count, marker): not a launch of this kernel", s, l))
		}
		byGroup[l[lGroup]] = append(byGroup[l[lGroup]], launchRec{l[lMeshGroup], l[lPayloadCount]})
	}
	decided := make([][3]int, len(k.Cases))
	laneCount := waveSize
	for g := 0; g < groups; g++ {
		ci := g / per
		if ci >= len(k.Cases) {
			break
		}
		st := states[ci]
		st.waves++ // one task group
		recs := make([][]uint32, threads)
		ok := true
		for gi := 0; gi < threads; gi++ {
			flat := g*threads + gi
			r := got[flat*cWords:][:cWords]
			recs[gi] = r
			switch {
			case r[cFlat] != uint32(flat):
				st.problem(fmt.Sprintf("task group %d invocation %d: record not written by it (flat %#x)", g, gi, r[cFlat]))
				ok = false
			case r[cVisible] != init[flat*cWords+cVisible] || r[cCase] != init[flat*cWords+cCase]:
				st.problem(fmt.Sprintf("task group %d invocation %d: a pre-written word changed", g, gi))
				ok = false
			case r[cCount] == 0 || r[cCount]&(r[cCount]-1) != 0 || r[cCount] > 128 || r[cLane] >= r[cCount]:
				st.problem(fmt.Sprintf("task group %d invocation %d: lane %d of %d", g, gi, r[cLane], r[cCount]))
				ok = false
			case laneCount == 0:
				laneCount = r[cCount]
			case r[cCount] != laneCount:
				st.problem(fmt.Sprintf("task group %d invocation %d: lane count %d, other waves have %d", g, gi, r[cCount], laneCount))
				ok = false
			}
		}
		if !ok {
			continue
		}
		waves, problems := compactionWaves(recs)
		for _, p := range problems {
			st.problem(fmt.Sprintf("task group %d: %s", g, p))
		}
		if len(problems) > 0 {
			continue
		}
		counts := map[uint32][]int{} // a wave's count -> the waves (indexes into waves) with it
		index0 := -1
		for wi, wv := range waves {
			count := compactionWaveCheck(wv, recs, st)
			counts[count] = append(counts[count], wi)
			if slices.Contains(wv, 0) {
				index0 = wi
			}
		}
		index0Count := uint32(popcountVisible(waves[index0], recs))
		// The launches: mesh groups 0..n-1, once each, reading this group's
		// payload, written by SV_GroupIndex 0 (its wave's count).
		ls := byGroup[g]
		n := uint32(len(ls))
		seen := make([]bool, n)
		for _, l := range ls {
			if l.mesh >= n || seen[l.mesh] {
				st.problem(fmt.Sprintf("task group %d: %d mesh groups ran, with ids %v (want 0..%d, once each)", g, n, meshIDs(ls, func(l launchRec) uint32 { return l.mesh }), int(n)-1))
				ok = false
				break
			}
			seen[l.mesh] = true
			if l.payloadCount != index0Count {
				st.problem(fmt.Sprintf("task group %d mesh group %d: payload count %d, SV_GroupIndex 0 wrote %d", g, l.mesh, l.payloadCount, index0Count))
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		with := counts[n]
		if len(with) == 0 {
			// Not a count any wave of the group computed.
			st.fail(results.LaneFailure{WaveKey: recs[0][cKey], Lane: recs[0][cLane], ActiveMask: "task group",
				Input:    fmt.Sprintf("wave counts %s", waveCounts(waves, recs)),
				Expected: "the count of one wave (OpEmitMeshTasksEXT: from the first invocation)", Actual: fmt.Sprintf("%d mesh groups", n)})
			st.problem(fmt.Sprintf("task group %d launched %d mesh groups; its waves counted %s", g, n, waveCounts(waves, recs)))
			continue
		}
		res[ci].Lanes++ // the group's launch count compared
		switch {
		case len(with) > 1:
			decided[ci][decidedAmbiguous]++
		case with[0] == index0:
			decided[ci][decidedIndex0]++
		default:
			decided[ci][decidedOther]++
			st.extra = append(st.extra, fmt.Sprintf("task group %d: the wave of SV_GroupIndex %s decided (%d groups), not SV_GroupIndex 0's (%d)",
				g, giRange(waves[with[0]]), n, index0Count))
		}
	}
	for i, st := range states {
		d := decided[i]
		notes := []string{fmt.Sprintf("%d task groups, %d lanes compared; DispatchMesh count from SV_GroupIndex 0's wave in %d, another wave's in %d, waves agreed in %d",
			st.waves, res[i].Lanes, d[decidedIndex0], d[decidedOther], d[decidedAmbiguous])}
		if len(st.extra) > 4 {
			st.extra = append(st.extra[:4], fmt.Sprintf("… %d more", len(st.extra)-4))
		}
		notes = append(notes, st.extra...)
		notes = append(notes, st.problems...)
		res[i].Note = strings.Join(notes, "; ")
		if st.waves == 0 {
			res[i].Passed = false
			res[i].Note += "; no task group for this case"
		}
	}
	return res
}

// DecidedBy is the part of a compaction case's note that says which wave
// decided DispatchMesh's count ("" for any other case).
func DecidedBy(r CaseResult) string {
	if r.Case.Name != Compaction {
		return ""
	}
	if i := strings.Index(r.Note, "DispatchMesh count from "); i >= 0 {
		s := r.Note[i:]
		if j := strings.Index(s, ";"); j >= 0 {
			s = s[:j]
		}
		return s
	}
	return ""
}

// compactionWaves groups a task group's invocations (indexes into recs) by
// wave key, each wave ordered by lane; problems: a lane twice, or a key that
// is no member's flat id.
func compactionWaves(recs [][]uint32) (waves [][]int, problems []string) {
	byKey := map[uint32][]int{}
	var keys []uint32
	for gi, r := range recs {
		if _, ok := byKey[r[cKey]]; !ok {
			keys = append(keys, r[cKey])
		}
		byKey[r[cKey]] = append(byKey[r[cKey]], gi)
	}
	slices.Sort(keys)
	for _, key := range keys {
		wv := byKey[key]
		slices.SortFunc(wv, func(a, b int) int { return int(recs[a][cLane]) - int(recs[b][cLane]) })
		member := false
		for i, gi := range wv {
			member = member || recs[gi][cFlat] == key
			if i > 0 && recs[gi][cLane] == recs[wv[i-1]][cLane] {
				problems = append(problems, fmt.Sprintf("wave %#x: lane %d twice", key, recs[gi][cLane]))
			}
		}
		if !member {
			problems = append(problems, fmt.Sprintf("wave %#x: the key is no member's flat id", key))
		}
		waves = append(waves, wv)
	}
	return waves, problems
}

// compactionWaveCheck holds every lane of one wave to the models of its
// three operations (ballot of the visible lanes by lane index, its bit count,
// the count below the lane) and returns the wave's count.
func compactionWaveCheck(wv []int, recs [][]uint32, st *caseState) uint32 {
	var ballot [4]uint32
	for _, gi := range wv {
		if recs[gi][cVisible] != 0 {
			l := recs[gi][cLane]
			ballot[l/32] |= 1 << (l % 32)
		}
	}
	count := uint32(0)
	for _, w := range ballot {
		count += uint32(bits.OnesCount32(w))
	}
	mask := waveMask(wv, recs)
	for _, gi := range wv {
		r := recs[gi]
		l := r[cLane]
		prefix := uint32(0)
		for i := uint32(0); i < l; i++ {
			prefix += ballot[i/32] >> (i % 32) & 1
		}
		want := [6]uint32{prefix, count, ballot[0], ballot[1], ballot[2], ballot[3]}
		have := [6]uint32{r[cPrefix], r[cActive], r[cBallot], r[cBallot+1], r[cBallot+2], r[cBallot+3]}
		st.res.Lanes++
		if want != have {
			st.fail(results.LaneFailure{WaveKey: r[cKey], Lane: l, ActiveMask: mask,
				Input:    fmt.Sprintf("visible=%d", r[cVisible]),
				Expected: fmt.Sprintf("prefix %d count %d ballot %#x", want[0], want[1], want[2:]),
				Actual:   fmt.Sprintf("prefix %d count %d ballot %#x", have[0], have[1], have[2:])})
		}
	}
	return count
}

func popcountVisible(wv []int, recs [][]uint32) int {
	n := 0
	for _, gi := range wv {
		if recs[gi][cVisible] != 0 {
			n++
		}
	}
	return n
}

// waveMask is the wave's lanes as a hex mask (the failure rendering's
// active mask).
func waveMask(wv []int, recs [][]uint32) string {
	lanes := make([]uint32, len(wv))
	for i, gi := range wv {
		lanes[i] = recs[gi][cLane]
	}
	return maskHex(lanes)
}

// waveCounts spells each wave's SV_GroupIndex range and visible count.
func waveCounts(waves [][]int, recs [][]uint32) string {
	parts := make([]string, len(waves))
	for i, wv := range waves {
		parts[i] = fmt.Sprintf("%s: %d", giRange(wv), popcountVisible(wv, recs))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// giRange spells a wave's SV_GroupIndex values ("0-7", or a list).
func giRange(wv []int) string {
	s := slices.Clone(wv)
	slices.Sort(s)
	if s[len(s)-1]-s[0] == len(s)-1 {
		if len(s) == 1 {
			return fmt.Sprint(s[0])
		}
		return fmt.Sprintf("%d-%d", s[0], s[len(s)-1])
	}
	return fmt.Sprint(s)
}

func meshIDs[T any](ls []T, f func(T) uint32) []uint32 {
	out := make([]uint32, len(ls))
	for i, l := range ls {
		out[i] = f(l)
	}
	slices.Sort(out)
	return out
}
