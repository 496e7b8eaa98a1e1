package viewer

import (
	"bytes"
	"compress/gzip"
	"image"
	"image/color"
	"os"
	"path/filepath"
	"testing"

	"waverig/harness/report"
	"waverig/harness/results"
)

func center(r image.Rectangle) image.Point {
	return image.Pt((r.Min.X+r.Max.X)/2, (r.Min.Y+r.Max.Y)/2)
}

func at(img *image.RGBA, p image.Point) color.RGBA { return img.RGBAAt(p.X, p.Y) }

func TestGridCellsShowTheWorstVerdict(t *testing.T) {
	r := loadFixture(t)
	f := r.Frame(1000, 600, -1)
	for _, c := range []struct {
		op   string
		col  Column
		want color.RGBA
		why  string
	}{
		{plantedOp, plantedCol, ColorUnexpected, "the planted failure, among passes"},
		{plantedOp, Column{results.Vulkan, results.Compute, 4}, ColorPass, "all passed"},
		{"WaveReadLaneFirst", Column{results.Vulkan, results.Compute, 4}, ColorKnown, "a known failure beside a pass"},
		{"WaveActiveSum", Column{results.WebGPU, results.Compute, 0}, ColorFlake, "a parity difference beside a pass"},
		{plantedOp, Column{results.WebGPU, results.Compute, 0}, ColorFlake, "a flake beside a pass"},
		{"WaveReadLaneFirst", plantedCol, ColorImproved, "an improvement beside a pass"},
		{"WaveActiveSum", Column{results.Vulkan, results.Compute, 4}, ColorPass, "a skip does not hide a pass"},
		{"WaveReadLaneFirst", Column{results.Vulkan, results.Vertex, 8}, ColorSkip, "only a skip"},
		{"WaveActiveSum", Column{results.Vulkan, results.Vertex, 8}, ColorEmpty, "nothing ran"},
	} {
		op, col := position(t, r, c.op, c.col)
		cr := f.CellRect(op, col)
		if cr.Empty() {
			t.Fatalf("%s %v: no cell rectangle", c.op, c.col)
		}
		// Every pixel of the cell, not just one: a label or the selection
		// outline drawn over a cell would be a bug.
		for y := cr.Min.Y; y < cr.Max.Y; y++ {
			for x := cr.Min.X; x < cr.Max.X; x++ {
				if got := f.Image.RGBAAt(x, y); got != c.want {
					t.Fatalf("%s %v (%s): pixel (%d,%d) is %v, want %v", c.op, c.col, c.why, x, y, got, c.want)
				}
			}
		}
		if o, cc, ok := f.CellAt(center(cr).X, center(cr).Y); !ok || o != op || cc != col {
			t.Errorf("CellAt(centre of %s %v) = %d,%d,%v, want %d,%d", c.op, c.col, o, cc, ok, op, col)
		}
	}
	if _, _, ok := f.CellAt(0, 0); ok {
		t.Error("CellAt(0,0) found a cell in the header")
	}
}

func TestVerdictPalette(t *testing.T) {
	want := map[results.Verdict]color.RGBA{
		results.VerdictPass: ColorPass, results.VerdictKnown: ColorKnown, results.VerdictFlake: ColorFlake,
		results.VerdictImproved: ColorImproved, results.VerdictUnexpected: ColorUnexpected, results.VerdictSkip: ColorSkip,
		results.VerdictDiffers: ColorFlake,
	}
	seen := map[color.RGBA]results.Verdict{}
	for v, c := range want {
		if got := VerdictColor(v); got != c {
			t.Errorf("VerdictColor(%s) = %v, want %v", v, got, c)
		}
		if v != results.VerdictDiffers {
			if o, dup := seen[c]; dup {
				t.Errorf("%s and %s share a colour", v, o)
			}
			seen[c] = v
		}
	}
}

func TestSelectionWalksFailingCasesWorstFirst(t *testing.T) {
	r := loadFixture(t)
	if len(r.Failing) != 5 {
		t.Fatalf("%d selectable cases, want 5 (planted, improved, flake, known pixel, known)", len(r.Failing))
	}
	first, _ := r.Selected(0)
	if first.Op != plantedOp || first.Verdict() != results.VerdictUnexpected {
		t.Errorf("first selection is %s (%s), want the planted unexpected failure", first.Title(), first.Verdict())
	}
	if second, _ := r.Selected(1); second.Verdict() != results.VerdictImproved {
		t.Errorf("second selection is %s, want the improvement (worse than known)", second.Title())
	}
	if third, _ := r.Selected(2); third.Status != results.Flake {
		t.Errorf("third selection is %s, want the flake (worse than known)", third.Title())
	}
	if got := r.Step(0, -1); got != 4 {
		t.Errorf("Step(0, -1) = %d, want 4 (wraps)", got)
	}
	if got := r.Step(4, 1); got != 0 {
		t.Errorf("Step(4, 1) = %d, want 0 (wraps)", got)
	}
	if got := r.Step(-1, 1); got != 0 {
		t.Errorf("Step(-1, 1) = %d, want 0", got)
	}
	op, col := position(t, r, plantedOp, plantedCol)
	if got := r.InCell(op, col); got != 0 {
		t.Errorf("InCell(planted) = %d, want 0", got)
	}
	op, col = position(t, r, plantedOp, Column{results.Vulkan, results.Compute, 4})
	if got := r.InCell(op, col); got != -1 {
		t.Errorf("InCell(a passing cell) = %d, want -1", got)
	}
	if got := NewRun("x", nil).Step(-1, 1); got != -1 {
		t.Errorf("Step with nothing to select = %d, want -1", got)
	}
}

func TestSelectedCaseIsOutlinedWithItsHeatmap(t *testing.T) {
	r := loadFixture(t)
	f := r.Frame(1000, 600, 0)
	op, col := position(t, r, plantedOp, plantedCol)
	cr := f.CellRect(op, col)
	// The outline runs in the gap pixels around the cell.
	for _, p := range []image.Point{{cr.Min.X - 1, cr.Min.Y - 1}, {cr.Max.X, cr.Max.Y}, {cr.Min.X - 1, center(cr).Y}} {
		if got := at(f.Image, p); got != ColorSelect {
			t.Errorf("selection outline at %v is %v, want %v", p, got, ColorSelect)
		}
	}
	if got := at(f.Image, center(cr)); got != ColorUnexpected {
		t.Errorf("selected cell centre is %v, want it still red", got)
	}
	if f.Heatmap.Empty() {
		t.Fatal("no heatmap drawn for the planted failure")
	}
	// Two waves with failing lanes (keys 0 and 8), eight lanes: rows of
	// 13-pixel steps scaled up. The planted lanes (wave 0: 3 and 5; wave 8:
	// 2) are red, wave 0's others green, wave 8's lanes 4..7 inactive.
	// report.Heatmap's geometry, scaled to the box it was drawn in: the
	// centre of lane l of row w.
	hm := f.Heatmap
	const step, gap = report.HeatmapCell + report.HeatmapGap, report.HeatmapGap
	lane := func(wave, l int) color.RGBA {
		x := hm.Min.X + (gap+l*step+report.HeatmapCell/2)*hm.Dx()/(gap+8*step)
		y := hm.Min.Y + (gap+wave*step+report.HeatmapCell/2)*hm.Dy()/(gap+2*step)
		return f.Image.RGBAAt(x, y)
	}
	red, green, grey := report.HeatFail, report.HeatPass, report.HeatInactive
	for _, c := range []struct {
		wave, lane int
		want       color.RGBA
	}{{0, 3, red}, {0, 5, red}, {0, 0, green}, {0, 7, green}, {1, 2, red}, {1, 0, green}, {1, 4, grey}, {1, 7, grey}} {
		if got := lane(c.wave, c.lane); got != c.want {
			t.Errorf("heatmap wave row %d lane %d is %v, want %v", c.wave, c.lane, got, c.want)
		}
	}

	// Moving the selection moves the outline.
	g := r.Frame(1000, 600, 1)
	if got := at(g.Image, image.Pt(cr.Min.X-1, cr.Min.Y-1)); got == ColorSelect {
		t.Error("the outline stayed on the planted cell after the selection moved")
	}
}

func TestPixelCaseShowsItsBundleImages(t *testing.T) {
	r := loadFixture(t)
	sel := -1
	for s := range r.Failing {
		if rec, _ := r.Selected(s); rec.Stage == results.Pixel {
			sel = s
		}
	}
	if sel < 0 {
		t.Fatal("the fixture has no failing pixel case")
	}
	f := r.Frame(1000, 600, sel)
	if len(f.Images) != 2 {
		t.Fatalf("%d bundle images drawn, want 2", len(f.Images))
	}
	// Sorted by name: actual, then expected.
	for i, want := range []color.RGBA{bundleActual, bundleExpected} {
		if f.Images[i].Empty() {
			t.Fatalf("image %d drawn empty", i)
		}
		if got := at(f.Image, center(f.Images[i])); got != want {
			t.Errorf("image %d centre is %v, want %v", i, got, want)
		}
	}
	if f.Heatmap.Empty() || f.Heatmap.Overlaps(f.Images[0]) {
		t.Errorf("heatmap %v and images %v: want both, apart", f.Heatmap, f.Images)
	}
}

func TestFrameIsDeterministicAndFitsAnySize(t *testing.T) {
	r := loadFixture(t)
	a, b := r.Frame(800, 500, 2), r.Frame(800, 500, 2)
	if !bytes.Equal(a.Image.Pix, b.Image.Pix) {
		t.Error("two frames of the same inputs differ")
	}
	// Tiny and huge windows and a bad selection must not panic.
	for _, sz := range [][2]int{{1, 1}, {40, 30}, {200, 120}, {2500, 1400}, {0, 0}} {
		f := r.Frame(sz[0], sz[1], 99)
		if f.Sel != -1 {
			t.Errorf("%v: selection 99 of %d drawn as %d", sz, len(r.Failing), f.Sel)
		}
	}
}

func TestManyOperationsShrinkRows(t *testing.T) {
	var recs []results.Record
	for i := 0; i < 300; i++ {
		recs = append(recs, results.Record{Op: "Op" + string(rune('A'+i%26)) + string(rune('a'+i/26)), API: results.Vulkan, Stage: results.Compute, WaveSize: 8, Status: results.Pass})
	}
	r := NewRun("many", recs)
	f := r.Frame(900, 700, -1)
	if f.RowH >= rowMax || f.RowH < rowMin {
		t.Errorf("row height %d for 300 operations in 700 pixels", f.RowH)
	}
	if f.Rows == 0 || at(f.Image, center(f.CellRect(f.Rows-1, 0))) != ColorPass {
		t.Errorf("last visible row %d not drawn green", f.Rows-1)
	}
}

// TestLoadReadsASavedRun: a saved run's directory holds results.jsonl.gz
// only; Load reads it as it reads the plain file.
func TestLoadReadsASavedRun(t *testing.T) {
	dir := writeFixture(t)
	p := filepath.Join(dir, results.ResultsFile)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	z := gzip.NewWriter(&b)
	z.Write(data)
	z.Close()
	if err := os.WriteFile(filepath.Join(dir, results.CompressedResultsFile), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(p)
	r, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if r.Truncated || len(r.Records) != len(fixtureRecords()) {
		t.Errorf("truncated %v, %d records; want false, %d", r.Truncated, len(r.Records), len(fixtureRecords()))
	}
}

func TestLoadReadsACutRun(t *testing.T) {
	dir := writeFixture(t)
	p := filepath.Join(dir, results.ResultsFile)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, append(data, `{"case":"cut`...), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Truncated || len(r.Records) != len(fixtureRecords()) {
		t.Errorf("truncated %v, %d records; want true, %d", r.Truncated, len(r.Records), len(fixtureRecords()))
	}
	if _, err := Load(t.TempDir()); err == nil {
		t.Error("Load of a directory without results.jsonl succeeded")
	}
}

func TestWrap(t *testing.T) {
	for _, c := range []struct {
		s    string
		n, m int
		want []string
	}{
		{"short", 10, 2, []string{"short"}},
		{"one two three four", 9, 3, []string{"one two", "three", "four"}},
		{"one two three four", 9, 2, []string{"one two", "three fo~"}},
		{"abcdefghij", 4, 3, []string{"abcd", "efgh", "ij"}},
	} {
		got := wrap(c.s, c.n, c.m)
		if len(got) != len(c.want) {
			t.Errorf("wrap(%q, %d, %d) = %q, want %q", c.s, c.n, c.m, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("wrap(%q, %d, %d) = %q, want %q", c.s, c.n, c.m, got, c.want)
				break
			}
		}
	}
}

func TestStepCellWalksCellsNotCases(t *testing.T) {
	fail := func(op string, size uint32) results.Record {
		return results.Record{Case: op + "/x", Op: op, API: results.Vulkan, Stage: results.Compute, WaveSize: size, Status: results.Fail}
	}
	// Selection order: three cases of A's cell, two of B's, one of C's.
	r := NewRun("cells", []results.Record{fail("A", 4), fail("A", 4), fail("A", 4), fail("B", 4), fail("B", 4), fail("C", 4)})
	for _, c := range []struct{ sel, d, want int }{
		{0, 1, 3}, {1, 1, 3}, {3, 1, 5}, {5, 1, 0}, // forward, wrapping to A
		{4, -1, 0}, {0, -1, 5}, {5, -1, 3}, {2, -1, 5}, // back to the first case of the cell before
		{-1, 1, 0},
	} {
		if got := r.StepCell(c.sel, c.d); got != c.want {
			t.Errorf("StepCell(%d, %d) = %d, want %d", c.sel, c.d, got, c.want)
		}
	}
	if n, f := r.CellCounts(1); n != 3 || f != 3 {
		t.Errorf("CellCounts(1) = %d, %d; want 3, 3", n, f)
	}
	one := NewRun("one", []results.Record{fail("A", 4), fail("A", 4)})
	if got := one.StepCell(1, 1); got != 1 {
		t.Errorf("StepCell with one cell moved to %d", got)
	}
}
