package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"waverig/harness/expect"
	"waverig/harness/report"
	"waverig/harness/results"
)

// runBaseline is `waverig baseline -out DIR RUN_DIR`: a baseline directory
// for the device of a run — fails.csv (the run's failures.csv), flakes.txt
// (its flakes, one exact name a line), skips.txt (empty) and driver.txt (a
// pattern matching its device and driver) — to commit where the driver's CI
// keeps it and to edit from then on. A run of several devices needs -device.
func runBaseline(args []string, stdout, stderr io.Writer) int {
	const usage = "waverig baseline -out DIR [-device N] RUN_DIR"
	fs := flag.NewFlagSet("baseline", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "the baseline directory to write (created; its baseline files are replaced)")
	dev := fs.Int("device", -1, "the device (its index in the run) when the run has several")
	pos, code, cont := parseArgs(fs, args, stdout)
	if !cont {
		return code
	}
	if !wantArgs("baseline", pos, 1, 1, usage, stderr) {
		return exitUsage
	}
	bad := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "waverig baseline: "+format+"\n", a...)
		return exitUsage
	}
	if *out == "" {
		return bad("-out DIR is required (%s)", usage)
	}
	path, err := results.FindResults(pos[0])
	if err != nil {
		return bad("%v", err)
	}
	recs, err := readRun(path)
	if err != nil {
		return bad("%v", err)
	}
	byDev := map[int][]results.Record{}
	for _, r := range recs {
		byDev[r.DeviceIndex] = append(byDev[r.DeviceIndex], r)
	}
	idx := *dev
	if idx < 0 {
		if len(byDev) > 1 {
			var have []string
			for i := range byDev {
				have = append(have, fmt.Sprint(i))
			}
			sort.Strings(have)
			return bad("the run has devices %s: pick one with -device", strings.Join(have, ", "))
		}
		for i := range byDev {
			idx = i
		}
	}
	mine := byDev[idx]
	if len(mine) == 0 {
		return bad("the run has no device %d", idx)
	}
	var flakes []string
	for _, r := range mine {
		if r.Status == results.Flake {
			flakes = append(flakes, r.Name())
		}
	}
	sort.Strings(flakes)
	first := mine[0]
	files := map[string]string{
		expect.FailsFile: expect.FailuresCSV(mine),
		expect.FlakesFile: "# Cases whose failures are ignored (they still run): one anchored regular expression over\n" +
			"# test names a line, with a # comment above saying why (bug, failure rate).\n" +
			"# Written by waverig baseline from the flakes of " + pos[0] + ".\n" + strings.Join(flakes, "\n") + "\n",
		expect.SkipsFile: "# Cases not run at all: one anchored regular expression over test names a line, with a #\n" +
			"# comment above saying why; a reason starting \"Crash:\" says the skip hides a driver crash.\n",
		expect.DriverFile: "# The devices this baseline is for: a regular expression over \"name | driver name | driver info\"\n" +
			"# (waverig run refuses the baseline on another device). Written from " + pos[0] + ".\n" +
			driverPattern(report.DeviceIdentity(first.Device), first.Driver) + "\n",
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintf(stderr, "waverig baseline: %v\n", err)
		return exitIncomplete
	}
	for _, name := range []string{expect.DriverFile, expect.FailsFile, expect.FlakesFile, expect.SkipsFile} {
		text := files[name]
		if err := results.WriteFileAtomic(filepath.Join(*out, name), func(w io.Writer) error {
			_, err := io.WriteString(w, text)
			return err
		}); err != nil {
			fmt.Fprintf(stderr, "waverig baseline: %v\n", err)
			return exitIncomplete
		}
	}
	// What was written must load, and the run must pass against it.
	set, err := expect.LoadDir(*out)
	if err != nil {
		fmt.Fprintf(stderr, "waverig baseline: the baseline written does not load: %v\n", err)
		return exitIncomplete
	}
	fmt.Fprintf(stdout, "%s: %d fails.csv lines, %d flakes, for %s (%s)\n", *out, len(set.Fails), len(set.Flakes), first.Device, first.Driver)
	return exitOK
}

// driverPattern matches the device string of a device (name without
// lavapipe's width, which varies within a run) and driver: the words in
// order, anything between them, since the record's driver string joins the
// driver name and info that the device string separates with " | ".
func driverPattern(device, driver string) string {
	device = strings.TrimSuffix(device, ")")
	var words []string
	for _, w := range strings.Fields(device + " " + driver) {
		words = append(words, regexp.QuoteMeta(w))
	}
	return strings.Join(words, ".*")
}
