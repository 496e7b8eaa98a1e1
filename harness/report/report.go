// Package report turns the rig's records into what people act on: JUnit XML for
// CI dashboards, CSV for spreadsheets, a self-contained HTML page, and diffs
// between two runs (a baseline and a new driver version).
package report

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"html/template"
	"io"
	"os"
	"sort"
	"strings"
	"sync"

	"waverig/harness"
)

// ReadJSONL reads a results.jsonl file. A truncated last line (a run that was
// killed mid-write) is ignored, not fatal: every complete record is kept.
func ReadJSONL(path string) ([]harness.Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []harness.Record
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	line := 0
	var pending error // a bad line is fatal only if another line follows it
	for sc.Scan() {
		line++
		if len(strings.TrimSpace(sc.Text())) == 0 {
			continue
		}
		if pending != nil {
			return out, pending
		}
		var r harness.Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			pending = fmt.Errorf("%s:%d: %v", path, line, err)
			continue
		}
		out = append(out, r)
	}
	return out, sc.Err()
}

// key identifies a case across runs.
func key(r harness.Record) string {
	return fmt.Sprintf("%s|%s|%d", r.Case, r.Compiler, r.WaveSize)
}

// Change is one case whose outcome differs between two runs.
type Change struct {
	Case     string
	Compiler string
	WaveSize uint32
	Before   string // status in the baseline ("" = absent)
	After    string // status now ("" = absent)
	Record   harness.Record
}

// Diff compares a baseline run with a new one.
type Diff struct {
	Regressions []Change // passed before, fails now
	Fixes       []Change // failed before, passes now
	New         []Change // not in the baseline
	Missing     []Change // in the baseline, not run now
	Unchanged   int
}

// Compare diffs two runs case by case.
func Compare(before, after []harness.Record) Diff {
	var d Diff
	old := map[string]harness.Record{}
	for _, r := range before {
		old[key(r)] = r
	}
	seen := map[string]bool{}
	for _, r := range after {
		k := key(r)
		seen[k] = true
		b, ok := old[k]
		c := Change{Case: r.Case, Compiler: r.Compiler, WaveSize: r.WaveSize, After: r.Status, Record: r}
		switch {
		case !ok:
			d.New = append(d.New, c)
		case b.Status == r.Status:
			d.Unchanged++
		case b.Status == harness.Pass && (r.Status == harness.Fail || r.Status == harness.Error):
			c.Before = b.Status
			d.Regressions = append(d.Regressions, c)
		case (b.Status == harness.Fail || b.Status == harness.Error) && r.Status == harness.Pass:
			c.Before = b.Status
			d.Fixes = append(d.Fixes, c)
		default:
			c.Before = b.Status
			d.New = append(d.New, c)
		}
	}
	for _, r := range before {
		if !seen[key(r)] {
			d.Missing = append(d.Missing, Change{Case: r.Case, Compiler: r.Compiler, WaveSize: r.WaveSize, Before: r.Status, Record: r})
		}
	}
	return d
}

// WriteText prints a diff for people.
func (d Diff) WriteText(w io.Writer, before, after string) {
	fmt.Fprintf(w, "baseline: %s\nnew:      %s\n", before, after)
	fmt.Fprintf(w, "%d regressions, %d fixes, %d new or changed, %d missing, %d unchanged\n",
		len(d.Regressions), len(d.Fixes), len(d.New), len(d.Missing), d.Unchanged)
	section := func(title string, cs []Change) {
		if len(cs) == 0 {
			return
		}
		fmt.Fprintf(w, "\n%s:\n", title)
		for _, c := range cs {
			fmt.Fprintf(w, "  %-50s %-8s wave %-3d %s -> %s", c.Case, c.Compiler, c.WaveSize, or(c.Before, "-"), or(c.After, "-"))
			if len(c.Record.Failures) > 0 {
				f := c.Record.Failures[0]
				fmt.Fprintf(w, "  (lane %d: expected %s, actual %s)", f.Lane, f.Expected, f.Actual)
			}
			fmt.Fprintln(w)
		}
	}
	section("regressions", d.Regressions)
	section("fixes", d.Fixes)
	section("new or changed", d.New)
	section("missing from the new run", d.Missing)
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// JUnit XML (the subset CI systems read).
type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Error     *junitMessage `xml:"error,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Body    string `xml:",chardata"`
}

// WriteJUnit writes one test suite per (device, compiler, wave size).
func WriteJUnit(w io.Writer, recs []harness.Record) error {
	suites := map[string]*junitSuite{}
	var names []string
	for _, r := range recs {
		name := fmt.Sprintf("%s/%s/wave%d", r.Device, r.Compiler, r.WaveSize)
		s := suites[name]
		if s == nil {
			s = &junitSuite{Name: name}
			suites[name] = s
			names = append(names, name)
		}
		c := junitCase{Name: r.Case, Classname: "waverig." + r.Op}
		s.Tests++
		switch r.Status {
		case harness.Fail:
			if r.Blame != "" {
				c.Skipped = &junitMessage{Message: "blamed on " + r.Blame, Body: FailureText(r)}
				s.Skipped++
			} else {
				c.Failure = &junitMessage{Message: firstFailure(r), Body: FailureText(r)}
				s.Failures++
			}
		case harness.Error:
			c.Error = &junitMessage{Message: r.Reason, Body: r.Reason}
			s.Errors++
		case harness.Skip:
			c.Skipped = &junitMessage{Message: r.Reason}
			s.Skipped++
		}
		s.Cases = append(s.Cases, c)
	}
	sort.Strings(names)
	var out junitSuites
	for _, n := range names {
		out.Suites = append(out.Suites, *suites[n])
	}
	io.WriteString(w, xml.Header)
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	return enc.Encode(out)
}

func firstFailure(r harness.Record) string {
	if len(r.Failures) == 0 {
		return r.Reason
	}
	f := r.Failures[0]
	return fmt.Sprintf("lane %d of wave %#x: expected %s, actual %s", f.Lane, f.WaveKey, f.Expected, f.Actual)
}

// FailureText is the per-lane table of a failing record.
func FailureText(r harness.Record) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s [%s] wave size %d on %s (%s)\n", r.Case, r.Compiler, r.WaveSize, r.Device, r.Driver)
	if r.Reason != "" {
		fmt.Fprintf(&b, "%s\n", r.Reason)
	}
	for _, f := range r.Failures {
		fmt.Fprintf(&b, "wave %#x lane %d active %s input %s expected %s actual %s\n", f.WaveKey, f.Lane, f.ActiveMask, f.Input, f.Expected, f.Actual)
	}
	return b.String()
}

// WriteCSV writes one row per case (failing lanes summarised in the last columns).
func WriteCSV(w io.Writer, recs []harness.Record) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"case", "op", "type", "pattern", "shape", "wave_size", "compiler", "device", "driver", "status", "blame", "reason", "failing_lanes", "first_failure"})
	for _, r := range recs {
		cw.Write([]string{r.Case, r.Op, r.Type, r.Pattern, r.Shape, fmt.Sprint(r.WaveSize), r.Compiler, r.Device, r.Driver,
			r.Status, r.Blame, r.Reason, fmt.Sprint(len(r.Failures)), firstFailureIf(r)})
	}
	cw.Flush()
	return cw.Error()
}

func firstFailureIf(r harness.Record) string {
	if len(r.Failures) == 0 {
		return ""
	}
	return firstFailure(r)
}

// page is parsed on first use: `waverig compile` links this package too, and
// parsing the template at start-up would cost every compile process ~0.2 ms.
var page = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Parse(pageText))
})

const pageText = `<!doctype html>
<html><head><meta charset="utf-8"><title>waverig: {{.Title}}</title>
<style>
body{font:14px system-ui,sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}
th{background:#eee}.pass{background:#dfd}.fail{background:#fbb}.skip{background:#eee;color:#666}.error{background:#fc8}.blamed{background:#ffd}
td.l{text-align:left}pre{background:#f7f7f7;padding:6px;overflow:auto}
</style></head><body>
<h1>waverig results</h1>
<p>{{.Title}} — {{.Total}} cases: {{.Passed}} passed, {{.Failed}} failed, {{.Skipped}} skipped, {{.Blamed}} blamed on another compiler.</p>
<h2>Operation × wave size (failed / cases)</h2>
<table><tr><th>operation</th>{{range .Sizes}}<th>wave {{.}}</th>{{end}}</tr>
{{range .Rows}}<tr><td class="l">{{.Op}}</td>{{range .Cells}}<td class="{{.Class}}">{{.Failed}} / {{.Cases}}</td>{{end}}</tr>
{{end}}</table>
{{if .Failures}}<h2>Failures</h2>{{range .Failures}}<h3>{{.Case}} [{{.Compiler}}] wave {{.WaveSize}}</h3><pre>{{.Text}}</pre>{{end}}
{{if .MoreFailures}}<p>… and {{.MoreFailures}} more failing cases: every one, with its per-lane records, is in results.jsonl.</p>{{end}}{{end}}
{{if .SkipReasons}}<h2>Skipped, by reason</h2><ul>{{range .SkipReasons}}<li>{{.Count}} × {{.Reason}}</li>{{end}}</ul>{{end}}
</body></html>
`

// WriteHTML writes a self-contained page: a grid of operation × wave size and the
// per-lane tables of every failure.
func WriteHTML(w io.Writer, title string, recs []harness.Record) error {
	type cell struct {
		Failed, Cases int
		Class         string
	}
	type row struct {
		Op    string
		Cells []cell
	}
	type failure struct {
		Case, Compiler string
		WaveSize       uint32
		Text           string
	}
	type skip struct {
		Reason string
		Count  int
	}
	sizesSet := map[uint32]bool{}
	grid := map[string]map[uint32]*cell{}
	skips := map[string]int{}
	var data struct {
		Title                                  string
		Total, Passed, Failed, Skipped, Blamed int
		Sizes                                  []uint32
		Rows                                   []row
		Failures                               []failure
		MoreFailures                           int
		SkipReasons                            []skip
	}
	// The page stays readable (and small) on a bad night: driver failures first,
	// at most maxHTMLFailures lane tables; results.jsonl keeps everything.
	const maxHTMLFailures = 100
	var blamed []failure
	data.Title = title
	for _, r := range recs {
		data.Total++
		sizesSet[r.WaveSize] = true
		if grid[r.Op] == nil {
			grid[r.Op] = map[uint32]*cell{}
		}
		c := grid[r.Op][r.WaveSize]
		if c == nil {
			c = &cell{}
			grid[r.Op][r.WaveSize] = c
		}
		c.Cases++
		switch {
		case r.Status == harness.Pass:
			data.Passed++
		case r.Status == harness.Skip:
			data.Skipped++
			skips[r.Reason]++
		case r.Blame != "":
			data.Blamed++
			blamed = append(blamed, failure{r.Case, r.Compiler, r.WaveSize, "blamed on " + r.Blame + "\n" + FailureText(r)})
		default:
			data.Failed++
			c.Failed++
			data.Failures = append(data.Failures, failure{r.Case, r.Compiler, r.WaveSize, FailureText(r)})
		}
	}
	data.Failures = append(data.Failures, blamed...)
	if len(data.Failures) > maxHTMLFailures {
		data.MoreFailures = len(data.Failures) - maxHTMLFailures
		data.Failures = data.Failures[:maxHTMLFailures]
	}
	for s := range sizesSet {
		data.Sizes = append(data.Sizes, s)
	}
	sort.Slice(data.Sizes, func(i, j int) bool { return data.Sizes[i] < data.Sizes[j] })
	var ops []string
	for op := range grid {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	for _, op := range ops {
		rw := row{Op: op}
		for _, s := range data.Sizes {
			c := grid[op][s]
			if c == nil {
				rw.Cells = append(rw.Cells, cell{Class: "skip"})
				continue
			}
			c.Class = "pass"
			if c.Failed > 0 {
				c.Class = "fail"
			}
			rw.Cells = append(rw.Cells, *c)
		}
		data.Rows = append(data.Rows, rw)
	}
	for r, n := range skips {
		data.SkipReasons = append(data.SkipReasons, skip{r, n})
	}
	sort.Slice(data.SkipReasons, func(i, j int) bool { return data.SkipReasons[i].Reason < data.SkipReasons[j].Reason })
	return page().Execute(w, data)
}
