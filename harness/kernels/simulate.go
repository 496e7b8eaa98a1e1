package kernels

import (
	"fmt"

	"waverig/harness/models"
)

// SimLayout says how a simulated device places a workgroup's invocations in waves.
type SimLayout struct {
	WaveSize uint32
	// Seed 0: linear placement (invocation i is lane i%size of wave i/size). Otherwise
	// the invocations are shuffled across the workgroup's waves, lane indices are
	// permuted, and a partial wave gets a random, possibly non-dense, subset of lane
	// indices: a layout that breaks every "lanes are consecutive" assumption while
	// staying legal. Pixel kernels: the order of the quads and of their slots in the
	// waves is shuffled.
	Seed uint64
	// Helpers (pixel kernels): helper lanes take part in wave operations (they always
	// do in quad operations and never write records).
	Helpers bool
	// MirrorY (pixel kernels) draws the picture mirrored in y, as an API does that
	// puts clip-space y the other way up (Vulkan without a flipped viewport).
	MirrorY bool
	// Split (pixel kernels) shades each triangle as two pieces meeting on the
	// diagonal x = y (see simulatePixel): quads on the seam are in two waves.
	Split bool
	// Fault plants one bug in a simulated pixel or vertex kernel (tests of the
	// checker): one of the Fault* constants, or "" for a correct device.
	Fault string
	// Repeats (vertex kernels): where the device shades a vertex more than once
	// (RepeatPadLast, RepeatMidDraw), or "" for once each.
	Repeats string
}

// Simulate runs a kernel on a Go model of a correct device: it writes the records the
// kernel would write, with every operation's result taken from the reference models
// and undefined results filled with garbage. It exists to test the checker and the
// engine without a GPU; it is not an oracle for the models themselves.
func Simulate(k Kernel, l SimLayout) (map[string][]byte, error) {
	size := l.WaveSize
	if size == 0 || size&(size-1) != 0 || size > 128 {
		return nil, fmt.Errorf("kernels: simulated wave size %d is not a power of two in 1..128", size)
	}
	if len(k.Cases) == 0 {
		return simulateLayout(l), nil
	}
	if k.Stage == Pixel {
		return simulatePixel(k, l)
	}
	if k.Stage == Vertex {
		return simulateVertex(k, l)
	}
	if isSum(k) {
		return simulateSum(k)
	}
	init, threads, err := initialRecords(k, "workgroups")
	if err != nil {
		return nil, err
	}
	rec := append([]uint32(nil), init...)
	op := k.Cases[0].Op
	r := &rng{s: l.Seed}
	for g := 0; g < len(init)/(threads*recWords); g++ {
		for _, wave := range place(threads, size, l.Seed, r) {
			// wave[i] = (group index, lane index)
			low := wave[0]
			for _, m := range wave {
				if m[1] < low[1] {
					low = m
				}
			}
			key := uint32(g*threads + low[0])
			hs := make([]hdr, len(wave))
			for j, m := range wave {
				i := g*threads + m[0]
				_, mode, _, ci := unctl(rec[i*recWords+wCtl])
				if ci >= len(k.Cases) {
					return nil, fmt.Errorf("kernels: record %d names case %d", i, ci)
				}
				hs[j] = hdr{idx: i, lane: uint32(m[1]), count: size, gi: m[0], mode: mode, caseIdx: ci, coin: rec[i*recWords+wRnd]}
			}
			arms, args := waveArms(k.Cases[hs[0].caseIdx], hs, threads)
			for j := range hs {
				i, lane, br := hs[j].idx, hs[j].lane, arms[j]
				ci := hs[j].caseIdx
				w := rec[i*recWords:][:recWords]
				w[wFlat], w[wKey], w[wLane], w[wCount], w[wBranch] = uint32(i), key, lane, size, br
				w[wLaneArg] = 0
				if br != 0 {
					w[wLaneArg] = args[j]
				}
				if models.IsPartitioned(op) {
					// Every lane records its partition key (KeysRandom's were pre-written).
					w[wLaneArg] = partitionKey(k.Cases[ci].Keys, lane, init[i*recWords+wLaneArg])
				}
				hs[j].branch, hs[j].laneArg = br, w[wLaneArg]
			}
			c := k.Cases[hs[0].caseIdx]
			mt, err := c.Type.Model()
			if err != nil {
				return nil, err
			}
			rt := models.ResultType(op, mt)
			for arm := uint32(1); arm <= 2; arm++ {
				lanes := make([]models.Lane, len(hs))
				for j, h := range hs {
					lanes[j] = models.Lane{Index: h.lane, Active: h.branch == arm,
						Input: readComps(rec[h.idx*recWords:][:recWords], wIn, mt.Scalar, mt.N), LaneArg: h.laneArg}
					if models.IsPartitioned(op) {
						lanes[j].Input = partitionInput(op, mt, h.laneArg, lanes[j].Input)
					}
				}
				want, err := expectedOf(c, op, mt, lanes, size)
				if err != nil {
					return nil, err
				}
				for j, h := range hs {
					if h.branch != arm {
						continue
					}
					w := rec[h.idx*recWords:][:recWords]
					if want[j].Undefined {
						// Garbage, but stored: the result's words only.
						for o := 0; o < rt.N*wordsPer(rt.Scalar); o++ {
							w[wOut+o] = 0xdeadbeef
						}
						continue
					}
					writeComps(w, wOut, rt.Scalar, want[j].Comps)
				}
			}
		}
	}
	return map[string][]byte{"u0": bytesOf(rec)}, nil
}

// place splits a workgroup into waves of (group index, lane index) pairs.
func place(threads int, size uint32, seed uint64, r *rng) [][][2]int {
	order := make([]int, threads)
	for i := range order {
		order[i] = i
	}
	if seed != 0 {
		for i := len(order) - 1; i > 0; i-- {
			j := r.intn(i + 1)
			order[i], order[j] = order[j], order[i]
		}
	}
	var waves [][][2]int
	for s := 0; s < threads; s += int(size) {
		e := min(s+int(size), threads)
		lanes := make([]int, size)
		for i := range lanes {
			lanes[i] = i
		}
		if seed != 0 {
			for i := len(lanes) - 1; i > 0; i-- {
				j := r.intn(i + 1)
				lanes[i], lanes[j] = lanes[j], lanes[i]
			}
		}
		var w [][2]int
		for j, t := range order[s:e] {
			w = append(w, [2]int{t, lanes[j]})
		}
		waves = append(waves, w)
	}
	return waves
}

// simulateLayout writes the layout kernel's records for a simulated device.
func simulateLayout(l SimLayout) map[string][]byte {
	threads := layoutX * layoutY
	w := make([]uint32, threads*layoutG*lWords)
	r := &rng{s: l.Seed}
	for g := 0; g < layoutG; g++ {
		for _, wave := range place(threads, l.WaveSize, l.Seed, r) {
			low := wave[0]
			for _, m := range wave {
				if m[1] < low[1] {
					low = m
				}
			}
			for _, m := range wave {
				i := g*threads + m[0]
				rec := w[i*lWords:][:lWords]
				rec[lFlat], rec[lKey], rec[lLane], rec[lCount] = uint32(i), uint32(g*threads+low[0]), uint32(m[1]), l.WaveSize
				rec[lDtidX], rec[lDtidY] = uint32(g*layoutX+m[0]%layoutX), uint32(m[0]/layoutX)
				rec[lGi], rec[lGidX] = uint32(m[0]), uint32(g)
			}
		}
	}
	return map[string][]byte{"u0": bytesOf(w)}
}

// initialRecords are the words of a kernel's record buffer (u0) before it
// runs, and the invocations of one workgroup or draw (unit names it in the
// error), which the buffer must hold whole.
func initialRecords(k Kernel, unit string) ([]uint32, int, error) {
	var data []byte
	for _, b := range k.Buffers {
		if b.Register == "u0" {
			data = b.Data
		}
	}
	init, _, err := kernelWords(k, map[string][]byte{"u0": data})
	if err != nil {
		return nil, 0, err
	}
	threads := k.Cases[0].Shape.Threads()
	if threads <= 0 || len(init)%(threads*recWords) != 0 {
		return nil, 0, fmt.Errorf("kernels: %s: buffer is not whole %s", k.Name, unit)
	}
	return init, threads, nil
}
