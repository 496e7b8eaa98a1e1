package kernels

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"waverig/compiler/intrinsics"
	"waverig/harness/models"
	"waverig/harness/results"
)

// The helper-lane choices a pixel case reports (CaseResult.Helpers).
const (
	HelpersExcluded = "excluded"
	HelpersIncluded = "included"
	HelpersMixed    = "mixed"
)

// pxRec is one covered pixel's record.
type pxRec struct {
	idx, rep                 int
	x, y                     uint32
	key, lane, count, branch uint32
	key2                     uint32 // WaveActiveSum of the padded index (pKey2)
	laneArg, helper          uint32
}

// pxHelper is a helper lane the checker derives: an uncovered member of a wave's quad.
type pxHelper struct{ x, y, lane uint32 }

// pixelState is what the pixel checker knows about one kernel's buffers.
type pixelState struct {
	k       Kernel
	sc      Scene
	lay     pixelLayout
	in, got []uint32
	init    []uint32 // u0 as written before the draws
	// covered[rep][y*w+x] is the record of that pixel, or nil.
	covered  [][]*pxRec
	caseOf   []int // replica -> case index
	modeOf   []int // replica -> mode
	states   []*caseState
	mirrored bool // the coverage matched the y-mirrored scene (clip-space y the other way up)
	// included: a [WaveOpsIncludeHelperLanes] kernel, where only the
	// helper-included results (and layout words) are correct.
	included bool
	// defined holds, for each record index whose output the models define for
	// the helper set(s) the wave was explained by, the models' value under each
	// of those sets (nil unless asked for: parity compares through their
	// accepted sets).
	defined [][]models.Value
	memo    *Memo
	// firstCount is the lane count of the first wave without layout problems
	// (sawGood: there was one): a check at a required size defines what one at
	// none does when the two agree (Memo.pixel).
	firstCount uint32
	sawGood    bool
	key        keyBuf // scratch for the memo's keys
}

// pixelKey is the memo key of one arm of a pixel wave: what checkOpWave gives
// the helper-set models. A lane's input is its pixel's in the draw (rep); a
// helper's lane argument follows from its lane and the count.
func pixelKey(buf keyBuf, wv pixelWave, rep int, arm, count uint32, helperBranch []uint32) keyBuf {
	buf = append(buf[:0], memoPixel)
	buf = buf.u32(uint32(rep)).u32(count).u32(arm).u32(uint32(len(wv.lanes)))
	for _, h := range wv.lanes {
		a := uint32(0)
		if h.branch == arm {
			a = 1
		}
		buf = buf.u32(h.x).u32(h.y).u32(h.lane).u32(h.laneArg).u32(a)
	}
	for i, h := range wv.helpers {
		a := uint32(0)
		if helperBranch[i] == arm {
			a = 1
		}
		buf = buf.u32(h.x).u32(h.y).u32(h.lane).u32(a)
	}
	return buf
}

// defVal is a record index the models define and the value they give it; seq
// is the lane's place in the wave's walk (arm, then lane), the same for every
// helper set.
type defVal struct {
	idx, seq int
	want     models.Value
}

func (ps *pixelState) block(rep int, x, y uint32) []uint32 {
	return ps.in[ps.lay.padded(rep, x, y)*tWords:][:tWords]
}

// checkPixel is Check for pixel kernels. When the memo keeps pixel values
// (Memo.keepPixel), it leaves there the values this check defined for out's
// u0, for Compare.
func checkPixel(k Kernel, out map[string][]byte, waveSize uint32, res []CaseResult, states []*caseState, m *Memo) []CaseResult {
	u0 := out["u0"]
	if !m.keepPixel || len(u0) == 0 || len(u0)%(4*recWords) != 0 {
		return checkPixelInto(k, out, waveSize, res, states, nil, m)
	}
	defined := make([][]models.Value, len(u0)/4/recWords)
	var ps *pixelState
	res = checkPixelState(k, out, waveSize, res, states, defined, m, &ps)
	// A check at a required size defines what Compare's check at none would
	// when the first well-formed wave had that size (pixelState.firstCount):
	// then both take the same waves.
	if ps != nil && (waveSize == 0 || !ps.sawGood || ps.firstCount == waveSize) {
		m.mu.Lock()
		if m.pixel == nil {
			m.pixel = map[*byte]pixelDefined{}
		}
		m.pixel[&u0[0]] = pixelDefined{defined: defined}
		m.mu.Unlock()
	}
	return res
}

// pixelDefinedOf is what a pixel check through m left for out's u0 (ok false:
// nothing, or not what a check at no required size defines).
func (m *Memo) pixelDefinedOf(out map[string][]byte) (d [][]models.Value, ok bool) {
	u0 := out["u0"]
	if len(u0) == 0 {
		return nil, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	p, ok := m.pixel[&u0[0]]
	return p.defined, ok
}

// checkPixelInto is checkPixel that also records, in defined (when not nil,
// one entry per record), the record indices whose values the models define,
// with those values.
func checkPixelInto(k Kernel, out map[string][]byte, waveSize uint32, res []CaseResult, states []*caseState, defined [][]models.Value, m *Memo) []CaseResult {
	return checkPixelState(k, out, waveSize, res, states, defined, m, nil)
}

// checkPixelState is checkPixelInto that also hands back its state (when
// state is not nil and the check got as far as the waves).
func checkPixelState(k Kernel, out map[string][]byte, waveSize uint32, res []CaseResult, states []*caseState, defined [][]models.Value, m *Memo, state **pixelState) []CaseResult {
	failAll := func(note string) []CaseResult {
		for i := range res {
			res[i].Passed, res[i].Note = false, note
		}
		return res
	}
	if k.Draw == nil || k.Cases[0].Shape.Scene == nil {
		return failAll("pixel kernel without a draw or scene")
	}
	sc := *k.Cases[0].Shape.Scene
	pw, ph := sc.Padded()
	ps := &pixelState{k: k, sc: sc, states: states, defined: defined, memo: m, included: IncludesHelperLanes(k.Cases[0]),
		lay: pixelLayout{w: sc.Width, h: sc.Height, pw: pw, ph: ph, draws: int(k.Draw.Draws)}}
	if colorModelled(k.Cases[0]) {
		ps.checkSlope(out)
		return finishNotes(res, states)
	}
	var err error
	for _, b := range k.Buffers {
		if b.Register == "t0" {
			ps.in, err = wordsView(b.Data)
		}
	}
	if err != nil || len(ps.in) != ps.lay.draws*int(pw*ph)*tWords {
		return failAll(fmt.Sprintf("kernel %s: input buffer t0 missing or of the wrong size", k.Name))
	}
	if ps.init, ps.got, err = m.words(out); err != nil {
		return failAll(err.Error())
	}
	if len(ps.got) != ps.lay.draws*int(sc.Width*sc.Height)*recWords {
		return failAll(fmt.Sprintf("u0 holds %d words, expected %d draws of %dx%d records", len(ps.got), ps.lay.draws, sc.Width, sc.Height))
	}
	for r := 0; r < ps.lay.draws; r++ {
		_, m, _, ci := unctl(ps.block(r, 0, 0)[tCtl])
		if ci >= len(k.Cases) {
			return failAll(fmt.Sprintf("draw %d names case %d of %d", r, ci, len(k.Cases)))
		}
		ps.caseOf, ps.modeOf = append(ps.caseOf, ci), append(ps.modeOf, m)
	}
	if state != nil {
		*state = ps
	}
	all := ps.readRecords()
	ps.checkCoverage()
	if k.Cases[0].Name == helperName {
		ps.checkWaves(all, waveSize, ps.checkHelperWave)
	} else {
		ps.checkWaves(all, waveSize, ps.checkOpWave)
	}
	ps.checkColor(out)
	for i, st := range states {
		switch {
		case st.choices[HelpersExcluded] > 0 && st.choices[HelpersIncluded] > 0:
			res[i].Helpers = HelpersMixed
		case st.choices[HelpersExcluded] > 0:
			res[i].Helpers = HelpersExcluded
		case st.choices[HelpersIncluded] > 0:
			res[i].Helpers = HelpersIncluded
		}
		if st.helperLanes > 0 {
			st.extra = append(st.extra, fmt.Sprintf("%d helper lanes; waves that decided: %d excluded, %d included", st.helperLanes, st.choices[HelpersExcluded], st.choices[HelpersIncluded]))
		}
		if ps.included && st.choices[HelpersExcluded] > 0 {
			st.problem(fmt.Sprintf("[WaveOpsIncludeHelperLanes]: helper lanes must take part in wave operations, but %d waves left them out", st.choices[HelpersExcluded]))
		}
		if ps.mirrored {
			st.extra = append(st.extra, "picture mirrored in y (this API put clip-space y the other way up)")
		}
	}
	return finishNotes(res, states)
}

// finishNotes writes every case's note from its state.
func finishNotes(res []CaseResult, states []*caseState) []CaseResult {
	for i, st := range states {
		notes := []string{fmt.Sprintf("%d waves, %d arms, %d lanes compared, %d undefined", st.waves, st.arms, res[i].Lanes, st.undef)}
		notes = append(notes, st.extra...)
		notes = append(notes, st.problems...)
		if st.waves == 0 && !st.noWaves {
			res[i].Passed = false
			notes = append(notes, "no records for this case")
		}
		res[i].Note = strings.Join(notes, "; ")
	}
	return res
}

// readRecords reads every written record: one whose header words are all 0xffffffff
// was not written (the pixel is not covered), and its output words must be as they
// were before the draw (a store there came from a lane that was no covered pixel
// of it); any other must name its own index, position and draw.
func (ps *pixelState) readRecords() []*pxRec {
	w, h := ps.lay.w, ps.lay.h
	ps.covered = make([][]*pxRec, ps.lay.draws)
	var all []*pxRec
	// Every record in one array (its capacity is every pixel, so the
	// pointers into it stay put): one allocation, not one per pixel.
	recs := make([]pxRec, 0, ps.lay.draws*int(w*h))
	for r := 0; r < ps.lay.draws; r++ {
		ps.covered[r] = make([]*pxRec, w*h)
		st := ps.states[ps.caseOf[r]]
		for y := uint32(0); y < h; y++ {
			for x := uint32(0); x < w; x++ {
				i := ps.lay.flat(r, x, y)
				rec := ps.got[i*recWords:][:recWords]
				if !headerWritten(rec) {
					for w := wOut; w < recWords; w++ {
						if rec[w] != ps.init[i*recWords+w] {
							st.problem(fmt.Sprintf("record %d (draw %d, pixel %d,%d) is no covered pixel's, but its output word %d changed from %#x to %#x",
								i, r, x, y, w-wOut, ps.init[i*recWords+w], rec[w]))
							break
						}
					}
					continue
				}
				if rec[wFlat] != uint32(i) || rec[pPos] != x|y<<16 || rec[pRep] != uint32(r) {
					st.problem(fmt.Sprintf("layout: record %d (draw %d, pixel %d,%d) holds flat %d, position %#x, draw %d",
						i, r, x, y, rec[wFlat], rec[pPos], rec[pRep]))
					continue
				}
				recs = append(recs, pxRec{idx: i, rep: r, x: x, y: y, key: rec[wKey], key2: rec[pKey2], lane: rec[wLane], count: rec[wCount],
					branch: rec[wBranch], laneArg: rec[wLaneArg], helper: rec[pHelper]})
				p := &recs[len(recs)-1]
				ps.covered[r][y*w+x] = p
				all = append(all, p)
			}
		}
	}
	return all
}

// checkCoverage: every draw covers the scene's pixels (centres on an edge either way;
// the picture may be mirrored in y, the same way for every draw), and every draw the
// same pixels (one pipeline, one triangle).
func (ps *pixelState) checkCoverage() {
	cls, mcls := ps.sc.Classify(), ps.sc.mirrored().Classify()
	for r := 0; r < ps.lay.draws; r++ {
		cov := make([]bool, len(ps.covered[r]))
		for i, p := range ps.covered[r] {
			cov[i] = p != nil
		}
		st := ps.states[ps.caseOf[r]]
		switch {
		case coverageMatches(cls, cov):
		case coverageMatches(mcls, cov):
			ps.mirrored = true
		default:
			st.problem(fmt.Sprintf("coverage: draw %d covered %d pixels, not the scene's (%s)", r, count(cov), coverageDiff(cls, cov)))
		}
		if r > 0 {
			for i := range cov {
				if cov[i] != (ps.covered[0][i] != nil) {
					st.problem(fmt.Sprintf("coverage: draw %d and draw 0 differ at pixel %d,%d", r, uint32(i)%ps.lay.w, uint32(i)/ps.lay.w))
					break
				}
			}
		}
	}
}

func count(b []bool) int {
	n := 0
	for _, v := range b {
		if v {
			n++
		}
	}
	return n
}

func coverageDiff(cls []Coverage, cov []bool) string {
	var miss, extra int
	for i, c := range cls {
		if c == In && !cov[i] {
			miss++
		}
		if c == Out && cov[i] {
			extra++
		}
	}
	return fmt.Sprintf("%d inside pixels missing, %d outside pixels covered", miss, extra)
}

// pixelWave is one wave's recorded lanes (sorted by lane) and derived helpers.
type pixelWave struct {
	lanes   []*pxRec
	helpers []pxHelper
	count   uint32
	// layout is the helper choice the layout words (key, key2: WaveReadLaneFirst
	// and WaveActiveSum in the prologue) show, "" when they cannot tell.
	layout string
}

// waveID is a pixel wave's identity: the key and the sum over the wave of padded
// index × (lane + 1) (see pixelPrologue).
type waveID [2]uint32

func (p *pxRec) wave() waveID { return waveID{p.key, p.key2} }

// checkWaves rebuilds the waves from the keys, checks their layout and hands every
// well-formed wave to check.
func (ps *pixelState) checkWaves(all []*pxRec, waveSize uint32, check func(pixelWave)) {
	byKey := map[waveID][]*pxRec{}
	var keys []waveID
	for _, p := range all {
		if _, ok := byKey[p.wave()]; !ok {
			keys = append(keys, p.wave())
		}
		byKey[p.wave()] = append(byKey[p.wave()], p)
	}
	slices.SortFunc(keys, func(a, b waveID) int { // keys are distinct
		if c := cmp.Compare(a[0], b[0]); c != 0 {
			return c
		}
		return cmp.Compare(a[1], b[1])
	})
	kernelCount := waveSize
	for _, key := range keys {
		ws := byKey[key]
		slices.SortStableFunc(ws, func(a, b *pxRec) int { return cmp.Compare(a.lane, b.lane) })
		st := ps.states[ps.caseOf[ws[0].rep]]
		st.waves++
		wv, probs := ps.waveLayout(ws)
		if len(probs) == 0 && !ps.sawGood {
			ps.sawGood, ps.firstCount = true, wv.count
		}
		if kernelCount == 0 && len(probs) == 0 {
			kernelCount = wv.count
		}
		if kernelCount != 0 && wv.count != kernelCount {
			if waveSize != 0 {
				probs = append(probs, fmt.Sprintf("key %d: lane count %d, expected wave size %d", key, wv.count, waveSize))
			} else {
				probs = append(probs, fmt.Sprintf("key %d: lane count %d, other waves of the kernel have %d", key, wv.count, kernelCount))
			}
		}
		if len(probs) > 0 {
			for _, p := range probs {
				st.problem("layout: " + p)
			}
			continue
		}
		check(wv)
	}
}

// waveLayout checks one wave's layout and derives its helpers: one draw; unique lane
// indices below one power-of-two count; every member's quad lane (index & 3) is its
// quad position (models.QuadIndex); the members of a pixel quad share index >> 2 and
// no two pixel quads do; the key is the padded index of the lowest lane, recorded or
// (when helpers take part) helper.
//
// A pixel quad may be shaded in more than one wave: a rasterizer may split one
// triangle (lavapipe clips a triangle larger than the viewport to it and draws the
// polygon as a fan, so a quad on a seam is shaded once per piece, each time with
// the other piece's pixels as helpers). The helpers of a wave are therefore the
// members of its quads that are not recorded in this wave — uncovered, or covered
// by another piece and recorded with another key.
func (ps *pixelState) waveLayout(ws []*pxRec) (pixelWave, []string) {
	var p []string
	key := ws[0].key
	wv := pixelWave{lanes: ws, count: ws[0].count}
	c := wv.count
	if c == 0 || c&(c-1) != 0 || c > 128 {
		p = append(p, fmt.Sprintf("key %d: lane count %d is not a power of two in 1..128", key, c))
	}
	if len(ws) > int(c) {
		p = append(p, fmt.Sprintf("key %d: %d lanes in a wave of %d", key, len(ws), c))
	}
	var seen laneRecs
	var quadOf laneQuads // lane>>2 -> (qx, qy)
	laneQuad := make(map[[2]uint32]uint32, len(ws)/4+1)
	for _, h := range ws {
		if h.rep != ws[0].rep {
			p = append(p, fmt.Sprintf("key %d spans draws %d and %d", key, ws[0].rep, h.rep))
		}
		if q := seen.swap(h.lane, h); q != nil {
			p = append(p, fmt.Sprintf("key %d: lane %d recorded twice (pixels %d,%d and %d,%d)", key, h.lane, q.x, q.y, h.x, h.y))
		}
		if h.count != c {
			p = append(p, fmt.Sprintf("key %d: lane counts %d and %d", key, c, h.count))
		}
		if h.lane >= c {
			p = append(p, fmt.Sprintf("key %d: lane %d >= count %d", key, h.lane, c))
		}
		if want := models.QuadIndex(h.x, h.y); h.lane&3 != want {
			p = append(p, fmt.Sprintf("key %d: pixel %d,%d is quad lane %d (lane %d), its quad position is %d", key, h.x, h.y, h.lane&3, h.lane, want))
		}
		q := [2]uint32{h.x >> 1, h.y >> 1}
		if l, ok := laneQuad[q]; ok && l != h.lane>>2 {
			p = append(p, fmt.Sprintf("key %d: quad %d,%d has lanes in quads %d and %d", key, q[0], q[1], l, h.lane>>2))
		}
		laneQuad[q] = h.lane >> 2
		if o, ok := quadOf.swap(h.lane>>2, q); ok && o != q {
			p = append(p, fmt.Sprintf("key %d: lane quad %d holds pixel quads %d,%d and %d,%d", key, h.lane>>2, o[0], o[1], q[0], q[1]))
		}
	}
	if len(p) > 0 {
		return wv, p
	}
	// Helpers: the uncovered members of every quad (positions on the padded grid).
	rep := ws[0].rep
	lowRec := ws[0]
	lowAll := ps.lay.padded(rep, lowRec.x, lowRec.y)
	lowLane := lowRec.lane
	for lq, q := range quadOf.all() {
		for dy := uint32(0); dy < 2; dy++ {
			for dx := uint32(0); dx < 2; dx++ {
				x, y := 2*q[0]+dx, 2*q[1]+dy
				if x < ps.lay.w && y < ps.lay.h {
					if c := ps.covered[rep][y*ps.lay.w+x]; c != nil && c.wave() == ws[0].wave() {
						continue
					}
				}
				h := pxHelper{x: x, y: y, lane: lq<<2 | models.QuadIndex(x, y)}
				wv.helpers = append(wv.helpers, h)
				if h.lane < lowLane {
					lowLane, lowAll = h.lane, ps.lay.padded(rep, x, y)
				}
			}
		}
	}
	sort.Slice(wv.helpers, func(a, b int) bool { return wv.helpers[a].lane < wv.helpers[b].lane })
	// The second half of the wave's identity is WaveActiveSum of padded index ×
	// (lane + 1), taken with the key: the recorded lanes' sum, or theirs and the
	// helpers'.
	var sumRec, sumAll uint32
	for _, r := range ws {
		sumRec += uint32(ps.lay.padded(rep, r.x, r.y)) * (r.lane + 1)
	}
	sumAll = sumRec
	for _, h := range wv.helpers {
		sumAll += uint32(ps.lay.padded(rep, h.x, h.y)) * (h.lane + 1)
	}
	if k2 := ws[0].key2; k2 != sumRec && k2 != sumAll {
		p = append(p, fmt.Sprintf("key %d: WaveActiveSum of padded index × (lane + 1) is %d, neither the recorded lanes' %d nor theirs and the helpers' %d", key, k2, sumRec, sumAll))
	} else if sumRec != sumAll {
		wv.layout = HelpersExcluded
		if k2 == sumAll {
			wv.layout = HelpersIncluded
		}
	}
	if key != uint32(ps.lay.padded(rep, lowRec.x, lowRec.y)) && key != uint32(lowAll) {
		p = append(p, fmt.Sprintf("key %d is the padded index of neither the lowest recorded lane (%d) nor the lowest lane with helpers (%d)",
			key, ps.lay.padded(rep, lowRec.x, lowRec.y), lowAll))
	}
	return wv, p
}

// laneRecs maps lane indices to records: an array for the legal ones (< 128),
// a map beyond (a broken device's).
type laneRecs struct {
	at   [128]*pxRec
	more map[uint32]*pxRec
}

// swap sets lane's record to p and returns the one it had (nil: none).
func (m *laneRecs) swap(lane uint32, p *pxRec) (old *pxRec) {
	if lane < 128 {
		old, m.at[lane] = m.at[lane], p
		return old
	}
	if m.more == nil {
		m.more = map[uint32]*pxRec{}
	}
	old, m.more[lane] = m.more[lane], p
	return old
}

// laneQuads maps lane quads (lane >> 2) to pixel quads: an array for the
// legal ones (< 32), a map beyond.
type laneQuads struct {
	at   [32][2]uint32
	has  uint32 // bit lq: at[lq] is set
	more map[uint32][2]uint32
}

// swap sets lane quad lq's pixel quad to q and returns the one it had.
func (m *laneQuads) swap(lq uint32, q [2]uint32) (old [2]uint32, had bool) {
	if lq < 32 {
		old, had = m.at[lq], m.has&(1<<lq) != 0
		m.at[lq], m.has = q, m.has|1<<lq
		return old, had
	}
	if m.more == nil {
		m.more = map[uint32][2]uint32{}
	}
	old, had = m.more[lq]
	m.more[lq] = q
	return old, had
}

// all yields every lane quad that is set and its pixel quad (array ones in
// order, then the map's in any order: the callers sort what they derive).
func (m *laneQuads) all() func(yield func(uint32, [2]uint32) bool) {
	return func(yield func(uint32, [2]uint32) bool) {
		for lq := uint32(0); lq < 32; lq++ {
			if m.has&(1<<lq) != 0 && !yield(lq, m.at[lq]) {
				return
			}
		}
		for lq, q := range m.more {
			if !yield(lq, q) {
				return
			}
		}
	}
}

// checkOpWave checks one wave of an operation kernel against both helper choices,
// or, for a [WaveOpsIncludeHelperLanes] kernel, against the helper-included one
// alone (its layout words too).
func (ps *pixelState) checkOpWave(wv pixelWave) {
	rep := wv.lanes[0].rep
	c := ps.k.Cases[ps.caseOf[rep]]
	st := ps.states[ps.caseOf[rep]]
	mode := ps.modeOf[rep]
	op := c.Op
	mt, err := c.Type.Model()
	if err != nil {
		st.problem(err.Error())
		return
	}
	rt := models.ResultType(op, mt)
	count := wv.count
	input := func(x, y uint32) []uint64 { return readComps(ps.block(rep, x, y), tIn, mt.Scalar, mt.N) }
	coin := func(x, y uint32) uint32 { return ps.block(rep, x, y)[tCoin] }
	pat := func(lane, cnt, x, y uint32) uint32 { return pixelArm(c, mode, lane, cnt, x, y, coin) }
	describe := func(h *pxRec) string {
		s := fmt.Sprintf("pixel %d,%d draw %d x=%s", h.x, h.y, rep, models.FormatComps(mt.Scalar, input(h.x, h.y)))
		if hasLaneArg(op) {
			s += fmt.Sprintf(" lane=%d", h.laneArg)
		}
		return s
	}
	for _, h := range wv.lanes {
		want := pat(h.lane, h.count, h.x, h.y)
		if h.branch != want {
			st.fail(results.LaneFailure{WaveKey: h.key, Lane: h.lane, ActiveMask: pxMask(wv, h.branch),
				Input: describe(h) + " (control flow)", Expected: fmt.Sprintf("arm %d", want), Actual: fmt.Sprintf("arm %d", h.branch)})
		}
		if h.branch != 0 && hasLaneArg(op) {
			if wantArg := laneArgOf(op, mode, h.lane, h.count); h.laneArg != wantArg {
				st.fail(results.LaneFailure{WaveKey: h.key, Lane: h.lane, ActiveMask: pxMask(wv, h.branch),
					Input: describe(h) + " (lane argument)", Expected: fmt.Sprint(wantArg), Actual: fmt.Sprint(h.laneArg)})
			}
		}
	}
	// The sentinel stays where no store belongs (checkSentinels).
	nw := rt.N * wordsPer(rt.Scalar)
	for _, h := range wv.lanes {
		if want := pat(h.lane, h.count, h.x, h.y); h.branch != want {
			continue
		}
		from, why := nw, " (store past the result's words)"
		if h.branch == 0 {
			from, why = 0, " (store by a lane that did not run the operation)"
		}
		out := ps.got[h.idx*recWords+wOut:][:recWords-wOut]
		for w := from; w < len(out); w++ {
			if out[w] != outSentinel {
				st.fail(results.LaneFailure{WaveKey: h.key, Lane: h.lane, ActiveMask: pxRanMask(wv), Input: describe(h) + why,
					Expected: fmt.Sprintf("out word %d untouched (%#x)", w, outSentinel), Actual: fmt.Sprintf("%#x", out[w])})
				break
			}
		}
	}
	helperBranch := make([]uint32, len(wv.helpers))
	for i, h := range wv.helpers {
		helperBranch[i] = pat(h.lane, count, h.x, h.y)
	}
	// fixed: helpers take part whatever the device chooses (quad reads and
	// swaps), so both sets are one and the wave decides nothing.
	fixed := helpersFixed(c)
	if !fixed {
		st.helperLanes += len(wv.helpers)
	}
	if ps.included && wv.layout == HelpersExcluded {
		// The prologue's WaveReadLaneFirst / WaveActiveSum left the helpers out:
		// the device ignored the attribute even where the operation cannot show it.
		st.fail(results.LaneFailure{WaveKey: wv.lanes[0].key, Lane: wv.lanes[0].lane, ActiveMask: pxMask(wv, wv.lanes[0].branch),
			Input:    fmt.Sprintf("layout word key2 (WaveActiveSum of padded index × (lane + 1)) of draw %d, %d helper lanes; [WaveOpsIncludeHelperLanes] requires them", rep, len(wv.helpers)),
			Expected: "the sum with helpers included", Actual: fmt.Sprintf("%d, the sum without helpers", wv.lanes[0].key2)})
	}
	// A helper set's failures are built when reported: the set a wave does not
	// take (every deciding wave has one) is only counted.
	var failE, failI []func() results.LaneFailure
	var lanesE, lanesI, undefE, undefI int
	// The record indices each helper set defines, with the value (at most one
	// per recorded lane).
	defE, defI := make([]defVal, 0, len(wv.lanes)), make([]defVal, 0, len(wv.lanes))
	var scratch []uint64
	seq := 0
	for arm := uint32(1); arm <= 2; arm++ {
		active := 0
		for _, h := range wv.lanes {
			if h.branch == arm {
				active++
			}
		}
		if active == 0 {
			continue
		}
		st.arms++
		ps.key = pixelKey(ps.key, wv, rep, arm, count, helperBranch)
		v := ps.memo.get(ps.caseOf[rep], ps.key, func() memoVal {
			rec, hl := make([]models.Lane, 0, len(wv.lanes)), make([]models.Lane, 0, len(wv.helpers))
			flat := make([]uint64, (len(wv.lanes)+len(wv.helpers))*mt.N) // every lane's input, one allocation
			in := func(x, y uint32) []uint64 {
				v := readCompsInto(flat[:mt.N:mt.N], ps.block(rep, x, y), tIn, mt.Scalar, mt.N)
				flat = flat[mt.N:]
				return v
			}
			for _, h := range wv.lanes {
				rec = append(rec, models.Lane{Index: h.lane, Active: h.branch == arm, Input: in(h.x, h.y), LaneArg: h.laneArg})
			}
			for i, h := range wv.helpers {
				hl = append(hl, models.Lane{Index: h.lane, Active: helperBranch[i] == arm, Input: in(h.x, h.y),
					LaneArg: laneArgOf(op, mode, h.lane, count)})
			}
			exc, inc, err := helperSetsOf(c, mt, rec, hl, count)
			return memoVal{a: exc, b: inc, err: err}
		})
		if v.err != nil {
			st.problem(v.err.Error())
			return
		}
		exc, inc := v.a, v.b
		mask := ""
		maskOf := func() string { // only a failure needs it
			if mask == "" {
				mask = pxMask(wv, arm)
			}
			return mask
		}
		for j, h := range wv.lanes {
			if h.branch != arm {
				continue
			}
			seq++
			recW := ps.got[h.idx*recWords:][:recWords]
			scratch = readCompsInto(scratch, recW, wOut, rt.Scalar, rt.N)
			actual := scratch // a failure keeps a copy (scratch is the next lane's)
			cmp := func(want models.Value, set string, fails *[]func() results.LaneFailure, lanes, undef *int, def *[]defVal) {
				if want.Undefined {
					*undef++
					return
				}
				*lanes++
				*def = append(*def, defVal{h.idx, seq, want})
				if unwritten(recW, rt, want) {
					*fails = append(*fails, func() results.LaneFailure {
						return results.LaneFailure{WaveKey: h.key, Lane: h.lane, ActiveMask: maskOf(), Input: describe(h),
							Expected: formatWant(op, rt, want), Actual: fmt.Sprintf("not written (the sentinel %#x is still there)", outSentinel)}
					})
					return
				}
				if !want.AcceptsAll(rt.Scalar, actual) {
					actual := slices.Clone(actual)
					*fails = append(*fails, func() results.LaneFailure {
						in := describe(h)
						if !fixed && len(wv.helpers) > 0 {
							in += " (helpers " + set + ")"
						}
						return results.LaneFailure{WaveKey: h.key, Lane: h.lane, ActiveMask: maskOf(), Input: in,
							Expected: formatWant(op, rt, want), Actual: formatResult(op, rt, actual)}
					})
				}
			}
			cmp(exc[j], HelpersExcluded, &failE, &lanesE, &undefE, &defE)
			cmp(inc[j], HelpersIncluded, &failI, &lanesI, &undefI, &defI)
		}
	}
	mark := func(sets ...[]defVal) {
		if ps.defined == nil {
			return
		}
		// A record is defined where every set defines it: each set lists the
		// wave's lanes in one walk order (seq), so the sets meet in one pass.
		pos := make([]int, len(sets))
		backing := make([]models.Value, 0, len(sets)*len(sets[0])) // every lane's values, one allocation
		for _, d := range sets[0] {
			at := len(backing)
			backing = append(backing, d.want)
			for n := 1; n < len(sets); n++ {
				set := sets[n]
				for pos[n] < len(set) && set[pos[n]].seq < d.seq {
					pos[n]++
				}
				if pos[n] < len(set) && set[pos[n]].seq == d.seq {
					backing = append(backing, set[pos[n]].want)
				}
			}
			ws := backing[at:len(backing):len(backing)]
			if len(ws) == len(sets) && d.idx < len(ps.defined) {
				ps.defined[d.idx] = ws
			}
		}
	}
	// report is st.fail of a built failure; one past MaxFailures only fails
	// the case, so it is not built.
	report := func(f func() results.LaneFailure, suffix string) {
		if len(st.res.Failures) >= MaxFailures {
			st.fail(results.LaneFailure{})
			return
		}
		lf := f()
		lf.Input += suffix
		st.fail(lf)
	}
	switch {
	case ps.included:
		// [WaveOpsIncludeHelperLanes]: only the helper-included result is correct.
		// The wave's choice comes from the operation where it decides, else from
		// the layout words; a failure says when the device's values are exactly
		// the helper-excluded ones.
		st.res.Lanes += lanesI
		st.undef += undefI
		choice := wv.layout
		switch {
		case len(failI) > 0 && len(failE) == 0:
			choice = HelpersExcluded
		case len(failI) == 0 && len(failE) > 0 && choice == "":
			choice = HelpersIncluded
		}
		if choice != "" {
			st.choices[choice]++
		}
		for _, f := range failI {
			suffix := ""
			if len(failE) == 0 {
				suffix = "; the device left helpers out, [WaveOpsIncludeHelperLanes] requires them"
			}
			report(f, suffix)
		}
		if len(failI) == 0 {
			mark(defI)
		}
	case len(failE) == 0 && len(failI) == 0:
		// Both choices fit (always so for quad ops, which have one answer): the wave
		// does not decide.
		st.res.Lanes += lanesI
		st.undef += undefI
		mark(defE, defI)
	case len(failE) == 0:
		st.res.Lanes += lanesE
		st.undef += undefE
		st.choices[HelpersExcluded]++
		mark(defE)
	case len(failI) == 0:
		st.res.Lanes += lanesI
		st.undef += undefI
		st.choices[HelpersIncluded]++
		mark(defI)
	default:
		// Neither choice explains the wave: report the closer one.
		fails := failE
		if len(failI) < len(failE) {
			fails = failI
		}
		st.res.Lanes += lanesE
		for _, f := range fails {
			report(f, "")
		}
	}
}

// pxRanMask is the hex mask of a wave's recorded lanes that ran the operation.
func pxRanMask(wv pixelWave) string {
	var ls []uint32
	for _, h := range wv.lanes {
		if h.branch != 0 {
			ls = append(ls, h.lane)
		}
	}
	return maskHex(ls)
}

// pxMask is the hex mask of a wave's recorded lanes that ran in arm.
func pxMask(wv pixelWave, arm uint32) string {
	var ls []uint32
	for _, h := range wv.lanes {
		if h.branch == arm {
			ls = append(ls, h.lane)
		}
	}
	return maskHex(ls)
}

// checkColor: after the last draw every covered pixel holds (flat, draw, o0, o1) of
// the last draw's record and every other pixel the clear value 0. o0 and o1 are
// the record's output words 0 and 1 where the operation kernel stored them (the
// lane ran the operation, the result has the word; IsHelperLane kernels store
// every word), else 0.
func (ps *pixelState) checkColor(out map[string][]byte) {
	last := ps.lay.draws - 1
	st := ps.states[ps.caseOf[last]]
	nw := recWords - wOut
	if c := ps.k.Cases[ps.caseOf[last]]; c.Name != helperName {
		if mt, err := c.Type.Model(); err == nil {
			rt := models.ResultType(c.Op, mt)
			nw = rt.N * wordsPer(rt.Scalar)
		}
	}
	colourWord := func(p *pxRec, rec []uint32, k int) uint32 {
		if ps.k.Cases[ps.caseOf[last]].Name != helperName && (p.branch == 0 || k >= nw) {
			return 0
		}
		return rec[wOut+k]
	}
	b, ok := out[ColorTarget]
	w, h := ps.lay.w, ps.lay.h
	if !ok || len(b) != int(w*h*16) {
		st.problem(fmt.Sprintf("colour target: %d bytes (present %v), expected %d", len(b), ok, w*h*16))
		return
	}
	bad := 0
	for y := uint32(0); y < h; y++ {
		for x := uint32(0); x < w; x++ {
			var want [4]uint32
			var key, lane uint32
			if p := ps.covered[last][y*w+x]; p != nil {
				rec := ps.got[p.idx*recWords:][:recWords]
				want = [4]uint32{rec[wFlat], uint32(last), colourWord(p, rec, 0), colourWord(p, rec, 1)}
				key, lane = p.key, p.lane
			}
			var got [4]uint32
			for c := range got {
				got[c] = binary.LittleEndian.Uint32(b[(int(y*w+x)*4+c)*4:])
			}
			if got != want {
				bad++
				st.fail(results.LaneFailure{WaveKey: key, Lane: lane, ActiveMask: "-",
					Input:    fmt.Sprintf("colour at pixel %d,%d after draw %d", x, y, last),
					Expected: fmt.Sprint(want), Actual: fmt.Sprint(got)})
			}
		}
	}
	if bad > 0 {
		st.extra = append(st.extra, fmt.Sprintf("%d colour pixels wrong", bad))
	}
}

// floatPixel reads a float4 colour pixel.
func floatPixel(b []byte, i int) [4]float32 {
	var v [4]float32
	for c := range v {
		v[c] = math.Float32frombits(binary.LittleEndian.Uint32(b[(i*4+c)*4:]))
	}
	return v
}

var _ = intrinsics.Wave24
