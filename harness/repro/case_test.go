package pass

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

	"waverig/harness/casefile"
	"waverig/harness/kernels"
	"waverig/harness/results"
)

// reproRig is a rig without a device: enough to compile, check and write
// repro bundles (spirv-val validates the module when it is installed).
func reproRig(t *testing.T) *Rig {
	t.Helper()
	return &Rig{cfg: Config{ReproDir: t.TempDir()}, cache: map[string]*module{}}
}

// A bundle built from a synthetic failing kernel output: case.json is a valid
// case of kernel.hlsl; against the buffer that failed, exactly the planted
// lane's output word mismatches (named by record and word); against a correct
// device's buffer nothing does; README.txt gives the exec line and the record
// of the failing lane.
func TestReproCaseFromFailingOutput(t *testing.T) {
	r := reproRig(t)
	k := kernels.Matrix(kernels.Filter{Ops: regexp.MustCompile(`^WavePrefixSum$`), Types: []string{"uint"}, Shapes: []string{"partial"}})[0]
	tg := target{Vulkan, Ours}
	if m := r.compile(k, tg); m.err != nil || m.skip != "" {
		t.Skipf("kernel does not compile here: %v %s", m.err, m.skip)
	}
	const size = 8
	good, err := kernels.Simulate(k, kernels.SimLayout{WaveSize: size, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	bad := map[string][]byte{"u0": append([]byte(nil), good["u0"]...)}
	const rec = 5 // in the first workgroup, the "all" pattern's: every lane active
	const word = rec*24 + 16
	binary.LittleEndian.PutUint32(bad["u0"][4*word:], binary.LittleEndian.Uint32(bad["u0"][4*word:])+5)
	_, failed := r.checkCases(k, kernels.NewMemo(k), tg, size, bad)
	if len(failed) != 1 || len(failed[0].Failures) != 1 {
		t.Fatalf("planted one wrong lane, Check failed %d cases: %+v", len(failed), failed)
	}
	if err := r.writeRepro(k, tg, size, failed, bad); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(r.cfg.ReproDir, k.Name+".vulkan.ours.wave8")
	c, err := casefile.Load(filepath.Join(dir, ReproCaseFile))
	if err != nil {
		t.Fatal(err)
	}
	if c.Entry != k.Entry || c.Dispatch != k.Groups || c.SubgroupSize != size || len(c.Buffers) != 1 || c.Buffers[0].Binding != "u0" {
		t.Fatalf("case %+v", c)
	}
	if string(c.Source()) != k.HLSL {
		t.Error("the case's shader is not the kernel's HLSL")
	}
	if got := c.Buffers[0].Initial(); string(got) != string(k.Buffers[0].Data) {
		t.Error("the case's u0 does not start as the kernel's")
	}
	mism := c.Mismatches([][]byte{bad["u0"]})
	if len(mism) != 1 || mism[0].Index != word || mism[0].Where != "record 5 out0" {
		t.Fatalf("against the failing buffer: %+v", mism)
	}
	if m := c.Mismatches([][]byte{good["u0"]}); len(m) != 0 {
		t.Fatalf("against a correct device's buffer: %d mismatches, first %+v", len(m), m[0])
	}
	readme, _ := os.ReadFile(filepath.Join(dir, "README.txt"))
	for _, want := range []string{"Exec:     waverig exec case.json\n", "record 5 = u0[120..143]: " + failed[0].Case, "Mismatches in key, lane or count"} {
		if !strings.Contains(string(readme), want) {
			t.Errorf("README.txt lacks %q:\n%s", want, readme)
		}
	}
}

// The exec line names the API and compiler of the bundle and, on lavapipe, the
// width that gives the run's wave size; draw kernels get no case file and
// README.txt says exec runs compute kernels only.
func TestReproCaseExecLineAndDrawKernels(t *testing.T) {
	r := reproRig(t)
	r.dev.Name = "llvmpipe (LLVM 15.0.6, 256 bits)"
	for _, c := range []struct {
		t    target
		size uint32
		want string
	}{
		{target{Vulkan, Ours}, 4, "LP_NATIVE_VECTOR_WIDTH=128 waverig exec case.json"},
		{target{Vulkan, Glslang}, 8, "LP_NATIVE_VECTOR_WIDTH=256 waverig exec case.json -compiler glslang"},
		{target{WebGPU, Ours}, 16, "LP_NATIVE_VECTOR_WIDTH=512 waverig exec case.json -api webgpu"},
	} {
		if got := reproExecCommand(r, c.t, c.size); got != c.want {
			t.Errorf("%v size %d: %q, want %q", c.t, c.size, got, c.want)
		}
	}
	r.dev.Name = "NVIDIA H200"
	if got := reproExecCommand(r, target{Vulkan, Ours}, 32); got != "waverig exec case.json" {
		t.Errorf("H200: %q", got)
	}
	px := kernels.GraphicsMatrix(kernels.Pixel, kernels.Filter{Ops: regexp.MustCompile(`^WaveActiveSum$`)})
	if len(px) == 0 {
		t.Fatal("no pixel kernel")
	}
	fail := []results.Record{{Case: px[0].Cases[0].ID(), Op: "WaveActiveSum", Status: results.Fail}}
	if err := r.writeRepro(px[0], target{Vulkan, Ours}, 8, fail, map[string][]byte{}); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(r.cfg.ReproDir, px[0].Name+".vulkan.ours.wave8")
	if _, err := os.Stat(filepath.Join(dir, ReproCaseFile)); !os.IsNotExist(err) {
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
