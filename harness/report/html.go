package report

// The HTML report: one self-contained file (inline CSS, heatmaps as data URIs,
// a few lines of script that only annotate the DOM) that a driver team reads
// top to bottom: who ran what and how it ended, what needs their attention,
// the baseline it was judged against, what the device says it supports, the
// operation grid, then the evidence of each failure. It works offline, from a
// CI artifact or a mail attachment, and from a run directory of any age: every
// input but the records is optional.
//
// Every colour and every list follows results.Record.Verdict; the page decides
// nothing of its own about what counts.

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"sort"
	"strings"
	"sync"

	"waverig/harness/results"
)

// Page is what WriteHTML renders. Only Records is required: a report of an old
// run directory has no summary.json, expectation.json or devices.json, and the
// page says so where each would have gone.
type Page struct {
	Title   string
	Records []results.Record
	// Summary is summary.json: exit status, run metadata, wall time, stale
	// baseline lines. The counts on the page are the records' own (Stats.Add),
	// so a results.jsonl edited or cut off after the run still adds up.
	Summary *results.Summary
	// Expectation is expectation.json: the baselines each device was judged against.
	Expectation *results.Expectation
	// Devices is devices.json as `waverig devices -json` writes it (vulkaninfo's
	// structure and field names, a "webgpu" array); nil when there is none.
	Devices json.RawMessage
	// Notes are problems reading the optional inputs ("summary.json: …"),
	// printed under the header rather than failing the report.
	Notes []string
}

// Report limits. The page stays small on a bad night (100,000 failing cases);
// results.jsonl keeps everything, and the page says how much it left out.
const (
	maxFailureDetails = 200 // failure sections with lane tables and heatmaps
	maxListed         = 200 // lines per list of "What needs you"
	maxParity         = 100 // cross-API parity sections
)

// The verdict classes, worst first: a grid cell takes the colour of the worst
// verdict among its cases.
var verdictRank = map[results.Verdict]int{
	results.VerdictUnexpected: 6,
	results.VerdictImproved:   5,
	results.VerdictFlake:      4,
	results.VerdictKnown:      3,
	results.VerdictPass:       2,
	results.VerdictVacuous:    1,
	results.VerdictSkip:       1,
}

// WriteHTML writes the page (see Page).
func WriteHTML(w io.Writer, p Page) error {
	return htmlTemplate().Execute(w, buildPage(p))
}

// pageData is what the template reads.
type pageData struct {
	Title                     string
	Devices, Drivers          []string
	Summary                   *results.Summary
	Exit                      string // "1 (unexpected failures)" or "" without a summary
	ExitClass                 string
	Command                   string
	Total                     results.Stats
	Seconds                   string
	CountsDiffer              bool // summary.json's totals are not the records'
	Notes                     []string
	Regressions               listed
	Improved                  listed
	Flakes                    listed
	Stale                     []string
	NothingNeedsYou           bool
	Expectation               *results.Expectation
	ExpectationFiles          []string // summary.json's list, when expectation.json is absent
	Caps                      []deviceCaps
	CapsNote                  string
	WebGPU                    []webgpuAdapter
	WebGPUError               string
	Grids                     []grid
	Failures                  []failureDetail
	MoreFailures              int
	Parity                    []failureDetail
	MoreParity                int
	SkipReasons               []skipReason
	VerdictLegend             []string
	HeatPass, HeatFail        string
	HeatInactive, HeatUnknown string
}

// listed is one list of "What needs you", capped at maxListed.
type listed struct {
	Items []needItem
	More  int
}

type needItem struct {
	Name, Status, Device, Line string
	Anchor                     string // id of its failure section, "" past the cap
}

type skipReason struct {
	Reason string
	Count  int
}

func (l *listed) add(it needItem) {
	if len(l.Items) < maxListed {
		l.Items = append(l.Items, it)
		return
	}
	l.More++
}

func buildPage(p Page) pageData {
	recs := p.Records
	d := pageData{
		Title:         p.Title,
		Devices:       Devices(recs),
		Drivers:       Drivers(recs),
		Summary:       p.Summary,
		Notes:         p.Notes,
		Expectation:   p.Expectation,
		VerdictLegend: []string{"unexpected", "improved", "flake", "known", "pass", "skip"},
		HeatPass:      cssColor(HeatPass),
		HeatFail:      cssColor(HeatFail),
		HeatInactive:  cssColor(HeatInactive),
		HeatUnknown:   cssColor(HeatUnknown),
	}
	for _, r := range recs {
		d.Total.Add(r)
	}
	if s := p.Summary; s != nil {
		// The run's own names of its devices: the full name (lavapipe's
		// vector width too) and " #index" where two share it.
		if len(s.Devices) > 0 {
			d.Devices, d.Drivers = nil, nil
			for _, ds := range s.Devices {
				d.Devices = append(d.Devices, or(ds.Name, ds.Device))
				d.Drivers = appendNew(d.Drivers, ds.Driver)
			}
		} else if s.Device != "" {
			d.Devices, d.Drivers = []string{s.Device}, []string{s.Driver}
		}
		d.Exit = fmt.Sprintf("%d", s.ExitStatus)
		if s.Verdict != "" {
			d.Exit += " — " + s.Verdict
		}
		d.ExitClass = "exit-ok"
		if s.ExitStatus != 0 {
			d.ExitClass = "exit-bad"
		}
		d.Command = strings.Join(s.Command, " ")
		d.Total.Seconds = s.Total.Seconds
		d.Total.Pipelines, d.Total.Kernels = s.Total.Pipelines, s.Total.Kernels
		d.Seconds = fmt.Sprintf("%.1f", s.Total.Seconds)
		d.CountsDiffer = s.Total.Cases != d.Total.Cases || s.Total.Unexpected != d.Total.Unexpected ||
			s.Total.Known != d.Total.Known || s.Total.Passed != d.Total.Passed
		d.Stale = append(d.Stale, s.Stale...)
		for _, ds := range s.Devices {
			for _, st := range ds.Stale {
				if !contains(d.Stale, st) {
					d.Stale = append(d.Stale, st)
				}
			}
		}
		if p.Expectation == nil {
			d.ExpectationFiles = s.Expectations
		}
	}
	d.Caps, d.WebGPU, d.WebGPUError, d.CapsNote = parseDevices(p.Devices)

	// The failures in the order a reader acts on them; the sections of the
	// first maxFailureDetails get anchors that the lists above link to.
	var bad []results.Record
	skips := map[string]int{}
	for _, r := range recs {
		switch r.Verdict() {
		case results.VerdictUnexpected, results.VerdictImproved, results.VerdictFlake, results.VerdictKnown:
			bad = append(bad, r)
		case results.VerdictSkip:
			skips[r.Reason]++
		case results.VerdictDiffers:
			if len(d.Parity) < maxParity {
				d.Parity = append(d.Parity, failureDetail{Name: r.Name(), Status: r.RunStatus(), Verdict: string(r.Verdict()),
					Device: r.Device, Driver: r.Driver, Reason: r.Reason, Parity: r.Parity})
			} else {
				d.MoreParity++
			}
		}
	}
	sort.SliceStable(bad, func(i, j int) bool { return verdictRank[bad[i].Verdict()] > verdictRank[bad[j].Verdict()] })
	suf := deviceSuffix(recs)
	for i, r := range bad {
		anchor := ""
		if i < maxFailureDetails {
			anchor = fmt.Sprintf("f%d", i)
			d.Failures = append(d.Failures, detail(r, anchor))
		} else {
			d.MoreFailures++
		}
		it := needItem{Name: r.Name(), Status: r.RunStatus(), Device: DeviceIdentity(r.Device) + suf(r), Line: r.Headline(), Anchor: anchor}
		switch v := r.Verdict(); {
		case v == results.VerdictUnexpected:
			d.Regressions.add(it)
		case v == results.VerdictImproved:
			it.Line = "baseline line to change: " + or(r.Known, "(not named)")
			d.Improved.add(it)
		case v == results.VerdictFlake:
			it.Line = fmt.Sprintf("failed, then passed on run %d", r.Attempts)
			if r.Attempts <= 1 {
				it.Line = "failed, then passed on a re-run"
			}
			d.Flakes.add(it)
		case r.RunStatus() == results.OutcomeKnownFlake:
			it.Line = "baseline line " + r.Known
			d.Flakes.add(it)
		}
	}
	d.NothingNeedsYou = len(d.Regressions.Items) == 0 && len(d.Improved.Items) == 0 && len(d.Flakes.Items) == 0 && len(d.Stale) == 0
	d.Grids = buildGrids(recs)
	for r, n := range skips {
		d.SkipReasons = append(d.SkipReasons, skipReason{r, n})
	}
	sort.Slice(d.SkipReasons, func(i, j int) bool {
		a, b := d.SkipReasons[i], d.SkipReasons[j]
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		return a.Reason < b.Reason
	})
	return d
}

// failureDetail is one failing record's section.
type failureDetail struct {
	Anchor, Name, Status, Verdict          string
	Device, Driver                         string
	Reason, Known, Blame, Helpers, Repeats string
	Kernel                                 string
	Attempts                               int
	Duration                               string
	Lanes                                  []results.LaneFailure
	Parity                                 []results.ParityLane
	Heatmap                                template.URL // data:image/png;base64,…
	HeatmapW, HeatmapH                     int
	HeatmapWaves                           []string // row labels, top to bottom
	HeatmapLast                            int      // the last lane column
	HeatmapErr                             string
}

func detail(r results.Record, anchor string) failureDetail {
	f := failureDetail{
		Anchor: anchor, Name: r.Name(), Status: r.RunStatus(), Verdict: string(r.Verdict()),
		Device: r.Device, Driver: r.Driver, Reason: r.Reason, Known: r.Known, Blame: r.Blame,
		Helpers: r.Helpers, Repeats: r.Repeats, Kernel: r.Kernel, Attempts: r.Attempts, Lanes: r.Failures, Parity: r.Parity,
	}
	if r.Duration > 0 {
		f.Duration = fmt.Sprintf("%.3g s", r.Duration)
	}
	if img := Heatmap(r); img != nil {
		png, err := EncodePNG(img)
		if err != nil {
			f.HeatmapErr = err.Error()
		} else {
			f.Heatmap = template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(png))
			f.HeatmapW, f.HeatmapH = img.Bounds().Dx(), img.Bounds().Dy()
			waves, lanes := HeatmapLayout(r)
			f.HeatmapLast = lanes - 1
			for _, w := range waves {
				f.HeatmapWaves = append(f.HeatmapWaves, fmt.Sprintf("%#x", w))
			}
		}
	}
	return f
}

// The grid: one table per device, a row per operation, a column per (API,
// stage, wave size); a cell holds the cases of one operation there, every
// type, pattern, shape and compiler, coloured by the worst verdict among them,
// and opens (<details>) to the same per type.
type grid struct {
	Device  string
	Columns []gridColumn
	Rows    []gridRow
}

type gridColumn struct {
	API, Stage string
	WaveSize   uint32
}

type gridRow struct {
	Op    string
	Cells []*gridCell
}

type gridCell struct {
	Test   string // data-test: op|api|stage|size
	Counts verdictCounts
	Types  []typeCount
	Title  string
	byType map[string]*verdictCounts
}

type typeCount struct {
	Type   string
	Counts verdictCounts
}

// verdictCounts counts the cases of a cell by verdict.
type verdictCounts struct {
	Cases                                                   int
	Unexpected, Improved, Flake, Known, Pass, Vacuous, Skip int
}

func (c *verdictCounts) add(v results.Verdict) {
	c.Cases++
	switch v {
	case results.VerdictUnexpected:
		c.Unexpected++
	case results.VerdictImproved:
		c.Improved++
	case results.VerdictFlake:
		c.Flake++
	case results.VerdictKnown:
		c.Known++
	case results.VerdictPass:
		c.Pass++
	case results.VerdictVacuous:
		c.Vacuous++
	case results.VerdictSkip:
		c.Skip++
	}
}

// Worst is the cell's class: the worst verdict present ("none" when empty).
func (c verdictCounts) Worst() string {
	switch {
	case c.Unexpected > 0:
		return string(results.VerdictUnexpected)
	case c.Improved > 0:
		return string(results.VerdictImproved)
	case c.Flake > 0:
		return string(results.VerdictFlake)
	case c.Known > 0:
		return string(results.VerdictKnown)
	case c.Pass > 0:
		return string(results.VerdictPass)
	case c.Vacuous > 0:
		return string(results.VerdictVacuous)
	case c.Skip > 0:
		return string(results.VerdictSkip)
	}
	return "none"
}

// Label is the cell's text: what needs a look over what ran, or the skips.
func (c verdictCounts) Label() string {
	ran := c.Cases - c.Skip
	bad := c.Unexpected + c.Improved + c.Flake
	switch {
	case c.Cases == 0:
		return ""
	case ran == 0:
		return fmt.Sprintf("skip %d", c.Skip)
	case bad > 0:
		return fmt.Sprintf("%d✗/%d", bad, ran)
	case c.Known > 0:
		return fmt.Sprintf("%dk/%d", c.Known, ran)
	}
	return fmt.Sprint(ran)
}

// String spells the counts out (the tooltip).
func (c verdictCounts) String() string {
	parts := []string{fmt.Sprintf("%d cases", c.Cases)}
	for _, p := range []struct {
		n    int
		name string
	}{{c.Unexpected, "unexpected"}, {c.Improved, "improved"}, {c.Flake, "flake"}, {c.Known, "known"}, {c.Pass, "pass"}, {c.Vacuous, "vacuous (compared no lane)"}, {c.Skip, "skip"}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.name))
		}
	}
	return strings.Join(parts, ", ")
}

func buildGrids(recs []results.Record) []grid {
	type colKey = gridColumn
	type perDevice struct {
		cols  map[colKey]bool
		cells map[string]map[colKey]*gridCell
	}
	// One pass over the records, each device's cells in its own maps (a run
	// has 100,000 records and a few devices: nothing is copied per record).
	byID := map[DeviceID]*perDevice{}
	var ids []DeviceID
	for _, r := range recs {
		if r.Status == results.Differs {
			continue
		}
		id := IDOf(r)
		pd := byID[id]
		if pd == nil {
			pd = &perDevice{cols: map[colKey]bool{}, cells: map[string]map[colKey]*gridCell{}}
			byID[id] = pd
			ids = append(ids, id)
		}
		op := or(r.Op, r.Case)
		k := colKey{API: or(r.Backend(), results.Vulkan), Stage: or(r.Stage, results.Compute), WaveSize: r.WaveSize}
		pd.cols[k] = true
		if pd.cells[op] == nil {
			pd.cells[op] = map[colKey]*gridCell{}
		}
		c := pd.cells[op][k]
		if c == nil {
			c = &gridCell{byType: map[string]*verdictCounts{}, Test: fmt.Sprintf("%s|%s|%s|%d", op, k.API, k.Stage, k.WaveSize)}
			pd.cells[op][k] = c
		}
		v := r.Verdict()
		c.Counts.add(v)
		t := or(r.Type, "-")
		if r.Compiler != "" && r.Compiler != results.Ours {
			t += " (" + r.Compiler + ")"
		}
		if c.byType[t] == nil {
			c.byType[t] = &verdictCounts{}
		}
		c.byType[t].add(v)
	}
	sort.Slice(ids, func(i, j int) bool {
		if ids[i].Identity != ids[j].Identity {
			return ids[i].Identity < ids[j].Identity
		}
		return ids[i].Index < ids[j].Index
	})
	suf := Suffixes(ids)
	var out []grid
	for _, id := range ids {
		pd := byID[id]
		g := grid{Device: id.Identity + suf[id]}
		for k := range pd.cols {
			g.Columns = append(g.Columns, k)
		}
		sort.Slice(g.Columns, func(i, j int) bool {
			a, b := g.Columns[i], g.Columns[j]
			if a.API != b.API {
				return a.API < b.API
			}
			if a.Stage != b.Stage {
				return stageOrder(a.Stage) < stageOrder(b.Stage)
			}
			return a.WaveSize < b.WaveSize
		})
		var ops []string
		for op := range pd.cells {
			ops = append(ops, op)
		}
		sort.Strings(ops)
		for _, op := range ops {
			row := gridRow{Op: op}
			for _, k := range g.Columns {
				c := pd.cells[op][k]
				if c == nil {
					c = &gridCell{}
				} else {
					var types []string
					for t := range c.byType {
						types = append(types, t)
					}
					sort.Strings(types)
					for _, t := range types {
						c.Types = append(c.Types, typeCount{t, *c.byType[t]})
					}
					c.Title = fmt.Sprintf("%s · %s %s wave %d: %s", op, k.API, k.Stage, k.WaveSize, c.Counts)
					var worst []string
					for _, tc := range c.Types {
						if tc.Counts.Worst() == string(results.VerdictUnexpected) {
							worst = append(worst, tc.Type)
						}
					}
					if len(worst) > 0 {
						c.Title += "; unexpected in " + strings.Join(worst, ", ")
					}
				}
				row.Cells = append(row.Cells, c)
			}
			g.Rows = append(g.Rows, row)
		}
		out = append(out, g)
	}
	return out
}

func stageOrder(s string) int {
	switch s {
	case results.Compute:
		return 0
	case results.Pixel:
		return 1
	case results.Vertex:
		return 2
	case results.Task:
		return 3
	case results.Mesh:
		return 4
	}
	return 5
}

func appendNew(list []string, s string) []string {
	if s == "" || contains(list, s) {
		return list
	}
	return append(list, s)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func cssColor(c interface{ RGBA() (r, g, b, a uint32) }) string {
	r, g, b, _ := c.RGBA()
	return fmt.Sprintf("#%02x%02x%02x", r>>8, g>>8, b>>8)
}

// htmlTemplate is parsed on first use: `waverig compile` links this package
// too, and would otherwise pay for parsing it at every start.
var htmlTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Funcs(template.FuncMap{
		"join": strings.Join,
		"hex":  func(v uint32) string { return fmt.Sprintf("%#x", v) },
	}).Parse(pageHTML))
})

// pageHTML is the page. Its ids and classes are an interface too: the tests
// (and a driver team's scripts) find #summary, #needs, #expectations,
// #capabilities, #grid (td.cell.v-VERDICT with data-test="op|api|stage|size"),
// #failures (section.failure.v-VERDICT with data-test=NAME, img.heatmap),
// #parity and #skips. The script at the end only annotates the DOM: how many
// heatmaps the browser decoded (body data-loaded / data-images) and where the
// grid lies on the page (#grid data-top / data-bottom, CSS pixels).
const pageHTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>waverig: {{.Title}}</title>
<style>
body{font:13px/1.35 system-ui,-apple-system,"Segoe UI",sans-serif;margin:1.2em 2em;color:#1a1a1a;background:#fff}
h1{font-size:1.5em;margin:0 0 .3em}h2{font-size:1.2em;margin:1.4em 0 .4em;border-bottom:2px solid #ddd;padding-bottom:.15em}
h3{font-size:1em;margin:1em 0 .3em}h4{font-size:.95em;margin:.7em 0 .2em}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;vertical-align:top}th{background:#f0f0f0;font-weight:600}
code,.mono,pre{font-family:ui-monospace,"DejaVu Sans Mono",Menlo,monospace;font-size:12px}
pre{background:#f7f7f7;padding:6px;overflow:auto;margin:.3em 0}
.kv{display:grid;grid-template-columns:max-content 1fr;gap:1px 12px}.kv dt{color:#555}.kv dd{margin:0}
.totals{display:flex;flex-wrap:wrap;gap:6px;margin:.6em 0}.totals span{border:1px solid #ccc;border-radius:4px;padding:3px 8px;background:#fafafa}
.totals b{font-size:1.15em}.totals span.v-unexpected{background:#d7261e;color:#fff;border-color:#d7261e}
.exit-ok{color:#1d6b2a;font-weight:700}.exit-bad{color:#b3140c;font-weight:700}
.note{background:#fff6d6;border-left:4px solid #e0b000;padding:4px 8px;margin:.4em 0}
.nothing{background:#e5f5e7;border-left:4px solid #3ca04a;padding:6px 10px;font-weight:600}
.need h3{margin-top:.6em}.need ul{margin:.2em 0;padding-left:1.4em}.need li{margin:1px 0}
.v-unexpected{background:#d7261e;color:#fff}.v-improved{background:#8e44ad;color:#fff}.v-flake{background:#f0a020;color:#000}
.v-known{background:#9db4c8;color:#000}.v-pass{background:#3ca04a;color:#fff}.v-skip{background:#e4e4e4;color:#666}.v-vacuous{background:#eee8c8;color:#666}.v-none{background:#fff}
.v-differs{background:#5bc0de;color:#000}
.badge{display:inline-block;padding:0 6px;border-radius:3px;font-size:11px;font-weight:600}
#grid table{font-size:11px}#grid th{white-space:nowrap}#grid td.op{white-space:nowrap;font-family:ui-monospace,monospace}
td.cell{text-align:center;min-width:3.2em;padding:1px 3px}td.cell details summary{list-style:none;cursor:pointer}
td.cell details summary::-webkit-details-marker{display:none}td.cell details ul{text-align:left;margin:2px 0;padding:0;list-style:none}
td.cell details li{padding:0 3px;margin:1px 0;white-space:nowrap}
.legend span{display:inline-block;padding:1px 8px;margin-right:4px;border-radius:3px;font-size:11px}
.caps td.y{background:#3ca04a;color:#fff;text-align:center}.caps td.n{background:#f3d3d1;color:#7a1b14;text-align:center}
.caps th.rot{writing-mode:vertical-rl;transform:rotate(180deg);font-weight:500;font-size:11px;padding:4px 2px}
.caps .unsup{color:#999}
.cols{display:grid;grid-template-columns:max-content minmax(20em,1fr);gap:2em;align-items:start}
section.failure{border:1px solid #ddd;border-left-width:6px;padding:4px 10px;margin:.8em 0}
section.failure.v-unexpected,section.failure.v-improved,section.failure.v-flake,section.failure.v-known{background:#fff;color:inherit}
section.failure.v-unexpected{border-left-color:#d7261e}section.failure.v-improved{border-left-color:#8e44ad}
section.failure.v-flake{border-left-color:#f0a020}section.failure.v-known{border-left-color:#9db4c8}
table.lanes td{font-family:ui-monospace,monospace;font-size:12px;text-align:right}table.lanes td.l{text-align:left}
.heat{display:flex;align-items:flex-start;gap:4px;margin:.4em 0}.heat .keys{font:10px/13px ui-monospace,monospace;padding-top:1px;text-align:right;color:#555}
.heat .keys div{height:13px}img.heatmap{image-rendering:pixelated;display:block}.lanes-axis{font-size:10px;color:#555}
.swatch{display:inline-block;width:10px;height:10px;vertical-align:middle;margin:0 3px 0 8px;border:1px solid #999}
</style></head>
<body data-loaded="0">
<header id="summary">
<h1>waverig — {{.Title}}</h1>
<dl class="kv">
<dt>device{{if gt (len .Devices) 1}}s{{end}}</dt><dd>{{range $i, $d := .Devices}}{{if $i}}; {{end}}{{$d}}{{else}}—{{end}}</dd>
<dt>driver{{if gt (len .Drivers) 1}}s{{end}}</dt><dd>{{range $i, $d := .Drivers}}{{if $i}}; {{end}}{{$d}}{{else}}—{{end}}</dd>
<dt>exit status</dt><dd id="exit">{{if .Summary}}<span class="{{.ExitClass}}">{{.Exit}}</span>{{else}}not recorded (no summary.json){{end}}</dd>
{{with .Summary}}{{if .Host}}<dt>host</dt><dd>{{.Host}}</dd>{{end}}
{{if .Started}}<dt>started</dt><dd>{{.Started}}</dd>{{end}}
{{if .Command}}<dt>command</dt><dd><code>{{join .Command " "}}</code></dd>{{end}}
{{if .Version}}<dt>version</dt><dd><code>{{.Version}}</code></dd>{{end}}
{{if .Shard}}<dt>shard</dt><dd>{{.Shard}}</dd>{{end}}
{{if .Merged}}<dt>merged from</dt><dd>{{range $i, $m := .Merged}}{{if $i}}, {{end}}<code>{{$m}}</code>{{end}}</dd>{{end}}{{end}}
</dl>
<div class="totals" id="totals">
<span>cases <b>{{.Total.Cases}}</b></span><span>passed <b>{{.Total.Passed}}</b></span><span>failed <b>{{.Total.Failed}}</b></span>
<span>errors <b>{{.Total.Errors}}</b></span><span>skipped <b>{{.Total.Skipped}}</b></span><span>known <b>{{.Total.Known}}</b></span>
<span>flakes <b>{{.Total.Flakes}}</b></span><span>improved <b>{{.Total.Improved}}</b></span>
<span{{if .Total.Unexpected}} class="v-unexpected"{{end}}>unexpected <b>{{.Total.Unexpected}}</b></span>
{{if .Total.Differs}}<span>parity differences <b>{{.Total.Differs}}</b></span>{{end}}
<span>seconds <b>{{if .Seconds}}{{.Seconds}}{{else}}—{{end}}</b></span>
</div>
{{if .CountsDiffer}}<p class="note">summary.json's totals differ from the records in results.jsonl (the file was edited, merged or cut off after the run): the counts above are the records'.</p>{{end}}
{{range .Notes}}<p class="note">{{.}}</p>{{end}}
</header>

<section id="needs" class="need">
<h2>What needs you</h2>
{{if .NothingNeedsYou}}<p class="nothing" id="nothing">Nothing: no regressions, no unexpected improvements, no flakes, no stale baseline lines.</p>{{end}}
{{with .Regressions}}{{if .Items}}<h3 id="regressions">Regressions — new Fail, Crash or Timeout ({{len .Items}}{{if .More}} + {{.More}}{{end}})</h3>
<ul>{{range .Items}}<li><span class="badge v-unexpected">{{.Status}}</span> {{template "needItem" .}}</li>{{end}}</ul>{{if .More}}<p>… and {{.More}} more (results.csv.gz has every one).</p>{{end}}{{end}}{{end}}
{{with .Improved}}{{if .Items}}<h3 id="improved">Unexpected improvements — the baseline must change ({{len .Items}}{{if .More}} + {{.More}}{{end}})</h3>
<ul>{{range .Items}}<li><span class="badge v-improved">{{.Status}}</span> {{template "needItem" .}}</li>{{end}}</ul>{{if .More}}<p>… and {{.More}} more.</p>{{end}}{{end}}{{end}}
{{with .Flakes}}{{if .Items}}<h3 id="flakes">Flakes — failed, then passed on a re-run; KnownFlake: flakes.txt names it ({{len .Items}}{{if .More}} + {{.More}}{{end}})</h3>
<ul>{{range .Items}}<li><span class="badge v-flake">{{.Status}}</span> {{template "needItem" .}}</li>{{end}}</ul>{{if .More}}<p>… and {{.More}} more.</p>{{end}}{{end}}{{end}}
{{if .Stale}}<h3 id="stale">Stale baseline lines — they matched cases of this run, none of which failed: remove or narrow them ({{len .Stale}})</h3>
<ul>{{range .Stale}}<li><code>{{.}}</code></li>{{end}}</ul>{{end}}
</section>

<section id="expectations">
<h2>Expectation files used</h2>
{{with .Expectation}}{{if .Devices}}<table><tr><th>device</th><th>driver</th><th>baselines (in order)</th><th>files (lines)</th><th>re-runs of a new failure</th></tr>
{{range .Devices}}<tr><td>{{.Device}}{{if .Index}} #{{.Index}}{{end}}</td><td>{{.Driver}}</td><td>{{range .Baselines}}<code>{{.}}</code><br>{{else}}none{{end}}</td>
<td>{{range $f, $n := .Files}}<code>{{$f}}</code> ({{$n}})<br>{{else}}none{{end}}</td><td>{{.Retries}}</td></tr>{{end}}</table>
{{else}}<p>expectation.json lists no device: no baseline was applied.</p>{{end}}
{{else}}<p>No expectation.json in the run directory (a run before baselines, or a report of results.jsonl alone).{{if .ExpectationFiles}} summary.json says these files were applied:{{end}}</p>
{{if .ExpectationFiles}}<ul>{{range .ExpectationFiles}}<li><code>{{.}}</code></li>{{end}}</ul>{{end}}{{end}}
</section>

<section id="capabilities">
<h2>Device capabilities</h2>
{{if .CapsNote}}<p class="note" id="no-devices">{{.CapsNote}}</p>{{end}}
{{range .Caps}}<div class="caps" data-device-index="{{.Index}}">
<h3>[{{.Index}}] {{.Name}}{{if .Type}} <span class="badge v-skip">{{.Type}}</span>{{end}}</h3>
<div class="cols"><div>
<table><tr><th>stage \ operations</th>{{range .Ops}}<th class="rot" title="{{.Flag}}">{{.Short}}</th>{{end}}</tr>
{{range .Stages}}<tr><th{{if not .Supported}} class="unsup"{{end}} title="{{.Flag}}">{{.Short}}</th>{{range .Cells}}<td class="{{if .OK}}y{{else}}n{{end}}" title="{{.Title}}">{{if .OK}}✓{{else}}·{{end}}</td>{{end}}</tr>
{{end}}</table></div>
<div><dl class="kv">
<dt>driver</dt><dd>{{.DriverName}}{{if .DriverInfo}} — {{.DriverInfo}}{{end}}{{if .DriverID}} <code>{{.DriverID}}</code>{{end}}</dd>
<dt>driver version</dt><dd>{{.DriverVersion}}</dd><dt>Vulkan</dt><dd>{{.API}}{{if .Conformance}} (conformance {{.Conformance}}){{end}}</dd>
<dt>subgroupSize</dt><dd><b>{{.SubgroupSize}}</b></dd>
<dt>size control</dt><dd>{{if .MaxSize}}min {{.MinSize}}, max {{.MaxSize}}{{if .RequiredStages}}; required size in {{join .RequiredStages ", "}}{{end}}{{else}}none (no VK_EXT_subgroup_size_control){{end}}</dd>
<dt>quadOperationsInAllStages</dt><dd>{{if .QuadAllStages}}yes{{else}}no{{end}}</dd>
<dt>features</dt><dd>{{range .Features}}<span class="badge {{if .On}}v-pass{{else}}v-skip{{end}}" title="{{if .On}}supported{{else}}not supported{{end}}">{{.Name}}</span> {{end}}</dd>
<dt>extensions</dt><dd>{{range .Extensions}}<code>{{.}}</code><br>{{else}}none subgroup-related{{end}}<span class="mono">({{.ExtensionCount}} in all)</span></dd>
</dl></div></div></div>
{{end}}
{{if or .WebGPU .WebGPUError}}<h3>WebGPU adapters (wgpu-native)</h3>
{{if .WebGPUError}}<p class="note">{{.WebGPUError}}</p>{{end}}
{{if .WebGPU}}<table><tr><th>#</th><th>adapter</th><th>backend</th><th>driver</th><th>subgroup</th><th>in vertex</th><th>f16</th><th>wave sizes (measured)</th></tr>
{{range .WebGPU}}<tr><td>{{.Index}}</td><td>{{.Name}}</td><td>{{.Backend}}</td><td>{{.Driver}}</td><td>{{if .Subgroup}}yes{{else}}no{{end}}</td><td>{{if .SubgroupVertex}}yes{{else}}no{{end}}</td><td>{{if .ShaderF16}}yes{{else}}no{{end}}</td>
<td>{{range .WaveSizes}}{{.}} {{else}}{{.ProbeError}}{{end}}</td></tr>{{end}}</table>{{end}}{{end}}
</section>

<section id="grid">
<h2>Operations × API, stage and wave size</h2>
<p class="legend">Each cell: an operation's cases there (every type, pattern, shape and compiler), coloured by the worst verdict among them; open it for the types. “2✗/40”: 2 of 40 cases that ran need a look; “3k/40”: 3 known.
{{range .VerdictLegend}}<span class="v-{{.}}">{{.}}</span>{{end}}</p>
{{range .Grids}}{{if gt (len $.Grids) 1}}<h3>{{.Device}}</h3>{{end}}
<table class="grid"><tr><th rowspan="2">operation</th>{{range .Columns}}<th>{{.API}} {{.Stage}}</th>{{end}}</tr>
<tr>{{range .Columns}}<th>wave {{.WaveSize}}</th>{{end}}</tr>
{{range .Rows}}<tr><td class="op">{{.Op}}</td>{{range .Cells}}{{if .Test}}<td class="cell v-{{.Counts.Worst}}" data-test="{{.Test}}" title="{{.Title}}"><details><summary>{{.Counts.Label}}</summary><ul>{{range .Types}}<li class="v-{{.Counts.Worst}}" title="{{.Counts}}">{{.Type}} {{.Counts.Label}}</li>{{end}}</ul></details></td>{{else}}<td class="cell v-none"></td>{{end}}{{end}}</tr>
{{end}}</table>
{{else}}<p>No records.</p>{{end}}
</section>

<section id="failures">
<h2>Failures</h2>
{{if .Failures}}<p>Unexpected first, then unexpected improvements, flakes and known problems. Heatmap: a row per wave (its key on the left), a column per lane;
<span class="swatch" style="background:{{.HeatFail}}"></span>failing <span class="swatch" style="background:{{.HeatPass}}"></span>active, not failing
<span class="swatch" style="background:{{.HeatInactive}}"></span>inactive <span class="swatch" style="background:{{.HeatUnknown}}"></span>mask not recorded.</p>
{{range .Failures}}<section class="failure v-{{.Verdict}}" id="{{.Anchor}}" data-test="{{.Name}}">
<h3><span class="badge v-{{.Verdict}}">{{.Status}}</span> <code>{{.Name}}</code></h3>
<dl class="kv"><dt>device</dt><dd>{{.Device}} ({{.Driver}})</dd>
{{if .Reason}}<dt>reason</dt><dd class="reason">{{.Reason}}</dd>{{end}}
{{if .Known}}<dt>baseline</dt><dd><code>{{.Known}}</code></dd>{{end}}
{{if .Blame}}<dt>blamed on</dt><dd>{{.Blame}}: waverig's compiler passed the same case on this device</dd>{{end}}
{{if .Helpers}}<dt>helper lanes</dt><dd>{{.Helpers}}</dd>{{end}}
{{if .Repeats}}<dt>repeated vertices</dt><dd>{{.Repeats}}</dd>{{end}}
{{if .Attempts}}<dt>attempts</dt><dd>{{.Attempts}}</dd>{{end}}
{{if .Duration}}<dt>duration</dt><dd>{{.Duration}}</dd>{{end}}
{{if .Kernel}}<dt>kernel</dt><dd><code>{{.Kernel}}</code> (repro/)</dd>{{end}}</dl>
{{if .Heatmap}}<div class="heat"><div class="keys">{{range .HeatmapWaves}}<div>{{.}}</div>{{end}}</div>
<div><img class="heatmap" src="{{.Heatmap}}" width="{{.HeatmapW}}" height="{{.HeatmapH}}" alt="lanes of {{.Name}}"><div class="lanes-axis">lanes 0–{{.HeatmapLast}} →</div></div></div>{{end}}
{{if .HeatmapErr}}<p class="note">heatmap: {{.HeatmapErr}}</p>{{end}}
{{if .Lanes}}<table class="lanes"><tr><th>wave key</th><th>lane</th><th>active mask</th><th>input</th><th>expected</th><th>actual</th></tr>
{{range .Lanes}}<tr><td>{{hex .WaveKey}}</td><td>{{.Lane}}</td><td class="l">{{.ActiveMask}}</td><td class="l">{{.Input}}</td><td class="l">{{.Expected}}</td><td class="l">{{.Actual}}</td></tr>
{{end}}</table>{{end}}
</section>
{{end}}
{{if .MoreFailures}}<p id="more-failures">… and {{.MoreFailures}} more failing cases: every one, with its lanes, is in results.jsonl.</p>{{end}}
{{else}}<p>None.</p>{{end}}
</section>

<section id="parity">
<h2>Cross-API parity differences</h2>
{{if .Parity}}<p>The same case on one device gave different outputs on two APIs (both may be legal: each side's own verdict is above).</p>
{{range .Parity}}<h3><code>{{.Name}}</code></h3>{{if .Reason}}<p>{{.Reason}}</p>{{end}}<pre>{{range .Parity}}{{.}}
{{end}}</pre>{{end}}
{{if .MoreParity}}<p>… and {{.MoreParity}} more.</p>{{end}}
{{else}}<p>None.</p>{{end}}
</section>

<section id="skips">
<h2>Skipped, by reason</h2>
{{if .SkipReasons}}<table><tr><th>cases</th><th>reason</th></tr>{{range .SkipReasons}}<tr><td>{{.Count}}</td><td>{{.Reason}}</td></tr>{{end}}</table>{{else}}<p>None.</p>{{end}}
</section>
<script>
// Annotates the DOM only: the heatmaps the browser decoded, and where the grid is.
window.addEventListener("load", function () {
  var imgs = document.querySelectorAll("img.heatmap"), n = 0;
  for (var i = 0; i < imgs.length; i++) { if (imgs[i].complete && imgs[i].naturalWidth > 0) { n++; } }
  document.body.setAttribute("data-images", String(imgs.length));
  document.body.setAttribute("data-loaded", String(n));
  var g = document.getElementById("grid"), t = g.querySelector("table.grid") || g, r = t.getBoundingClientRect();
  g.setAttribute("data-top", String(Math.round(r.top + window.scrollY)));
  g.setAttribute("data-bottom", String(Math.round(r.bottom + window.scrollY)));
});
</script>
</body></html>
{{define "needItem"}}<code>{{.Name}}</code> on {{.Device}}{{if .Line}} — <span class="line">{{.Line}}</span>{{end}}{{if .Anchor}} <a href="#{{.Anchor}}">details</a>{{end}}{{end}}
`
