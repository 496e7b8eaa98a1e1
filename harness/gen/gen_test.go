package gen

import (
	"errors"
	"os"
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
		if err := vulkan.Validate(words); errors.Is(err, vulkan.ErrNoValidator) && os.Getenv("CI") == "" {
			t.Skip(err)
		} else if err != nil {
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
