// Package webgpu is waverig's wgpu-native leg: it lists the adapters of every
// backend (Adapters, with measured subgroup sizes), opens one with subgroup
// support (wgpu's NativeFeatureSubgroup), validates WGSL by building a shader
// module and a pipeline for one entry point, and runs compute dispatches
// (RunCompute) and draws (RunDraw) with their buffers read back, sharing one
// bounded cache of shader modules and pipelines.
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
	"sync/atomic"

	"github.com/oliverbestmann/webgpu/wgpu"
)

// ErrNoAdapter means wgpu-native found no usable adapter (or none with
// subgroup support); tests skip on it locally and fail under CI.
var ErrNoAdapter = errors.New("webgpu: no adapter with native-feature-subgroup")

// Device is one opened wgpu-native device with NativeFeatureSubgroup enabled.
// It is safe for concurrent use: calls are serialized (wgpu-native's error
// scopes are per device, so two validations must not interleave).
type Device struct {
	mu       sync.Mutex
	instance *wgpu.Instance // nil when the device was opened on a borrowed adapter (Adapters' probe)
	adapter  *wgpu.Adapter
	dev      *wgpu.Device
	// Info describes the adapter ("llvmpipe (LLVM …)" on lavapipe).
	Info wgpu.AdapterInfo
	// Adapter is the adapter as Adapters lists it (WaveSizes not measured).
	Adapter Adapter
	// Features lists the device's enabled features.
	Features []wgpu.FeatureName

	lost    atomic.Pointer[string] // the device-lost message, once wgpu reports one
	modules *lru[*wgpu.ShaderModule]
	pipes   *lru[*pipeline]
	created int // pipelines created by RunCompute and RunDraw
}

// Open opens a Vulkan adapter that offers native-feature-subgroup (the rig
// wants Vulkan — lavapipe or a real driver — not GL): of those, the first with
// shader-f16, else the first, so that a machine with SwiftShader (no f16)
// beside lavapipe still opens the adapter that can run every WGSL the compiler
// emits. Creation takes about a second on lavapipe: prefer Shared.
func Open() (*Device, error) {
	var seen []string
	var desc Adapter
	pick := func(wantF16 bool) (*wgpu.Instance, *wgpu.Adapter) {
		seen = seen[:0]
		return walkAdapters(func(d Adapter, _ *wgpu.Instance, _ *wgpu.Adapter) bool {
			if d.Backend != "vulkan" || !d.Subgroup {
				seen = append(seen, d.Name+" ("+d.Backend+")")
				return false
			}
			if wantF16 && !d.ShaderF16 {
				return false
			}
			desc = d
			return true
		})
	}
	// One walk where an adapter has both (lavapipe, GPUs); a second only on a
	// machine whose subgroup adapters all lack f16.
	inst, adapter := pick(true)
	if adapter == nil {
		inst, adapter = pick(false)
	}
	if adapter == nil {
		if len(seen) > 0 {
			return nil, fmt.Errorf("%w (adapters without it or not on Vulkan: %s)", ErrNoAdapter, strings.Join(seen, ", "))
		}
		return nil, fmt.Errorf("%w (no adapter at all: is a Vulkan loader and driver installed?)", ErrNoAdapter)
	}
	return openDevice(inst, adapter, desc)
}

// openDevice requests a device on adapter with native-feature-subgroup plus
// immediates (WGSL var<immediate>), shader-f16, subgroups in vertex shaders and
// vertex-writable storage where offered, at the adapter's limits. The Device
// owns inst (nil: the caller keeps the instance).
func openDevice(inst *wgpu.Instance, adapter *wgpu.Adapter, desc Adapter) (*Device, error) {
	features := []wgpu.FeatureName{wgpu.NativeFeatureSubgroup}
	for _, f := range []wgpu.FeatureName{wgpu.NativeFeatureImmediates, wgpu.FeatureNameShaderF16, wgpu.NativeFeatureSubgroupVertex, wgpu.NativeFeatureVertexWritableStorage} {
		if adapter.HasFeature(f) {
			features = append(features, f)
		}
	}
	d := &Device{instance: inst, adapter: adapter, Info: adapter.GetInfo(), Adapter: desc, Features: features}
	limits := adapter.GetLimits()
	dev, err := adapter.RequestDevice(&wgpu.DeviceDescriptor{
		Label:            "waverig",
		RequiredFeatures: features,
		RequiredLimits:   &limits,
		DeviceLostCallback: func(reason wgpu.DeviceLostReason, message string) {
			msg := fmt.Sprintf("webgpu: device lost (%v): %s", reason, message)
			d.lost.Store(&msg)
		},
	})
	if err != nil {
		if inst != nil {
			adapter.Release()
			inst.Release()
		}
		return nil, fmt.Errorf("webgpu: request device on %s (%s): %w", desc.Name, desc.Backend, err)
	}
	d.dev = dev
	d.modules = newLRU(cacheSize, func(m *wgpu.ShaderModule) { m.Release() })
	d.pipes = newLRU(cacheSize, (*pipeline).release)
	return d, nil
}

// usable reports why the device cannot take work: released or lost. Callers hold d.mu.
func (d *Device) usable() error {
	if d.dev == nil {
		return errors.New("webgpu: device released")
	}
	if msg := d.lost.Load(); msg != nil {
		return errors.New(*msg)
	}
	return nil
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
		d.pipes.clear()
		d.modules.clear()
		d.dev.Release()
		if d.instance != nil {
			d.adapter.Release()
			d.instance.Release()
		}
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
	if err := d.usable(); err != nil {
		return err
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
