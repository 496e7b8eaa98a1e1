//go:build viewer

// present.c: puts the viewer's frames on screen through Vulkan. No rendering
// happens on the GPU: the frame is drawn in Go, copied into a host-visible
// buffer, and vkCmdCopyBufferToImage moves it into the acquired swapchain
// image. That keeps the window's pixels exactly the Go image's (the screenshot
// test compares them) and needs nothing from the device but a transfer queue
// that can present, which lavapipe has.

#include "present.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct wv_ctx {
	VkInstance instance;
	VkSurfaceKHR surface;
	VkPhysicalDevice phys;
	VkPhysicalDeviceProperties props;
	uint32_t family;
	VkDevice device;
	VkQueue queue;

	VkSwapchainKHR swapchain;
	VkFormat format;
	int bgra; // the swapchain's byte order is B, G, R, A: swizzle while copying
	VkExtent2D extent;
	uint32_t nimages;
	VkImage *images;

	VkBuffer staging;
	VkDeviceMemory stagingMem;
	VkDeviceSize stagingSize;
	void *mapped;

	VkCommandPool pool;
	VkCommandBuffer cmd;
	VkSemaphore acquired, copied;
};

static int fail(char *err, const char *what, VkResult r) {
	snprintf(err, WV_ERR, "%s: VkResult %d", what, (int)r);
	return -1;
}

int wv_instance(const char **exts, uint32_t n, VkInstance *out, char *err) {
	VkApplicationInfo app = {
		.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
		.pApplicationName = "waverig view",
		.apiVersion = VK_API_VERSION_1_0,
	};
	VkInstanceCreateInfo ci = {
		.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
		.pApplicationInfo = &app,
		.enabledExtensionCount = n,
		.ppEnabledExtensionNames = exts,
	};
	VkResult r = vkCreateInstance(&ci, NULL, out);
	if (r != VK_SUCCESS) return fail(err, "vkCreateInstance (with GLFW's surface extensions)", r);
	return 0;
}

void wv_destroy_instance(VkInstance inst) {
	if (inst) vkDestroyInstance(inst, NULL);
}

VkSurfaceKHR wv_surface_at(uintptr_t p) { return *(VkSurfaceKHR *)p; }

// pick finds the first device and queue family that can present to the surface
// and copy. Any graphics or compute family supports transfers.
static int pick(wv_ctx *c, char *err) {
	uint32_t n = 0;
	VkResult r = vkEnumeratePhysicalDevices(c->instance, &n, NULL);
	if (r != VK_SUCCESS) return fail(err, "vkEnumeratePhysicalDevices", r);
	if (n == 0) {
		snprintf(err, WV_ERR, "no Vulkan physical device");
		return -1;
	}
	VkPhysicalDevice *devs = calloc(n, sizeof *devs);
	vkEnumeratePhysicalDevices(c->instance, &n, devs);
	int found = 0;
	for (uint32_t d = 0; d < n && !found; d++) {
		uint32_t nf = 0;
		vkGetPhysicalDeviceQueueFamilyProperties(devs[d], &nf, NULL);
		VkQueueFamilyProperties *fams = calloc(nf, sizeof *fams);
		vkGetPhysicalDeviceQueueFamilyProperties(devs[d], &nf, fams);
		for (uint32_t f = 0; f < nf; f++) {
			VkBool32 present = VK_FALSE;
			if (!(fams[f].queueFlags & (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT | VK_QUEUE_TRANSFER_BIT)))
				continue;
			if (vkGetPhysicalDeviceSurfaceSupportKHR(devs[d], f, c->surface, &present) != VK_SUCCESS || !present)
				continue;
			c->phys = devs[d];
			c->family = f;
			found = 1;
			break;
		}
		free(fams);
	}
	free(devs);
	if (!found) {
		snprintf(err, WV_ERR, "none of the %u Vulkan devices can present to this window", n);
		return -1;
	}
	vkGetPhysicalDeviceProperties(c->phys, &c->props);
	return 0;
}

int wv_open(VkInstance inst, VkSurfaceKHR surface, wv_ctx **out, char *err) {
	wv_ctx *c = calloc(1, sizeof *c);
	c->instance = inst;
	c->surface = surface;
	*out = c;
	if (pick(c, err)) return -1;

	float prio = 1.0f;
	VkDeviceQueueCreateInfo qci = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
		.queueFamilyIndex = c->family,
		.queueCount = 1,
		.pQueuePriorities = &prio,
	};
	const char *ext = VK_KHR_SWAPCHAIN_EXTENSION_NAME;
	VkDeviceCreateInfo dci = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
		.queueCreateInfoCount = 1,
		.pQueueCreateInfos = &qci,
		.enabledExtensionCount = 1,
		.ppEnabledExtensionNames = &ext,
	};
	VkResult r = vkCreateDevice(c->phys, &dci, NULL, &c->device);
	if (r != VK_SUCCESS) return fail(err, "vkCreateDevice (VK_KHR_swapchain)", r);
	vkGetDeviceQueue(c->device, c->family, 0, &c->queue);

	VkCommandPoolCreateInfo pci = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
		.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
		.queueFamilyIndex = c->family,
	};
	if ((r = vkCreateCommandPool(c->device, &pci, NULL, &c->pool)) != VK_SUCCESS)
		return fail(err, "vkCreateCommandPool", r);
	VkCommandBufferAllocateInfo ai = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
		.commandPool = c->pool,
		.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
		.commandBufferCount = 1,
	};
	if ((r = vkAllocateCommandBuffers(c->device, &ai, &c->cmd)) != VK_SUCCESS)
		return fail(err, "vkAllocateCommandBuffers", r);
	return 0;
}

// semaphores makes the acquire and copy semaphores afresh. A present that
// fails with OUT_OF_DATE may leave its wait semaphore signalled, and
// signalling it again would be invalid, so a new swapchain gets new ones.
static int semaphores(wv_ctx *c, char *err) {
	if (c->acquired) vkDestroySemaphore(c->device, c->acquired, NULL);
	if (c->copied) vkDestroySemaphore(c->device, c->copied, NULL);
	c->acquired = c->copied = VK_NULL_HANDLE;
	VkSemaphoreCreateInfo sci = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
	VkResult r;
	if ((r = vkCreateSemaphore(c->device, &sci, NULL, &c->acquired)) != VK_SUCCESS ||
	    (r = vkCreateSemaphore(c->device, &sci, NULL, &c->copied)) != VK_SUCCESS)
		return fail(err, "vkCreateSemaphore", r);
	return 0;
}

// chooseFormat takes a 4-byte UNORM or SRGB format in B,G,R,A or R,G,B,A
// order. The copy moves bytes without conversion either way, so an SRGB
// format shows the same pixels as a UNORM one; B8G8R8A8_UNORM comes first
// because it is what X servers scan out.
static int chooseFormat(wv_ctx *c, VkSurfaceFormatKHR *out, char *err) {
	uint32_t n = 0;
	VkResult r = vkGetPhysicalDeviceSurfaceFormatsKHR(c->phys, c->surface, &n, NULL);
	if (r != VK_SUCCESS) return fail(err, "vkGetPhysicalDeviceSurfaceFormatsKHR", r);
	VkSurfaceFormatKHR *fs = calloc(n ? n : 1, sizeof *fs);
	vkGetPhysicalDeviceSurfaceFormatsKHR(c->phys, c->surface, &n, fs);
	static const VkFormat prefer[] = {VK_FORMAT_B8G8R8A8_UNORM, VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_B8G8R8A8_SRGB,
					  VK_FORMAT_R8G8B8A8_SRGB};
	int found = 0;
	for (size_t p = 0; p < sizeof prefer / sizeof prefer[0] && !found; p++) {
		for (uint32_t i = 0; i < n; i++) {
			if (fs[i].format == prefer[p]) {
				*out = fs[i];
				found = 1;
				break;
			}
		}
	}
	free(fs);
	if (!found) {
		snprintf(err, WV_ERR, "the surface offers none of B8G8R8A8/R8G8B8A8 (UNORM or SRGB) among its %u formats", n);
		return -1;
	}
	c->bgra = out->format == VK_FORMAT_B8G8R8A8_UNORM || out->format == VK_FORMAT_B8G8R8A8_SRGB;
	return 0;
}

static void dropStaging(wv_ctx *c) {
	if (c->mapped) vkUnmapMemory(c->device, c->stagingMem);
	if (c->staging) vkDestroyBuffer(c->device, c->staging, NULL);
	if (c->stagingMem) vkFreeMemory(c->device, c->stagingMem, NULL);
	c->mapped = NULL;
	c->staging = VK_NULL_HANDLE;
	c->stagingMem = VK_NULL_HANDLE;
	c->stagingSize = 0;
}

// staging makes the host-visible, coherent buffer one frame is written to.
static int staging(wv_ctx *c, VkDeviceSize size, char *err) {
	if (c->stagingSize >= size) return 0;
	dropStaging(c);
	VkBufferCreateInfo bci = {
		.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
		.size = size,
		.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
		.sharingMode = VK_SHARING_MODE_EXCLUSIVE,
	};
	VkResult r = vkCreateBuffer(c->device, &bci, NULL, &c->staging);
	if (r != VK_SUCCESS) return fail(err, "vkCreateBuffer (staging)", r);
	VkMemoryRequirements req;
	vkGetBufferMemoryRequirements(c->device, c->staging, &req);
	VkPhysicalDeviceMemoryProperties mp;
	vkGetPhysicalDeviceMemoryProperties(c->phys, &mp);
	const VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
	uint32_t type = UINT32_MAX;
	for (uint32_t i = 0; i < mp.memoryTypeCount; i++) {
		if ((req.memoryTypeBits & (1u << i)) && (mp.memoryTypes[i].propertyFlags & want) == want) {
			type = i;
			break;
		}
	}
	if (type == UINT32_MAX) {
		snprintf(err, WV_ERR, "no host-visible coherent memory for the staging buffer");
		return -1;
	}
	VkMemoryAllocateInfo mai = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
		.allocationSize = req.size,
		.memoryTypeIndex = type,
	};
	if ((r = vkAllocateMemory(c->device, &mai, NULL, &c->stagingMem)) != VK_SUCCESS)
		return fail(err, "vkAllocateMemory (staging)", r);
	if ((r = vkBindBufferMemory(c->device, c->staging, c->stagingMem, 0)) != VK_SUCCESS)
		return fail(err, "vkBindBufferMemory (staging)", r);
	if ((r = vkMapMemory(c->device, c->stagingMem, 0, VK_WHOLE_SIZE, 0, &c->mapped)) != VK_SUCCESS)
		return fail(err, "vkMapMemory (staging)", r);
	c->stagingSize = size;
	return 0;
}

int wv_swapchain(wv_ctx *c, uint32_t w, uint32_t h, char *err) {
	// The old chain may still be read by the presentation engine.
	vkDeviceWaitIdle(c->device);
	VkSurfaceCapabilitiesKHR caps;
	VkResult r = vkGetPhysicalDeviceSurfaceCapabilitiesKHR(c->phys, c->surface, &caps);
	if (r != VK_SUCCESS) return fail(err, "vkGetPhysicalDeviceSurfaceCapabilitiesKHR", r);
	if (!(caps.supportedUsageFlags & VK_IMAGE_USAGE_TRANSFER_DST_BIT)) {
		snprintf(err, WV_ERR, "the surface's images cannot be copied to (no TRANSFER_DST usage)");
		return -1;
	}
	VkSurfaceFormatKHR fmt;
	if (chooseFormat(c, &fmt, err)) return -1;
	if (semaphores(c, err)) return -1;

	// 0xFFFFFFFF: the surface takes the swapchain's size (the window's).
	VkExtent2D ext = caps.currentExtent;
	if (ext.width == UINT32_MAX) {
		ext.width = w < caps.minImageExtent.width ? caps.minImageExtent.width : w;
		ext.height = h < caps.minImageExtent.height ? caps.minImageExtent.height : h;
		if (ext.width > caps.maxImageExtent.width) ext.width = caps.maxImageExtent.width;
		if (ext.height > caps.maxImageExtent.height) ext.height = caps.maxImageExtent.height;
	}
	if (ext.width == 0 || ext.height == 0) {
		snprintf(err, WV_ERR, "the window has no area (%ux%u)", ext.width, ext.height);
		return -1;
	}
	uint32_t count = caps.minImageCount + 1;
	if (caps.maxImageCount && count > caps.maxImageCount) count = caps.maxImageCount;
	VkCompositeAlphaFlagBitsKHR alpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
	if (!(caps.supportedCompositeAlpha & alpha)) {
		for (uint32_t b = 1; b; b <<= 1) {
			if (caps.supportedCompositeAlpha & b) {
				alpha = (VkCompositeAlphaFlagBitsKHR)b;
				break;
			}
		}
	}
	VkSwapchainKHR old = c->swapchain;
	VkSwapchainCreateInfoKHR sci = {
		.sType = VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR,
		.surface = c->surface,
		.minImageCount = count,
		.imageFormat = fmt.format,
		.imageColorSpace = fmt.colorSpace,
		.imageExtent = ext,
		.imageArrayLayers = 1,
		.imageUsage = VK_IMAGE_USAGE_TRANSFER_DST_BIT,
		.imageSharingMode = VK_SHARING_MODE_EXCLUSIVE,
		.preTransform = caps.currentTransform,
		.compositeAlpha = alpha,
		// FIFO: the one mode every driver must offer, and it never tears.
		.presentMode = VK_PRESENT_MODE_FIFO_KHR,
		.clipped = VK_TRUE,
		.oldSwapchain = old,
	};
	r = vkCreateSwapchainKHR(c->device, &sci, NULL, &c->swapchain);
	if (old) vkDestroySwapchainKHR(c->device, old, NULL);
	if (r != VK_SUCCESS) {
		c->swapchain = VK_NULL_HANDLE;
		return fail(err, "vkCreateSwapchainKHR", r);
	}
	c->format = fmt.format;
	c->extent = ext;
	free(c->images);
	c->images = NULL;
	vkGetSwapchainImagesKHR(c->device, c->swapchain, &c->nimages, NULL);
	c->images = calloc(c->nimages, sizeof *c->images);
	if ((r = vkGetSwapchainImagesKHR(c->device, c->swapchain, &c->nimages, c->images)) != VK_SUCCESS)
		return fail(err, "vkGetSwapchainImagesKHR", r);
	return staging(c, (VkDeviceSize)ext.width * ext.height * 4, err);
}

void wv_extent(const wv_ctx *c, uint32_t *w, uint32_t *h) {
	*w = c->extent.width;
	*h = c->extent.height;
}

static void barrier(VkCommandBuffer cmd, VkImage img, VkImageLayout from, VkImageLayout to, VkAccessFlags srcAccess,
		    VkAccessFlags dstAccess, VkPipelineStageFlags srcStage, VkPipelineStageFlags dstStage) {
	VkImageMemoryBarrier b = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
		.srcAccessMask = srcAccess,
		.dstAccessMask = dstAccess,
		.oldLayout = from,
		.newLayout = to,
		.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.image = img,
		.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1},
	};
	vkCmdPipelineBarrier(cmd, srcStage, dstStage, 0, 0, NULL, 0, NULL, 1, &b);
}

int wv_present(wv_ctx *c, const uint8_t *rgba, uint32_t stride, char *err) {
	if (!c->swapchain) {
		snprintf(err, WV_ERR, "no swapchain");
		return -1;
	}
	// The frame into the staging buffer, rows packed, in the swapchain's byte order.
	uint32_t w = c->extent.width, h = c->extent.height;
	uint8_t *dst = c->mapped;
	for (uint32_t y = 0; y < h; y++) {
		const uint8_t *s = rgba + (size_t)y * stride;
		uint8_t *d = dst + (size_t)y * w * 4;
		if (!c->bgra) {
			memcpy(d, s, (size_t)w * 4);
			continue;
		}
		for (uint32_t x = 0; x < w; x++, s += 4, d += 4) {
			d[0] = s[2];
			d[1] = s[1];
			d[2] = s[0];
			d[3] = s[3];
		}
	}

	uint32_t idx;
	VkResult r = vkAcquireNextImageKHR(c->device, c->swapchain, UINT64_MAX, c->acquired, VK_NULL_HANDLE, &idx);
	if (r == VK_ERROR_OUT_OF_DATE_KHR) return WV_OUT_OF_DATE;
	if (r != VK_SUCCESS && r != VK_SUBOPTIMAL_KHR) return fail(err, "vkAcquireNextImageKHR", r);

	VkCommandBufferBeginInfo bi = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
		.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
	};
	vkResetCommandBuffer(c->cmd, 0);
	vkBeginCommandBuffer(c->cmd, &bi);
	// UNDEFINED: the whole image is overwritten, its old contents do not matter.
	// The source stage is the one the acquire semaphore's wait is chained to.
	barrier(c->cmd, c->images[idx], VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0,
		VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT);
	VkBufferImageCopy region = {
		.bufferOffset = 0,
		.bufferRowLength = 0, // tightly packed
		.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
		.imageExtent = {w, h, 1},
	};
	vkCmdCopyBufferToImage(c->cmd, c->staging, c->images[idx], VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
	barrier(c->cmd, c->images[idx], VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_PRESENT_SRC_KHR,
		VK_ACCESS_TRANSFER_WRITE_BIT, 0, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT);
	if ((r = vkEndCommandBuffer(c->cmd)) != VK_SUCCESS) return fail(err, "vkEndCommandBuffer", r);

	VkPipelineStageFlags waitStage = VK_PIPELINE_STAGE_TRANSFER_BIT;
	VkSubmitInfo si = {
		.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
		.waitSemaphoreCount = 1,
		.pWaitSemaphores = &c->acquired,
		.pWaitDstStageMask = &waitStage,
		.commandBufferCount = 1,
		.pCommandBuffers = &c->cmd,
		.signalSemaphoreCount = 1,
		.pSignalSemaphores = &c->copied,
	};
	if ((r = vkQueueSubmit(c->queue, 1, &si, VK_NULL_HANDLE)) != VK_SUCCESS) return fail(err, "vkQueueSubmit", r);
	VkPresentInfoKHR pi = {
		.sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR,
		.waitSemaphoreCount = 1,
		.pWaitSemaphores = &c->copied,
		.swapchainCount = 1,
		.pSwapchains = &c->swapchain,
		.pImageIndices = &idx,
	};
	r = vkQueuePresentKHR(c->queue, &pi);
	// One frame in flight: the staging buffer, command buffer and both
	// semaphores are free again once the queue is idle. A viewer redraws on
	// input, not 60 times a second, so the lost overlap costs nothing.
	vkQueueWaitIdle(c->queue);
	if (r == VK_ERROR_OUT_OF_DATE_KHR) return WV_OUT_OF_DATE;
	if (r != VK_SUCCESS && r != VK_SUBOPTIMAL_KHR) return fail(err, "vkQueuePresentKHR", r);
	return r == VK_SUBOPTIMAL_KHR ? WV_SUBOPTIMAL : 0;
}

static const char *formatName(VkFormat f) {
	switch (f) {
	case VK_FORMAT_B8G8R8A8_UNORM: return "B8G8R8A8_UNORM";
	case VK_FORMAT_R8G8B8A8_UNORM: return "R8G8B8A8_UNORM";
	case VK_FORMAT_B8G8R8A8_SRGB: return "B8G8R8A8_SRGB";
	case VK_FORMAT_R8G8B8A8_SRGB: return "R8G8B8A8_SRGB";
	default: return "?";
	}
}

void wv_describe(const wv_ctx *c, char *out, int n) {
	snprintf(out, n, "%s, %s %ux%u, %u images, FIFO", c->props.deviceName, formatName(c->format), c->extent.width,
		 c->extent.height, c->nimages);
}

void wv_close(wv_ctx *c) {
	if (!c) return;
	if (c->device) {
		vkDeviceWaitIdle(c->device);
		dropStaging(c);
		if (c->swapchain) vkDestroySwapchainKHR(c->device, c->swapchain, NULL);
		if (c->acquired) vkDestroySemaphore(c->device, c->acquired, NULL);
		if (c->copied) vkDestroySemaphore(c->device, c->copied, NULL);
		if (c->pool) vkDestroyCommandPool(c->device, c->pool, NULL);
		vkDestroyDevice(c->device, NULL);
	}
	if (c->surface) vkDestroySurfaceKHR(c->instance, c->surface, NULL);
	free(c->images);
	free(c);
}
