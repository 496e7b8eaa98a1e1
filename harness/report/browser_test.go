package report

import (
	"context"
	"image"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"waverig/internal/headless"
)

// TestHTMLInChromium opens the sample report in a headless Chromium: the
// browser decodes every heatmap (the page's script counts them into the DOM),
// the grid has the planted failure's red cell, and the screenshot of the page
// is not blank and shows that red inside the grid.
func TestHTMLInChromium(t *testing.T) {
	browser := headless.Require(t)
	file := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(file, []byte(render(t, samplePage())), 0o644); err != nil {
		t.Fatal(err)
	}
	page, err := headless.Render(context.Background(), browser, file, 1400, 2000)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s", page.Version)
	checkRendered(t, page, plantedCell, 2)
}

// checkRendered asserts what a browser made of a report with an unexpected
// failure in the grid cell test (data-test) and heatmaps heatmaps.
func checkRendered(t *testing.T, page headless.Page, test string, heatmaps int) {
	t.Helper()
	attr := func(re string) int {
		m := regexp.MustCompile(re).FindStringSubmatch(page.DOM)
		if m == nil {
			t.Fatalf("the DOM has no %s", re)
		}
		n, _ := strconv.Atoi(m[1])
		return n
	}
	images := attr(`<body[^>]* data-images="(\d+)"`)
	loaded := attr(`<body[^>]* data-loaded="(\d+)"`)
	if images != heatmaps || loaded != images {
		t.Errorf("the browser decoded %d of %d heatmaps, want %d", loaded, images, heatmaps)
	}
	cell := regexp.MustCompile(`<td class="cell v-unexpected" data-test="` + regexp.QuoteMeta(test) + `"`)
	if !regexp.MustCompile(`<section id="grid"`).MatchString(page.DOM) || !cell.MatchString(page.DOM) {
		t.Errorf("the DOM has no grid with a red cell %s", test)
	}
	top := attr(`<section id="grid"[^>]* data-top="(\d+)"`)
	bottom := attr(`<section id="grid"[^>]* data-bottom="(\d+)"`)
	shot := page.Screenshot
	if ink := headless.Ink(shot); ink < 0.02 {
		t.Errorf("the screenshot is blank (%.4f of it is not background)", ink)
	}
	b := shot.Bounds()
	if top >= b.Max.Y {
		t.Fatalf("the grid starts at %d px, below the %d px screenshot", top, b.Dy())
	}
	grid := image.Rect(b.Min.X, top, b.Max.X, bottom)
	if n := headless.CountColor(shot, grid, HeatFail, 6); n < 100 {
		t.Errorf("%d unexpected-red pixels in the grid (y %d-%d); want a cell's worth", n, top, bottom)
	}
	if n := headless.CountColor(shot, image.Rect(b.Min.X, top, b.Max.X, bottom), HeatPass, 6); n < 100 {
		t.Errorf("%d pass-green pixels in the grid", n)
	}
}
