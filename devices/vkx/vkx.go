// Package vkx is waverig's cgo shim for the Vulkan calls vulkan-go lacks:
// vkGetPhysicalDeviceProperties2/Features2 with subgroup, size-control and
// driver structs on the pNext chain, device extension enumeration, and a
// runner of compute dispatches and draws whose pipelines can carry
// VkPipelineShaderStageRequiredSubgroupSizeCreateInfo.
//
// The C side (vkx.c) is compiled against the system <vulkan/vulkan.h> and
// loads every entry point through vkGetInstanceProcAddr from a dlopen'ed
// libvulkan.so.1, so binaries start on machines without Vulkan and report
// an error instead. Handles cross from Go as unsafe.Pointer (vulkan-go's
// vk.Instance and vk.PhysicalDevice are C handle types).
package vkx

/*
#cgo CFLAGS: -O2 -std=c11 -D_GNU_SOURCE
#cgo LDFLAGS: -ldl
#include <stdlib.h>
#include "vkx.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"sync"
	"unsafe"
)

// Load opens the Vulkan loader and returns its vkGetInstanceProcAddr, which
// can be handed to vk.SetGetInstanceProcAddr. It is safe to call many times.
func Load() (unsafe.Pointer, error) {
	loadOnce.Do(func() {
		var why *C.char
		p := C.vkx_load(&why)
		if p == nil {
			loadErr = errors.New(C.GoString(why))
			return
		}
		loadPtr = p
	})
	return loadPtr, loadErr
}

var (
	loadOnce sync.Once
	loadPtr  unsafe.Pointer
	loadErr  error
)

// InstanceVersion is the loader's vkEnumerateInstanceVersion (1.0 when the
// loader predates it, 0 when Load has not succeeded).
func InstanceVersion() uint32 { return uint32(C.vkx_instance_version()) }

// Error is a failed Vulkan call: Op names the call, Result is the VkResult.
type Error struct {
	Op     string
	Result int32
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %s", e.Op, ResultName(e.Result)) }

func errOf(e C.vkx_err) error {
	op := "vulkan"
	if e.op != nil {
		op = C.GoString(e.op)
	}
	return &Error{Op: op, Result: int32(e.result)}
}

// Caps is the flattened result of the Properties2/Features2 chains.
type Caps struct {
	APIVersion    uint32 // min(instance, device) version the chains were built for
	HasProps2     bool
	HasDriverInfo bool
	DriverID      uint32
	DriverName    string
	DriverInfo    string
	Conformance   [4]uint32

	SubgroupSize      uint32
	SubgroupStages    uint32
	SubgroupOps       uint32
	QuadAllStages     bool
	HasSizeControl    bool // the size-control properties struct was on the chain
	MinSubgroupSize   uint32
	MaxSubgroupSize   uint32
	MaxWorkgroupSGs   uint32
	RequiredSGStages  uint32
	SizeControl       bool // feature subgroupSizeControl
	FullSubgroups     bool // feature computeFullSubgroups
	ExtendedTypes     bool
	Float16, Int8     bool
	Int16, Int64      bool
	Float64           bool
	StorageBuffer16   bool
	StorageBuffer8    bool
	BroadcastDynamic  bool
	VulkanMemoryModel bool
	UniformCF         bool
	Rotate            bool
	RotateClustered   bool
	QuadControl       bool
	MaximalReconv     bool
	FragmentStores    bool // VkPhysicalDeviceFeatures.fragmentStoresAndAtomics
	VertexStores      bool // VkPhysicalDeviceFeatures.vertexPipelineStoresAndAtomics

	MaxPushConstantsSize  uint32
	MaxUniformBufferRange uint32
	MaxStorageBufferRange uint32

	Mesh MeshCaps // VK_EXT_mesh_shader (mesh.go)
}

func b(v C.uint32_t) bool { return v != 0 }

// Query reads the capability chains of one physical device. instanceAPI is
// the apiVersion the instance was created with.
func Query(instance, physical unsafe.Pointer, instanceAPI uint32) (Caps, error) {
	var c C.vkx_caps
	r := C.vkx_query(C.VkInstance(instance), C.VkPhysicalDevice(physical), C.uint32_t(instanceAPI), &c)
	if r != C.VK_SUCCESS {
		return Caps{}, &Error{Op: "vkGetPhysicalDeviceProperties2", Result: int32(r)}
	}
	return Caps{
		APIVersion:            uint32(c.api_version),
		HasProps2:             b(c.has_props2),
		HasDriverInfo:         b(c.has_driver_props),
		DriverID:              uint32(c.driver_id),
		DriverName:            C.GoString(&c.driver_name[0]),
		DriverInfo:            C.GoString(&c.driver_info[0]),
		Conformance:           [4]uint32{uint32(c.conformance[0]), uint32(c.conformance[1]), uint32(c.conformance[2]), uint32(c.conformance[3])},
		SubgroupSize:          uint32(c.subgroup_size),
		SubgroupStages:        uint32(c.subgroup_stages),
		SubgroupOps:           uint32(c.subgroup_ops),
		QuadAllStages:         b(c.quad_all_stages),
		HasSizeControl:        b(c.has_size_control_props),
		MinSubgroupSize:       uint32(c.min_subgroup_size),
		MaxSubgroupSize:       uint32(c.max_subgroup_size),
		MaxWorkgroupSGs:       uint32(c.max_compute_workgroup_subgroups),
		RequiredSGStages:      uint32(c.required_subgroup_size_stages),
		SizeControl:           b(c.f_subgroup_size_control),
		FullSubgroups:         b(c.f_compute_full_subgroups),
		ExtendedTypes:         b(c.f_subgroup_extended_types),
		Float16:               b(c.f_float16),
		Int8:                  b(c.f_int8),
		Int16:                 b(c.f_int16),
		Int64:                 b(c.f_int64),
		Float64:               b(c.f_float64),
		StorageBuffer16:       b(c.f_storage_buffer_16bit),
		StorageBuffer8:        b(c.f_storage_buffer_8bit),
		BroadcastDynamic:      b(c.f_subgroup_broadcast_dynamic_id),
		VulkanMemoryModel:     b(c.f_vulkan_memory_model),
		UniformCF:             b(c.f_subgroup_uniform_control_flow),
		Rotate:                b(c.f_subgroup_rotate),
		RotateClustered:       b(c.f_subgroup_rotate_clustered),
		QuadControl:           b(c.f_quad_control),
		MaximalReconv:         b(c.f_maximal_reconvergence),
		FragmentStores:        b(c.f_fragment_stores_and_atomics),
		VertexStores:          b(c.f_vertex_pipeline_stores_and_atomics),
		MaxPushConstantsSize:  uint32(c.max_push_constants_size),
		MaxUniformBufferRange: uint32(c.max_uniform_buffer_range),
		MaxStorageBufferRange: uint32(c.max_storage_buffer_range),
		Mesh:                  meshCaps(c.mesh),
	}, nil
}

// DeviceExtensions maps each device extension name to its spec version.
func DeviceExtensions(instance, physical unsafe.Pointer) (map[string]uint32, error) {
	inst, pd := C.VkInstance(instance), C.VkPhysicalDevice(physical)
	// The count can change between calls only in theory (layers); retry on
	// VK_INCOMPLETE a few times rather than loop forever.
	for attempt := 0; attempt < 4; attempt++ {
		var n C.uint32_t
		if r := C.vkx_device_extensions(inst, pd, &n, nil); r != C.VK_SUCCESS {
			return nil, &Error{Op: "vkEnumerateDeviceExtensionProperties", Result: int32(r)}
		}
		if n == 0 {
			return map[string]uint32{}, nil
		}
		buf := (*C.VkExtensionProperties)(C.calloc(C.size_t(n), C.size_t(unsafe.Sizeof(C.VkExtensionProperties{}))))
		if buf == nil {
			return nil, &Error{Op: "calloc", Result: int32(C.VK_ERROR_OUT_OF_HOST_MEMORY)}
		}
		r := C.vkx_device_extensions(inst, pd, &n, buf)
		if r == C.VK_INCOMPLETE {
			C.free(unsafe.Pointer(buf))
			continue
		}
		if r != C.VK_SUCCESS {
			C.free(unsafe.Pointer(buf))
			return nil, &Error{Op: "vkEnumerateDeviceExtensionProperties", Result: int32(r)}
		}
		out := make(map[string]uint32, int(n))
		for _, e := range unsafe.Slice(buf, int(n)) {
			out[C.GoString(&e.extensionName[0])] = uint32(e.specVersion)
		}
		C.free(unsafe.Pointer(buf))
		return out, nil
	}
	return nil, &Error{Op: "vkEnumerateDeviceExtensionProperties", Result: int32(C.VK_INCOMPLETE)}
}
