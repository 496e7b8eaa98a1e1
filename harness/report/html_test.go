package report

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html"
	"image/color"
	"image/png"
	"os"
	"regexp"
	"strings"
	"testing"

	"waverig/harness/results"
)

// The planted failure of the sample run: a wrong WavePrefixSum at wave 8 on
// Vulkan compute, failing lanes 1 and 3 of wave 0x0 (lanes 0-3 active) and lane
// 2 of wave 0x8 (all eight), with a reason that must be escaped.
const (
	plantedName = "vulkan/compute/WavePrefixSum/uint/odd/partial/size=8"
	plantedCell = "WavePrefixSum|vulkan|compute|8"
	nastyReason = `model says <script>alert("x")</script> & more`
)

func sampleRecords() []results.Record {
	dev, drv := "llvmpipe (LLVM 15.0.6, 256 bits)", "llvmpipe Mesa 22.3.6 (LLVM 15.0.6)"
	rec := func(c, op, typ string, api, stage string, size uint32, status string) results.Record {
		return results.Record{Case: c, Op: op, Type: typ, WaveSize: size, API: api, Stage: stage, Compiler: results.Ours,
			Device: dev, Driver: drv, Status: status, Kernel: op + "_k"}
	}
	var rs []results.Record
	for _, size := range []uint32{4, 8} {
		for _, typ := range []string{"uint", "float"} {
			rs = append(rs, rec("WaveActiveSum/"+typ+"/all/whole", "WaveActiveSum", typ, results.Vulkan, results.Compute, size, results.Pass))
			rs = append(rs, rec("WaveActiveSum/"+typ+"/all/whole", "WaveActiveSum", typ, results.WebGPU, results.Compute, size, results.Pass))
			rs = append(rs, rec("WavePrefixSum/"+typ+"/all/whole", "WavePrefixSum", typ, results.Vulkan, results.Compute, size, results.Pass))
		}
		rs = append(rs, rec("WaveActiveSum/half/all/whole", "WaveActiveSum", "half", results.Vulkan, results.Compute, size, results.Skip))
		rs[len(rs)-1].Reason = "device lacks shaderFloat16"
	}
	bad := rec("WavePrefixSum/uint/odd/partial", "WavePrefixSum", "uint", results.Vulkan, results.Compute, 8, results.Fail)
	bad.Reason = nastyReason
	bad.Failures = []results.LaneFailure{
		{WaveKey: 0, Lane: 1, ActiveMask: "0xf", Input: "1", Expected: "1", Actual: "7"},
		{WaveKey: 0, Lane: 3, ActiveMask: "0xf", Input: "3", Expected: "6", Actual: "9"},
		{WaveKey: 8, Lane: 2, ActiveMask: "0xff", Input: "10", Expected: "21", Actual: "<0>"},
	}
	improved := rec("WaveActiveMax/uint/all/whole", "WaveActiveMax", "uint", results.Vulkan, results.Compute, 4, results.Pass)
	improved.Expected, improved.ExpectedExact, improved.Known = results.OutcomeFail, true, "fails.csv:3: WaveActiveMax wrong"
	flake := rec("WaveActiveMin/int/all/whole", "WaveActiveMin", "int", results.Vulkan, results.Pixel, 8, results.Flake)
	flake.Attempts = 2
	flake.Failures = []results.LaneFailure{{WaveKey: 4, Lane: 0, ActiveMask: "0x1", Input: "2", Expected: "2", Actual: "0"}}
	knownFlake := rec("WaveActiveMin/int/even/whole", "WaveActiveMin", "int", results.Vulkan, results.Pixel, 8, results.Fail)
	knownFlake.Expected, knownFlake.Known = results.OutcomeFlake, "flakes.txt:1: WaveActiveMin pixel"
	known := rec("WaveReadLaneAt/double/all/whole", "WaveReadLaneAt", "double", results.Vulkan, results.Compute, 4, results.Crash)
	known.Expected, known.Known, known.Reason = results.OutcomeCrash, "fails.csv:7: LLVM abort", "the driver killed the process"
	differs := rec("WaveActiveSum/uint/all/whole", "WaveActiveSum", "uint", results.Vulkan, results.Compute, 8, results.Differs)
	differs.Parity = []results.ParityLane{{Flat: 3, WaveKey: 0, Lane: 3, Input: "3", Values: map[string]string{"vulkan": "6", "webgpu": "7"}}}
	layout := rec(results.LayoutCase, results.LayoutCase, "", results.Vulkan, results.Compute, 8, results.Pass)
	return append(rs, bad, improved, flake, knownFlake, known, differs, layout)
}

func sampleSummary() *results.Summary {
	return &results.Summary{
		Device: "llvmpipe (LLVM 15.0.6, 256 bits)", Driver: "llvmpipe Mesa 22.3.6 (LLVM 15.0.6)",
		Stale:      []string{"fails.csv:12: vulkan/compute/WaveActiveBallot/*"},
		Total:      results.Stats{Cases: 19, Passed: 13, Known: 2, Unexpected: 2, Seconds: 12.5},
		ExitStatus: 1, Verdict: "unexpected failures",
		Host: "ci-runner-7", Started: "2026-12-01T20:00:00Z", Command: []string{"waverig", "run", "-ops", "Wave"},
		Version: "04b235e", Shard: "1/2", Merged: []string{"shard1/results.jsonl"},
	}
}

func sampleExpectation() *results.Expectation {
	return &results.Expectation{Devices: []results.DeviceExpectation{{
		Device: "llvmpipe (LLVM 15.0.6, 256 bits)", Driver: "llvmpipe Mesa 22.3.6 (LLVM 15.0.6)",
		Baselines: []string{"builtin:lavapipe-22.3.6"}, Files: map[string]int{"fails.csv": 12, "flakes.txt": 1}, Retries: 2,
	}}}
}

// lavapipeDevices is a devices.json as lavapipe's would read, with masks and
// no flag names for the stages (the page must read either).
const lavapipeDevices = `{"devices":[{"index":0,"capabilities":{"device":{
 "extensions":{"VK_EXT_subgroup_size_control":2,"VK_KHR_swapchain":70,"VK_KHR_shader_subgroup_extended_types":1},
 "features":{"VkPhysicalDeviceFeatures":{"shaderInt64":true,"shaderFloat64":true,"wideLines":true},
  "VkPhysicalDeviceSubgroupSizeControlFeatures":{"subgroupSizeControl":true}},
 "properties":{"VkPhysicalDeviceProperties":{"deviceName":"llvmpipe (LLVM 15.0.6, 256 bits)","deviceType":"VK_PHYSICAL_DEVICE_TYPE_CPU","apiVersion":"1.3.230","driverVersionText":"0.0.1"},
  "VkPhysicalDeviceDriverProperties":{"driverName":"llvmpipe","driverInfo":"Mesa 22.3.6 (LLVM 15.0.6)","driverID":"VK_DRIVER_ID_MESA_LLVMPIPE"},
  "VkPhysicalDeviceSubgroupProperties":{"subgroupSize":8,"supportedStagesMask":48,"supportedOperations":["VK_SUBGROUP_FEATURE_BASIC_BIT","VK_SUBGROUP_FEATURE_QUAD_BIT"],"supportedOperationsMask":137,"quadOperationsInAllStages":false}}}}}],
 "webgpu":[{"index":0,"name":"llvmpipe (LLVM 15.0.6, 256 bits)","backend":"vulkan","subgroup":true,"waveSizes":[8]}]}`

func samplePage() Page {
	return Page{Title: "lavapipe nightly", Records: sampleRecords(), Summary: sampleSummary(),
		Expectation: sampleExpectation(), Devices: []byte(lavapipeDevices)}
}

func render(t *testing.T, p Page) string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteHTML(&b, p); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// section returns the HTML of the element with id (to the next section).
func section(t *testing.T, html, id string) string {
	t.Helper()
	i := strings.Index(html, `id="`+id+`"`)
	if i < 0 {
		t.Fatalf("no #%s", id)
	}
	rest := html[i:]
	if j := strings.Index(rest[1:], "\n<section id="); j >= 0 {
		return rest[:j+1]
	}
	return rest
}

func TestHTMLSectionsInOrder(t *testing.T) {
	h := render(t, samplePage())
	last := -1
	for _, id := range []string{"summary", "needs", "expectations", "capabilities", "grid", "failures", "parity", "skips"} {
		i := strings.Index(h, `id="`+id+`"`)
		if i < 0 {
			t.Fatalf("no #%s", id)
		}
		if i < last {
			t.Errorf("#%s is out of order", id)
		}
		last = i
	}
	// Self-contained: nothing is fetched.
	for _, ref := range []string{"http://", "https://", "<link", "src=\"http", "@import"} {
		if strings.Contains(h, ref) {
			t.Errorf("the page refers outside itself: %q", ref)
		}
	}
}

func TestHTMLHeader(t *testing.T) {
	h := section(t, render(t, samplePage()), "summary")
	for _, want := range []string{
		"llvmpipe (LLVM 15.0.6, 256 bits)", "llvmpipe Mesa 22.3.6 (LLVM 15.0.6)",
		`<span class="exit-bad">1 — unexpected failures</span>`, "ci-runner-7", "2026-12-01T20:00:00Z",
		"<code>waverig run -ops Wave</code>", "04b235e", "1/2", "shard1/results.jsonl",
		"cases <b>19</b>", "skipped <b>2</b>", "known <b>2</b>", "flakes <b>1</b>", "improved <b>1</b>",
		"unexpected <b>2</b>", "seconds <b>12.5</b>",
	} {
		if !strings.Contains(h, want) {
			t.Errorf("header lacks %q", want)
		}
	}
	// summary.json counted what the records count: no note; a summary that
	// disagrees gets one.
	if strings.Contains(h, "totals differ") {
		t.Errorf("a note on counts that agree")
	}
	p := samplePage()
	p.Summary.Total.Cases = 5
	if !strings.Contains(render(t, p), "totals differ") {
		t.Errorf("no note on counts that differ")
	}
}

func TestHTMLNeedsYou(t *testing.T) {
	h := section(t, render(t, samplePage()), "needs")
	for _, want := range []string{
		`id="regressions"`, plantedName, `<span class="badge v-unexpected">Fail</span>`,
		`id="improved"`, "UnexpectedImprovement(Pass)", "baseline line to change: fails.csv:3: WaveActiveMax wrong",
		`id="flakes"`, "vulkan/pixel/WaveActiveMin/int/all/whole/size=8", "failed, then passed on run 2",
		"KnownFlake", "baseline line flakes.txt:1: WaveActiveMin pixel",
		`id="stale"`, "fails.csv:12: vulkan/compute/WaveActiveBallot/*",
	} {
		if !strings.Contains(h, want) {
			t.Errorf("What needs you lacks %q", want)
		}
	}
	if strings.Contains(h, `id="nothing"`) {
		t.Errorf("nothing needs you, says a page of a failed run")
	}
	// The known crash is not something to act on.
	if strings.Contains(h, "WaveReadLaneAt") {
		t.Errorf("a known failure in What needs you")
	}
	// A clean run says so.
	var clean []results.Record
	for _, r := range sampleRecords() {
		if r.Verdict() == results.VerdictPass {
			clean = append(clean, r)
		}
	}
	if h := render(t, Page{Title: "clean", Records: clean}); !strings.Contains(section(t, h, "needs"), `id="nothing"`) {
		t.Errorf("a clean run lacks the nothing line")
	}
}

func TestHTMLEscapes(t *testing.T) {
	h := render(t, samplePage())
	if strings.Contains(h, "<script>alert") || strings.Contains(h, "<0>") {
		t.Fatalf("a record's text reached the page unescaped")
	}
	for _, want := range []string{"&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; more", "&lt;0&gt;"} {
		if !strings.Contains(h, want) {
			t.Errorf("page lacks escaped %q", want)
		}
	}
}

func TestHTMLExpectationsAndCapabilities(t *testing.T) {
	h := render(t, samplePage())
	e := section(t, h, "expectations")
	for _, want := range []string{"builtin:lavapipe-22.3.6", "<code>fails.csv</code> (12)", "<code>flakes.txt</code> (1)", "<td>2</td>"} {
		if !strings.Contains(e, want) {
			t.Errorf("expectations lack %q", want)
		}
	}
	c := section(t, h, "capabilities")
	for _, want := range []string{
		"llvmpipe — Mesa 22.3.6 (LLVM 15.0.6)", "<b>8</b>", "min 0, max 0", "VK_EXT_subgroup_size_control (2)",
		"VK_KHR_shader_subgroup_extended_types (1)", "(3 in all)", ">shaderInt64<", "subgroupSizeControl", "WebGPU adapters",
	} {
		if want == "min 0, max 0" {
			// No size control properties: said in words.
			want = "none (no VK_EXT_subgroup_size_control)"
		}
		if !strings.Contains(c, want) {
			t.Errorf("capabilities lack %q", want)
		}
	}
	if strings.Contains(c, "VK_KHR_swapchain") || strings.Contains(c, "wideLines") {
		t.Errorf("capabilities list what is not about waves")
	}
	// Stages from the mask (48: fragment and compute), operations from the
	// names and the mask (137: basic, ballot, quad): compute × ballot yes,
	// vertex × basic no (not in supportedStages), fragment × quad yes.
	rows := capRows(c)
	if got := rows["compute"]; got != "y n n y n n n y n n n" {
		t.Errorf("compute row %q", got)
	}
	if got := rows["fragment (pixel)"]; got != "y n n y n n n y n n n" {
		t.Errorf("fragment row %q", got)
	}
	// Every stage the rig runs has a row, supported or not: vertex, task and
	// mesh are not in this mask.
	for _, st := range []string{"vertex", "task", "mesh"} {
		if got := rows[st]; got != "n n n n n n n n n n n" {
			t.Errorf("%s row %q", st, got)
		}
	}
	if len(rows) != 5 {
		t.Errorf("rows %v", rows)
	}
}

// capRows reads a capability matrix: stage → "y n …" per operation.
func capRows(html string) map[string]string {
	rows := map[string]string{}
	rowRE := regexp.MustCompile(`<tr><th(?: class="unsup")? title="VK_SHADER_STAGE_\w+">([^<]+)</th>(.*?)</tr>`)
	cellRE := regexp.MustCompile(`<td class="([yn])"`)
	for _, m := range rowRE.FindAllStringSubmatch(html, -1) {
		var cells []string
		for _, c := range cellRE.FindAllStringSubmatch(m[2], -1) {
			cells = append(cells, c[1])
		}
		rows[m[1]] = strings.Join(cells, " ")
	}
	return rows
}

// TestHTMLCapabilitiesH200 reads the H200's devices.json as `waverig devices
// -json` wrote it: every stage, quad operations in all of them, size control.
func TestHTMLCapabilitiesH200(t *testing.T) {
	doc, err := os.ReadFile("../../docs/hardware/nvidia-h200/devices.json")
	if err != nil {
		t.Fatal(err)
	}
	c := section(t, render(t, Page{Title: "h200", Records: sampleRecords(), Devices: doc}), "capabilities")
	rows := capRows(c)
	if len(rows) != 14 {
		t.Errorf("%d stages, want 14", len(rows))
	}
	if got := rows["vertex"]; got != "y y y y y y y y y y y" {
		t.Errorf("vertex row %q", got)
	}
	for _, want := range []string{"NVIDIA — 580.159.04", "min 32, max 32", "<b>32</b>", "VK_NV_shader_subgroup_partitioned (1)", "shaderQuadControl"} {
		if !strings.Contains(c, want) {
			t.Errorf("H200 capabilities lack %q", want)
		}
	}
	// Quad operations outside compute and fragment without
	// quadOperationsInAllStages are not supported.
	doc = bytes.Replace(doc, []byte(`"quadOperationsInAllStages": true`), []byte(`"quadOperationsInAllStages": false`), 1)
	rows = capRows(section(t, render(t, Page{Title: "h200", Records: sampleRecords(), Devices: doc}), "capabilities"))
	if got := rows["vertex"]; got != "y y y y y y y n y y y" {
		t.Errorf("vertex row without quad in all stages %q", got)
	}
	if got := rows["compute"]; got != "y y y y y y y y y y y" {
		t.Errorf("compute row without quad in all stages %q", got)
	}
}

// TestHTMLOldRun: a results.jsonl alone (no summary, baseline or devices) still
// makes a page, which says what it lacks.
func TestHTMLOldRun(t *testing.T) {
	h := render(t, Page{Title: "old", Records: sampleRecords()})
	for _, want := range []string{"not recorded (no summary.json)", "No expectation.json", `id="no-devices"`, "seconds <b>—</b>"} {
		if !strings.Contains(h, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	h = render(t, Page{Title: "bad", Records: sampleRecords(), Devices: []byte("{"), Notes: []string{"summary.json could not be read: EOF"}})
	for _, want := range []string{"devices.json could not be read", "summary.json could not be read: EOF"} {
		if !strings.Contains(h, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

var cellRE = regexp.MustCompile(`<td class="cell v-([a-z]+)" data-test="([^"]+)" title="([^"]*)"><details><summary>([^<]*)</summary>`)

// gridCells reads the grid: data-test → verdict class, tooltip, label.
func gridCells(html string) map[string][3]string {
	out := map[string][3]string{}
	for _, m := range cellRE.FindAllStringSubmatch(html, -1) {
		out[m[2]] = [3]string{m[1], m[3], m[4]}
	}
	return out
}

func TestHTMLGrid(t *testing.T) {
	g := section(t, render(t, samplePage()), "grid")
	cells := gridCells(g)
	for test, want := range map[string]string{
		plantedCell:                          "unexpected",
		"WavePrefixSum|vulkan|compute|4":     "pass",
		"WaveActiveMax|vulkan|compute|4":     "improved",
		"WaveActiveMin|vulkan|pixel|8":       "flake",
		"WaveReadLaneAt|vulkan|compute|4":    "known",
		"WaveActiveSum|webgpu|compute|8":     "pass",
		"WaveActiveSum|vulkan|compute|8":     "pass", // a skipped type does not grey a cell that ran
		"layout|vulkan|compute|8":            "pass",
		"WaveActiveSum|vulkan|compute|4|bad": "",
	} {
		got, ok := cells[test]
		if want == "" {
			if ok {
				t.Errorf("cell %s exists", test)
			}
			continue
		}
		if !ok || got[0] != want {
			t.Errorf("cell %s: %q, want v-%s", test, got, want)
		}
	}
	got := cells[plantedCell]
	if got[2] != "1✗/3" || !strings.Contains(got[1], "3 cases, 1 unexpected, 2 pass; unexpected in uint") {
		t.Errorf("planted cell: label %q title %q", got[2], got[1])
	}
	if c := cells["WaveActiveSum|vulkan|compute|8"]; c[2] != "2" || !strings.Contains(c[1], "1 skip") {
		t.Errorf("cell with a skip: %q", c)
	}
	// Its types open in <details>, each coloured.
	i := strings.Index(g, `data-test="`+plantedCell+`"`)
	cell := g[i : i+strings.Index(g[i:], "</td>")]
	if !strings.Contains(cell, `<li class="v-unexpected" title="2 cases, 1 unexpected, 1 pass">uint 1✗/2</li>`) ||
		!strings.Contains(cell, `<li class="v-pass" title="1 cases, 1 pass">float 1</li>`) {
		t.Errorf("planted cell's types: %s", cell)
	}
	// Columns: API, then stage, then wave size.
	if !regexp.MustCompile(`(?s)vulkan compute.*vulkan compute.*vulkan pixel.*webgpu compute`).MatchString(g) {
		t.Errorf("columns out of order")
	}
	// A column where an operation has no case is an empty cell.
	if !strings.Contains(g, `<td class="cell v-none"></td>`) {
		t.Errorf("no empty cell")
	}
}

// TestHTMLGridPerDevice: two devices of one name get a grid each.
func TestHTMLGridPerDevice(t *testing.T) {
	recs := sampleRecords()
	for _, r := range sampleRecords() {
		r.DeviceIndex = 1
		r.Status, r.Failures, r.Expected, r.Known = results.Pass, nil, "", ""
		recs = append(recs, r)
	}
	g := section(t, render(t, Page{Title: "two", Records: recs}), "grid")
	if n := strings.Count(g, `<table class="grid">`); n != 2 {
		t.Fatalf("%d grids", n)
	}
	for _, want := range []string{"<h3>llvmpipe (LLVM 15.0.6) #0</h3>", "<h3>llvmpipe (LLVM 15.0.6) #1</h3>"} {
		if !strings.Contains(g, want) {
			t.Errorf("grid lacks %q", want)
		}
	}
}

func TestHTMLFailures(t *testing.T) {
	h := section(t, render(t, samplePage()), "failures")
	// Unexpected first, then improved, flake, known.
	order := []string{plantedName, "WaveActiveMax/uint/all/whole/size=4", "WaveActiveMin/int/all/whole/size=8", "WaveActiveMin/int/even/whole/size=8", "WaveReadLaneAt"}
	last := -1
	for _, n := range order {
		i := strings.Index(h, n)
		if i < 0 || i < last {
			t.Errorf("%s missing or out of order", n)
		}
		last = i
	}
	for _, want := range []string{
		`<section class="failure v-unexpected" id="f0" data-test="` + plantedName + `">`,
		"<td>0x8</td><td>2</td><td class=\"l\">0xff</td><td class=\"l\">10</td><td class=\"l\">21</td><td class=\"l\">&lt;0&gt;</td>",
		"<code>fails.csv:7: LLVM abort</code>", "the driver killed the process",
		`<div>0x0</div><div>0x8</div>`, "lanes 0–7 →",
	} {
		if !strings.Contains(h, want) {
			t.Errorf("failures lack %q", want)
		}
	}
	// The planted record's heatmap: lanes 1 and 3 of wave 0x0 red, 0 and 2
	// green, 4..7 inactive; lane 2 of wave 0x8 red, the rest green.
	m := regexp.MustCompile(`data-test="` + regexp.QuoteMeta(plantedName) + `">(?s:.*?)<img class="heatmap" src="data:image/png;base64,([A-Za-z0-9+/=&#;]+)" width="(\d+)" height="(\d+)"`).FindStringSubmatch(h)
	if m == nil {
		t.Fatal("no heatmap for the planted failure")
	}
	// The template writes the data URI HTML-escaped ("+" as "&#43;").
	data, err := base64.StdEncoding.DecodeString(html.UnescapeString(m[1]))
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if w, hh := fmt.Sprint(img.Bounds().Dx()), fmt.Sprint(img.Bounds().Dy()); w != m[2] || hh != m[3] {
		t.Errorf("img %sx%s, PNG %sx%s", m[2], m[3], w, hh)
	}
	for _, c := range []struct {
		w, l int
		c    color.RGBA
	}{{0, 0, HeatPass}, {0, 1, HeatFail}, {0, 2, HeatPass}, {0, 3, HeatFail}, {0, 4, HeatInactive}, {0, 7, HeatInactive},
		{1, 1, HeatPass}, {1, 2, HeatFail}, {1, 7, HeatPass}} {
		if got := at(img, c.w, c.l); got != c.c {
			t.Errorf("heatmap wave row %d lane %d: %v, want %v", c.w, c.l, got, c.c)
		}
	}
	// The improvement has no lanes, hence no heatmap; the flake has one.
	if n := strings.Count(h, `<img class="heatmap"`); n != 2 {
		t.Errorf("%d heatmaps, want 2", n)
	}
	p := section(t, render(t, samplePage()), "parity")
	if !strings.Contains(p, "flat 3 wave 0x0 lane 3 input 3: vulkan 6, webgpu 7") {
		t.Errorf("parity section: %s", p)
	}
	s := section(t, render(t, samplePage()), "skips")
	if !strings.Contains(s, "<td>2</td><td>device lacks shaderFloat16</td>") {
		t.Errorf("skip reasons: %s", s)
	}
}

// TestHTMLCapsFailures: a bad night is capped at maxFailureDetails sections
// and maxListed lines per list, and says how many it left out.
func TestHTMLCapsFailures(t *testing.T) {
	var recs []results.Record
	for i := 0; i < 250; i++ {
		recs = append(recs, results.Record{Case: fmt.Sprintf("WaveActiveSum/uint/c%d", i), Op: "WaveActiveSum", WaveSize: 8,
			Status: results.Fail, Failures: []results.LaneFailure{{WaveKey: 0, Lane: uint32(i % 8), ActiveMask: "0xff"}}})
	}
	// A known failure sorts after all of them: it is among those left out.
	recs = append([]results.Record{{Case: "WaveReadLaneAt/uint/all", Op: "WaveReadLaneAt", WaveSize: 8, Status: results.Fail, Known: "x.txt:1"}}, recs...)
	h := render(t, Page{Title: "bad night", Records: recs})
	f := section(t, h, "failures")
	if n := strings.Count(f, `<section class="failure`); n != maxFailureDetails {
		t.Errorf("%d failure sections", n)
	}
	if !strings.Contains(f, "… and 51 more failing cases") {
		t.Errorf("no count of the rest")
	}
	if strings.Contains(f, "WaveReadLaneAt") {
		t.Errorf("a known failure shown before unexpected ones")
	}
	n := section(t, h, "needs")
	if strings.Count(n, "<li>") != maxListed || !strings.Contains(n, "… and 50 more") {
		t.Errorf("regressions list not capped")
	}
	// Lines past the cap of details have no link.
	if strings.Count(n, `href="#f`) != maxListed {
		t.Errorf("%d links", strings.Count(n, `href="#f`))
	}
}
