package harness

import (
	"runtime"

	"waverig/harness/kernels"
	"waverig/harness/results"
	"waverig/harness/vulkan"
)

// prebuildKey is the job key a child announces before it builds pipelines in
// parallel (see Run): a crash there restarts the child in serial mode.
const prebuildKey = Vulkan + "/prebuild/pipelines"

// prebuild creates, on every core, the Vulkan compute pipelines the serial
// loop of Run is about to use: the driver's shader compile is most of a cold
// run, and Run dispatches one kernel at a time. It covers exactly the
// (kernel, compiler) pairs runCases would dispatch at this size; graphics
// pipelines stay serial (the draw path shares render passes and targets).
// It returns the number of pipelines built.
func (r *Rig) prebuild(ks []kernels.Kernel, targets []target, size uint32, layouts map[string]results.Record) int {
	if l, ok := layouts[Vulkan]; !ok || l.Status != results.Pass {
		return 0
	}
	var jobs []vulkan.Job
	for _, k := range ks {
		if k.Draw != nil || !r.inPass(k, size) {
			continue
		}
		ws := r.kernelWaveSize(k)
		for _, t := range targets {
			if t.api != Vulkan {
				continue
			}
			if status, _, _ := r.notRun(k, t, size, layouts[Vulkan]); status != "" {
				continue
			}
			m := r.compile(k, t)
			if m.err != nil || m.skip != "" {
				continue
			}
			job, _ := r.moduleJob(k, m, size, ws != nil, false)
			jobs = append(jobs, job)
		}
	}
	return r.runner.Prebuild(jobs, runtime.GOMAXPROCS(0))
}
