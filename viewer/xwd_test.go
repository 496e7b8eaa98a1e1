package viewer

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/color"
	"math/bits"
	"testing"
)

// decodeXWD reads what `xwd -root -silent` writes of a TrueColor screen: the
// X Window Dump header (25 big-endian 32-bit fields, then the window name up
// to header_size), ncolors colormap entries of 12 bytes, then ZPixmap rows of
// bytes_per_line bytes. Pixels are 24 bits (packed; what xwd writes of Xvfb's
// depth-24 screen) or 32, in the dump's byte order, with the channels where
// the red, green and blue masks say. The screenshot test compares the window's
// part of it with the frame the viewer drew.
func decodeXWD(data []byte) (*image.RGBA, error) {
	const fields = 25
	if len(data) < 4*fields {
		return nil, errors.New("xwd: shorter than its header")
	}
	var h [fields]uint32
	for i := range h {
		h[i] = binary.BigEndian.Uint32(data[4*i:])
	}
	headerSize, version, format, width, height := h[0], h[1], h[2], int(h[4]), int(h[5])
	byteOrder, bpp, bpl := h[7], h[11], int(h[12])
	masks := [3]uint32{h[14], h[15], h[16]}
	ncolors := h[19]
	if version != 7 || format != 2 {
		return nil, fmt.Errorf("xwd: version %d format %d, want 7 and ZPixmap (2)", version, format)
	}
	if bpp != 24 && bpp != 32 {
		return nil, fmt.Errorf("xwd: %d bits per pixel, want 24 or 32 (a TrueColor screen)", bpp)
	}
	for _, m := range masks {
		if m == 0 || bits.OnesCount32(m) != 8 {
			return nil, fmt.Errorf("xwd: colour masks %#x, want 8 bits each", masks)
		}
	}
	bytesPP := int(bpp / 8)
	if width <= 0 || height <= 0 || bpl < width*bytesPP {
		return nil, fmt.Errorf("xwd: %dx%d with %d bytes per line", width, height, bpl)
	}
	off := int(headerSize) + int(ncolors)*12
	if off < 4*fields || off+bpl*height > len(data) || off+bpl*height < off {
		return nil, fmt.Errorf("xwd: %d bytes, want %d", len(data), off+bpl*height)
	}
	img := image.NewRGBA(image.Rect(0, 0, width, height))
	for y := 0; y < height; y++ {
		row := data[off+y*bpl:]
		for x := 0; x < width; x++ {
			p := row[x*bytesPP : (x+1)*bytesPP]
			var v uint32
			for i := range p {
				if byteOrder == 0 { // LSBFirst
					v |= uint32(p[i]) << (8 * i)
				} else {
					v = v<<8 | uint32(p[i])
				}
			}
			var c [3]uint8
			for i, m := range masks {
				c[i] = uint8((v & m) >> bits.TrailingZeros32(m))
			}
			img.SetRGBA(x, y, color.RGBA{c[0], c[1], c[2], 0xff})
		}
	}
	return img, nil
}

// encodeXWD writes img as xwd would (LSBFirst, red in the high byte), for the
// decoder's own test.
func encodeXWD(img *image.RGBA, bpp uint32) []byte {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	name := []byte("xwdump\x00")
	bpl := w*int(bpp/8) + 5 // odd padding, as a real dump may have
	hdr := [25]uint32{uint32(100 + len(name)), 7, 2, 24, uint32(w), uint32(h), 0, 0, 32, 0, 32, bpp, uint32(bpl), 5,
		0xff0000, 0xff00, 0xff, 8, 256, 2, uint32(w), uint32(h), 0, 0, 0}
	var b bytes.Buffer
	binary.Write(&b, binary.BigEndian, hdr)
	b.Write(name)
	b.Write(make([]byte, 2*12)) // two colormap entries, unused on TrueColor
	for y := 0; y < h; y++ {
		line := make([]byte, bpl)
		for x := 0; x < w; x++ {
			c := img.RGBAAt(x, y)
			v := uint32(c.R)<<16 | uint32(c.G)<<8 | uint32(c.B)
			for i := 0; i < int(bpp/8); i++ {
				line[x*int(bpp/8)+i] = byte(v >> (8 * i))
			}
		}
		b.Write(line)
	}
	return b.Bytes()
}

func TestDecodeXWD(t *testing.T) {
	src := image.NewRGBA(image.Rect(0, 0, 5, 3))
	for y := 0; y < 3; y++ {
		for x := 0; x < 5; x++ {
			src.SetRGBA(x, y, color.RGBA{uint8(40 * x), uint8(70 * y), uint8(x*y + 1), 0xff})
		}
	}
	for _, bpp := range []uint32{24, 32} {
		got, err := decodeXWD(encodeXWD(src, bpp))
		if err != nil {
			t.Fatalf("%d bpp: %v", bpp, err)
		}
		if !bytes.Equal(got.Pix, src.Pix) {
			t.Errorf("%d bpp: decoded %v, want %v", bpp, got.Pix, src.Pix)
		}
	}
	good := encodeXWD(src, 32)
	for name, bad := range map[string][]byte{
		"short":     good[:50],
		"cut rows":  good[:len(good)-10],
		"version 6": append(append([]byte{}, good[:4]...), append([]byte{0, 0, 0, 6}, good[8:]...)...),
	} {
		if _, err := decodeXWD(bad); err == nil {
			t.Errorf("%s: decoded without an error", name)
		}
	}
}
