package diag

import (
	"fmt"
	"sort"
	"sync"
)

// Code is a stable diagnostic code. Codes never change meaning once released;
// retired codes are not reused. Ranges:
//
//	E00xx/W00xx  preprocessor           (codes_preprocess.go)
//	E01xx/W01xx  lexer and parser       (codes_syntax.go)
//	E02xx-E04xx  semantic analysis      (codes_sema.go)
//	E05xx        SPIR-V back end        (codes_spirv.go)
//	E06xx/W06xx  WGSL back end          (codes_wgsl.go)
//	E07xx/W07xx  MSL back end           (codes_msl.go)
//	E08xx        driver / options       (codes_driver.go)
//
// Every code is registered with a title and an example (an HLSL snippet that
// triggers it); docs/diagnostics.md is generated from the registry and a test
// keeps the two equal.
type Code string

// CodeInfo documents one code.
type CodeInfo struct {
	Code    Code
	Title   string // one line: what is wrong
	Example string // HLSL that triggers it (may be multi-line)
	Fix     string // how to fix it, when not obvious
}

// codeLists are the per-range code lists of codes_*.go. They are plain slice
// literals (laid out statically by the linker) and the lookup map is built on
// first use, so a process that reports no diagnostic pays nothing at start-up.
var codeLists = [][]CodeInfo{codesDriver, codesMsl, codesPreprocess, codesSema, codesSpirv, codesSyntax, codesWgsl}

// registry indexes codeLists by code; building it panics on a duplicate code
// (TestRegistry builds it, so a duplicate still fails the tests before it ships).
var registry = sync.OnceValue(func() map[Code]CodeInfo {
	n := 0
	for _, l := range codeLists {
		n += len(l)
	}
	m := make(map[Code]CodeInfo, n)
	for _, l := range codeLists {
		for _, in := range l {
			if _, dup := m[in.Code]; dup {
				panic(fmt.Sprintf("diag: code %s registered twice", in.Code))
			}
			m[in.Code] = in
		}
	}
	return m
})

// Lookup returns the documentation of a code.
func Lookup(c Code) (CodeInfo, bool) {
	in, ok := registry()[c]
	return in, ok
}

// All returns every registered code, sorted.
func All() []CodeInfo {
	reg := registry()
	out := make([]CodeInfo, 0, len(reg))
	for _, in := range reg {
		out = append(out, in)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Code < out[j].Code })
	return out
}
