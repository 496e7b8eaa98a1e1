// Package textgen holds what the text back ends (WGSL, MSL) share for printing
// source: indented lines and strings into a strings.Builder without fmt,
// decimal integers, identifier checks and vector type names built once.
package textgen

import (
	"fmt"
	"strconv"
	"strings"

	"waverig/compiler/ir"
)

// Line writes depth copies of unit, then format (through fmt only when it has
// arguments or verbs), then a newline.
func Line(b *strings.Builder, depth int, unit, format string, args ...any) {
	Indent(b, depth, unit)
	if len(args) == 0 && strings.IndexByte(format, '%') < 0 {
		b.WriteString(format)
	} else {
		fmt.Fprintf(b, format, args...)
	}
	b.WriteByte('\n')
}

// LineS is Line for a line made only of strings: most lines are, and boxing
// each part into an interface for Fprintf cost an allocation per argument.
func LineS(b *strings.Builder, depth int, unit string, parts ...string) {
	Indent(b, depth, unit)
	for _, p := range parts {
		b.WriteString(p)
	}
	b.WriteByte('\n')
}

// Write writes parts to b one after another: fmt.Fprintf without the format
// parsing and without boxing every string argument into an interface.
func Write(b *strings.Builder, parts ...string) {
	for _, p := range parts {
		b.WriteString(p)
	}
}

// Dec formats an integer in decimal, as fmt's %d does, without boxing it.
func Dec[T ~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64](v T) string {
	if v < 0 {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatUint(uint64(v), 10)
}

// Indent writes depth copies of unit without building a string for them.
func Indent(b *strings.Builder, depth int, unit string) {
	if depth < 0 {
		panic("textgen: negative indentation") // an emitter closed more blocks than it opened
	}
	for i := 0; i < depth; i++ {
		b.WriteString(unit)
	}
}

// ASCIIIdent reports whether every byte of name is a letter, '_' or (after the
// first) a digit: such a name needs no rewriting to be an identifier.
func ASCIIIdent(name string) bool {
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// BitsIndex maps 16, 32 and 64 bits to 0, 1, 2 (-1 otherwise), to index
// per-width name tables.
func BitsIndex(bits int) int {
	switch bits {
	case 16:
		return 0
	case 32:
		return 1
	case 64:
		return 2
	}
	return -1
}

// VectorNames is a target's spelling of vector types. The 2-, 3- and
// 4-component vectors of every scalar kind and width are spelled once, when
// the table is made: type names are printed for nearly every expression, and
// building them there cost allocations.
type VectorNames struct {
	spell func(ir.Vector) string
	names [4][3][3]string // [kind][BitsIndex(bits)][N-2]
}

// NewVectorNames makes the table of a target that spells vectors with spell.
func NewVectorNames(spell func(ir.Vector) string) *VectorNames {
	t := &VectorNames{spell: spell}
	for k := range t.names {
		for i, bits := range [...]int{16, 32, 64} {
			for n := 2; n <= 4; n++ {
				t.names[k][i][n-2] = spell(ir.Vector{Elem: ir.Scalar{Kind: ir.ScalarKind(k), Bits: bits}, N: n})
			}
		}
	}
	return t
}

// Name spells v: from the table, or through the target's rule for vectors
// outside it.
func (t *VectorNames) Name(v ir.Vector) string {
	if i := BitsIndex(v.Elem.Bits); i >= 0 && v.Elem.Kind <= ir.Float && v.N >= 2 && v.N <= 4 {
		return t.names[v.Elem.Kind][i][v.N-2]
	}
	return t.spell(v)
}
