package pass

// Generated programs in the default run (harness/gen): after the matrix's
// kernels, each seed of Config.GenSeeds is generated, compiled with waverig's
// compiler, run on the rig's own Vulkan runner at the pass's wave size and
// checked lane by lane against gen's simulator — under the exact contract
// where the device has maximal reconvergence, else the subset one, as `waverig
// fuzz` does. The matrix checks each operation in a few fixed control-flow
// patterns; a seed checks whole programs of nested branches, loops and early
// returns, so a run has a fixed, repeatable sample of them on every device and
// size (the suites run the same seeds).
//
// A seed is a one-case kernel named GenCase(seed): its record's test name is
// vulkan/compute/gen/seed=N/size=S, so baselines, shards, `waverig list` and
// `waverig merge` treat it like any case. It is announced (onBegin) before it
// runs, and a child the driver kills in a seed resumes after it, as after a
// kernel.

import (
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"waverig/compiler/intrinsics"
	"waverig/devices"
	"waverig/harness/expect"
	"waverig/harness/gen"
	"waverig/harness/plan"
	"waverig/harness/repro"
	"waverig/harness/results"
)

// GenOp is the op field of a generated program's record.
const GenOp = "gen"

// DefaultGenSeeds are the seeds a `waverig run` without a matrix filter runs:
// the suites' seeds, 1 to 20.
func DefaultGenSeeds() []uint64 {
	seeds := make([]uint64, 20)
	for i := range seeds {
		seeds[i] = uint64(i + 1)
	}
	return seeds
}

// ParseGenSeeds reads -gen-seeds: "none" (or "") is no seed, else a comma
// list of seeds and ranges ("1-20", "1,5,9", "1-4,100"). The seeds come back
// sorted, each once.
func ParseGenSeeds(s string) ([]uint64, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "none" {
		return nil, nil
	}
	seen := map[uint64]bool{}
	var out []uint64
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.ParseUint(strings.TrimSpace(lo), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q: %q is not a seed or a range A-B (e.g. 1-20, 1,5,9, none)", s, part)
		}
		b := a
		if isRange {
			if b, err = strconv.ParseUint(strings.TrimSpace(hi), 10, 64); err != nil || b < a {
				return nil, fmt.Errorf("%q: %q is not a range A-B with A ≤ B", s, part)
			}
		}
		// A typo like 1-1000000 would run for hours: a run's seed set is a
		// sample; campaigns are `waverig fuzz`'s.
		if b-a >= 10000 || len(out)+int(b-a) >= 10000 {
			return nil, fmt.Errorf("%q: more than 10000 seeds (use waverig fuzz for campaigns)", s)
		}
		for v := a; ; v++ {
			if !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
			if v == b {
				break
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out, nil
}

// GenCase is the case (and kernel) name of a seed's record.
func GenCase(seed uint64) string { return "gen/seed=" + strconv.FormatUint(seed, 10) }

// genSeeds are the seeds a pass runs: none unless the run drives Vulkan
// compute; only the configured shard's (a seed's share is its case name's).
func (c Config) genSeeds() []uint64 {
	if len(c.GenSeeds) == 0 || !c.wantsStage(results.Compute) {
		return nil
	}
	vk := false
	for _, api := range c.apis() {
		vk = vk || api == Vulkan
	}
	if !vk {
		return nil
	}
	var out []uint64
	for _, s := range c.GenSeeds {
		if c.Shard.Has(GenCase(s)) && c.Part.Has(GenCase(s)) {
			out = append(out, s)
		}
	}
	return out
}

// planGen is PlanCases's share for generated programs: one record per seed in
// every pass (every legal size; a device that lacks what a program needs
// records a skip).
func (c Config) planGen(device int, size uint32) []plan.PlannedCase {
	var out []plan.PlannedCase
	for _, s := range c.genSeeds() {
		out = append(out, plan.PlannedCase{Device: device, Kernel: GenCase(s), API: Vulkan, Stage: results.Compute,
			Case: GenCase(s), Compiler: Ours, WaveSize: size})
	}
	return out
}

// genKey is a seed's onBegin/resume key.
func genKey(seed uint64) string { return jobKey(target{Vulkan, Ours}, GenCase(seed)) }

// genRecord is a seed's record before it ran, with its baseline applied.
func (r *Rig) genRecord(seed uint64, size uint32) results.Record {
	rec := results.Record{Case: GenCase(seed), Op: GenOp, WaveSize: size, API: Vulkan, Stage: results.Compute,
		Compiler: Ours, Device: r.dev.Name, Driver: DriverString(r.dev), Kernel: GenCase(seed)}
	r.judge.Apply(&rec)
	return rec
}

// genMissing names the subgroup operations a program needs that the device
// lacks ("" if none): every program takes its layout with the basic and
// ballot operations, plus its own.
func genMissing(p *gen.Program, d devices.Device) string {
	bits := intrinsics.VkBasic | intrinsics.VkBallot
	for _, op := range p.Ops() {
		if in, ok := intrinsics.Lookup(op.String()); ok {
			bits |= in.VkBit
		}
	}
	if d.Supports(bits) {
		return ""
	}
	return fmt.Sprintf("device lacks %s (supportedOperations %#x)",
		strings.Join(devices.SubgroupOperationNames(bits&^d.SupportedOperations), ", "), d.SupportedOperations)
}

// genRepro is the command that re-runs a seed on this device at this size.
func (r *Rig) genRepro(seed uint64, size uint32) string {
	return fmt.Sprintf("waverig fuzz -device %d -seed %d -n 1 -sizes %d", r.dev.Index, seed, size)
}

// runGen runs the pass's seeds at size after the matrix (Run calls it once
// every kernel's records were emitted). layouts are the pass's layout records:
// a seed's lane records are only trusted where the Vulkan layout passed. The
// error is the first repro bundle that could not be written (every record
// was still emitted).
func (r *Rig) runGen(size uint32, layouts map[string]results.Record, st *results.Stats, emit func(results.Record)) error {
	seeds := r.cfg.genSeeds()
	if len(seeds) == 0 {
		return nil
	}
	layout, ok := layouts[Vulkan]
	if !ok {
		return nil // no Vulkan in this pass: planGen lists none either
	}
	// A restarted child resumes after the seed its predecessor died in; a
	// resume key of the matrix (or none) runs every seed.
	skipping := false
	for _, s := range seeds {
		skipping = skipping || genKey(s) == r.resumeAfter
	}
	t0 := time.Now()
	defer r.prof.add("gen", t0)
	d := gen.NewDevice(r.runner)
	d.Tamper = faults.genTamper // a fault build's planted bug (faults.go); nil otherwise
	sizeErr := d.SetWaveSize(size)
	var reproErr error
	for _, seed := range seeds {
		key := genKey(seed)
		if skipping {
			skipping = key != r.resumeAfter
			continue
		}
		st.Kernels++
		rec, err := r.genSeed(d, seed, size, layout, sizeErr)
		if reproErr == nil {
			reproErr = err
		}
		st.Add(rec)
		emit(rec)
	}
	return reproErr
}

// genSeed runs one seed and returns its record (announced to onBegin first
// when it is dispatched); the error is a repro bundle not written.
func (r *Rig) genSeed(d *gen.Device, seed uint64, size uint32, layout results.Record, sizeErr error) (results.Record, error) {
	rec := r.genRecord(seed, size)
	name := rec.Name()
	p := gen.Generate(seed)
	mode := d.Contract()
	missing, skip := genMissing(p, r.dev), r.judge.Skip(name)
	switch {
	case layout.Status == results.Skip:
		rec.Status, rec.Reason = results.Skip, layout.Reason
	case sizeErr != nil:
		rec.Status, rec.Reason = results.Skip, sizeErr.Error()
	case missing != "":
		rec.Status, rec.Reason = results.Skip, missing
	case skip != nil:
		rec.Status, rec.Reason = results.Skip, "skips.txt: "+skip.Known()
	case r.onBegin == nil && expectsCrash(r.judge, name):
		// As baselineHold: only a child process survives a known crash.
		l := r.judge.Expected(name)
		rec.Status, rec.Reason, rec.Known = results.Skip, "not run in this process: "+l.Where+" expects a crash (a run in child processes runs it)", l.Known()
	case layout.Status != results.Pass:
		rec.Status, rec.Reason = results.Error, "not checked: "+layout.Reason
	}
	if rec.Status != "" {
		return rec, nil
	}
	if r.onBegin != nil {
		pending := rec
		pending.Status = results.Crash
		pending.Reason = "reproduce: " + r.genRepro(seed, size)
		r.onBegin(genKey(seed), []results.Record{pending})
	}
	r.hangIfPlanted(GenCase(seed)) // a fault build's hung seed (faults.go)
	t0 := time.Now()
	words, fails, err := r.genAttempt(d, p, mode)
	rerun := fmt.Sprintf("%s contract; reproduce and shrink: %s", mode, r.genRepro(seed, size))
	switch {
	case err != nil:
		rec.Status, rec.Reason = results.Error, firstLineOf(err.Error())+" ("+rerun+")"
	case len(fails) == 0:
		rec.Status, rec.Reason = results.Pass, mode.String()+" contract"
		rec.Lanes = p.Lanes()
	default:
		rec.Status = results.Fail
		rec.Reason = fmt.Sprintf("%d failures, the first: %s (%s)", len(fails), fails[0], rerun)
		rec.Failures = genFailures(words, fails)
		rec.Lanes = p.Lanes()
		// A new failure is run again, as a kernel's is (retryNew): one that
		// then passes is a Flake.
		if rec.Verdict() == results.VerdictUnexpected {
			for attempt := 1; attempt <= r.cfg.Retries; attempt++ {
				_, again, err := r.genAttempt(d, p, mode)
				if err != nil {
					break // it ran before: an error now is not the seed's result
				}
				rec.Attempts = attempt + 1
				if len(again) == 0 {
					rec.Status = results.Flake
					rec.Reason = fmt.Sprintf("failed, then passed on re-run %d of %d (the first run's failing lanes are kept); was: %s", attempt, r.cfg.Retries, rec.Reason)
					break
				}
			}
		}
	}
	rec.Duration = time.Since(t0).Round(time.Microsecond).Seconds()
	if rec.Status != results.Fail || r.cfg.ReproDir == "" {
		return rec, nil
	}
	// The bundle `waverig fuzz` writes, of the program as generated: shrinking
	// (minutes) is left to the fuzz command in the record's reason. A failure
	// a baseline knows gets one only as its line's first (repro.Gate).
	bundle := fmt.Sprintf("gen-seed%d.%s.%s.wave%d", seed, Vulkan, Ours, size)
	want, _, gateErr := repro.Gate(r.cfg.ReproDir, []results.Record{rec}, bundle)
	if !want {
		return rec, nil
	}
	fl := &gen.Failed{Seed: seed, Original: p, Shrunk: p, Failures: fails, OriginalSize: p.Size(), WaveSize: size,
		Device: r.dev.Name, Mode: mode, Words: words, OriginalFailure: fails[0].String()}
	if err := fl.WriteRepro(filepath.Join(r.cfg.ReproDir, bundle)); err != nil {
		return rec, fmt.Errorf("repro bundle: %w", err)
	}
	return rec, gateErr
}

// genAttempt runs a program once and checks it: err is a module the compiler
// or spirv-val rejected, or a device error — no lanes to check.
func (r *Rig) genAttempt(d *gen.Device, p *gen.Program, mode gen.Mode) ([]uint32, []gen.Failure, error) {
	r.deviceMu.Lock()
	words, err := d.Run(p)
	r.deviceMu.Unlock()
	if err != nil {
		return nil, nil, err
	}
	return words, p.Check(words, mode), nil
}

// expectsCrash reports whether a baseline expects the test to crash.
func expectsCrash(j *expect.Judge, name string) bool {
	l := j.Expected(name)
	return l != nil && l.Status == results.OutcomeCrash
}

// genFailures turns gen's failures into the record's lanes: the wave, lane
// and input the invocation logged; the expected words where the checker
// knows them (what a device with maximal reconvergence writes); the checker's
// account of what is wrong as the actual value.
func genFailures(words []uint32, fails []gen.Failure) []results.LaneFailure {
	out := make([]results.LaneFailure, 0, len(fails))
	for _, f := range fails {
		// gen's checker names the dynamic instance and its lane count, not
		// the mask (its set of allowed results is in the account).
		lf := results.LaneFailure{ActiveMask: "-", Actual: f.String()}
		if key, lane, input, ok := gen.LaneOf(words, f.Flat); ok {
			lf.WaveKey, lf.Lane, lf.Input = key, lane, strconv.FormatUint(uint64(input), 10)
		}
		idx := make([]int, 0, len(f.Want))
		for i := range f.Want {
			idx = append(idx, i)
		}
		sort.Ints(idx)
		var want []string
		for _, i := range idx {
			want = append(want, fmt.Sprintf("u0[%d]=%#x", i, f.Want[i]))
		}
		lf.Expected = strings.Join(want, " ")
		out = append(out, lf)
	}
	return out
}

// firstLineOf is s up to its first newline.
func firstLineOf(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}
