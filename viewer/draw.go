package viewer

import (
	"image"
	"image/color"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// The viewer's text is basicfont's 7×13 bitmap face: no font files to find at
// run time, pixel-exact everywhere (the screenshot test depends on that), and
// ASCII only, so labels avoid arrows and dashes.
const (
	charW  = 7
	lineH  = 13
	ascent = 11 // basicfont.Face7x13's ascent: the baseline sits this far below a line's top
)

// drawText writes s with the top of its line at (x, y), cut at maxW pixels
// (with a trailing "~" when cut).
func drawText(img *image.RGBA, x, y, maxW int, s string, c color.RGBA) {
	if maxW <= 0 {
		return
	}
	if n := maxW / charW; len(s) > n {
		s = clip(s, n)
	}
	d := font.Drawer{Dst: img, Src: image.NewUniform(c), Face: basicfont.Face7x13, Dot: fixed.P(x, y+ascent)}
	d.DrawString(s)
}

// clip cuts s to n characters, the last one a "~" when something was cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	return s[:n-1] + "~"
}

func fillRect(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	r = r.Intersect(img.Rect)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		row := img.Pix[img.PixOffset(r.Min.X, y):img.PixOffset(r.Max.X, y)]
		for i := 0; i < len(row); i += 4 {
			row[i], row[i+1], row[i+2], row[i+3] = c.R, c.G, c.B, c.A
		}
	}
}

// outline draws a one-pixel frame just inside r.
func outline(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	if r.Empty() {
		return
	}
	fillRect(img, image.Rect(r.Min.X, r.Min.Y, r.Max.X, r.Min.Y+1), c)
	fillRect(img, image.Rect(r.Min.X, r.Max.Y-1, r.Max.X, r.Max.Y), c)
	fillRect(img, image.Rect(r.Min.X, r.Min.Y, r.Min.X+1, r.Max.Y), c)
	fillRect(img, image.Rect(r.Max.X-1, r.Min.Y, r.Max.X, r.Max.Y), c)
}

// blitScaled draws src into the box at (x, y) of at most maxW × maxH pixels,
// scaled by nearest neighbour: up by a whole factor when it is small (a
// 4-lane heatmap should not be a speck), down when it is too large. It returns
// the rectangle it covered.
func blitScaled(dst *image.RGBA, src image.Image, x, y, maxW, maxH int) image.Rectangle {
	sb := src.Bounds()
	sw, sh := sb.Dx(), sb.Dy()
	if sw == 0 || sh == 0 || maxW <= 0 || maxH <= 0 {
		return image.Rectangle{}
	}
	w, h := sw, sh
	if k := min(maxW/sw, maxH/sh, 8); k > 1 {
		w, h = sw*k, sh*k
	} else if sw > maxW || sh > maxH {
		// Keep the aspect: the tighter of the two limits decides.
		if sw*maxH > sh*maxW {
			w, h = maxW, max(1, sh*maxW/sw)
		} else {
			w, h = max(1, sw*maxH/sh), maxH
		}
	}
	out := image.Rect(x, y, x+w, y+h)
	for dy := 0; dy < h; dy++ {
		sy := sb.Min.Y + dy*sh/h
		for dx := 0; dx < w; dx++ {
			sx := sb.Min.X + dx*sw/w
			// RGBA is alpha-premultiplied: dropping alpha blends a
			// translucent PNG pixel onto black, and the frame stays opaque
			// (the swapchain shows no alpha).
			r, g, b, _ := src.At(sx, sy).RGBA()
			dst.SetRGBA(x+dx, y+dy, color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), 0xff})
		}
	}
	return out
}
