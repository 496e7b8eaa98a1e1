package kernels

import (
	"encoding/binary"
	"fmt"
	"math"

	"waverig/compiler/intrinsics"
	"waverig/harness/models"
)

// The bugs a simulated pixel device can plant (SimLayout.Fault).
const (
	// FaultQuadXReadsY: QuadReadAcrossX returns the vertical neighbour.
	FaultQuadXReadsY = "quad-x-reads-y"
	// FaultHelperQuadZero: a quad operation reading a helper lane returns 0.
	FaultHelperQuadZero = "helper-quad-zero"
	// FaultHelpersSomeLanes: wave operations include helpers on odd lanes only.
	FaultHelpersSomeLanes = "helpers-some-lanes"
	// FaultLaneCount: WaveGetLaneCount counts only the non-helper lanes.
	FaultLaneCount = "lane-count"
)

// simLane is one lane of a simulated pixel wave.
type simLane struct {
	x, y, lane uint32
	helper     bool
	branch     uint32
	laneArg    uint32
}

// simulatePixel draws a pixel kernel on a Go model of a correct device: the scene is
// rasterized with the top-left rule, the covered pixels' quads are packed into waves
// (quad order and slots shuffled when Seed != 0), lane = slot*4 + quad position, the
// uncovered quad members are helper lanes (in wave operations and the native quad
// votes only when l.Helpers: a device that honours [WaveOpsIncludeHelperLanes] is
// one with Helpers set),
// covered pixels write their records, and the last draw's colour is kept.
func simulatePixel(k Kernel, l SimLayout) (map[string][]byte, error) {
	size := l.WaveSize
	if size < 4 {
		return nil, fmt.Errorf("kernels: a pixel wave of %d lanes cannot hold a quad", size)
	}
	if k.Draw == nil || k.Cases[0].Shape.Scene == nil {
		return nil, fmt.Errorf("kernels: %s: no draw", k.Name)
	}
	sc := *k.Cases[0].Shape.Scene
	draw := sc
	if l.MirrorY {
		draw = sc.mirrored()
	}
	cov := draw.Rasterize()
	pw, ph := sc.Padded()
	lay := pixelLayout{w: sc.Width, h: sc.Height, pw: pw, ph: ph, draws: int(k.Draw.Draws)}
	color := make([]byte, sc.Width*sc.Height*16)
	if colorModelled(k.Cases[0]) {
		if len(k.Textures) != 1 {
			return nil, fmt.Errorf("kernels: %s: PSSlope without its height texture", k.Name)
		}
		for y := uint32(0); y < sc.Height; y++ {
			for x := uint32(0); x < sc.Width; x++ {
				if !cov[y*sc.Width+x] {
					continue
				}
				want, _ := colorPixel(k.Cases[0], k.Textures[0], x, y, l.MirrorY, sc.Height)
				for c, v := range want {
					binary.LittleEndian.PutUint32(color[(int(y*sc.Width+x)*4+c)*4:], math.Float32bits(float32(v)))
				}
			}
		}
		return map[string][]byte{ColorTarget: color}, nil
	}
	var in []uint32
	for _, b := range k.Buffers {
		if b.Register == "t0" {
			in, _ = words(b.Data)
		}
	}
	if len(in) != lay.draws*int(pw*ph)*tWords {
		return nil, fmt.Errorf("kernels: %s: t0 has %d words", k.Name, len(in))
	}
	rec := newPixelRecords(lay.draws * int(sc.Width*sc.Height))
	covered := func(x, y uint32) bool { return x < sc.Width && y < sc.Height && cov[y*sc.Width+x] }
	// Each piece of the triangle is shaded on its own; with Split the triangle is
	// drawn as two pieces meeting on the diagonal x = y, as a rasterizer does that
	// clips a triangle to the viewport and draws the polygon as a fan: a quad on the
	// seam is shaded once per piece, with the other piece's pixels as helpers.
	pieces := []func(x, y uint32) bool{covered}
	if l.Split {
		pieces = []func(x, y uint32) bool{
			func(x, y uint32) bool { return covered(x, y) && x >= y },
			func(x, y uint32) bool { return covered(x, y) && x < y },
		}
	}
	r := &rng{s: l.Seed}
	perWave := int(size / 4)
	for _, piece := range pieces {
		var quads [][2]uint32
		for qy := uint32(0); qy < ph/2; qy++ {
			for qx := uint32(0); qx < pw/2; qx++ {
				if piece(2*qx, 2*qy) || piece(2*qx+1, 2*qy) || piece(2*qx, 2*qy+1) || piece(2*qx+1, 2*qy+1) {
					quads = append(quads, [2]uint32{qx, qy})
				}
			}
		}
		for d := 0; d < lay.draws; d++ {
			block := func(x, y uint32) []uint32 { return in[lay.padded(d, x, y)*tWords:][:tWords] }
			order := append([][2]uint32(nil), quads...)
			if l.Seed != 0 {
				for i := len(order) - 1; i > 0; i-- {
					j := r.intn(i + 1)
					order[i], order[j] = order[j], order[i]
				}
			}
			for s := 0; s < len(order); s += perWave {
				slots := make([]int, perWave)
				for i := range slots {
					slots[i] = i
				}
				if l.Seed != 0 {
					for i := len(slots) - 1; i > 0; i-- {
						j := r.intn(i + 1)
						slots[i], slots[j] = slots[j], slots[i]
					}
				}
				var wave []simLane
				for j, q := range order[s:min(s+perWave, len(order))] {
					for p := uint32(0); p < 4; p++ {
						x, y := 2*q[0]+p&1, 2*q[1]+p>>1
						wave = append(wave, simLane{x: x, y: y, lane: uint32(slots[j])*4 + models.QuadIndex(x, y), helper: !piece(x, y)})
					}
				}
				if err := simPixelWave(k, l, lay, d, wave, block, rec); err != nil {
					return nil, err
				}
			}
		}
	}
	last := lay.draws - 1
	// The colour is (flat, draw, o0, o1): an operation kernel's o words are its
	// result's words where the pixel ran the operation, else 0.
	_, _, _, lci := unctl(in[lay.padded(last, 0, 0)*tWords+tCtl])
	lc := k.Cases[min(lci, len(k.Cases)-1)]
	nw := recWords - wOut
	if lc.Name != helperName {
		if mt, err := lc.Type.Model(); err == nil {
			rt := models.ResultType(lc.Op, mt)
			nw = rt.N * wordsPer(rt.Scalar)
		}
	}
	o := func(w []uint32, j int) uint32 {
		if lc.Name != helperName && (w[wBranch] == 0 || j >= nw) {
			return 0
		}
		return w[wOut+j]
	}
	for y := uint32(0); y < sc.Height; y++ {
		for x := uint32(0); x < sc.Width; x++ {
			if !cov[y*sc.Width+x] {
				continue
			}
			w := rec[lay.flat(last, x, y)*recWords:][:recWords]
			for c, v := range []uint32{w[wFlat], uint32(last), o(w, 0), o(w, 1)} {
				binary.LittleEndian.PutUint32(color[(int(y*sc.Width+x)*4+c)*4:], v)
			}
		}
	}
	return map[string][]byte{"u0": bytesOf(rec), ColorTarget: color}, nil
}

// simPixelWave writes the records of one simulated wave.
func simPixelWave(k Kernel, l SimLayout, lay pixelLayout, d int, wave []simLane, block func(x, y uint32) []uint32, rec []uint32) error {
	size := l.WaveSize
	low := -1
	for i, m := range wave {
		if (!m.helper || l.Helpers) && (low < 0 || m.lane < wave[low].lane) {
			low = i
		}
	}
	key := uint32(lay.padded(d, wave[low].x, wave[low].y))
	var key2 uint32
	for _, m := range wave {
		if !m.helper || l.Helpers {
			key2 += uint32(lay.padded(d, m.x, m.y)) * (m.lane + 1)
		}
	}
	_, mode, _, ci := unctl(block(0, 0)[tCtl])
	if ci >= len(k.Cases) {
		return fmt.Errorf("kernels: draw %d names case %d", d, ci)
	}
	c := k.Cases[ci]
	nHelpers := 0
	for _, m := range wave {
		if m.helper {
			nHelpers++
		}
	}
	recOf := func(m simLane) []uint32 { return rec[lay.flat(d, m.x, m.y)*recWords:][:recWords] }
	for i := range wave {
		m := &wave[i]
		if c.Name != helperName {
			m.branch = pixelArm(c, mode, m.lane, size, m.x, m.y, func(x, y uint32) uint32 { return block(x, y)[tCoin] })
			if m.branch != 0 {
				m.laneArg = laneArgOf(c.Op, mode, m.lane, size)
			}
		} else {
			m.branch = 1
		}
		if m.helper {
			continue
		}
		w := recOf(*m)
		w[wFlat], w[wKey], w[wLane], w[wCount] = uint32(lay.flat(d, m.x, m.y)), key, m.lane, size
		w[wBranch], w[wLaneArg], w[pPos], w[pRep], w[pHelper] = m.branch, m.laneArg, m.x|m.y<<16, uint32(d), 0
		w[pKey2] = key2
		if c.Name == helperName {
			// Every covered pixel stores all eight output words (o0..o7).
			for o := wOut; o < recWords; o++ {
				w[o] = 0
			}
		}
	}
	if c.Name == helperName {
		isHelper := map[[2]uint32]bool{}
		for _, m := range wave {
			isHelper[[2]uint32{m.x, m.y}] = m.helper
		}
		for _, m := range wave {
			if m.helper {
				continue
			}
			w := recOf(m)
			for dd := 0; dd < 3; dd++ {
				n := [2]uint32{m.x ^ uint32((dd+1)&1), m.y ^ uint32((dd+1)>>1)}
				if isHelper[n] {
					w[wOut+dd] = 1
				}
			}
		}
		return nil
	}
	op := c.Op
	mt, err := c.Type.Model()
	if err != nil {
		return err
	}
	rt := models.ResultType(op, mt)
	quad := models.IsQuadOp(op)
	// Quad reads and swaps read helpers whatever l.Helpers says; wave operations
	// and the native quad votes count them only when the device includes them.
	fixed := helpersFixed(c)
	modelOp := op
	if l.Fault == FaultQuadXReadsY && op == intrinsics.QuadReadAcrossX {
		modelOp = intrinsics.QuadReadAcrossY
	}
	for arm := uint32(1); arm <= 2; arm++ {
		expect := func(withHelpers bool) ([]models.Value, error) {
			lanes := make([]models.Lane, len(wave))
			for i, m := range wave {
				in := readComps(block(m.x, m.y), tIn, mt.Scalar, mt.N)
				if m.helper && l.Fault == FaultHelperQuadZero && quad {
					in = make([]uint64, mt.N)
				}
				lanes[i] = models.Lane{Index: m.lane, Input: in, LaneArg: m.laneArg,
					Active: m.branch == arm && (!m.helper || withHelpers || fixed)}
			}
			return expectedOf(c, modelOp, mt, lanes, size)
		}
		want, err := expect(l.Helpers)
		if err != nil {
			return err
		}
		other, err := expect(!l.Helpers)
		if err != nil {
			return err
		}
		for i, m := range wave {
			if m.helper || m.branch != arm {
				continue
			}
			v := want[i]
			if l.Fault == FaultHelpersSomeLanes && m.lane&1 == 1 {
				v = other[i]
			}
			w := recOf(m)
			if v.Undefined {
				// Garbage, but stored: the result's words only.
				for o := 0; o < rt.N*wordsPer(rt.Scalar); o++ {
					w[wOut+o] = 0xdeadbeef
				}
				continue
			}
			comps := v.Comps
			if l.Fault == FaultLaneCount && op == intrinsics.WaveGetLaneCount {
				comps = []uint64{uint64(size) - uint64(nHelpers)}
			}
			writeComps(w, wOut, rt.Scalar, comps)
		}
	}
	return nil
}
