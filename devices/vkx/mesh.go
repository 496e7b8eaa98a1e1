package vkx

/*
#include <stdlib.h>
#include "vkx.h"
*/
import "C"

import (
	"errors"
	"runtime"
	"unsafe"
)

// MeshCaps is VK_EXT_mesh_shader as the rig reads it: whether the device
// has the extension, the taskShader and meshShader features, and the
// properties a task or mesh job must fit.
type MeshCaps struct {
	Extension, TaskShader, MeshShader bool

	MaxTaskWorkGroupTotalCount           uint32
	MaxTaskWorkGroupCount                [3]uint32
	MaxTaskWorkGroupInvocations          uint32
	MaxTaskWorkGroupSize                 [3]uint32
	MaxTaskPayloadSize                   uint32
	MaxMeshWorkGroupTotalCount           uint32
	MaxMeshWorkGroupCount                [3]uint32
	MaxMeshWorkGroupInvocations          uint32
	MaxMeshWorkGroupSize                 [3]uint32
	MaxMeshOutputVertices                uint32
	MaxMeshOutputPrimitives              uint32
	MaxPreferredTaskWorkGroupInvocations uint32
	MaxPreferredMeshWorkGroupInvocations uint32
}

func u3(a [3]C.uint32_t) [3]uint32 { return [3]uint32{uint32(a[0]), uint32(a[1]), uint32(a[2])} }

func meshCaps(m C.vkx_mesh_caps) MeshCaps {
	return MeshCaps{
		Extension: b(m.has_ext), TaskShader: b(m.f_task_shader), MeshShader: b(m.f_mesh_shader),
		MaxTaskWorkGroupTotalCount:           uint32(m.max_task_work_group_total_count),
		MaxTaskWorkGroupCount:                u3(m.max_task_work_group_count),
		MaxTaskWorkGroupInvocations:          uint32(m.max_task_work_group_invocations),
		MaxTaskWorkGroupSize:                 u3(m.max_task_work_group_size),
		MaxTaskPayloadSize:                   uint32(m.max_task_payload_size),
		MaxMeshWorkGroupTotalCount:           uint32(m.max_mesh_work_group_total_count),
		MaxMeshWorkGroupCount:                u3(m.max_mesh_work_group_count),
		MaxMeshWorkGroupInvocations:          uint32(m.max_mesh_work_group_invocations),
		MaxMeshWorkGroupSize:                 u3(m.max_mesh_work_group_size),
		MaxMeshOutputVertices:                uint32(m.max_mesh_output_vertices),
		MaxMeshOutputPrimitives:              uint32(m.max_mesh_output_primitives),
		MaxPreferredTaskWorkGroupInvocations: uint32(m.max_preferred_task_work_group_invocations),
		MaxPreferredMeshWorkGroupInvocations: uint32(m.max_preferred_mesh_work_group_invocations),
	}
}

// MeshDesc describes one mesh pipeline: an optional task stage (Task nil:
// none) and a mesh stage; TaskSize and MeshSize are each stage's required
// subgroup size (0: none passed to the driver).
type MeshDesc struct {
	Task      []uint32
	TaskEntry string
	Mesh      []uint32
	MeshEntry string
	TaskSize  uint32
	MeshSize  uint32
}

// Mesh reports whether the context enabled VK_EXT_mesh_shader.
func (x *Context) Mesh() bool { return x.c != nil && C.vkx_ctx_mesh(x.c) != 0 }

// CreateMeshPipeline builds a task (optional) + mesh pipeline with
// rasterizer discard, its descriptors visible to both stages.
func (x *Context) CreateMeshPipeline(d MeshDesc, layout []Binding) (*Pipeline, error) {
	if x.c == nil {
		return nil, errClosed
	}
	if len(d.Mesh) == 0 {
		return nil, errors.New("vkx: empty mesh SPIR-V")
	}
	if d.Task != nil && len(d.Task) == 0 {
		return nil, errors.New("vkx: empty task SPIR-V")
	}
	// cd holds pointers to Go memory: pinned for the call, kept by C for none
	// of it.
	var pin runtime.Pinner
	defer pin.Unpin()
	var cd C.vkx_mesh_desc
	cd.ms_entry = C.CString(d.MeshEntry)
	defer C.free(unsafe.Pointer(cd.ms_entry))
	pin.Pin(&d.Mesh[0])
	cd.ms = (*C.uint32_t)(unsafe.Pointer(&d.Mesh[0]))
	cd.ms_words = C.size_t(len(d.Mesh))
	if d.Task != nil {
		cd.ts_entry = C.CString(d.TaskEntry)
		defer C.free(unsafe.Pointer(cd.ts_entry))
		pin.Pin(&d.Task[0])
		cd.ts = (*C.uint32_t)(unsafe.Pointer(&d.Task[0]))
		cd.ts_words = C.size_t(len(d.Task))
	}
	cd.task_size, cd.mesh_size = C.uint32_t(d.TaskSize), C.uint32_t(d.MeshSize)
	bp, nb := cBindings(layout)
	var e C.vkx_err
	p := C.vkx_mesh_pipe_create(x.c, &cd, bp, nb, &e)
	if p == nil {
		return nil, errOf(e)
	}
	return &Pipeline{p: p}, nil
}

// DrawMeshTasks runs one render pass with vkCmdDrawMeshTasksEXT(groups) and
// waits up to timeoutNS.
func (x *Context) DrawMeshTasks(p *Pipeline, bindings []Binding, groups [3]uint32, timeoutNS uint64) error {
	if x.c == nil {
		return errClosed
	}
	if p == nil || p.p == nil {
		return errors.New("vkx: pipeline is destroyed")
	}
	bp, nb := cBindings(bindings)
	var e C.vkx_err
	if r := C.vkx_mesh_draw(x.c, p.p, bp, nb, C.uint32_t(groups[0]), C.uint32_t(groups[1]), C.uint32_t(groups[2]), C.uint64_t(timeoutNS), &e); r != C.VK_SUCCESS {
		return errOf(e)
	}
	return nil
}
