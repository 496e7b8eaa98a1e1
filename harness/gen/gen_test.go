package gen

import (
	"testing"

	"waverig/harness/vulkan"
)

func TestDeterministic(t *testing.T) {
	for seed := uint64(0); seed < 50; seed++ {
		if a, b := Generate(seed).HLSL(), Generate(seed).HLSL(); a != b {
			t.Fatalf("seed %d: two programs", seed)
		}
	}
	if Generate(1).HLSL() == Generate(2).HLSL() {
		t.Fatal("seeds 1 and 2 gave one program")
	}
}

func TestEmulatedDevices(t *testing.T) {
	for seed := uint64(0); seed < 300; seed++ {
		p := Generate(seed)
		for _, size := range []uint32{4, 8, 16, 32, 64} {
			exact := Emulated{Size: size}.Run(p)
			for _, mode := range []Mode{Exact, Subset} {
				if f := p.Check(exact, mode); len(f) > 0 {
					t.Fatalf("seed %d size %d %s: a maximal device fails: %v\n%s", seed, size, mode, f[0], p.HLSL())
				}
			}
			split := Emulated{Size: size, Split: RandomSplit(seed)}.Run(p)
			if f := p.Check(split, Subset); len(f) > 0 {
				t.Fatalf("seed %d size %d: a splitting device fails the subset contract: %v\n%s", seed, size, f[0], p.HLSL())
			}
		}
	}
}

// TestValid: 500 seeds compile with waverig's compiler and pass spirv-val,
// also with maximal reconvergence requested.
func TestValid(t *testing.T) {
	n := uint64(500)
	if testing.Short() {
		n = 50
	}
	for seed := uint64(0); seed < n; seed++ {
		p := Generate(seed)
		words, err := Compile(p.HLSL())
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, p.HLSL())
		}
		if err := vulkan.Validate(words); err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, p.HLSL())
		}
		if seed%50 == 0 {
			mw, err := RequestMaximalReconvergence(words)
			if err != nil {
				t.Fatal(err)
			}
			if err := vulkan.Validate(mw); err != nil {
				t.Fatalf("seed %d with maximal reconvergence: %v", seed, err)
			}
		}
	}
}

// TestRequestMaximalReconvergence: the extension goes after the
// capabilities, the execution mode among the entry's modes, once each (the
// spirv-val here predates the extension and validates the module without
// them, so the layout is checked by hand).
func TestRequestMaximalReconvergence(t *testing.T) {
	words, err := Compile(Generate(3).HLSL())
	if err != nil {
		t.Fatal(err)
	}
	mw, err := RequestMaximalReconvergence(words)
	if err != nil {
		t.Fatal(err)
	}
	var order []uint32
	exts, modes := 0, 0
	for i := 5; i < len(mw); i += int(mw[i] >> 16) {
		op := mw[i] & 0xffff
		order = append(order, op)
		switch {
		case op == spvOpExtension && mw[i+1] == 'S'|'P'<<8|'V'<<16|'_'<<24:
			exts++
		case op == spvOpExecutionMode && mw[i+2] == spvModeMaxReconverges:
			modes++
		}
	}
	if exts != 1 || modes != 1 {
		t.Fatalf("%d extensions, %d modes", exts, modes)
	}
	// Logical layout: Capability(17) < Extension(10) < ExtInstImport(11) <
	// MemoryModel(14) < EntryPoint(15) < ExecutionMode(16) < the rest.
	rank := map[uint32]int{17: 0, spvOpExtension: 1, spvOpExtInstImport: 2, spvOpMemoryModel: 3, spvOpEntryPoint: 4, spvOpExecutionMode: 5}
	last := 0
	for _, op := range order {
		r, ok := rank[op]
		if !ok {
			r = 6
		}
		if r < last {
			t.Fatalf("opcode %d after section %d: %v", op, last, order[:12])
		}
		last = r
	}
	if len(mw) != len(words)+9+3 {
		t.Fatalf("%d words added, want 12", len(mw)-len(words))
	}
}
