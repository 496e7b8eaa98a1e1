package textgen

import (
	"strings"
	"testing"

	"waverig/compiler/ir"
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

func TestWriteAndDec(t *testing.T) {
	var b strings.Builder
	Write(&b, "a", "", "bc")
	if b.String() != "abc" {
		t.Errorf("Write: %q", b.String())
	}
	if Dec(0) != "0" || Dec(-12) != "-12" || Dec(uint64(1<<63)) != "9223372036854775808" || Dec(int8(-128)) != "-128" {
		t.Error("Dec")
	}
}

func TestVectorNames(t *testing.T) {
	calls := 0
	names := NewVectorNames(func(v ir.Vector) string {
		calls++
		return v.Elem.String() + "x" + Dec(v.N)
	})
	built := calls
	if got := names.Name(ir.Vector{Elem: ir.F16, N: 3}); got != "f16x3" || calls != built {
		t.Errorf("table name %q (%d spell calls after the table)", got, calls-built)
	}
	if got := names.Name(ir.Vector{Elem: ir.Scalar{Kind: ir.Uint, Bits: 8}, N: 2}); got != "u8x2" || calls != built+1 {
		t.Errorf("spelled name %q", got)
	}
}
