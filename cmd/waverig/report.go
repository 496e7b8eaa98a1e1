package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"waverig/harness/expect"
	"waverig/harness/report"
	"waverig/harness/results"
)

// writeReports writes summary.json (when sum is given) and the JUnit, CSV and
// HTML forms of a run next to its results file, each atomically; the first
// failure is returned. The HTML page also reads what the run left in dir
// (htmlPage): summary.json when sum is nil, expectation.json, devices.json.
func writeReports(dir, title string, recs []results.Record, sum *results.Summary) error {
	write := func(name string, f func(io.Writer) error) error {
		return results.WriteFileAtomic(filepath.Join(dir, name), f)
	}
	if sum != nil {
		if err := write(results.SummaryFile, func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(sum)
		}); err != nil {
			return err
		}
	}
	// The three forms are independent (each its own file, written atomically):
	// they are written at once, a run of 100,000 records waits for the slowest.
	forms := []struct {
		name string
		f    func(io.Writer) error
	}{
		{results.JUnitFile, func(w io.Writer) error { return report.WriteJUnit(w, recs) }},
		{results.CSVFile, func(w io.Writer) error { return report.WriteCSVGzip(w, recs) }},
		{results.FailuresFile, func(w io.Writer) error {
			_, err := io.WriteString(w, expect.FailuresCSV(recs))
			return err
		}},
		{results.HTMLFile, func(w io.Writer) error { return report.WriteHTML(w, htmlPage(dir, title, recs, sum)) }},
	}
	errs := make([]error, len(forms))
	var wg sync.WaitGroup
	for i, form := range forms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = write(form.name, form.f)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// htmlPage gathers the HTML report's inputs: the records and summary given,
// and from dir whatever of summary.json (when sum is nil), expectation.json and
// devices.json is there. Each is optional (a run directory of an older waverig
// has none of them); one that is there and cannot be read is named on the page
// instead of failing the report.
func htmlPage(dir, title string, recs []results.Record, sum *results.Summary) report.Page {
	p := report.Page{Title: title, Records: recs, Summary: sum}
	// read reports whether name was there and read into v.
	read := func(name string, v any) bool {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if errors.Is(err, fs.ErrNotExist) {
			return false
		}
		if err == nil {
			err = json.Unmarshal(data, v)
		}
		if err != nil {
			p.Notes = append(p.Notes, fmt.Sprintf("%s could not be read: %v", name, err))
			return false
		}
		return true
	}
	if sum == nil {
		var s results.Summary
		if read(results.SummaryFile, &s) {
			p.Summary = &s
		}
	}
	var e results.Expectation
	if read(results.ExpectationFile, &e) {
		p.Expectation = &e
	}
	// devices.json is kept as it is: the page reads the parts it shows.
	var devs json.RawMessage
	if read(results.DevicesFile, &devs) {
		p.Devices = devs
	}
	return p
}

// runReport is `waverig report DIR`: rewrite the JUnit/CSV/HTML reports of a run
// from its results.jsonl or results.jsonl.gz (e.g. one copied back from a
// device machine).
func runReport(args []string, stdout, stderr io.Writer) int {
	const usage = "waverig report DIR   (DIR holds results.jsonl or results.jsonl.gz)"
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	pos, code, cont := parseArgs(fs, args, stdout)
	if !cont {
		return code
	}
	if !wantArgs("report", pos, 1, 1, usage, stderr) {
		return exitUsage
	}
	path, err := results.FindResults(pos[0])
	if err != nil {
		fmt.Fprintf(stderr, "waverig report: %v\n", err)
		return exitUsage
	}
	recs, truncated, err := results.ReadJSONL(path)
	if err != nil {
		fmt.Fprintf(stderr, "waverig report: %v\n", err)
		return exitUsage
	}
	if truncated {
		fmt.Fprintf(stderr, "waverig report: %s: the last line is cut off; reporting the %d complete records\n", path, len(recs))
	}
	if err := writeReports(pos[0], pos[0], recs, nil); err != nil {
		fmt.Fprintf(stderr, "waverig report: %v\n", err)
		return exitIncomplete
	}
	fmt.Fprintf(stdout, "%d records: wrote %s, %s, %s in %s\n", len(recs), results.JUnitFile, results.CSVFile, results.HTMLFile, pos[0])
	return exitOK
}

// runDiff is `waverig diff BASELINE NEW`: regressions, fixes and changes
// between two runs of the same devices (e.g. two driver versions), device by
// device. Each side is a results file (.jsonl or .jsonl.gz) or a run directory
// (results.ResolveResults). Exit 1 on regressions; 2 when they are not two
// complete runs of the same devices.
func runDiff(args []string, stdout, stderr io.Writer) int {
	const usage = "waverig diff [-cross-device] BASELINE NEW   (each a run directory or its results.jsonl[.gz])"
	fs := flag.NewFlagSet("diff", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cross := fs.Bool("cross-device", false, "compare runs of different devices (otherwise refused)")
	pos, code, cont := parseArgs(fs, args, stdout)
	if !cont {
		return code
	}
	if !wantArgs("diff", pos, 2, 2, usage, stderr) {
		return exitUsage
	}
	var err error
	for i, p := range pos {
		if pos[i], err = results.ResolveResults(p); err != nil {
			fmt.Fprintf(stderr, "waverig diff: %s: %v\n", []string{"baseline", "new run"}[i], err)
			return exitUsage
		}
	}
	before, err := readRun(pos[0])
	if err != nil {
		fmt.Fprintf(stderr, "waverig diff: baseline: %v\n", err)
		return exitUsage
	}
	after, err := readRun(pos[1])
	if err != nil {
		fmt.Fprintf(stderr, "waverig diff: new run: %v\n", err)
		return exitUsage
	}
	var diffs []report.DeviceDiff
	if *cross {
		// Two devices compared case by case: one device on each side.
		if a, b := report.Devices(before), report.Devices(after); len(a) != 1 || len(b) != 1 {
			fmt.Fprintf(stderr, "waverig diff: -cross-device compares runs of one device each (baseline: %v; new: %v)\n", a, b)
			return exitUsage
		}
		diffs = []report.DeviceDiff{{Diff: report.Compare(before, after)}}
	} else if diffs, err = report.CompareDevices(before, after); err != nil {
		// Runs of several devices are compared device by device.
		fmt.Fprintf(stderr, "waverig diff: the runs are of different devices: %v; -cross-device compares two runs of one device each anyway\n", err)
		return exitUsage
	}
	fmt.Fprintf(stdout, "drivers: %v -> %v\n", report.Drivers(before), report.Drivers(after))
	regressions := 0
	for _, dd := range diffs {
		if len(diffs) > 1 {
			fmt.Fprintf(stdout, "\n== %s\n", dd.Device)
		}
		// A reader that went away (`| head`) does not change what the runs say.
		dd.Diff.WriteText(stdout, pos[0], pos[1])
		regressions += len(dd.Diff.Regressions)
	}
	if regressions > 0 {
		return exitUnexpected
	}
	return exitOK
}
