package kernels

import (
	"math"
	"testing"

	"waverig/compiler"
	"waverig/harness/glslang"
	"waverig/harness/models"
	"waverig/harness/vulkan"
)

// specialDoubles are the doubles a transport must carry bit for bit: both zeros,
// NaNs with payloads (quiet, signalling, negative), both infinities, the
// smallest and largest denormals of either sign, the extremes of the finite
// range, and values with all 53 significant bits.
var specialDoubles = []uint64{
	0, 1 << 63,
	0x7ff8000000000000, 0x7ff8000000000015, 0xfff8000000000001, 0x7ff0000000000001,
	0x7ff0000000000000, 0xfff0000000000000,
	1, 1<<63 | 1, 0x000fffffffffffff, 0x800fffffffffffff,
	0x7fefffffffffffff, 0xffefffffffffffff, 0x0010000000000000,
	math.Float64bits(1 + 0x1p-52), math.Float64bits(-math.Pi), math.Float64bits(1e300), math.Float64bits(1e-300),
}

// TestDoubleRecordRoundTrip: a double's record words are its low and high 32
// bits, and decoding gives back all 64 bits, specials included.
func TestDoubleRecordRoundTrip(t *testing.T) {
	r := &rng{s: 7}
	vals := append([]uint64(nil), specialDoubles...)
	for i := 0; i < 1000; i++ {
		vals = append(vals, r.next())
	}
	for _, v := range vals {
		w := encodeComp(models.Float64, v)
		if w[0] != uint32(v) || w[1] != uint32(v>>32) {
			t.Fatalf("%#x encoded as %#x %#x, not its low and high words", v, w[0], w[1])
		}
		if got := decodeComp(models.Float64, w[:]); got != v {
			t.Fatalf("%#x came back as %#x", v, got)
		}
		rec := make([]uint32, recWords)
		writeComps(rec, wOut, models.Float64, []uint64{v, ^v, v >> 1, 0})
		got := readComps(rec, wOut, models.Float64, 4)
		if got[0] != v || got[1] != ^v || got[2] != v>>1 || got[3] != 0 {
			t.Fatalf("double4 with %#x: %#x", v, got)
		}
	}
}

// oldDoubleTransport is what the record did to a double before it carried all
// 64 bits: the device stored h = (float)d and (float)(d - (double)h), the host
// added them. (Mesa 23.1+ folds the residual to 0 besides; this is the loss
// even where no fold happens.)
func oldDoubleTransport(v uint64) uint64 {
	d := math.Float64frombits(v)
	h := float32(d)
	l := float32(d - float64(h))
	return math.Float64bits(float64(h) + float64(l))
}

// TestOldDoubleTransportLostBits: values the float-plus-residual transport
// changed, every one carried exactly by the new record words, and the matrix's
// double inputs include such values (so a run tests the difference).
func TestOldDoubleTransportLostBits(t *testing.T) {
	lost := []uint64{
		math.Float64bits(math.Pi), // 53 significant bits: float and residual keep about 48
		1,                         // the smallest denormal: below float's range
		math.Float64bits(1e300),   // beyond float's range: h is +inf
		1 << 63,                   // -0: -0 + +0 is +0
		0x7ff8000000000015,        // a NaN payload: the float conversion drops it
	}
	for _, v := range lost {
		if oldDoubleTransport(v) == v {
			t.Errorf("%#x: the old transport kept it (the test proves nothing)", v)
		}
		w := encodeComp(models.Float64, v)
		if decodeComp(models.Float64, w[:]) != v {
			t.Errorf("%#x: the record lost it", v)
		}
	}
	inputs, changed := 0, 0
	for _, k := range fullMatrix {
		if !k.Needs.Float64 {
			continue
		}
		init, _, err := kernelWords(k, map[string][]byte{"u0": k.Buffers[0].Data})
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i+recWords <= len(init); i += recWords {
			_, _, _, ci := unctl(init[i+wCtl])
			mt, _ := k.Cases[ci].Type.Model()
			if mt.Scalar != models.Float64 {
				continue
			}
			for _, v := range readComps(init[i:i+recWords], wIn, mt.Scalar, mt.N) {
				inputs++
				if oldDoubleTransport(v) != v {
					changed++
				}
			}
		}
	}
	t.Logf("%d of %d double inputs would not have survived the old transport", changed, inputs)
	if inputs == 0 || changed == 0 {
		t.Fatalf("%d double inputs, %d the old transport would change: the matrix does not test the transport", inputs, changed)
	}
}

// spirvOps lists a module's instructions as (opcode, operands).
func spirvOps(words []uint32) [][]uint32 {
	var out [][]uint32
	for i := 5; i < len(words); {
		n := int(words[i] >> 16)
		if n == 0 || i+n > len(words) {
			break
		}
		out = append(out, append([]uint32{words[i] & 0xffff}, words[i+1:i+n]...))
		i += n
	}
	return out
}

// SPIR-V opcodes the transport test looks for.
const (
	opTypeInt, opTypeFloat, opTypeVector, opTypeRuntimeArray = 21, 22, 23, 29
	opStore, opFConvert, opBitcast                           = 62, 115, 124
)

// doubleMoves counts a module's OpBitcasts from uint2 to double and from double
// to uint2, its OpFConvert instructions, and whether it declares a runtime
// array of doubles (glslang's double view).
func doubleMoves(words []uint32) (toDouble, fromDouble, fconvert int, doubleArray bool) {
	double, uint2 := map[uint32]bool{}, map[uint32]bool{}
	uint32T := map[uint32]bool{}
	resultType := map[uint32]uint32{} // result id -> type id
	ops := spirvOps(words)
	for _, o := range ops {
		switch o[0] {
		case opTypeFloat:
			if o[2] == 64 {
				double[o[1]] = true
			}
		case opTypeInt:
			if o[2] == 32 {
				uint32T[o[1]] = true
			}
		case opTypeVector:
			if uint32T[o[2]] && o[3] == 2 {
				uint2[o[1]] = true
			}
		case opTypeRuntimeArray:
			doubleArray = doubleArray || double[o[2]]
		default:
			if len(o) >= 3 {
				resultType[o[2]] = o[1]
			}
		}
	}
	for _, o := range ops {
		switch o[0] {
		case opFConvert:
			fconvert++
		case opBitcast:
			switch {
			case double[o[1]] && uint2[resultType[o[3]]]:
				toDouble++
			case uint2[o[1]] && double[resultType[o[3]]]:
				fromDouble++
			}
		}
	}
	return
}

// TestDoubleKernelsMoveBits compiles the double kernels of the operations that
// came back at float precision on lavapipe 25 with both compilers and shows,
// from the SPIR-V, that doubles only move: in through an OpBitcast of a uint2,
// out through an OpBitcast to a uint2 (ours: asuint(double, out, out)) or an
// OpStore into the double view (glslang), and no OpFConvert anywhere, so no
// conversion is left for a driver to fold. Each module passes spirv-val.
func TestDoubleKernelsMoveBits(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range fullMatrix {
		op := k.Cases[0].Op.String()
		if !k.Needs.Float64 || seen[op] || (op != "WaveActiveSum" && op != "WaveReadLaneFirst" && op != "QuadReadAcrossX") {
			continue
		}
		seen[op] = true
		res, err := compiler.Compile(k.Name, []byte(k.HLSL), compiler.Options{AutoBindings: true, Entry: k.Entry, Stage: "compute", Vulkan: "1.2"})
		if err != nil {
			t.Fatalf("%s: %s", k.Name, res.Render())
		}
		words := mustWords(t, res.Find(k.Entry, compiler.SPIRV))
		in, out, conv, _ := doubleMoves(words)
		if in == 0 || out == 0 || conv != 0 {
			t.Errorf("%s (ours): %d bitcasts to double, %d from double, %d OpFConvert", k.Name, in, out, conv)
		}
		validate(t, k.Name+" (ours)", words)
		g, skip, err := glslang.CompileStage(k.HLSL, k.Entry, "compute", []string{"u0"})
		if err != nil || skip != "" {
			t.Fatalf("%s (glslang): %v %s", k.Name, err, skip)
		}
		in, out, conv, view := doubleMoves(g.SPIRV)
		if in == 0 || !view || conv != 0 || out != 0 {
			t.Errorf("%s (glslang): %d bitcasts to double, double view %v, %d OpFConvert, %d bitcasts from double", k.Name, in, view, conv, out)
		}
		stores := 0
		for _, o := range spirvOps(g.SPIRV) {
			if o[0] == opStore {
				stores++
			}
		}
		if stores == 0 {
			t.Errorf("%s (glslang): no OpStore", k.Name)
		}
		validate(t, k.Name+" (glslang)", g.SPIRV)
	}
	if len(seen) != 3 {
		t.Fatalf("double kernels found for %v", seen)
	}
}

func validate(t *testing.T, name string, words []uint32) {
	t.Helper()
	if err := vulkan.Validate(words); err != nil {
		t.Errorf("%s: spirv-val: %v", name, err)
	}
}
