package webgpu

import (
	"errors"
	"sort"
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
// or pipeline only if no call of its cluster of overlapping calls reported an
// error (see trustworthy); the others are released and built again one at a
// time, so every outcome is the one a serial build has. A failing pipeline
// costs its cluster a second, serial try; modules, which fail often, are
// built one at a time (see below).
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
	// Modules one at a time: naga's parse is cheap next to a driver's
	// compile, and failed modules are common (naga rejects some kernels), so
	// building them in parallel would mostly end in serial retries.
	mouts := buildExact(len(missing), 1, func(i int) (*wgpu.ShaderModule, error) {
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

// trustworthy says which creations succeeded and can be believed. The
// binding's error scopes live on one stack per device, one scope per call in
// flight, so while calls overlap an error may land in any of their scopes and
// be reported by a later call that overlapped the first only through others
// (A fails while B runs; A pops B's empty scope; C starts after A ended, B
// pops C's scope, C pops the one holding A's error). At a moment with no call
// in flight the stack is empty, so errors never cross from one cluster of
// chained overlapping creations to the next: a success is believed when no
// creation of its cluster reported an error. Ticks come from one atomic
// counter, so tick intervals that do not overlap did not overlap in time.
func trustworthy[T any](outs []built[T]) []bool {
	idx := make([]int, 0, len(outs))
	for i, b := range outs {
		if !errors.Is(b.err, errNoModule) { // no wgpu call was made
			idx = append(idx, i)
		}
	}
	sort.Slice(idx, func(a, b int) bool { return outs[idx[a]].start < outs[idx[b]].start })
	ok := make([]bool, len(outs))
	for lo := 0; lo < len(idx); {
		hi, end, failed := lo, outs[idx[lo]].end, false
		for ; hi < len(idx) && outs[idx[hi]].start < end; hi++ {
			end = max(end, outs[idx[hi]].end)
			failed = failed || outs[idx[hi]].err != nil
		}
		for _, i := range idx[lo:hi] {
			ok[i] = !failed
		}
		lo = hi
	}
	return ok
}
