//go:build viewer

// present.h: the viewer's Vulkan presentation (present.c), behind the viewer
// build tag like every C file of this package. Each call returns 0 or a
// negative value with a message in err (WV_ERR bytes); wv_present can also
// return WV_OUT_OF_DATE or WV_SUBOPTIMAL, when the caller must recreate the
// swapchain.
#ifndef WAVERIG_VIEWER_PRESENT_H
#define WAVERIG_VIEWER_PRESENT_H

#include <stdint.h>
#include <vulkan/vulkan.h>

#define WV_ERR 512
#define WV_OUT_OF_DATE 1 // nothing was shown: recreate the swapchain and draw again
#define WV_SUBOPTIMAL 2  // shown, but recreate the swapchain before the next frame

typedef struct wv_ctx wv_ctx;

// wv_instance creates a Vulkan 1.0 instance with the extensions GLFW needs for
// a window surface.
int wv_instance(const char **exts, uint32_t n, VkInstance *out, char *err);
void wv_destroy_instance(VkInstance inst);

// wv_surface_at reads the surface handle at p. go-gl/glfw's
// Window.CreateWindowSurface returns the address of the VkSurfaceKHR it
// created, as a uintptr, not the handle itself; reading it on the C side
// keeps a uintptr-to-pointer conversion out of the Go code.
VkSurfaceKHR wv_surface_at(uintptr_t p);

// wv_open picks the first physical device with a queue family that can present
// to surface and copy (every graphics or compute family can), and creates the
// device, the staging buffer's command pool and the synchronisation objects.
// It takes over surface (wv_close destroys it). The swapchain comes from
// wv_swapchain.
int wv_open(VkInstance inst, VkSurfaceKHR surface, wv_ctx **out, char *err);

// wv_swapchain (re)creates the swapchain for a window of w × h pixels (the
// surface's own extent wins where it has one); wv_extent is the result.
int wv_swapchain(wv_ctx *c, uint32_t w, uint32_t h, char *err);
void wv_extent(const wv_ctx *c, uint32_t *w, uint32_t *h);

// wv_present shows one RGBA8 frame of exactly the swapchain's extent (stride
// bytes per row): copied into the staging buffer (swizzled for a BGRA
// surface), acquired, copied into the swapchain image, presented, and waited
// for, so a screenshot taken after it returns sees it on a synchronous WSI.
int wv_present(wv_ctx *c, const uint8_t *rgba, uint32_t stride, char *err);

// wv_describe writes the device name, the surface format and present mode.
void wv_describe(const wv_ctx *c, char *out, int n);

void wv_close(wv_ctx *c);

#endif
