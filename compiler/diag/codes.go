package diag

import (
	"fmt"
	"sort"
)

// Code is a stable diagnostic code. Codes never change meaning once released;
// retired codes are not reused. Ranges:
//
//	E00xx/W00xx  preprocessor           (codes_preprocess.go)
//	E01xx/W01xx  lexer and parser       (codes_syntax.go)
//	E02xx-E04xx  semantic analysis      (codes_sema.go)
//	E05xx        SPIR-V back end        (codes_spirv.go)
//	E06xx        WGSL back end          (codes_wgsl.go)
//	E07xx        MSL back end           (codes_msl.go)
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

var registry = map[Code]CodeInfo{}

// register adds codes; called from package-level vars in codes_*.go so a duplicate
// code is caught at start-up rather than shipped.
func register(infos ...CodeInfo) bool {
	for _, in := range infos {
		if _, dup := registry[in.Code]; dup {
			panic(fmt.Sprintf("diag: code %s registered twice", in.Code))
		}
		registry[in.Code] = in
	}
	return true
}

// Lookup returns the documentation of a code.
func Lookup(c Code) (CodeInfo, bool) {
	in, ok := registry[c]
	return in, ok
}

// All returns every registered code, sorted.
func All() []CodeInfo {
	out := make([]CodeInfo, 0, len(registry))
	for _, in := range registry {
		out = append(out, in)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Code < out[j].Code })
	return out
}
