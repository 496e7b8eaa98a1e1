// Package textgen holds what the text back ends (WGSL, MSL) share for printing
// source: indented lines into a strings.Builder and identifier checks.
package textgen

import (
	"fmt"
	"strings"
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
