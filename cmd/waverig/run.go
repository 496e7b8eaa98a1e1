package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"waverig/devices"
	"waverig/harness"
	"waverig/harness/expect"
	"waverig/harness/pass"
	"waverig/harness/plan"
	"waverig/harness/report"
	"waverig/harness/results"
	"waverig/internal/progress"
)

const runUsage = "waverig run [-device N|substring[,…]|all] [-jobs N] [-api vulkan,webgpu,dawn] [-stages compute,pixel,vertex] [-ops REGEX] [-types T,…] [-sizes all|default|4,8] [-out DIR] [-compilers ours,glslang,cmd:NAME=PATH] [-baseline DIR|OLD/results.jsonl[,…]] [-retries N] [-kernel-timeout D] [-no-baseline] [-shard K/N] [-fraction N] [-gen-seeds 1-20|1,5,9|none] [-validation]"

// runMatrix is `waverig run`: the whole matrix on one or more devices at every
// wave size, into one run directory.
func runMatrix(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	pf := addPlanFlags(fs)
	jobs := fs.Int("jobs", harness.DefaultJobs(), "child processes at once (every device's wave sizes share them)")
	outDir := fs.String("out", "results", "directory for results.jsonl, summary.json, reports and repro bundles (a previous run's are replaced)")
	baseline := fs.String("baseline", "", "baseline directories (fails.csv, flakes.txt, skips.txt: they replace the built-in ones) and/or a previous run (DIR/results.jsonl: regressions and fixes against it), comma-separated")
	retries := fs.Int("retries", 2, "re-run a kernel with a new failure up to N times; a case that then passes is a Flake")
	kernelTimeout := fs.Duration("kernel-timeout", 5*time.Minute, "in child processes, a kernel that runs longer is killed and its cases are Timeout (0: no limit)")
	noExpect := fs.Bool("no-baseline", false, "judge against no baseline (the built-in ones included): every failure counts, known crashes run")
	fs.BoolVar(noExpect, "no-expectations", false, "the old name of -no-baseline")
	validate := fs.Bool("validation", false, "enable the Khronos validation layer on waverig's Vulkan instance in every process of the run; its messages go to DIR/validation/ and any message fails the run")
	pos, code, cont := parseArgs(fs, args, stdout)
	if !cont {
		return code
	}
	if !wantArgs("run", pos, 0, 0, runUsage, stderr) {
		return exitUsage
	}
	bad := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "waverig run: "+format+"\n", a...)
		return exitUsage
	}
	if *jobs < 1 {
		return bad("-jobs %d: at least 1", *jobs)
	}
	if *retries < 0 {
		return bad("-retries %d: at least 0", *retries)
	}
	cfg, want, err := pf.config()
	if err != nil {
		return bad("%v", err)
	}
	cfg.ReproDir, cfg.NoExpectations, cfg.Retries, cfg.KernelTimeout = filepath.Join(*outDir, results.ReproDir), *noExpect, *retries, *kernelTimeout
	// -baseline: baseline directories judge the run; a previous run is compared.
	// A bad one is found now, not after the whole run.
	var before []results.Record
	previous := ""
	if *baseline != "" {
		for _, p := range strings.Split(*baseline, ",") {
			if expect.IsDir(p) {
				set, err := expect.LoadDir(p)
				if err != nil {
					return bad("-baseline: %v", err)
				}
				cfg.Expectations = append(cfg.Expectations, set)
				continue
			}
			if previous != "" {
				return bad("-baseline: two previous runs (%s, %s): compare with one", previous, p)
			}
			// A run directory, its results.jsonl or results.jsonl.gz, or the
			// DIR/results.jsonl of a run saved (compressed) since.
			p, err := results.ResolveResults(p)
			if err != nil {
				return bad("-baseline: %v (a baseline is a directory with fails.csv, flakes.txt or skips.txt, or a previous run's directory or results.jsonl[.gz])", err)
			}
			recs, err := readRun(p)
			if err != nil {
				return bad("-baseline: %v (a baseline is a directory with fails.csv, flakes.txt or skips.txt, or a previous run's results.jsonl)", err)
			}
			before, previous = recs, p
		}
		if *noExpect && cfg.Expectations != nil {
			return bad("-no-baseline and a baseline directory in -baseline contradict each other")
		}
	}
	var validationScratch string
	if *validate {
		// Before the first devices call: this process's instance is validated too.
		if validationScratch, err = startValidation(); err != nil {
			fmt.Fprintf(stderr, "waverig run: -validation: %v\n", err)
			return exitIncomplete
		}
		defer os.RemoveAll(validationScratch)
		defer os.Unsetenv(devices.ValidationDirEnv)
	}
	devs, err := devices.Enumerate()
	if err != nil {
		fmt.Fprintf(stderr, "waverig run: %v\n", err)
		return exitIncomplete
	}
	idxs, err := pickDevices(devs, *pf.device)
	if err != nil {
		return bad("%v", err)
	}
	if before != nil {
		if err := baselineCovers(before, devs, idxs); err != nil {
			return bad("-baseline: %v", err)
		}
	}
	// A baseline directory with a driver.txt is for those drivers only: a run
	// on another one cannot pass against it (deqp-runner's renderer check).
	for _, s := range cfg.Expectations {
		for _, idx := range idxs {
			if d := pass.DeviceString(devs[idx]); !s.Applies(d) {
				return bad("-baseline %s is for drivers matching %q (its %s), not device %d: %s", s.Name, s.Driver, expect.DriverFile, idx, d)
			}
		}
	}
	sets, err := cfg.ExpectationSets()
	if err != nil {
		return bad("expectations: %v", err)
	}

	dir, err := results.OpenDir(*outDir)
	if errors.Is(err, results.ErrBusy) {
		return bad("-out %v", err)
	} else if err != nil {
		fmt.Fprintf(stderr, "waverig run: -out: %v\n", err)
		return exitIncomplete
	}
	several := len(idxs) > 1
	names := deviceNames(devs, idxs)
	var runs []harness.DeviceRun
	for _, idx := range idxs {
		dev, dc := devs[idx], cfg
		on := ""
		if several {
			on = fmt.Sprintf("device %d: ", idx)
			// Two devices fail the same kernel: each keeps its own bundle.
			dc.ReproDir = filepath.Join(cfg.ReproDir, fmt.Sprintf("device%d", idx))
		}
		if dc.APIs == nil {
			var notes []string
			dc.APIs, notes = pass.DefaultAPIs(dev)
			for _, n := range notes {
				fmt.Fprintf(stdout, "%s%s\n", on, n)
			}
		}
		p := plan.Make(dev, want)
		runs = append(runs, harness.DeviceRun{Index: idx, Plan: p, Config: dc})
		fmt.Fprintf(stdout, "%swaverig run on %s (%s), APIs %s, wave sizes %s\n", on, names[idx], pass.DriverString(dev), strings.Join(dc.APIs, ", "), planSizes(p))
	}
	if n := len(cfg.GenSeeds); n > 0 {
		fmt.Fprintf(stdout, "generated programs: %d seeds (%d…%d) at every wave size after the matrix (-gen-seeds none: off)\n", n, cfg.GenSeeds[0], cfg.GenSeeds[n-1])
	}
	if several {
		fmt.Fprintf(stdout, "%d devices, up to %d child processes at once\n", len(idxs), *jobs)
	}

	self, err := os.Executable()
	if err != nil {
		dir.Close()
		fmt.Fprintf(stderr, "waverig run: %v\n", err)
		return exitIncomplete
	}
	// Progress: a bar redrawn on stdout when it is a terminal (the lines below
	// go above it), else plain lines on stderr (a terminal there gets the bar).
	bar := progress.New(stdout, 0)
	say := func(format string, a ...any) { bar.Note(fmt.Sprintf(format, a...)) }
	if !bar.IsTerminal() {
		bar = progress.New(stderr, 0)
		say = func(format string, a ...any) { fmt.Fprintf(stdout, format+"\n", a...) }
	}
	// The total is counted beside the run's start (seconds of CPU for the
	// whole plan, which the children spend compiling anyway).
	// What the plan leaves out by design (pass.NotApplicable) comes from
	// the same walk, for the summary.
	planned := make(chan []plan.Excluded, 1)
	go func() {
		total := 0
		var excluded []plan.Excluded
		for _, dr := range runs {
			cs, ex := pass.PlanRun(dr.Plan, dr.Config)
			total += len(cs)
			excluded = append(excluded, ex...)
		}
		bar.SetTotal(total)
		planned <- excluded
	}()
	start := time.Now()
	shown := 0
	blamed := map[string]map[string]int{} // compiler -> op -> failed cases
	skipReasons := map[string]int{}
	var all []results.Record
	// RunDevices calls emit for one record at a time, whichever child sent it.
	emit := func(r results.Record) {
		// Each record is appended as it arrives (unbuffered, checked): a crash later
		// in the run never loses a finished result, and a full disk fails the run.
		dir.Append(r)
		all = append(all, r)
		if r.Blame != "" {
			if blamed[r.Blame] == nil {
				blamed[r.Blame] = map[string]int{}
			}
			blamed[r.Blame][r.Op]++
		}
		where := ""
		if several {
			where = fmt.Sprintf(" on device %d", r.DeviceIndex)
		}
		if r.Case != results.LayoutCase && r.Status != results.Differs {
			bar.Add(1)
		}
		switch r.Verdict() {
		case results.VerdictUnexpected:
			if r.Status == results.Crash || r.Status == results.Timeout {
				break // one line per dead child (crashLine), not one per case
			}
			if shown++; shown <= 20 {
				say("%s %s%s: %s", strings.ToUpper(r.Outcome()), r.Name(), where, r.Headline())
			}
		case results.VerdictImproved:
			if shown++; shown <= 20 {
				say("%s %s%s: the baseline expects %s (%s)", r.RunStatus(), r.Name(), where, r.Expected, r.Known)
			}
		case results.VerdictFlake:
			if shown++; shown <= 20 {
				say("FLAKE %s%s: %s", r.Name(), where, r.Reason)
			}
		case results.VerdictSkip:
			skipReasons[skipReasonKey(r.Reason)]++
		case results.VerdictDiffers:
			if shown++; shown <= 20 {
				say("DIFFERS %s%s: %s", r.Title(), where, r.Reason)
			}
		}
	}
	// The children's stderr (the driver's crash dumps, Mesa's messages) goes
	// to children.log, and each dead child to one line here. A stale log of
	// an earlier run in this directory is truncated, an empty one removed.
	logPath := filepath.Join(*outDir, harness.ChildLogFile)
	watch := &harness.ChildWatch{Crashed: func(c harness.ChildCrash) {
		say("%s", crashLine(c, several, logPath))
	}}
	childLog, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err == nil {
		watch.Log = childLog
	} else {
		fmt.Fprintf(stderr, "waverig run: %v: the children's stderr goes to this terminal\n", err)
	}
	devResults := harness.RunDevices(runs, *jobs, harness.SelfCommand(self), watch, emit)
	bar.Done()
	if childLog != nil {
		// Before the summary: the log is part of the run directory it describes.
		if st, err := childLog.Stat(); err == nil && st.Size() == 0 {
			os.Remove(logPath)
		}
		childLog.Close()
	}

	// What ran leads (per device, API, stage and size), then what did not
	// and why, then the per-size table with its pipelines and seconds.
	var sizeTable bytes.Buffer
	sum, incomplete := summarize(&sizeTable, devs, names, devResults, all, sets)
	sum.Total.Seconds = time.Since(start).Seconds()
	sum.Shard = cfg.Shard.String()
	t := sum.Total
	printBreakdown(stdout, all, several)
	if t.ParityCases > 0 {
		fmt.Fprintf(stdout, "parity: %d cases compared lane by lane between APIs (Vulkan, WebGPU through wgpu and Dawn: each pair that ran them) (%d lanes), %d differ", t.ParityCases, t.ParityLanes, t.Differs)
		if t.Differs > 0 {
			fmt.Fprint(stdout, " (records with status \"differs\" in results.jsonl; both outputs may be legal, not counted as failures)")
		}
		fmt.Fprintln(stdout)
	}
	printSkips(stdout, t.Skipped, skipReasons)
	printExcluded(stdout, <-planned)
	io.Copy(stdout, &sizeTable)
	fmt.Fprintf(stdout, "%s%-6s %8d %8d %8d %8d %8d %8d %10d %9.1f\n", tableIndent(several), "total", t.Cases, t.Passed, t.Failed, t.Errors, t.Skipped, t.Known, t.Pipelines, t.Seconds)
	if t.Seconds > 0 {
		fmt.Fprintf(stdout, "%.0f cases/s\n", float64(t.Cases)/t.Seconds)
	}
	if t.Known > 0 {
		fmt.Fprintf(stdout, "%d known problems of this driver or compiler (ExpectedFail or KnownFlake in baselines %s), not counted\n", t.Known, strings.Join(sum.Expectations, ", "))
	}
	for _, comp := range sortedKeys(blamed) {
		fmt.Fprintf(stdout, "%s: failures where waverig's compiler passed the same case on the same device (the compiler, not the driver, is at fault):\n", comp)
		for _, op := range sortedKeys(blamed[comp]) {
			fmt.Fprintf(stdout, "  %5d  %s\n", blamed[comp][op], op)
		}
	}
	for _, ds := range sum.Devices {
		for _, where := range ds.Stale {
			on := ""
			if several {
				on = " on " + ds.Name
			}
			fmt.Fprintf(stdout, "NOTE baseline line %s: no case it matched%s ended so: remove or narrow it\n", where, on)
		}
	}
	if t.Flakes > 0 {
		fmt.Fprintf(stdout, "%d flakes: new failures that passed when re-run (-retries %d); flakes.txt is where a known one goes\n", t.Flakes, *retries)
	}
	if t.Vacuous > 0 {
		fmt.Fprintf(stdout, "%d vacuous: cases that ran but compared no lane (every lane they read from was inactive), so they could not fail; not counted as passes\n", t.Vacuous)
	}
	if t.Improved > 0 {
		fmt.Fprintf(stdout, "%d unexpected improvements: cases that did better than the baseline says; update it (%s is the next %s)\n", t.Improved, results.FailuresFile, expect.FailsFile)
	}
	if n := t.Unexpected - t.Improved; n > 0 {
		fmt.Fprintf(stdout, "%d unexpected failures (wrong results, crashes or errors no baseline knows)\n", n)
	}
	if t.Cases == 0 {
		fmt.Fprintln(stdout, "no case ran")
		incomplete = true
	}

	if before != nil {
		// Per device: the same case on two devices is two cases.
		newPath := filepath.Join(*outDir, results.CompressedResultsFile)
		for _, ds := range sum.Devices {
			id := report.DeviceID{Identity: report.DeviceIdentity(ds.Device), Driver: ds.Driver, Index: ds.Index}
			old, _ := report.MatchDevice(before, id) // baselineCovers checked it
			if several {
				fmt.Fprintf(stdout, "\n== baseline of device %d, %s\n", ds.Index, ds.Name)
			}
			report.Compare(old, deviceRecords(all, ds.Index)).WriteText(stdout, previous, newPath)
		}
	}

	if *validate {
		v, err := finishValidation(validationScratch, *outDir)
		if err != nil {
			fmt.Fprintf(stderr, "waverig run: -validation: %v\n", err)
			incomplete = true
		} else {
			sum.Validation = v
			printValidation(stdout, v, *outDir)
		}
	}
	exit, title := judgeRun(&sum, incomplete, several)
	sum.Host, sum.Started, sum.Command, sum.Version = hostName(), start.UTC().Format(time.RFC3339), os.Args, version()
	// expectation.json and devices.json first: the HTML page reads them.
	if writeErr := saveRun(dir, func() error { return writeRunFiles(*outDir, devs, idxs, sets, *retries) }, title, all, &sum); writeErr != nil {
		// The results are not all on disk: nothing this run says can be trusted.
		fmt.Fprintf(stderr, "waverig run: RESULTS NOT SAVED: %v\n", writeErr)
		return exitIncomplete
	}
	fmt.Fprintf(stdout, "results: %s (also %s, %s, %s, %s, %s, %s; repro bundles under %s/)\n", filepath.Join(*outDir, results.CompressedResultsFile),
		results.SummaryFile, results.HTMLFile, results.FailuresFile, results.CSVFile, results.JUnitFile, results.ExpectationFile, results.ReproDir)
	fmt.Fprintf(stdout, "exit %d: %s\n", exit, sum.Verdict)
	return exit
}

// crashLine is the one terminal line of a child process that died inside a
// kernel: the first case's name, how many more cases share its fate, why in
// a few words, whether a baseline knew, and where the driver's output went
// (the records keep its tail in their reasons).
func crashLine(c harness.ChildCrash, several bool, logPath string) string {
	where := ""
	if several {
		where = fmt.Sprintf(" on device %d", c.Device)
	}
	name := fmt.Sprintf("%s at wave size %d", c.Job, c.WaveSize)
	known := len(c.Records) > 0
	for _, r := range c.Records {
		known = known && r.Verdict() == results.VerdictKnown
	}
	if len(c.Records) > 0 {
		name = c.Records[0].Name()
		if n := len(c.Records) - 1; n > 0 {
			name += fmt.Sprintf(" (+%d more cases of its kernel)", n)
		}
	}
	why := fmt.Sprintf("the driver killed its child process (%s)", c.Exit)
	if c.Status == results.Timeout {
		why = "it did not finish within -kernel-timeout: its child process was killed"
	}
	word := strings.ToUpper(c.Status)
	if known {
		// Known is "FILE:LINE: reason"; the reason is the record's to tell.
		line, _, _ := strings.Cut(c.Records[0].Known, ": ")
		word = "known " + word
		why += ", as " + line + " expects"
	}
	return fmt.Sprintf("%s %s%s: %s; driver output in %s", word, name, where, why, logPath)
}

// exitVerdict says an exit status in words (summary.json and the last line).
func exitVerdict(code int) string {
	switch code {
	case exitOK:
		return "no result that the baselines do not expect"
	case exitUnexpected:
		return "the device or a compiler did what no baseline expects (a new wrong result, crash or timeout, or an unexpected improvement), or the validation layer reported waverig's use of Vulkan"
	}
	return "the run did not complete or could not record its results"
}

// sourceLine is a compiler message's "line N: " (glslang's), and the numbers
// of a lavapipe width in a device name and a [WaveSize] pass's "runs at [N]".
var (
	sourceLine = regexp.MustCompile(`\bline \d+: `)
	lpWidth    = regexp.MustCompile(`, \d+ bits\)`)
	runsAt     = regexp.MustCompile(`runs at \[\d+\]`)
)

// skipReasonKey groups skip reasons that differ only in where or at which of
// lavapipe's widths they happened: one glslang error at forty source lines of
// forty kernels is one reason, and a [WaveSize] no lavapipe size meets is one
// reason, not one per width. Records keep the reason as it was.
func skipReasonKey(reason string) string {
	reason = sourceLine.ReplaceAllString(reason, "")
	reason = lpWidth.ReplaceAllString(reason, ")")
	return runsAt.ReplaceAllString(reason, "runs at its own size")
}

// topSkipReasons is how many skip reasons the summary lists; results.csv and
// results.jsonl have every skip with its reason.
const topSkipReasons = 10

// printSkips counts the skipped cases (run, but not on this device or by
// this compiler: a missing feature, a compiler's gap, a baseline's skip)
// and lists the most common reasons, most first.
func printSkips(w io.Writer, skipped int, reasons map[string]int) {
	if skipped == 0 {
		return
	}
	keys := sortedKeys(reasons)
	sort.SliceStable(keys, func(i, j int) bool { return reasons[keys[i]] > reasons[keys[j]] })
	fmt.Fprintf(w, "\nskipped: %d cases did not run here, by reason:\n", skipped)
	rest := 0
	for i, k := range keys {
		if i >= topSkipReasons {
			rest += reasons[k]
			continue
		}
		fmt.Fprintf(w, "  %7d  %s\n", reasons[k], k)
	}
	if n := len(keys) - topSkipReasons; n > 0 {
		fmt.Fprintf(w, "  %7d  in %d more reasons (every skip and its reason: %s)\n", rest, n, results.CSVFile)
	}
}

// printExcluded is one line per API of what the plan left out because the
// API cannot run it by design (pass.NotApplicable): not run, not
// recorded, not counted above.
func printExcluded(w io.Writer, ex []plan.Excluded) {
	type reason struct {
		why   string
		cases int
	}
	by := map[string][]reason{}
	total := map[string]int{}
	var apis []string
	for _, e := range ex {
		if total[e.API] == 0 {
			apis = append(apis, e.API)
		}
		total[e.API] += e.Cases
		rs := by[e.API]
		i := slices.IndexFunc(rs, func(r reason) bool { return r.why == e.Reason })
		if i < 0 {
			by[e.API] = append(rs, reason{e.Reason, e.Cases})
		} else {
			rs[i].cases += e.Cases
		}
	}
	for _, api := range apis {
		rs := by[api]
		sort.SliceStable(rs, func(i, j int) bool { return rs[i].cases > rs[j].cases })
		parts := make([]string, len(rs))
		for i, r := range rs {
			parts[i] = fmt.Sprintf("%d: %s", r.cases, r.why)
		}
		fmt.Fprintf(w, "not applicable by design, so not planned: %d %s cases (%s)\n", total[api], apiName(api), strings.Join(parts, "; "))
	}
}

// apiName is an API as the summary spells it: pass.APILabel's, but plain
// "WebGPU" for wgpu-native, the words this line has always had.
func apiName(api string) string {
	if api == pass.WebGPU {
		return "WebGPU"
	}
	return pass.APILabel(api)
}

// readRun reads a results.jsonl for comparison: it must hold records, and a cut
// last line means the run did not finish, which makes any comparison wrong.
func readRun(path string) ([]results.Record, error) {
	recs, truncated, err := results.ReadJSONL(path)
	if err != nil {
		return nil, err
	}
	if truncated {
		return nil, fmt.Errorf("%s: the last line is cut off (the run did not finish writing)", path)
	}
	return recs, nil
}

func planSizes(p plan.Plan) string {
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
		if strings.TrimSpace(p) == "default" {
			out = append(out, plan.DefaultSize)
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n < 1 || n > 128 || n&(n-1) != 0 {
			return nil, fmt.Errorf("%q is not a power of two in [1,128] (or default: each device's own size)", p)
		}
		out = append(out, uint32(n))
	}
	return out, nil
}

// pickDevice resolves -device: an index, or a case-insensitive substring of
// the device string "name | driver name | driver info" (pass.DeviceString),
// the first device it matches: "llvmpipe" is the first lavapipe, "Mesa 25"
// or "25.0.7" the lavapipe of that Mesa release, "SwiftShader" SwiftShader.
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
	var have []string
	for i, d := range devs {
		ds := pass.DeviceString(d)
		if strings.Contains(strings.ToLower(ds), strings.ToLower(sel)) {
			return i, nil
		}
		have = append(have, fmt.Sprintf("%d: %s", i, ds))
	}
	return 0, fmt.Errorf("-device %q matches no device (%s)", sel, strings.Join(have, "; "))
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// printBreakdown prints the cases of a run that ran (not skipped) per API,
// stage and wave size, and per device when the run has several: how they
// ended, the known problems among them (failed or errors a baseline
// expects), flakes and vacuous cases. The layout checks and parity records
// are not cases; rows where nothing ran are left out (the skips say why).
func printBreakdown(w io.Writer, recs []results.Record, several bool) {
	type key struct {
		dev        int
		api, stage string
		size       uint32
	}
	counts := map[key]*results.Stats{}
	var keys []key
	var all results.Stats
	for _, r := range recs {
		k := key{0, r.Backend(), r.Stage, r.WaveSize}
		if several {
			k.dev = r.DeviceIndex
		}
		if r.Case == results.LayoutCase || r.Status == results.Differs {
			continue
		}
		if counts[k] == nil {
			counts[k] = &results.Stats{}
			keys = append(keys, k)
		}
		counts[k].Add(r)
		all.Add(r)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.dev != b.dev {
			return a.dev < b.dev
		}
		if a.api != b.api {
			return slices.Index(pass.APIs, a.api) < slices.Index(pass.APIs, b.api) // vulkan, webgpu, dawn
		}
		if a.stage != b.stage {
			return a.stage < b.stage
		}
		return a.size < b.size
	})
	ran := func(st *results.Stats) int { return st.Cases - st.Skipped }
	fmt.Fprintf(w, "\nran %d of %d cases: %d passed, %d failed, %d errors or crashes (%d of the failed and errors known), %d flakes, %d vacuous; %d skipped (below)\n",
		ran(&all), all.Cases, all.Passed, all.Failed, all.Errors, all.Known, all.Flakes, all.Vacuous, all.Skipped)
	if ran(&all) == 0 {
		return
	}
	col := ""
	if several {
		col = "dev  "
	}
	line := func(dev, api, stage, size string, st *results.Stats) {
		fmt.Fprintf(w, "%s%-8s %-8s %-6s %8d %8d %8d %8d %8d %8d %8d\n", dev, api, stage, size, ran(st), st.Passed, st.Failed, st.Errors, st.Known, st.Flakes, st.Vacuous)
	}
	fmt.Fprintf(w, "%s%-8s %-8s %-6s %8s %8s %8s %8s %8s %8s %8s\n", col, "api", "stage", "size", "ran", "passed", "failed", "errors", "known", "flakes", "vacuous")
	for _, k := range keys {
		st := counts[k]
		if ran(st) == 0 {
			continue
		}
		dev := ""
		if several {
			dev = fmt.Sprintf("%-4d ", k.dev)
		}
		line(dev, k.api, k.stage, strconv.Itoa(int(k.size)), st)
	}
}
