package webgpu

import (
	"fmt"

	"github.com/oliverbestmann/webgpu/wgpu"
)

// Binding is one buffer of a compute dispatch or a draw.
type Binding struct {
	Group, Binding int
	// Data is the initial contents; its length (rounded up to 4) is the size.
	Data []byte
	// Uniform binds the buffer as var<uniform> instead of var<storage>.
	Uniform bool
	// ReadBack copies the contents back after the dispatch.
	ReadBack bool
}

// RunCompute builds the entry point of src (or takes it from the device's
// pipeline cache), binds the buffers (automatic layout: list exactly the
// bindings the shader uses), dispatches groups workgroups and returns the
// contents of every ReadBack buffer, indexed like bindings (nil for the others).
func (d *Device) RunCompute(src, entry string, groups [3]uint32, bindings []Binding) ([][]byte, error) {
	return d.RunComputeSampling(src, entry, groups, bindings, Sampling{})
}

// RunComputeSampling is RunCompute with textures and samplers (sampling.go).
func (d *Device) RunComputeSampling(src, entry string, groups [3]uint32, bindings []Binding, s Sampling) ([][]byte, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.usable(); err != nil {
		return nil, err
	}
	j := &work{d: d}
	defer j.done()
	pipe, err := d.computePipeline(src, entry)
	if err != nil {
		return nil, err
	}
	bgs, err := j.buffers(bindings, s, pipe)
	if err != nil {
		return nil, err
	}
	enc, err := j.encoder()
	if err != nil {
		return nil, err
	}
	pass := enc.BeginComputePass(nil)
	pass.SetPipeline(pipe.compute)
	for g, bg := range bgs {
		pass.SetBindGroup(uint32(g), bg, nil)
	}
	pass.DispatchWorkgroups(groups[0], groups[1], groups[2])
	err = pass.TryEnd()
	pass.Release()
	if err != nil {
		return nil, fmt.Errorf("compute pass: %w", err)
	}
	if err := j.copyBuffersBack(enc, bindings); err != nil {
		return nil, err
	}
	if err := j.submit(enc); err != nil {
		return nil, err
	}
	return j.bufferResults(bindings), nil
}

// work holds what one RunCompute or RunDraw creates: released at the end,
// cached modules and pipelines excepted. Callers hold Device.mu.
type work struct {
	d       *Device
	release []func()
	bufs    []*wgpu.Buffer // indexed like the bindings
	staging []*wgpu.Buffer // MapRead copies: the ReadBack bindings', then any others (the colour target)
	mapped  [][]byte       // the staging buffers' contents after submit
}

func (j *work) done() {
	for i := len(j.release) - 1; i >= 0; i-- {
		j.release[i]()
	}
}

// buffers creates one buffer per binding, initialized with its data, the
// textures and samplers of s, and the bind groups over them, one per group,
// with the layouts of pipe.
func (j *work) buffers(bindings []Binding, s Sampling, pipe *pipeline) (map[int]*wgpu.BindGroup, error) {
	dev := j.d.dev
	j.bufs = make([]*wgpu.Buffer, len(bindings))
	entries, err := j.sampling(s)
	if err != nil {
		return nil, err
	}
	for i, b := range bindings {
		data := b.Data
		if pad := (4 - len(data)%4) % 4; pad != 0 || len(data) == 0 {
			data = append(append([]byte(nil), data...), make([]byte, pad+4*boolInt(len(data) == 0))...)
		}
		usage := wgpu.BufferUsageStorage | wgpu.BufferUsageCopySrc | wgpu.BufferUsageCopyDst
		if b.Uniform {
			usage = wgpu.BufferUsageUniform | wgpu.BufferUsageCopySrc | wgpu.BufferUsageCopyDst
		}
		buf, err := dev.TryCreateBufferInit(&wgpu.BufferInitDescriptor{Label: fmt.Sprintf("binding %d.%d", b.Group, b.Binding), Contents: data, Usage: usage})
		if err != nil {
			return nil, fmt.Errorf("buffer %d.%d: %w", b.Group, b.Binding, err)
		}
		j.release = append(j.release, buf.Release)
		j.bufs[i] = buf
		entries[b.Group] = append(entries[b.Group], wgpu.BindGroupEntry{Binding: uint32(b.Binding), Buffer: buf, Size: uint64(len(data))})
	}
	bgs := map[int]*wgpu.BindGroup{}
	for g, es := range entries {
		layout, free := pipe.layoutOf(g)
		bg, err := dev.TryCreateBindGroup(&wgpu.BindGroupDescriptor{Layout: layout, Entries: es})
		free()
		if err != nil {
			return nil, fmt.Errorf("bind group %d: %w", g, err)
		}
		j.release = append(j.release, bg.Release)
		bgs[g] = bg
	}
	return bgs, nil
}

func (j *work) encoder() (*wgpu.CommandEncoder, error) {
	enc, err := j.d.dev.TryCreateCommandEncoder(nil)
	if err != nil {
		return nil, fmt.Errorf("command encoder: %w", err)
	}
	j.release = append(j.release, enc.Release)
	return enc, nil
}

// stagingBuffer creates a MapRead buffer of size bytes that submit maps.
func (j *work) stagingBuffer(size uint64) (*wgpu.Buffer, error) {
	s, err := j.d.dev.TryCreateBuffer(&wgpu.BufferDescriptor{Label: "read back", Usage: wgpu.BufferUsageMapRead | wgpu.BufferUsageCopyDst, Size: size})
	if err != nil {
		return nil, fmt.Errorf("staging buffer: %w", err)
	}
	j.release = append(j.release, s.Release)
	j.staging = append(j.staging, s)
	return s, nil
}

// copyBuffersBack records the copies of the ReadBack bindings into staging
// buffers, in binding order (bufferResults reads them in the same order).
func (j *work) copyBuffersBack(enc *wgpu.CommandEncoder, bindings []Binding) error {
	for i, b := range bindings {
		if !b.ReadBack {
			continue
		}
		size := j.bufs[i].GetSize()
		s, err := j.stagingBuffer(size)
		if err != nil {
			return err
		}
		if err := enc.TryCopyBufferToBuffer(j.bufs[i], 0, s, 0, size); err != nil {
			return fmt.Errorf("copy back %d.%d: %w", b.Group, b.Binding, err)
		}
	}
	return nil
}

// submit finishes and submits the commands, waits for them and maps every
// staging buffer, keeping copies of their contents in j.mapped.
func (j *work) submit(enc *wgpu.CommandEncoder) error {
	dev := j.d.dev
	cmd, err := enc.TryFinish(nil)
	if err != nil {
		return fmt.Errorf("finish: %w", err)
	}
	j.release = append(j.release, cmd.Release)
	queue := dev.GetQueue()
	queue.Submit(cmd)
	queue.Release()

	status := make([]wgpu.MapAsyncStatus, len(j.staging))
	for i, s := range j.staging {
		if err := s.TryMapAsync(wgpu.MapModeRead, 0, s.GetSize(), func(st wgpu.MapAsyncStatus) { status[i] = st }); err != nil {
			return fmt.Errorf("map: %w", err)
		}
	}
	dev.Poll(true, nil)
	if err := j.d.usable(); err != nil {
		return err
	}
	j.mapped = make([][]byte, len(j.staging))
	for i, s := range j.staging {
		if status[i] != wgpu.MapAsyncStatusSuccess {
			return fmt.Errorf("map read-back buffer %d: status %v", i, status[i])
		}
		j.mapped[i] = append([]byte(nil), s.GetMappedRange(0, uint(s.GetSize()))...)
		if err := s.TryUnmap(); err != nil {
			return fmt.Errorf("unmap: %w", err)
		}
	}
	return nil
}

// bufferResults returns the read-back contents indexed like bindings.
func (j *work) bufferResults(bindings []Binding) [][]byte {
	out := make([][]byte, len(bindings))
	k := 0
	for i, b := range bindings {
		if b.ReadBack {
			out[i] = j.mapped[k]
			k++
		}
	}
	return out
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
