package pass

import (
	"runtime"
	"time"

	"waverig/harness/kernels"
	"waverig/harness/results"
	"waverig/harness/vulkan"
	"waverig/harness/webgpu"
)

// prebuildKey is the job key a child announces before it builds pipelines in
// parallel (see Run): a crash there, in any API's prebuild, restarts the child
// in serial mode. The name predates the WebGPU prebuild; parents and
// children.log know it by this name.
const prebuildKey = Vulkan + "/prebuild/pipelines"

// prebuildJobs are the pipelines of one pass, gathered in the order the
// serial loop of Run uses them.
type prebuildJobs struct {
	compute []vulkan.Job
	draws   []vulkan.DrawJob
	webgpu  []webgpu.PrebuildJob
}

// prebuild creates, on every core, the pipelines the serial loop of Run is
// about to use: Vulkan compute and graphics pipelines and WebGPU compute and
// render pipelines. A GPU driver compiles when a pipeline is created, which is
// most of a cold run, and Run dispatches one kernel at a time. It covers
// exactly the (kernel, target) pairs the loop would run at this size, with
// the jobs the loop builds (same modules, same cache keys), so the loop finds
// them cached. WAVERIG_PROFILE shows each API's part. It returns the number
// of pipelines built.
func (r *Rig) prebuild(ks []kernels.Kernel, targets []target, size uint32, layouts map[string]results.Record) int {
	jobs := r.prebuildJobs(ks, targets, size, layouts)
	workers := runtime.GOMAXPROCS(0)
	n := 0
	if len(jobs.compute) > 0 {
		t0 := time.Now()
		n += r.runner.Prebuild(jobs.compute, workers)
		r.prof.add("prebuild vulkan compute", t0)
	}
	if len(jobs.draws) > 0 {
		t0 := time.Now()
		n += r.runner.PrebuildDraws(jobs.draws, workers)
		r.prof.add("prebuild vulkan draws", t0)
	}
	if len(jobs.webgpu) > 0 && r.gpu != nil {
		t0 := time.Now()
		n += r.gpu.Prebuild(jobs.webgpu, workers)
		r.prof.add("prebuild webgpu", t0)
	}
	return n
}

// prebuildJobs gathers the jobs of prebuild. It asks what the loop asks
// (NotApplicable, notRun with the API's layout and its wave size) and builds
// the jobs as runModule, runWebGPU and runDraw do; kernels whose compile
// fails or is skipped are left to the loop, which reports them.
func (r *Rig) prebuildJobs(ks []kernels.Kernel, targets []target, size uint32, layouts map[string]results.Record) prebuildJobs {
	var jobs prebuildJobs
	for _, k := range ks {
		if !r.inPass(k, size) {
			continue
		}
		for _, t := range targets {
			layout, ok := layouts[t.api]
			if !ok || layout.Status != results.Pass || NotApplicable(t.api, k) != "" {
				continue
			}
			if t.api == WebGPU && r.gpu == nil {
				continue
			}
			if status, _, _ := r.notRun(k, t, layout.WaveSize, layout); status != "" {
				continue
			}
			if k.Draw != nil {
				j, err := r.drawJobOf(k, t)
				switch {
				case err != nil:
				case t.api == WebGPU:
					jobs.webgpu = append(jobs.webgpu, webgpu.PrebuildJob{Draw: &j.webgpu})
				default:
					jobs.draws = append(jobs.draws, j.vulkan)
				}
				continue
			}
			m := r.compile(k, t)
			if m.err != nil || m.skip != "" {
				continue
			}
			if t.api == WebGPU {
				jobs.webgpu = append(jobs.webgpu, webgpu.PrebuildJob{WGSL: m.wgsl, Entry: m.entry})
				continue
			}
			job, _ := r.moduleJob(k, m, layout.WaveSize, r.kernelWaveSize(k) != nil, false)
			jobs.compute = append(jobs.compute, job)
		}
	}
	return jobs
}
