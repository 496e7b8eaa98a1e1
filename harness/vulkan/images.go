package vulkan

import (
	"fmt"

	"waverig/devices/vkx"
)

// ImageFormat is the texel format of a sampled image.
type ImageFormat int

// R16Float is VK_FORMAT_R16_SFLOAT, the one format the runner samples (its
// SAMPLED_IMAGE and SAMPLED_IMAGE_FILTER_LINEAR features are mandatory in
// Vulkan; the runner checks them all the same).
const R16Float ImageFormat = 1

func (f ImageFormat) String() string {
	if f == R16Float {
		return "R16_SFLOAT"
	}
	return fmt.Sprintf("ImageFormat(%d)", int(f))
}

func (f ImageFormat) texelBytes() int {
	if f == R16Float {
		return 2
	}
	return 0
}

// Image is one sampled image of a job (VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE: HLSL's
// Texture2D, which SPIR-V keeps apart from its sampler): where the module binds
// it, its level-0 size, format and the texels of each mip level (level l is
// max(1, Width>>l) x max(1, Height>>l), rows tightly packed). The runner
// uploads it through a staging buffer before the job and leaves it in
// SHADER_READ_ONLY_OPTIMAL.
type Image struct {
	Set, Binding  uint32
	Format        ImageFormat
	Width, Height uint32
	Levels        [][]byte
}

// Filter is a sampler's filter: magnification, minification, or between mip
// levels.
type Filter int

const (
	FilterNearest Filter = iota // VK_FILTER_NEAREST / VK_SAMPLER_MIPMAP_MODE_NEAREST
	FilterLinear                // VK_FILTER_LINEAR / VK_SAMPLER_MIPMAP_MODE_LINEAR
)

// AddressMode is a sampler's address mode (all coordinates).
type AddressMode int

// ClampToEdge is VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE.
const ClampToEdge AddressMode = 0

// Sampler is one sampler of a job (VK_DESCRIPTOR_TYPE_SAMPLER: HLSL's
// SamplerState), LOD range [0, VK_LOD_CLAMP_NONE], normalized coordinates.
type Sampler struct {
	Set, Binding  uint32
	Mag, Min, Mip Filter
	Address       AddressMode
}

func (f Filter) shim(mip bool) (uint32, error) {
	switch {
	case f == FilterNearest && mip:
		return vkx.MipmapNearest, nil
	case f == FilterLinear && mip:
		return vkx.MipmapLinear, nil
	case f == FilterNearest:
		return vkx.FilterNearest, nil
	case f == FilterLinear:
		return vkx.FilterLinear, nil
	}
	return 0, fmt.Errorf("vulkan: unknown filter %d", int(f))
}

// checkBindings is checkBuffers for a job's buffers, images and samplers: the
// shim's bindings (images and samplers name their own slots) and the
// canonical layout string of all three.
func (r *Runner) checkBindings(bufs []Buffer, images []Image, samplers []Sampler) ([]vkx.Binding, string, error) {
	out, layout, err := r.checkBuffers(bufs)
	if err != nil {
		return nil, "", err
	}
	if len(images) > vkx.MaxImages || len(samplers) > vkx.MaxSamplers || len(bufs)+len(images)+len(samplers) > vkx.MaxBuffers {
		return nil, "", fmt.Errorf("vulkan: %d images and %d samplers beside %d buffers: at most %d images, %d samplers and %d bindings per job",
			len(images), len(samplers), len(bufs), vkx.MaxImages, vkx.MaxSamplers, vkx.MaxBuffers)
	}
	seen := map[[2]uint32]bool{}
	for _, b := range bufs {
		seen[[2]uint32{b.Set, b.Binding}] = true
	}
	claim := func(what string, i int, set, binding uint32) error {
		if int(set) >= vkx.MaxSets {
			return fmt.Errorf("vulkan: %s %d uses set %d, at most %d sets", what, i, set, vkx.MaxSets)
		}
		if seen[[2]uint32{set, binding}] {
			return fmt.Errorf("vulkan: %s %d uses set %d binding %d, which another binding of the job has", what, i, set, binding)
		}
		seen[[2]uint32{set, binding}] = true
		return nil
	}
	for i, im := range images {
		if err := claim("image", i, im.Set, im.Binding); err != nil {
			return nil, "", err
		}
		if err := r.checkImage(im); err != nil {
			return nil, "", fmt.Errorf("vulkan: image %d (set %d binding %d): %w", i, im.Set, im.Binding, err)
		}
		out = append(out, vkx.Binding{Set: im.Set, Binding: im.Binding, Type: vkx.DescriptorSampledImage, Slot: uint32(i)})
		layout += fmt.Sprintf("%d.%d.%d;", im.Set, im.Binding, vkx.DescriptorSampledImage)
	}
	for i, sm := range samplers {
		if err := claim("sampler", i, sm.Set, sm.Binding); err != nil {
			return nil, "", err
		}
		out = append(out, vkx.Binding{Set: sm.Set, Binding: sm.Binding, Type: vkx.DescriptorSampler, Slot: uint32(i)})
		layout += fmt.Sprintf("%d.%d.%d;", sm.Set, sm.Binding, vkx.DescriptorSampler)
	}
	return out, layout, nil
}

// checkImage refuses an image whose description is inconsistent, and one
// whose format the device cannot sample with a linear filter (Vulkan makes
// both features mandatory for R16_SFLOAT; a device without them would be
// out of spec, and the job is refused with the reason rather than run).
func (r *Runner) checkImage(im Image) error {
	tb := im.Format.texelBytes()
	if tb == 0 {
		return fmt.Errorf("unknown format %v", im.Format)
	}
	if im.Width == 0 || im.Height == 0 || len(im.Levels) == 0 || len(im.Levels) > vkx.MaxLevels {
		return fmt.Errorf("%dx%d with %d levels (1 to %d levels of a non-empty image)", im.Width, im.Height, len(im.Levels), vkx.MaxLevels)
	}
	for l, b := range im.Levels {
		w, h := max(1, im.Width>>l), max(1, im.Height>>l)
		if len(b) != int(w*h)*tb {
			return fmt.Errorf("level %d holds %d bytes; %dx%d texels of %v are %d", l, len(b), w, h, im.Format, int(w*h)*tb)
		}
	}
	need := vkx.FormatFeatureSampledImage | vkx.FormatFeatureSampledImageFilterLinear
	if got := r.ctx.FormatFeatures(vkx.FormatR16Float); got&need != need {
		return limitErr("formatFeatures", "%s lacks SAMPLED_IMAGE and SAMPLED_IMAGE_FILTER_LINEAR for %v (optimalTilingFeatures %#x)", r.dev.Name, im.Format, got)
	}
	return nil
}

// uploadImages makes the shim's image and sampler slots hold a job's images
// and samplers, in job order (checkBindings named the slots so).
func (r *Runner) uploadImages(images []Image, samplers []Sampler) error {
	for i, im := range images {
		if err := r.ctx.Image(i, vkx.FormatR16Float, im.Width, im.Height, im.Levels); err != nil {
			return fmt.Errorf("vulkan: image %d (set %d binding %d): %w", i, im.Set, im.Binding, err)
		}
	}
	for i, sm := range samplers {
		mag, err1 := sm.Mag.shim(false)
		min, err2 := sm.Min.shim(false)
		mip, err3 := sm.Mip.shim(true)
		if err := firstErr(err1, err2, err3); err != nil {
			return err
		}
		if sm.Address != ClampToEdge {
			return fmt.Errorf("vulkan: sampler %d: unknown address mode %d", i, int(sm.Address))
		}
		if err := r.ctx.Sampler(i, mag, min, mip, vkx.AddressClampEdge); err != nil {
			return fmt.Errorf("vulkan: sampler %d (set %d binding %d): %w", i, sm.Set, sm.Binding, err)
		}
	}
	return nil
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
