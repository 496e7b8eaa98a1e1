// Package pass runs one pass of the matrix — one physical device at one wave
// size — its one job: it compiles the generated kernels (with waverig's
// compiler and, as a second opinion, glslang), has spirv-val check every
// module, runs them on each API of the device through a Device (Vulkan,
// WebGPU; device.go), checks every lane against the Go reference models,
// compares the APIs (parity) and streams one results.Record per case. It also
// lists what a pass will run before anything runs (listing.go), runs the
// generated programs of a pass (genrun.go) and one exec case file on a
// device (exec.go).
//
// Wave sizes: a pass runs at one size. On devices with subgroup size control
// the rig asks for it in-process; on lavapipe (one size, chosen by
// LP_NATIVE_VECTOR_WIDTH at driver load) package harness re-runs the binary
// in child processes, one per width (harness/plan, harness/child.go).
package pass

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"waverig/compiler/reflect"
	"waverig/devices"
	"waverig/harness/browser"
	"waverig/harness/dawn"
	"waverig/harness/expect"
	"waverig/harness/kernels"
	"waverig/harness/plan"
	"waverig/harness/produce"
	"waverig/harness/results"
	"waverig/harness/vulkan"
	"waverig/harness/webgpu"
)

// Compiler names used in records.
const (
	Ours    = results.Ours
	Glslang = results.Glslang
)

// Config selects what a run covers. It crosses to child processes as JSON
// (child.go), so every field is data.
type Config struct {
	Filter    kernels.Filter
	Compilers []string // default: ours, plus glslang when installed
	// Expectations are the baselines to judge records against (nil: the
	// built-in ones; each applies to the devices its driver.txt matches);
	// NoExpectations runs every case as if nothing were known.
	Expectations   []*expect.Set
	NoExpectations bool
	// Retries is how many times a kernel with a new failure (one no baseline
	// line expects) is run again before the failure is reported; a case that
	// passes on a re-run is a Flake.
	Retries int
	// KernelTimeout bounds one kernel's run (its dispatches, re-runs and
	// checks) in a child process: past it the child is killed and the cases
	// are Timeout records. 0: no bound. (An in-process run has no watchdog.)
	KernelTimeout time.Duration
	// ReproDir receives a repro bundle per kernel with a failing case: the HLSL,
	// the SPIR-V that ran, the failing records and the command that re-runs it.
	ReproDir string
	// APIs are the APIs to drive (Vulkan, WebGPU); nil means Vulkan only. The
	// CLI's default is every API with a device.
	APIs []string
	// Stages are the shader stages to cover (results.Compute, Pixel, Vertex);
	// nil means all.
	Stages []string
	// Shard keeps one share of the matrix's kernels (harness/plan's shard.go); zero: all.
	Shard plan.Shard
	// Part is the pool's split of one (device, size) into concurrent children
	// (plan.Part; harness.RunDevices sets it, never a user): applied after the
	// shard and the CI tier, so the parts of a size run exactly its kernels.
	Part plan.Part
	// Fraction > 1 keeps only the CI tier of the kernels at each wave size
	// (kernels.TierKernels: every operation × type family × stage, 1/Fraction
	// of the rest, every case a baseline expects to crash); 0 or 1: all.
	Fraction int
	// GenSeeds are the generated programs (harness/gen) each pass runs on
	// Vulkan after the matrix (genrun.go); nil: none.
	GenSeeds []uint64
}

// ExpectationSets returns the sets a run applies (none with NoExpectations).
func (c Config) ExpectationSets() ([]*expect.Set, error) {
	if c.NoExpectations {
		return nil, nil
	}
	if c.Expectations != nil {
		return c.Expectations, nil
	}
	return expect.Builtin()
}

// Rig runs kernels on one device at its current wave size.
type Rig struct {
	// devs are the APIs the pass drives on its physical device, by API
	// (device.go); an API the run asks for with no entry is skipped with
	// skips' reason.
	devs  map[string]Device
	skips map[string]string
	// runner is the Vulkan device itself, for the paths that only Vulkan
	// takes (generated programs, exec case files, planted-bug modules); nil on
	// a simulated device.
	runner *vulkan.Runner
	dev    devices.Device
	// gpu is the WebGPU adapter of the same physical device, when the run
	// drives WebGPU and one was found; dawn is Dawn's (skips says why not).
	gpu     *webgpu.Device
	dawn    *dawn.Device
	browser *browser.Browser // exec's -api browser
	cfg     Config
	cache   map[string]*module // key: compiler + kernel hash
	// byName holds the rig's compilers by name (compilers, built once).
	byName        map[string]produce.Compiler
	compilersOnce sync.Once
	mu            sync.Mutex

	// resumeAfter (child processes only) skips kernel/compiler pairs up to and
	// including this "kernel/compiler" key: a predecessor crashed in it.
	resumeAfter string
	// crashed (child processes only) are the kernel/compiler pairs that
	// killed a predecessor: never run again in this pass.
	crashed map[string]bool
	// onBegin is told each "kernel/compiler" key, with the records its cases will
	// get, before it runs: a parent turns them into crash records if the driver
	// kills the process.
	onBegin func(key string, pending []results.Record)
	// onCounts (children) is told each kernel's parity counts as it finishes.
	onCounts func(results.Stats)
	// judge holds the baselines that apply to this device.
	judge *expect.Judge
	// deviceMu serialises kernel runs: the dispatch loop's and the finisher's
	// re-runs of new failures (which run beside it in an in-process run).
	deviceMu sync.Mutex
	// prof adds up where a pass's time goes (WAVERIG_PROFILE=1 prints it).
	prof profile
	// waveSizes memoises kernelWaveSize by kernel name.
	waveSizes map[string]*reflect.WaveSize
}

// New opens the device.
func New(deviceIndex int, cfg Config) (*Rig, error) {
	r, err := vulkan.NewRunner(deviceIndex)
	if err != nil {
		return nil, err
	}
	// The rig validates every module itself, in parallel, while precompiling; the
	// runner's check before a pipeline build then finds it accepted (vulkan.Validate
	// remembers), and still stops any module that did not come through compile.
	rig, err := NewOn(r.Device(), cfg, map[string]Device{Vulkan: vulkanDevice{r}})
	if err != nil {
		r.Close()
		return nil, err
	}
	rig.runner = r
	for _, api := range cfg.apis() {
		switch api {
		case WebGPU:
			rig.openWebGPU()
		case Dawn:
			rig.openDawn()
		case Browser:
			rig.openBrowser()
		}
	}
	return rig, nil
}

// NewOn makes a rig that drives devs (by API) of the physical device dev:
// New's real devices, or a simulated one (harness/simdevice). A run's API
// with no entry in devs is skipped, saying so.
func NewOn(dev devices.Device, cfg Config, devs map[string]Device) (*Rig, error) {
	if len(cfg.Compilers) == 0 {
		cfg.Compilers = produce.DefaultCompilers()
	}
	rig := &Rig{devs: devs, skips: map[string]string{}, dev: dev, cfg: cfg, cache: map[string]*module{}}
	for _, api := range cfg.apis() {
		if devs[api] == nil {
			rig.skips[api] = "no " + api + " device in this rig"
		}
	}
	sets, err := cfg.ExpectationSets()
	if err != nil {
		return nil, err
	}
	rig.judge = expect.For(sets, DeviceString(dev))
	return rig, nil
}

// DeviceString is what baselines' driver.txt patterns are matched against:
// "name | driver name | driver info" (driverRelease stands in for an empty
// driver info).
func DeviceString(d devices.Device) string {
	return d.Name + " | " + d.DriverName + " | " + driverRelease(d)
}

// DriverString is a record's driver field: the driver name and info
// ("llvmpipe Mesa 25.0.7-2~bpo12+1 (LLVM 15.0.6)"), which tell two drivers of
// one device apart (two lavapipes share the device name and ids).
func DriverString(d devices.Device) string {
	return strings.TrimSpace(d.DriverName + " " + driverRelease(d))
}

// driverRelease is the driver info, or the decoded driverVersion where the
// driver reports no info (SwiftShader: "5.0.0"), so that every driver's
// release is in its DriverString.
func driverRelease(d devices.Device) string {
	if d.DriverInfo == "" {
		return d.DriverVersionText
	}
	return d.DriverInfo
}

// ChildHooks are what the child-process protocol (package harness) tells a
// child's rig: where a predecessor died, and whom to tell before each kernel
// and after it.
type ChildHooks struct {
	// ResumeAfter skips kernel/compiler pairs up to and including this key
	// (jobKey): a predecessor crashed in it.
	ResumeAfter string
	// Crashed are the pairs that killed a predecessor: never run again.
	Crashed []string
	// OnBegin is told each key, with the records its cases get if the driver
	// kills the process, before it runs.
	OnBegin func(key string, pending []results.Record)
	// OnCounts is told each kernel's parity counts as it finishes.
	OnCounts func(results.Stats)
}

// SetChild makes the rig a child process's: checks run synchronously (a crash
// must not lose a checked kernel), kernels announce themselves, and the pass
// resumes after a predecessor's crash.
func (r *Rig) SetChild(h ChildHooks) {
	r.resumeAfter = h.ResumeAfter
	r.crashed = map[string]bool{}
	for _, k := range h.Crashed {
		r.crashed[k] = true
	}
	r.onBegin, r.onCounts = h.OnBegin, h.OnCounts
}

// Device is the device the rig runs on.
func (r *Rig) Device() devices.Device { return r.dev }

// Close releases the devices.
func (r *Rig) Close() {
	// The WebGPU adapters before the Vulkan device they sit on.
	for _, api := range []string{Browser, Dawn, WebGPU} {
		if d := r.devs[api]; d != nil {
			d.Close()
		}
	}
	if d := r.devs[Vulkan]; d != nil {
		d.Close()
	}
}

// Pipelines is the number of pipelines created so far, on every API.
func (r *Rig) Pipelines() int {
	n := 0
	for _, d := range r.devs {
		n += d.Pipelines()
	}
	return n
}

// WaveSize is the size the device runs compute at now (the reported subgroupSize
// on devices without size control).
func (r *Rig) WaveSize() uint32 { return r.dev.SubgroupSize }

// record starts a record of this rig's device.
func (r *Rig) record(size uint32, t target, k kernels.Kernel) results.Record {
	api, impl := results.SplitBackend(t.api)
	return results.Record{WaveSize: size, API: api, Impl: impl, Stage: stageOf(k), Compiler: t.comp, Device: r.dev.Name, Driver: DriverString(r.dev), Kernel: k.Name}
}

// stageOf is a kernel's stage as records name it.
func stageOf(k kernels.Kernel) string {
	if k.Stage == "" {
		return results.Compute
	}
	return string(k.Stage)
}

// matrix is every kernel a pass at wave size size runs: compute kernels at every
// size; draw kernels only at the device's own size (the rig does not ask for a
// size in graphics stages).
func (r *Rig) matrix(size uint32) []kernels.Kernel {
	return r.cfg.passKernels(r.dev, size, r.dev.SubgroupSize) // listing.go, shared with PlanCases
}

// jobKey names one kernel run on one target: the onBegin/resume key.
func jobKey(t target, kernel string) string { return t.api + "/" + kernel + "/" + t.comp }

// checkLayout runs the layout kernel on an API and turns the observed lane
// layout into the layout record. The wave key the other kernels record
// (WaveReadLaneFirst of the flat id) is only trusted after this passes. On
// WebGPU, which cannot ask for a wave size, the size the layout kernel observed
// is the size of the API's records.
func (r *Rig) checkLayout(api string, size uint32) results.Record {
	t := target{api, Ours}
	k := layoutKernel(api)
	rec := r.record(size, t, k)
	rec.Case, rec.Op = results.LayoutCase, results.LayoutCase
	key := jobKey(t, k.Name)
	if r.resumeAfter == key {
		rec.Status, rec.Reason = results.Error, "the layout kernel crashed the driver"
		return rec
	}
	if r.devs[api] == nil {
		rec.Status, rec.Reason = results.Skip, r.skips[api]
		return rec
	}
	if r.onBegin != nil {
		pending := rec
		pending.Status = results.Error
		r.onBegin(key, []results.Record{pending})
	}
	out, err := r.runKernel(k, t, size)
	switch {
	case err != nil:
		rec.Status, rec.Reason = results.Error, "layout kernel did not run: "+err.Error()
	default:
		rep := kernels.CheckLayout(k, out)
		rec.Status, rec.Reason = results.Pass, rep.String()
		if isWebGPU(api) {
			rec.WaveSize = rep.WaveSize
		}
		if !rep.OK {
			rec.Status, rec.Reason = results.Error, "lane layout check failed: "+rep.String()
		}
	}
	return rec
}

// Run runs the matrix at one wave size (0 = the device's current size) and calls
// emit for every case result as soon as it is known. The error is a repro bundle
// that could not be written (every record was still emitted).
//
// Every kernel runs on every target (Vulkan with each compiler, then WebGPU)
// before the next kernel, so the outputs of one case on both APIs can be
// compared (parity) without keeping the whole run in memory. WebGPU cannot ask
// for a wave size: it runs only in the pass at the device's own size.
func (r *Rig) Run(size uint32, emit func(results.Record)) (results.Stats, error) {
	start := time.Now()
	var st results.Stats
	if size == 0 {
		size = r.dev.SubgroupSize
	}
	pipes0 := r.Pipelines()
	// A restarted child checks every API's layout again (cheap); the kernels
	// are skipped up to the one a predecessor died in.
	layouts := map[string]results.Record{}
	skipping := r.resumeAfter != ""
	for _, api := range r.cfg.apis() {
		if isWebGPU(api) && size != r.dev.SubgroupSize {
			continue
		}
		layout := r.checkLayout(api, size)
		layouts[api] = layout
		st.Add(layout)
		emit(layout)
		skipping = skipping && r.resumeAfter != jobKey(target{api, Ours}, layoutKernel(api).Name)
	}
	targets := r.targets()
	matrix := r.matrix(size)
	t0 := time.Now()
	r.precompile(remaining(matrix, r.resumeAfter), targets)
	r.prof.add("compile+validate", t0)
	t0 = time.Now()
	defer r.prof.report(size)
	switch r.resumeAfter {
	case "":
		// A driver that dies while pipelines are built in parallel cannot say
		// which kernel killed it: the parent learns only prebuildKey, and the
		// child it restarts builds one pipeline at a time, so the crash is
		// pinned on its kernel.
		if r.onBegin != nil {
			r.onBegin(prebuildKey, nil)
		}
		r.prebuild(matrix, targets, size, layouts)
		r.prof.add("prebuild pipelines", t0)
	case prebuildKey:
		skipping = false
	}
	var reproErr error
	var reproMu sync.Mutex
	fin := newFinisher(r.onBegin == nil, &st, emit)
	fin.counts = r.onCounts
	for _, k := range matrix {
		if !r.inPass(k, size) {
			continue
		}
		st.Kernels++
		// The device half of every target now, in order; the checks, blame,
		// repro bundles and parity after (finisher).
		type ran struct {
			t    target
			recs []results.Record // the kernel did not run here
			out  map[string][]byte
			size uint32
			took time.Duration // on the device
		}
		// A restarted child skips the kernels before the one its predecessor
		// died in and, in that kernel, only the target it died in (the parent
		// wrote those records). The kernel's other targets run again: a
		// kernel's records are sent after all its targets ran, so the dead
		// child's runs of them were lost with it.
		resumeHere := false
		if skipping {
			for _, t := range targets {
				resumeHere = resumeHere || jobKey(t, k.Name) == r.resumeAfter
			}
			if !resumeHere {
				continue
			}
			skipping = false
		}
		var runs []ran
		for _, t := range targets {
			layout, ok := layouts[t.api]
			if !ok || NotApplicable(t.api, k) != "" {
				continue // not planned (PlanCases): no records
			}
			key := jobKey(t, k.Name)
			if resumeHere && r.crashed[key] {
				continue
			}
			if r.onBegin != nil {
				// A child: the finisher is synchronous there, so every record
				// of the previous kernel was sent before this announcement.
				r.onBegin(key, r.pending(k, t, layout.WaveSize))
			}
			t0 := time.Now()
			recs, out := r.runOnDevice(k, t, layout.WaveSize, layout)
			runs = append(runs, ran{t, recs, out, layout.WaveSize, time.Since(t0)})
		}
		k := k
		fin.submit(func(item *finished) {
			// One memo for the kernel's checks on every target and its parity:
			// the models run once per distinct wave (kernels.Memo).
			memo := kernels.NewMemo(k)
			passedOurs := map[string]bool{}
			outs := map[string]map[string][]byte{} // API -> waverig's output, for parity
			for _, rn := range runs {
				recs, failed := rn.recs, []results.Record(nil)
				t0 := time.Now()
				if rn.out != nil {
					recs, failed = r.checkCases(k, memo, rn.t, rn.size, rn.out)
					if rn.t.comp == Ours {
						outs[rn.t.api] = rn.out
					}
				}
				// A case's run time is its share of the kernel's: one dispatch
				// (and its re-runs) and one check cover all its cases.
				each := math.Round((rn.took+time.Since(t0)).Seconds()/float64(max(len(recs), 1))*1e6) / 1e6
				for _, rec := range recs {
					rec.Duration = each
					if rn.t.comp == Ours && rec.Status == results.Pass {
						passedOurs[rn.t.api+"|"+rec.Case] = true
					}
					if rn.t.comp != Ours && rec.Status == results.Fail && passedOurs[rn.t.api+"|"+rec.Case] {
						rec.Blame = "compiler:" + rn.t.comp
					}
					item.recs = append(item.recs, rec)
				}
				if len(failed) > 0 && r.cfg.ReproDir != "" {
					if err := r.writeRepro(k, rn.t, rn.size, failed, rn.out); err != nil {
						reproMu.Lock()
						if reproErr == nil {
							reproErr = err
						}
						reproMu.Unlock()
					}
				}
			}
			t0 := time.Now()
			item.recs = append(item.recs, r.parity(k, memo, outs, layouts, &item.st)...)
			r.prof.add("parity", t0)
		})
	}
	fin.wait()
	if err := r.runGen(size, layouts, &st, emit); err != nil && reproErr == nil { // genrun.go
		reproErr = err
	}
	st.Pipelines = r.Pipelines() - pipes0
	st.Seconds = time.Since(start).Seconds()
	return st, reproErr
}

// caseRecord is the record of one case before it ran, with what its baseline
// expects of it (expect.Judge.Apply).
func (r *Rig) caseRecord(k kernels.Kernel, c kernels.Case, t target, size uint32) results.Record {
	rec := r.record(size, t, k)
	rec.Case, rec.Op, rec.Type, rec.Pattern, rec.Shape = c.ID(), c.OpName(), c.Type.HLSL(), string(c.Pattern), c.Shape.Name
	r.judge.Apply(&rec)
	return rec
}

// pending are the records a kernel's cases get if the driver kills the process
// while it runs (the parent sets their status, Crash or Timeout).
func (r *Rig) pending(k kernels.Kernel, t target, size uint32) []results.Record {
	recs := make([]results.Record, 0, len(k.Cases))
	for _, c := range k.Cases {
		rec := r.caseRecord(k, c, t, size)
		rec.Status = results.Crash
		recs = append(recs, rec)
	}
	return recs
}

// baselineHold says why a baseline keeps a kernel from running on a target, or
// "": every case is in skips.txt; or a case is expected to crash and this
// process could not survive it (a crash in a child process costs a restart and
// proves the line; in the waverig process it would end the run).
func (r *Rig) baselineHold(k kernels.Kernel, t target, size uint32) (reason, known string) {
	if len(r.judge.Sets) == 0 {
		return "", ""
	}
	var skip *expect.Line
	skipped := 0
	for _, c := range k.Cases {
		name := results.TestName(t.api, stageOf(k), c.ID(), t.comp, size)
		if l := r.judge.Skip(name); l != nil {
			skip = l
			skipped++
			continue
		}
		if r.onBegin == nil {
			if l := r.judge.Expected(name); l != nil && l.Status == results.OutcomeCrash {
				return "not run in this process: " + l.Where + " expects a crash (a run in child processes runs it: lavapipe, or -device with several devices)", l.Known()
			}
		}
	}
	if skipped == len(k.Cases) {
		return "skips.txt: " + skip.Known(), ""
	}
	return "", ""
}

// notRun says why a kernel is not dispatched on a target — the status, reason
// and known-problem entry of all its records — or "" when it is. runOnDevice and
// the pipeline prebuild both ask it, so a pipeline is built exactly for the
// kernels that run.
func (r *Rig) notRun(k kernels.Kernel, t target, size uint32, layout results.Record) (status, reason, known string) {
	if layout.Status == results.Skip {
		return results.Skip, layout.Reason, ""
	}
	if k.Draw != nil {
		if why := r.stageMissing(t.api, k); why != "" {
			return results.Skip, why, ""
		}
	}
	if k.MeshDraw != nil {
		if why := r.meshMissing(k, t); why != "" {
			return results.Skip, why, ""
		}
	}
	if why := r.missingFeature(t.api, k); why != "" {
		return results.Skip, why, ""
	}
	// WebGPU never gets here with a [WaveSize] kernel: missingFeature gave
	// NotApplicable's reason above.
	if ws := r.kernelWaveSize(k); ws != nil {
		if _, why := plan.PickWaveSize(ws, r.dev); why != "" {
			return results.Skip, why, ""
		}
	}
	if why, known := r.baselineHold(k, t, size); why != "" {
		// One crashing case takes the whole kernel (one pipeline) down with it.
		return results.Skip, why, known
	}
	if layout.Status != results.Pass {
		return results.Error, "not checked: " + layout.Reason, ""
	}
	return "", "", ""
}

// runOnDevice is the device half of running a kernel on a target (Run
// dispatches, then checkCases checks, possibly beside later dispatches): the
// records of a kernel that did not run (skips, errors), or the buffers of one
// that did.
func (r *Rig) runOnDevice(k kernels.Kernel, t target, size uint32, layout results.Record) ([]results.Record, map[string][]byte) {
	all := func(status, reason, known string) []results.Record {
		out := make([]results.Record, 0, len(k.Cases))
		for _, c := range k.Cases {
			rec := r.caseRecord(k, c, t, size)
			rec.Status, rec.Reason = status, reason
			if known != "" {
				rec.Known = known
			}
			out = append(out, rec)
		}
		return out
	}
	if status, reason, known := r.notRun(k, t, size, layout); status != "" {
		return all(status, reason, known), nil
	}
	t0 := time.Now()
	out, err := r.runKernel(k, t, size)
	r.prof.add("device "+t.api, t0)
	if err != nil {
		if s, ok := err.(SkipError); ok {
			return all(results.Skip, string(s), ""), nil
		}
		if c, ok := err.(CrashError); ok {
			return all(results.Crash, string(c), ""), nil
		}
		// A module spirv-val rejects, a compile or pipeline error: the cases end
		// in Fail (deqp-runner's word) with the error; a baseline may know it.
		return all(results.Error, err.Error(), ""), nil
	}
	return nil, out
}

// checkCases is the CPU half (after runOnDevice): the records of a dispatched kernel,
// checked against the models, and the failing ones (for the repro bundle). New
// failures are re-run first (retryNew). memo is the kernel's (kernels.Memo),
// shared with its other targets' checks and its parity comparison.
func (r *Rig) checkCases(k kernels.Kernel, memo *kernels.Memo, t target, size uint32, out map[string][]byte) (recs, failed []results.Record) {
	recs, failed = r.checkAttempt(k, memo, t, size, out, 0)
	return r.retryNew(k, memo, t, size, recs, failed)
}

// checkAttempt checks one run (attempt 0 is the first) of a kernel.
func (r *Rig) checkAttempt(k kernels.Kernel, memo *kernels.Memo, t target, size uint32, out map[string][]byte, attempt int) (recs, failed []results.Record) {
	t0 := time.Now()
	checked := memo.Check(out, size)
	r.prof.add("check", t0)
	for _, cr := range checked {
		rec := r.caseRecord(k, cr.Case, t, size)
		rec.Status, rec.Reason, rec.Lanes, rec.Helpers = results.Pass, cr.Note, cr.Lanes, cr.Helpers
		rec.Repeats = cr.Repeats
		if l := r.judge.Skip(rec.Name()); l != nil {
			// The kernel ran for its other cases; this one's result is not taken.
			rec.Status, rec.Reason = results.Skip, "skips.txt: "+l.Known()
		} else if !cr.Passed {
			rec.Status = results.Fail
			rec.Failures = cr.Failures
		} else if cr.Lanes == 0 {
			// Every lane it reads from was inactive: nothing was compared.
			rec.Status = results.Vacuous
		}
		recs = append(recs, rec)
	}
	plantFaults(recs, attempt)
	for _, rec := range recs {
		if rec.Status == results.Fail {
			failed = append(failed, rec)
		}
	}
	return recs, failed
}

// missingFeature names what a kernel needs and the device (or, on WebGPU, the
// adapter) lacks: a subgroup operation bit, a device feature, or — on WebGPU — a
// SPIR-V extension the kernel exists to test. WebGPU's 64-bit gaps are the WGSL
// compiler's coded skips, not device features.
func (r *Rig) missingFeature(api string, k kernels.Kernel) string {
	f := k.Needs
	if isWebGPU(api) {
		if why := NotApplicable(api, k); why != "" {
			// Never asked in a run (Run leaves the pair out); precompile and
			// exec-like callers still get the reason.
			return why
		}
		if f.Float16 && api == WebGPU && r.gpu != nil && !r.gpu.Adapter.ShaderF16 {
			return "WebGPU adapter lacks shader-f16"
		}
		if f.Float16 && api == Dawn && r.dawn != nil && !r.dawn.Adapter.Has("shader-f16") {
			return "Dawn's adapter lacks shader-f16"
		}
	}
	return DeviceMissing(r.dev, k)
}

// DeviceMissing names what a kernel needs that the Vulkan device itself lacks
// ("" when nothing): a subgroup operation bit or a device feature. It reads
// the device alone, so it holds on every API of the device (a WebGPU adapter
// offers no more than its device), and the suites can tell before a run which
// cases can only skip (suites/wave_test.go collapses them into one spec per
// reason).
func DeviceMissing(d devices.Device, k kernels.Kernel) string {
	f := k.Needs
	if bits := k.SubgroupBits(); !d.Supports(bits) {
		return fmt.Sprintf("device lacks %s (supportedOperations %#x)",
			strings.Join(devices.SubgroupOperationNames(bits&^d.SupportedOperations), ", "), d.SupportedOperations)
	}
	switch {
	case f.Float16 && !d.ShaderFloat16:
		return "device lacks shaderFloat16 (VkPhysicalDeviceShaderFloat16Int8Features)"
	case f.Float16 && !d.ShaderSubgroupExtendedTypes:
		return "device lacks shaderSubgroupExtendedTypes (16-bit types in subgroup operations)"
	case f.Float64 && !d.ShaderFloat64:
		return "device lacks shaderFloat64 (VkPhysicalDeviceFeatures)"
	case f.Int64 && !d.ShaderInt64:
		return "device lacks shaderInt64 (VkPhysicalDeviceFeatures)"
	case f.Int64 && !d.ShaderSubgroupExtendedTypes:
		return "device lacks shaderSubgroupExtendedTypes (64-bit integers in subgroup operations)"
	case f.QuadControl && !d.ShaderQuadControl:
		return "device lacks shaderQuadControl (VK_KHR_shader_quad_control)"
	case f.MaximalReconvergence && !d.ShaderMaximalReconvergence:
		return "device lacks shaderMaximalReconvergence (VK_KHR_shader_maximal_reconvergence)"
	}
	return ""
}

// runKernel compiles (cached), dispatches and reads back one kernel; the result
// maps each HLSL register to its buffer contents.
func (r *Rig) runKernel(k kernels.Kernel, t target, size uint32) (map[string][]byte, error) {
	r.deviceMu.Lock()
	defer r.deviceMu.Unlock()
	r.hangIfPlanted(k.Name) // a fault build's hung dispatch (faults.go)
	if k.Draw != nil {
		return r.runDraw(k, t)
	}
	if k.MeshDraw != nil {
		return r.runMesh(k, t)
	}
	m := r.compile(k, t)
	if m.skip != "" {
		return nil, SkipError(m.skip)
	}
	if m.err != nil {
		return nil, m.err
	}
	return r.devs[t.api].Compute(r.computeJob(k, m, size, r.kernelWaveSize(k) != nil))
}

// computeJob is the job of a compute module at a wave size on any API;
// required (a [WaveSize] kernel) asks for the size even when it is the
// device's default, and for full subgroups when the workgroup is a whole
// number of waves (Vulkan's size control: WebGPU cannot ask, its devices
// ignore both).
func (r *Rig) computeJob(k kernels.Kernel, m *module, size uint32, required bool) ComputeJob {
	j := ComputeJob{Kernel: k, SPIRV: m.spirv, WGSL: m.wgsl, Entry: m.entry, Size: size}
	j.RequireSize = size != r.dev.SubgroupSize || required
	if required && len(k.Cases) > 0 && size != 0 && k.Cases[0].Shape.NumThreads[0]%int(size) == 0 {
		j.FullSubgroups = true
	}
	for _, b := range k.Buffers {
		bd, ok := m.binding(b.Register)
		if !ok {
			// A register the compiler optimised away or never saw: nothing to bind.
			continue
		}
		j.Buffers = append(j.Buffers, bufferOf(b.Register, bd, b.Data))
	}
	j.Textures, j.Samplers = samplingOf(k, m.binding)
	return j
}

// bufferKind maps a reflected descriptor type to the runner's buffer kind.
func bufferKind(descriptor string) vulkan.BufferKind {
	if strings.HasPrefix(descriptor, "VK_DESCRIPTOR_TYPE_UNIFORM") {
		return vulkan.Uniform
	}
	return vulkan.Storage
}

// RunWithSPIRV runs a kernel from a given module (e.g. a planted-bug mutant of
// waverig's output) at the device's current size and checks it. The registers are
// mapped through the reflection of the kernel compiled by waverig.
func (r *Rig) RunWithSPIRV(k kernels.Kernel, words []uint32) ([]kernels.CaseResult, error) {
	// A kernel the device lacks a feature for is never dispatched (that would
	// be invalid Vulkan use, and its results mean nothing), as in a run.
	if why := r.missingFeature(Vulkan, k); why != "" {
		return nil, SkipError(why)
	}
	base := r.compile(k, target{Vulkan, Ours})
	if base.err != nil {
		return nil, base.err
	}
	// A planted bug must still be a valid module: an invalid one can crash the
	// driver, and then nothing about the rig's checks would be shown.
	m := &module{spirv: words, entry: base.entry, bindings: base.bindings}
	if err := vulkan.Validate(m.spirv); err != nil || m.skip != "" {
		if err == nil {
			err = SkipError(m.skip)
		}
		return nil, err
	}
	out, err := r.devs[Vulkan].Compute(r.computeJob(k, m, r.dev.SubgroupSize, false))
	if err != nil {
		return nil, err
	}
	return kernels.Check(k, out, r.dev.SubgroupSize), nil
}

// CompiledSPIRV returns waverig's module for a kernel (compiled once, cached).
func (r *Rig) CompiledSPIRV(k kernels.Kernel) ([]uint32, error) {
	m := r.compile(k, target{Vulkan, Ours})
	return m.spirv, m.err
}
