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

// TestLineCommentContinuations compares lineComment with the byte-by-byte
// definition on every string of a small alphabet rich in continuations.
func TestLineCommentContinuations(t *testing.T) {
	ref := func(text string) int {
		lx := &lexer{text: text}
		for lx.i < len(lx.text) && lx.text[lx.i] != '\n' {
			if n := lx.continuation(lx.i); lx.text[lx.i] == '\\' && n > 0 {
				lx.i += n
				continue
			}
			lx.i++
		}
		return lx.i
	}
	alphabet := []byte{'\\', '\r', '\n', 'a'}
	var gen func(prefix []byte, n int)
	gen = func(prefix []byte, n int) {
		text := "//" + string(prefix)
		lx := &lexer{text: text}
		lx.lineComment()
		if want := ref(text); lx.i != want {
			t.Fatalf("lineComment(%q) stops at %d, want %d", text, lx.i, want)
		}
		if n == 0 {
			return
		}
		for _, c := range alphabet {
			gen(append(prefix, c), n-1)
		}
	}
	gen(nil, 7)
}
