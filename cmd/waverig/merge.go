package main

// `waverig merge -out DIR RUN_DIR…`: one result directory from several — the
// shards of one run (`waverig run -shard K/N` on each of a CI system's
// machines) or the runs of several hosts (the fleet view). The output is what
// one `waverig run` over all of it would have written: results.jsonl, a
// summary.json recomputed from the records, the reports, and the repro
// bundles.
//
// Devices: a record names its device by its index on the host that ran it.
// Shards of one host keep their indices (they ran the same devices); a device
// of another host whose index is taken already gets the next free index, so
// two hosts' "llvmpipe #0" stay two devices (a line on stdout says which).

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"waverig/harness/plan"
	"waverig/harness/report"
	"waverig/harness/repro"
	"waverig/harness/results"
	"waverig/internal/fsutil"
)

const mergeUsage = "waverig merge -out DIR RUN_DIR…"

// mergeInput is one run directory given to merge.
type mergeInput struct {
	dir  string
	recs []results.Record
	sum  results.Summary
	// expectation.json and devices.json, when the run wrote them.
	expectation *results.Expectation
	devices     *devicesDoc
}

// devicesDoc is devices.json (`waverig devices -json`) as far as merge needs
// it: each device's index, the rest of its entry kept as it is.
type devicesDoc struct {
	Comment string            `json:"$comment"`
	Devices []json.RawMessage `json:"devices"`
}

// hostDevice is a device as its own run names it: host and index.
type hostDevice struct {
	host  string
	index int
}

// inputError is a merge input that cannot be merged (exit 2).
type inputError struct{ msg string }

func (e *inputError) Error() string { return e.msg }

func badInput(format string, a ...any) error { return &inputError{fmt.Sprintf(format, a...)} }

// runMerge is `waverig merge`. Exit 0: merged, nothing unexpected; 1: the
// merged run has unexpected results; 2: bad usage or input (a directory
// without results.jsonl or summary.json, a cut last line, a case in two
// inputs); 3: an input run did not complete, or the output could not be
// written.
func runMerge(args []string, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("merge", flag.ContinueOnError)
	fset.SetOutput(stderr)
	outDir := fset.String("out", "", "directory for the merged run (its previous results are replaced)")
	pos, code, cont := parseArgs(fset, args, stdout)
	if !cont {
		return code
	}
	if !wantArgs("merge", pos, 1, -1, mergeUsage, stderr) {
		return exitUsage
	}
	bad := func(err error) int {
		fmt.Fprintf(stderr, "waverig merge: %v\n", err)
		return exitUsage
	}
	if *outDir == "" {
		return bad(fmt.Errorf("-out DIR is required\nusage: %s", mergeUsage))
	}
	inputs, err := readMergeInputs(pos, *outDir)
	if err != nil {
		return bad(err)
	}
	remap, notes := mergeDeviceIndices(inputs)
	notes = append(notes, missingShards(inputs)...)
	for _, n := range notes {
		fmt.Fprintln(stdout, n)
	}
	recs, err := mergeRecords(inputs, remap)
	if err != nil {
		return bad(err)
	}
	several := len(distinctDevices(recs, inputs, remap)) > 1
	copies, err := planReproCopies(inputs, remap, several)
	if err != nil {
		return bad(err)
	}
	sum := mergeSummary(inputs, remap, recs)
	sum.Command = append([]string{"waverig", "merge"}, args...)

	dir, err := results.OpenDir(*outDir)
	if errors.Is(err, results.ErrBusy) {
		return bad(fmt.Errorf("-out %v", err))
	} else if err != nil {
		fmt.Fprintf(stderr, "waverig merge: -out: %v\n", err)
		return exitIncomplete
	}
	for _, r := range recs {
		dir.Append(r)
	}
	t := sum.Total
	exit, title := judgeRun(&sum, sum.ExitStatus == exitIncomplete, several)
	// expectation.json and devices.json before the reports: the HTML page reads them.
	files := func() error {
		if err := writeMergedRunFiles(*outDir, inputs, remap); err != nil {
			return err
		}
		return copyRepro(*outDir, copies)
	}
	if writeErr := saveRun(dir, files, title, recs, &sum); writeErr != nil {
		fmt.Fprintf(stderr, "waverig merge: RESULTS NOT SAVED: %v\n", writeErr)
		return exitIncomplete
	}

	fmt.Fprintf(stdout, "merged %d run(s) (%s) on %s\n", len(inputs), strings.Join(sum.Merged, ", "), orElse(sum.Host, "one host"))
	printMergedSizes(stdout, sum, several)
	printBreakdown(stdout, recs, several)
	if t.Unexpected > 0 {
		fmt.Fprintf(stdout, "%d unexpected failures (wrong results, crashes or errors no expectation file knows)\n", t.Unexpected)
	}
	fmt.Fprintf(stdout, "results: %s (also %s, %s, %s, %s; %d repro files under %s/)\n", filepath.Join(*outDir, results.CompressedResultsFile),
		results.SummaryFile, results.JUnitFile, results.CSVFile, results.HTMLFile, len(copies), results.ReproDir)
	fmt.Fprintf(stdout, "exit %d: %s\n", exit, sum.Verdict)
	return exit
}

// readMergeInputs reads every run directory: its results file (results.jsonl
// or results.jsonl.gz, whole: a cut last
// line is a run that did not finish writing) and summary.json (a run without
// one did not finish). The output may not be an input (opening it clears it).
func readMergeInputs(dirs []string, out string) ([]mergeInput, error) {
	outAbs, _ := filepath.Abs(out)
	seen := map[string]string{}
	var inputs []mergeInput
	for _, d := range dirs {
		abs, _ := filepath.Abs(d)
		if abs == outAbs {
			return nil, badInput("%s is both an input and -out (the merged run replaces the directory's results)", d)
		}
		if prev, ok := seen[abs]; ok {
			return nil, badInput("%s is given twice (%s)", d, prev)
		}
		seen[abs] = d
		path, err := results.FindResults(d)
		if err != nil {
			return nil, badInput("%v", err)
		}
		recs, truncated, err := results.ReadJSONL(path)
		if err != nil {
			return nil, badInput("%v", err)
		}
		if truncated {
			return nil, badInput("%s: the last line is cut off (the run did not finish writing)", path)
		}
		data, err := fsutil.ReadRegular(filepath.Join(d, results.SummaryFile), 64<<20)
		if err != nil {
			return nil, badInput("%s: no readable %s: the run did not finish (%v)", d, results.SummaryFile, err)
		}
		in := mergeInput{dir: d, recs: recs}
		if err := json.Unmarshal(data, &in.sum); err != nil {
			return nil, badInput("%s: %v", filepath.Join(d, results.SummaryFile), err)
		}
		// Optional: a run of an older waverig has neither.
		for name, v := range map[string]any{results.ExpectationFile: &in.expectation, results.DevicesFile: &in.devices} {
			data, err := fsutil.ReadRegular(filepath.Join(d, name), 64<<20)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err == nil {
				err = json.Unmarshal(data, v)
			}
			if err != nil {
				return nil, badInput("%s: %v", filepath.Join(d, name), err)
			}
		}
		inputs = append(inputs, in)
	}
	return inputs, nil
}

// missingShards notes, per host, the shards of a sharded run that are not
// among the inputs (a CI job that died): the merged run then covers only part
// of the plan, and says so.
func missingShards(inputs []mergeInput) []string {
	type hostN struct {
		host string
		n    int
	}
	have := map[hostN]map[int]bool{}
	var order []hostN
	for _, in := range inputs {
		s, err := plan.ParseShard(in.sum.Shard)
		if err != nil || s.Whole() {
			continue
		}
		k := hostN{in.sum.Host, s.N}
		if have[k] == nil {
			have[k] = map[int]bool{}
			order = append(order, k)
		}
		have[k][s.K] = true
	}
	var notes []string
	for _, k := range order {
		var missing []string
		for i := 1; i <= k.n; i++ {
			if !have[k][i] {
				missing = append(missing, fmt.Sprintf("%d/%d", i, k.n))
			}
		}
		if len(missing) > 0 {
			notes = append(notes, fmt.Sprintf("NOTE host %s: shard(s) %s not among the inputs: the merged run covers part of the plan",
				orElse(k.host, "(unnamed)"), strings.Join(missing, ", ")))
		}
	}
	return notes
}

// inputDevices are the device indices an input ran, as it names them.
func inputDevices(in mergeInput) []int {
	set := map[int]bool{}
	for _, ds := range in.sum.Devices {
		set[ds.Index] = true
	}
	for _, r := range in.recs {
		set[r.DeviceIndex] = true
	}
	return slices.Sorted(maps.Keys(set))
}

// mergeDeviceIndices gives every (host, index) of the inputs its index in the
// merged run: its own, unless a device of another host (met earlier) has it;
// then the next index no device uses. notes say each move.
func mergeDeviceIndices(inputs []mergeInput) (map[hostDevice]int, []string) {
	remap := map[hostDevice]int{}
	owner := map[int]string{}
	var moved []hostDevice
	names := map[hostDevice]string{}
	for _, in := range inputs {
		for _, ds := range in.sum.Devices {
			names[hostDevice{in.sum.Host, ds.Index}] = ds.Device
		}
		for _, idx := range inputDevices(in) {
			hd := hostDevice{in.sum.Host, idx}
			if _, ok := remap[hd]; ok || slices.Contains(moved, hd) {
				continue
			}
			if h, taken := owner[idx]; taken && h != hd.host {
				moved = append(moved, hd)
				continue
			}
			owner[idx] = hd.host
			remap[hd] = idx
		}
	}
	next := 0
	for idx := range owner {
		next = max(next, idx+1)
	}
	var notes []string
	for _, hd := range moved {
		remap[hd] = next
		notes = append(notes, fmt.Sprintf("host %s: device %d (%s) is device %d in the merged run (another host's device %d came first)",
			orElse(hd.host, "(unnamed)"), hd.index, orElse(report.DeviceIdentity(names[hd]), "?"), next, hd.index))
		next++
	}
	return remap, notes
}

// distinctDevices are the merged run's device indices.
func distinctDevices(recs []results.Record, inputs []mergeInput, remap map[hostDevice]int) []int {
	set := map[int]bool{}
	for _, in := range inputs {
		for _, idx := range inputDevices(in) {
			set[remap[hostDevice{in.sum.Host, idx}]] = true
		}
	}
	for _, r := range recs {
		set[r.DeviceIndex] = true
	}
	return slices.Sorted(maps.Keys(set))
}

// mergeRecords joins the inputs' records, in input order, with merged device
// indices. Every shard checks the lane layout, so layout records of one device,
// API, stage, compiler and size are kept once (a failing one over a passing
// one: it is what the run's records stood on). A case record (not layout, not
// parity) of one device in two inputs is an error: shards never overlap, and
// one host's run merged twice would count everything twice.
func mergeRecords(inputs []mergeInput, remap map[hostDevice]int) ([]results.Record, error) {
	type layoutKey struct {
		dev              int
		api, stage, comp string
		size             uint32
	}
	type caseKey struct {
		dev  int
		name string
	}
	layouts := map[layoutKey]int{} // position in out
	cases := map[caseKey]int{}     // input that holds it
	var out []results.Record
	for i, in := range inputs {
		for _, r := range in.recs {
			r.DeviceIndex = remap[hostDevice{in.sum.Host, r.DeviceIndex}]
			switch {
			case r.Case == results.LayoutCase:
				k := layoutKey{r.DeviceIndex, r.Backend(), r.Stage, r.Compiler, r.WaveSize}
				if at, ok := layouts[k]; ok {
					if r.Verdict().Counts() && !out[at].Verdict().Counts() {
						out[at] = r
					}
					continue
				}
				layouts[k] = len(out)
			case r.Status != results.Differs:
				k := caseKey{r.DeviceIndex, r.Name()}
				if j, ok := cases[k]; ok && j != i {
					return nil, badInput("case %s of device %d (%s) is in both %s and %s: shards never overlap (is a run given twice, or two hosts' runs without their host in summary.json?)",
						k.name, r.DeviceIndex, report.DeviceIdentity(r.Device), inputs[j].dir, in.dir)
				}
				cases[k] = i
			}
			out = append(out, r)
		}
	}
	return out, nil
}

// mergeSummary recomputes summary.json for the merged records: per device and
// wave size the record counts (results.Stats.Add), plus what only the inputs
// counted (pipelines, kernels, parity comparisons: added up; seconds: the
// longest input, the wall time of machines that ran side by side).
func mergeSummary(inputs []mergeInput, remap map[hostDevice]int, recs []results.Record) results.Summary {
	type sizeKey struct {
		dev  int
		size uint32
	}
	devs := map[int]*results.DeviceSummary{}
	sizes := map[sizeKey]*results.SizeSummary{}
	skippedAll := map[sizeKey]bool{}
	var sum results.Summary
	incomplete := false
	once := func(list *[]string, s string) {
		if s != "" && !slices.Contains(*list, s) {
			*list = append(*list, s)
		}
	}
	device := func(idx int) *results.DeviceSummary {
		if devs[idx] == nil {
			devs[idx] = &results.DeviceSummary{Index: idx}
		}
		return devs[idx]
	}
	size := func(idx int, s uint32) *results.SizeSummary {
		k := sizeKey{idx, s}
		if sizes[k] == nil {
			sizes[k] = &results.SizeSummary{WaveSize: s}
			skippedAll[k] = true
		}
		return sizes[k]
	}
	var hosts, versions []string
	for _, in := range inputs {
		s := in.sum
		sum.Merged = append(sum.Merged, in.dir)
		once(&hosts, s.Host)
		once(&versions, s.Version)
		if s.Started != "" && (sum.Started == "" || s.Started < sum.Started) {
			sum.Started = s.Started
		}
		sum.Total.Seconds = max(sum.Total.Seconds, s.Total.Seconds)
		incomplete = incomplete || s.ExitStatus == exitIncomplete
		for _, ds := range s.Devices {
			idx := remap[hostDevice{s.Host, ds.Index}]
			d := device(idx)
			if d.Device == "" {
				d.Device, d.Driver = ds.Device, ds.Driver
			}
			for _, e := range ds.Expectations {
				once(&d.Expectations, e)
			}
			for _, e := range ds.Stale {
				once(&d.Stale, e)
			}
			d.Total.Seconds = max(d.Total.Seconds, ds.Total.Seconds)
			for _, ss := range ds.Sizes {
				m := size(idx, ss.WaveSize)
				k := sizeKey{idx, ss.WaveSize}
				if ss.SkipReason != "" && m.SkipReason == "" {
					m.SkipReason = ss.SkipReason
				}
				skippedAll[k] = skippedAll[k] && ss.SkipReason != ""
				if ss.Error != "" {
					m.Error = strings.TrimPrefix(m.Error+"; ", "; ") + in.dir + ": " + ss.Error
					incomplete = true
				}
				st := &m.Stats
				st.Pipelines += ss.Stats.Pipelines
				st.Kernels += ss.Stats.Kernels
				st.ParityCases += ss.Stats.ParityCases
				st.ParityLanes += ss.Stats.ParityLanes
				st.Seconds = max(st.Seconds, ss.Stats.Seconds)
			}
		}
	}
	// A size with records ran somewhere; counts come from the records alone.
	for _, r := range recs {
		d := device(r.DeviceIndex)
		if d.Device == "" {
			d.Device, d.Driver = r.Device, r.Driver
		}
		k := sizeKey{r.DeviceIndex, r.WaveSize}
		size(r.DeviceIndex, r.WaveSize).Stats.Add(r)
		skippedAll[k] = false
	}
	var idxs []int
	for idx := range devs {
		idxs = append(idxs, idx)
	}
	sort.Ints(idxs)
	var ids []report.DeviceID
	for _, idx := range idxs {
		ids = append(ids, report.DeviceID{Identity: report.DeviceIdentity(devs[idx].Device), Driver: devs[idx].Driver, Index: idx})
	}
	suffix := report.Suffixes(ids)
	var sizeList []sizeKey
	for k := range sizes {
		sizeList = append(sizeList, k)
	}
	sort.Slice(sizeList, func(i, j int) bool {
		if sizeList[i].dev != sizeList[j].dev {
			return sizeList[i].dev < sizeList[j].dev
		}
		return sizeList[i].size < sizeList[j].size
	})
	for _, k := range sizeList {
		m := sizes[k]
		if !skippedAll[k] {
			m.SkipReason = ""
		}
		devs[k.dev].Sizes = append(devs[k.dev].Sizes, *m)
	}
	for i, idx := range idxs {
		d := devs[idx]
		d.Name = d.Device + suffix[ids[i]]
		d.Stale = slices.DeleteFunc(d.Stale, func(line string) bool { return staleLineHit(line, idx, recs) })
		secs := d.Total.Seconds
		d.Total = results.Stats{}
		for _, ss := range d.Sizes {
			d.Total.Merge(ss.Stats)
		}
		d.Total.Seconds = secs
		sum.Total.Merge(d.Total)
		sum.Devices = append(sum.Devices, *d)
	}
	rollUp(&sum)
	sum.Host, sum.Version = strings.Join(hosts, ", "), strings.Join(versions, ", ")
	if incomplete {
		sum.ExitStatus = exitIncomplete
	}
	return sum
}

// staleLineHit reports whether a baseline line one input listed as stale
// ("WHERE TEST,STATUS": no case it matched there ended as it says) was hit by a
// case of another input: a pattern line may match nothing in one shard and
// its failure in another, and it is stale only if no shard hit it.
func staleLineHit(line string, dev int, recs []results.Record) bool {
	where, rest, _ := strings.Cut(line, " ")
	status := rest[strings.LastIndex(rest, ",")+1:]
	for _, r := range recs {
		if r.DeviceIndex == dev && r.Outcome() == status && (r.Known == where || strings.HasPrefix(r.Known, where+": ")) {
			return true
		}
	}
	return false
}

// writeMergedRunFiles writes expectation.json and devices.json of the merged
// run: each device of the inputs once, under its merged index (devices.json of
// a run lists every device its host enumerated; the merged one lists the
// devices that ran). Neither is written when no input had it.
func writeMergedRunFiles(out string, inputs []mergeInput, remap map[hostDevice]int) error {
	var ex results.Expectation
	var doc devicesDoc
	haveEx, haveDevs := false, false
	seenEx, seenDev := map[int]bool{}, map[int]bool{}
	for _, in := range inputs {
		if in.expectation != nil {
			haveEx = true
			for _, de := range in.expectation.Devices {
				idx, ok := remap[hostDevice{in.sum.Host, de.Index}]
				if !ok || seenEx[idx] {
					continue
				}
				seenEx[idx] = true
				de.Index = idx
				ex.Devices = append(ex.Devices, de)
			}
		}
		if in.devices != nil {
			haveDevs = true
			doc.Comment = in.devices.Comment
			for _, raw := range in.devices.Devices {
				var entry map[string]json.RawMessage
				var index int
				if json.Unmarshal(raw, &entry) != nil || json.Unmarshal(entry["index"], &index) != nil {
					continue
				}
				idx, ok := remap[hostDevice{in.sum.Host, index}]
				if !ok || seenDev[idx] {
					continue
				}
				seenDev[idx] = true
				entry["index"], _ = json.Marshal(idx)
				moved, _ := json.Marshal(entry)
				doc.Devices = append(doc.Devices, moved)
			}
		}
	}
	writeJSON := func(name string, v any) error {
		return results.WriteFileAtomic(filepath.Join(out, name), func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(v)
		})
	}
	if haveEx {
		sort.Slice(ex.Devices, func(i, j int) bool { return ex.Devices[i].Index < ex.Devices[j].Index })
		if err := writeJSON(results.ExpectationFile, ex); err != nil {
			return err
		}
	}
	if haveDevs {
		if err := writeJSON(results.DevicesFile, doc); err != nil {
			return err
		}
	}
	return nil
}

// reproCopy is one file of an input's repro bundles and where it goes.
type reproCopy struct{ src, dst string }

// planReproCopies lists the repro files of every input and their place in the
// merged run: repro/BUNDLE for a run of one device, repro/deviceN/BUNDLE (the
// merged index) when the merged run has several. Two inputs writing one file
// is an overlap (found before anything is written).
func planReproCopies(inputs []mergeInput, remap map[hostDevice]int, several bool) ([]reproCopy, error) {
	var out []reproCopy
	from := map[string]string{}
	for _, in := range inputs {
		root := filepath.Join(in.dir, results.ReproDir)
		if _, err := os.Stat(root); err != nil {
			continue
		}
		devs := inputDevices(in)
		// A run of several devices keeps each device's bundles in deviceN/.
		perDevice := len(in.sum.Devices) > 1
		err := filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
			if err == nil && e.IsDir() && e.Name() == repro.KnownMarkDir {
				// The run's markers of which baseline lines have their bundle
				// (every shard has its own): not a bundle.
				return fs.SkipDir
			}
			if err != nil || e.IsDir() || !e.Type().IsRegular() {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			src := -1
			if perDevice {
				first, rest, _ := strings.Cut(filepath.ToSlash(rel), "/")
				if _, err := fmt.Sscanf(first, "device%d", &src); err != nil {
					return nil // not a bundle of this run's layout
				}
				rel = filepath.FromSlash(rest)
			} else if len(devs) > 0 {
				src = devs[0]
			}
			dst := rel
			if several {
				dst = filepath.Join(fmt.Sprintf("device%d", remap[hostDevice{in.sum.Host, src}]), rel)
			}
			if prev, ok := from[dst]; ok {
				return badInput("repro file %s is in both %s and %s", dst, prev, in.dir)
			}
			from[dst] = in.dir
			out = append(out, reproCopy{path, dst})
			return nil
		})
		if err != nil {
			var ie *inputError
			if errors.As(err, &ie) {
				return nil, err
			}
			return nil, badInput("%s: %v", root, err)
		}
	}
	return out, nil
}

// copyRepro copies the planned repro files under out/repro, each atomically.
func copyRepro(out string, copies []reproCopy) error {
	for _, c := range copies {
		dst := filepath.Join(out, results.ReproDir, c.dst)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		err := results.WriteFileAtomic(dst, func(w io.Writer) error {
			f, err := os.Open(c.src)
			if err != nil {
				return err
			}
			defer f.Close()
			_, err = io.Copy(w, f)
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// printMergedSizes is the merged run's size table, per device when there are
// several.
func printMergedSizes(w io.Writer, sum results.Summary, several bool) {
	col := ""
	if several {
		col = "dev  "
	}
	fmt.Fprintf(w, "\n%s%-6s %8s %8s %8s %8s %8s %8s %10s %9s\n", col, "size", "cases", "passed", "failed", "errors", "skipped", "known", "pipelines", "seconds")
	for _, d := range sum.Devices {
		prefix := ""
		if several {
			prefix = fmt.Sprintf("%-4d ", d.Index)
		}
		for _, ss := range d.Sizes {
			st := ss.Stats
			if ss.SkipReason != "" {
				fmt.Fprintf(w, "%s%-6d skipped: %s\n", prefix, ss.WaveSize, ss.SkipReason)
				continue
			}
			fmt.Fprintf(w, "%s%-6d %8d %8d %8d %8d %8d %8d %10d %9.1f\n", prefix, ss.WaveSize, st.Cases, st.Passed, st.Failed, st.Errors, st.Skipped, st.Known, st.Pipelines, st.Seconds)
			if ss.Error != "" {
				fmt.Fprintf(w, "%s       error: %s\n", tableIndent(several), ss.Error)
			}
		}
	}
	t := sum.Total
	fmt.Fprintf(w, "%s%-6s %8d %8d %8d %8d %8d %8d %10d %9.1f\n", tableIndent(several), "total", t.Cases, t.Passed, t.Failed, t.Errors, t.Skipped, t.Known, t.Pipelines, t.Seconds)
}

// orElse is s, or def when s is empty.
func orElse(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
