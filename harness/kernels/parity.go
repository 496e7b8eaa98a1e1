package kernels

import (
	"fmt"
	"math"

	"waverig/compiler/intrinsics"
	"waverig/harness/models"
	"waverig/harness/results"
)

// Parity is the cross-API comparison of one case: the same kernel run through two
// APIs on one physical device. Compared counts the lanes whose values were
// compared; Lanes are the ones that differ (at most MaxFailures).
type Parity struct {
	Case     Case
	Compared int
	Lanes    []results.ParityLane
	// Differing is the number of differing lanes (Lanes may hold fewer).
	Differing int
}

// Compare compares the outputs of a kernel run through two APIs (a and b
// name them in the report), invocation by invocation (the flat id is the record
// index on both sides). An invocation differs when its recorded place (wave key,
// lane index, lane count, arm) differs, or when both sides put it in the same
// place and its result, where the model defines one, differs (agree). Values the model leaves undefined are never compared:
// two correct devices may disagree on them. A parity difference is reported even
// when both sides pass their models: it says the two paths to the same hardware
// disagree, which a driver engineer wants to know. Compare is Memo.Compare with
// a memo of its own.
func Compare(k Kernel, apiA string, outA map[string][]byte, apiB string, outB map[string][]byte) ([]Parity, error) {
	return NewMemo(k).Compare(apiA, outA, apiB, outB)
}

// Compare is Compare through the memo: the model values of the waves (and,
// for pixel kernels, what each side's check defined) that Check put there
// when it checked the same buffers are taken, not worked out again.
func (m *Memo) Compare(apiA string, outA map[string][]byte, apiB string, outB map[string][]byte) ([]Parity, error) {
	k := m.k
	if len(k.Cases) == 0 {
		return nil, nil
	}
	if k.Stage == Pixel {
		return m.comparePixel(apiA, outA, apiB, outB)
	}
	if isSum(k) {
		return compareSum(k, apiA, outA, apiB, outB)
	}
	init, gotA, err := m.words(outA)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", apiA, err)
	}
	_, gotB, err := m.words(outB)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", apiB, err)
	}
	op := k.Cases[0].Op
	threads := k.Cases[0].Shape.Threads()
	if threads <= 0 || len(init)%(threads*recWords) != 0 {
		return nil, fmt.Errorf("buffer of %d words is not whole workgroups of %d records", len(init), threads)
	}
	n := len(init) / recWords
	ha, hb := make([]hdr, n), make([]hdr, n)
	for i := range ha {
		ha[i], hb[i] = readHdr(gotA, init, i, threads), readHdr(gotB, init, i, threads)
		if ha[i].caseIdx >= len(k.Cases) {
			return nil, fmt.Errorf("record %d names case %d of %d", i, ha[i].caseIdx, len(k.Cases))
		}
	}
	out := make([]Parity, len(k.Cases))
	for i, c := range k.Cases {
		out[i].Case = c
	}
	add := func(p *Parity, h hdr, input func() string, va, vb string) {
		p.Differing++
		if len(p.Lanes) < MaxFailures {
			p.Lanes = append(p.Lanes, results.ParityLane{Flat: h.flat, WaveKey: h.key, Lane: h.lane, Input: input(),
				Values: map[string]string{apiA: va, apiB: vb}})
		}
	}
	var key keyBuf
	var defined []*models.Value
	var ra, rb []uint64
	for _, wv := range groupWaves(ha) {
		ci := wv[0].caseIdx
		c := k.Cases[ci]
		p := &out[ci]
		mt, err := c.Type.Model()
		if err != nil {
			return nil, err
		}
		rt := models.ResultType(op, mt)
		// The model parity holds each side to is models.Expected over the
		// pre-written inputs at the wave's own lane count; where that is the
		// model Check asked (every operation but WaveMatch, whose inputs Check
		// derives from the keys, and the native quad votes), Check's entries
		// answer it.
		kind := memoCheck
		if op == intrinsics.WaveMatch || (models.IsQuadVote(op) && nativeQuadVote(c)) {
			kind = memoParity
		}
		inputOf := func(h hdr) []uint64 { return readComps(init[h.idx*recWords:][:recWords], wIn, mt.Scalar, mt.N) }
		defined = append(defined[:0], make([]*models.Value, len(wv))...) // the model's value where it defines one
		for arm := uint32(1); arm <= 2; arm++ {
			active := false
			for _, h := range wv {
				active = active || h.branch == arm
			}
			if !active {
				continue
			}
			key = waveKey(key, kind, wv, arm, wv[0].count)
			v := m.get(ci, key, func() memoVal {
				lanes := make([]models.Lane, len(wv))
				for j, h := range wv {
					lanes[j] = models.Lane{Index: h.lane, Active: h.branch == arm, LaneArg: h.laneArg, Input: inputOf(h)}
				}
				if kind == memoCheck {
					want, err := expectedOf(c, op, mt, lanes, wv[0].count)
					return memoVal{a: want, err: err}
				}
				want, err := models.Expected(op, mt, lanes, wv[0].count)
				return memoVal{a: want, err: err}
			})
			if v.err != nil {
				// The checker reports a layout the model cannot take; nothing to compare.
				continue
			}
			for j, h := range wv {
				if h.branch == arm && !v.a[j].Undefined {
					defined[j] = &v.a[j]
				}
			}
		}
		for j, a := range wv {
			b := hb[a.idx]
			input := func() string { return models.FormatComps(mt.Scalar, inputOf(a)) }
			if a.key != b.key || a.lane != b.lane || a.count != b.count || a.branch != b.branch {
				add(p, a, input, wavePlace(a), wavePlace(b))
				continue
			}
			w := defined[j]
			if w == nil {
				continue
			}
			p.Compared++
			ra = readCompsInto(ra, gotA[a.idx*recWords:][:recWords], wOut, rt.Scalar, rt.N)
			rb = readCompsInto(rb, gotB[a.idx*recWords:][:recWords], wOut, rt.Scalar, rt.N)
			for x := range ra {
				if !agree(rt.Scalar, *w, x, ra[x], rb[x]) {
					add(p, a, input, formatResult(op, rt, ra), formatResult(op, rt, rb))
					break
				}
			}
		}
	}
	return out, nil
}

// wavePlace renders where an invocation ran, for a parity lane whose layout differs.
func wavePlace(h hdr) string {
	return fmt.Sprintf("wave %#x lane %d of %d, arm %d", h.key, h.lane, h.count, h.branch)
}

// comparePixel is Compare for pixel kernels. Both APIs draw the scene the same
// way up (see emitTriangleVS), so a record index names one pixel of one draw on
// both: a pixel covered on one API only, or placed differently (its wave's key,
// lane, lane count, arm), differs; a pixel placed alike differs when its output,
// where the pixel checker defined it on both sides (for the helper set each
// side's wave was explained by), differs: not Equal and not both inside one of
// those values' accepted sets (agreeAny). PSSlope, which writes no records, is
// compared by its colour target, within the slope model's tolerance.
func (m *Memo) comparePixel(apiA string, outA map[string][]byte, apiB string, outB map[string][]byte) ([]Parity, error) {
	k := m.k
	if k.Cases[0].Shape.Scene == nil {
		return nil, fmt.Errorf("kernel %s: pixel kernel without a scene", k.Name)
	}
	sc := *k.Cases[0].Shape.Scene
	out := make([]Parity, len(k.Cases))
	for i, c := range k.Cases {
		out[i].Case = c
	}
	add := func(p *Parity, flat, key, lane uint32, input func() string, va, vb string) {
		p.Differing++
		if len(p.Lanes) < MaxFailures {
			p.Lanes = append(p.Lanes, results.ParityLane{Flat: flat, WaveKey: key, Lane: lane, Input: input(),
				Values: map[string]string{apiA: va, apiB: vb}})
		}
	}
	if colorModelled(k.Cases[0]) {
		a, b := outA[ColorTarget], outB[ColorTarget]
		if len(a) != int(sc.Width*sc.Height*16) || len(b) != len(a) {
			return nil, fmt.Errorf("colour targets of %d and %d bytes, expected %d", len(a), len(b), sc.Width*sc.Height*16)
		}
		for i := 0; i < int(sc.Width*sc.Height); i++ {
			pa, pb := floatPixel(a, i), floatPixel(b, i)
			out[0].Compared++
			for c := range pa {
				// Two correct devices may each be off by a sample's
				// tolerance (sampleTolerance), in opposite directions.
				if math.Abs(float64(pa[c]-pb[c])) > 4*sampleTolerance(slopeLevel(k.Cases[0])) {
					add(&out[0], uint32(i), 0, 0, func() string { return fmt.Sprintf("pixel %d,%d", uint32(i)%sc.Width, uint32(i)/sc.Width) },
						fmt.Sprint(pa), fmt.Sprint(pb))
					break
				}
			}
		}
		return out, nil
	}
	// What each side's check defined: left in the memo by the rig's Check of
	// the same buffers, else a check at no required size of its own.
	defined := func(o map[string][]byte) [][]models.Value {
		if d, ok := m.pixelDefinedOf(o); ok {
			return d
		}
		u0 := o["u0"]
		d := make([][]models.Value, len(u0)/4/recWords)
		res := make([]CaseResult, len(k.Cases))
		states := make([]*caseState, len(k.Cases))
		for i, c := range k.Cases {
			res[i] = CaseResult{Case: c, Passed: true}
			states[i] = &caseState{res: &res[i], choices: map[string]int{}}
		}
		checkPixelInto(k, o, 0, res, states, d, m)
		return d
	}
	defA, defB := defined(outA), defined(outB)
	_, gotA, err := m.words(outA)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", apiA, err)
	}
	_, gotB, err := m.words(outB)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", apiB, err)
	}
	var in []uint32
	for _, b := range k.Buffers {
		if b.Register == "t0" {
			in, _ = wordsView(b.Data)
		}
	}
	pw, ph := sc.Padded()
	lay := pixelLayout{w: sc.Width, h: sc.Height, pw: pw, ph: ph, draws: int(k.Draw.Draws)}
	if len(in) != lay.draws*int(pw*ph)*tWords || len(gotA) != lay.draws*int(sc.Width*sc.Height)*recWords {
		return nil, fmt.Errorf("kernel %s: buffers of the wrong size", k.Name)
	}
	op := k.Cases[0].Op
	written := headerWritten
	place := func(r []uint32) string {
		if !written(r) {
			return "not covered"
		}
		return fmt.Sprintf("wave %#x/%#x lane %d of %d, arm %d", r[wKey], r[pKey2], r[wLane], r[wCount], r[wBranch])
	}
	var va, vb []uint64
	for d := 0; d < lay.draws; d++ {
		_, _, _, ci := unctl(in[lay.padded(d, 0, 0)*tWords+tCtl])
		if ci >= len(k.Cases) {
			return nil, fmt.Errorf("draw %d names case %d of %d", d, ci, len(k.Cases))
		}
		p := &out[ci]
		mt, err := k.Cases[ci].Type.Model()
		if err != nil {
			return nil, err
		}
		rt := models.ResultType(op, mt)
		for y := uint32(0); y < sc.Height; y++ {
			for x := uint32(0); x < sc.Width; x++ {
				i := lay.flat(d, x, y)
				ra, rb := gotA[i*recWords:][:recWords], gotB[i*recWords:][:recWords]
				input := func() string { // only a difference needs it
					return fmt.Sprintf("pixel %d,%d draw %d x=%s", x, y, d,
						models.FormatComps(mt.Scalar, readComps(in[lay.padded(d, x, y)*tWords:][:tWords], tIn, mt.Scalar, mt.N)))
				}
				if written(ra) != written(rb) || ra[wKey] != rb[wKey] || ra[pKey2] != rb[pKey2] || ra[wLane] != rb[wLane] ||
					ra[wCount] != rb[wCount] || ra[wBranch] != rb[wBranch] {
					add(p, uint32(i), ra[wKey], ra[wLane], input, place(ra), place(rb))
					continue
				}
				if !written(ra) || defA[i] == nil || defB[i] == nil {
					continue
				}
				p.Compared++
				va = readCompsInto(va, ra, wOut, rt.Scalar, rt.N)
				vb = readCompsInto(vb, rb, wOut, rt.Scalar, rt.N)
				for c := range va {
					if !agreeAny(rt.Scalar, defA[i], c, va[c], vb[c]) && !agreeAny(rt.Scalar, defB[i], c, va[c], vb[c]) {
						add(p, uint32(i), ra[wKey], ra[wLane], input, formatResult(op, rt, va), formatResult(op, rt, vb))
						break
					}
				}
			}
		}
	}
	return out, nil
}

// agreeAny is agree for a pixel, whose value the models may give under each
// helper set that explained its wave on either side: the two results agree when
// they are Equal or both lie in one value's accepted set for the component.
func agreeAny(s models.Scalar, wants []models.Value, k int, a, b uint64) bool {
	if models.Equal(s, a, b) {
		return true
	}
	for _, w := range wants {
		if k < len(w.Accept) && w.Accept[k] != nil && agree(s, w, k, a, b) {
			return true
		}
	}
	return false
}

// agree says whether two APIs' results for component k of a value the model
// defines as want agree: where the model accepts a set (a float sum's interval,
// the zeros and flushes a rule allows) both must lie in it, since the set is the
// freedom the specification leaves each path; elsewhere they must be Equal.
func agree(s models.Scalar, want models.Value, k int, a, b uint64) bool {
	if k < len(want.Accept) && want.Accept[k] != nil {
		return want.Accept[k].Has(s, a) && want.Accept[k].Has(s, b)
	}
	return models.Equal(s, a, b)
}
