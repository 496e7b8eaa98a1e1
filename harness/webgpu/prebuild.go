package webgpu

import (
	"errors"
	"sync"
	"sync/atomic"

	"github.com/oliverbestmann/webgpu/wgpu"
)

// PrebuildJob is one pipeline Prebuild creates: the compute entry point Entry
// of WGSL, or (Draw set) the render pipeline of a draw.
type PrebuildJob struct {
	WGSL, Entry string
	Draw        *DrawJob
}

// Prebuild creates the shader modules and pipelines of jobs on up to workers
// goroutines and keeps them in the caches, so RunCompute and RunDraw, which
// are serial, find them built: a GPU driver compiles when a pipeline is
// created, and that compile is most of a cold run. At most the cache's bound
// are built, the first jobs first (list them in the order they will run).
// Jobs that fail a check or whose module or pipeline fails are left to
// RunCompute and RunDraw, which report them. It returns the number of
// pipelines built.
//
// wgpu-native's device may be called from several threads, but the
// binding's Try* calls push and pop an error scope around each call, and
// wgpu-native keeps one scope stack per device: an error raised while two
// calls overlap may be caught by the other call's scope. Prebuild holds d.mu
// throughout (no other call of this Device interleaves) and keeps a module
// or pipeline only if no call that overlapped its creation reported an
// error; the others (and those that failed) are released and built again one
// at a time, so every outcome is the one a serial build has. Failures cost a
// second try; the common case, no error, runs fully in parallel.
func (d *Device) Prebuild(jobs []PrebuildJob, workers int) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.usable() != nil {
		return 0
	}
	type item struct {
		key    string
		job    PrebuildJob
		groups map[int][]wgpu.BindGroupLayoutEntry
	}
	var items []item
	seen := map[string]bool{}
	sources := map[string]string{} // module key -> WGSL, of every job kept
	var order []string
	need := func(src string) {
		if k := sourceKey(src); sources[k] == "" {
			sources[k] = src
			order = append(order, k)
		}
	}
	for _, j := range jobs {
		if len(items) == cacheSize {
			break
		}
		it := item{job: j}
		if j.Draw == nil {
			if j.WGSL == "" || j.Entry == "" {
				continue
			}
			it.key = computeKey(sourceKey(j.WGSL), j.Entry)
		} else {
			if checkDraw(*j.Draw) != nil {
				continue
			}
			var err error
			if it.groups, it.key, err = d.drawKey(*j.Draw); err != nil {
				continue
			}
		}
		if _, cached := d.pipes.peek(it.key); cached || seen[it.key] {
			continue
		}
		seen[it.key] = true
		items = append(items, it)
		if j.Draw == nil {
			need(j.WGSL)
		} else {
			need(j.Draw.VertexWGSL)
			if j.Draw.FragmentEntry != "" {
				need(j.Draw.FragmentWGSL)
			}
		}
	}
	if len(items) == 0 {
		return 0
	}

	// Modules first (naga parses and validates them), then the pipelines
	// (naga writes SPIR-V, the driver compiles).
	mods := map[string]*wgpu.ShaderModule{}
	var missing []string
	for _, k := range order {
		if m, ok := d.modules.peek(k); ok {
			mods[k] = m
		} else {
			missing = append(missing, k)
		}
	}
	mouts := buildExact(len(missing), workers, func(i int) (*wgpu.ShaderModule, error) {
		k := missing[i]
		return d.dev.TryCreateShaderModule(&wgpu.ShaderModuleDescriptor{Label: "prebuild", WGSLSource: &wgpu.ShaderSourceWGSL{Code: sources[k]}})
	}, (*wgpu.ShaderModule).Release)
	var fresh []string
	for i, b := range mouts {
		if b.err == nil {
			mods[missing[i]] = b.val
			fresh = append(fresh, missing[i])
		}
	}
	pouts := buildExact(len(items), workers, func(i int) (*pipeline, error) {
		it := items[i]
		if it.job.Draw == nil {
			m := mods[sourceKey(it.job.WGSL)]
			if m == nil {
				return nil, errNoModule
			}
			cp, err := d.dev.TryCreateComputePipeline(&wgpu.ComputePipelineDescriptor{Label: it.job.Entry,
				Compute: wgpu.ProgrammableStageDescriptor{Module: m, EntryPoint: it.job.Entry}})
			if err != nil {
				return nil, err
			}
			return &pipeline{compute: cp}, nil
		}
		job := *it.job.Draw
		vmod := mods[sourceKey(job.VertexWGSL)]
		var fmod *wgpu.ShaderModule
		if job.FragmentEntry != "" {
			fmod = mods[sourceKey(job.FragmentWGSL)]
		}
		if vmod == nil || (job.FragmentEntry != "" && fmod == nil) {
			return nil, errNoModule
		}
		return d.buildRender(job, it.groups, vmod, fmod)
	}, (*pipeline).release)
	for _, k := range fresh {
		d.modules.put(k, mods[k])
	}
	built := 0
	for i, b := range pouts {
		if b.err == nil {
			d.created++
			built++
			d.pipes.put(items[i].key, b.val)
		}
	}
	return built
}

// errNoModule marks a pipeline Prebuild did not try: its module failed. No
// wgpu call was made, so it is no error another call could have caught.
var errNoModule = errors.New("webgpu: module not built")

// built is the outcome of one creation of buildParallel: its value or error
// and the ticks before and after it (see trustworthy).
type built[T any] struct {
	val        T
	err        error
	start, end int64
}

// buildExact runs build(0..n-1) on up to workers goroutines, then again one
// at a time for each whose outcome cannot be believed (trustworthy), releasing
// what that one made first. Every outcome it returns is exact.
func buildExact[T any](n, workers int, build func(i int) (T, error), release func(T)) []built[T] {
	out := buildParallel(n, workers, build)
	for i, ok := range trustworthy(out) {
		b := &out[i]
		if ok || errors.Is(b.err, errNoModule) {
			continue
		}
		if b.err == nil {
			release(b.val)
		}
		b.val, b.err = build(i)
	}
	return out
}

// buildParallel runs build(0..n-1) on up to workers goroutines.
func buildParallel[T any](n, workers int, build func(i int) (T, error)) []built[T] {
	out := make([]built[T], n)
	var tick atomic.Int64
	next := atomic.Int64{}
	var wg sync.WaitGroup
	for w := 0; w < max(1, min(workers, n)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				b := &out[i]
				b.start = tick.Add(1)
				b.val, b.err = build(i)
				b.end = tick.Add(1)
			}
		}()
	}
	wg.Wait()
	return out
}

// trustworthy says which creations succeeded and can be believed: those that
// overlapped no creation reporting a wgpu error. Two creations whose tick
// intervals do not overlap did not overlap in time either (the ticks are one
// atomic counter), so no error scope of one saw the other's error; an error
// always lands in the scope of some creation running at that moment, so a
// success overlapping no reported error had none of its own.
func trustworthy[T any](outs []built[T]) []bool {
	var failed [][2]int64
	for _, b := range outs {
		if b.err != nil && !errors.Is(b.err, errNoModule) {
			failed = append(failed, [2]int64{b.start, b.end})
		}
	}
	ok := make([]bool, len(outs))
	for i, b := range outs {
		if b.err != nil {
			continue
		}
		ok[i] = true
		for _, f := range failed {
			if b.start < f[1] && f[0] < b.end {
				ok[i] = false
				break
			}
		}
	}
	return ok
}
