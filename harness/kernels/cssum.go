package kernels

import (
	"fmt"

	"waverig/compiler/intrinsics"
	"waverig/harness/results"
)

// The seed's CSSum (fixtures/Waves.hlsl) as a compute kernel of the matrix:
// sumGroups workgroups of 64 threads read one value each from Values (t0), each
// wave adds its WaveActiveSum into Total's first word (u1) from its first lane,
// and the check is that word against the sum of Values modulo 2^32, at every
// wave size the pass runs. The kernel writes no records: how the threads fall
// into waves does not change the total, which is the point of the program.
const (
	sumName      = "CSSum"
	sumGroups    = 5
	sumThreads   = 64
	sumValuesReg = "t0"
	sumTotalReg  = "u1"
	// sumStart is Total's first word before the dispatch (the check expects
	// sumStart + Σ Values), so a kernel that stored instead of adding, or added
	// into a buffer the rig had zeroed, shows; sumGuard fills Total's other
	// words, which must come back as they went.
	sumStart   = 0x5eed0000
	sumGuard   = 0xcafef00d
	totalWords = 4
)

// sumShape is CSSum's dispatch: a grid of whole 64-thread groups.
var sumShape = Shape{Name: fmt.Sprintf("grid%dx%d", sumGroups, sumThreads), NumThreads: [3]int{sumThreads, 1, 1}, Groups: [3]int{sumGroups, 1, 1}}

// sumValues is Values: a Weyl sequence of 32-bit words, so the sum wraps past
// 2^32 many times and every bit of every value matters.
func sumValues() []uint32 {
	v := make([]uint32, sumGroups*sumThreads)
	for i := range v {
		v[i] = 0x9e3779b9 * uint32(i+1)
	}
	return v
}

// seedComputeKernels is the seed's CSSum, from the fixture's source as it is.
func seedComputeKernels(f Filter) []Kernel {
	c := Case{Name: sumName, Op: intrinsics.WaveActiveSum, Type: Type{"uint", 1}, Pattern: All, Shape: sumShape}
	if !f.keep(c) || !f.wantsKernel("CSSum_seed_"+sumShape.Name) {
		return nil
	}
	total := make([]uint32, totalWords)
	total[0] = sumStart
	for i := 1; i < totalWords; i++ {
		total[i] = sumGuard
	}
	return []Kernel{{
		Name: "CSSum_seed_" + sumShape.Name, Entry: sumName, HLSL: wavesHLSL, Cases: []Case{c},
		Buffers: []Buffer{{Register: sumValuesReg, Data: bytesOf(sumValues())}, {Register: sumTotalReg, Data: bytesOf(total)}},
		Groups:  [3]uint32{sumGroups, 1, 1},
	}}
}

// isSum says whether k is the CSSum kernel (which has no records).
func isSum(k Kernel) bool { return len(k.Cases) > 0 && k.Cases[0].Name == sumName }

// sumExpected is Total as a correct device leaves it.
func sumExpected(k Kernel) ([]uint32, error) {
	var vals, total []uint32
	var err error
	for _, b := range k.Buffers {
		switch b.Register {
		case sumValuesReg:
			vals, err = words(b.Data)
		case sumTotalReg:
			total, err = words(b.Data)
		}
		if err != nil {
			return nil, err
		}
	}
	if len(vals) != sumGroups*sumThreads || len(total) != totalWords {
		return nil, fmt.Errorf("kernel %s: Values of %d words, Total of %d (expected %d and %d)", k.Name, len(vals), len(total), sumGroups*sumThreads, totalWords)
	}
	want := append([]uint32(nil), total...)
	for _, v := range vals {
		want[0] += v // modulo 2^32, as the atomic add and WaveActiveSum wrap
	}
	return want, nil
}

// checkSum is Check for CSSum: Total's first word is sumStart plus the sum of
// Values, the others are as they went in.
func checkSum(k Kernel, out map[string][]byte, res []CaseResult, st *caseState) []CaseResult {
	st.noWaves = true
	want, err := sumExpected(k)
	if err == nil {
		var got []uint32
		if got, err = words(out[sumTotalReg]); err == nil && len(got) != len(want) {
			err = fmt.Errorf("Total came back with %d words, expected %d", len(got), len(want))
		}
		for i := range want {
			if err != nil {
				break
			}
			st.res.Lanes++
			if got[i] != want[i] {
				what := fmt.Sprintf("Total word %d (untouched)", i)
				if i == 0 {
					what = fmt.Sprintf("Total word 0: %#x + the sum of %d Values", uint32(sumStart), sumGroups*sumThreads)
				}
				st.fail(results.LaneFailure{ActiveMask: "-", Input: what, Expected: fmt.Sprintf("%#x", want[i]), Actual: fmt.Sprintf("%#x", got[i])})
			}
		}
	}
	if err != nil {
		st.problem(err.Error())
	}
	st.extra = append(st.extra, fmt.Sprintf("Total = %#x + Σ Values (mod 2^32) over %d groups of %d", uint32(sumStart), sumGroups, sumThreads))
	return finishNotes(res, []*caseState{st})
}

// simulateSum is Simulate for CSSum: a correct device's Values and Total.
func simulateSum(k Kernel) (map[string][]byte, error) {
	want, err := sumExpected(k)
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{sumTotalReg: bytesOf(want)}
	for _, b := range k.Buffers {
		if b.Register == sumValuesReg {
			out[sumValuesReg] = append([]byte(nil), b.Data...)
		}
	}
	return out, nil
}

// compareSum is Compare for CSSum: the two sides' Total words.
func compareSum(k Kernel, apiA string, outA map[string][]byte, apiB string, outB map[string][]byte) ([]Parity, error) {
	a, errA := words(outA[sumTotalReg])
	b, errB := words(outB[sumTotalReg])
	if errA != nil || errB != nil || len(a) != len(b) || len(a) == 0 {
		return nil, fmt.Errorf("Total: %d and %d bytes (%v, %v)", len(outA[sumTotalReg]), len(outB[sumTotalReg]), errA, errB)
	}
	p := Parity{Case: k.Cases[0]}
	for i := range a {
		p.Compared++
		if a[i] == b[i] {
			continue
		}
		p.Differing++
		if len(p.Lanes) < MaxFailures {
			p.Lanes = append(p.Lanes, results.ParityLane{Flat: uint32(i), Input: fmt.Sprintf("Total word %d", i),
				Values: map[string]string{apiA: fmt.Sprintf("%#x", a[i]), apiB: fmt.Sprintf("%#x", b[i])}})
		}
	}
	return []Parity{p}, nil
}
