package pass

import (
	"runtime"
	"time"

	"waverig/harness/kernels"
	"waverig/harness/results"
)

// prebuildKey is the job key a child announces before it builds pipelines in
// parallel (see Run): a crash there, in any API's prebuild, restarts the child
// in serial mode. The name predates the WebGPU prebuild; parents and
// children.log know it by this name.
const prebuildKey = Vulkan + "/prebuild/pipelines"

// prebuildJobs are the pipelines of one pass on one API, gathered in the
// order the serial loop of Run uses them.
type prebuildJobs struct {
	compute []ComputeJob
	draws   []DrawJob
	meshes  []MeshJob
}

// prebuild creates, on every core, the pipelines the serial loop of Run is
// about to use, on every API (Device.Prebuild). A GPU driver compiles when a
// pipeline is created, which is most of a cold run, and Run dispatches one
// kernel at a time. It covers exactly the (kernel, target) pairs the loop
// would run at this size, with the jobs the loop builds (same modules, same
// cache keys), so the loop finds them cached. WAVERIG_PROFILE shows each
// API's part. It returns the number of pipelines built.
func (r *Rig) prebuild(ks []kernels.Kernel, targets []target, size uint32, layouts map[string]results.Record) int {
	jobs := r.prebuildJobs(ks, targets, size, layouts)
	workers := runtime.GOMAXPROCS(0)
	n := 0
	for _, api := range r.cfg.apis() {
		j, d := jobs[api], r.devs[api]
		if d == nil || j == nil || len(j.compute)+len(j.draws)+len(j.meshes) == 0 {
			continue
		}
		t0 := time.Now()
		n += d.Prebuild(j.compute, j.draws, workers)
		if mp, ok := d.(meshPrebuilder); ok && len(j.meshes) > 0 {
			n += mp.PrebuildMeshes(j.meshes, workers)
		}
		r.prof.add("prebuild "+api, t0)
	}
	return n
}

// prebuildJobs gathers the jobs of prebuild, by API. It asks what the loop
// asks (NotApplicable, notRun with the API's layout and its wave size) and
// builds the jobs as runKernel and runDraw do; kernels whose compile fails or
// is skipped are left to the loop, which reports them.
func (r *Rig) prebuildJobs(ks []kernels.Kernel, targets []target, size uint32, layouts map[string]results.Record) map[string]*prebuildJobs {
	jobs := map[string]*prebuildJobs{}
	for _, k := range ks {
		if !r.inPass(k, size) {
			continue
		}
		for _, t := range targets {
			layout, ok := layouts[t.api]
			if !ok || layout.Status != results.Pass || NotApplicable(t.api, k) != "" || r.devs[t.api] == nil {
				continue
			}
			if status, _, _ := r.notRun(k, t, layout.WaveSize, layout); status != "" {
				continue
			}
			pj := jobs[t.api]
			if pj == nil {
				pj = &prebuildJobs{}
				jobs[t.api] = pj
			}
			if k.MeshDraw != nil {
				if j, err := r.meshJobOf(k, t); err == nil {
					pj.meshes = append(pj.meshes, j)
				}
				continue
			}
			if k.Draw != nil {
				if j, err := r.drawJobOf(k, t); err == nil {
					pj.draws = append(pj.draws, j)
				}
				continue
			}
			if k.MeshDraw != nil {
				continue // built at its first draw: few, and only Vulkan has them
			}
			m := r.compile(k, t)
			if m.err != nil || m.skip != "" {
				continue
			}
			pj.compute = append(pj.compute, r.computeJob(k, m, layout.WaveSize, r.kernelWaveSize(k) != nil))
		}
	}
	return jobs
}
