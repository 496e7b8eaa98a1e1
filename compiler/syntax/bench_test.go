package syntax

import (
	"os"
	"testing"

	"waverig/compiler/diag"
)

// BenchmarkParseWaves measures preprocessing and parsing of the seed fixture.
func BenchmarkParseWaves(b *testing.B) {
	src, err := os.ReadFile("../../fixtures/Waves.hlsl")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		Parse("Waves.hlsl", src, Options{}, &diag.Log{})
	}
}

// TestPunctsByFirst checks the static punctuator table against puncts: every
// punctuator under its first byte, in the order puncts lists them.
func TestPunctsByFirst(t *testing.T) {
	var want [256][]string
	for _, p := range puncts {
		want[p[0]] = append(want[p[0]], p)
	}
	for c := range want {
		if len(want[c]) != len(punctsByFirst[c]) {
			t.Fatalf("punctsByFirst[%q] = %q, want %q", byte(c), punctsByFirst[c], want[c])
		}
		for i := range want[c] {
			if want[c][i] != punctsByFirst[c][i] {
				t.Fatalf("punctsByFirst[%q] = %q, want %q", byte(c), punctsByFirst[c], want[c])
			}
		}
	}
}
