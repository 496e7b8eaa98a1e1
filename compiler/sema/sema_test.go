package sema

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"waverig/compiler/args"
	"waverig/compiler/diag"
	"waverig/compiler/ir"
	"waverig/compiler/syntax"
	"waverig/internal/golden"
)

// parseArgs reads the `// waverig-args: …` first line of a fixture with the
// command line's own parser.
func parseArgs(t *testing.T, src string) Options {
	list, ok := args.FixtureLine(src)
	if !ok {
		return Options{}
	}
	a, err := args.Parse(list)
	if err != nil {
		t.Fatalf("fixture options: %v", err)
	}
	return Options{Entry: a.Entry, Stage: a.Stage, Shifts: a.Shifts, AutoBindings: a.AutoBindings,
		PartitionedNV: a.HasExtension("SPV_NV_shader_subgroup_partitioned")}
}

// compile parses and checks src.
func compile(t *testing.T, name, src string, opts Options) (*ir.Module, *diag.Log) {
	t.Helper()
	log := &diag.Log{}
	f, _ := syntax.Parse(name, []byte(src), syntax.Options{}, log)
	if log.HasErrors() {
		for _, m := range log.Msgs {
			t.Logf("%s", m.Render())
		}
		t.Fatalf("%s: parse errors", name)
	}
	return Check(f, opts, log), log
}

func errorsOf(log *diag.Log) string {
	var b strings.Builder
	for _, m := range log.Sorted() {
		b.WriteString(m.Render())
	}
	return b.String()
}

func TestMain(m *testing.M) { os.Exit(golden.Main(m, "testdata/*.ir")) }

// eachProgram runs check on every file matching pattern, each in its own
// subtest, with the module it compiles to cleanly (the test fails on errors)
// and satisfying the invariants.
func eachProgram(t *testing.T, pattern string, check func(t *testing.T, path string, m *ir.Module)) {
	files, _ := filepath.Glob(pattern)
	if len(files) == 0 {
		t.Fatalf("nothing matches %s", pattern)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			m, log := compile(t, path, string(src), parseArgs(t, string(src)))
			if m == nil || log.HasErrors() {
				t.Fatalf("errors:\n%s", errorsOf(log))
			}
			for _, v := range invariants(m) {
				t.Errorf("invariant: %s", v)
			}
			check(t, path, m)
		})
	}
}

// TestGolden compiles testdata/*.hlsl and compares ir.Dump with testdata/*.ir.
// The IR of the language fixtures (fixtures/lang) is pinned once, in the
// compiler's golden files (compiler/testdata/golden/lang), not here.
func TestGolden(t *testing.T) {
	eachProgram(t, "testdata/*.hlsl", func(t *testing.T, path string, m *ir.Module) {
		golden.Check(t, strings.TrimSuffix(path, ".hlsl")+".ir", []byte(ir.Dump(m)))
	})
}

// TestLangFixtures checks that every positive language fixture compiles cleanly
// (no errors), satisfies the IR invariants and has a compute entry point.
func TestLangFixtures(t *testing.T) {
	eachProgram(t, "../../fixtures/lang/*.hlsl", func(t *testing.T, path string, m *ir.Module) {
		for _, ep := range m.EntryPoints {
			if ep.Stage == ir.Compute {
				return
			}
		}
		t.Error("no compute entry point")
	})
}

var expectRE = regexp.MustCompile(`/\*\s*ERROR(-FILE)?\s+(E\d{4}|W\d{4})\s+"((?:[^"\\]|\\.)*)"\s*\*/`)

type expectation struct {
	file      bool
	line, col int // col: column of the comment start
	code      string
	re        *regexp.Regexp
}

// TestNegativeFixtures checks fixtures/negative/sema: every expected diagnostic
// (a `/* ERROR CODE "regexp" */` comment right after the offending token) is
// reported on that line, before the comment, with that code and a matching
// message, and no unexpected error is reported.
func TestNegativeFixtures(t *testing.T) {
	files, _ := filepath.Glob("../../fixtures/negative/sema/*.hlsl")
	if len(files) < 30 {
		t.Fatalf("want at least 30 negative fixtures, have %d", len(files))
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var exps []expectation
			for i, line := range strings.Split(string(src), "\n") {
				for _, m := range expectRE.FindAllStringSubmatchIndex(line, -1) {
					pat, _ := strconv.Unquote(`"` + line[m[6]:m[7]] + `"`)
					exps = append(exps, expectation{file: m[2] >= 0, line: i + 1, col: m[0] + 1,
						code: line[m[4]:m[5]], re: regexp.MustCompile(pat)})
				}
			}
			if len(exps) == 0 {
				t.Fatal("fixture has no ERROR expectation")
			}
			_, log := compile(t, path, string(src), parseArgs(t, string(src)))
			matched := make([]bool, len(log.Msgs))
			for _, e := range exps {
				found := false
				for i, m := range log.Msgs {
					if matched[i] || string(m.Code) != e.code || !e.re.MatchString(m.Text) {
						continue
					}
					if e.file {
						found = true
					} else if m.Pos.IsValid() {
						l, c := m.Pos.Src.LineCol(m.Pos.Off)
						found = l == e.line && c < e.col
					}
					if found {
						matched[i] = true
						break
					}
				}
				if !found {
					t.Errorf("line %d: expected %s %q not reported; got:\n%s", e.line, e.code, e.re, errorsOf(log))
				}
			}
			for i, m := range log.Msgs {
				if !matched[i] && m.Severity == diag.Error {
					t.Errorf("unexpected: %s", m)
				}
			}
		})
	}
}
