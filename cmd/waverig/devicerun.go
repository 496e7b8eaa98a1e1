package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"waverig/devices"
	"waverig/harness"
	"waverig/harness/expect"
	"waverig/harness/pass"
	"waverig/harness/report"
	"waverig/harness/results"
)

// What `waverig run` does with the devices of a run: which ones -device names,
// how they are named when two share a name, whether a baseline covers them, and
// the per-device rows of the printed table and of summary.json.

// pickDevices resolves -device: a comma list of indices or case-insensitive
// name substrings (each the first device it matches, as -device always did),
// or all. Devices come in the order given, each once.
func pickDevices(devs []devices.Device, sel string) ([]int, error) {
	var out []int
	seen := map[int]bool{}
	add := func(i int) {
		if !seen[i] {
			seen[i] = true
			out = append(out, i)
		}
	}
	for _, tok := range strings.Split(sel, ",") {
		tok = strings.TrimSpace(tok)
		switch {
		case tok == "":
			return nil, fmt.Errorf("-device %q: an empty entry", sel)
		case strings.EqualFold(tok, "all"):
			if len(devs) == 0 {
				return nil, fmt.Errorf("no Vulkan devices found (install mesa-vulkan-drivers for lavapipe)")
			}
			for i := range devs {
				add(i)
			}
		default:
			i, err := pickDevice(devs, tok)
			if err != nil {
				return nil, err
			}
			add(i)
		}
	}
	return out, nil
}

// deviceID is the device at index i as its records name it (report.IDOf).
func deviceID(devs []devices.Device, i int) report.DeviceID {
	return report.DeviceID{Identity: report.DeviceIdentity(devs[i].Name), Driver: pass.DriverString(devs[i]), Index: i}
}

// deviceNames names the devices of a run as the reports do: the name, with
// report.Suffixes' " [driver release]" where two of them share it with other
// drivers (lavapipe from Mesa 22.3.6 and 25.0.7) or " #index" where they
// share the driver too (two identical GPUs).
func deviceNames(devs []devices.Device, idxs []int) map[int]string {
	var ids []report.DeviceID
	for _, i := range idxs {
		ids = append(ids, deviceID(devs, i))
	}
	suf := report.Suffixes(ids)
	names := map[int]string{}
	for _, id := range ids {
		names[id.Index] = devs[id.Index].Name + suf[id]
	}
	return names
}

// baselineCovers refuses a baseline that did not run every device of this run
// (another driver version of the same device is what a baseline is for); each
// device is compared with its own part of the baseline (report.MatchDevice).
func baselineCovers(before []results.Record, devs []devices.Device, idxs []int) error {
	names := deviceNames(devs, idxs)
	for _, i := range idxs {
		id := deviceID(devs, i)
		if _, ok := report.MatchDevice(before, id); !ok {
			return fmt.Errorf("the baseline ran on %s, this run on %s", strings.Join(report.Devices(before), ", "), report.DeviceIdentity(names[i]))
		}
	}
	return nil
}

// deviceRecords are the records of one device of a run.
func deviceRecords(all []results.Record, index int) []results.Record {
	var out []results.Record
	for _, r := range all {
		if r.DeviceIndex == index {
			out = append(out, r)
		}
	}
	return out
}

// tableIndent is the device column of the size table (several devices only).
func tableIndent(several bool) string {
	if several {
		return strings.Repeat(" ", 5)
	}
	return ""
}

// summarize prints the size table (per device and wave size when the run has
// several devices) and builds summary.json without its total's seconds and exit
// status. incomplete is true when a size could not run to its end.
func summarize(w io.Writer, devs []devices.Device, names map[int]string, drs []harness.DeviceResult, all []results.Record, sets []*expect.Set) (sum results.Summary, incomplete bool) {
	several := len(drs) > 1
	indent := tableIndent(several)
	col := "dev  "
	if !several {
		col = ""
	}
	fmt.Fprintf(w, "\n%s%-6s %8s %8s %8s %8s %8s %8s %10s %9s\n", col, "size", "cases", "passed", "failed", "errors", "skipped", "known", "pipelines", "seconds")
	row := func(prefix, label string, st results.Stats) {
		fmt.Fprintf(w, "%s%-6s %8d %8d %8d %8d %8d %8d %10d %9.1f\n", prefix, label, st.Cases, st.Passed, st.Failed, st.Errors, st.Skipped, st.Known, st.Pipelines, st.Seconds)
	}
	for _, dr := range drs {
		dev := devs[dr.Index]
		ds := results.DeviceSummary{Index: dr.Index, Device: dev.Name, Name: names[dr.Index], Driver: pass.DriverString(dev)}
		for _, s := range sets {
			if s.Applies(pass.DeviceString(dev)) {
				ds.Expectations = append(ds.Expectations, s.Name)
			}
		}
		prefix := ""
		if several {
			prefix = fmt.Sprintf("%-4d ", dr.Index)
		}
		for _, sr := range dr.Sizes {
			st := sr.Stats
			ss := results.SizeSummary{WaveSize: sr.Size, Stats: st, SkipReason: sr.SkipReason}
			if sr.SkipReason != "" {
				fmt.Fprintf(w, "%s%-6d skipped: %s\n", prefix, sr.Size, sr.SkipReason)
			} else {
				row(prefix, strconv.Itoa(int(sr.Size)), st)
			}
			if sr.Err != nil {
				fmt.Fprintf(w, "%s       error: %v\n", indent, sr.Err)
				ss.Error = sr.Err.Error()
				incomplete = true
			}
			ds.Total.Merge(st)
			ds.Sizes = append(ds.Sizes, ss)
		}
		ds.Total.Seconds = dr.Seconds
		if several {
			row(prefix, "all", ds.Total)
		}
		for _, l := range expect.For(sets, pass.DeviceString(dev)).Stale(deviceRecords(all, dr.Index)) {
			ds.Stale = append(ds.Stale, l.Where+" "+l.Test+","+l.Status)
		}
		sum.Devices = append(sum.Devices, ds)
		sum.Total.Merge(ds.Total)
	}
	if !several {
		ds := sum.Devices[0]
		sum.Device, sum.Driver, sum.Expectations, sum.Stale, sum.Sizes = ds.Device, ds.Driver, ds.Expectations, ds.Stale, ds.Sizes
		return sum, incomplete
	}
	rollUp(&sum)
	return sum, incomplete
}

// rollUp fills a summary's top level from its devices (a run's, or a merge's):
// their names and drivers, their baselines and stale lines once each, and
// per wave size the devices' counts added up (seconds: the longest, as they
// ran side by side; skipped only where every device skipped it; errors named
// by device). With one device the sizes are its own.
func rollUp(sum *results.Summary) {
	var names, drivers []string
	once := func(list *[]string, s string) {
		if s != "" && !slices.Contains(*list, s) {
			*list = append(*list, s)
		}
	}
	bySize := map[uint32]*results.SizeSummary{}
	var order []uint32
	for _, ds := range sum.Devices {
		names = append(names, ds.Name)
		once(&drivers, ds.Driver)
		for _, e := range ds.Expectations {
			once(&sum.Expectations, e)
		}
		for _, e := range ds.Stale {
			once(&sum.Stale, e)
		}
		for _, ss := range ds.Sizes {
			m := bySize[ss.WaveSize]
			if m == nil {
				m = &results.SizeSummary{WaveSize: ss.WaveSize, SkipReason: ss.SkipReason}
				bySize[ss.WaveSize] = m
				order = append(order, ss.WaveSize)
			}
			if ss.SkipReason == "" {
				m.SkipReason = ""
			}
			m.Stats.Merge(ss.Stats)
			m.Stats.Seconds = max(m.Stats.Seconds, ss.Stats.Seconds)
			if ss.Error != "" {
				m.Error = strings.TrimPrefix(m.Error+"; ", "; ") + fmt.Sprintf("device %d: %s", ds.Index, ss.Error)
			}
		}
	}
	if len(sum.Devices) == 1 {
		sum.Sizes = sum.Devices[0].Sizes
	} else {
		slices.Sort(order)
		for _, size := range order {
			sum.Sizes = append(sum.Sizes, *bySize[size])
		}
	}
	sum.Device, sum.Driver = strings.Join(names, "; "), strings.Join(drivers, "; ")
}
