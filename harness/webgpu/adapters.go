package webgpu

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/oliverbestmann/webgpu/wgpu"

	"waverig/devices/icd"
)

// Adapter describes one wgpu-native adapter. Index is its position in the
// order Adapters lists them (backend by backend: Vulkan, Metal, DX12, GL), the
// number OpenAdapter takes.
type Adapter struct {
	Index       int    `json:"index"`
	Name        string `json:"name"`    // AdapterInfo.Device, e.g. "llvmpipe (LLVM 15.0.6, 256 bits)"
	Backend     string `json:"backend"` // "vulkan", "metal", "dx12", "gl"
	Vendor      string `json:"vendor,omitempty"`
	VendorID    uint32 `json:"vendorID"`
	DeviceID    uint32 `json:"deviceID"`
	Driver      string `json:"driver,omitempty"`      // the driver description wgpu reports
	AdapterType string `json:"adapterType,omitempty"` // cpu, discrete-gpu, …

	Subgroup       bool `json:"subgroup"`       // NativeFeatureSubgroup
	SubgroupVertex bool `json:"subgroupVertex"` // NativeFeatureSubgroupVertex
	ShaderF16      bool `json:"shaderF16"`
	// VertexWritableStorage is NativeFeatureVertexWritableStorage: read_write
	// storage buffers visible to the vertex stage (vertex-only draws need it).
	VertexWritableStorage bool `json:"vertexWritableStorage"`

	// Measured with a probe kernel (the binding's adapter info drops subgroup
	// sizes): every distinct subgroup_size observed over a few workgroup shapes.
	WaveSizes  []uint32 `json:"waveSizes,omitempty"`
	ProbeError string   `json:"probeError,omitempty"`
}

// backends is the order adapters are listed in. Each backend is enumerated by
// its own instance, so opening a Vulkan adapter never initializes GL (whose
// EGL start-up is slow and noisy on headless Linux). Backends wgpu-native was
// not built with on this OS simply yield no adapter.
var backends = []struct {
	bit  wgpu.InstanceBackend
	name string
}{
	{1 << 0, "vulkan"}, // WGPUInstanceBackend_Vulkan
	{1 << 2, "metal"},  // WGPUInstanceBackend_Metal
	{1 << 3, "dx12"},   // WGPUInstanceBackend_DX12
	{1 << 1, "gl"},     // WGPUInstanceBackend_GL
}

func backendName(t wgpu.BackendType) string {
	switch t {
	case wgpu.BackendTypeVulkan:
		return "vulkan"
	case wgpu.BackendTypeMetal:
		return "metal"
	case wgpu.BackendTypeD3D12:
		return "dx12"
	case wgpu.BackendTypeD3D11:
		return "dx11"
	case wgpu.BackendTypeOpenGL, wgpu.BackendTypeOpenGLES:
		return "gl"
	}
	return t.String()
}

func describe(index int, a *wgpu.Adapter) Adapter {
	info := a.GetInfo()
	return Adapter{
		Index:                 index,
		Name:                  info.Device,
		Backend:               backendName(info.BackendType),
		Vendor:                info.Vendor,
		VendorID:              info.VendorId,
		DeviceID:              info.DeviceId,
		Driver:                info.Description,
		AdapterType:           info.AdapterType.String(),
		Subgroup:              a.HasFeature(wgpu.NativeFeatureSubgroup),
		SubgroupVertex:        a.HasFeature(wgpu.NativeFeatureSubgroupVertex),
		ShaderF16:             a.HasFeature(wgpu.FeatureNameShaderF16),
		VertexWritableStorage: a.HasFeature(wgpu.NativeFeatureVertexWritableStorage),
	}
}

// walkAdapters visits every adapter in Adapter.Index order, stopping early when
// visit returns true; it returns the instance and adapter visit stopped at
// (the caller owns the instance then), or nils. The instances of the other
// backends are released.
func walkAdapters(visit func(desc Adapter, inst *wgpu.Instance, a *wgpu.Adapter) (stop bool)) (*wgpu.Instance, *wgpu.Adapter) {
	ensureRuntimeDir() // runtimedir.go: no libwayland line on stderr
	icd.Configure()    // the same Vulkan drivers as the devices package's instance
	index := 0
	for _, b := range backends {
		inst := wgpu.CreateInstance(&wgpu.InstanceDescriptor{Backends: b.bit})
		for _, a := range inst.EnumerateAdapters(&wgpu.InstanceEnumerateAdapterOptons{Backends: b.bit}) {
			desc := describe(index, a)
			index++
			if visit(desc, inst, a) {
				return inst, a
			}
			a.Release()
		}
		inst.Release()
	}
	return nil, nil
}

// Adapters lists every adapter on every backend wgpu-native offers on this OS.
// With probe, each adapter with subgroup support is opened and its wave sizes
// measured (ProbeWaveSizes); a failure there is recorded in ProbeError, not
// returned. The error is reserved for finding no adapter at all.
func Adapters(probe bool) ([]Adapter, error) {
	var out []Adapter
	walkAdapters(func(desc Adapter, inst *wgpu.Instance, a *wgpu.Adapter) bool {
		if probe {
			if !desc.Subgroup {
				desc.ProbeError = "not probed: the adapter lacks native-feature-subgroup"
			} else if d, err := openDevice(nil, a, desc); err != nil {
				desc.ProbeError = err.Error()
			} else {
				desc.WaveSizes, err = d.ProbeWaveSizes()
				if err != nil {
					desc.ProbeError = err.Error()
				}
				d.Release()
			}
		}
		out = append(out, desc)
		return false
	})
	if len(out) == 0 {
		return nil, fmt.Errorf("%w (no adapter on any backend: is a Vulkan loader and driver installed?)", ErrNoAdapter)
	}
	return out, nil
}

// OpenAdapter opens the adapter Adapters lists at index. It must offer
// native-feature-subgroup.
func OpenAdapter(index int) (*Device, error) {
	var desc Adapter
	count := 0
	inst, a := walkAdapters(func(d Adapter, _ *wgpu.Instance, _ *wgpu.Adapter) bool {
		desc = d
		count++
		return d.Index == index
	})
	if a == nil {
		return nil, fmt.Errorf("%w: no adapter %d (there are %d)", ErrNoAdapter, index, count)
	}
	if !desc.Subgroup {
		a.Release()
		inst.Release()
		return nil, fmt.Errorf("%w: adapter %d (%s, %s) lacks it", ErrNoAdapter, index, desc.Name, desc.Backend)
	}
	return openDevice(inst, a, desc)
}

// VulkanDevice is what FindMatching knows of a Vulkan physical device: its
// name, driver info (VkPhysicalDeviceDriverProperties.driverInfo) and ids.
type VulkanDevice struct {
	Name               string
	DriverInfo         string
	VendorID, DeviceID uint32
}

// OpenMatching opens the adapter that is the same device as a Vulkan physical
// device (see FindMatching), so the rig's cross-API comparison runs on one
// piece of hardware and one driver.
func OpenMatching(v VulkanDevice) (*Device, error) {
	a, err := FindMatching(v)
	if err != nil {
		return nil, err
	}
	return OpenAdapter(a.Index)
}

// FindMatching describes the adapter OpenMatching would open, without opening
// it: an adapter with subgroups that is the same device (SameDevice), on wgpu's
// Vulkan backend with the same driver — wgpu-native reports the Vulkan
// driverInfo as its driver description ("Mesa 25.0.7-2~bpo12+1 (LLVM 15.0.6)";
// "" for SwiftShader, which reports none) — so that of two lavapipes of one
// name and ids, from two Mesa releases, each Vulkan device gets its own. Only
// when no Vulkan-backend adapter has the device's name may another backend's
// (GL's, whose description is the GL version) stand in; where Vulkan-backend
// adapters have the name but other drivers, it refuses rather than run WebGPU
// on another driver. The walk stops at the Vulkan backend's match (it comes
// first), so the GL backend, whose start-up complains on stderr without a
// display, is not started on the common path.
func FindMatching(v VulkanDevice) (Adapter, error) {
	var seen, otherDrivers []string
	var pick *Adapter
	inst, a := walkAdapters(func(d Adapter, _ *wgpu.Instance, _ *wgpu.Adapter) bool {
		seen = append(seen, fmt.Sprintf("%s (%s, driver %q)", d.Name, d.Backend, d.Driver))
		if !d.Subgroup || !d.SameDevice(v.Name, v.VendorID, v.DeviceID) {
			return false
		}
		if d.Backend == "vulkan" {
			if d.Driver != v.DriverInfo {
				otherDrivers = append(otherDrivers, fmt.Sprintf("%q", d.Driver))
				return false
			}
			d := d
			pick = &d
			return true
		}
		if pick == nil && len(otherDrivers) == 0 {
			d := d
			pick = &d
		}
		return false
	})
	if a != nil {
		a.Release()
		inst.Release()
	}
	if pick != nil && pick.Backend != "vulkan" && len(otherDrivers) > 0 {
		pick = nil
	}
	if pick == nil {
		if len(otherDrivers) > 0 {
			return Adapter{}, fmt.Errorf("%w matching %q with driver %q: wgpu's Vulkan adapters of that device run drivers %s, not that one (refused: WebGPU would run on another driver)",
				ErrNoAdapter, v.Name, v.DriverInfo, strings.Join(otherDrivers, ", "))
		}
		return Adapter{}, fmt.Errorf("%w matching %q (%04x:%04x); adapters: %s", ErrNoAdapter, v.Name, v.VendorID, v.DeviceID, strings.Join(seen, ", "))
	}
	return *pick, nil
}

// lavapipeBits is the part of a llvmpipe name that follows LP_NATIVE_VECTOR_WIDTH:
// "llvmpipe (LLVM 15.0.6, 256 bits)" under 256, ", 128 bits)" under 128.
var lavapipeBits = regexp.MustCompile(`,\s*\d+ bits\)$`)

// SameDevice reports whether the adapter is the Vulkan physical device with
// that name and ids. With both vendor and device ids non-zero on both sides the
// ids decide. Otherwise (lavapipe reports vendor 0x10005 and device 0 through
// both Vulkan and wgpu, on both wgpu's Vulkan and GL backends) the names must be
// equal once llvmpipe's ", N bits)" suffix is dropped — the rig's child processes
// run lavapipe at other vector widths than the parent that enumerated Vulkan —
// and non-zero vendor ids must still agree.
func (a Adapter) SameDevice(vulkanName string, vendorID, deviceID uint32) bool {
	if a.VendorID != 0 && vendorID != 0 && a.VendorID != vendorID {
		return false
	}
	if a.VendorID != 0 && a.DeviceID != 0 && vendorID != 0 && deviceID != 0 {
		return a.DeviceID == deviceID
	}
	norm := func(s string) string {
		return strings.ToLower(lavapipeBits.ReplaceAllString(strings.TrimSpace(s), ")"))
	}
	return vulkanName != "" && norm(a.Name) == norm(vulkanName)
}

// probeWGSL records, per invocation, subgroup_size, the popcount of
// subgroupBallot(true), the lane and a 1 saying it ran, for
// workgroups of 64x1, 62x1 (a partial last subgroup) and 8x8.
const probeWGSL = `@group(0) @binding(0) var<storage, read_write> o: array<vec4<u32>>;

fn record(i: u32, lane: u32, n: u32) {
  let b = subgroupBallot(true);
  o[i] = vec4<u32>(n, countOneBits(b.x) + countOneBits(b.y) + countOneBits(b.z) + countOneBits(b.w), lane, 1u);
}

@compute @workgroup_size(64, 1)
fn w64(@builtin(workgroup_id) g: vec3<u32>, @builtin(local_invocation_index) l: u32, @builtin(subgroup_invocation_id) lane: u32, @builtin(subgroup_size) n: u32) {
  record(g.x * 64u + l, lane, n);
}

@compute @workgroup_size(62, 1)
fn w62(@builtin(workgroup_id) g: vec3<u32>, @builtin(local_invocation_index) l: u32, @builtin(subgroup_invocation_id) lane: u32, @builtin(subgroup_size) n: u32) {
  record(g.x * 62u + l, lane, n);
}

// naga refuses subgroup_invocation_id in a multi-dimensional workgroup; the
// exclusive prefix count of active lanes stands in for it there.
@compute @workgroup_size(8, 8)
fn w8x8(@builtin(workgroup_id) g: vec3<u32>, @builtin(local_invocation_index) l: u32, @builtin(subgroup_size) n: u32) {
  record(g.x * 64u + l, subgroupExclusiveAdd(1u), n);
}
`

// ProbeWaveSizes dispatches the probe kernel (two workgroups of each shape) and
// returns the distinct subgroup_size values observed, ascending. The ballot
// popcount (lanes active together) is a consistency check, not a size: it must
// be at least 1 and at most subgroup_size, but may be less — lavapipe at 512
// bits reports subgroup_size 16 in an 8x8 workgroup and runs each row of 8 as
// its own half-full subgroup. A lane id out of range or an invocation that
// did not run is an error too.
func (d *Device) ProbeWaveSizes() ([]uint32, error) {
	seen := map[uint32]bool{}
	for _, shape := range []struct {
		entry   string
		threads int
	}{{"w64", 64}, {"w62", 62}, {"w8x8", 64}} {
		const groups = 2
		n := groups * shape.threads
		res, err := d.RunCompute(probeWGSL, shape.entry, [3]uint32{groups, 1, 1},
			[]Binding{{Data: make([]byte, 16*n), ReadBack: true}})
		if err != nil {
			return nil, fmt.Errorf("probe %s: %w", shape.entry, err)
		}
		for i := 0; i < n; i++ {
			r := res[0][16*i:]
			size, count, lane, ran := le32(r), le32(r[4:]), le32(r[8:]), le32(r[12:])
			switch {
			case ran != 1:
				return nil, fmt.Errorf("probe %s: invocation %d did not run", shape.entry, i)
			case size == 0 || count == 0 || count > size || lane >= size:
				return nil, fmt.Errorf("probe %s: invocation %d saw subgroup_size %d, ballot popcount %d, lane %d", shape.entry, i, size, count, lane)
			}
			seen[size] = true
		}
	}
	sizes := make([]uint32, 0, len(seen))
	for s := range seen {
		sizes = append(sizes, s)
	}
	sort.Slice(sizes, func(i, j int) bool { return sizes[i] < sizes[j] })
	return sizes, nil
}

func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}
