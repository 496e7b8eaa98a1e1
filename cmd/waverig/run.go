package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"waverig/devices"
	"waverig/harness"
	"waverig/harness/expect"
	"waverig/harness/report"
)

// runMatrix is `waverig run`: the whole matrix on one device at every wave size.
func runMatrix(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	devSel := fs.String("device", "0", "device index or name substring")
	ops := fs.String("ops", "", "only operations matching this regular expression (e.g. WavePrefix)")
	sizes := fs.String("sizes", "all", "wave sizes: all, or a list like 4,8")
	outDir := fs.String("out", "results", "directory for results.jsonl and summary.json")
	comps := fs.String("compilers", "", "compilers to run: ours,glslang (default: ours, plus glslang when installed)")
	baseline := fs.String("baseline", "", "a previous results.jsonl: print regressions and fixes against it")
	noExpect := fs.Bool("no-expectations", false, "ignore the known-problem files (run known crashes too)")
	expectFile := fs.String("expectations", "", "an extra expectation file (known crashes and failures of a driver)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	cfg := harness.Config{RequireTools: os.Getenv("CI") != "", ReproDir: filepath.Join(*outDir, "repro")}
	cfg.NoExpectations = *noExpect
	if *expectFile != "" {
		sets, err := expect.Builtin()
		if err == nil {
			var data []byte
			if data, err = os.ReadFile(*expectFile); err == nil {
				var s *expect.Set
				if s, err = expect.Parse(filepath.Base(*expectFile), string(data)); err == nil {
					cfg.Expectations = append(sets, s)
				}
			}
		}
		if err != nil {
			fmt.Fprintf(stderr, "waverig run: -expectations: %v\n", err)
			return 2
		}
	}
	if *ops != "" {
		re, err := regexp.Compile(*ops)
		if err != nil {
			fmt.Fprintf(stderr, "waverig run: -ops: %v\n", err)
			return 2
		}
		cfg.Filter.Ops = re
	}
	if *comps != "" {
		for _, c := range strings.Split(*comps, ",") {
			if c != harness.Ours && c != harness.Glslang {
				fmt.Fprintf(stderr, "waverig run: -compilers: unknown compiler %q (use ours, glslang)\n", c)
				return 2
			}
			cfg.Compilers = append(cfg.Compilers, c)
		}
	}
	want, err := parseSizes(*sizes)
	if err != nil {
		fmt.Fprintf(stderr, "waverig run: -sizes: %v\n", err)
		return 2
	}

	devs, err := devices.Enumerate()
	if err != nil {
		fmt.Fprintf(stderr, "waverig run: %v\n", err)
		return 1
	}
	idx, err := pickDevice(devs, *devSel)
	if err != nil {
		fmt.Fprintf(stderr, "waverig run: %v\n", err)
		return 2
	}

	// A child process (lavapipe at one LP_NATIVE_VECTOR_WIDTH) streams records to stdout.
	if os.Getenv(harness.ChildEnv) != "" {
		if err := harness.RunChild(idx, cfg, stdout); err != nil {
			fmt.Fprintf(stderr, "waverig run (child): %v\n", err)
			return 1
		}
		return 0
	}

	if err := os.MkdirAll(*outDir, 0o755); err != nil {
		fmt.Fprintf(stderr, "waverig run: %v\n", err)
		return 1
	}
	resultsPath := filepath.Join(*outDir, "results.jsonl")
	f, err := os.Create(resultsPath)
	if err != nil {
		fmt.Fprintf(stderr, "waverig run: %v\n", err)
		return 1
	}
	defer f.Close()
	enc := json.NewEncoder(f)
	dev := devs[idx]
	plan := harness.MakePlan(dev, want)
	fmt.Fprintf(stdout, "waverig run on %s (%s %s), wave sizes %s\n", dev.Name, dev.DriverName, dev.DriverInfo, planSizes(plan))

	self, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "waverig run: %v\n", err)
		return 1
	}
	start := time.Now()
	failures, knownFails := 0, 0
	blamed := map[string]map[string]int{} // compiler -> op -> failed cases
	skipReasons := map[string]int{}
	var all []harness.Record
	emit := func(r harness.Record) {
		// Each record is written as it arrives (unbuffered): a crash later in the run
		// never loses a finished result.
		enc.Encode(r)
		all = append(all, r)
		switch {
		case strings.HasPrefix(r.Known, "UNEXPECTED PASS"):
			fmt.Fprintf(stdout, "NOTE %s [%s, wave %d]: %s\n", r.Case, r.Compiler, r.WaveSize, r.Known)
		case r.Known != "" && r.Status != harness.Pass:
			knownFails++
		case r.Blame != "":
			if blamed[r.Blame] == nil {
				blamed[r.Blame] = map[string]int{}
			}
			blamed[r.Blame][r.Op]++
		case r.Status == harness.Fail || r.Status == harness.Error:
			failures++
			if failures <= 20 {
				fmt.Fprintf(stdout, "FAIL %s [%s, wave %d]: %s\n", r.Case, r.Compiler, r.WaveSize, failureLine(r))
			}
		case r.Status == harness.Skip:
			skipReasons[r.Reason]++
		}
	}
	results := harness.RunPlan(plan, idx, cfg, self, os.Args[1:], emit)
	wall := time.Since(start)

	total := harness.Stats{}
	fmt.Fprintf(stdout, "\n%-6s %8s %8s %8s %8s %8s %10s %9s\n", "size", "cases", "passed", "failed", "errors", "skipped", "pipelines", "seconds")
	exit := 0
	for _, sr := range results {
		st := sr.Stats
		if sr.SkipReason != "" {
			fmt.Fprintf(stdout, "%-6d skipped: %s\n", sr.Size, sr.SkipReason)
			continue
		}
		fmt.Fprintf(stdout, "%-6d %8d %8d %8d %8d %8d %10d %9.1f\n", sr.Size, st.Cases, st.Passed, st.Failed, st.Errors, st.Skipped, st.Pipelines, st.Wall.Seconds())
		if sr.Err != nil {
			fmt.Fprintf(stdout, "       error: %v\n", sr.Err)
			exit = 1
		}
		total.Cases += st.Cases
		total.Passed += st.Passed
		total.Failed += st.Failed
		total.Errors += st.Errors
		total.Skipped += st.Skipped
		total.Pipelines += st.Pipelines
	}
	fmt.Fprintf(stdout, "%-6s %8d %8d %8d %8d %8d %10d %9.1f\n", "total", total.Cases, total.Passed, total.Failed, total.Errors, total.Skipped, total.Pipelines, wall.Seconds())
	if wall > 0 {
		fmt.Fprintf(stdout, "%.0f cases/s\n", float64(total.Cases)/wall.Seconds())
	}
	if len(skipReasons) > 0 {
		fmt.Fprintln(stdout, "skipped, by reason:")
		var rs []string
		for r := range skipReasons {
			rs = append(rs, r)
		}
		sort.Strings(rs)
		for _, r := range rs {
			fmt.Fprintf(stdout, "  %5d  %s\n", skipReasons[r], r)
		}
	}
	if knownFails > 0 {
		fmt.Fprintf(stdout, "%d known failures of this driver (expectation files), not counted\n", knownFails)
	}
	for _, comp := range sortedKeys(blamed) {
		fmt.Fprintf(stdout, "%s: failures where waverig's compiler passed the same case on this device (the compiler, not the driver, is at fault):\n", comp)
		for _, op := range sortedKeys(blamed[comp]) {
			fmt.Fprintf(stdout, "  %5d  %s\n", blamed[comp][op], op)
		}
	}
	writeSummary(filepath.Join(*outDir, "summary.json"), dev, results, total, wall)
	if err := writeReports(*outDir, dev.Name+" — "+dev.DriverName+" "+dev.DriverInfo, all); err != nil {
		fmt.Fprintf(stderr, "waverig run: reports: %v\n", err)
	}
	fmt.Fprintf(stdout, "results: %s (also results.junit.xml, results.csv, report.html, summary.json; repro bundles under repro/)\n", resultsPath)
	if *baseline != "" {
		before, err := report.ReadJSONL(*baseline)
		if err != nil {
			fmt.Fprintf(stderr, "waverig run: -baseline: %v\n", err)
			return 2
		}
		d := report.Compare(before, all)
		d.WriteText(stdout, *baseline, resultsPath)
		if len(d.Regressions) > 0 {
			exit = 1
		}
	}
	// Failures blamed on a second-opinion compiler are findings about that
	// compiler; everything else that failed implicates the device or waverig.
	if failures > 0 || total.Cases == 0 {
		exit = 1
	}
	return exit
}

func failureLine(r harness.Record) string {
	if len(r.Failures) == 0 {
		return r.Reason
	}
	f := r.Failures[0]
	more := ""
	if len(r.Failures) > 1 {
		more = fmt.Sprintf(" (+%d more lanes)", len(r.Failures)-1)
	}
	return fmt.Sprintf("wave %#x lane %d active %s input %s expected %s actual %s%s", f.WaveKey, f.Lane, f.ActiveMask, f.Input, f.Expected, f.Actual, more)
}

func writeSummary(path string, dev devices.Device, results []harness.SizeResult, total harness.Stats, wall time.Duration) {
	type size struct {
		Size       uint32        `json:"waveSize"`
		Stats      harness.Stats `json:"stats"`
		SkipReason string        `json:"skipReason,omitempty"`
		Error      string        `json:"error,omitempty"`
	}
	s := struct {
		Device  string        `json:"device"`
		Driver  string        `json:"driver"`
		Sizes   []size        `json:"sizes"`
		Total   harness.Stats `json:"total"`
		Seconds float64       `json:"seconds"`
	}{Device: dev.Name, Driver: dev.DriverName + " " + dev.DriverInfo, Total: total, Seconds: wall.Seconds()}
	for _, r := range results {
		e := ""
		if r.Err != nil {
			e = r.Err.Error()
		}
		s.Sizes = append(s.Sizes, size{r.Size, r.Stats, r.SkipReason, e})
	}
	data, _ := json.MarshalIndent(s, "", "  ")
	os.WriteFile(path, data, 0o644)
}

func planSizes(p harness.Plan) string {
	var parts []string
	for _, s := range p.Sizes {
		t := strconv.Itoa(int(s.Size))
		if s.SkipReason != "" {
			t += " (skipped)"
		}
		parts = append(parts, t)
	}
	return strings.Join(parts, ", ")
}

func parseSizes(s string) ([]uint32, error) {
	if s == "" || s == "all" {
		return nil, nil
	}
	var out []uint32
	for _, p := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n < 1 || n > 128 || n&(n-1) != 0 {
			return nil, fmt.Errorf("%q is not a power of two in [1,128]", p)
		}
		out = append(out, uint32(n))
	}
	return out, nil
}

// pickDevice resolves -device: an index, or a case-insensitive name substring.
func pickDevice(devs []devices.Device, sel string) (int, error) {
	if len(devs) == 0 {
		return 0, fmt.Errorf("no Vulkan devices found (install mesa-vulkan-drivers for lavapipe)")
	}
	if n, err := strconv.Atoi(sel); err == nil {
		if n < 0 || n >= len(devs) {
			return 0, fmt.Errorf("-device %d: only %d device(s)", n, len(devs))
		}
		return n, nil
	}
	for i, d := range devs {
		if strings.Contains(strings.ToLower(d.Name), strings.ToLower(sel)) {
			return i, nil
		}
	}
	return 0, fmt.Errorf("-device %q matches no device", sel)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// writeReports writes the JUnit, CSV and HTML forms of a run next to results.jsonl.
func writeReports(dir, title string, recs []harness.Record) error {
	write := func(name string, f func(io.Writer) error) error {
		out, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		if err := f(out); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	}
	if err := write("results.junit.xml", func(w io.Writer) error { return report.WriteJUnit(w, recs) }); err != nil {
		return err
	}
	if err := write("results.csv", func(w io.Writer) error { return report.WriteCSV(w, recs) }); err != nil {
		return err
	}
	return write("report.html", func(w io.Writer) error { return report.WriteHTML(w, title, recs) })
}
