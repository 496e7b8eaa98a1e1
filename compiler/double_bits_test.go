package compiler

import (
	"encoding/binary"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"waverig/compiler/diag"
	"waverig/devices"
	"waverig/harness/vulkan"
)

// doubleBitsKernel moves IEEE doubles through uint words with asdouble and
// asuint's double form, scalar and vector, plus single-rounding arithmetic.
// Each invocation owns doubleBitsStride words: its input pair at 0 and 1, its
// outputs after them (see doubleBitsWant).
const doubleBitsKernel = `RWStructuredBuffer<uint> Buf : register(u0);

[numthreads(4, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint b = id.x * 32;
    uint lo = Buf[b], hi = Buf[b + 1];
    double d = asdouble(lo, hi);
    uint lo2, hi2;
    asuint(d, lo2, hi2);
    Buf[b + 2] = lo2;
    Buf[b + 3] = hi2;
    double p = d * 3.0;
    asuint(p, Buf[b + 4], Buf[b + 5]);
    asuint(p - d, Buf[b + 6], Buf[b + 7]);

    uint4 L = uint4(lo, hi, lo ^ 1u, hi);
    uint4 H = uint4(hi, lo, hi, hi ^ 0x80000000u);
    uint4 a4, b4;
    asuint(asdouble(L, H), a4, b4);
    uint3 a3, b3;
    asuint(asdouble(L.wzy, H.wzy), a3, b3);
    uint2 a2, b2;
    asuint(asdouble(L.yx, H.yx), a2, b2);
    for (uint k = 0; k < 4; k++) {
        Buf[b + 8 + k] = a4[k];
        Buf[b + 12 + k] = b4[k];
    }
    for (uint j = 0; j < 3; j++) {
        Buf[b + 16 + j] = a3[j];
        Buf[b + 19 + j] = b3[j];
    }
    Buf[b + 22] = a2.x;
    Buf[b + 23] = a2.y;
    Buf[b + 24] = b2.x;
    Buf[b + 25] = b2.y;
}
`

const doubleBitsStride = 32

// doubleBitsInputs are bit patterns with all 52 stored significand bits in
// play: 1/3, pi, the largest double below 2, ±0, the extreme denormals, the
// extreme normals, one ulp above 1, infinity and a NaN with a payload.
var doubleBitsInputs = []uint64{
	math.Float64bits(1.0 / 3), math.Float64bits(math.Pi), math.Float64bits(-math.Pi), 0x3FFFFFFFFFFFFFFF,
	0x8000000000000000, 0x0000000000000000, 0x0000000000000001, 0x000FFFFFFFFFFFFF,
	0x0010000000000000, 0x7FEFFFFFFFFFFFFF, 0x3FF0000000000001, 0x7FF0000000000000,
	0x7FF8000000000123, math.Float64bits(-1e-300), math.Float64bits(12345.678), 0xBFEFFFFFFFFFFFFF,
}

// doubleBitsWant is what invocation in's words 2..25 must hold, from Go's own
// float64: the round trip is the identity, p = d*3 is one rounding, and p - d
// may be one rounding of each operation or, as Vulkan lets a driver contract a
// multiply and an add, one fused multiply-add (alt). Arithmetic on a denormal
// or NaN is left unchecked: Vulkan may flush denormals, and NaN payloads are
// not preserved by arithmetic.
func doubleBitsWant(v uint64) (want []uint32, alt []uint32, arith bool) {
	lo, hi := uint32(v), uint32(v>>32)
	d := math.Float64frombits(v)
	p := float64(d * 3.0)
	words := func(x float64) (uint32, uint32) { b := math.Float64bits(x); return uint32(b), uint32(b >> 32) }
	want = make([]uint32, 24)
	want[0], want[1] = lo, hi
	want[2], want[3] = words(p)
	want[4], want[5] = words(float64(p - d))
	L := [4]uint32{lo, hi, lo ^ 1, hi}
	H := [4]uint32{hi, lo, hi, hi ^ 0x80000000}
	for k := 0; k < 4; k++ {
		want[6+k], want[10+k] = L[k], H[k]
	}
	for j, k := range []int{3, 2, 1} {
		want[14+j], want[17+j] = L[k], H[k]
	}
	want[20], want[21], want[22], want[23] = L[1], L[0], H[1], H[0]
	alt = append([]uint32(nil), want...)
	alt[4], alt[5] = words(math.FMA(d, 3.0, -d))
	small := func(x float64) bool { return x != 0 && math.Abs(x) < 0x1p-1022 }
	arith = !math.IsNaN(d) && !small(d) && !small(p) && !small(float64(p-d))
	return want, alt, arith
}

// TestDoubleBits compiles the kernel, and sema's golden program of every form
// (sema/testdata/double_bits.hlsl), for Vulkan 1.1 and 1.2, validates each
// module with spirv-val, runs the kernel's 1.2 module on the first Vulkan
// device (lavapipe here) and compares every word with the Go model.
func TestDoubleBits(t *testing.T) {
	spirvVal := needTool(t, "spirv-val")
	forms, err := os.ReadFile(filepath.Join("sema", "testdata", "double_bits.hlsl"))
	if err != nil {
		t.Fatal(err)
	}
	var words []uint32
	for _, src := range []string{string(forms), doubleBitsKernel} {
		for _, vk := range []string{"1.1", "1.2"} {
			res, err := Compile("double_bits.hlsl", []byte(src), Options{Entry: "main", Stage: "compute", Vulkan: vk})
			if err != nil {
				t.Fatalf("Vulkan %s: %s", vk, res.Render())
			}
			spv := res.Find("main", SPIRV)
			path := filepath.Join(t.TempDir(), "main.spv")
			if err := os.WriteFile(path, spv, 0o644); err != nil {
				t.Fatal(err)
			}
			if out, err := exec.Command(spirvVal, "--target-env", "vulkan"+vk, path).CombinedOutput(); err != nil {
				t.Fatalf("Vulkan %s: spirv-val: %s", vk, out)
			}
			words = make([]uint32, len(spv)/4)
			for i := range words {
				words[i] = binary.LittleEndian.Uint32(spv[4*i:])
			}
		}
	}
	devs, err := devices.Enumerate()
	if err != nil || len(devs) == 0 {
		t.Skipf("no Vulkan device: %v", err)
	}
	if !devs[0].ShaderFloat64 {
		t.Skipf("%s has no shaderFloat64", devs[0].Name)
	}
	r, err := vulkan.NewRunner(0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	data := make([]byte, len(doubleBitsInputs)*doubleBitsStride*4)
	for i := range data {
		data[i] = 0xEE // a word the kernel never wrote cannot pass
	}
	for i, v := range doubleBitsInputs {
		binary.LittleEndian.PutUint64(data[i*doubleBitsStride*4:], v)
	}
	res, err := r.Run(vulkan.Job{SPIRV: words, Entry: "main", Groups: [3]uint32{uint32(len(doubleBitsInputs) / 4), 1, 1},
		Buffers: []vulkan.Buffer{{Set: 0, Binding: 0, Kind: vulkan.Storage, Data: data}}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := vulkan.WordsFromBytes(res.Buffers[0])
	if err != nil {
		t.Fatal(err)
	}
	checked, fused := 0, 0
	for i, v := range doubleBitsInputs {
		want, alt, arith := doubleBitsWant(v)
		out := got[i*doubleBitsStride+2 : i*doubleBitsStride+26]
		for k := range want {
			if k >= 2 && k < 6 && !arith {
				continue
			}
			if out[k] != want[k] && (k < 4 || out[k] != alt[k]) {
				t.Errorf("input %#016x: word %d = %#08x, want %#08x (alt %#08x)", v, k+2, out[k], want[k], alt[k])
			}
			checked++
		}
		if arith && (out[4] != want[4] || out[5] != want[5]) {
			fused++
		}
	}
	t.Logf("%s: %d inputs, %d words checked, %d fused p - d", r.Device().Name, len(doubleBitsInputs), checked, fused)
}

// TestDoubleBitsOtherTargets: WGSL and Metal have no 64-bit float, so a kernel
// using asdouble/asuint(double) gets their double type error, not a panic.
func TestDoubleBitsOtherTargets(t *testing.T) {
	for _, c := range []struct {
		target Target
		code   diag.Code
	}{{WGSL, diag.ErrWGSLType}, {MSL, diag.ErrMSLType}} {
		res, err := Compile("double_bits.hlsl", []byte(doubleBitsKernel), Options{Entry: "main", Stage: "compute", Targets: []Target{c.target}})
		if err == nil {
			t.Fatalf("%s: compiled a double kernel", c.target)
		}
		if !strings.Contains(res.Render(), "error "+string(c.code)) {
			t.Errorf("%s: want %s, got:\n%s", c.target, c.code, res.Render())
		}
	}
}

// TestDoubleBitsMatchGlslang compiles the scalar asdouble with glslang, the
// rig's second compiler, and checks both modules build the double the same
// way: a uint2 of (lowbits, highbits) bitcast to a double. glslang 12 has no
// vector asdouble ("double2 conversion not implemented") and no
// asuint(double, out uint, out uint), so only the scalar form is compared.
func TestDoubleBitsMatchGlslang(t *testing.T) {
	glslang := needTool(t, "glslangValidator")
	dis := needTool(t, "spirv-dis")
	src := "RWStructuredBuffer<uint> Buf : register(u0);\n[numthreads(1, 1, 1)]\nvoid main() {\n" +
		"    double d = asdouble(Buf[0], Buf[1]);\n    Buf[2] = (uint)(d * 3.0 - d);\n}\n"
	dir := t.TempDir()
	hlsl := filepath.Join(dir, "k.hlsl")
	if err := os.WriteFile(hlsl, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	theirs := filepath.Join(dir, "glslang.spv")
	if out, err := exec.Command(glslang, "-D", "-e", "main", "-V", "--target-env", "vulkan1.1", "-S", "comp", "-o", theirs, hlsl).CombinedOutput(); err != nil {
		t.Fatalf("glslang: %s", out)
	}
	res, err := Compile("k.hlsl", []byte(src), Options{Entry: "main", Stage: "compute", Vulkan: "1.1"})
	if err != nil {
		t.Fatal(res.Render())
	}
	ours := filepath.Join(dir, "waverig.spv")
	if err := os.WriteFile(ours, res.Find("main", SPIRV), 0o644); err != nil {
		t.Fatal(err)
	}
	// The instruction pattern: the pair built as a v2uint, then one OpBitcast to
	// double of exactly that value.
	pair := regexp.MustCompile(`(%\w+) = OpCompositeConstruct %v2uint %\w+ %\w+\n(?:.*\n){0,2}?\s*%\w+ = OpBitcast %double (%\w+)`)
	for _, f := range []string{theirs, ours} {
		out, err := exec.Command(dis, f).CombinedOutput()
		if err != nil {
			t.Fatalf("spirv-dis %s: %s", f, out)
		}
		text := string(out)
		m := pair.FindStringSubmatch(text)
		if m == nil || m[1] != m[2] {
			t.Errorf("%s: no v2uint construct bitcast to double:\n%s", filepath.Base(f), text)
		}
		if !strings.Contains(text, "OpCapability Float64") {
			t.Errorf("%s: no Float64 capability", filepath.Base(f))
		}
	}
}
