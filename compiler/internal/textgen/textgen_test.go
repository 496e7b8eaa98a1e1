package textgen

import (
	"strings"
	"testing"
)

func TestLines(t *testing.T) {
	var b strings.Builder
	Line(&b, 1, "  ", "fn %s() {", "main")
	LineS(&b, 2, "  ", "let x = ", "1", ";")
	Line(&b, 1, "  ", "}")
	want := "  fn main() {\n    let x = 1;\n  }\n"
	if b.String() != want {
		t.Fatalf("got %q want %q", b.String(), want)
	}
}

func TestIdentAndBits(t *testing.T) {
	for name, want := range map[string]bool{"a1": true, "_x": true, "1a": false, "a-b": false, "é": false, "": true} {
		if ASCIIIdent(name) != want {
			t.Errorf("ASCIIIdent(%q) != %v", name, want)
		}
	}
	if BitsIndex(16) != 0 || BitsIndex(32) != 1 || BitsIndex(64) != 2 || BitsIndex(8) != -1 {
		t.Error("BitsIndex")
	}
}
