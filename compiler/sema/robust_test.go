package sema

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"waverig/compiler/diag"
	"waverig/compiler/syntax"
)

// TestMutilatedSourcesDoNotPanic feeds sema every fixture with each line removed in
// turn (and each file cut short at every line): broken programs must give
// diagnostics, never a panic or an internal error.
func TestMutilatedSourcesDoNotPanic(t *testing.T) {
	var files []string
	for _, g := range []string{"../../fixtures/lang/*.hlsl", "../../fixtures/negative/sema/*.hlsl", "testdata/*.hlsl"} {
		m, _ := filepath.Glob(g)
		files = append(files, m...)
	}
	if testing.Short() {
		files = files[:min(len(files), 8)]
	}
	runs := 0
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(src), "\n")
		for i := range lines {
			variants := []string{
				strings.Join(append(append([]string{}, lines[:i]...), lines[i+1:]...), "\n"),
				strings.Join(lines[:i], "\n"),
			}
			// Type confusion on one line: scalars become vectors, matrices, bools.
			for _, r := range [][2]string{{"uint", "float2x2"}, {"float", "bool3"}, {"int", "uint4"}, {"1", "1.5"}, {".x", ".xy"}, {"Out", "id"}} {
				mutated := append([]string{}, lines...)
				mutated[i] = strings.ReplaceAll(mutated[i], r[0], r[1])
				if mutated[i] != lines[i] {
					variants = append(variants, strings.Join(mutated, "\n"))
				}
			}
			for _, v := range variants {
				runs++
				checkNoPanic(t, path, i+1, v)
			}
		}
	}
	t.Logf("%d mutilated programs checked", runs)
}

func checkNoPanic(t *testing.T, path string, line int, src string) {
	t.Helper()
	log := &diag.Log{}
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("%s without line %d: panic: %v", path, line, r)
		}
	}()
	f, _ := syntax.Parse("m.hlsl", []byte(src), syntax.Options{}, log)
	m := Check(f, Options{}, log)
	for _, msg := range log.Msgs {
		if msg.Code == diag.ErrInternal {
			t.Fatalf("%s mutated at line %d: %s", path, line, msg)
		}
	}
	if m != nil {
		// A program sema accepts must satisfy the IR invariants.
		for _, v := range invariants(m) {
			t.Errorf("%s mutated at line %d: invariant: %s\n%s", path, line, v, src)
			return
		}
	}
}

// FuzzCheck runs parse+check on arbitrary text seeded with the fixtures; sema must
// never panic, and any program it accepts must satisfy the IR invariants.
func FuzzCheck(f *testing.F) {
	for _, g := range []string{"../../fixtures/lang/*.hlsl", "../../fixtures/negative/sema/*.hlsl", "testdata/*.hlsl"} {
		m, _ := filepath.Glob(g)
		for _, p := range m {
			if src, err := os.ReadFile(p); err == nil {
				f.Add(string(src))
			}
		}
	}
	f.Fuzz(func(t *testing.T, src string) {
		checkNoPanic(t, "fuzz", 0, src)
	})
}
