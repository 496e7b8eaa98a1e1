package kernels

import (
	"fmt"

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

// Compare compares the outputs of a compute kernel run through two APIs (a and b
// name them in the report), invocation by invocation (the flat id is the record
// index on both sides). An invocation differs when its recorded place (wave key,
// lane index, lane count, arm) differs, or when both sides put it in the same
// place and its result, where the model defines one, differs beyond the model's
// tolerance (models.Equal). Values the model leaves undefined are never compared:
// two correct devices may disagree on them. A parity difference is reported even
// when both sides pass their models: it says the two paths to the same hardware
// disagree, which a driver engineer wants to know.
func Compare(k Kernel, apiA string, outA map[string][]byte, apiB string, outB map[string][]byte) ([]Parity, error) {
	if len(k.Cases) == 0 {
		return nil, nil
	}
	init, gotA, err := kernelWords(k, outA)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", apiA, err)
	}
	_, gotB, err := kernelWords(k, outB)
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
	add := func(p *Parity, h hdr, input, va, vb string) {
		p.Differing++
		if len(p.Lanes) < MaxFailures {
			p.Lanes = append(p.Lanes, results.ParityLane{Flat: h.flat, WaveKey: h.key, Lane: h.lane, Input: input,
				Values: map[string]string{apiA: va, apiB: vb}})
		}
	}
	for _, wv := range groupWaves(ha) {
		c := k.Cases[wv[0].caseIdx]
		p := &out[wv[0].caseIdx]
		mt, err := c.Type.Model()
		if err != nil {
			return nil, err
		}
		rt := models.ResultType(op, mt)
		defined := map[int]bool{} // record index -> the model defines its value
		for arm := uint32(1); arm <= 2; arm++ {
			lanes := make([]models.Lane, len(wv))
			active := false
			for j, h := range wv {
				lanes[j] = models.Lane{Index: h.lane, Active: h.branch == arm, LaneArg: h.laneArg,
					Input: readComps(init[h.idx*recWords:][:recWords], wIn, mt.Scalar, mt.N)}
				active = active || h.branch == arm
			}
			if !active {
				continue
			}
			want, err := models.Expected(op, mt, lanes, wv[0].count)
			if err != nil {
				// The checker reports a layout the model cannot take; nothing to compare.
				continue
			}
			for j, h := range wv {
				if lanes[j].Active && !want[j].Undefined {
					defined[h.idx] = true
				}
			}
		}
		for _, a := range wv {
			b := hb[a.idx]
			input := models.FormatComps(mt.Scalar, readComps(init[a.idx*recWords:][:recWords], wIn, mt.Scalar, mt.N))
			if a.key != b.key || a.lane != b.lane || a.count != b.count || a.branch != b.branch {
				add(p, a, input, wavePlace(a), wavePlace(b))
				continue
			}
			if !defined[a.idx] {
				continue
			}
			p.Compared++
			ra := readComps(gotA[a.idx*recWords:][:recWords], wOut, rt.Scalar, rt.N)
			rb := readComps(gotB[a.idx*recWords:][:recWords], wOut, rt.Scalar, rt.N)
			for x := range ra {
				if !models.Equal(rt.Scalar, ra[x], rb[x]) {
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
