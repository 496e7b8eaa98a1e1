package kernels

import (
	"fmt"
	"slices"
	"strings"
)

// Vertex waves may hold invocations that own no record. The Vulkan spec
// (Shaders, Vertex Shaders): "It is implementation-dependent when and if
// results of vertex shading are reused, and thus how many times the vertex
// shader will be executed." Nothing forbids a second invocation of a vertex of
// the draw, in the same wave as the first or in another: SwiftShader pads a
// partial batch by repeating its last index (all four lanes take part in wave
// operations, only the padding's stores and atomics are masked), and a driver
// that does not reuse results shades a shared vertex of a strip, a fan or a
// repeated index twice. Such an invocation takes part in its wave's operations
// with the input of the vertex it repeats, so a model that knew only the
// records would expect a ballot of three lanes where the wave had four.
//
// The roster makes every member of a wave known, from what the device did,
// with no assumption about where repeats go. Each invocation, before any
// divergence, walks its wave's lanes (WaveActiveBallot(true), then
// WaveReadLaneAt(flat, l) for every member l) and adds the sighting
// (wave key, lane l) to the roster slots of the record lane l runs. Every lane
// of a wave adds the same sightings (a slot is claimed by compare-exchange, and
// a sighting already there is not added again), so a wave in which any one
// invocation's stores take effect lists all its members: an invocation whose
// own stores are masked (SwiftShader's padding) is listed by the others. The
// checker (vertexWaves) then has, for every wave, every lane and the record,
// hence the input, of the vertex it runs.
//
// What the checker accepts, exactly:
//   - A lane of a wave that the roster lists at record f but whose record f names
//     another invocation is a repeat: it takes part in the wave's operations with
//     record f's input, pattern and coin (its arm and lane argument are what the
//     kernel computes for it), and is not compared (it owns no record).
//   - Two invocations of one vertex may both store record f (stores of one
//     invocation are not ordered against another's); either writer's record is
//     legal, and record f must be consistent with one of them: its wave key and
//     lane name one of f's sightings, and its every word is checked as that
//     invocation's. A record that names no sighting of f is a failure.
//   - A lane that takes part in a wave's operations but that neither a record nor
//     the roster explains is not in the model's wave: the results show it, and
//     fail.
//   - A roster full (more than rosterSlots invocations of one vertex) or naming a
//     record outside the buffer is a failure of the case: the rig cannot explain
//     that wave.

// rosterSlots is the number of distinct invocations the roster keeps per
// record: the vertex itself and up to three repeats.
const rosterSlots = 4

// The roster's flag word (after the slots): set bits say what went wrong.
const (
	rosterFull     = 1 // a record had more than rosterSlots distinct sightings
	rosterOutRange = 2 // a lane's flat id was not a record of the buffer
)

// maxRosterKey bounds the wave keys a sighting can carry: (key<<7 | lane) + 1
// in a uint, lanes below 128, and never rosterNever.
const maxRosterKey = 1<<25 - 2

// rosterNever is a value no roster word holds: a compare-exchange against it
// never stores, which is how the roster walk skips a slot without a branch.
const rosterNever = 0xffffffff

// rosterRegister is the vertex kernels' roster buffer.
const rosterRegister = "u1"

// sighting encodes a wave key and a lane for a roster slot (0 is an empty slot).
func sighting(key, lane uint32) uint32 { return (key<<7 | lane) + 1 }

// unsighting decodes a non-empty roster slot.
func unsighting(v uint32) (key, lane uint32) { return (v - 1) >> 7, (v - 1) & 127 }

// rosterWords is the size of the roster of n records: the slots, the flag
// word and rosterSlots-1 spare words (the walk's skipped compare-exchanges of a
// lane outside the buffer land on the flag word and those, and never store).
func rosterWords(n int) int { return n*rosterSlots + rosterSlots }

// newRoster is a vertex kernel's roster for n records: every slot empty, and
// the flag word clear.
func newRoster(n int) []uint32 { return make([]uint32, rosterWords(n)) }

// emitVertexRoster writes the roster walk (see the comment above) for a vertex
// kernel of n records, in uniform control flow before the record body: the
// loop runs the same iterations in every lane and its body has no branch (a
// slot not to be tried, or a lane not in the wave, compares against
// rosterNever; ?: is a select), so the walk leaves the wave as converged as it
// found it and the body's layout words are still taken before any divergence.
// Its names start with "r" and do not meet the record body's.
func emitVertexRoster(sb *strings.Builder, n int) {
	sb.WriteString(`    // Roster: every invocation lists every member of its wave (this lane too) at
    // the record that member runs, so that a member whose own stores are masked,
    // a repeat of a vertex, is known with its vertex (vertexroster.go). No branch:
    // a compare-exchange that must not store compares against 0xffffffff.
    uint rKey = WaveReadLaneFirst(flat);
    uint rCnt = WaveGetLaneCount();
    uint4 rMembers = WaveActiveBallot(true);
    for (uint rl = 0u; rl < rCnt; rl++) {
        uint rFlat = WaveReadLaneAt(flat, rl);
        uint rWord = (rl < 32u) ? rMembers.x : ((rl < 64u) ? rMembers.y : ((rl < 96u) ? rMembers.z : rMembers.w));
        uint rMember = (rWord >> (rl & 31u)) & 1u;
        uint rSeen = ((rKey << 7) | rl) + 1u;
`)
	fmt.Fprintf(sb, "        uint rInside = (rFlat < %du) ? 1u : 0u;\n", n)
	sb.WriteString("        uint rTry = rMember & rInside;\n")
	fmt.Fprintf(sb, "        uint rs = (rTry != 0u) ? rFlat * %du : %du;\n", rosterSlots, n*rosterSlots)
	for s := 0; s < rosterSlots; s++ {
		fmt.Fprintf(sb, "        uint rp%d = 0u;\n", s)
		fmt.Fprintf(sb, "        InterlockedCompareExchange(ros[rs + %du], (rTry != 0u) ? 0u : %#xu, rSeen, rp%d);\n", s, uint32(rosterNever), s)
		fmt.Fprintf(sb, "        rTry = rTry & ((rp%d != 0u) ? 1u : 0u) & ((rp%d != rSeen) ? 1u : 0u);\n", s, s)
	}
	fmt.Fprintf(sb, "        InterlockedOr(ros[%du], rTry * %du + (rMember - rMember * rInside) * %du);\n", n*rosterSlots, rosterFull, rosterOutRange)
	sb.WriteString("    }\n")
}

// roster is a decoded roster: seen[f] the distinct (key, lane) sightings of
// record f, in slot order.
type roster struct {
	seen  [][][2]uint32
	flags uint32
}

// readRoster decodes the roster buffer of n records that came back.
func readRoster(out map[string][]byte, n int) (roster, error) {
	b, ok := out[rosterRegister]
	if !ok {
		return roster{}, fmt.Errorf("no roster buffer (%s) came back", rosterRegister)
	}
	w, err := words(b)
	if err != nil {
		return roster{}, err
	}
	if len(w) != rosterWords(n) {
		return roster{}, fmt.Errorf("roster came back with %d words, expected %d", len(w), rosterWords(n))
	}
	r := roster{seen: make([][][2]uint32, n), flags: w[n*rosterSlots]}
	for f := 0; f < n; f++ {
		for _, v := range w[f*rosterSlots : (f+1)*rosterSlots] {
			if v == 0 {
				continue
			}
			k, l := unsighting(v)
			r.seen[f] = append(r.seen[f], [2]uint32{k, l})
		}
	}
	return r, nil
}

// repeat is one invocation of a wave that owns no record: lane of wave key
// runs record rec (vertex rec % threads of draw rec / threads).
type repeat struct {
	key, lane uint32
	rec       int
}

// vertexWaves joins the roster to a vertex kernel's waves (groupWaves of its
// records): each wave gets its repeats as lanes marked phantom, with the
// record's pre-written words as their input and the wave's lane count, sorted
// by lane with the rest. It returns the waves, the repeats and duplicate
// writers per case (for the case's note), and the problems per case: a record
// whose writer the roster does not list, a lane two records or a record and the
// roster claim, a full or out-of-range roster.
func vertexWaves(waves [][]hdr, hs []hdr, init []uint32, ros roster, threads, cases int) (out [][]hdr, notes, problems [][]string) {
	notes = make([][]string, cases)
	recNotes := make([][]string, cases) // the records two invocations wrote, after the waves
	problems = make([][]string, cases)
	caseOf := func(f int) int { return hs[f].caseIdx }
	if ros.flags&rosterFull != 0 {
		for c := range problems {
			problems[c] = append(problems[c], fmt.Sprintf("roster: a vertex ran more than %d times; its waves cannot all be explained", rosterSlots))
		}
	}
	if ros.flags&rosterOutRange != 0 {
		for c := range problems {
			problems[c] = append(problems[c], "roster: a lane's flat id was not a record of this draw")
		}
	}
	// Who claims each (key, lane): the record whose header names it.
	owner := map[[2]uint32]int{}
	for _, wv := range waves {
		for _, h := range wv {
			owner[[2]uint32{h.key, h.lane}] = h.idx
		}
	}
	byKey := map[uint32][]repeat{}
	for f, ss := range ros.seen {
		h := hs[f]
		writer := false
		for _, s := range ss {
			if s == [2]uint32{h.key, h.lane} {
				writer = true
				continue
			}
			if o, ok := owner[s]; ok {
				problems[caseOf(f)] = append(problems[caseOf(f)], fmt.Sprintf(
					"roster: wave %#x lane %d ran record %d, but record %d claims that lane", s[0], s[1], f, o))
				continue
			}
			byKey[s[0]] = append(byKey[s[0]], repeat{key: s[0], lane: s[1], rec: f})
		}
		if !writer {
			problems[caseOf(f)] = append(problems[caseOf(f)], fmt.Sprintf(
				"roster: record %d names wave %#x lane %d, which is none of the %d invocations of its vertex the roster lists %s",
				f, h.key, h.lane, len(ss), sightingsText(ss)))
			continue
		}
		if len(ss) > 1 {
			recNotes[caseOf(f)] = append(recNotes[caseOf(f)], fmt.Sprintf(
				"record %d: vertex %d of draw %d ran %d times %s; the record holds wave %#x lane %d's",
				f, f%threads, f/threads, len(ss), sightingsText(ss), h.key, h.lane))
		}
	}
	out = make([][]hdr, len(waves))
	for i, wv := range waves {
		reps := byKey[wv[0].key]
		if len(reps) == 0 {
			out[i] = wv
			continue
		}
		w := append(make([]hdr, 0, len(wv)+len(reps)), wv...)
		for _, r := range reps {
			p, m, v, c := unctl(init[r.rec*recWords+wCtl])
			w = append(w, hdr{idx: r.rec, flat: uint32(r.rec), key: r.key, lane: r.lane, count: wv[0].count,
				group: r.rec / threads, gi: r.rec % threads, pattern: p, mode: m, variant: v, caseIdx: c,
				coin: init[r.rec*recWords+wRnd], phantom: true})
		}
		slices.SortStableFunc(w, func(a, b hdr) int { return int(a.lane) - int(b.lane) })
		out[i] = w
		ci := wv[0].caseIdx
		var ls []string
		for _, r := range reps {
			ls = append(ls, fmt.Sprintf("lane %d runs vertex %d again", r.lane, r.rec%threads))
		}
		notes[ci] = append(notes[ci], fmt.Sprintf("wave %#x: %d lanes, %d records; %s", wv[0].key, len(w), len(wv), strings.Join(ls, ", ")))
	}
	for c := range notes {
		notes[c] = append(notes[c], recNotes[c]...)
	}
	return out, notes, problems
}

// sightingsText lists a record's sightings as "(wave 0x3c lane 2, wave 0x3c lane 3)".
func sightingsText(ss [][2]uint32) string {
	parts := make([]string, len(ss))
	for i, s := range ss {
		parts[i] = fmt.Sprintf("wave %#x lane %d", s[0], s[1])
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// phantomLanes names a wave's repeats for a failing lane's input ("" when it
// has none): what the device's operation counted besides the records.
func phantomLanes(wv []hdr, threads int) string {
	var ls []string
	for _, h := range wv {
		if h.phantom {
			ls = append(ls, fmt.Sprintf("lane %d = vertex %d again", h.lane, h.idx%threads))
		}
	}
	if len(ls) == 0 {
		return ""
	}
	return " (the wave also ran " + strings.Join(ls, ", ") + ")"
}

// repeatSummary is a case's Repeats: how many waves held repeats and how many
// records more than one invocation ran, the first of each spelled out.
func repeatSummary(notes []string) string {
	var waves, recs []string
	for _, n := range notes {
		if strings.HasPrefix(n, "record ") {
			recs = append(recs, n)
		} else {
			waves = append(waves, n)
		}
	}
	var parts []string
	for _, g := range []struct {
		what  string
		notes []string
	}{{"waves held a repeated vertex", waves}, {"records were run by more than one invocation", recs}} {
		if len(g.notes) == 0 {
			continue
		}
		s := fmt.Sprintf("%d %s (%s", len(g.notes), g.what, g.notes[0])
		if len(g.notes) > 1 {
			s += fmt.Sprintf("; … %d more", len(g.notes)-1)
		}
		parts = append(parts, s+")")
	}
	return strings.Join(parts, "; ")
}
