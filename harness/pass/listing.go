package pass

import (
	"slices"
	"waverig/compiler/reflect"
	"waverig/devices"
	"waverig/harness/expect"
	"waverig/harness/kernels"
	"waverig/harness/plan"
	"waverig/harness/results"
)

// What a run will record, known before anything runs: `waverig list` prints
// it, and a progress display can take its total from it. Every decision here is
// the one the run itself asks (passKernels, Config.targets, plan.PassRuns,
// DefaultAPIs, DefaultCompilers), never a copy of it, so the list and the run
// cannot drift apart. What only the device can say — whether a case passes,
// skips or crashes — does not change which records a run writes: every case
// of a kernel in a pass gets a record on every target, a skip or a crash
// included.

// DefaultAPIs are the APIs a run drives on a device when none is named:
// Vulkan, WebGPU when wgpu-native has an adapter of the same device, and Dawn
// when Dawn has one of its driver; notes say why an implementation is left
// out, one line each.
func DefaultAPIs(d devices.Device) (apis []string, notes []string) {
	apis = []string{Vulkan}
	if why := WebGPUAvailable(d); why == "" {
		apis = append(apis, WebGPU)
	} else {
		notes = append(notes, "WebGPU (wgpu-native) not run: "+why)
	}
	if why := DawnAvailable(d); why == "" {
		apis = append(apis, Dawn)
	} else {
		notes = append(notes, "WebGPU (Dawn) not run: "+why)
	}
	return apis, notes
}

// passKernels is every kernel a pass at wave size size runs on dev, whose
// own size is own: compute kernels at every size; draw kernels only at the
// device's own size (the rig does not ask for a size in graphics stages); only
// the kernels of the configured shard, and of the CI tier when Fraction > 1,
// and of the pool's part.
func (c Config) passKernels(dev devices.Device, size, own uint32) []kernels.Kernel {
	return c.passKernelsMemo(dev, size, own, nil)
}

// kernelMemo keeps the matrices PlanRun's passes share: every size of a
// device lists the same compute (and, at each child's own size, the same
// graphics and mesh) kernels, and building them is most of a listing.
type kernelMemo map[string][]kernels.Kernel

func (m kernelMemo) get(key string, build func() []kernels.Kernel) []kernels.Kernel {
	if m == nil {
		return build()
	}
	ks, ok := m[key]
	if !ok {
		ks = build()
		m[key] = ks
	}
	return slices.Clip(ks) // an append by the caller copies, never writes into the memo
}

// passKernelsMemo is passKernels with its matrices from memo (nil: built).
func (c Config) passKernelsMemo(dev devices.Device, size, own uint32, memo kernelMemo) []kernels.Kernel {
	var ks []kernels.Kernel
	// The shard, and the part where no CI tier chooses among the whole
	// matrix's kernels first, keep kernels by name: asked before a kernel's
	// buffers are built, so a child builds only its share's data.
	f := c.Filter
	if !c.Shard.Whole() || (!c.Part.Whole() && c.Fraction <= 1) {
		shard, part, tiered := c.Shard, c.Part, c.Fraction > 1
		f.Kernels = func(name string) bool {
			return shard.Has(name) && (tiered || part.Has(name)) && (c.Filter.Kernels == nil || c.Filter.Kernels(name))
		}
	}
	if c.wantsStage(results.Compute) {
		ks = memo.get("compute", func() []kernels.Kernel { return kernels.Matrix(f) })
	}
	if size == own {
		for _, st := range []kernels.Stage{kernels.Pixel, kernels.Vertex} {
			if c.wantsStage(string(st)) {
				ks = append(ks, memo.get(string(st), func() []kernels.Kernel { return kernels.GraphicsMatrix(st, f) })...)
			}
		}
		// Task and mesh kernels, like draws, run at the device's own size
		// (lavapipe 25.0.7 takes no required size in either stage).
		for _, st := range []kernels.Stage{kernels.Task, kernels.Mesh} {
			if c.wantsStage(string(st)) {
				ks = append(ks, memo.get(string(st), func() []kernels.Kernel { return kernels.MeshMatrix(st, f) })...)
			}
		}
	}
	// The shard was kept while building (f.Kernels); the part is kept here
	// when the CI tier had to choose among the shard's kernels first.
	if c.Fraction > 1 {
		ks = c.Part.Kernels(kernels.TierKernels(ks, size, c.Fraction, c.KnownCrash(dev, size)))
	}
	return ks
}

// KnownCrash reports whether a baseline that applies to dev expects a case to
// crash on one of the configuration's targets at a size (nil: no baseline): the
// CI tier keeps every such case, so that a fixed crash shows (an
// UnexpectedImprovement) in pre-merge too. The suites' tier asks the same.
func (c Config) KnownCrash(dev devices.Device, size uint32) func(kernels.TierItem) bool {
	sets, err := c.ExpectationSets()
	if err != nil || len(sets) == 0 {
		return nil
	}
	judge := expect.For(sets, DeviceString(dev))
	targets := c.targets()
	return func(it kernels.TierItem) bool {
		for _, t := range targets {
			if l := judge.Expected(results.TestName(t.api, string(it.Stage), it.Case.ID(), t.comp, size)); l != nil && l.Status == results.OutcomeCrash {
				return true
			}
		}
		return false
	}
}

// BaselineSkip is the run's skips.txt rule for a device at a size: the reason
// a case's record gets when a baseline skips it ("skips.txt: …", as the run
// writes it), or "". The suites ask it before a run to give such cases one
// spec per line instead of one each.
func (c Config) BaselineSkip(dev devices.Device, size uint32) func(api, stage, caseID, compiler string) string {
	sets, err := c.ExpectationSets()
	if err != nil || len(sets) == 0 {
		return func(string, string, string, string) string { return "" }
	}
	judge := expect.For(sets, DeviceString(dev))
	return func(api, stage, caseID, compiler string) string {
		if l := judge.Skip(results.TestName(api, stage, caseID, compiler, size)); l != nil {
			return "skips.txt: " + l.Known()
		}
		return ""
	}
}

// PlanCases lists the case records a run of plan with cfg writes, in run order
// (size by size, kernel by kernel, target by target): not the layout records,
// not the parity records. cfg is taken as the run gets it: nil APIs is Vulkan
// only (the CLI fills in DefaultAPIs first), nil Compilers the default ones.
//
// The [WaveSize] kernels are compiled (waverig's compiler, no device) to read
// their range, as the run does; nothing else is compiled.
func PlanCases(p plan.Plan, cfg Config) []plan.PlannedCase {
	cs, _ := PlanRun(p, cfg)
	return cs
}

// PlanRun is PlanCases and what it left out by design, counted where the
// case records would have been (on each target, in each pass that runs
// the kernel), by API and reason in the order first met.
func PlanRun(p plan.Plan, cfg Config) ([]plan.PlannedCase, []plan.Excluded) {
	var out []plan.PlannedCase
	var excluded []plan.Excluded
	exclude := func(api, why string, n int) {
		for i := range excluded {
			if excluded[i].API == api && excluded[i].Reason == why {
				excluded[i].Cases += n
				return
			}
		}
		excluded = append(excluded, plan.Excluded{API: api, Reason: why, Cases: n})
	}
	ranges := map[string]*reflect.WaveSize{}
	targets := cfg.targets()
	memo := kernelMemo{}
	for _, sp := range p.Sizes {
		if sp.SkipReason != "" {
			continue // no child, no records
		}
		dev := plan.PassDevice(p.Device, sp)
		size, own := sp.Size, dev.SubgroupSize
		for _, k := range cfg.passKernelsMemo(dev, size, own, memo) {
			ws, ok := ranges[k.Name]
			if !ok {
				ws = reflectedWaveSize(k)
				ranges[k.Name] = ws
			}
			if !plan.PassRuns(ws, dev, size) {
				continue
			}
			for _, t := range targets {
				if isWebGPU(t.api) && size != own {
					continue // WebGPU cannot ask for a size: no layout, no records
				}
				if why := NotApplicable(t.api, k); why != "" {
					exclude(t.api, why, len(k.Cases))
					continue
				}
				for _, c := range k.Cases {
					out = append(out, plan.PlannedCase{Device: p.Device.Index, Kernel: k.Name, API: t.api, Stage: stageOf(k),
						Case: c.ID(), Compiler: t.comp, WaveSize: size})
				}
			}
		}
		out = append(out, cfg.planGen(p.Device.Index, size)...) // genrun.go
	}
	return out, excluded
}

// reflectedWaveSize is the [WaveSize] range of a kernel from the reflection of
// waverig's module, compiled without a device: what Rig.kernelWaveSize reads
// from the module it runs.
func reflectedWaveSize(k kernels.Kernel) *reflect.WaveSize {
	if !plan.DeclaresWaveSize(k) {
		return nil
	}
	return compileOurs(kernelSource(k, k.Entry, results.Compute)).waveSize
}
