package viewer

import (
	"image"
	"image/color"
	"sort"
	"strconv"
	"strings"

	"waverig/harness/results"
)

// laneHeatmap draws a record's failing lanes: one row per wave with a failing
// lane (by wave key), one column per lane; failing red, active and passing
// green, inactive dark grey, a lane of a wave without a readable mask light
// grey. It stands in for report.Heatmap (harness/report/heatmap.go, being
// written) and goes once that is committed.
func laneHeatmap(r results.Record) image.Image {
	if len(r.Failures) == 0 {
		return nil
	}
	const cell, gap, maxLanes = 12, 1, 256
	lanes := int(r.WaveSize)
	rows := map[uint32]int{}
	var keys []uint32
	for _, f := range r.Failures {
		if _, ok := rows[f.WaveKey]; !ok {
			rows[f.WaveKey] = 0
			keys = append(keys, f.WaveKey)
		}
		lanes = max(lanes, int(f.Lane)+1)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	for i, k := range keys {
		rows[k] = i
	}
	lanes = min(max(lanes, 1), maxLanes)
	type wave struct {
		failing map[int]bool
		active  uint64 // the low 64 lanes: enough for a stand-in
		known   bool
	}
	waves := make([]wave, len(keys))
	for i := range waves {
		waves[i].failing = map[int]bool{}
	}
	for _, f := range r.Failures {
		w := &waves[rows[f.WaveKey]]
		w.failing[int(f.Lane)] = true
		if h, ok := strings.CutPrefix(f.ActiveMask, "0x"); ok {
			if m, err := strconv.ParseUint(h[max(0, len(h)-16):], 16, 64); err == nil {
				w.active |= m
				w.known = true
			}
		}
	}
	img := image.NewRGBA(image.Rect(0, 0, gap+lanes*(cell+gap), gap+len(keys)*(cell+gap)))
	fillRect(img, img.Rect, color.RGBA{0xff, 0xff, 0xff, 0xff})
	for i, w := range waves {
		for l := 0; l < lanes; l++ {
			c := color.RGBA{0x44, 0x44, 0x44, 0xff}
			switch {
			case w.failing[l]:
				c = color.RGBA{0xd7, 0x26, 0x1e, 0xff}
			case !w.known:
				c = color.RGBA{0xb0, 0xb0, 0xb0, 0xff}
			case l < 64 && w.active&(1<<l) != 0:
				c = color.RGBA{0x3c, 0xa0, 0x4a, 0xff}
			}
			x, y := gap+l*(cell+gap), gap+i*(cell+gap)
			fillRect(img, image.Rect(x, y, x+cell, y+cell), c)
		}
	}
	return img
}
