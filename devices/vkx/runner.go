package vkx

/*
#include <stdlib.h>
#include "vkx.h"
*/
import "C"

import (
	"errors"
	"unsafe"
)

// Descriptor types the runner binds (VkDescriptorType values).
const (
	DescriptorUniformBuffer = uint32(C.VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER)
	DescriptorStorageBuffer = uint32(C.VK_DESCRIPTOR_TYPE_STORAGE_BUFFER)
)

// Shader stage create flags (VkPipelineShaderStageCreateFlagBits, 1.3 core
// values, equal to the EXT ones).
const (
	StageAllowVaryingSubgroupSize = uint32(C.VK_PIPELINE_SHADER_STAGE_CREATE_ALLOW_VARYING_SUBGROUP_SIZE_BIT)
	StageRequireFullSubgroups     = uint32(C.VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT)
)

// Limits of one dispatch, fixed by the C side's static arrays.
const (
	MaxBuffers = int(C.VKX_MAX_SLOTS)
	MaxSets    = int(C.VKX_MAX_SETS)
)

// Binding is one descriptor of a pipeline layout and of a dispatch. It has
// no Go pointers, so a []Binding can be passed to C directly.
type Binding struct {
	Set, Binding, Type uint32
	Slot               uint32 // dispatch only: the buffer slot that backs it
	Size               uint64 // dispatch only: bytes bound
}

// Binding is handed to C as vkx_binding; these two declarations fail to
// compile (negative array length) if the sizes ever drift apart.
var (
	_ [unsafe.Sizeof(Binding{}) - unsafe.Sizeof(C.vkx_binding{})]byte
	_ [unsafe.Sizeof(C.vkx_binding{}) - unsafe.Sizeof(Binding{})]byte
)

func cBindings(bs []Binding) (*C.vkx_binding, C.uint32_t) {
	if len(bs) == 0 {
		return nil, 0
	}
	return (*C.vkx_binding)(unsafe.Pointer(&bs[0])), C.uint32_t(len(bs))
}

// Context is one logical device with one queue (graphics and compute where
// the device has such a family) and the reusable objects a stream of
// dispatches and draws needs. It is not safe for concurrent use, except
// CreatePipeline and CreateGraphicsPipeline, which may run on several
// goroutines at once (Vulkan allows it on one device; the shared render
// passes are made under a lock) while at most one other call is in flight.
type Context struct {
	c *C.vkx_ctx
}

// Pipeline is a compute or graphics pipeline and its layout.
type Pipeline struct {
	p *C.vkx_pipe
}

var errClosed = errors.New("vkx: context is closed")

// NewContext creates the logical device for physical.
func NewContext(instance, physical unsafe.Pointer, instanceAPI uint32) (*Context, error) {
	var e C.vkx_err
	c := C.vkx_ctx_create(C.VkInstance(instance), C.VkPhysicalDevice(physical), C.uint32_t(instanceAPI), &e)
	if c == nil {
		return nil, errOf(e)
	}
	return &Context{c: c}, nil
}

// Close destroys the device and everything made from it except pipelines,
// which the caller destroys first.
func (x *Context) Close() {
	if x.c != nil {
		C.vkx_ctx_destroy(x.c)
		x.c = nil
	}
}

// CreatePipeline builds a compute pipeline (through the context's pipeline
// cache). requiredSize 0 means no VkPipelineShaderStageRequiredSubgroupSizeCreateInfo.
func (x *Context) CreatePipeline(spirv []uint32, entry string, layout []Binding, pushSize, requiredSize, flags uint32) (*Pipeline, error) {
	if x.c == nil {
		return nil, errClosed
	}
	if len(spirv) == 0 {
		return nil, errors.New("vkx: empty SPIR-V")
	}
	centry := C.CString(entry)
	defer C.free(unsafe.Pointer(centry))
	bp, nb := cBindings(layout)
	var e C.vkx_err
	p := C.vkx_pipe_create(x.c, (*C.uint32_t)(unsafe.Pointer(&spirv[0])), C.size_t(len(spirv)), centry,
		bp, nb, C.uint32_t(pushSize), C.uint32_t(requiredSize), C.uint32_t(flags), &e)
	if p == nil {
		return nil, errOf(e)
	}
	return &Pipeline{p: p}, nil
}

// DestroyPipeline releases p; p must not be used afterwards.
func (x *Context) DestroyPipeline(p *Pipeline) {
	if x.c != nil && p != nil && p.p != nil {
		C.vkx_pipe_destroy(x.c, p.p)
		p.p = nil
	}
}

// Slot returns the mapped memory of buffer slot i, grown to at least size
// bytes. The slice aliases C memory: it stays valid until the slot grows or
// the context closes, and must not be kept past that.
func (x *Context) Slot(i int, size int) ([]byte, error) {
	if x.c == nil {
		return nil, errClosed
	}
	if i < 0 || i >= MaxBuffers {
		return nil, &Error{Op: "too many buffers", Result: int32(C.VK_ERROR_TOO_MANY_OBJECTS)}
	}
	var e C.vkx_err
	m := C.vkx_slot(x.c, C.uint32_t(i), C.uint64_t(size), &e)
	if m == nil {
		return nil, errOf(e)
	}
	return unsafe.Slice((*byte)(m), size), nil
}

// Dispatch binds the slots named by bindings, pushes push (length a multiple
// of 4, at most the pipeline's push size), runs groups and waits up to
// timeoutNS for completion.
func (x *Context) Dispatch(p *Pipeline, bindings []Binding, push []byte, groups [3]uint32, timeoutNS uint64) error {
	if x.c == nil {
		return errClosed
	}
	if p == nil || p.p == nil {
		return errors.New("vkx: pipeline is destroyed")
	}
	bp, nb := cBindings(bindings)
	var pp unsafe.Pointer
	if len(push) > 0 {
		pp = unsafe.Pointer(&push[0])
	}
	var e C.vkx_err
	r := C.vkx_dispatch(x.c, p.p, bp, nb, pp, C.uint32_t(len(push)),
		C.uint32_t(groups[0]), C.uint32_t(groups[1]), C.uint32_t(groups[2]), C.uint64_t(timeoutNS), &e)
	if r != C.VK_SUCCESS {
		return errOf(e)
	}
	return nil
}
