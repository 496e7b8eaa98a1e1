package compiler

import (
	"os"
	"path/filepath"
	"testing"

	"waverig/compiler/diag"
)

// FuzzCompile runs the whole pipeline (all three targets) on arbitrary input. No
// input may panic: the facade turns a panic into an internal-error diagnostic
// (E0899), which this target treats as a failure.
func FuzzCompile(f *testing.F) {
	pos, neg := fixtureFiles(f)
	for _, rel := range append(pos, neg...) {
		if data, err := os.ReadFile(filepath.Join(fixturesDir, rel)); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("[numthreads(1,1,1)] void main() {}"))
	f.Fuzz(func(t *testing.T, src []byte) {
		opts := Options{
			Targets: []Target{SPIRV, WGSL, MSL},
			// No file system: includes resolve against an empty set.
			ReadFile: func(string) ([]byte, error) { return nil, os.ErrNotExist },
		}
		res, _ := Compile("fuzz.hlsl", src, opts)
		for _, m := range res.Diagnostics {
			if m.Code == diag.ErrInternal {
				t.Fatalf("internal compiler error on input %q:\n%s", src, m.Render())
			}
		}
	})
}

// BenchmarkCompileCSSum is the in-process compile of a typical fixture (the seed's
// CSSum) to SPIR-V. Goal: <= 100 µs.
func BenchmarkCompileCSSum(b *testing.B) {
	src, err := os.ReadFile(filepath.Join(fixturesDir, "Waves.hlsl"))
	if err != nil {
		b.Fatal(err)
	}
	opts := Options{Entry: "CSSum", Stage: "compute"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compile("Waves.hlsl", src, opts); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompileAllTargets compiles both seed entry points to SPIR-V, WGSL and
// MSL. Goal: <= 200 µs.
func BenchmarkCompileAllTargets(b *testing.B) {
	src, err := os.ReadFile(filepath.Join(fixturesDir, "Waves.hlsl"))
	if err != nil {
		b.Fatal(err)
	}
	opts := Options{Targets: []Target{SPIRV, WGSL, MSL}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compile("Waves.hlsl", src, opts); err != nil {
			b.Fatal(err)
		}
	}
}
