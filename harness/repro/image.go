package repro

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/png"
	"math"

	"waverig/harness/kernels"
)

// colorPNG turns a pixel kernel's colour target (Width×Height RGBA32 texels,
// uint or float, row-major as the runners read it back) into a PNG a person
// can look at: float channels clamped to [0, 1]; uint channels (the kernels
// write ids and results there) scaled by each channel's largest value, so the
// picture shows the structure — which pixels were covered, how waves and quads
// fall — whatever the magnitudes. Alpha is opaque. nil when the data does not
// fit the size.
func colorPNG(data []byte, d *kernels.Draw) []byte {
	w, h := int(d.Width), int(d.Height)
	if w <= 0 || h <= 0 || len(data) < w*h*16 {
		return nil
	}
	word := func(i int) uint32 { return binary.LittleEndian.Uint32(data[4*i:]) }
	var maxv [3]uint32
	if !d.FloatColor {
		for p := 0; p < w*h; p++ {
			for c := 0; c < 3; c++ {
				maxv[c] = max(maxv[c], word(4*p+c))
			}
		}
	}
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			p := y*w + x
			var rgb [3]uint8
			for c := 0; c < 3; c++ {
				v := word(4*p + c)
				if d.FloatColor {
					f := float64(math.Float32frombits(v))
					if math.IsNaN(f) {
						f = 0
					}
					rgb[c] = uint8(math.Round(255 * min(max(f, 0), 1)))
				} else if maxv[c] > 0 {
					rgb[c] = uint8(uint64(v) * 255 / uint64(maxv[c]))
				}
			}
			img.SetNRGBA(x, y, color.NRGBA{rgb[0], rgb[1], rgb[2], 255})
		}
	}
	var b bytes.Buffer
	if png.Encode(&b, img) != nil {
		return nil
	}
	return b.Bytes()
}
