package viewer

import (
	"fmt"
	"image"
	"image/color"
	"strings"

	"waverig/harness/report"
	"waverig/harness/results"
)

// The palette. A cell shows its records' worst verdict; the heatmap has its
// own colours (rows = waves, columns = lanes).
var (
	ColorPass       = color.RGBA{0x3c, 0xa0, 0x4a, 0xff} // green
	ColorKnown      = color.RGBA{0x6f, 0x86, 0xa3, 0xff} // grey-blue: an expectation names it
	ColorFlake      = color.RGBA{0xf0, 0xa2, 0x1b, 0xff} // amber: flake, and cross-API differs
	ColorImproved   = color.RGBA{0x9b, 0x59, 0xd0, 0xff} // purple: better than the baseline says
	ColorUnexpected = color.RGBA{0xd7, 0x26, 0x1e, 0xff} // red: fails the run
	ColorSkip       = color.RGBA{0xc8, 0xc8, 0xc8, 0xff} // light grey
	ColorEmpty      = color.RGBA{0x2c, 0x2f, 0x38, 0xff} // nothing ran in this cell
	ColorBackground = color.RGBA{0x1c, 0x1e, 0x24, 0xff}
	ColorText       = color.RGBA{0xe6, 0xe6, 0xe6, 0xff}
	ColorDim        = color.RGBA{0x9a, 0x9e, 0xa8, 0xff}
	ColorSelect     = color.RGBA{0xff, 0xff, 0xff, 0xff}
)

// VerdictColor is a grid cell's colour for its worst verdict.
func VerdictColor(v results.Verdict) color.RGBA {
	switch v {
	case results.VerdictPass:
		return ColorPass
	case results.VerdictKnown:
		return ColorKnown
	case results.VerdictFlake, results.VerdictDiffers:
		return ColorFlake
	case results.VerdictImproved:
		return ColorImproved
	case results.VerdictSkip, results.VerdictVacuous:
		return ColorSkip
	}
	return ColorUnexpected
}

// The frame's geometry, in pixels.
const (
	margin    = 6
	headerY   = 4
	legendY   = headerY + lineH + 4
	colHeadY  = legendY + lineH + 8 // the three lines of column labels start here
	gridY     = colHeadY + 3*lineH + 3
	rowMax    = 14 // a row with a label: 13-pixel text and a 1-pixel gap
	rowMin    = 2
	colMax    = 3*charW + 3
	colMin    = 3
	labelMax  = 24 // characters of an operation's name before it is cut
	panelGap  = 16
	panelMinW = 40 * charW // below this the grid gives up width to the panel
)

// Frame is one picture of the window and what is needed to map a click on it
// back to the grid.
type Frame struct {
	Image *image.RGBA
	// Sel is the selection drawn (an index into Run.Failing, -1 for none).
	Sel int
	// Grid is the cell area: cell (op, col) is at Grid.Min + (col*ColW,
	// op*RowH), ColW-1 × RowH-1 pixels (the last pixel of each is the gap).
	Grid       image.Rectangle
	ColW, RowH int
	// Rows is how many operations fit; the rest are cut off (and said so).
	Rows int
	// Heatmap is where the selected case's lane heatmap was drawn (empty if
	// none); Images where its bundle's pictures were.
	Heatmap image.Rectangle
	Images  []image.Rectangle
}

// CellRect is the rectangle of a grid cell (empty for one cut off).
func (f *Frame) CellRect(op, col int) image.Rectangle {
	if op < 0 || op >= f.Rows || col < 0 || f.ColW == 0 {
		return image.Rectangle{}
	}
	x, y := f.Grid.Min.X+col*f.ColW, f.Grid.Min.Y+op*f.RowH
	r := image.Rect(x, y, x+f.ColW-1, y+f.RowH-1)
	if !r.In(f.Grid) {
		return image.Rectangle{}
	}
	return r
}

// CellAt is the grid cell under a point (a click), including its gap pixels.
func (f *Frame) CellAt(x, y int) (op, col int, ok bool) {
	if f.ColW == 0 || f.RowH == 0 || !image.Pt(x, y).In(f.Grid) {
		return 0, 0, false
	}
	op, col = (y-f.Grid.Min.Y)/f.RowH, (x-f.Grid.Min.X)/f.ColW
	return op, col, op < f.Rows
}

// Frame draws the window's picture at w × h with selection sel: header and
// legend, the grid, the selected case (its text, lane heatmap and bundle
// images) and a line of keys. The same inputs give the same pixels.
func (r *Run) Frame(w, h, sel int) *Frame {
	w, h = max(w, 1), max(h, 1)
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	fillRect(img, img.Rect, ColorBackground)
	if _, ok := r.Selected(sel); !ok {
		sel = -1
	}
	f := &Frame{Image: img, Sel: sel}

	r.drawHeader(img, w)
	footY := h - margin - lineH
	drawText(img, margin, footY, w-2*margin, "<- ->: case   up/down: cell   click a cell: its first failing case   q/Esc: close", ColorDim)

	gridRight := r.drawGrid(f, w, footY-margin)
	px := gridRight + panelGap
	if len(r.Cols) == 0 {
		px = margin
	}
	r.drawPanel(f, image.Rect(px, colHeadY, w-margin, footY-margin))
	return f
}

func (r *Run) drawHeader(img *image.RGBA, w int) {
	unexpected := 0
	for _, i := range r.Failing {
		if r.Records[i].Verdict().Counts() {
			unexpected++
		}
	}
	head := fmt.Sprintf("waverig view %s: %d records, %d not passing, %d failing the run", r.Dir, len(r.Records), len(r.Failing), unexpected)
	if r.Truncated {
		head += " (last line cut off)"
	}
	drawText(img, margin, headerY, w-2*margin, head, ColorText)
	x := margin
	for _, l := range []struct {
		c    color.RGBA
		name string
	}{
		{ColorPass, "pass"}, {ColorKnown, "known"}, {ColorFlake, "flake/differs"}, {ColorImproved, "improved"},
		{ColorUnexpected, "unexpected"}, {ColorSkip, "skip"}, {ColorEmpty, "not run"},
	} {
		fillRect(img, image.Rect(x, legendY+2, x+10, legendY+12), l.c)
		drawText(img, x+14, legendY, w-margin-x-14, l.name, ColorDim)
		x += 14 + len(l.name)*charW + 12
	}
}

// drawGrid draws the column labels, row labels and cells, and returns the
// grid's right edge. bottom is the lowest y it may use.
func (r *Run) drawGrid(f *Frame, w, bottom int) int {
	img := f.Image
	nOps, nCols := len(r.Ops), len(r.Cols)
	if nOps == 0 || nCols == 0 {
		drawText(img, margin, gridY, w-2*margin, "no records in "+r.Dir, ColorText)
		return margin
	}
	rowH := rowMax
	if avail := bottom - gridY; nOps*rowH > avail {
		rowH = max(rowMin, avail/nOps)
	}
	labels := rowH >= lineH
	labelW := 0
	if labels {
		for _, op := range r.Ops {
			labelW = max(labelW, min(len(op), labelMax))
		}
		labelW = labelW*charW + margin
	}
	// The grid takes what the panel leaves, and no more than full-size columns.
	colW := colMax
	if avail := w - 2*margin - labelW - panelGap - panelMinW; nCols*colW > avail {
		colW = max(colMin, avail/max(nCols, 1))
	}
	gx := margin + labelW
	f.ColW, f.RowH = colW, rowH
	f.Rows = min(nOps, max(0, (bottom-gridY)/rowH))
	f.Grid = image.Rect(gx, gridY, gx+nCols*colW, gridY+f.Rows*rowH)

	selRow, selCol := -1, -1
	if _, ok := r.Selected(f.Sel); ok {
		selRow, selCol = r.rowOf[r.Failing[f.Sel]], r.colOf[r.Failing[f.Sel]]
	}
	if colW >= colMax {
		for c, col := range r.Cols {
			tint := ColorDim
			if c == selCol {
				tint = ColorText
			}
			for i, s := range col.Label() {
				drawText(img, gx+c*colW, colHeadY+i*lineH, colW, s, tint)
			}
		}
	}
	for op := 0; op < f.Rows; op++ {
		if labels {
			tint := ColorDim
			if op == selRow {
				tint = ColorText
			}
			drawText(img, margin, gridY+op*rowH, labelW-margin, r.Ops[op], tint)
		}
		for c := 0; c < nCols; c++ {
			v, n := r.Cell(op, c)
			col := ColorEmpty
			if n > 0 {
				col = VerdictColor(v)
			}
			fillRect(img, f.CellRect(op, c), col)
		}
	}
	if f.Rows < nOps {
		drawText(img, margin, f.Grid.Max.Y+2, f.Grid.Max.X-margin, fmt.Sprintf("%d more operations (enlarge the window)", nOps-f.Rows), ColorDim)
	}
	if selRow >= 0 && selRow < f.Rows {
		// Around the cell, in its gap pixels, so even a 2-pixel row shows it.
		c := f.CellRect(selRow, selCol)
		outline(img, image.Rect(c.Min.X-1, c.Min.Y-1, c.Max.X+1, c.Max.Y+1), ColorSelect)
	}
	return f.Grid.Max.X
}

// drawPanel draws the selected case into box: what it is, its lane heatmap
// and, for a pixel case, its bundle's images.
func (r *Run) drawPanel(f *Frame, box image.Rectangle) {
	img := f.Image
	bw := box.Dx()
	if bw <= 0 || box.Dy() <= 0 {
		return
	}
	cols := bw / charW
	y := box.Min.Y
	line := func(s string, c color.RGBA) {
		if y+lineH <= box.Max.Y {
			drawText(img, box.Min.X, y, bw, s, c)
		}
		y += lineH
	}
	lines := func(s string, c color.RGBA, most int) {
		for _, l := range wrap(s, cols, most) {
			line(l, c)
		}
	}
	rec, ok := r.Selected(f.Sel)
	if !ok {
		if len(r.Records) > 0 {
			line("Nothing to select: every case passed or was skipped.", ColorText)
		}
		return
	}
	nrec, nfail := r.CellCounts(f.Sel)
	line(fmt.Sprintf("case %d of %d not passing; its cell: %d of %d records", f.Sel+1, len(r.Failing), nfail, nrec), ColorDim)
	lines(rec.Title(), ColorText, 2)
	v := rec.Verdict()
	line(fmt.Sprintf("%s, %s (%s)", rec.Status, v, rec.RunStatus()), VerdictColor(v))
	dev := rec.Device
	if rec.Driver != "" {
		dev += " (" + rec.Driver + ")"
	}
	if dev != "" {
		lines("on "+dev, ColorDim, 2)
	}
	if h := rec.Headline(); h != "" {
		lines(h, ColorText, 3)
	}
	if rec.Known != "" {
		lines("known: "+rec.Known, ColorDim, 2)
	}
	if rec.Blame != "" {
		lines("blamed on "+rec.Blame, ColorDim, 1)
	}
	y += lineH / 2

	pixel := rec.Stage == results.Pixel
	if hm := report.Heatmap(rec); hm != nil {
		waves, lanes := report.HeatmapLayout(rec)
		lines(fmt.Sprintf("%d wave(s) with a failing lane x %d lanes: red failing, green passing, grey inactive", len(waves), lanes), ColorDim, 2)
		maxH := box.Max.Y - y
		if pixel {
			maxH /= 2 // leave room for the pictures
		}
		f.Heatmap = blitScaled(img, hm, box.Min.X, y, bw, maxH)
		y = f.Heatmap.Max.Y + lineH/2
	} else if len(rec.Failures) == 0 {
		line("no failing lanes recorded", ColorDim)
	}
	if !pixel {
		return
	}
	b := r.images(rec)
	switch {
	case b.Dir == "":
		line("no repro bundle for this kernel", ColorDim)
	case len(b.Images) == 0 && b.Err == nil:
		lines("no images in "+b.Dir, ColorDim, 2)
	}
	if b.Err != nil {
		lines(b.Err.Error(), ColorUnexpected, 2)
	}
	if len(b.Images) == 0 {
		return
	}
	// Side by side, each in an equal share of the width, names above.
	share := (bw - (len(b.Images)-1)*margin) / len(b.Images)
	top := y
	for i, bi := range b.Images {
		x := box.Min.X + i*(share+margin)
		drawText(img, x, top, share, bi.Name, ColorDim)
		f.Images = append(f.Images, blitScaled(img, bi.Image, x, top+lineH+2, share, box.Max.Y-top-lineH-2))
	}
}

// wrap breaks s into lines of at most n characters at spaces where it can,
// keeping at most most lines (the last one cut with "~").
func wrap(s string, n, most int) []string {
	if n <= 0 {
		return nil
	}
	var out []string
	for s != "" && len(out) < most {
		if len(s) <= n {
			out = append(out, s)
			s = ""
			break
		}
		cut := strings.LastIndexByte(s[:n+1], ' ')
		if cut <= 0 {
			cut = n
		}
		out = append(out, strings.TrimRight(s[:cut], " "))
		s = strings.TrimLeft(s[cut:], " ")
	}
	if s != "" && len(out) > 0 {
		out[len(out)-1] = clip(out[len(out)-1]+" "+s, n)
	}
	return out
}
