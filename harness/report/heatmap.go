package report

// The per-lane heatmap of a failing record: one row per wave that has a failing
// lane, one column per lane, so that a driver engineer sees at a glance whether
// a bug hits one lane, a quad, the top half of every wave or only the lanes of
// a partial wave. It is drawn with the standard image packages only: the HTML
// report embeds it as a data URI, and a desktop viewer draws the same image.

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"sort"
	"strings"
	"sync"

	"waverig/harness/results"
)

// The heatmap's geometry: each lane is a HeatmapCell-pixel square, with
// HeatmapGap pixels of HeatGap between lanes, between waves and around the
// edge. Lane l of row w covers x in [gap+l*(cell+gap), +cell) and the same for y.
const (
	HeatmapCell = 12
	HeatmapGap  = 1
	// heatmapMaxLanes bounds the image of a corrupt record (a lane index of
	// 4 billion): no wave is wider than this on any device waverig knows.
	heatmapMaxLanes = 256
	// heatmapMaxWaves bounds its height: the rig records at most 64 failing
	// lanes a case, so only a hand-made record reaches it (the first waves,
	// by key, are drawn).
	heatmapMaxWaves = 256
)

// The heatmap's colours. A lane the record lists as failing is HeatFail; a lane
// of the wave's active mask that is not listed passed (HeatPass); a lane outside
// the mask did not take part (HeatInactive). HeatUnknown is a lane of a wave
// whose mask the record does not give as hex ("-" on checks that have none).
var (
	HeatFail     = color.RGBA{0xd7, 0x26, 0x1e, 0xff}
	HeatPass     = color.RGBA{0x3c, 0xa0, 0x4a, 0xff}
	HeatInactive = color.RGBA{0x44, 0x44, 0x44, 0xff}
	HeatUnknown  = color.RGBA{0xb0, 0xb0, 0xb0, 0xff}
	HeatGap      = color.RGBA{0xff, 0xff, 0xff, 0xff}
)

// HeatmapLayout says what Heatmap draws for a record: the wave keys of its
// rows, top to bottom (ascending, at most heatmapMaxWaves), and the number of lane columns (the wave
// size, or more when a failing lane or a mask bit lies beyond it). A viewer maps
// a pixel back to (wave, lane) with it.
func HeatmapLayout(r results.Record) (waves []uint32, lanes int) {
	seen := map[uint32]bool{}
	lanes = int(r.WaveSize)
	for _, f := range r.Failures {
		if !seen[f.WaveKey] {
			seen[f.WaveKey] = true
			waves = append(waves, f.WaveKey)
		}
		if n := int(f.Lane) + 1; n > lanes {
			lanes = n
		}
		if bits, ok := parseMask(f.ActiveMask); ok && len(bits) > lanes {
			lanes = len(bits)
		}
	}
	sort.Slice(waves, func(i, j int) bool { return waves[i] < waves[j] })
	if len(waves) > heatmapMaxWaves {
		waves = waves[:heatmapMaxWaves]
	}
	if lanes > heatmapMaxLanes {
		lanes = heatmapMaxLanes
	}
	return waves, lanes
}

// laneColor is the colour of one lane of a heatmap row, from the failures of
// its wave: listed → HeatFail; else in a parsed mask → HeatPass; else, if
// some mask of the wave was parsed, HeatInactive; else HeatUnknown.
func laneColor(lane int, failing map[int]bool, active []bool, known bool) color.RGBA {
	switch {
	case failing[lane]:
		return HeatFail
	case !known:
		return HeatUnknown
	case lane < len(active) && active[lane]:
		return HeatPass
	}
	return HeatInactive
}

// Heatmap draws a record's failing lanes (see HeatmapLayout and the Heat
// colours), or returns nil when the record lists none. A wave whose failures
// name different masks (lanes failing in two arms of a branch) takes the union
// of them: a lane active in any arm took part.
func Heatmap(r results.Record) image.Image {
	if len(r.Failures) == 0 {
		return nil
	}
	waves, lanes := HeatmapLayout(r)
	row := make(map[uint32]int, len(waves))
	for i, w := range waves {
		row[w] = i
	}
	failing := make([]map[int]bool, len(waves))
	active := make([][]bool, len(waves))
	known := make([]bool, len(waves))
	for i := range waves {
		failing[i] = map[int]bool{}
	}
	for _, f := range r.Failures {
		i, drawn := row[f.WaveKey]
		if !drawn {
			continue
		}
		failing[i][int(f.Lane)] = true
		bits, ok := parseMask(f.ActiveMask)
		if !ok {
			continue
		}
		known[i] = true
		if len(bits) > len(active[i]) {
			grown := make([]bool, len(bits))
			copy(grown, active[i])
			active[i] = grown
		}
		for l, on := range bits {
			active[i][l] = active[i][l] || on
		}
	}
	const step = HeatmapCell + HeatmapGap
	img := image.NewRGBA(image.Rect(0, 0, HeatmapGap+lanes*step, HeatmapGap+len(waves)*step))
	fill(img, img.Bounds(), HeatGap)
	for i := range waves {
		for l := 0; l < lanes; l++ {
			x, y := HeatmapGap+l*step, HeatmapGap+i*step
			fill(img, image.Rect(x, y, x+HeatmapCell, y+HeatmapCell), laneColor(l, failing[i], active[i], known[i]))
		}
	}
	return img
}

func fill(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			img.SetRGBA(x, y, c)
		}
	}
}

// parseMask reads an active mask as the kernels write it ("0x" and hex digits,
// bit i = lane i, any width) into one bool per lane up to its highest set bit
// (at most heatmapMaxLanes). ok is false for anything else ("-", "").
func parseMask(s string) (bits []bool, ok bool) {
	h, found := strings.CutPrefix(strings.ToLower(s), "0x")
	if !found || h == "" {
		return nil, false
	}
	for i := 0; i < len(h); i++ {
		d := hexDigit(h[len(h)-1-i])
		if d < 0 {
			return nil, false
		}
		for b := 0; b < 4; b++ {
			lane := 4*i + b
			if d&(1<<b) == 0 || lane >= heatmapMaxLanes {
				continue
			}
			for len(bits) <= lane {
				bits = append(bits, false)
			}
			bits[lane] = true
		}
	}
	return bits, true
}

func hexDigit(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	}
	return -1
}

// EncodePNG encodes an image (a Heatmap) as PNG, best speed: heatmaps are a
// few flat colours and compress well at any level. The encoders' buffers (the
// deflate state is most of an encoding's cost for an image this small) are
// shared between calls: a report encodes up to 200 heatmaps.
func EncodePNG(img image.Image) ([]byte, error) {
	var b bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed, BufferPool: pngBuffers}
	if err := enc.Encode(&b, img); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// pngBuffers is a png.EncoderBufferPool on a sync.Pool (safe for concurrent use).
var pngBuffers = &pngPool{}

type pngPool struct{ p sync.Pool }

func (p *pngPool) Get() *png.EncoderBuffer {
	b, _ := p.p.Get().(*png.EncoderBuffer)
	return b
}

func (p *pngPool) Put(b *png.EncoderBuffer) { p.p.Put(b) }
