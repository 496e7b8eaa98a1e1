package kernels

import (
	"fmt"

	"waverig/compiler/intrinsics"
	"waverig/harness/models"
)

// RecordWordNames names the words of the record every invocation of a compute
// (or vertex) operation kernel writes: the names a repro bundle's case file
// gives the record buffer, so that a mismatch says "record 51 out0".
func RecordWordNames() []string {
	names := make([]string, recWords)
	copy(names, []string{"flat", "key", "lane", "count", "arm", "lanearg", "ctl", "coin"})
	for i := 0; i < wOut-wIn; i++ {
		names[wIn+i] = fmt.Sprintf("in%d", i)
	}
	for i := 0; i < recWords-wOut; i++ {
		names[wOut+i] = fmt.Sprintf("out%d", i)
	}
	return names
}

// RecordExpectation is what a correct device writes into a compute kernel's
// record buffer when it lays the lanes out as one run observed: the words a
// case file expects after re-running the kernel's dispatch.
type RecordExpectation struct {
	Register string   // the record buffer ("u0")
	Stride   int      // words per record (one record per invocation, at its flat id)
	Words    []uint32 // the expected word, where Defined
	// Defined[i] is false where any value is right: a word the checker does not
	// compare (inactive lanes' outputs, a model's undefined result, the words
	// of a wave whose layout was broken beyond its key and count).
	Defined []bool
	// BrokenWaves counts the waves whose layout Check refused: only their
	// flat ids, keys, lane counts and pre-written words are expected.
	BrokenWaves int
}

// Find is the index of the record of a lane (wave key and lane index, as a
// results.LaneFailure names it) in the layout the expectation was made for, or
// -1.
func (e RecordExpectation) Find(key, lane uint32) int {
	for i := 0; (i+1)*e.Stride <= len(e.Words); i++ {
		r := i * e.Stride
		if e.Defined[r+wKey] && e.Words[r+wKey] == key && e.Words[r+wLane] == lane {
			return i
		}
	}
	return -1
}

// ExpectedRecords is the expectation of a compute kernel's records given the
// buffers a device returned (out) and the wave size Check was given: the same
// walk as Check, with each compared word turned into its expected value.
//
//   - Layout words (flat id, wave key, lane index, lane count) are what the run
//     observed — the models work from the recorded layout, never an assumed one
//     — except what Check demands of them: the flat id is the record index,
//     the lane count the required wave size and the key the flat id of the
//     wave's lowest lane.
//   - The arm, the lane argument (where Check compares it) and the pre-written
//     words are what the kernel must have written for that layout.
//   - An output is the model's value for its arm. Where the device's value
//     passed, its own words are kept: a float result is accepted within a set
//     (an interval for sums and products, the special values a rule allows,
//     models/floats.go) and a half's upper bits not at all, so the words that
//     passed stay right on a re-run of the same device. A failing lane gets the
//     lane-order value, one member of its accepted set.
//
// A correct device with the same layout meets every defined word; a failing
// lane of Check differs from it in the word Check failed.
func ExpectedRecords(k Kernel, out map[string][]byte, waveSize uint32) (RecordExpectation, error) {
	if k.Stage == Pixel || k.Draw != nil {
		return RecordExpectation{}, fmt.Errorf("kernels: %s is a draw kernel: only compute kernels have a record expectation", k.Name)
	}
	if len(k.Cases) == 0 {
		return RecordExpectation{}, fmt.Errorf("kernels: %s has no cases", k.Name)
	}
	init, got, err := kernelWords(k, out)
	if err != nil {
		return RecordExpectation{}, err
	}
	op := k.Cases[0].Op
	threads := k.Cases[0].Shape.Threads()
	if threads <= 0 || len(init)%(threads*recWords) != 0 {
		return RecordExpectation{}, fmt.Errorf("kernels: %s: buffer of %d words is not whole workgroups of %d records", k.Name, len(init), threads)
	}
	e := RecordExpectation{Register: "u0", Stride: recWords, Words: make([]uint32, len(init)), Defined: make([]bool, len(init))}
	set := func(i, w int, v uint32) { e.Words[i*recWords+w], e.Defined[i*recWords+w] = v, true }
	n := len(init) / recWords
	hs := make([]hdr, n)
	for i := range hs {
		hs[i] = readHdr(got, init, i, threads)
		if hs[i].caseIdx >= len(k.Cases) {
			return RecordExpectation{}, fmt.Errorf("kernels: record %d names case %d of %d: the buffer does not belong to %s", i, hs[i].caseIdx, len(k.Cases), k.Name)
		}
		set(i, wFlat, uint32(i))
		set(i, wLane, hs[i].lane)
		count := hs[i].count
		if waveSize != 0 {
			count = waveSize
		}
		set(i, wCount, count)
		for w := wCtl; w < wOut; w++ {
			set(i, w, init[i*recWords+w])
		}
	}
	kernelCount := waveSize
	for _, wv := range groupWaves(hs) {
		low := wv[0] // lowest lane: groupWaves sorts by lane
		for _, h := range wv {
			set(h.idx, wKey, uint32(low.idx)) // its flat id, which must be its index
		}
		ps := waveProblems(wv, waveSize)
		if waveSize == 0 && len(ps) == 0 {
			if kernelCount == 0 {
				kernelCount = wv[0].count
			} else if wv[0].count != kernelCount {
				ps = append(ps, "lane count differs")
			}
		}
		if len(ps) > 0 {
			// Check compares nothing else in a broken wave.
			e.BrokenWaves++
			continue
		}
		expectWave(op, k.Cases[wv[0].caseIdx], wv, init, got, threads, waveSize, &e)
	}
	return e, nil
}

// expectWave fills in the arm, lane argument and output words of one wave whose
// layout passed, as checkWave compares them.
func expectWave(op intrinsics.Op, c Case, wv []hdr, init, got []uint32, threads int, waveSize uint32, e *RecordExpectation) {
	set := func(i, w int, v uint32) { e.Words[i*recWords+w], e.Defined[i*recWords+w] = v, true }
	mt, rt, count, inputs, err := waveInputs(op, c, wv, init, waveSize)
	if err != nil {
		return
	}
	partitioned := models.IsPartitioned(op)
	arms, args := waveArms(c, wv, threads)
	for j, h := range wv {
		set(h.idx, wBranch, arms[j])
		switch {
		case partitioned:
			set(h.idx, wLaneArg, partitionKey(c.Keys, h.lane, init[h.idx*recWords+wLaneArg]))
			inputs[j] = partitionInput(op, mt, h.laneArg, inputs[j])
		case h.branch != 0 && hasLaneArg(op):
			set(h.idx, wLaneArg, args[j])
		}
	}
	nw := rt.N * wordsPer(rt.Scalar)
	// The sentinel stays where no store belongs (checkSentinels).
	for j, h := range wv {
		if h.branch != arms[j] {
			continue
		}
		from := nw
		if arms[j] == 0 {
			from = 0
		}
		for w := from; w < recWords-wOut; w++ {
			set(h.idx, wOut+w, outSentinel)
		}
	}
	for arm := uint32(1); arm <= 2; arm++ {
		lanes, active := armLanes(wv, inputs, arm)
		if active == 0 {
			continue
		}
		want, err := expectedOf(c, op, mt, lanes, count)
		if err != nil {
			return // Check reports it as a problem and compares nothing more
		}
		for j, h := range wv {
			if !lanes[j].Active || want[j].Undefined {
				continue
			}
			rec := got[h.idx*recWords:][:recWords]
			actual := readComps(rec, wOut, rt.Scalar, rt.N)
			ok := !unwritten(rec, rt, want[j]) && want[j].AcceptsAll(rt.Scalar, actual)
			words := make([]uint32, recWords)
			if ok {
				copy(words[wOut:], rec[wOut:])
			} else {
				writeComps(words, wOut, rt.Scalar, want[j].Comps)
			}
			for w := 0; w < nw; w++ {
				set(h.idx, wOut+w, words[wOut+w])
			}
		}
	}
}
