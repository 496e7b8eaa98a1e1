package harness

import (
	"cmp"
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
// roughly halves a lavapipe run. Where there are fewer child units than twice
// the pool (lavapipe's three sizes on two cores), each is split into parts
// (plan.Part: a share of its kernels, one child each), so no core waits while
// the last size runs alone.

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
	type unit struct{ dev, size, part, parts int }
	var units []unit
	longest := 0
	for i, dr := range runs {
		out[i] = DeviceResult{Index: dr.Index, Sizes: make([]SizeResult, len(dr.Plan.Sizes))}
		longest = max(longest, len(dr.Plan.Sizes))
	}
	parts := poolParts(runs, jobs)
	// Size by size across the devices: while the run is cut short (a CI job's
	// time limit), every device has made the same progress.
	for s := 0; s < longest; s++ {
		for d, dr := range runs {
			if s >= len(dr.Plan.Sizes) {
				continue
			}
			n := 1
			if sp := dr.Plan.Sizes[s]; sp.SkipReason == "" && isChild(sp, len(runs) > 1) && dr.Config.Part.Whole() {
				n = parts
			}
			for p := 1; p <= n; p++ {
				units = append(units, unit{d, s, p, n})
			}
		}
	}
	// The parts of one (device, size) report one layout record per API
	// between them, and one SizeResult.
	layouts := make([][]*layoutOnce, len(runs))
	partsLeft := make([][]int, len(runs))
	for d, dr := range runs {
		layouts[d] = make([]*layoutOnce, len(dr.Plan.Sizes))
		partsLeft[d] = make([]int, len(dr.Plan.Sizes))
		for s := range dr.Plan.Sizes {
			layouts[d][s] = &layoutOnce{sent: map[string]bool{}}
		}
	}
	for _, u := range units {
		partsLeft[u.dev][u.size]++
	}
	// In-process sizes share this process's Vulkan instance and the rig's
	// all-core precompile: one at a time, whatever the pool size.
	var inProcess sync.Mutex
	first := make([]time.Time, len(runs))
	last := make([]time.Time, len(runs))
	sizeFirst := make([][]time.Time, len(runs))
	for d := range runs {
		sizeFirst[d] = make([]time.Time, len(runs[d].Plan.Sizes))
	}
	var spanMu sync.Mutex
	work := make(chan unit)
	var wg sync.WaitGroup
	for w := 0; w < max(1, min(jobs, len(units))); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for u := range work {
				dr := runs[u.dev]
				if u.parts > 1 {
					dr.Config.Part = plan.Part{K: u.part, N: u.parts}
				}
				sp := dr.Plan.Sizes[u.size]
				begin := time.Now()
				sr := runSize(dr, sp, len(runs) > 1, newCmd, &inProcess, layouts[u.dev][u.size], watch, safeEmit)
				spanMu.Lock()
				if first[u.dev].IsZero() || begin.Before(first[u.dev]) {
					first[u.dev] = begin
				}
				if sizeFirst[u.dev][u.size].IsZero() || begin.Before(sizeFirst[u.dev][u.size]) {
					sizeFirst[u.dev][u.size] = begin
				}
				last[u.dev] = time.Now()
				out[u.dev].Sizes[u.size] = mergeParts(out[u.dev].Sizes[u.size], sr)
				if partsLeft[u.dev][u.size]--; partsLeft[u.dev][u.size] == 0 && u.parts > 1 {
					// A size's seconds are its parts' span, as a device's are its sizes'.
					out[u.dev].Sizes[u.size].Stats.Seconds = time.Since(sizeFirst[u.dev][u.size]).Seconds()
				}
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

// poolParts is how many children share each child-run (device, size): one,
// unless the pool has more workers than such units, then enough that every
// worker has about two units to take (at most jobs per size). A child costs a
// device and an instance (well under a second on lavapipe), so parts only pay
// where a core would otherwise wait for the last unit alone.
func poolParts(runs []DeviceRun, jobs int) int {
	n := 0
	for _, dr := range runs {
		for _, sp := range dr.Plan.Sizes {
			if sp.SkipReason == "" && isChild(sp, len(runs) > 1) {
				n++
			}
		}
	}
	if jobs <= 1 || n == 0 || n >= 2*jobs {
		return 1
	}
	return min(jobs, (2*jobs+n-1)/n)
}

// isChild reports whether a (device, size) runs in a child process: a
// lavapipe width is fixed when the driver loads, and with several devices a
// driver that kills its process must stop only its own.
func isChild(sp plan.SizePlan, several bool) bool { return sp.LPWidth > 0 || several }

// mergeParts adds one part's result to its size's: counts add up; the first
// skip reason and the first error to arrive stand for the size (its parts ask
// the same driver the same questions).
func mergeParts(acc, part SizeResult) SizeResult {
	if acc.Size == 0 {
		return part
	}
	acc.Stats.Merge(part.Stats)
	acc.SkipReason = cmp.Or(acc.SkipReason, part.SkipReason)
	if acc.Err == nil {
		acc.Err = part.Err
	}
	return acc // Seconds: RunDevices sets the parts' span
}

// layoutOnce lets the children of one (device, size) — its parts, and every
// child restarted after a crash — report one layout record per API between them.
type layoutOnce struct {
	mu   sync.Mutex
	sent map[string]bool
}

// first reports whether this is the first layout record of its backend.
func (l *layoutOnce) first(backend string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.sent[backend] {
		return false
	}
	l.sent[backend] = true
	return true
}

// runSize runs one wave size of one device (or one part of it): skipped, in a
// child, or in this process (one device only, size control).
func runSize(dr DeviceRun, sp plan.SizePlan, several bool, newCmd ChildCommand, inProcess *sync.Mutex, layouts *layoutOnce, watch *ChildWatch, emit func(results.Record)) SizeResult {
	sr := SizeResult{Size: sp.Size, SkipReason: sp.SkipReason}
	switch {
	case sp.SkipReason != "":
	case isChild(sp, several):
		sr.Stats, sr.Err = runChild(func() *exec.Cmd { return newCmd(dr.Index, sp) }, dr.Index, pass.DriverString(dr.Plan.Device), sp, dr.Config, layouts, watch, emit)
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
