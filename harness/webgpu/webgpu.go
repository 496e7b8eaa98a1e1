// Package webgpu is waverig's minimal wgpu-native wrapper: it opens one device
// with subgroup support (wgpu's NativeFeatureSubgroup) and validates WGSL by
// building a shader module and a pipeline for one entry point; the same Device
// will carry dispatches later.
//
// wgpu-native reports validation errors through error scopes; the binding's
// Try* calls turn those into Go errors (the plain calls panic), so every call
// here goes through Try* and a validation problem is an ordinary error value.
package webgpu

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/oliverbestmann/webgpu/wgpu"
)

// ErrNoAdapter means wgpu-native found no usable adapter (or none with
// subgroup support); tests skip on it locally and fail under CI.
var ErrNoAdapter = errors.New("webgpu: no Vulkan adapter with native-feature-subgroup")

// backendVulkan is WGPUInstanceBackend_Vulkan (1 << 0); the binding names only
// InstanceBackendAll, and the rig wants Vulkan (lavapipe or a real driver), not GL.
const backendVulkan wgpu.InstanceBackend = 1

// Device is one opened wgpu-native device with NativeFeatureSubgroup enabled.
// It is safe for concurrent use: calls are serialized (wgpu-native's error
// scopes are per device, so two validations must not interleave).
type Device struct {
	mu       sync.Mutex
	instance *wgpu.Instance
	adapter  *wgpu.Adapter
	dev      *wgpu.Device
	// Info describes the adapter ("llvmpipe (LLVM …)" on lavapipe).
	Info wgpu.AdapterInfo
	// Features lists the device's enabled features.
	Features []wgpu.FeatureName
}

// Open creates an instance, picks the first Vulkan adapter that offers
// native-feature-subgroup and opens a device requiring it (plus immediates,
// WGSL var<immediate>, where offered). Creation takes about a second on lavapipe:
// prefer Shared.
func Open() (*Device, error) {
	inst := wgpu.CreateInstance(&wgpu.InstanceDescriptor{Backends: backendVulkan})
	var adapter *wgpu.Adapter
	var seen []string
	for _, a := range inst.EnumerateAdapters(&wgpu.InstanceEnumerateAdapterOptons{Backends: backendVulkan}) {
		if a.HasFeature(wgpu.NativeFeatureSubgroup) {
			adapter = a
			break
		}
		seen = append(seen, a.GetInfo().Device)
	}
	if adapter == nil {
		inst.Release()
		if len(seen) > 0 {
			return nil, fmt.Errorf("%w (adapters without it: %s)", ErrNoAdapter, strings.Join(seen, ", "))
		}
		return nil, fmt.Errorf("%w (no Vulkan adapter at all: is a Vulkan loader and driver installed?)", ErrNoAdapter)
	}
	features := []wgpu.FeatureName{wgpu.NativeFeatureSubgroup}
	for _, f := range []wgpu.FeatureName{wgpu.NativeFeatureImmediates, wgpu.FeatureNameShaderF16, wgpu.NativeFeatureSubgroupVertex} {
		if adapter.HasFeature(f) {
			features = append(features, f)
		}
	}
	limits := adapter.GetLimits()
	dev, err := adapter.RequestDevice(&wgpu.DeviceDescriptor{
		Label:            "waverig",
		RequiredFeatures: features,
		RequiredLimits:   &limits,
	})
	if err != nil {
		inst.Release()
		return nil, fmt.Errorf("webgpu: request device: %w", err)
	}
	return &Device{instance: inst, adapter: adapter, dev: dev, Info: adapter.GetInfo(), Features: features}, nil
}

var (
	sharedOnce sync.Once
	shared     *Device
	sharedErr  error
)

// Shared returns a process-wide Device, opened on first use and kept (device
// creation is the slow part of a validation).
func Shared() (*Device, error) {
	sharedOnce.Do(func() { shared, sharedErr = Open() })
	return shared, sharedErr
}

// Raw exposes the wgpu device for callers that build their own pipelines.
func (d *Device) Raw() *wgpu.Device { return d.dev }

// HasFeature reports whether the device was opened with f.
func (d *Device) HasFeature(f wgpu.FeatureName) bool {
	for _, g := range d.Features {
		if g == f {
			return true
		}
	}
	return false
}

// Release frees the device and its instance.
func (d *Device) Release() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.dev != nil {
		d.dev.Release()
		d.adapter.Release()
		d.instance.Release()
		d.dev = nil
	}
}

// ValidateWGSL validates src on the shared device: it creates the shader module
// and a pipeline for entry in stage ("compute"; "pixel" or "fragment"; "vertex").
func ValidateWGSL(src string, stage string, entry string) error {
	d, err := Shared()
	if err != nil {
		return err
	}
	return d.Validate(src, stage, entry)
}

// Validate creates the shader module and a pipeline for one entry point with an
// automatic layout. A pixel entry is paired with a generated vertex shader that
// feeds its @location inputs; a vertex entry gets vertex buffers matching its
// @location inputs. Render pipelines use a depth-only attachment so colour
// outputs never have to match a target format (that is host configuration, not
// shader validity).
func (d *Device) Validate(src string, stage string, entry string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.dev == nil {
		return errors.New("webgpu: device released")
	}
	mod, err := d.dev.TryCreateShaderModule(&wgpu.ShaderModuleDescriptor{Label: entry, WGSLSource: &wgpu.ShaderSourceWGSL{Code: src}})
	if err != nil {
		return fmt.Errorf("shader module: %w", err)
	}
	defer mod.Release()
	switch strings.ToLower(stage) {
	case "compute", "cs":
		p, err := d.dev.TryCreateComputePipeline(&wgpu.ComputePipelineDescriptor{Label: entry,
			Compute: wgpu.ProgrammableStageDescriptor{Module: mod, EntryPoint: entry}})
		if err != nil {
			return fmt.Errorf("compute pipeline: %w", err)
		}
		p.Release()
		return nil
	case "pixel", "fragment", "ps":
		params, err := entryParams(src, entry)
		if err != nil {
			return err
		}
		vsrc := feederVertexShader(params)
		vmod, err := d.dev.TryCreateShaderModule(&wgpu.ShaderModuleDescriptor{Label: "feeder", WGSLSource: &wgpu.ShaderSourceWGSL{Code: vsrc}})
		if err != nil {
			return fmt.Errorf("generated vertex shader (a harness bug): %w\n%s", err, vsrc)
		}
		defer vmod.Release()
		return d.renderPipeline(entry, wgpu.VertexState{Module: vmod, EntryPoint: "main"},
			&wgpu.FragmentState{Module: mod, EntryPoint: entry})
	case "vertex", "vs":
		params, err := entryParams(src, entry)
		if err != nil {
			return err
		}
		var attrs []wgpu.VertexAttribute
		var offset uint64
		for _, p := range params {
			if p.location < 0 {
				continue
			}
			f, size, ok := vertexFormat(p.typ)
			if !ok {
				return fmt.Errorf("webgpu: vertex input %s: no vertex format for %s", p.name, p.typ)
			}
			attrs = append(attrs, wgpu.VertexAttribute{Format: f, Offset: offset, ShaderLocation: uint32(p.location)})
			offset += size
		}
		vs := wgpu.VertexState{Module: mod, EntryPoint: entry}
		if len(attrs) > 0 {
			vs.Buffers = []wgpu.VertexBufferLayout{{ArrayStride: (offset + 3) &^ 3, StepMode: wgpu.VertexStepModeVertex, Attributes: attrs}}
		}
		return d.renderPipeline(entry, vs, nil)
	}
	return fmt.Errorf("webgpu: unknown stage %q (want compute, pixel or vertex)", stage)
}

func (d *Device) renderPipeline(label string, vs wgpu.VertexState, fs *wgpu.FragmentState) error {
	p, err := d.dev.TryCreateRenderPipeline(&wgpu.RenderPipelineDescriptor{
		Label:     label,
		Vertex:    vs,
		Primitive: wgpu.PrimitiveState{Topology: wgpu.PrimitiveTopologyTriangleList, FrontFace: wgpu.FrontFaceCCW, CullMode: wgpu.CullModeNone},
		DepthStencil: &wgpu.DepthStencilState{Format: wgpu.TextureFormatDepth32Float, DepthWriteEnabled: wgpu.OptionalBoolTrue,
			DepthCompare: wgpu.CompareFunctionAlways,
			StencilFront: wgpu.StencilFaceState{Compare: wgpu.CompareFunctionAlways},
			StencilBack:  wgpu.StencilFaceState{Compare: wgpu.CompareFunctionAlways}},
		Multisample: wgpu.MultisampleState{Count: 1, Mask: 0xffffffff},
		Fragment:    fs,
	})
	if err != nil {
		return fmt.Errorf("render pipeline: %w", err)
	}
	p.Release()
	return nil
}
