package harness

import (
	"errors"
	"io"
	"os/exec"
	"runtime"
	"sync"
	"time"

	"waverig/harness/pass"
	"waverig/harness/plan"
	"waverig/harness/results"
)

// A run covers one or more devices, each at the wave sizes of its Plan. Every
// (device, wave size) pair is one unit of work, and the units share one pool of
// at most Jobs at a time:
//
//   - a lavapipe size is always a child process (its width is fixed when the
//     driver loads);
//   - with several devices every size is a child process, so a driver that
//     kills its process stops one (device, size) and never another device;
//   - with one device, a size-control size runs in this process, one after
//     another, as it always has (the rig already precompiles on every core, and
//     the driver keeps running in the same process as the run).
//
// The pool is what keeps a 2-core machine busy: a child spends most of its
// time in the driver's serial pipeline builds, so running two of them at once
// roughly halves a lavapipe run.

// SizeResult is the outcome of one wave size.
type SizeResult struct {
	Size       uint32
	Stats      results.Stats
	SkipReason string
	Err        error // the size could not be run to the end (not a wrong result)
}

// DeviceRun is one device of a run: its index in devices.Enumerate (the child
// protocol's Device), its plan, and the configuration its children get (the
// APIs and the repro directory may differ between devices).
type DeviceRun struct {
	Index  int
	Plan   plan.Plan
	Config pass.Config
}

// DeviceResult is the outcome of one device: one SizeResult per plan entry, in
// plan order.
type DeviceResult struct {
	Index int
	Sizes []SizeResult
	// Seconds is the device's wall time: from its first size's start to its last
	// size's end (its sizes overlap, so their own seconds do not add up to it).
	Seconds float64
}

// ChildCommand makes the command of one child process for a device and size
// (a binary whose main or TestMain calls ChildMain). RunChild adds the request
// and the lavapipe width to its environment.
type ChildCommand func(device int, sp plan.SizePlan) *exec.Cmd

// SelfCommand is the ChildCommand of a binary that re-executes itself (waverig
// run: os.Executable()).
func SelfCommand(self string) ChildCommand {
	return func(int, plan.SizePlan) *exec.Cmd { return exec.Command(self) }
}

// DefaultJobs is the default size of the pool: one child per CPU.
func DefaultJobs() int { return max(1, runtime.NumCPU()) }

// RunDevices runs every size of every device, at most jobs units at a time
// (jobs < 1 counts as 1), and returns one DeviceResult per run, in order.
//
// emit is never called by two units at once: a record reaches it whole, and
// the records of one unit arrive in the order that unit produced them; units
// interleave. Every record carries its device's index. A unit that fails (its
// child cannot start, or gives up after too many crashes) fails alone: its
// records so far are kept, and every other unit runs to its end.
//
// watch (nil: none) takes the children's stderr and hears of their crashes;
// its Log and Crashed are serialised like emit.
func RunDevices(runs []DeviceRun, jobs int, newCmd ChildCommand, watch *ChildWatch, emit func(results.Record)) []DeviceResult {
	var mu sync.Mutex
	safeEmit := func(r results.Record) {
		mu.Lock()
		defer mu.Unlock()
		emit(r)
	}
	if watch != nil {
		w := *watch
		if w.Log != nil {
			w.Log = &lockedWriter{w: w.Log}
		}
		if crashed := w.Crashed; crashed != nil {
			w.Crashed = func(c ChildCrash) {
				mu.Lock()
				defer mu.Unlock()
				crashed(c)
			}
		}
		watch = &w
	}
	out := make([]DeviceResult, len(runs))
	type unit struct{ dev, size int }
	var units []unit
	longest := 0
	for i, dr := range runs {
		out[i] = DeviceResult{Index: dr.Index, Sizes: make([]SizeResult, len(dr.Plan.Sizes))}
		longest = max(longest, len(dr.Plan.Sizes))
	}
	// Size by size across the devices: while the run is cut short (a CI job's
	// time limit), every device has made the same progress.
	for s := 0; s < longest; s++ {
		for d, dr := range runs {
			if s < len(dr.Plan.Sizes) {
				units = append(units, unit{d, s})
			}
		}
	}
	// In-process sizes share this process's Vulkan instance and the rig's
	// all-core precompile: one at a time, whatever the pool size.
	var inProcess sync.Mutex
	first := make([]time.Time, len(runs))
	last := make([]time.Time, len(runs))
	var spanMu sync.Mutex
	work := make(chan unit)
	var wg sync.WaitGroup
	for w := 0; w < max(1, min(jobs, len(units))); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for u := range work {
				dr := runs[u.dev]
				sp := dr.Plan.Sizes[u.size]
				begin := time.Now()
				out[u.dev].Sizes[u.size] = runSize(dr, sp, len(runs) > 1, newCmd, &inProcess, watch, safeEmit)
				spanMu.Lock()
				if first[u.dev].IsZero() || begin.Before(first[u.dev]) {
					first[u.dev] = begin
				}
				last[u.dev] = time.Now()
				spanMu.Unlock()
			}
		}()
	}
	for _, u := range units {
		work <- u
	}
	close(work)
	wg.Wait()
	for d := range out {
		if !first[d].IsZero() {
			out[d].Seconds = last[d].Sub(first[d]).Seconds()
		}
	}
	return out
}

// runSize runs one wave size of one device: skipped, in a child, or in this
// process (one device only, size control).
func runSize(dr DeviceRun, sp plan.SizePlan, several bool, newCmd ChildCommand, inProcess *sync.Mutex, watch *ChildWatch, emit func(results.Record)) SizeResult {
	sr := SizeResult{Size: sp.Size, SkipReason: sp.SkipReason}
	switch {
	case sp.SkipReason != "":
	case sp.LPWidth > 0 || several:
		sr.Stats, sr.Err = runChild(func() *exec.Cmd { return newCmd(dr.Index, sp) }, dr.Index, pass.DriverString(dr.Plan.Device), sp, dr.Config, watch, emit)
		var su *SizeUnavailableError
		if errors.As(sr.Err, &su) && sp.Optional {
			sr.SkipReason, sr.Err = su.Msg, nil
		}
	default:
		inProcess.Lock()
		defer inProcess.Unlock()
		rig, err := pass.New(dr.Index, dr.Config)
		if err != nil {
			sr.Err = err
			break
		}
		defer rig.Close()
		sr.Stats, sr.Err = rig.Run(sp.Size, func(r results.Record) {
			r.DeviceIndex = dr.Index
			emit(r)
		})
	}
	return sr
}

// lockedWriter serialises writes: each child's lines arrive whole (one Write
// per batch of lines, linePrefixer), so two children's lines never mix.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
