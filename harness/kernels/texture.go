package kernels

import (
	"encoding/binary"
	"fmt"

	"waverig/harness/models"
)

// TextureFormat is a sampled texture's texel format, spelled as WebGPU spells
// it (the Dawn runner takes the name as it is; Vulkan and wgpu map it).
type TextureFormat string

// R16Float is the one format the rig samples: one 16-bit float per texel.
//
// Why this one: the seed samples a Texture2D<float> through a filtering
// sampler. WebGPU's r32float is not filterable without the optional
// float32-filterable feature, so a linear sampler over it is a validation
// error on most adapters; r16float is filterable in core WebGPU, and Vulkan
// requires SAMPLED_IMAGE_FILTER_LINEAR for VK_FORMAT_R16_SFLOAT (the
// mandatory format table), so one texture serves every API. Its values are
// exact where the rig needs them: every height the kernels store is an
// integer below 2048, which half precision holds exactly, and converts to the
// float32 the shader sees without rounding. rgba8unorm would be filterable
// too, but k/255 is no short binary fraction, so sums and differences of
// samples would not be exact.
const R16Float TextureFormat = "r16float"

// TexelBytes is the size of one texel of the format.
func (f TextureFormat) TexelBytes() int {
	if f == R16Float {
		return 2
	}
	return 0
}

// Texture is one sampled 2-D texture of a kernel (Texture2D in the HLSL): its
// register, level-0 size, format and the texels of every mip level.
type Texture struct {
	Register      string // "t2"
	Width, Height uint32 // level 0; level i is max(1, Width>>i) x max(1, Height>>i)
	Format        TextureFormat
	// Levels[i] holds mip level i's texels, rows tightly packed, little endian.
	Levels [][]byte
}

// LevelSize is the width and height of mip level i.
func (t Texture) LevelSize(i int) (w, h uint32) {
	return max(1, t.Width>>i), max(1, t.Height>>i)
}

// Check says what is wrong with the texture's description (nil: nothing).
func (t Texture) Check() error {
	tb := t.Format.TexelBytes()
	switch {
	case tb == 0:
		return fmt.Errorf("texture %s: unknown format %q", t.Register, t.Format)
	case t.Width == 0 || t.Height == 0 || len(t.Levels) == 0:
		return fmt.Errorf("texture %s: empty (%dx%d, %d levels)", t.Register, t.Width, t.Height, len(t.Levels))
	}
	for i, l := range t.Levels {
		w, h := t.LevelSize(i)
		if len(l) != int(w*h)*tb {
			return fmt.Errorf("texture %s: level %d holds %d bytes, %dx%d texels of %s need %d", t.Register, i, len(l), w, h, t.Format, int(w*h)*tb)
		}
	}
	return nil
}

// Texel is the value of texel (i, j) of level l as the shader reads it.
func (t Texture) Texel(l int, i, j uint32) float32 {
	w, _ := t.LevelSize(l)
	return models.Float16ToFloat32(binary.LittleEndian.Uint16(t.Levels[l][2*int(j*w+i):]))
}

// FilterMode is a sampler's filter (WebGPU's spelling).
type FilterMode string

// AddressMode is a sampler's address mode (WebGPU's spelling).
type AddressMode string

// The sampler modes the rig offers.
const (
	Nearest     FilterMode  = "nearest"
	Linear      FilterMode  = "linear"
	ClampToEdge AddressMode = "clamp-to-edge"
)

// Sampler is one sampler of a kernel (SamplerState in the HLSL): its register,
// the magnification, minification and mip filters, and the address mode of
// both coordinates.
type Sampler struct {
	Register      string // "s3"
	Mag, Min, Mip FilterMode
	Address       AddressMode
}

// Check says what is wrong with the sampler's description (nil: nothing).
func (s Sampler) Check() error {
	for _, f := range []FilterMode{s.Mag, s.Min, s.Mip} {
		if f != Nearest && f != Linear {
			return fmt.Errorf("sampler %s: unknown filter %q", s.Register, f)
		}
	}
	if s.Address != ClampToEdge {
		return fmt.Errorf("sampler %s: unknown address mode %q", s.Register, s.Address)
	}
	return nil
}

// The seed's height map: heightLevels mip levels of heightSize² texels at level 0,
// texel (i, j) of level l holding heightBase[l] + heightX[l]·i + heightY[l]·j.
//
// Why this content: every value is a small integer (below 2048, exact in
// r16float), an affine function of the texel coordinate, and each level's
// values lie in a range of their own with slopes of their own, so a sample
// says which level it came from. A bilinear filter reproduces an affine
// function exactly wherever it samples between texels of one level, so a
// coordinate a hair off a texel centre moves the sample only as far as the
// function moves (sampleTolerance), and at a texel centre the weights are
// 1 and 0 on every driver, whatever its subTexelPrecisionBits.
const (
	heightSize   = 64
	heightLevels = 3
)

var (
	heightBase = [heightLevels]float32{0, 512, 1024}
	heightX    = [heightLevels]float32{1, 3, 7}
	heightY    = [heightLevels]float32{2, 5, 11}
)

// heightTexture is the seed's height map at register reg.
func heightTexture(reg string) Texture {
	t := Texture{Register: reg, Width: heightSize, Height: heightSize, Format: R16Float}
	for l := 0; l < heightLevels; l++ {
		w, h := t.LevelSize(l)
		b := make([]byte, 2*w*h)
		for j := uint32(0); j < h; j++ {
			for i := uint32(0); i < w; i++ {
				v := heightBase[l] + heightX[l]*float32(i) + heightY[l]*float32(j)
				binary.LittleEndian.PutUint16(b[2*(j*w+i):], models.Float32ToFloat16(v))
			}
		}
		t.Levels = append(t.Levels, b)
	}
	return t
}

// linearSampler is the seed's SamplerState: bilinear within a level, the
// nearest level between levels (so an LOD a hair off an integer still picks
// that level: see slopeLevel), coordinates clamped to the edge (which no
// sample of the seed kernels reaches: see slopeTexel).
func linearSampler(reg string) Sampler {
	return Sampler{Register: reg, Mag: Linear, Min: Linear, Mip: Nearest, Address: ClampToEdge}
}
