package vkx

/*
#include "vkx.h"
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// Descriptor types of sampled textures (HLSL's separate Texture2D and
// SamplerState: SPIR-V's OpTypeImage with Sampled 1, and OpTypeSampler).
const (
	DescriptorSampledImage = uint32(C.VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE)
	DescriptorSampler      = uint32(C.VK_DESCRIPTOR_TYPE_SAMPLER)
)

// Limits of the shim's image and sampler slots.
const (
	MaxImages   = int(C.VKX_MAX_IMAGES)
	MaxSamplers = int(C.VKX_MAX_SAMPLERS)
	MaxLevels   = int(C.VKX_MAX_LEVELS)
)

// FormatR16Float is VK_FORMAT_R16_SFLOAT, the one sampled format the shim makes.
const FormatR16Float = uint32(C.VKX_FORMAT_R16_SFLOAT)

// VkFormatFeatureFlagBits the runner checks before it samples a format.
const (
	FormatFeatureSampledImage             = uint32(C.VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT)
	FormatFeatureSampledImageFilterLinear = uint32(C.VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT)
)

// Sampler modes (VkFilter, VkSamplerMipmapMode, VkSamplerAddressMode values).
const (
	FilterNearest    = uint32(C.VK_FILTER_NEAREST)
	FilterLinear     = uint32(C.VK_FILTER_LINEAR)
	MipmapNearest    = uint32(C.VK_SAMPLER_MIPMAP_MODE_NEAREST)
	MipmapLinear     = uint32(C.VK_SAMPLER_MIPMAP_MODE_LINEAR)
	AddressClampEdge = uint32(C.VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE)
)

// FormatFeatures is the device's optimalTilingFeatures for a Format* value.
func (x *Context) FormatFeatures(format uint32) uint32 {
	if x.c == nil {
		return 0
	}
	return uint32(C.vkx_format_features(x.c, C.uint32_t(format)))
}

// Image makes image slot i a width x height sampled image of format with
// len(levels) mip levels holding levels (level l tightly packed) and waits
// for the upload; a Binding of type DescriptorSampledImage names it by Slot.
func (x *Context) Image(i int, format, width, height uint32, levels [][]byte) error {
	if x.c == nil {
		return errClosed
	}
	if i < 0 || i >= MaxImages || len(levels) == 0 || len(levels) > MaxLevels {
		return fmt.Errorf("vkx: image slot %d with %d levels is out of the shim's range (%d slots, %d levels)", i, len(levels), MaxImages, MaxLevels)
	}
	// One buffer, each level at a 16-byte aligned offset (vkCmdCopyBufferToImage
	// wants offsets that are multiples of 4 and of the texel size).
	offsets := make([]uint64, len(levels))
	var data []byte
	for l, b := range levels {
		for len(data)%16 != 0 {
			data = append(data, 0)
		}
		offsets[l] = uint64(len(data))
		data = append(data, b...)
	}
	if len(data) == 0 {
		return fmt.Errorf("vkx: image slot %d has no texels", i)
	}
	var e C.vkx_err
	r := C.vkx_image(x.c, C.uint32_t(i), C.uint32_t(format), C.uint32_t(width), C.uint32_t(height), C.uint32_t(len(levels)),
		unsafe.Pointer(&data[0]), (*C.uint64_t)(unsafe.Pointer(&offsets[0])), C.uint64_t(len(data)), &e)
	if r != C.VK_SUCCESS {
		return errOf(e)
	}
	return nil
}

// Sampler makes sampler slot i a sampler with these modes; a Binding of type
// DescriptorSampler names it by Slot.
func (x *Context) Sampler(i int, mag, min, mip, address uint32) error {
	if x.c == nil {
		return errClosed
	}
	var e C.vkx_err
	if r := C.vkx_sampler(x.c, C.uint32_t(i), C.uint32_t(mag), C.uint32_t(min), C.uint32_t(mip), C.uint32_t(address), &e); r != C.VK_SUCCESS {
		return errOf(e)
	}
	return nil
}
