package webgpu

import (
	"fmt"

	"github.com/oliverbestmann/webgpu/wgpu"
)

// Texture is one sampled 2-D texture of a dispatch or draw (texture_2d<f32>):
// where the module binds it, its format as WebGPU spells it (only "r16float":
// filterable in core WebGPU, unlike r32float), level-0 size and the texels of
// each mip level (level l is max(1, Width>>l) x max(1, Height>>l), rows
// tightly packed), written with Queue.WriteTexture before the job.
type Texture struct {
	Group, Binding int
	Format         string
	Width, Height  uint32
	Levels         [][]byte
}

// Sampler is one sampler of a dispatch or draw: filters and address mode as
// WebGPU spells them ("linear"/"nearest", "clamp-to-edge"), LOD clamp [0, 32].
type Sampler struct {
	Group, Binding int
	Mag, Min, Mip  string
	Address        string
}

// Sampling is the textures and samplers of a job.
type Sampling struct {
	Textures []Texture
	Samplers []Sampler
}

func textureFormat(name string) (wgpu.TextureFormat, int, error) {
	if name == "r16float" {
		return wgpu.TextureFormatR16Float, 2, nil
	}
	return 0, 0, fmt.Errorf("webgpu: texture format %q is not one the rig samples", name)
}

func filterMode(name string) (wgpu.FilterMode, error) {
	switch name {
	case "linear":
		return wgpu.FilterModeLinear, nil
	case "nearest":
		return wgpu.FilterModeNearest, nil
	}
	return 0, fmt.Errorf("webgpu: unknown filter %q", name)
}

func mipmapMode(name string) (wgpu.MipmapFilterMode, error) {
	switch name {
	case "linear":
		return wgpu.MipmapFilterModeLinear, nil
	case "nearest":
		return wgpu.MipmapFilterModeNearest, nil
	}
	return 0, fmt.Errorf("webgpu: unknown mipmap filter %q", name)
}

// filtering says whether a sampler filters (binding type "filtering") or only
// takes the nearest texel ("non-filtering").
func (s Sampler) filtering() bool { return s.Mag == "linear" || s.Min == "linear" || s.Mip == "linear" }

// samplingLayout is the bind group layout entries of a draw's textures and
// samplers (visible to both stages, as the buffers are) and their part of the
// pipeline key.
func samplingLayout(s Sampling) (map[int][]wgpu.BindGroupLayoutEntry, []string) {
	groups := map[int][]wgpu.BindGroupLayoutEntry{}
	var sig []string
	vis := wgpu.ShaderStageVertex | wgpu.ShaderStageFragment
	for _, t := range s.Textures {
		groups[t.Group] = append(groups[t.Group], wgpu.BindGroupLayoutEntry{Binding: uint32(t.Binding), Visibility: vis,
			Texture: wgpu.TextureBindingLayout{SampleType: wgpu.TextureSampleTypeFloat, ViewDimension: wgpu.TextureViewDimension2D}})
		sig = append(sig, fmt.Sprintf("%d.%d:texture", t.Group, t.Binding))
	}
	for _, sm := range s.Samplers {
		typ := wgpu.SamplerBindingTypeNonFiltering
		if sm.filtering() {
			typ = wgpu.SamplerBindingTypeFiltering
		}
		groups[sm.Group] = append(groups[sm.Group], wgpu.BindGroupLayoutEntry{Binding: uint32(sm.Binding), Visibility: vis,
			Sampler: wgpu.SamplerBindingLayout{Type: typ}})
		sig = append(sig, fmt.Sprintf("%d.%d:sampler:%d", sm.Group, sm.Binding, typ))
	}
	return groups, sig
}

// sampling creates a job's textures (written with their levels), views and
// samplers, and returns their bind group entries by group.
func (j *work) sampling(s Sampling) (map[int][]wgpu.BindGroupEntry, error) {
	dev := j.d.dev
	entries := map[int][]wgpu.BindGroupEntry{}
	for _, t := range s.Textures {
		format, texel, err := textureFormat(t.Format)
		if err != nil {
			return nil, err
		}
		if t.Width == 0 || t.Height == 0 || len(t.Levels) == 0 {
			return nil, fmt.Errorf("webgpu: texture %d.%d is empty", t.Group, t.Binding)
		}
		tex, err := dev.TryCreateTexture(&wgpu.TextureDescriptor{
			Label: fmt.Sprintf("texture %d.%d", t.Group, t.Binding), Usage: wgpu.TextureUsageTextureBinding | wgpu.TextureUsageCopyDst,
			Dimension: wgpu.TextureDimension2D, Size: wgpu.Extent3D{Width: t.Width, Height: t.Height, DepthOrArrayLayers: 1},
			Format: format, MipLevelCount: uint32(len(t.Levels)), SampleCount: 1,
		})
		if err != nil {
			return nil, fmt.Errorf("texture %d.%d: %w", t.Group, t.Binding, err)
		}
		j.release = append(j.release, tex.Release)
		queue := dev.GetQueue()
		for l, data := range t.Levels {
			w, h := max(1, t.Width>>l), max(1, t.Height>>l)
			if len(data) != int(w*h)*texel {
				queue.Release()
				return nil, fmt.Errorf("webgpu: texture %d.%d level %d holds %d bytes, %dx%d texels need %d", t.Group, t.Binding, l, len(data), w, h, int(w*h)*texel)
			}
			// writeTexture (unlike copyBufferToTexture) takes rows at any
			// stride: the level's rows as they are.
			err := queue.TryWriteTexture(&wgpu.TexelCopyTextureInfo{Texture: tex, MipLevel: uint32(l), Aspect: wgpu.TextureAspectAll}, data,
				&wgpu.TexelCopyBufferLayout{BytesPerRow: w * uint32(texel), RowsPerImage: h}, &wgpu.Extent3D{Width: w, Height: h, DepthOrArrayLayers: 1})
			if err != nil {
				queue.Release()
				return nil, fmt.Errorf("texture %d.%d level %d: %w", t.Group, t.Binding, l, err)
			}
		}
		queue.Release()
		view, err := tex.TryCreateView(nil)
		if err != nil {
			return nil, fmt.Errorf("texture %d.%d view: %w", t.Group, t.Binding, err)
		}
		j.release = append(j.release, view.Release)
		entries[t.Group] = append(entries[t.Group], wgpu.BindGroupEntry{Binding: uint32(t.Binding), TextureView: view})
	}
	for _, sm := range s.Samplers {
		mag, err1 := filterMode(sm.Mag)
		min, err2 := filterMode(sm.Min)
		mip, err3 := mipmapMode(sm.Mip)
		for _, err := range []error{err1, err2, err3} {
			if err != nil {
				return nil, err
			}
		}
		if sm.Address != "clamp-to-edge" {
			return nil, fmt.Errorf("webgpu: unknown address mode %q", sm.Address)
		}
		smp, err := dev.TryCreateSampler(&wgpu.SamplerDescriptor{Label: fmt.Sprintf("sampler %d.%d", sm.Group, sm.Binding),
			AddressModeU: wgpu.AddressModeClampToEdge, AddressModeV: wgpu.AddressModeClampToEdge, AddressModeW: wgpu.AddressModeClampToEdge,
			MagFilter: mag, MinFilter: min, MipmapFilter: mip, LodMinClamp: 0, LodMaxClamp: 32, MaxAnisotropy: 1})
		if err != nil {
			return nil, fmt.Errorf("sampler %d.%d: %w", sm.Group, sm.Binding, err)
		}
		j.release = append(j.release, smp.Release)
		entries[sm.Group] = append(entries[sm.Group], wgpu.BindGroupEntry{Binding: uint32(sm.Binding), Sampler: smp})
	}
	return entries, nil
}
