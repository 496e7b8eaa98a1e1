package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"

	"waverig/devices"
	"waverig/harness/expect"
	"waverig/harness/pass"
	"waverig/harness/results"
)

// writeRunFiles writes what a run leaves beside its results for the people and
// tools that judge it: expectation.json (the baseline files each device was
// judged against, as deqp-runner writes it) and devices.json (`waverig devices
// -json` of every enumerated device, so deviceIndex in the records points into
// it; the HTML report's capability matrix).
func writeRunFiles(dir string, devs []devices.Device, idxs []int, sets []*expect.Set, retries int) error {
	var ex results.Expectation
	for _, idx := range idxs {
		d := devs[idx]
		de := results.DeviceExpectation{Index: idx, Device: d.Name, Driver: pass.DriverString(d), Files: map[string]int{}, Retries: retries, Baselines: []string{}}
		for _, s := range expect.For(sets, pass.DeviceString(d)).Sets {
			de.Baselines = append(de.Baselines, s.Name)
			for f, n := range s.Lines() {
				de.Files[filepath.ToSlash(filepath.Join(s.Name, f))] = n
			}
		}
		ex.Devices = append(ex.Devices, de)
	}
	if err := results.WriteFileAtomic(filepath.Join(dir, results.ExpectationFile), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(ex)
	}); err != nil {
		return err
	}
	return results.WriteFileAtomic(filepath.Join(dir, results.DevicesFile), func(w io.Writer) error {
		return devices.WriteJSON(w, devs)
	})
}

// judgeRun sets a run's exit status and its words in the summary (an
// incomplete run is 3 whatever it found, else 1 when anything counts) and
// returns it with the reports' title (the device and driver, or the devices).
func judgeRun(sum *results.Summary, incomplete, several bool) (exit int, title string) {
	exit = exitOK
	switch {
	case incomplete:
		exit = exitIncomplete
	case sum.Total.Unexpected > 0:
		exit = exitUnexpected
	case sum.Validation != nil && sum.Validation.Messages > 0:
		exit = exitUnexpected
	}
	sum.ExitStatus, sum.Verdict = exit, exitVerdict(exit)
	title = sum.Device + " — " + sum.Driver
	if several {
		title = sum.Device
	}
	return exit, title
}

// saveRun finishes a run directory (a run's or a merge's): first the files
// the reports read (files), then summary.json and the reports, then
// results.jsonl becomes results.jsonl.gz (Dir.Seal: the plain file stays until
// the compressed one is whole), then the directory is closed (its lock
// released, every append checked). An error means the results are not all on
// disk; the plain results.jsonl is then kept.
func saveRun(dir *results.Dir, files func() error, title string, recs []results.Record, sum *results.Summary) error {
	err := files()
	if err == nil {
		err = writeReports(dir.Path, title, recs, sum)
	}
	if err == nil {
		err = dir.Seal()
	}
	if cerr := dir.Close(); err == nil {
		err = cerr
	}
	return err
}

// hostName is the run's host for summary.json ("" when the OS will not say).
func hostName() string {
	h, _ := os.Hostname()
	return h
}

// buildVersion is set by scripts/build.sh (-ldflags -X main.buildVersion=…,
// `git describe`): builds with -buildvcs=false carry no VCS settings.
var buildVersion string

// version is waverig's version: the one build.sh stamped, else the VCS
// revision from the build info, with "+dirty" for a modified tree, else "devel".
func version() string {
	if buildVersion != "" {
		return buildVersion
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	rev, dirty := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "devel"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "+dirty"
	}
	return rev
}
