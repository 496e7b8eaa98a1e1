package sema

import (
	"os"
	"path/filepath"
	"testing"

	"waverig/compiler/diag"
	"waverig/compiler/syntax"
)

// BenchmarkCheck measures semantic analysis alone (parsing excluded) over every
// fixture in fixtures/lang.
func BenchmarkCheck(b *testing.B) {
	files, _ := filepath.Glob("../../fixtures/lang/*.hlsl")
	var parsed []*syntax.File
	for _, p := range files {
		src, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		f, _ := syntax.Parse(p, src, syntax.Options{}, &diag.Log{})
		parsed = append(parsed, f)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, f := range parsed {
			log := &diag.Log{}
			Check(f, Options{AutoBindings: true}, log)
		}
	}
}

// BenchmarkCheckWaves measures semantic analysis of the seed fixture.
func BenchmarkCheckWaves(b *testing.B) {
	src, err := os.ReadFile("../../fixtures/Waves.hlsl")
	if err != nil {
		b.Fatal(err)
	}
	f, _ := syntax.Parse("Waves.hlsl", src, syntax.Options{}, &diag.Log{})
	b.ReportAllocs()
	for b.Loop() {
		Check(f, Options{AutoBindings: true}, &diag.Log{})
	}
}
