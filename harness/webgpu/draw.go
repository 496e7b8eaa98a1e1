package webgpu

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/oliverbestmann/webgpu/wgpu"
)

// ColorFormat is the colour target of a draw.
type ColorFormat int

const (
	NoColor ColorFormat = iota
	RGBA32Uint
	RGBA32Float
)

func (c ColorFormat) texture() (wgpu.TextureFormat, bool) {
	switch c {
	case RGBA32Uint:
		return wgpu.TextureFormatRGBA32Uint, true
	case RGBA32Float:
		return wgpu.TextureFormatRGBA32Float, true
	}
	return 0, false
}

// DrawJob is one render pass: Draws draws of a VertexCount-vertex triangle
// list with no vertex buffers, into a Width x Height framebuffer.
type DrawJob struct {
	VertexWGSL, VertexEntry string
	// FragmentWGSL and FragmentEntry both "": no fragment stage (a vertex-only
	// job, whose records come from vertex-stage storage writes).
	FragmentWGSL, FragmentEntry string
	Width, Height               uint32
	Color                       ColorFormat
	VertexCount                 uint32
	// Draws is the number of draws in the pass; draw i is
	// Draw(VertexCount, 1, 0, firstInstance=i). 0 means 1.
	Draws uint32
	// Bindings are visible to both stages through an explicit layout: uniform
	// and read-only storage to vertex|fragment; read_write storage to the
	// fragment stage, and to the vertex stage too where the vertex module
	// declares it read_write (or there is no fragment stage), which needs
	// native-feature-vertex-writable-storage. The access of a storage binding
	// is read from the modules' declarations (@group(G) @binding(B)
	// var<storage, read_write>); one neither module declares is read_write.
	Bindings []Binding
	// Sampling holds the textures and samplers, visible to both stages.
	Sampling Sampling
}

// DrawResult is what a draw reads back.
type DrawResult struct {
	// Buffers holds the ReadBack bindings' contents, indexed like Bindings.
	Buffers [][]byte
	// Color is the colour target, Width*Height*16 bytes, rows tightly packed
	// (nil with NoColor).
	Color []byte
}

// ErrNoVertexWritableStorage means a job needs the vertex stage to write a
// storage buffer and the device lacks native-feature-vertex-writable-storage.
var ErrNoVertexWritableStorage = errors.New("webgpu: vertex-stage storage writes need native-feature-vertex-writable-storage, which this device lacks")

// bufferDecl matches a buffer declaration as waverig's WGSL back end writes it.
var bufferDecl = regexp.MustCompile(`@group\(\s*(\d+)\s*\)\s*@binding\(\s*(\d+)\s*\)\s*var\s*<\s*(storage|uniform)\s*(?:,\s*(read_write|read)\s*)?>`)

// declaredAccess maps group.binding to "uniform", "read" or "read_write" as src declares it.
func declaredAccess(src string) map[[2]int]string {
	out := map[[2]int]string{}
	for _, m := range bufferDecl.FindAllStringSubmatch(src, -1) {
		g, _ := strconv.Atoi(m[1])
		b, _ := strconv.Atoi(m[2])
		access := m[3]
		if access == "storage" {
			access = "read"
			if m[4] == "read_write" {
				access = "read_write"
			}
		}
		out[[2]int{g, b}] = access
	}
	return out
}

// drawLayout builds the bind group layout entries of a job, by group, and a
// signature of them for the pipeline cache key.
func drawLayout(job DrawJob, vertexWritable bool) (map[int][]wgpu.BindGroupLayoutEntry, string, error) {
	vs := declaredAccess(job.VertexWGSL)
	fs := declaredAccess(job.FragmentWGSL)
	hasFragment := job.FragmentEntry != ""
	groups := map[int][]wgpu.BindGroupLayoutEntry{}
	var sig []string
	for _, b := range job.Bindings {
		key := [2]int{b.Group, b.Binding}
		access, ok := vs[key]
		if a, okF := fs[key]; okF && (!ok || a == "read_write") {
			access, ok = a, true
		}
		switch {
		case b.Uniform:
			access = "uniform"
		case !ok || access == "uniform":
			access = "read_write"
		}
		e := wgpu.BindGroupLayoutEntry{Binding: uint32(b.Binding), Visibility: wgpu.ShaderStageVertex | wgpu.ShaderStageFragment}
		switch access {
		case "uniform":
			e.Buffer.Type = wgpu.BufferBindingTypeUniform
		case "read":
			e.Buffer.Type = wgpu.BufferBindingTypeReadOnlyStorage
		default:
			e.Buffer.Type = wgpu.BufferBindingTypeStorage
			vertexWrites := !hasFragment || vs[key] == "read_write"
			switch {
			case !hasFragment && !vertexWritable:
				return nil, "", fmt.Errorf("%w (binding %d.%d of a vertex-only job)", ErrNoVertexWritableStorage, b.Group, b.Binding)
			case vertexWrites && vertexWritable:
				e.Visibility = wgpu.ShaderStageVertex | wgpu.ShaderStageFragment
			case !hasFragment:
				e.Visibility = wgpu.ShaderStageVertex
			default:
				// Without the feature a vertex module that declares the
				// buffer read_write may still leave it unused; if its entry
				// point does use it, the pipeline's validation says so.
				e.Visibility = wgpu.ShaderStageFragment
			}
		}
		groups[b.Group] = append(groups[b.Group], e)
		sig = append(sig, fmt.Sprintf("%d.%d:%d:%d", b.Group, b.Binding, e.Buffer.Type, e.Visibility))
	}
	sgroups, ssig := samplingLayout(job.Sampling)
	for g, es := range sgroups {
		groups[g] = append(groups[g], es...)
	}
	sig = append(sig, ssig...)
	sort.Strings(sig)
	return groups, strings.Join(sig, ","), nil
}

// drawKey returns the bind group layout entries of a job and its pipeline
// cache key: both modules' source hashes and entries, the colour format and
// the layout.
func (d *Device) drawKey(job DrawJob) (map[int][]wgpu.BindGroupLayoutEntry, string, error) {
	groups, sig, err := drawLayout(job, d.HasFeature(wgpu.NativeFeatureVertexWritableStorage))
	if err != nil {
		return nil, "", err
	}
	fkey := ""
	if job.FragmentEntry != "" {
		fkey = sourceKey(job.FragmentWGSL)
	}
	return groups, fmt.Sprintf("render|%s|%s|%s|%s|%d|%s", sourceKey(job.VertexWGSL), job.VertexEntry, fkey, job.FragmentEntry, job.Color, sig), nil
}

// drawPipeline returns the pipeline of a job, from the cache or built now.
func (d *Device) drawPipeline(job DrawJob) (*pipeline, error) {
	groups, key, err := d.drawKey(job)
	if err != nil {
		return nil, err
	}
	vmod, _, err := d.module(job.VertexWGSL, job.VertexEntry)
	if err != nil {
		return nil, fmt.Errorf("vertex %w", err)
	}
	var fmod *wgpu.ShaderModule
	if job.FragmentEntry != "" {
		if fmod, _, err = d.module(job.FragmentWGSL, job.FragmentEntry); err != nil {
			return nil, fmt.Errorf("fragment %w", err)
		}
	}
	if p, ok := d.pipes.get(key); ok {
		return p, nil
	}
	p, err := d.buildRender(job, groups, vmod, fmod)
	if err != nil {
		return nil, err
	}
	d.created++
	d.pipes.put(key, p)
	return p, nil
}

// buildRender creates the bind group layouts, pipeline layout and render
// pipeline of job (fmod nil without a fragment stage). It touches no cache:
// Prebuild runs it on several goroutines.
func (d *Device) buildRender(job DrawJob, groups map[int][]wgpu.BindGroupLayoutEntry, vmod, fmod *wgpu.ShaderModule) (*pipeline, error) {
	hasFragment := job.FragmentEntry != ""
	p := &pipeline{groups: map[int]*wgpu.BindGroupLayout{}}
	maxGroup := -1
	for g := range groups {
		maxGroup = max(maxGroup, g)
	}
	layouts := make([]*wgpu.BindGroupLayout, maxGroup+1)
	var err error
	for g := range layouts {
		l, err := d.dev.TryCreateBindGroupLayout(&wgpu.BindGroupLayoutDescriptor{Label: fmt.Sprintf("group %d", g), Entries: groups[g]})
		if err != nil {
			p.release()
			return nil, fmt.Errorf("bind group layout %d: %w", g, err)
		}
		p.groups[g] = l
		layouts[g] = l
	}
	if p.layout, err = d.dev.TryCreatePipelineLayout(&wgpu.PipelineLayoutDescriptor{BindGroupLayouts: layouts}); err != nil {
		p.release()
		return nil, fmt.Errorf("pipeline layout: %w", err)
	}
	desc := &wgpu.RenderPipelineDescriptor{
		Label:       job.VertexEntry + "/" + job.FragmentEntry,
		Layout:      p.layout,
		Vertex:      wgpu.VertexState{Module: vmod, EntryPoint: job.VertexEntry},
		Primitive:   wgpu.PrimitiveState{Topology: wgpu.PrimitiveTopologyTriangleList, FrontFace: wgpu.FrontFaceCCW, CullMode: wgpu.CullModeNone},
		Multisample: wgpu.MultisampleState{Count: 1, Mask: 0xffffffff},
	}
	if hasFragment {
		desc.Fragment = &wgpu.FragmentState{Module: fmod, EntryPoint: job.FragmentEntry}
	}
	if f, ok := job.Color.texture(); ok {
		desc.Fragment.Targets = []wgpu.ColorTargetState{{Format: f, WriteMask: wgpu.ColorWriteMaskAll}}
	} else {
		// A render pass needs an attachment: wgpu 27 refuses one with none
		// ("No color attachments or depth attachments were provided, at
		// least one attachment of any kind must be provided", at finish), so
		// a job without colour draws into a Width x Height depth attachment
		// that never rejects or keeps anything.
		desc.DepthStencil = &wgpu.DepthStencilState{Format: wgpu.TextureFormatDepth32Float, DepthWriteEnabled: wgpu.OptionalBoolFalse,
			DepthCompare: wgpu.CompareFunctionAlways,
			StencilFront: wgpu.StencilFaceState{Compare: wgpu.CompareFunctionAlways},
			StencilBack:  wgpu.StencilFaceState{Compare: wgpu.CompareFunctionAlways}}
	}
	if p.render, err = d.dev.TryCreateRenderPipeline(desc); err != nil {
		p.release()
		return nil, fmt.Errorf("render pipeline: %w", err)
	}
	return p, nil
}

// checkDraw refuses a job RunDraw cannot run, before the device sees it.
func checkDraw(job DrawJob) error {
	switch {
	case job.Width == 0 || job.Height == 0:
		return fmt.Errorf("webgpu: draw of %dx%d pixels", job.Width, job.Height)
	case job.VertexWGSL == "" || job.VertexEntry == "":
		return errors.New("webgpu: draw without a vertex stage")
	case (job.FragmentWGSL == "") != (job.FragmentEntry == ""):
		return errors.New("webgpu: draw with half a fragment stage (source and entry go together)")
	case job.Color != NoColor && job.FragmentEntry == "":
		return errors.New("webgpu: a colour target needs a fragment stage")
	case job.Color < NoColor || job.Color > RGBA32Float:
		return fmt.Errorf("webgpu: unknown colour format %d", job.Color)
	}
	return nil
}

// RunDraw runs one render pass of job, the colour target cleared to zero, and
// reads back the ReadBack buffers and the colour target.
func (d *Device) RunDraw(job DrawJob) (*DrawResult, error) {
	if err := checkDraw(job); err != nil {
		return nil, err
	}
	draws := max(job.Draws, 1)
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.usable(); err != nil {
		return nil, err
	}
	j := &work{d: d}
	defer j.done()
	pipe, err := d.drawPipeline(job)
	if err != nil {
		return nil, err
	}
	bgs, err := j.buffers(job.Bindings, job.Sampling, pipe)
	if err != nil {
		return nil, err
	}
	format, color := job.Color.texture()
	if !color {
		format = wgpu.TextureFormatDepth32Float
	}
	tex, err := d.dev.TryCreateTexture(&wgpu.TextureDescriptor{
		Label: "target", Usage: wgpu.TextureUsageRenderAttachment | wgpu.TextureUsageCopySrc, Dimension: wgpu.TextureDimension2D,
		Size: wgpu.Extent3D{Width: job.Width, Height: job.Height, DepthOrArrayLayers: 1}, Format: format, MipLevelCount: 1, SampleCount: 1,
	})
	if err != nil {
		return nil, fmt.Errorf("target texture: %w", err)
	}
	j.release = append(j.release, tex.Release)
	view, err := tex.TryCreateView(nil)
	if err != nil {
		return nil, fmt.Errorf("target view: %w", err)
	}
	j.release = append(j.release, view.Release)
	pass := &wgpu.RenderPassDescriptor{Label: "draw"}
	if color {
		pass.ColorAttachments = []wgpu.RenderPassColorAttachment{{View: view, LoadOp: wgpu.LoadOpClear, StoreOp: wgpu.StoreOpStore}}
	} else {
		pass.DepthStencilAttachment = &wgpu.RenderPassDepthStencilAttachment{View: view, DepthLoadOp: wgpu.LoadOpClear, DepthStoreOp: wgpu.StoreOpDiscard, DepthClearValue: 1}
	}
	enc, err := j.encoder()
	if err != nil {
		return nil, err
	}
	rp, err := enc.TryBeginRenderPass(pass)
	if err != nil {
		return nil, fmt.Errorf("render pass: %w", err)
	}
	rp.SetPipeline(pipe.render)
	for g, bg := range bgs {
		rp.SetBindGroup(uint32(g), bg, nil)
	}
	for i := uint32(0); i < draws; i++ {
		rp.Draw(job.VertexCount, 1, 0, i)
	}
	err = rp.TryEnd()
	rp.Release()
	if err != nil {
		return nil, fmt.Errorf("render pass: %w", err)
	}
	if err := j.copyBuffersBack(enc, job.Bindings); err != nil {
		return nil, err
	}
	// copyTextureToBuffer wants rows a multiple of 256 bytes apart: copy
	// padded rows, then pack them.
	const texel = 16
	row := job.Width * texel
	stride := (row + 255) &^ 255
	if color {
		s, err := j.stagingBuffer(uint64(stride) * uint64(job.Height))
		if err != nil {
			return nil, err
		}
		if err := enc.TryCopyTextureToBuffer(&wgpu.TexelCopyTextureInfo{Texture: tex, Aspect: wgpu.TextureAspectAll},
			&wgpu.TexelCopyBufferInfo{Buffer: s, Layout: wgpu.TexelCopyBufferLayout{BytesPerRow: stride, RowsPerImage: job.Height}},
			&wgpu.Extent3D{Width: job.Width, Height: job.Height, DepthOrArrayLayers: 1}); err != nil {
			return nil, fmt.Errorf("copy colour target: %w", err)
		}
	}
	if err := j.submit(enc); err != nil {
		return nil, err
	}
	res := &DrawResult{Buffers: j.bufferResults(job.Bindings)}
	if color {
		padded := j.mapped[len(j.mapped)-1]
		res.Color = make([]byte, 0, int(row)*int(job.Height))
		for y := uint32(0); y < job.Height; y++ {
			res.Color = append(res.Color, padded[y*stride:y*stride+row]...)
		}
	}
	return res, nil
}
