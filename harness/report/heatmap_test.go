package report

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"testing"

	"waverig/harness/results"
)

// at is the colour at the centre of lane l of row w.
func at(img image.Image, w, l int) color.RGBA {
	const step = HeatmapCell + HeatmapGap
	x := HeatmapGap + l*step + HeatmapCell/2
	y := HeatmapGap + w*step + HeatmapCell/2
	return color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
}

func TestHeatmapColours(t *testing.T) {
	r := results.Record{WaveSize: 8, Failures: []results.LaneFailure{
		// Wave 0x10: lanes 0, 2, 4, 6 active (0x55); 2 fails.
		{WaveKey: 0x10, Lane: 2, ActiveMask: "0x55"},
		// Wave 0x0: two arms (0x3 and 0xc), lane 3 fails; 4..7 inactive.
		{WaveKey: 0x0, Lane: 3, ActiveMask: "0xc"},
		{WaveKey: 0x0, Lane: 1, ActiveMask: "0x3"},
		// Wave 0x20: no mask.
		{WaveKey: 0x20, Lane: 0, ActiveMask: "-"},
	}}
	waves, lanes := HeatmapLayout(r)
	if len(waves) != 3 || waves[0] != 0 || waves[1] != 0x10 || waves[2] != 0x20 || lanes != 8 {
		t.Fatalf("layout: waves %v lanes %d", waves, lanes)
	}
	img := Heatmap(r)
	const step = HeatmapCell + HeatmapGap
	if b := img.Bounds(); b.Dx() != HeatmapGap+8*step || b.Dy() != HeatmapGap+3*step {
		t.Fatalf("bounds %v", b)
	}
	want := []struct {
		w, l int
		c    color.RGBA
	}{
		{0, 0, HeatPass}, {0, 1, HeatFail}, {0, 2, HeatPass}, {0, 3, HeatFail}, {0, 4, HeatInactive}, {0, 7, HeatInactive},
		{1, 0, HeatPass}, {1, 1, HeatInactive}, {1, 2, HeatFail}, {1, 6, HeatPass}, {1, 7, HeatInactive},
		{2, 0, HeatFail}, {2, 1, HeatUnknown},
	}
	for _, c := range want {
		if got := at(img, c.w, c.l); got != c.c {
			t.Errorf("wave row %d lane %d: %v, want %v", c.w, c.l, got, c.c)
		}
	}
	// The gaps are HeatGap: the top-left pixel and the one between lanes 0 and 1.
	if got := color.RGBAModel.Convert(img.At(0, 0)); got != HeatGap {
		t.Errorf("corner %v", got)
	}
	if got := color.RGBAModel.Convert(img.At(HeatmapGap+HeatmapCell, 5)); got != HeatGap {
		t.Errorf("gap %v", got)
	}

	data, err := EncodePNG(img)
	if err != nil {
		t.Fatal(err)
	}
	back, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if got := at(back, 1, 2); got != HeatFail {
		t.Errorf("decoded PNG: %v", got)
	}
}

func TestHeatmapNone(t *testing.T) {
	if img := Heatmap(results.Record{Status: results.Fail, Reason: "crash"}); img != nil {
		t.Fatalf("a record without lanes has a heatmap: %v", img.Bounds())
	}
}

func TestHeatmapWide(t *testing.T) {
	// A lane beyond the wave size (a record of size 0, from an old file) and a
	// 128-bit mask widen the image; an absurd lane is bounded.
	r := results.Record{Failures: []results.LaneFailure{{WaveKey: 1, Lane: 5, ActiveMask: "0x80000000000000000000000000000020"}}}
	if _, lanes := HeatmapLayout(r); lanes != 128 {
		t.Fatalf("lanes %d", lanes)
	}
	img := Heatmap(r)
	if got := at(img, 0, 127); got != HeatPass {
		t.Errorf("lane 127: %v", got)
	}
	if got := at(img, 0, 5); got != HeatFail {
		t.Errorf("lane 5: %v", got)
	}
	if got := at(img, 0, 6); got != HeatInactive {
		t.Errorf("lane 6: %v", got)
	}
	r.Failures[0].Lane = 1 << 31
	if _, lanes := HeatmapLayout(r); lanes != heatmapMaxLanes {
		t.Fatalf("lanes %d", lanes)
	}
}

func TestHeatmapManyWaves(t *testing.T) {
	var r results.Record
	for w := 0; w < heatmapMaxWaves+10; w++ {
		r.Failures = append(r.Failures, results.LaneFailure{WaveKey: uint32(1000 - w), Lane: uint32(w % 4), ActiveMask: "0xf"})
	}
	waves, _ := HeatmapLayout(r)
	if len(waves) != heatmapMaxWaves || waves[0] != 1000-uint32(heatmapMaxWaves+9) {
		t.Fatalf("%d waves from %d", len(waves), waves[0])
	}
	img := Heatmap(r)
	if got := img.Bounds().Dy(); got != HeatmapGap+heatmapMaxWaves*(HeatmapCell+HeatmapGap) {
		t.Fatalf("height %d", got)
	}
	// Row 0 is wave 1000-265 (w = 265, lane 1 failing); nothing of a wave
	// left out lands in it.
	if got := at(img, 0, 1); got != HeatFail {
		t.Errorf("row 0 lane 1: %v", got)
	}
	for _, l := range []int{0, 2, 3} {
		if got := at(img, 0, l); got != HeatPass {
			t.Errorf("row 0 lane %d: %v", l, got)
		}
	}
}
