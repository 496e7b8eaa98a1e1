package vulkan

import "testing"

// Prebuild builds every distinct pipeline of a job list on several goroutines
// (duplicates and already-cached keys once), and Run then finds them: no
// pipeline is created again and the results are still right. A job that fails
// its checks is left for Run to report.
func TestPrebuild(t *testing.T) {
	r := sharedRunner(t)
	job, in := subgroupJob(t, 64)
	var jobs []Job
	// Push-constant sizes no other test uses make four distinct layouts.
	for _, n := range []int{20, 24, 28, 32} {
		j := job
		j.PushConstants = make([]byte, n)
		jobs = append(jobs, j, j) // each twice: built once
	}
	bad := job
	bad.Groups = [3]uint32{0, 1, 1}
	jobs = append(jobs, bad)
	before := r.PipelinesCreated()
	if built := r.Prebuild(jobs, 4); built != 4 {
		t.Fatalf("Prebuild built %d pipelines, want 4", built)
	}
	if got := r.PipelinesCreated() - before; got != 4 {
		t.Fatalf("PipelinesCreated grew by %d, want 4", got)
	}
	if built := r.Prebuild(jobs, 4); built != 0 {
		t.Fatalf("a second Prebuild built %d pipelines, want 0 (all cached)", built)
	}
	for _, j := range jobs[:8] {
		res, err := r.Run(j)
		if err != nil {
			t.Fatal(err)
		}
		if res.PipelineCreated {
			t.Fatal("Run created a pipeline Prebuild had built")
		}
		checkSubgroupResult(t, in, res)
	}
	if _, err := r.Run(bad); err == nil {
		t.Fatal("Run accepted a job with a zero workgroup count")
	}
}

// PrebuildDraws builds the graphics pipelines of draw jobs in parallel
// (duplicates once, a job failing its checks not at all) into the cache
// RunDraw uses: the draws then build nothing and still draw right.
func TestPrebuildDraws(t *testing.T) {
	r := sharedRunner(t)
	needFragmentWaves(t, r.Device())
	// Framebuffer sizes no other test uses make distinct pipelines.
	sizes := [][2]uint32{{13, 7}, {7, 13}, {9, 11}}
	var jobs []DrawJob
	for _, sz := range sizes {
		j := laneJob(t, sz[0], sz[1])
		jobs = append(jobs, j, j)
	}
	bad := laneJob(t, 13, 7)
	bad.VertexCount = 0
	jobs = append(jobs, bad)
	before := r.PipelinesCreated()
	if built := r.PrebuildDraws(jobs, 3); built != len(sizes) {
		t.Fatalf("PrebuildDraws built %d pipelines, want %d", built, len(sizes))
	}
	if got := r.PipelinesCreated() - before; got != len(sizes) {
		t.Fatalf("PipelinesCreated grew by %d, want %d", got, len(sizes))
	}
	if built := r.PrebuildDraws(jobs, 3); built != 0 {
		t.Fatalf("a second PrebuildDraws built %d pipelines, want 0 (all cached)", built)
	}
	for i, sz := range sizes {
		res, err := r.RunDraw(jobs[2*i])
		if err != nil {
			t.Fatal(err)
		}
		if res.PipelineCreated {
			t.Fatalf("%dx%d: RunDraw created a pipeline PrebuildDraws had built", sz[0], sz[1])
		}
		checkLanes(t, r.Device(), sz[0], sz[1], res)
	}
	if _, err := r.RunDraw(bad); err == nil {
		t.Fatal("RunDraw accepted a draw of 0 vertices")
	}
}
