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

// Colour attachment formats of a draw (the C side's VKX_COLOR_*).
const (
	ColorNone        = uint32(C.VKX_COLOR_NONE)
	ColorRGBA32Uint  = uint32(C.VKX_COLOR_RGBA32_UINT)  // VK_FORMAT_R32G32B32A32_UINT
	ColorRGBA32Float = uint32(C.VKX_COLOR_RGBA32_FLOAT) // VK_FORMAT_R32G32B32A32_SFLOAT
)

// GraphicsDesc describes one graphics pipeline: a vertex stage, an
// optional fragment stage (nil: rasterizer discard), a colour format and
// the fixed viewport size. VertexSize and FragmentSize are the required
// subgroup size of each stage (0: none passed to the driver).
type GraphicsDesc struct {
	Vertex        []uint32
	VertexEntry   string
	Fragment      []uint32
	FragmentEntry string
	Color         uint32
	Width, Height uint32
	VertexSize    uint32
	FragmentSize  uint32
}

// Graphics reports whether the context's queue can draw.
func (x *Context) Graphics() bool { return x.c != nil && C.vkx_ctx_graphics(x.c) != 0 }

// CreateGraphicsPipeline builds a graphics pipeline (through the context's
// pipeline cache) whose descriptors are visible to both stages.
func (x *Context) CreateGraphicsPipeline(d GraphicsDesc, layout []Binding) (*Pipeline, error) {
	if x.c == nil {
		return nil, errClosed
	}
	if len(d.Vertex) == 0 {
		return nil, errors.New("vkx: empty vertex SPIR-V")
	}
	if d.Fragment != nil && len(d.Fragment) == 0 {
		return nil, errors.New("vkx: empty fragment SPIR-V")
	}
	// cd is Go memory holding pointers to the SPIR-V, which cgo allows
	// only for pinned memory; the C side keeps none of them after the call.
	var pin runtime.Pinner
	defer pin.Unpin()
	var cd C.vkx_gfx_desc
	cd.vs_entry = C.CString(d.VertexEntry)
	defer C.free(unsafe.Pointer(cd.vs_entry))
	pin.Pin(&d.Vertex[0])
	cd.vs = (*C.uint32_t)(unsafe.Pointer(&d.Vertex[0]))
	cd.vs_words = C.size_t(len(d.Vertex))
	if d.Fragment != nil {
		cd.fs_entry = C.CString(d.FragmentEntry)
		defer C.free(unsafe.Pointer(cd.fs_entry))
		pin.Pin(&d.Fragment[0])
		cd.fs = (*C.uint32_t)(unsafe.Pointer(&d.Fragment[0]))
		cd.fs_words = C.size_t(len(d.Fragment))
	}
	cd.color = C.uint32_t(d.Color)
	cd.width, cd.height = C.uint32_t(d.Width), C.uint32_t(d.Height)
	cd.vs_size, cd.fs_size = C.uint32_t(d.VertexSize), C.uint32_t(d.FragmentSize)
	bp, nb := cBindings(layout)
	var e C.vkx_err
	p := C.vkx_gfx_pipe_create(x.c, &cd, bp, nb, &e)
	if p == nil {
		return nil, errOf(e)
	}
	return &Pipeline{p: p}, nil
}

// Draw runs one render pass with p: draws calls of
// vkCmdDraw(vertexCount, 1, 0, i), the colour target cleared to zero first,
// and waits up to timeoutNS. It returns the colour image (width*height*16
// bytes, rows tightly packed) or nil when p has no colour target; the slice
// aliases C memory valid until the next draw.
func (x *Context) Draw(p *Pipeline, bindings []Binding, vertexCount, draws uint32, timeoutNS uint64, colorBytes int) ([]byte, error) {
	if x.c == nil {
		return nil, errClosed
	}
	if p == nil || p.p == nil {
		return nil, errors.New("vkx: pipeline is destroyed")
	}
	bp, nb := cBindings(bindings)
	var e C.vkx_err
	var color unsafe.Pointer
	if r := C.vkx_draw(x.c, p.p, bp, nb, C.uint32_t(vertexCount), C.uint32_t(draws), C.uint64_t(timeoutNS), &color, &e); r != C.VK_SUCCESS {
		return nil, errOf(e)
	}
	if color == nil {
		return nil, nil
	}
	return unsafe.Slice((*byte)(color), colorBytes), nil
}
