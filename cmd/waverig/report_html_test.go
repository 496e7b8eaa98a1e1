package main

import (
	"context"
	"encoding/json"
	"fmt"
	"image"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"waverig/harness/report"
	"waverig/harness/results"
	"waverig/internal/headless"
)

// TestReportHTMLInChromium is the report end to end: a real lavapipe run, a
// wrong result planted in its results.jsonl (lavapipe computes this operation
// right), devices.json from `waverig devices -json`, `waverig report DIR`, and
// the page opened in a headless Chromium. The browser must decode the planted
// failure's heatmap, show its grid cell red (in the DOM and in the
// screenshot), and the page must carry the run's summary and capabilities.
func TestReportHTMLInChromium(t *testing.T) {
	requireVulkan(t)
	browser := headless.Require(t)
	out := t.TempDir()
	if code, stdout, stderr := runCLI("run", "-ops", "^WaveActiveSum$", "-sizes", "4", "-compilers", "ours",
		"-api", "vulkan", "-stages", "compute", "-out", out); code != exitOK {
		t.Fatalf("run: exit %d\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, results.DevicesFile)); err != nil {
		code, stdout, stderr := runCLI("devices", "-json")
		if code != 0 {
			t.Fatalf("devices -json: exit %d\n%s", code, stderr)
		}
		if err := os.WriteFile(filepath.Join(out, results.DevicesFile), []byte(stdout), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// Plant a wrong result in the first Vulkan compute case that passed: the
	// run's results.jsonl.gz is replaced by a plain results.jsonl (report reads
	// either).
	saved, err := results.FindResults(out)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(out, results.ResultsFile)
	recs, _, err := results.ReadJSONL(saved)
	if err != nil {
		t.Fatal(err)
	}
	planted := -1
	for i, r := range recs {
		if r.Status == results.Pass && r.Case != results.LayoutCase && r.API == results.Vulkan && r.Stage == results.Compute {
			planted = i
			break
		}
	}
	if planted < 0 {
		t.Fatalf("no passing Vulkan compute case among %d records", len(recs))
	}
	p := &recs[planted]
	p.Status, p.Reason = results.Fail, "planted by the test: <not> lavapipe's"
	p.Failures = []results.LaneFailure{
		{WaveKey: 0, Lane: 1, ActiveMask: "0xf", Input: "1", Expected: "10", Actual: "11"},
		{WaveKey: 4, Lane: 2, ActiveMask: "0x5", Input: "2", Expected: "4", Actual: "5"},
	}
	if err := results.WriteFileAtomic(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		for _, r := range recs {
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if saved != path {
		os.Remove(saved)
	}
	if code, stdout, stderr := runCLI("report", out); code != exitOK {
		t.Fatalf("report: exit %d\n%s%s", code, stdout, stderr)
	}
	html, err := os.ReadFile(filepath.Join(out, results.HTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	// What the page read from the run directory: summary.json (the run's exit
	// status, which the planted record post-dates: the page says the counts
	// differ) and devices.json.
	for _, want := range []string{`<span class="exit-ok">0`, "totals differ", `data-device-index="0"`, "subgroupSize", p.Name()} {
		if !strings.Contains(string(html), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}

	page, err := headless.Render(context.Background(), browser, filepath.Join(out, results.HTMLFile), 1400, 2000)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s; %d records, planted %s", page.Version, len(recs), p.Name())
	attr := func(re string) int {
		m := regexp.MustCompile(re).FindStringSubmatch(page.DOM)
		if m == nil {
			t.Fatalf("the DOM has no %s", re)
		}
		n, _ := strconv.Atoi(m[1])
		return n
	}
	if images, loaded := attr(`<body[^>]* data-images="(\d+)"`), attr(`<body[^>]* data-loaded="(\d+)"`); images != 1 || loaded != 1 {
		t.Errorf("the browser decoded %d of %d heatmaps, want the planted one", loaded, images)
	}
	cell := fmt.Sprintf(`<td class="cell v-unexpected" data-test="%s|vulkan|compute|%d"`, regexp.QuoteMeta(p.Op), p.WaveSize)
	if !regexp.MustCompile(cell).MatchString(page.DOM) {
		t.Errorf("the DOM has no red grid cell for the planted failure (%s)", cell)
	}
	if !strings.Contains(page.DOM, `data-test="`+p.Name()+`"`) || !strings.Contains(page.DOM, "planted by the test: &lt;not&gt; lavapipe's") {
		t.Errorf("the DOM has no failure section for %s", p.Name())
	}
	top, bottom := attr(`<section id="grid"[^>]* data-top="(\d+)"`), attr(`<section id="grid"[^>]* data-bottom="(\d+)"`)
	shot := page.Screenshot
	if ink := headless.Ink(shot); ink < 0.02 {
		t.Errorf("the screenshot is blank (%.4f of it is not background)", ink)
	}
	b := shot.Bounds()
	if top >= b.Max.Y {
		t.Fatalf("the grid starts at %d px, below the %d px screenshot", top, b.Dy())
	}
	if n := headless.CountColor(shot, image.Rect(b.Min.X, top, b.Max.X, bottom), report.HeatFail, 6); n < 100 {
		t.Errorf("%d unexpected-red pixels in the grid (y %d-%d); want a cell's worth", n, top, bottom)
	}
}
