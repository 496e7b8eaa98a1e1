package pass

import (
	"waverig/compiler/reflect"
	"waverig/harness/kernels"
	"waverig/harness/plan"
)

// [WaveSize] kernels as the rig runs them; the rule that gives such a kernel
// its one pass is harness/plan's (plan.PickWaveSize, PassRuns).

// kernelWaveSize is the [WaveSize] range of a compute kernel, read from the
// reflection of waverig's SPIR-V module (compiled once, cached): nil when the
// kernel has none or did not compile (that failure is reported where it runs).
func (r *Rig) kernelWaveSize(k kernels.Kernel) *reflect.WaveSize {
	// Only a source that spells the attribute can have a range: the others
	// are not compiled here (a kernel the device cannot run is never compiled).
	r.mu.Lock()
	ws, ok := r.waveSizes[k.Name]
	r.mu.Unlock()
	if ok {
		return ws
	}
	if plan.DeclaresWaveSize(k) {
		ws = r.compile(k, target{Vulkan, Ours}).waveSize
	}
	r.mu.Lock()
	if r.waveSizes == nil {
		r.waveSizes = map[string]*reflect.WaveSize{}
	}
	r.waveSizes[k.Name] = ws
	r.mu.Unlock()
	return ws
}

// inPass reports whether a pass at wave size size runs (or reports) kernel k
// (plan.PassRuns: the rule `waverig list` asks too).
func (r *Rig) inPass(k kernels.Kernel, size uint32) bool {
	return plan.PassRuns(r.kernelWaveSize(k), r.dev, size)
}
