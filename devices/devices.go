// Package devices finds the Vulkan physical devices of this machine and
// describes what each can do with subgroups (wave operations): size, legal
// required sizes, supported stages and operations, related features and
// extensions. It prints them as a table or as vulkaninfo-style JSON.
//
// The Vulkan 1.0 plumbing (loader, instance, enumeration, basic properties)
// goes through github.com/vulkan-go/vulkan; everything newer (Properties2 and
// Features2 chains) goes through the cgo shim in devices/vkx.
package devices

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"unsafe"

	vk "github.com/vulkan-go/vulkan"

	"waverig/devices/icd"
	"waverig/devices/vkx"
)

// ErrNoVulkan marks every failure that means "this machine has no usable
// Vulkan": no loader library, no ICD, no physical device. Test suites skip
// on it (errors.Is).
var ErrNoVulkan = errors.New("no usable Vulkan (on Debian/Ubuntu install: apt-get install libvulkan1 libvulkan-dev mesa-vulkan-drivers)")

// SizeControl is VkPhysicalDeviceSubgroupSizeControlProperties plus the two
// features that decide whether the properties can be used.
type SizeControl struct {
	Supported                      bool     `json:"subgroupSizeControl"`
	MinSubgroupSize                uint32   `json:"minSubgroupSize"`
	MaxSubgroupSize                uint32   `json:"maxSubgroupSize"`
	MaxComputeWorkgroupSubgroups   uint32   `json:"maxComputeWorkgroupSubgroups"`
	RequiredSubgroupSizeStages     uint32   `json:"requiredSubgroupSizeStagesMask"`
	RequiredSubgroupSizeStageNames []string `json:"requiredSubgroupSizeStages"`
	ComputeFullSubgroups           bool     `json:"computeFullSubgroups"`
}

// Device is one physical device as waverig sees it. JSON names follow the
// Vulkan struct fields; masks appear both as numbers (…Mask) and as lists of
// flag-bit names.
type Device struct {
	Index             int    `json:"index"`
	Name              string `json:"deviceName"`
	VendorID          uint32 `json:"vendorID"`
	DeviceID          uint32 `json:"deviceID"`
	Type              string `json:"deviceType"` // "cpu", "discrete-gpu", …
	APIVersion        string `json:"apiVersion"`
	DriverVersion     uint32 `json:"driverVersion"`
	DriverVersionText string `json:"driverVersionText"`
	DriverName        string `json:"driverName"`
	DriverInfo        string `json:"driverInfo"`
	DriverID          uint32 `json:"driverID"`
	DriverIDName      string `json:"driverIDName"`
	Conformance       string `json:"conformanceVersion"`
	// Provisioned names the driver scripts/drivers.sh installed for waverig
	// that this device is ("lavapipe-mesa-25.0.7", "swiftshader"); "" for a
	// driver of the system or of the user's VK_DRIVER_FILES.
	Provisioned string `json:"waverigDriver,omitempty"`

	SubgroupSize              uint32      `json:"subgroupSize"`
	SupportedStages           uint32      `json:"supportedStagesMask"`
	SupportedStageNames       []string    `json:"supportedStages"`
	SupportedOperations       uint32      `json:"supportedOperationsMask"`
	SupportedOperationNames   []string    `json:"supportedOperations"`
	QuadOperationsInAllStages bool        `json:"quadOperationsInAllStages"`
	SizeControl               SizeControl `json:"subgroupSizeControl"`

	ShaderSubgroupExtendedTypes      bool `json:"shaderSubgroupExtendedTypes"`
	ShaderFloat16                    bool `json:"shaderFloat16"`
	ShaderInt8                       bool `json:"shaderInt8"`
	ShaderInt16                      bool `json:"shaderInt16"`
	ShaderInt64                      bool `json:"shaderInt64"`
	ShaderFloat64                    bool `json:"shaderFloat64"`
	StorageBuffer16BitAccess         bool `json:"storageBuffer16BitAccess"`
	StorageBuffer8BitAccess          bool `json:"storageBuffer8BitAccess"`
	SubgroupBroadcastDynamicID       bool `json:"subgroupBroadcastDynamicId"`
	VulkanMemoryModel                bool `json:"vulkanMemoryModel"`
	ShaderSubgroupUniformControlFlow bool `json:"shaderSubgroupUniformControlFlow"`
	ShaderSubgroupRotate             bool `json:"shaderSubgroupRotate"`
	ShaderSubgroupRotateClustered    bool `json:"shaderSubgroupRotateClustered"`
	ShaderQuadControl                bool `json:"shaderQuadControl"`
	ShaderMaximalReconvergence       bool `json:"shaderMaximalReconvergence"`
	// Storage writes and atomics from the pixel and vertex stages
	// (VkPhysicalDeviceFeatures); the draw runner needs them for kernels
	// that write records from those stages.
	FragmentStoresAndAtomics       bool `json:"fragmentStoresAndAtomics"`
	VertexPipelineStoresAndAtomics bool `json:"vertexPipelineStoresAndAtomics"`

	// Extensions holds every device extension; ExtensionVersions their spec
	// versions (the profiles JSON writes those).
	Extensions        map[string]bool   `json:"extensions"`
	ExtensionVersions map[string]uint32 `json:"-"`

	MaxComputeWorkGroupInvocations uint32    `json:"maxComputeWorkGroupInvocations"`
	MaxComputeWorkGroupSize        [3]uint32 `json:"maxComputeWorkGroupSize"`
	MaxComputeWorkGroupCount       [3]uint32 `json:"maxComputeWorkGroupCount"`
	MaxPushConstantsSize           uint32    `json:"maxPushConstantsSize"`
	MaxUniformBufferRange          uint32    `json:"maxUniformBufferRange"`
	MaxStorageBufferRange          uint32    `json:"maxStorageBufferRange"`
	MaxComputeSharedMemorySize     uint32    `json:"maxComputeSharedMemorySize"`
	MaxFramebufferWidth            uint32    `json:"maxFramebufferWidth"`
	MaxFramebufferHeight           uint32    `json:"maxFramebufferHeight"`

	// Mesh is VK_EXT_mesh_shader: the task and mesh kernels' features and
	// limits (mesh.go).
	Mesh MeshShader `json:"meshShader"`
}

// CanRequireSubgroupSize reports whether a compute pipeline may name a
// required subgroup size (size control on and compute among its stages).
func (d Device) CanRequireSubgroupSize() bool {
	return d.SizeControl.Supported && d.SizeControl.RequiredSubgroupSizeStages&StageCompute != 0 &&
		d.SizeControl.MinSubgroupSize > 0 && d.SizeControl.MaxSubgroupSize >= d.SizeControl.MinSubgroupSize
}

// LegalSubgroupSizes lists the subgroup sizes a compute pipeline can run at:
// every power of two in [min,max] when size control is usable, else just the
// reported subgroupSize.
func (d Device) LegalSubgroupSizes() []uint32 {
	if !d.CanRequireSubgroupSize() {
		if d.SubgroupSize == 0 {
			return nil
		}
		return []uint32{d.SubgroupSize}
	}
	var out []uint32
	for s := uint32(1); s != 0 && s <= d.SizeControl.MaxSubgroupSize; s <<= 1 {
		if s >= d.SizeControl.MinSubgroupSize {
			out = append(out, s)
		}
	}
	return out
}

// Supports reports whether every bit of ops is in SupportedOperations.
func (d Device) Supports(ops uint32) bool { return d.SupportedOperations&ops == ops }

// Handle carries the raw handles a runner needs to open a device.
// They stay valid for the life of the process (the instance is shared and
// never destroyed).
type Handle struct {
	Instance    unsafe.Pointer // VkInstance
	Physical    unsafe.Pointer // VkPhysicalDevice
	InstanceAPI uint32         // apiVersion the instance was created with
}

// vkState is the process-wide Vulkan instance. Drivers read their
// environment (LP_NATIVE_VECTOR_WIDTH, MESA_VK_DEVICE_SELECT) when the ICD is
// loaded, so a second instance would not see new settings anyway; one shared
// instance keeps Enumerate cheap and lets runners reuse its handles.
type vkState struct {
	instance vk.Instance
	api      uint32
	physical []vk.PhysicalDevice
	// provisioned is each physical device's icd.Driver name ("" for the
	// system's), parallel to physical.
	provisioned []string
	drivers     icd.Setup
}

var (
	stateOnce sync.Once
	state     *vkState
	stateErr  error
)

func noVulkan(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrNoVulkan, fmt.Sprintf(format, args...))
}

func open() (*vkState, error) {
	stateOnce.Do(func() { state, stateErr = openInstance() })
	return state, stateErr
}

func openInstance() (*vkState, error) {
	// The loader reads its driver list when the instance is created: add
	// waverig's provisioned drivers first (package icd).
	drivers := icd.Configure()
	// vkx opens libvulkan.so.1 itself; it is also the fallback when
	// vulkan-go's dlopen of the unversioned libvulkan.so (shipped only by
	// libvulkan-dev) fails on a runtime-only install.
	gipa, lerr := vkx.Load()
	if err := vk.SetDefaultGetInstanceProcAddr(); err != nil {
		if lerr != nil {
			return nil, noVulkan("%v; %v", err, lerr)
		}
		vk.SetGetInstanceProcAddr(gipa)
	}
	if lerr != nil {
		return nil, noVulkan("%v", lerr)
	}
	if err := vk.Init(); err != nil {
		return nil, noVulkan("vulkan-go Init: %v", err)
	}
	api := vkx.InstanceVersion()
	if max := vk.MakeVersion(1, 3, 0); api > max {
		api = max // the shim's structs stop at 1.3
	}
	var exts []string
	if api < vk.MakeVersion(1, 1, 0) {
		// 1.0 loaders expose Properties2 only through this extension.
		exts = append(exts, "VK_KHR_get_physical_device_properties2\x00")
	}
	layers, err := validationLayers()
	if err != nil {
		return nil, err
	}
	var inst vk.Instance
	res := createInstance(api, exts, layers, &inst)
	if res == vk.ErrorExtensionNotPresent && len(exts) > 0 {
		res = createInstance(api, nil, layers, &inst)
	}
	if res != vk.Success {
		if res == vk.ErrorIncompatibleDriver || res == vk.ErrorInitializationFailed {
			return nil, noVulkan("vkCreateInstance: %s (no Vulkan driver/ICD found)", vkx.ResultName(int32(res)))
		}
		return nil, fmt.Errorf("devices: vkCreateInstance: %s", vkx.ResultName(int32(res)))
	}
	// Without InitInstance vulkan-go's instance-level function pointers
	// stay NULL and EnumeratePhysicalDevices crashes.
	if err := vk.InitInstance(inst); err != nil {
		return nil, noVulkan("vulkan-go InitInstance: %v", err)
	}
	var n uint32
	if res := vk.EnumeratePhysicalDevices(inst, &n, nil); res != vk.Success {
		return nil, fmt.Errorf("devices: vkEnumeratePhysicalDevices: %s", vkx.ResultName(int32(res)))
	}
	if n == 0 {
		return nil, noVulkan("the Vulkan loader found no physical device (mesa-vulkan-drivers provides lavapipe, a CPU device)")
	}
	pds := make([]vk.PhysicalDevice, n)
	if res := vk.EnumeratePhysicalDevices(inst, &n, pds); res != vk.Success && res != vk.Incomplete {
		return nil, fmt.Errorf("devices: vkEnumeratePhysicalDevices: %s", vkx.ResultName(int32(res)))
	}
	st := &vkState{instance: inst, api: api, physical: pds[:n], drivers: drivers}
	st.order()
	return st, nil
}

// order marks the devices of waverig's provisioned drivers and moves them
// after every other device, in the drivers' name order, keeping the loader's
// order otherwise. The loader
// sorts devices by type and then by vendor id (SwiftShader's 0x1ae0 before
// lavapipe's 0x10005), so without this the drivers setup adds would take
// index 0 — the default device of every command and of the suites — from the
// system's default device. The order depends only on the drivers present, so
// a child process (same environment) finds the same device at each index.
func (st *vkState) order() {
	type entry struct {
		pd   vk.PhysicalDevice
		prov string
		rank int // 0: the system's; else 1 + the driver's place in Active
	}
	entries := make([]entry, len(st.physical))
	for i, pd := range st.physical {
		entries[i].pd = pd
		if len(st.drivers.Active) == 0 {
			continue
		}
		var p vk.PhysicalDeviceProperties
		vk.GetPhysicalDeviceProperties(pd, &p)
		p.Deref()
		caps, err := vkx.Query(unsafe.Pointer(st.instance), unsafe.Pointer(pd), st.api)
		p.Free()
		if err != nil {
			continue // describe reports it
		}
		version := DriverVersionString(p.VendorID, p.DriverVersion)
		for j, d := range st.drivers.Active {
			if d.Matches(caps.DriverName, caps.DriverInfo, version) {
				entries[i].prov, entries[i].rank = d.Name, j+1
				break
			}
		}
	}
	slices.SortStableFunc(entries, func(a, b entry) int { return a.rank - b.rank })
	st.provisioned = make([]string, len(entries))
	for i, e := range entries {
		st.physical[i], st.provisioned[i] = e.pd, e.prov
	}
}

// Drivers reports which drivers the loader was given (package icd): the
// user's VK_DRIVER_FILES, or the system's plus waverig's provisioned ones.
func Drivers() icd.Setup {
	if st, err := open(); err == nil {
		return st.drivers
	}
	return icd.Configure()
}

func createInstance(api uint32, exts, layers []string, inst *vk.Instance) vk.Result {
	info := vk.InstanceCreateInfo{
		SType: vk.StructureTypeInstanceCreateInfo,
		PApplicationInfo: &vk.ApplicationInfo{
			SType:            vk.StructureTypeApplicationInfo,
			PApplicationName: "waverig\x00",
			PEngineName:      "waverig\x00",
			ApiVersion:       api,
		},
		EnabledExtensionCount:   uint32(len(exts)),
		PpEnabledExtensionNames: exts,
		EnabledLayerCount:       uint32(len(layers)),
		PpEnabledLayerNames:     layers,
	}
	return vk.CreateInstance(&info, nil, inst)
}

// Enumerate describes every physical device, in the loader's order (the
// index is what NewRunner and the CLI's --device take). With no Vulkan it
// returns an error wrapping ErrNoVulkan.
func Enumerate() ([]Device, error) {
	st, err := open()
	if err != nil {
		return nil, err
	}
	out := make([]Device, 0, len(st.physical))
	for i, pd := range st.physical {
		d, err := describe(st, i, pd)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// Open describes device index and returns the handles to run work on it.
func Open(index int) (Device, Handle, error) {
	st, err := open()
	if err != nil {
		return Device{}, Handle{}, err
	}
	if index < 0 || index >= len(st.physical) {
		return Device{}, Handle{}, fmt.Errorf("devices: no device %d (this machine has %d)", index, len(st.physical))
	}
	pd := st.physical[index]
	d, err := describe(st, index, pd)
	if err != nil {
		return Device{}, Handle{}, err
	}
	return d, Handle{Instance: unsafe.Pointer(st.instance), Physical: unsafe.Pointer(pd), InstanceAPI: st.api}, nil
}

func describe(st *vkState, index int, pd vk.PhysicalDevice) (Device, error) {
	var p vk.PhysicalDeviceProperties
	vk.GetPhysicalDeviceProperties(pd, &p)
	p.Deref()
	p.Limits.Deref()
	defer p.Free()

	inst, phys := unsafe.Pointer(st.instance), unsafe.Pointer(pd)
	caps, err := vkx.Query(inst, phys, st.api)
	if err != nil {
		return Device{}, fmt.Errorf("devices: device %d: %w", index, err)
	}
	exts, err := vkx.DeviceExtensions(inst, phys)
	if err != nil {
		return Device{}, fmt.Errorf("devices: device %d: %w", index, err)
	}
	d := Device{
		Index:             index,
		Name:              vk.ToString(p.DeviceName[:]),
		VendorID:          p.VendorID,
		DeviceID:          p.DeviceID,
		Type:              deviceTypeName(uint32(p.DeviceType)),
		APIVersion:        VersionString(p.ApiVersion),
		DriverVersion:     p.DriverVersion,
		DriverVersionText: DriverVersionString(p.VendorID, p.DriverVersion),
		DriverName:        caps.DriverName,
		DriverInfo:        caps.DriverInfo,
		DriverID:          caps.DriverID,
		DriverIDName:      DriverIDName(caps.DriverID),
		Provisioned:       st.provisioned[index],

		SubgroupSize:              caps.SubgroupSize,
		SupportedStages:           caps.SubgroupStages,
		SupportedStageNames:       ShaderStageNames(caps.SubgroupStages),
		SupportedOperations:       caps.SubgroupOps,
		SupportedOperationNames:   SubgroupOperationNames(caps.SubgroupOps),
		QuadOperationsInAllStages: caps.QuadAllStages,
		SizeControl: SizeControl{
			Supported:                      caps.HasSizeControl && caps.SizeControl,
			MinSubgroupSize:                caps.MinSubgroupSize,
			MaxSubgroupSize:                caps.MaxSubgroupSize,
			MaxComputeWorkgroupSubgroups:   caps.MaxWorkgroupSGs,
			RequiredSubgroupSizeStages:     caps.RequiredSGStages,
			RequiredSubgroupSizeStageNames: ShaderStageNames(caps.RequiredSGStages),
			ComputeFullSubgroups:           caps.FullSubgroups,
		},
		ShaderSubgroupExtendedTypes:      caps.ExtendedTypes,
		ShaderFloat16:                    caps.Float16,
		ShaderInt8:                       caps.Int8,
		ShaderInt16:                      caps.Int16,
		ShaderInt64:                      caps.Int64,
		ShaderFloat64:                    caps.Float64,
		StorageBuffer16BitAccess:         caps.StorageBuffer16,
		StorageBuffer8BitAccess:          caps.StorageBuffer8,
		SubgroupBroadcastDynamicID:       caps.BroadcastDynamic,
		VulkanMemoryModel:                caps.VulkanMemoryModel,
		ShaderSubgroupUniformControlFlow: caps.UniformCF,
		ShaderSubgroupRotate:             caps.Rotate,
		ShaderSubgroupRotateClustered:    caps.RotateClustered,
		ShaderQuadControl:                caps.QuadControl,
		ShaderMaximalReconvergence:       caps.MaximalReconv,
		FragmentStoresAndAtomics:         caps.FragmentStores,
		VertexPipelineStoresAndAtomics:   caps.VertexStores,
		Extensions:                       make(map[string]bool, len(exts)),
		ExtensionVersions:                exts,

		MaxComputeWorkGroupInvocations: p.Limits.MaxComputeWorkGroupInvocations,
		MaxComputeWorkGroupSize:        p.Limits.MaxComputeWorkGroupSize,
		MaxComputeWorkGroupCount:       p.Limits.MaxComputeWorkGroupCount,
		MaxPushConstantsSize:           caps.MaxPushConstantsSize,
		MaxUniformBufferRange:          caps.MaxUniformBufferRange,
		MaxStorageBufferRange:          caps.MaxStorageBufferRange,
		MaxComputeSharedMemorySize:     p.Limits.MaxComputeSharedMemorySize,
		MaxFramebufferWidth:            p.Limits.MaxFramebufferWidth,
		MaxFramebufferHeight:           p.Limits.MaxFramebufferHeight,
		Mesh:                           meshShaderOf(caps.Mesh),
	}
	if caps.HasDriverInfo {
		c := caps.Conformance
		d.Conformance = fmt.Sprintf("%d.%d.%d.%d", c[0], c[1], c[2], c[3])
	}
	for name := range exts {
		d.Extensions[name] = true
	}
	return d, nil
}
