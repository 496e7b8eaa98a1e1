package webgpu

import (
	"errors"
	"fmt"

	"github.com/oliverbestmann/webgpu/wgpu"
)

// Binding is one buffer of a compute dispatch.
type Binding struct {
	Group, Binding int
	// Data is the initial contents; its length (rounded up to 4) is the size.
	Data []byte
	// Uniform binds the buffer as var<uniform> instead of var<storage>.
	Uniform bool
	// ReadBack copies the contents back after the dispatch.
	ReadBack bool
}

// RunCompute builds the entry point of src, binds the buffers (automatic
// layout: list exactly the bindings the shader uses), dispatches groups
// workgroups and returns the contents of every ReadBack buffer, indexed like
// bindings (nil for the others).
func (d *Device) RunCompute(src, entry string, groups [3]uint32, bindings []Binding) ([][]byte, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.dev == nil {
		return nil, errors.New("webgpu: device released")
	}
	var release []func()
	defer func() {
		for i := len(release) - 1; i >= 0; i-- {
			release[i]()
		}
	}()
	mod, err := d.dev.TryCreateShaderModule(&wgpu.ShaderModuleDescriptor{Label: entry, WGSLSource: &wgpu.ShaderSourceWGSL{Code: src}})
	if err != nil {
		return nil, fmt.Errorf("shader module: %w", err)
	}
	release = append(release, mod.Release)
	pipe, err := d.dev.TryCreateComputePipeline(&wgpu.ComputePipelineDescriptor{Label: entry,
		Compute: wgpu.ProgrammableStageDescriptor{Module: mod, EntryPoint: entry}})
	if err != nil {
		return nil, fmt.Errorf("compute pipeline: %w", err)
	}
	release = append(release, pipe.Release)

	bufs := make([]*wgpu.Buffer, len(bindings))
	entries := map[int][]wgpu.BindGroupEntry{}
	for i, b := range bindings {
		data := b.Data
		if pad := (4 - len(data)%4) % 4; pad != 0 || len(data) == 0 {
			data = append(append([]byte(nil), data...), make([]byte, pad+4*boolInt(len(data) == 0))...)
		}
		usage := wgpu.BufferUsageStorage | wgpu.BufferUsageCopySrc | wgpu.BufferUsageCopyDst
		if b.Uniform {
			usage = wgpu.BufferUsageUniform | wgpu.BufferUsageCopyDst
		}
		buf, err := d.dev.TryCreateBufferInit(&wgpu.BufferInitDescriptor{Label: fmt.Sprintf("binding %d.%d", b.Group, b.Binding), Contents: data, Usage: usage})
		if err != nil {
			return nil, fmt.Errorf("buffer %d.%d: %w", b.Group, b.Binding, err)
		}
		release = append(release, buf.Release)
		bufs[i] = buf
		entries[b.Group] = append(entries[b.Group], wgpu.BindGroupEntry{Binding: uint32(b.Binding), Buffer: buf, Size: uint64(len(data))})
	}
	enc, err := d.dev.TryCreateCommandEncoder(nil)
	if err != nil {
		return nil, fmt.Errorf("command encoder: %w", err)
	}
	release = append(release, enc.Release)
	pass := enc.BeginComputePass(nil)
	pass.SetPipeline(pipe)
	for g := 0; g < 4; g++ {
		es, ok := entries[g]
		if !ok {
			continue
		}
		layout := pipe.GetBindGroupLayout(uint32(g))
		bg, err := d.dev.TryCreateBindGroup(&wgpu.BindGroupDescriptor{Layout: layout, Entries: es})
		layout.Release()
		if err != nil {
			pass.Release()
			return nil, fmt.Errorf("bind group %d: %w", g, err)
		}
		release = append(release, bg.Release)
		pass.SetBindGroup(uint32(g), bg, nil)
	}
	pass.DispatchWorkgroups(groups[0], groups[1], groups[2])
	if err := pass.TryEnd(); err != nil {
		pass.Release()
		return nil, fmt.Errorf("compute pass: %w", err)
	}
	pass.Release()

	staging := make([]*wgpu.Buffer, len(bindings))
	for i, b := range bindings {
		if !b.ReadBack {
			continue
		}
		size := bufs[i].GetSize()
		s, err := d.dev.TryCreateBuffer(&wgpu.BufferDescriptor{Usage: wgpu.BufferUsageMapRead | wgpu.BufferUsageCopyDst, Size: size})
		if err != nil {
			return nil, fmt.Errorf("staging buffer: %w", err)
		}
		release = append(release, s.Release)
		staging[i] = s
		if err := enc.TryCopyBufferToBuffer(bufs[i], 0, s, 0, size); err != nil {
			return nil, fmt.Errorf("copy back: %w", err)
		}
	}
	cmd, err := enc.TryFinish(nil)
	if err != nil {
		return nil, fmt.Errorf("finish: %w", err)
	}
	release = append(release, cmd.Release)
	queue := d.dev.GetQueue()
	queue.Submit(cmd)
	queue.Release()

	out := make([][]byte, len(bindings))
	for i, s := range staging {
		if s == nil {
			continue
		}
		size := s.GetSize()
		status := wgpu.MapAsyncStatus(0)
		if err := s.TryMapAsync(wgpu.MapModeRead, 0, size, func(st wgpu.MapAsyncStatus) { status = st }); err != nil {
			return nil, fmt.Errorf("map: %w", err)
		}
		d.dev.Poll(true, nil)
		if status != wgpu.MapAsyncStatusSuccess {
			return nil, fmt.Errorf("map binding %d.%d: status %v", bindings[i].Group, bindings[i].Binding, status)
		}
		out[i] = append([]byte(nil), s.GetMappedRange(0, uint(size))...)
		if err := s.TryUnmap(); err != nil {
			return nil, fmt.Errorf("unmap: %w", err)
		}
	}
	return out, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
