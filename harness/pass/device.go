package pass

import (
	"errors"
	"strings"

	"waverig/compiler/reflect"
	"waverig/harness/browser"
	"waverig/harness/dawn"
	"waverig/harness/kernels"
	"waverig/harness/vulkan"
	"waverig/harness/webgpu"
)

// Device is one API of one physical device as a pass drives it. The pass
// decides what runs (plans, compiles, validates, asks the baselines), checks
// what comes back and writes the records; a Device only builds pipelines for
// and runs the jobs it is given. vulkanDevice (harness/vulkan), wgpuAPI
// (harness/webgpu), dawnAPI (harness/dawn) and browserAPI (harness/browser)
// are the real ones; harness/simdevice is a Go
// model of a correct device with planted crashes, hangs and flakes, on which
// the engine is tested without a GPU.
type Device interface {
	// Compute dispatches one compute kernel and reads back every buffer it
	// binds, by HLSL register. An error of type SkipError means the device
	// cannot run the kernel (the cases are skips with its words), one of type
	// CrashError that the process running the kernel died in it (the cases
	// are crashes), any other is an error of the cases.
	Compute(j ComputeJob) (map[string][]byte, error)
	// Draw runs one draw kernel (the colour target, if any, comes back under
	// kernels.ColorTarget).
	Draw(j DrawJob) (map[string][]byte, error)
	// Mesh runs one task or mesh kernel (mesh.go); only Vulkan has them
	// (NotApplicable rules the WebGPU pairs out).
	Mesh(j MeshJob) (map[string][]byte, error)
	// Prebuild creates the pipelines of jobs the pass is about to run on up to
	// workers goroutines, so that Compute and Draw find them cached; it
	// returns how many it built. A device that compiles at dispatch may build
	// none.
	Prebuild(compute []ComputeJob, draws []DrawJob, workers int) int
	// Pipelines is how many pipelines the device has created so far.
	Pipelines() int
	// Close releases the device.
	Close()
}

// Buffer is one buffer of a job: the HLSL register the kernel names it by,
// where the module binds it, and its initial contents (the device copies
// them before it writes; Prebuild never uploads).
type Buffer struct {
	Register string
	Set      int
	Binding  int
	Uniform  bool
	Data     []byte
}

// ComputeJob is one compute kernel compiled for a device's API.
type ComputeJob struct {
	Kernel kernels.Kernel
	SPIRV  []uint32 // Vulkan
	WGSL   string   // WebGPU
	Entry  string
	// Buffers in the order they are bound.
	Buffers []Buffer
	// Textures and Samplers are the sampled textures and samplers the
	// module binds.
	Textures []Texture
	Samplers []Sampler
	// Size is the wave size the pass runs the kernel at. RequireSize asks the
	// driver for it (size control); FullSubgroups also asks for full waves.
	Size          uint32
	RequireSize   bool
	FullSubgroups bool
}

// DrawJob is one draw kernel compiled for a device's API: a vertex shader
// and, for a pixel kernel, a pixel shader (PixelEntry "": none).
type DrawJob struct {
	Kernel                  kernels.Kernel
	VertexSPIRV, PixelSPIRV []uint32 // Vulkan
	VertexWGSL, PixelWGSL   string   // WebGPU
	VertexEntry, PixelEntry string
	Buffers                 []Buffer
	Textures                []Texture
	Samplers                []Sampler
}

// Texture is one sampled texture of a job: the kernel's description and
// where the module binds its register.
type Texture struct {
	Set, Binding int
	kernels.Texture
}

// Sampler is one sampler of a job: the kernel's description and where the
// module binds its register.
type Sampler struct {
	Set, Binding int
	kernels.Sampler
}

// samplingOf maps a kernel's textures and samplers to the bindings bind finds
// for their registers (false: no module uses it, nothing to bind). The
// devices refuse a description they cannot make, with the reason.
func samplingOf(k kernels.Kernel, bind func(register string) (reflect.Binding, bool)) ([]Texture, []Sampler) {
	var texs []Texture
	var sams []Sampler
	for _, t := range k.Textures {
		if bd, ok := bind(t.Register); ok {
			texs = append(texs, Texture{Set: bd.Set, Binding: bd.Binding, Texture: t})
		}
	}
	for _, s := range k.Samplers {
		if bd, ok := bind(s.Register); ok {
			sams = append(sams, Sampler{Set: bd.Set, Binding: bd.Binding, Sampler: s})
		}
	}
	return texs, sams
}

// SkipError is a device's refusal of a kernel it cannot run (the cases are
// skips, with its words as the reason).
type SkipError string

func (s SkipError) Error() string { return string(s) }

// CrashError is a kernel that killed the process the device runs it in —
// Dawn's helper, say — while this process lives on: its cases are Crash
// records, as a dead child's are on Vulkan.
type CrashError string

func (c CrashError) Error() string { return string(c) }

// bufferOf is the job buffer of a register at a reflected binding.
func bufferOf(register string, bd reflect.Binding, data []byte) Buffer {
	return Buffer{Register: register, Set: bd.Set, Binding: bd.Binding, Uniform: bufferKind(bd.Descriptor) == vulkan.Uniform, Data: data}
}

// colorTarget is a draw's colour target in an API's terms: none without a
// pixel shader, else 32-bit unsigned or float RGBA as the kernel writes it.
func colorTarget[T any](j DrawJob, none, uint, float T) T {
	switch {
	case j.PixelEntry == "":
		return none
	case j.Kernel.Draw.FloatColor:
		return float
	}
	return uint
}

// readBack maps a device's buffers, in job order, back to their registers.
func readBack(bufs []Buffer, got [][]byte) map[string][]byte {
	out := make(map[string][]byte, len(bufs)+1)
	for i, b := range bufs {
		if i < len(got) {
			out[b.Register] = got[i]
		}
	}
	return out
}

// drawnBack is readBack of a draw, with its colour target (nil: none) under
// kernels.ColorTarget.
func drawnBack(bufs []Buffer, got [][]byte, color []byte) map[string][]byte {
	out := readBack(bufs, got)
	if color != nil {
		out[kernels.ColorTarget] = color
	}
	return out
}

// vulkanDevice is the Vulkan API of a physical device (harness/vulkan).
type vulkanDevice struct{ runner *vulkan.Runner }

func (d vulkanDevice) vulkanBuffers(bufs []Buffer, copyData bool) []vulkan.Buffer {
	out := make([]vulkan.Buffer, len(bufs))
	for i, b := range bufs {
		kind := vulkan.Storage
		if b.Uniform {
			kind = vulkan.Uniform
		}
		data := b.Data
		if copyData {
			data = append([]byte(nil), data...)
		}
		out[i] = vulkan.Buffer{Set: uint32(b.Set), Binding: uint32(b.Binding), Kind: kind, Data: data}
	}
	return out
}

// vulkanSampling is a job's textures and samplers in harness/vulkan's terms
// (the one format is R16_SFLOAT; the filters map by name).
func vulkanSampling(texs []Texture, sams []Sampler) ([]vulkan.Image, []vulkan.Sampler) {
	var ims []vulkan.Image
	for _, t := range texs {
		ims = append(ims, vulkan.Image{Set: uint32(t.Set), Binding: uint32(t.Binding), Format: vulkan.R16Float, Width: t.Width, Height: t.Height, Levels: t.Levels})
	}
	filter := func(f kernels.FilterMode) vulkan.Filter {
		if f == kernels.Linear {
			return vulkan.FilterLinear
		}
		return vulkan.FilterNearest
	}
	var out []vulkan.Sampler
	for _, s := range sams {
		out = append(out, vulkan.Sampler{Set: uint32(s.Set), Binding: uint32(s.Binding), Mag: filter(s.Mag), Min: filter(s.Min), Mip: filter(s.Mip), Address: vulkan.ClampToEdge})
	}
	return ims, out
}

func (d vulkanDevice) computeJob(j ComputeJob, copyData bool) vulkan.Job {
	job := vulkan.Job{SPIRV: j.SPIRV, Entry: j.Entry, Groups: j.Kernel.Groups, Buffers: d.vulkanBuffers(j.Buffers, copyData), FullSubgroups: j.FullSubgroups}
	job.Images, job.Samplers = vulkanSampling(j.Textures, j.Samplers)
	if j.RequireSize {
		job.RequiredSubgroupSize = j.Size
	}
	return job
}

func (d vulkanDevice) drawJob(j DrawJob, copyData bool) vulkan.DrawJob {
	dr := j.Kernel.Draw
	job := vulkan.DrawJob{VertexSPIRV: j.VertexSPIRV, VertexEntry: j.VertexEntry, FragmentSPIRV: j.PixelSPIRV, FragmentEntry: j.PixelEntry,
		Width: dr.Width, Height: dr.Height, VertexCount: dr.VertexCount, Draws: dr.Draws,
		Color: colorTarget(j, vulkan.NoColor, vulkan.RGBA32Uint, vulkan.RGBA32Float), Buffers: d.vulkanBuffers(j.Buffers, copyData)}
	job.Images, job.Samplers = vulkanSampling(j.Textures, j.Samplers)
	return job
}

func (d vulkanDevice) Compute(j ComputeJob) (map[string][]byte, error) {
	res, err := d.runner.Run(d.computeJob(j, true))
	if err != nil {
		return nil, err
	}
	return readBack(j.Buffers, res.Buffers), nil
}

func (d vulkanDevice) Draw(j DrawJob) (map[string][]byte, error) {
	res, err := d.runner.RunDraw(d.drawJob(j, true))
	if err != nil {
		return nil, err
	}
	return drawnBack(j.Buffers, res.Buffers, res.Color), nil
}

func (d vulkanDevice) Prebuild(compute []ComputeJob, draws []DrawJob, workers int) int {
	n := 0
	if len(compute) > 0 {
		jobs := make([]vulkan.Job, len(compute))
		for i, j := range compute {
			jobs[i] = d.computeJob(j, false)
		}
		n += d.runner.Prebuild(jobs, workers)
	}
	if len(draws) > 0 {
		jobs := make([]vulkan.DrawJob, len(draws))
		for i, j := range draws {
			jobs[i] = d.drawJob(j, false)
		}
		n += d.runner.PrebuildDraws(jobs, workers)
	}
	return n
}

func (d vulkanDevice) Pipelines() int { return d.runner.PipelinesCreated() }
func (d vulkanDevice) Close()         { d.runner.Close() }

// nagaMultiDim is how wgpu-native 29's shader translator refuses wave builtins
// in a workgroup with more than one dimension (a naga limitation, not WGSL's):
// such kernels are skips on WebGPU, with naga's words.
const nagaMultiDim = "Workgroup size is multi dimensional"

// wgpuAPI is the WebGPU API of a physical device through wgpu-native
// (harness/webgpu).
type wgpuAPI struct{ gpu *webgpu.Device }

func (d wgpuAPI) bindings(bufs []Buffer, copyData bool) []webgpu.Binding {
	out := make([]webgpu.Binding, len(bufs))
	for i, b := range bufs {
		data := b.Data
		if copyData {
			data = append([]byte(nil), data...)
		}
		out[i] = webgpu.Binding{Group: b.Set, Binding: b.Binding, Data: data, Uniform: b.Uniform, ReadBack: true}
	}
	return out
}

// wgpuSampling is a job's textures and samplers in harness/webgpu's terms
// (the kernels spell formats and modes as WebGPU does).
func wgpuSampling(texs []Texture, sams []Sampler) webgpu.Sampling {
	var s webgpu.Sampling
	for _, t := range texs {
		s.Textures = append(s.Textures, webgpu.Texture{Group: t.Set, Binding: t.Binding, Format: string(t.Format), Width: t.Width, Height: t.Height, Levels: t.Levels})
	}
	for _, sm := range sams {
		s.Samplers = append(s.Samplers, webgpu.Sampler{Group: sm.Set, Binding: sm.Binding, Mag: string(sm.Mag), Min: string(sm.Min), Mip: string(sm.Mip), Address: string(sm.Address)})
	}
	return s
}

func (d wgpuAPI) drawJob(j DrawJob, copyData bool) webgpu.DrawJob {
	dr := j.Kernel.Draw
	return webgpu.DrawJob{VertexWGSL: j.VertexWGSL, VertexEntry: j.VertexEntry, FragmentWGSL: j.PixelWGSL, FragmentEntry: j.PixelEntry,
		Width: dr.Width, Height: dr.Height, VertexCount: dr.VertexCount, Draws: dr.Draws,
		Color: colorTarget(j, webgpu.NoColor, webgpu.RGBA32Uint, webgpu.RGBA32Float), Bindings: d.bindings(j.Buffers, copyData),
		Sampling: wgpuSampling(j.Textures, j.Samplers)}
}

func (d wgpuAPI) Compute(j ComputeJob) (map[string][]byte, error) {
	bufs, err := d.gpu.RunComputeSampling(j.WGSL, j.Entry, j.Kernel.Groups, d.bindings(j.Buffers, true), wgpuSampling(j.Textures, j.Samplers))
	if err != nil && strings.Contains(err.Error(), nagaMultiDim) {
		return nil, SkipError("wgpu-native 29 (naga) rejects subgroup_invocation_id in a multi-dimensional workgroup (" + nagaMultiDim + ")")
	}
	if err != nil {
		return nil, err
	}
	return readBack(j.Buffers, bufs), nil
}

// nagaVertexBuiltin is how wgpu-native 29's naga refuses the subgroup
// builtins in a vertex entry point, even with native-feature-subgroup-vertex
// (which admits the operations, not subgroup_invocation_id or
// subgroup_size).
const nagaVertexBuiltin = "is not available at this stage"

func (d wgpuAPI) Draw(j DrawJob) (map[string][]byte, error) {
	res, err := d.gpu.RunDraw(d.drawJob(j, true))
	if err != nil && j.Kernel.Stage == kernels.Vertex && strings.Contains(err.Error(), nagaVertexBuiltin) {
		// waverig's naga dialect never reads them there (entry.go); a
		// command compiler's WGSL may.
		return nil, SkipError("wgpu-native 29 (naga) has no subgroup_invocation_id or subgroup_size in vertex shaders (native-feature-subgroup-vertex admits the operations only), and this vertex module reads them")
	}
	if err != nil {
		return nil, err
	}
	return drawnBack(j.Buffers, res.Buffers, res.Color), nil
}

func (d wgpuAPI) Prebuild(compute []ComputeJob, draws []DrawJob, workers int) int {
	var jobs []webgpu.PrebuildJob
	for _, j := range compute {
		jobs = append(jobs, webgpu.PrebuildJob{WGSL: j.WGSL, Entry: j.Entry})
	}
	for _, j := range draws {
		dj := d.drawJob(j, false)
		jobs = append(jobs, webgpu.PrebuildJob{Draw: &dj})
	}
	if len(jobs) == 0 {
		return 0
	}
	return d.gpu.Prebuild(jobs, workers)
}

func (d wgpuAPI) Mesh(MeshJob) (map[string][]byte, error) { return nil, errNoMeshShaders }
func (d wgpuAPI) Pipelines() int                          { return d.gpu.PipelinesCreated() }
func (d wgpuAPI) Close()                                  { d.gpu.Release() }

// dawnAPI is WebGPU through Dawn (harness/dawn's Node helper; Tint compiles
// the standard dialect). The helper builds each pipeline at its first use
// and keeps it.
type dawnAPI struct{ d *dawn.Device }

// dawnBindings are a job's buffers as harness/dawn's runner takes them (the
// Node helper's and the browser page's; serialised, so never written into).
func dawnBindings(bufs []Buffer) []dawn.Binding {
	out := make([]dawn.Binding, len(bufs))
	for i, b := range bufs {
		out[i] = dawn.Binding{Group: b.Set, Binding: b.Binding, Uniform: b.Uniform, Data: b.Data}
	}
	return out
}

// dawnError makes a helper that died in a kernel the kernel's crash.
func dawnError(err error) error {
	if errors.Is(err, dawn.ErrHelperDied) {
		return CrashError("the Dawn helper process died in this kernel: " + err.Error())
	}
	return err
}

// dawnSampling is a job's textures and samplers as harness/dawn's runner
// takes them.
func dawnSampling(texs []Texture, sams []Sampler) dawn.Sampling {
	var s dawn.Sampling
	for _, t := range texs {
		s.Textures = append(s.Textures, dawn.Texture{Group: t.Set, Binding: t.Binding, Format: string(t.Format), Width: t.Width, Height: t.Height, Levels: t.Levels})
	}
	for _, sm := range sams {
		s.Samplers = append(s.Samplers, dawn.Sampler{Group: sm.Set, Binding: sm.Binding, Mag: string(sm.Mag), Min: string(sm.Min), Mip: string(sm.Mip), Address: string(sm.Address)})
	}
	return s
}

func (a dawnAPI) Compute(j ComputeJob) (map[string][]byte, error) {
	bufs, err := a.d.RunComputeSampling(j.WGSL, j.Entry, j.Kernel.Groups, dawnBindings(j.Buffers), dawnSampling(j.Textures, j.Samplers))
	if err != nil {
		return nil, dawnError(err)
	}
	return readBack(j.Buffers, bufs), nil
}

func (a dawnAPI) Draw(j DrawJob) (map[string][]byte, error) {
	dr := j.Kernel.Draw
	job := dawn.DrawJob{VertexWGSL: j.VertexWGSL, VertexEntry: j.VertexEntry, FragmentWGSL: j.PixelWGSL, FragmentEntry: j.PixelEntry,
		Width: dr.Width, Height: dr.Height, VertexCount: dr.VertexCount, Draws: dr.Draws,
		Color: colorTarget(j, "", "rgba32uint", "rgba32float"), Bindings: dawnBindings(j.Buffers), Sampling: dawnSampling(j.Textures, j.Samplers)}
	bufs, color, err := a.d.RunDraw(job)
	if err != nil {
		return nil, dawnError(err)
	}
	return drawnBack(j.Buffers, bufs, color), nil
}

func (a dawnAPI) Mesh(MeshJob) (map[string][]byte, error)   { return nil, errNoMeshShaders }
func (a dawnAPI) Prebuild([]ComputeJob, []DrawJob, int) int { return 0 }
func (a dawnAPI) Pipelines() int                            { return a.d.Pipelines() }
func (a dawnAPI) Close()                                    { a.d.Close() }

// browserAPI is headless Chromium's WebGPU (exec's -api browser): compute
// only.
type browserAPI struct{ b *browser.Browser }

func (a browserAPI) Compute(j ComputeJob) (map[string][]byte, error) {
	bufs, err := a.b.RunCompute(j.WGSL, j.Entry, j.Kernel.Groups, dawnBindings(j.Buffers))
	if err != nil {
		return nil, err
	}
	return readBack(j.Buffers, bufs), nil
}

func (a browserAPI) Draw(DrawJob) (map[string][]byte, error) {
	return nil, SkipError("the browser check runs compute kernels only")
}
func (a browserAPI) Mesh(MeshJob) (map[string][]byte, error)   { return nil, errNoMeshShaders }
func (a browserAPI) Prebuild([]ComputeJob, []DrawJob, int) int { return 0 }
func (a browserAPI) Pipelines() int                            { return 0 }
func (a browserAPI) Close()                                    { a.b.Close() }
