//go:build viewer

package viewer

/*
#cgo LDFLAGS: -lvulkan
#include <stdlib.h>
#include "present.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"image"
	"unsafe"

	"github.com/go-gl/glfw/v3.3/glfw"
)

// presenter is the Vulkan side of a window (present.c): instance, surface,
// device, swapchain and the staging buffer frames are copied from.
type presenter struct {
	inst C.VkInstance
	ctx  *C.wv_ctx
	err  []C.char
}

// errNoArea: the window is minimised or zero-sized; nothing can be shown.
var errNoArea = errors.New("the window has no area")

// presentStatus is what wv_present says besides an error.
type presentStatus int

const (
	presented  presentStatus = 0
	outOfDate  presentStatus = C.WV_OUT_OF_DATE // nothing shown: new swapchain, draw again
	suboptimal presentStatus = C.WV_SUBOPTIMAL  // shown; new swapchain before the next frame
)

// openPresenter creates a Vulkan instance with the extensions GLFW asks for,
// the window's surface through GLFW, and the device that can present to it.
func openPresenter(win *glfw.Window) (*presenter, error) {
	p := &presenter{err: make([]C.char, C.WV_ERR)}
	exts := win.GetRequiredInstanceExtensions()
	if len(exts) == 0 {
		return nil, errors.New("GLFW found no Vulkan surface extensions for this display (is a Vulkan ICD with VK_KHR_xlib_surface or VK_KHR_xcb_surface installed?)")
	}
	cexts := make([]*C.char, len(exts))
	for i, e := range exts {
		cexts[i] = C.CString(e)
	}
	defer func() {
		for _, e := range cexts {
			C.free(unsafe.Pointer(e))
		}
	}()
	// The array of C strings is C memory too: cgo forbids passing Go memory
	// that holds pointers, and this array is nothing but pointers.
	arr := (**C.char)(C.malloc(C.size_t(len(cexts)) * C.size_t(unsafe.Sizeof(cexts[0]))))
	defer C.free(unsafe.Pointer(arr))
	copy(unsafe.Slice(arr, len(cexts)), cexts)
	if C.wv_instance(arr, C.uint32_t(len(cexts)), &p.inst, &p.err[0]) != 0 {
		return nil, p.fail()
	}
	addr, err := win.CreateWindowSurface(p.inst, nil)
	if err != nil {
		C.wv_destroy_instance(p.inst)
		return nil, fmt.Errorf("glfw CreateWindowSurface: %w", err)
	}
	surface := C.wv_surface_at(C.uintptr_t(addr))
	if C.wv_open(p.inst, surface, &p.ctx, &p.err[0]) != 0 {
		err := p.fail()
		p.close()
		return nil, err
	}
	return p, nil
}

func (p *presenter) fail() error { return errors.New(C.GoString(&p.err[0])) }

// swapchain (re)creates the swapchain for a framebuffer of w × h pixels.
func (p *presenter) swapchain(w, h int) error {
	if w <= 0 || h <= 0 {
		return errNoArea
	}
	if C.wv_swapchain(p.ctx, C.uint32_t(w), C.uint32_t(h), &p.err[0]) != 0 {
		return p.fail()
	}
	return nil
}

// extent is the swapchain's size: the size frames must be drawn at.
func (p *presenter) extent() (w, h int) {
	var cw, ch C.uint32_t
	C.wv_extent(p.ctx, &cw, &ch)
	return int(cw), int(ch)
}

// present shows img, which must be of the swapchain's extent.
func (p *presenter) present(img *image.RGBA) (presentStatus, error) {
	if w, h := p.extent(); img.Rect.Dx() != w || img.Rect.Dy() != h {
		return 0, fmt.Errorf("frame %v for a %dx%d swapchain", img.Rect.Size(), w, h)
	}
	st := C.wv_present(p.ctx, (*C.uint8_t)(unsafe.Pointer(&img.Pix[0])), C.uint32_t(img.Stride), &p.err[0])
	if st < 0 {
		return 0, p.fail()
	}
	return presentStatus(st), nil
}

// describe names the device and the swapchain (format, size, images).
func (p *presenter) describe() string {
	buf := make([]C.char, 512)
	C.wv_describe(p.ctx, &buf[0], C.int(len(buf)))
	return C.GoString(&buf[0])
}

func (p *presenter) close() {
	if p.ctx != nil {
		C.wv_close(p.ctx)
		p.ctx = nil
	}
	C.wv_destroy_instance(p.inst)
	p.inst = nil
}
