package kernels

import (
	"fmt"
	"sort"
	"strings"
)

// The layout kernel's record: what every other kernel trusts about the wave layout.
const (
	lFlat   = 0 // gid.x * threads + SV_GroupIndex
	lKey    = 1 // WaveReadLaneFirst(flat) in uniform control flow
	lLane   = 2 // WaveGetLaneIndex()
	lCount  = 3 // WaveGetLaneCount()
	lDtidX  = 4 // SV_DispatchThreadID.x
	lDtidY  = 5 // SV_DispatchThreadID.y
	lGi     = 6 // SV_GroupIndex
	lGidX   = 7 // SV_GroupID.x
	lWords  = 8
	layoutX = 31 // numthreads(31, 2, 1): 2-D, and 62 threads leave a partial last wave
	layoutY = 2
	layoutG = 4
)

// Layout is the layout kernel: every invocation records its flat id, the wave key
// (WaveReadLaneFirst of the flat id), lane index, lane count and its system values.
// Its workgroup (31×2) is 2-D and not a multiple of any wave size above 2.
func Layout() Kernel { return layoutKernel("Layout", layoutX, layoutY) }

// Layout1D is the layout kernel with a 62×1 workgroup, for paths that cannot run
// wave operations in 2-D workgroups: wgpu-native 29's shader translator (naga)
// rejects subgroup_invocation_id when the workgroup size is multi-dimensional.
func Layout1D() Kernel { return layoutKernel("Layout1D", layoutX*layoutY, 1) }

// layoutDims is the workgroup of a layout kernel, from its name.
func layoutDims(k Kernel) (x, y int) {
	if k.Name == "Layout1D" {
		return layoutX * layoutY, 1
	}
	return layoutX, layoutY
}

func layoutKernel(name string, layoutX, layoutY int) Kernel {
	threads := layoutX * layoutY
	src := fmt.Sprintf(`// waverig layout kernel: the wave layout every operation kernel relies on.
// Record of %d uints: flat, key, lane, count, dtid.x, dtid.y, group index, group id.
RWStructuredBuffer<uint> rec : register(u0);

[numthreads(%d, %d, 1)]
void main(uint3 gid : SV_GroupID, uint gi : SV_GroupIndex, uint3 dtid : SV_DispatchThreadID)
{
    uint flat = gid.x * %du + gi;
    uint key = WaveReadLaneFirst(flat);
    uint lane = WaveGetLaneIndex();
    uint cnt = WaveGetLaneCount();
    uint b = flat * %du;
    rec[b + 0u] = flat;
    rec[b + 1u] = key;
    rec[b + 2u] = lane;
    rec[b + 3u] = cnt;
    rec[b + 4u] = dtid.x;
    rec[b + 5u] = dtid.y;
    rec[b + 6u] = gi;
    rec[b + 7u] = gid.x;
}
`, lWords, layoutX, layoutY, threads, lWords)
	// 0xffffffff everywhere: a record the kernel never wrote cannot pass as lane 0.
	data := make([]byte, threads*layoutG*lWords*4)
	for i := range data {
		data[i] = 0xff
	}
	return Kernel{
		Name: name, Entry: "main", HLSL: src,
		Buffers: []Buffer{{Register: "u0", Data: data}},
		Groups:  [3]uint32{layoutG, 1, 1},
	}
}

// LayoutReport is what the layout kernel observed. Problems are violations of what
// the rig relies on (OK is false when there are any); the other fields are
// observations that other kernels must not assume.
type LayoutReport struct {
	OK       bool
	WaveSize uint32 // the lane count every invocation saw
	Waves    int
	Lanes    int
	// PartialWaves have fewer members than the lane count.
	PartialWaves int
	// Consecutive: in every wave, lane i+1 is SV_GroupIndex+1 of lane i.
	Consecutive bool
	// Quads are the lane sets sharing index>>2 within a wave; FullQuads have all four
	// lanes; LinearQuads are full quads whose lanes 0..3 are four consecutive group
	// indices (the common but unspecified compute mapping).
	Quads, FullQuads, LinearQuads int
	Problems                      []string
}

func (r LayoutReport) String() string {
	s := fmt.Sprintf("wave size %d: %d waves (%d partial), %d lanes, consecutive=%v, quads %d (full %d, linear %d)",
		r.WaveSize, r.Waves, r.PartialWaves, r.Lanes, r.Consecutive, r.Quads, r.FullQuads, r.LinearQuads)
	if !r.OK {
		s += "; problems: " + strings.Join(r.Problems, "; ")
	}
	return s
}

// CheckLayout checks the layout kernel's records: system values agree with each other,
// lane indices are unique per key and below the count, the key is the flat id of the
// wave's lowest lane, the count is one power of two everywhere, no wave spans
// workgroups; and it reports what the quads looked like.
func CheckLayout(k Kernel, out map[string][]byte) LayoutReport {
	r := LayoutReport{Consecutive: true}
	add := func(format string, a ...any) {
		if len(r.Problems) < 32 {
			r.Problems = append(r.Problems, fmt.Sprintf(format, a...))
		}
	}
	b, ok := out["u0"]
	if !ok {
		add("no u0 buffer came back")
		return r
	}
	layoutX, layoutY := layoutDims(k)
	w, err := words(b)
	threads := layoutX * layoutY
	if err != nil || len(w) != threads*layoutG*lWords {
		add("u0 has %d bytes, expected %d", len(b), threads*layoutG*lWords*4)
		return r
	}
	n := len(w) / lWords
	hs := make([]hdr, n)
	for i := 0; i < n; i++ {
		rec := w[i*lWords:][:lWords]
		g, gi := i/threads, i%threads
		hs[i] = hdr{idx: i, flat: rec[lFlat], key: rec[lKey], lane: rec[lLane], count: rec[lCount], group: g, gi: gi}
		x, y := gi%layoutX, gi/layoutX
		if rec[lGi] != uint32(gi) || rec[lGidX] != uint32(g) || rec[lDtidX] != uint32(g*layoutX+x) || rec[lDtidY] != uint32(y) {
			add("record %d: group index %d, group %d, dispatch id (%d, %d); expected %d, %d, (%d, %d)",
				i, rec[lGi], rec[lGidX], rec[lDtidX], rec[lDtidY], gi, g, g*layoutX+x, y)
		}
		if i == 0 || hs[i].count != r.WaveSize {
			if i > 0 {
				add("lane counts %d and %d", r.WaveSize, hs[i].count)
			}
			r.WaveSize = hs[i].count
		}
	}
	for _, wv := range groupWaves(hs) {
		r.Waves++
		r.Lanes += len(wv)
		for _, p := range waveProblems(wv, 0) {
			add("%s", p)
		}
		if len(wv) < int(wv[0].count) {
			r.PartialWaves++
		}
		for j := 1; j < len(wv); j++ {
			if wv[j].lane != wv[j-1].lane+1 || wv[j].gi != wv[j-1].gi+1 {
				r.Consecutive = false
			}
		}
		quads := map[uint32][]hdr{}
		var qs []uint32
		for _, h := range wv {
			if _, ok := quads[h.lane>>2]; !ok {
				qs = append(qs, h.lane>>2)
			}
			quads[h.lane>>2] = append(quads[h.lane>>2], h)
		}
		sort.Slice(qs, func(a, b int) bool { return qs[a] < qs[b] })
		for _, q := range qs {
			m := quads[q]
			r.Quads++
			if len(m) == 4 {
				r.FullQuads++
				linear := true
				for j := 1; j < 4; j++ {
					linear = linear && m[j].gi == m[0].gi+j
				}
				if linear {
					r.LinearQuads++
				}
			}
		}
	}
	r.OK = len(r.Problems) == 0
	return r
}
