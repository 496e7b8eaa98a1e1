// Package report turns the rig's records into what people act on: JUnit XML for
// CI dashboards, CSV for spreadsheets, a self-contained HTML page (html.go,
// with per-lane heatmaps from heatmap.go), and diffs between two runs (a
// baseline and a new driver version). It reads only the results package: what
// counts as a failure is results.Record.Verdict, and a failing lane is rendered
// by results.LaneFailure.String.
package report

import (
	"compress/gzip"
	"encoding/csv"
	"encoding/xml"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"waverig/harness/results"
)

// key identifies a case across runs: case, API, stage, compiler and wave size
// (a parity record is its own key: status "differs" never meets a case's).
func key(r results.Record) string {
	k := fmt.Sprintf("%s|%s|%s|%s|%d", r.Case, r.Backend(), r.Stage, r.Compiler, r.WaveSize)
	if r.Status == results.Differs {
		k += "|parity"
	}
	return k
}

// Change is one case whose outcome differs between two runs.
type Change struct {
	Case     string
	Compiler string // where it ran: "api stage compiler" (Record.Where)
	WaveSize uint32
	Before   results.Verdict // "" = absent
	After    results.Verdict // "" = absent
	Record   results.Record
	// Was is the baseline's record when the change is in its failing lanes.
	Was results.Record
}

// sameLanes reports whether two failing records failed on the same lanes with
// the same values (as recorded: at most the first lanes of each).
func sameLanes(a, b []results.LaneFailure) bool {
	if len(a) != len(b) {
		return false
	}
	seen := make(map[results.LaneFailure]int, len(a))
	for _, f := range a {
		seen[f]++
	}
	for _, f := range b {
		if seen[f] == 0 {
			return false
		}
		seen[f]--
	}
	return true
}

// Diff compares a baseline run with a new one, verdict by verdict: a case that
// failed as known in both runs is unchanged, a known failure that became an
// unexpected one is a regression.
type Diff struct {
	Regressions []Change // did not count before (or was absent), counts now
	Fixes       []Change // counted before, passes now
	New         []Change // not in the baseline, or another change of verdict
	Missing     []Change // in the baseline, not run now
	// FailureChanged: failing in both runs with the same verdict (a known
	// driver bug, a failure blamed on a compiler) but on other lanes or with
	// other values — a failure that already fails must not hide a new one.
	FailureChanged []Change
	Unchanged      int
}

// Compare diffs two runs case by case, whatever device they ran on: two runs of
// one device each (CompareDevices pairs the devices of runs of several).
func Compare(before, after []results.Record) Diff {
	var d Diff
	old := map[string]results.Record{}
	for _, r := range before {
		old[key(r)] = r
	}
	seen := map[string]bool{}
	for _, r := range after {
		k := key(r)
		seen[k] = true
		b, ok := old[k]
		c := Change{Case: r.Case, Compiler: r.Where(), WaveSize: r.WaveSize, After: r.Verdict(), Record: r}
		if ok {
			c.Before = b.Verdict()
		}
		switch {
		case ok && c.Before == c.After && b.Status == r.Status && r.Status == results.Fail && !sameLanes(b.Failures, r.Failures):
			c.Was = b
			d.FailureChanged = append(d.FailureChanged, c)
		case ok && c.Before == c.After && b.Status == r.Status:
			d.Unchanged++
		case c.After.Counts() && !c.Before.Counts():
			d.Regressions = append(d.Regressions, c)
		case c.Before.Counts() && c.After == results.VerdictPass:
			d.Fixes = append(d.Fixes, c)
		default:
			d.New = append(d.New, c)
		}
	}
	for _, r := range before {
		if !seen[key(r)] {
			d.Missing = append(d.Missing, Change{Case: r.Case, Compiler: r.Where(), WaveSize: r.WaveSize, Before: r.Verdict(), Record: r})
		}
	}
	return d
}

// DeviceIdentity is the device a record ran on, as runs are compared: the name
// without the vector width lavapipe puts in it ("llvmpipe (LLVM 15.0.6, 256
// bits)" is "llvmpipe (LLVM 15.0.6)"), which differs between the wave sizes of
// one run. The driver is not part of it: comparing two driver versions on one
// device is what baselines are for. (Parsed by hand: it is asked of every
// record of every report, and a regular expression was most of the HTML
// report's time on a run of 100,000 records.)
func DeviceIdentity(device string) string {
	rest, ok := strings.CutSuffix(device, " bits)")
	if !ok {
		return device
	}
	i := strings.LastIndex(rest, ", ")
	if i < 0 || i+2 == len(rest) {
		return device
	}
	for _, c := range rest[i+2:] {
		if c < '0' || c > '9' {
			return device
		}
	}
	return rest[:i] + ")"
}

// DeviceID is one device of a run: its identity (DeviceIdentity of the name
// its records give), its driver (Record.Driver) and its index in the Vulkan
// enumeration (Record.DeviceIndex).
type DeviceID struct {
	Identity string
	Driver   string
	Index    int
}

// IDOf is the device a record ran on.
func IDOf(r results.Record) DeviceID {
	return DeviceID{DeviceIdentity(r.Device), r.Driver, r.DeviceIndex}
}

// Suffixes says what tells each device apart from the other devices of its
// run: "" where it is the run's only device of its identity; " [release]"
// (DriverLabel) where devices of one identity run different drivers (lavapipe
// from two Mesa releases: same name, same ids); " #index" where devices of one
// identity share the driver too (two identical GPUs in one host).
func Suffixes(ids []DeviceID) map[DeviceID]string {
	drivers := map[string]map[string]bool{}
	indices := map[[2]string]map[int]bool{}
	for _, id := range ids {
		if drivers[id.Identity] == nil {
			drivers[id.Identity] = map[string]bool{}
		}
		drivers[id.Identity][id.Driver] = true
		k := [2]string{id.Identity, id.Driver}
		if indices[k] == nil {
			indices[k] = map[int]bool{}
		}
		indices[k][id.Index] = true
	}
	out := map[DeviceID]string{}
	for _, id := range ids {
		suf := ""
		if len(drivers[id.Identity]) > 1 {
			suf = " [" + DriverLabel(id.Identity, id.Driver) + "]"
		}
		if len(indices[[2]string{id.Identity, id.Driver}]) > 1 {
			suf += fmt.Sprintf(" #%d", id.Index)
		}
		out[id] = suf
	}
	return out
}

// DriverLabel is the part of a device's driver string that the device's
// identity does not already say: "llvmpipe Mesa 25.0.7-2~bpo12+1 (LLVM
// 15.0.6)" on "llvmpipe (LLVM 15.0.6)" is "Mesa 25.0.7-2~bpo12+1" (the words
// of the driver string that are words of the identity are dropped). A driver
// string made only of such words is kept whole.
func DriverLabel(identity, driver string) string {
	trim := func(w string) string { return strings.Trim(w, "(),") }
	have := map[string]bool{}
	for _, w := range strings.Fields(identity) {
		have[trim(w)] = true
	}
	var keep []string
	for _, w := range strings.Fields(driver) {
		if !have[trim(w)] {
			keep = append(keep, w)
		}
	}
	if len(keep) == 0 {
		return strings.TrimSpace(driver)
	}
	return strings.Join(keep, " ")
}

// deviceSuffix gives the Suffixes of a run's records.
func deviceSuffix(recs []results.Record) func(results.Record) string {
	set := map[DeviceID]bool{}
	var ids []DeviceID
	for _, r := range recs {
		if id := IDOf(r); !set[id] {
			set[id] = true
			ids = append(ids, id)
		}
	}
	suf := Suffixes(ids)
	return func(r results.Record) string { return suf[IDOf(r)] }
}

// Devices lists the distinct devices of a run's records by name: the identity,
// with " #index" where two devices of the run share it.
func Devices(recs []results.Record) []string {
	suf := deviceSuffix(recs)
	return distinct(recs, func(r results.Record) string { return DeviceIdentity(r.Device) + suf(r) })
}

// MatchDevice returns the records of baseline (one run's) that ran on the
// device id of another run: the baseline's only device of that identity (a
// run of one device, or an older results file without device indices: another
// driver release of the same device is what a baseline is compared with);
// where the baseline has several, the one with the same driver (the same
// driver at the same index where it has that driver twice), else the one at
// the same index (one of two drivers upgraded). ok is false when the baseline
// did not run the device.
func MatchDevice(baseline []results.Record, id DeviceID) (recs []results.Record, ok bool) {
	by := map[DeviceID][]results.Record{}
	for _, r := range baseline {
		by[IDOf(r)] = append(by[IDOf(r)], r)
	}
	var same, sameDriver []DeviceID
	for d := range by {
		if d.Identity == id.Identity {
			same = append(same, d)
			if d.Driver == id.Driver {
				sameDriver = append(sameDriver, d)
			}
		}
	}
	switch {
	case len(same) == 1:
		return by[same[0]], true
	case len(sameDriver) == 1:
		return by[sameDriver[0]], true
	case len(sameDriver) > 1:
		same = sameDriver
	}
	for _, d := range same {
		if d.Index == id.Index {
			return by[d], true
		}
	}
	return nil, false
}

// DeviceDiff is the comparison of one device between two runs.
type DeviceDiff struct {
	Device string // as Devices names it in the new run
	Diff   Diff
}

// CompareDevices compares two runs device by device (MatchDevice): the same
// case on two devices of one run is two cases. It refuses runs whose devices do
// not pair up (a device of either run that the other did not run).
func CompareDevices(before, after []results.Record) ([]DeviceDiff, error) {
	ids, byID := splitDevices(after)
	suf := Suffixes(ids)
	var out []DeviceDiff
	matched := 0
	for _, id := range ids {
		old, ok := MatchDevice(before, id)
		if !ok {
			return nil, fmt.Errorf("the new run's device %s is not in the baseline (baseline: %v; new: %v)", id.Identity+suf[id], Devices(before), Devices(after))
		}
		matched += len(old)
		out = append(out, DeviceDiff{Device: id.Identity + suf[id], Diff: Compare(old, byID[id])})
	}
	if matched != len(before) {
		return nil, fmt.Errorf("the baseline ran devices the new run did not (baseline: %v; new: %v)", Devices(before), Devices(after))
	}
	return out, nil
}

// splitDevices groups records by device, devices in name order.
func splitDevices(recs []results.Record) ([]DeviceID, map[DeviceID][]results.Record) {
	by := map[DeviceID][]results.Record{}
	var ids []DeviceID
	for _, r := range recs {
		id := IDOf(r)
		if by[id] == nil {
			ids = append(ids, id)
		}
		by[id] = append(by[id], r)
	}
	sort.Slice(ids, func(i, j int) bool {
		if ids[i].Identity != ids[j].Identity {
			return ids[i].Identity < ids[j].Identity
		}
		return ids[i].Index < ids[j].Index
	})
	return ids, by
}

// Drivers lists the distinct drivers of a run's records.
func Drivers(recs []results.Record) []string {
	return distinct(recs, func(r results.Record) string { return r.Driver })
}

func distinct(recs []results.Record, key func(results.Record) string) []string {
	set := map[string]bool{}
	for _, r := range recs {
		set[key(r)] = true
	}
	var out []string
	for d := range set {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}

// WriteText prints a diff for people.
func (d Diff) WriteText(w io.Writer, before, after string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "baseline: %s\nnew:      %s\n", before, after)
	fmt.Fprintf(&b, "%d regressions, %d fixes, %d failures changed, %d new or changed, %d missing, %d unchanged\n",
		len(d.Regressions), len(d.Fixes), len(d.FailureChanged), len(d.New), len(d.Missing), d.Unchanged)
	section := func(title string, cs []Change) {
		if len(cs) == 0 {
			return
		}
		fmt.Fprintf(&b, "\n%s:\n", title)
		for _, c := range cs {
			fmt.Fprintf(&b, "  %-50s %-22s wave %-3d %s -> %s", c.Case, c.Compiler, c.WaveSize, or(string(c.Before), "-"), or(string(c.After), "-"))
			if len(c.Record.Failures) > 0 {
				fmt.Fprintf(&b, "  (%s)", c.Record.Failures[0])
			}
			fmt.Fprintln(&b)
		}
	}
	section("regressions", d.Regressions)
	section("fixes", d.Fixes)
	if len(d.FailureChanged) > 0 {
		fmt.Fprintf(&b, "\nfailures that changed (the same verdict, other lanes or values):\n")
		for _, c := range d.FailureChanged {
			fmt.Fprintf(&b, "  %-50s %-22s wave %-3d %s: %d failing lanes -> %d\n", c.Case, c.Compiler, c.WaveSize, c.After, len(c.Was.Failures), len(c.Record.Failures))
			if len(c.Was.Failures) > 0 {
				fmt.Fprintf(&b, "      was: %s\n", c.Was.Failures[0])
			}
			if len(c.Record.Failures) > 0 {
				fmt.Fprintf(&b, "      now: %s\n", c.Record.Failures[0])
			}
		}
	}
	section("new or changed", d.New)
	section("missing from the new run", d.Missing)
	_, err := io.WriteString(w, b.String())
	return err
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
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Body    string `xml:",chardata"`
}

// junitGroup is an aggregated testcase: the cases of one operation in one
// suite that ended the same uneventful way (passed; skipped for one reason;
// vacuous; failed as one baseline line says).
type junitGroup struct {
	at    int      // the testcase's index in its suite
	what  string   // how they ended, for the name: "passed", "skipped (reason)"
	cases []string // for known problems: "case: status" a line
	n     int
}

// WriteJUnit writes one test suite per (device, API, stage, compiler, wave
// size); two devices of one name are told apart by what Suffixes puts after
// the name (the driver release, or " #index").
//
// Every record a CI system must show on its own is a testcase of its own with
// its full account (Describe): an unexpected failure or error, an unexpected
// improvement, a flake, a parity difference. The rest — passes, skips,
// vacuous cases and known problems, nearly all of a run's 300,000 records —
// are aggregated per operation (and skip reason, or baseline line) into one
// testcase whose name says how many cases it stands for ("WaveActiveSum: 412
// cases passed"); a known problem's testcase lists its cases. The suite's
// tests, failures, errors and skipped attributes count records, not
// testcases, so dashboards show the run's true totals.
func WriteJUnit(w io.Writer, recs []results.Record) error {
	suites := map[string]*junitSuite{}
	groups := map[string]map[string]*junitGroup{} // suite -> group key -> group
	var names []string
	suf := deviceSuffix(recs)
	for _, r := range recs {
		name := fmt.Sprintf("%s%s/%s/wave%d", r.Device, suf(r), strings.ReplaceAll(r.Where(), " ", "/"), r.WaveSize)
		s := suites[name]
		if s == nil {
			s = &junitSuite{Name: name}
			suites[name] = s
			groups[name] = map[string]*junitGroup{}
			names = append(names, name)
		}
		s.Tests++
		op := r.Op
		if op == "" {
			op = r.Case // the layout check
		}
		// group adds r to the aggregated testcase of its operation and kind
		// (made at the first such record, where the case would have been).
		group := func(what string, skipped *junitMessage) *junitGroup {
			k := op + "\x00" + what
			g := groups[name][k]
			if g == nil {
				g = &junitGroup{at: len(s.Cases), what: what}
				groups[name][k] = g
				s.Cases = append(s.Cases, junitCase{Classname: "waverig." + op, Skipped: skipped})
			}
			g.n++
			if skipped != nil {
				s.Skipped++
			}
			return g
		}
		c := junitCase{Name: r.Case, Classname: "waverig." + op}
		// JUnit's failure/error is what fails the run (Verdict); a known problem
		// is reported as skipped with its expectation entry, so dashboards stay
		// green on known bugs and still show them.
		switch v := r.Verdict(); {
		case v == results.VerdictImproved:
			// Better than the baseline: the line must change before it hides a
			// bug coming back.
			c.Failure = &junitMessage{Message: fmt.Sprintf("%s: the baseline expects %s (%s); update it (failures.csv is the next fails.csv)", r.RunStatus(), r.Expected, r.Known), Body: r.Describe()}
			s.Failures++
		case v.Counts() && r.Status != results.Fail:
			c.Error = &junitMessage{Message: r.Headline(), Body: r.Describe()}
			s.Errors++
		case v.Counts():
			c.Failure = &junitMessage{Message: r.Headline(), Body: r.Describe()}
			s.Failures++
		case v == results.VerdictFlake:
			c.SystemOut = "Flake: " + r.Describe()
		case v == results.VerdictDiffers:
			// Both APIs' outputs may be legal: shown, not failed.
			c.Name += " (parity)"
			c.SystemOut = r.Describe()
		case v == results.VerdictKnown:
			// The line's reason once; which cases, and how each ended (the lanes
			// are in results.jsonl and the line's repro bundle).
			g := group("known problem ("+knownWhere(r.Known)+")", &junitMessage{Message: "known problem: " + r.Known})
			g.cases = append(g.cases, r.Case+": "+r.RunStatus())
			continue
		case v == results.VerdictSkip:
			group("skipped ("+r.Reason+")", &junitMessage{Message: r.Reason})
			continue
		case v == results.VerdictVacuous:
			// It ran, but nothing was compared: not a pass a dashboard should count.
			group("vacuous", &junitMessage{Message: "vacuous: the case compared no lane, so it could not fail"})
			continue
		default:
			group("passed", nil)
			continue
		}
		s.Cases = append(s.Cases, c)
	}
	sort.Strings(names)
	var out junitSuites
	for _, n := range names {
		s := suites[n]
		for _, g := range groups[n] {
			c := &s.Cases[g.at]
			if g.cases != nil {
				c.Skipped.Body = strings.Join(g.cases, "\n") + "\n"
			}
			c.Name = fmt.Sprintf("%s: %d %s %s", strings.TrimPrefix(c.Classname, "waverig."), g.n, plural(g.n, "case", "cases"), g.what)
		}
		out.Suites = append(out.Suites, *s)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	return enc.Encode(out)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// WriteCSV writes the CSV of a run (a run keeps it gzipped: WriteCSVGzip):
// one row per case, led by deqp-runner's three columns (test: the stable
// name; status: the outcome against the baseline — Pass, Fail, Crash,
// Timeout, Skip, Flake, KnownFlake, ExpectedFail, UnexpectedImprovement(X);
// duration: seconds) so its tools read it, then waverig's own (failing lanes
// summarised in failing_lanes and first_failure).
func WriteCSV(w io.Writer, recs []results.Record) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"test", "status", "duration", "case", "op", "type", "pattern", "shape", "wave_size", "api", "stage", "compiler", "device", "driver", "result", "verdict", "known", "blame", "helpers", "reason", "failing_lanes", "first_failure", "device_index", "attempts", "impl"})
	for _, r := range recs {
		if r.Case == results.LayoutCase || r.Status == results.Differs {
			// Not cases: the layout check and parity records are in results.jsonl.
			continue
		}
		cw.Write([]string{r.Name(), r.RunStatus(), strconv.FormatFloat(r.Duration, 'f', 6, 64), r.Case, r.Op, r.Type, r.Pattern, r.Shape, fmt.Sprint(r.WaveSize), r.API, r.Stage, r.Compiler, r.Device, r.Driver,
			r.Status, string(r.Verdict()), r.Known, r.Blame, r.Helpers, r.Reason, fmt.Sprint(len(r.Failures) + len(r.Parity)), firstFailure(r), fmt.Sprint(r.DeviceIndex), fmt.Sprint(max(r.Attempts, 1)), r.Impl})
	}
	cw.Flush()
	return cw.Error()
}

// knownWhere is the file:line of a record's Known (expect.Line.Known:
// "file:line: reason", or "file:line" for a line without a reason).
func knownWhere(known string) string {
	where, _, _ := strings.Cut(known, ": ")
	return where
}

// WriteCSVGzip writes results.csv.gz: WriteCSV, gzipped. One row per case is
// what deqp-runner's tools and a spreadsheet want, and a run has ~300,000:
// their test names alone are 20 MB, the whole CSV ~120 MB; gzipped it is
// 25-30 times smaller (the rows repeat their device, driver and reasons), as
// Mesa's CI keeps its results.csv (zstd) for the same reason.
func WriteCSVGzip(w io.Writer, recs []results.Record) error {
	z := gzip.NewWriter(w)
	if err := WriteCSV(z, recs); err != nil {
		return err
	}
	return z.Close()
}

func firstFailure(r results.Record) string {
	if len(r.Failures) == 0 {
		if len(r.Parity) > 0 {
			return r.Parity[0].String()
		}
		return ""
	}
	return r.Failures[0].String()
}
