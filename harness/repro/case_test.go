package repro

import (
	"bytes"
	"encoding/binary"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"waverig/devices"
	"waverig/harness/kernels"
	"waverig/harness/results"
)

// bundle is a Bundle of kernel k through waverig's compiler on Vulkan at
// wave size size, whose module binds every register.
func bundle(k kernels.Kernel, size uint32, failed []results.Record, out map[string][]byte) Bundle {
	return Bundle{Kernel: k, API: results.Vulkan, Compiler: results.Ours, CompilerSpec: results.Ours, Size: size,
		Device: devices.Device{Name: "Some GPU"}, Driver: "some driver 1.0", Failed: failed, Out: out,
		Binds: func(string) bool { return true }}
}

// The exec line names the API and compiler of the bundle and, on lavapipe, the
// width that gives the run's wave size; draw kernels get no case file and
// README.txt says exec runs compute kernels only.
func TestReproCaseExecLineAndDrawKernels(t *testing.T) {
	lavapipe := devices.Device{Name: "llvmpipe (LLVM 15.0.6, 256 bits)"}
	for _, c := range []struct {
		api, comp string
		size      uint32
		want      string
	}{
		{results.Vulkan, results.Ours, 4, "LP_NATIVE_VECTOR_WIDTH=128 waverig exec case.json"},
		{results.Vulkan, results.Glslang, 8, "LP_NATIVE_VECTOR_WIDTH=256 waverig exec case.json -compiler glslang"},
		{results.WebGPU, results.Ours, 16, "LP_NATIVE_VECTOR_WIDTH=512 waverig exec case.json -api webgpu"},
	} {
		b := Bundle{API: c.api, Compiler: c.comp, CompilerSpec: c.comp, Size: c.size, Device: lavapipe}
		if got := execCommand(b); got != c.want {
			t.Errorf("%s/%s size %d: %q, want %q", c.api, c.comp, c.size, got, c.want)
		}
	}
	if got := execCommand(Bundle{API: results.Vulkan, Compiler: results.Ours, Size: 32, Device: devices.Device{Name: "NVIDIA H200"}}); got != "waverig exec case.json" {
		t.Errorf("H200: %q", got)
	}
	px := kernels.GraphicsMatrix(kernels.Pixel, kernels.Filter{Ops: regexp.MustCompile(`^WaveActiveSum$`)})
	if len(px) == 0 {
		t.Fatal("no pixel kernel")
	}
	fail := []results.Record{{Case: px[0].Cases[0].ID(), Op: "WaveActiveSum", Status: results.Fail}}
	reproDir := t.TempDir()
	if err := Write(reproDir, bundle(px[0], 8, fail, map[string][]byte{})); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(reproDir, px[0].Name+".vulkan.ours.wave8")
	if _, err := os.Stat(filepath.Join(dir, CaseFile)); !os.IsNotExist(err) {
		t.Errorf("a pixel bundle has case.json (%v)", err)
	}
	readme, _ := os.ReadFile(filepath.Join(dir, "README.txt"))
	if !strings.Contains(string(readme), "Exec:     none: waverig exec runs compute kernels only; this is a pixel kernel") ||
		!strings.Contains(string(readme), "Re-run:   waverig run") {
		t.Errorf("README.txt:\n%s", readme)
	}
}

func TestColorPNG(t *testing.T) {
	d := &kernels.Draw{Width: 2, Height: 1}
	data := make([]byte, 2*16)
	binary.LittleEndian.PutUint32(data[0:], 10) // texel 0: r = 10
	binary.LittleEndian.PutUint32(data[16:], 5) // texel 1: r = 5
	img, err := png.Decode(bytes.NewReader(colorPNG(data, d)))
	if err != nil {
		t.Fatal(err)
	}
	if r, _, _, a := img.At(0, 0).RGBA(); r>>8 != 255 || a>>8 != 255 {
		t.Errorf("texel 0: r %d a %d, want 255 255", r>>8, a>>8)
	}
	if r, _, _, _ := img.At(1, 0).RGBA(); r>>8 != 127 {
		t.Errorf("texel 1: r %d, want 127", r>>8)
	}
	if colorPNG(data[:16], d) != nil {
		t.Error("a short target gives a picture")
	}
	f := &kernels.Draw{Width: 1, Height: 1, FloatColor: true}
	fd := make([]byte, 16)
	binary.LittleEndian.PutUint32(fd, math.Float32bits(0.5))
	binary.LittleEndian.PutUint32(fd[4:], math.Float32bits(7))
	img, _ = png.Decode(bytes.NewReader(colorPNG(fd, f)))
	if r, g, _, _ := img.At(0, 0).RGBA(); r>>8 != 128 || g>>8 != 255 {
		t.Errorf("float texel: r %d g %d, want 128 255 (clamped)", r>>8, g>>8)
	}
}
