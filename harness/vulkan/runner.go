// Package vulkan runs SPIR-V kernels on one Vulkan device and returns their
// buffers: compute dispatches (Run) and draws with vertex and pixel
// (fragment) shaders (RunDraw, render.go), which also return the colour
// target. It is the execution back end of waverig's harness.
//
// A Runner owns one logical device (made by the devices/vkx shim) and keeps
// everything a stream of thousands of small jobs can reuse: compiled
// pipelines (keyed by module hashes, entries, subgroup size, flags, layout
// and for draws the colour format and framebuffer size, backed by a
// VkPipelineCache), one command buffer, one fence, one descriptor pool,
// host-visible buffers that only grow and, for draws, one colour target
// kept while the format and size stay the same.
package vulkan

import (
	"container/list"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"
	"unsafe"

	"waverig/devices"
	"waverig/devices/vkx"
)

// BufferKind is the descriptor type of a binding: a buffer's (Storage,
// Uniform), or an image's or sampler's (a Job's Images and Samplers, never a
// Buffer's).
type BufferKind int

const (
	Storage        BufferKind = iota // VK_DESCRIPTOR_TYPE_STORAGE_BUFFER
	Uniform                          // VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER
	SampledImage                     // VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE (images.go)
	SamplerBinding                   // VK_DESCRIPTOR_TYPE_SAMPLER (images.go)
)

func (k BufferKind) String() string {
	switch k {
	case Storage:
		return "storage"
	case Uniform:
		return "uniform"
	case SampledImage:
		return "sampled image"
	case SamplerBinding:
		return "sampler"
	}
	return fmt.Sprintf("BufferKind(%d)", int(k))
}

// Buffer is one descriptor binding of a job and its initial contents
// (len(Data) is the buffer size).
type Buffer struct {
	Set, Binding uint32
	Kind         BufferKind
	Data         []byte
}

// Job is one dispatch.
type Job struct {
	SPIRV   []uint32
	Entry   string
	Buffers []Buffer
	// Images and Samplers are the sampled images and samplers the module
	// binds (images.go).
	Images        []Image
	Samplers      []Sampler
	PushConstants []byte
	Groups        [3]uint32

	// RequiredSubgroupSize 0 runs at the device default; any other value
	// must be one of Device().LegalSubgroupSizes(). On devices with size
	// control it is passed as VkPipelineShaderStageRequiredSubgroupSizeCreateInfo.
	RequiredSubgroupSize uint32
	// FullSubgroups sets REQUIRE_FULL_SUBGROUPS when the device supports
	// computeFullSubgroups (Result.FullSubgroups says whether it was set).
	FullSubgroups bool
	// VaryingSubgroupSize sets ALLOW_VARYING_SUBGROUP_SIZE (needs size
	// control; cannot be combined with RequiredSubgroupSize).
	VaryingSubgroupSize bool
}

// Result is the outcome of one job.
type Result struct {
	Buffers         [][]byte      // contents after the dispatch, in Job.Buffers order
	PipelineCreated bool          // this job built a pipeline (cache miss)
	FullSubgroups   bool          // REQUIRE_FULL_SUBGROUPS was set
	SubgroupSize    uint32        // required size passed to the driver, 0 = device default
	Elapsed         time.Duration // submit to fence signalled, plus buffer upload and readback
	PipelineTime    time.Duration // time spent building the pipeline (0 on a cache hit)
}

// DefaultTimeout bounds one dispatch. A kernel that loops forever on a CPU
// driver would otherwise hang the whole test run.
const DefaultTimeout = 20 * time.Second

// DefaultMaxPipelines bounds the pipeline cache; the least recently used
// pipeline is destroyed beyond it.
const DefaultMaxPipelines = 2048

// Runner runs jobs on one device. Its methods are safe for concurrent use
// (jobs are serialised).
type Runner struct {
	mu       sync.Mutex
	dev      devices.Device
	ctx      *vkx.Context
	pipes    map[pipeKey]*list.Element
	lru      *list.List // of *cachedPipe, front = most recent
	maxPipes int
	created  int
	timeout  time.Duration
	infos    map[infoKey]spirvInfo // parsed modules, so cached jobs skip the parse
	closed   bool
	building sync.WaitGroup // Prebuild calls in flight (Close waits for them)
}

type infoKey struct {
	hash  [32]byte
	entry string
	model uint32 // SPIR-V execution model: one name may serve several stages
}

// maxInfos bounds the parse memo; it is simply dropped when full.
const maxInfos = 4096

type pipeKey struct {
	hash     [32]byte // SPIR-V words (a draw's vertex module)
	entry    string
	size     uint32
	flags    uint32
	layout   string // canonical set/binding/kind list
	pushSize uint32

	// Draws only: a graphics pipeline bakes in its fragment module (zero
	// hash and "" without one), colour format and viewport size.
	graphics      bool
	fragHash      [32]byte
	fragEntry     string
	color         ColorFormat
	width, height uint32
	// Mesh pipelines (mesh.go): hash and entry are the mesh module's,
	// fragHash and fragEntry the task module's (zero and "" without one).
	mesh bool
}

type cachedPipe struct {
	key  pipeKey
	pipe *vkx.Pipeline
}

// NewRunner opens device deviceIndex (the index of devices.Enumerate).
func NewRunner(deviceIndex int) (*Runner, error) {
	dev, h, err := devices.Open(deviceIndex)
	if err != nil {
		return nil, err
	}
	ctx, err := vkx.NewContext(h.Instance, h.Physical, h.InstanceAPI)
	if err != nil {
		return nil, fmt.Errorf("vulkan: open %s: %w", dev.Name, err)
	}
	return &Runner{
		dev:      dev,
		ctx:      ctx,
		pipes:    map[pipeKey]*list.Element{},
		lru:      list.New(),
		maxPipes: DefaultMaxPipelines,
		timeout:  DefaultTimeout,
		infos:    map[infoKey]spirvInfo{},
	}, nil
}

// Device describes the device the runner uses.
func (r *Runner) Device() devices.Device { return r.dev }

// PipelinesCreated counts pipelines built so far (cache misses).
func (r *Runner) PipelinesCreated() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.created
}

// SetTimeout changes the per-dispatch limit (DefaultTimeout when d <= 0).
// After a timeout the runner refuses further jobs: the device may still be
// executing the kernel.
func (r *Runner) SetTimeout(d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if d <= 0 {
		d = DefaultTimeout
	}
	r.timeout = d
}

// SetMaxPipelines bounds the pipeline cache (DefaultMaxPipelines when n <= 0).
func (r *Runner) SetMaxPipelines(n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if n <= 0 {
		n = DefaultMaxPipelines
	}
	r.maxPipes = n
	r.evict()
}

// Close destroys every pipeline and the device. The runner is unusable after.
func (r *Runner) Close() {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return
	}
	r.closed = true
	r.mu.Unlock()
	// Pipelines a Prebuild is still creating need the device.
	r.building.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	for e := r.lru.Front(); e != nil; e = e.Next() {
		r.ctx.DestroyPipeline(e.Value.(*cachedPipe).pipe)
	}
	r.lru.Init()
	r.pipes = map[pipeKey]*list.Element{}
	r.ctx.Close()
}

var errClosed = errors.New("vulkan: runner is closed")

// prepared is a job checked against the device and its limits, with the
// pipeline-cache key and the shim's bindings it needs.
type prepared struct {
	key      pipeKey
	bindings []vkx.Binding
	push     []byte
	res      *Result
}

// prepare checks a job (caller holds r.mu) and works out its pipeline key.
// Limits come first: nothing is created or allocated for a job the device
// cannot run (drivers crash on some of them rather than fail).
func (r *Runner) prepare(job Job) (prepared, error) {
	var p prepared
	if r.closed {
		return p, errClosed
	}
	hash := hashWords(job.SPIRV)
	info, err := r.parse(hash, job.SPIRV, job.Entry, execModelGLCompute)
	if err != nil {
		return p, err
	}
	if err := CheckDemand(r.dev, demandOf(job, info)); err != nil {
		return p, err
	}
	bindings, layout, err := r.checkBindings(job.Buffers, job.Images, job.Samplers)
	if err != nil {
		return p, err
	}
	if err := checkDescriptors(info.used, job.Buffers, job.Images, job.Samplers); err != nil {
		return p, err
	}
	push, err := r.checkPush(job.PushConstants)
	if err != nil {
		return p, err
	}
	if err := r.checkGroups(job.Groups); err != nil {
		return p, err
	}
	size, flags, err := r.subgroupSettings(job, info)
	if err != nil {
		return p, err
	}
	return prepared{
		key:      pipeKey{hash: hash, entry: job.Entry, size: size, flags: flags, layout: layout, pushSize: uint32(len(push))},
		bindings: bindings, push: push,
		res: &Result{SubgroupSize: size, FullSubgroups: flags&vkx.StageRequireFullSubgroups != 0},
	}, nil
}

// Run executes one job and returns its buffers.
func (r *Runner) Run(job Job) (*Result, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p, err := r.prepare(job)
	if err != nil {
		return nil, err
	}
	res, key := p.res, p.key
	pipe, created, took, err := r.pipeline(key, fmt.Sprintf("%q", job.Entry), func() (*vkx.Pipeline, error) {
		return r.ctx.CreatePipeline(job.SPIRV, job.Entry, p.bindings, key.pushSize, key.size, key.flags)
	}, job.SPIRV)
	if err != nil {
		return nil, err
	}
	res.PipelineCreated, res.PipelineTime = created, took

	start := time.Now()
	if err := r.upload(job.Buffers); err != nil {
		return nil, err
	}
	if err := r.uploadImages(job.Images, job.Samplers); err != nil {
		return nil, err
	}
	if err := r.ctx.Dispatch(pipe, p.bindings, p.push, job.Groups, uint64(r.timeout.Nanoseconds())); err != nil {
		return nil, fmt.Errorf("vulkan: dispatch %q %v: %w", job.Entry, job.Groups, err)
	}
	if res.Buffers, err = r.readBack(job.Buffers); err != nil {
		return nil, err
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

// Prebuild creates the compute pipelines of jobs on up to workers goroutines
// and keeps them in the cache for Run, which is serial: drivers compile in
// vkCreateComputePipelines (thread-safe on one device, the pipeline cache is
// internally synchronised), and on a GPU driver that compile is most of a
// run's time. Jobs that fail a check or whose pipeline fails are left for Run,
// which reports them; nothing is dispatched here. It returns the number of
// pipelines built. At most the cache's bound are built.
func (r *Runner) Prebuild(jobs []Job, workers int) int {
	r.mu.Lock()
	var items []buildItem
	seen := map[pipeKey]bool{}
	for _, job := range jobs {
		p, err := r.prepare(job)
		if err != nil || seen[p.key] || r.pipes[p.key] != nil {
			continue
		}
		seen[p.key] = true
		job, k := job, p.key
		items = append(items, buildItem{key: k, modules: [][]uint32{job.SPIRV}, build: func() (*vkx.Pipeline, error) {
			return r.ctx.CreatePipeline(job.SPIRV, job.Entry, p.bindings, k.pushSize, k.size, k.flags)
		}})
	}
	return r.buildAll(items, workers) // unlocks r.mu
}

// buildItem is one pipeline a prebuild creates: its key, the modules the
// validator checks first and the shim call that builds it.
type buildItem struct {
	key     pipeKey
	modules [][]uint32
	build   func() (*vkx.Pipeline, error)
}

// buildAll runs the builds of items on up to workers goroutines and caches
// what they make. The caller holds r.mu, which buildAll releases while the
// driver compiles (Close waits for it through r.building). Builds whose
// modules fail the validator or whose pipeline fails are skipped: the serial
// Run or RunDraw builds them again and reports the error. It returns the
// number of pipelines cached, at most the cache's bound.
func (r *Runner) buildAll(items []buildItem, workers int) int {
	if len(items) > r.maxPipes {
		items = items[:r.maxPipes]
	}
	if r.closed {
		items = nil
	}
	r.building.Add(1)
	defer r.building.Done()
	r.mu.Unlock()
	if workers < 1 {
		workers = 1
	}
	work := make(chan buildItem)
	var wg sync.WaitGroup
	built := 0
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := range work {
				if !r.valid(it.modules) {
					continue // the serial run reports the validator's verdict
				}
				pipe, err := it.build()
				if err != nil {
					continue
				}
				r.mu.Lock()
				if r.closed || r.pipes[it.key] != nil {
					r.ctx.DestroyPipeline(pipe)
				} else {
					r.created++
					built++
					r.pipes[it.key] = r.lru.PushFront(&cachedPipe{key: it.key, pipe: pipe})
					r.evict()
				}
				r.mu.Unlock()
			}
		}()
	}
	for _, it := range items {
		work <- it
	}
	close(work)
	wg.Wait()
	return built
}

// valid reports whether every module passes the validator.
func (r *Runner) valid(modules [][]uint32) bool {
	for _, m := range modules {
		if Validate(m) != nil {
			return false
		}
	}
	return true
}

// upload copies each buffer's initial contents into its slot.
func (r *Runner) upload(bufs []Buffer) error {
	for i, b := range bufs {
		mem, err := r.ctx.Slot(i, len(b.Data))
		if err != nil {
			return fmt.Errorf("vulkan: buffer %d (set %d binding %d): %w", i, b.Set, b.Binding, err)
		}
		copy(mem, b.Data)
	}
	return nil
}

// readBack copies every buffer out of its slot after a job.
func (r *Runner) readBack(bufs []Buffer) ([][]byte, error) {
	out := make([][]byte, len(bufs))
	for i, b := range bufs {
		mem, err := r.ctx.Slot(i, len(b.Data)) // no growth: returns the mapping
		if err != nil {
			return nil, fmt.Errorf("vulkan: read back buffer %d: %w", i, err)
		}
		out[i] = append([]byte(nil), mem...)
	}
	return out, nil
}

// parse returns the facts of the module's entry point of the given
// execution model, from the memo when the same module and entry ran before
// (failures are not remembered).
func (r *Runner) parse(hash [32]byte, words []uint32, entry string, model uint32) (spirvInfo, error) {
	k := infoKey{hash, entry, model}
	if info, ok := r.infos[k]; ok {
		return info, nil
	}
	info, err := parseEntry(words, entry, model)
	if err != nil {
		return info, fmt.Errorf("vulkan: %w", err)
	}
	if len(r.infos) >= maxInfos {
		r.infos = map[infoKey]spirvInfo{}
	}
	r.infos[k] = info
	return info, nil
}

// pipeline returns the cached pipeline for key, or validates modules and
// builds one with build (compute and graphics pipelines share the cache,
// its bound and PipelinesCreated). created says build ran, took is the
// time it and the validation took; label names the job in errors.
func (r *Runner) pipeline(key pipeKey, label string, build func() (*vkx.Pipeline, error), modules ...[]uint32) (p *vkx.Pipeline, created bool, took time.Duration, err error) {
	if e, ok := r.pipes[key]; ok {
		r.lru.MoveToFront(e)
		return e.Value.(*cachedPipe).pipe, false, 0, nil
	}
	start := time.Now()
	for _, m := range modules {
		if err := Validate(m); err != nil {
			return nil, false, 0, fmt.Errorf("vulkan: %s: %w", label, err)
		}
	}
	if p, err = build(); err != nil {
		return nil, false, 0, fmt.Errorf("vulkan: pipeline for %s: %w", label, err)
	}
	r.created++
	r.pipes[key] = r.lru.PushFront(&cachedPipe{key: key, pipe: p})
	r.evict()
	return p, true, time.Since(start), nil
}

func (r *Runner) evict() {
	for r.lru.Len() > r.maxPipes {
		e := r.lru.Back()
		cp := e.Value.(*cachedPipe)
		r.lru.Remove(e)
		delete(r.pipes, cp.key)
		r.ctx.DestroyPipeline(cp.pipe)
	}
}

// checkBuffers validates the buffers and turns them into shim bindings plus
// a canonical layout string for the cache key.
func (r *Runner) checkBuffers(bufs []Buffer) ([]vkx.Binding, string, error) {
	if len(bufs) > vkx.MaxBuffers {
		return nil, "", fmt.Errorf("vulkan: %d buffers, at most %d per job", len(bufs), vkx.MaxBuffers)
	}
	out := make([]vkx.Binding, len(bufs))
	seen := map[[2]uint32]int{}
	keys := make([]string, len(bufs))
	for i, b := range bufs {
		if len(b.Data) == 0 {
			return nil, "", fmt.Errorf("vulkan: buffer %d (set %d binding %d) is empty; Vulkan buffers need a size", i, b.Set, b.Binding)
		}
		if int(b.Set) >= vkx.MaxSets {
			return nil, "", fmt.Errorf("vulkan: buffer %d uses set %d, at most %d sets", i, b.Set, vkx.MaxSets)
		}
		if j, dup := seen[[2]uint32{b.Set, b.Binding}]; dup {
			return nil, "", fmt.Errorf("vulkan: buffers %d and %d both use set %d binding %d", j, i, b.Set, b.Binding)
		}
		seen[[2]uint32{b.Set, b.Binding}] = i
		var typ uint32
		switch b.Kind {
		case Storage: // ranges: CheckDemand
			typ = vkx.DescriptorStorageBuffer
		case Uniform:
			typ = vkx.DescriptorUniformBuffer
		default:
			return nil, "", fmt.Errorf("vulkan: buffer %d has unknown kind %v", i, b.Kind)
		}
		out[i] = vkx.Binding{Set: b.Set, Binding: b.Binding, Type: typ, Slot: uint32(i), Size: uint64(len(b.Data))}
		keys[i] = fmt.Sprintf("%d.%d.%d", b.Set, b.Binding, typ)
	}
	sort.Strings(keys)
	layout := ""
	for _, k := range keys {
		layout += k + ";"
	}
	return out, layout, nil
}

// checkPush pads push constants to the 4-byte multiple Vulkan requires.
func (r *Runner) checkPush(p []byte) ([]byte, error) {
	if len(p) == 0 {
		return nil, nil
	}
	if lim := r.dev.MaxPushConstantsSize; uint64(len(p)) > uint64(lim) {
		return nil, fmt.Errorf("vulkan: %d bytes of push constants, device limit maxPushConstantsSize is %d", len(p), lim)
	}
	if len(p)%4 != 0 {
		p = append(append([]byte(nil), p...), make([]byte, 4-len(p)%4)...)
	}
	return p, nil
}

// checkGroups refuses a zero dimension (the limits are CheckDemand's).
func (r *Runner) checkGroups(g [3]uint32) error {
	for _, n := range g {
		if n == 0 {
			return fmt.Errorf("vulkan: workgroup count %v has a zero dimension", g)
		}
	}
	return nil
}

// subgroupSettings decides the required size passed to the driver and the
// stage flags, refusing combinations the Vulkan spec makes invalid rather
// than letting the driver misbehave.
func (r *Runner) subgroupSettings(job Job, info spirvInfo) (uint32, uint32, error) {
	d := r.dev
	req := job.RequiredSubgroupSize
	var size, flags uint32
	// The size itself is legal: Run checked it with CheckDemand first.
	if req != 0 {
		// Without size control the only legal size is the default one,
		// which needs no create-info (and may not be given one).
		if d.CanRequireSubgroupSize() {
			size = req
		}
	}
	if job.VaryingSubgroupSize {
		if !d.SizeControl.Supported {
			return 0, 0, fmt.Errorf("vulkan: ALLOW_VARYING_SUBGROUP_SIZE needs subgroupSizeControl, which %s lacks", d.Name)
		}
		if req != 0 {
			return 0, 0, fmt.Errorf("vulkan: VaryingSubgroupSize and RequiredSubgroupSize %d cannot be combined", req)
		}
		flags |= vkx.StageAllowVaryingSubgroupSize
	}
	if job.FullSubgroups && d.SizeControl.Supported && d.SizeControl.ComputeFullSubgroups {
		// The spec requires local size X to be a multiple of the size the
		// subgroups may have: the required one, else maxSubgroupSize when
		// the size may vary (flag, or implicitly in SPIR-V 1.6), else the
		// default subgroupSize.
		unit := size
		if unit == 0 {
			unit = d.SubgroupSize
			if flags&vkx.StageAllowVaryingSubgroupSize != 0 || info.version >= 0x00010600 {
				unit = d.SizeControl.MaxSubgroupSize
			}
		}
		if x := info.localSize[0]; x != 0 && unit != 0 && x%unit != 0 {
			return 0, 0, fmt.Errorf("vulkan: REQUIRE_FULL_SUBGROUPS needs local size X (%d) to be a multiple of %d", x, unit)
		}
		flags |= vkx.StageRequireFullSubgroups
	}
	return size, flags, nil
}

func hashWords(w []uint32) [32]byte {
	if len(w) == 0 {
		return sha256.Sum256(nil)
	}
	// SPIR-V words in host order are hashed as bytes; the key never leaves
	// the process, so byte order does not matter.
	return sha256.Sum256(unsafe.Slice((*byte)(unsafe.Pointer(&w[0])), len(w)*4))
}

// WordsFromBytes turns a little-endian .spv file into words (a helper for
// callers reading SPIR-V from disk).
func WordsFromBytes(b []byte) ([]uint32, error) {
	if len(b)%4 != 0 {
		return nil, fmt.Errorf("vulkan: SPIR-V file length %d is not a multiple of 4", len(b))
	}
	w := make([]uint32, len(b)/4)
	for i := range w {
		w[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return w, nil
}
