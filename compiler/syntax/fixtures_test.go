package syntax

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"waverig/compiler/diag"
)

// expectComment matches `/* ERROR E0123 "regexp" */`, `/* WARNING W0123 "regexp" */`
// and `/* ERROR-FILE E0123 "regexp" */`.
var expectComment = regexp.MustCompile(`/\*\s*(ERROR-FILE|ERROR|WARNING)\s+([EW]\d{4})\s+"((?:[^"\\]|\\.)*)"\s*\*/`)

type expectation struct {
	file     bool // ERROR-FILE: anywhere
	code     diag.Code
	re       *regexp.Regexp
	line     int
	col      int // column of the comment; the diagnostic must be before it
	matched  bool
	spelling string
}

// fixtureOptions reads the `// waverig-args: -D X=1 -I inc` first line.
// -I directories are relative to the fixture's directory.
func fixtureOptions(path string) (Options, error) {
	opts := Options{Defines: map[string]string{}}
	b, err := os.ReadFile(path)
	if err != nil {
		return opts, err
	}
	first, _, _ := strings.Cut(string(b), "\n")
	args, ok := strings.CutPrefix(strings.TrimSpace(first), "// waverig-args:")
	if !ok {
		return opts, nil
	}
	f := strings.Fields(args)
	for i := 0; i < len(f); i++ {
		a := f[i]
		var val string
		switch {
		case a == "-D" || a == "-I":
			if i+1 >= len(f) {
				return opts, fmt.Errorf("%s needs a value", a)
			}
			val = f[i+1]
			i++
		case strings.HasPrefix(a, "-D") || strings.HasPrefix(a, "-I"):
			val = a[2:]
		default:
			continue // options for later stages
		}
		if a[:2] == "-D" {
			name, v, _ := strings.Cut(val, "=")
			opts.Defines[name] = v
		} else {
			opts.IncludeDirs = append(opts.IncludeDirs, filepath.Join(filepath.Dir(path), val))
		}
	}
	return opts, nil
}

func readExpectations(path string) ([]*expectation, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	src := diag.NewSource(path, string(b))
	var out []*expectation
	for _, m := range expectComment.FindAllStringSubmatchIndex(src.Text, -1) {
		pattern := src.Text[m[6]:m[7]]
		re, err := regexp.Compile(pattern)
		if err != nil {
			return nil, fmt.Errorf("bad regexp %q: %v", pattern, err)
		}
		line, col := src.LineCol(m[0])
		out = append(out, &expectation{file: src.Text[m[2]:m[3]] == "ERROR-FILE", code: diag.Code(src.Text[m[4]:m[5]]), re: re,
			line: line, col: col, spelling: src.Text[m[0]:m[1]]})
	}
	return out, nil
}

// TestNegativeFixtures parses each syntax and preprocessor negative fixture and
// checks its expectations the way the project's checker does: a diagnostic with
// the code on the comment's line, before the comment, with a matching message.
// Every error must be expected (warnings may be left unmentioned).
func TestNegativeFixtures(t *testing.T) {
	var paths []string
	for _, dir := range []string{"negative/syntax", "negative/preprocess"} {
		ps, _ := filepath.Glob(filepath.Join(fixturesDir, dir, "*.hlsl"))
		paths = append(paths, ps...)
	}
	if len(paths) < 25 {
		t.Errorf("want at least 25 negative syntax/preprocessor fixtures, found %d", len(paths))
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			exps, err := readExpectations(path)
			if err != nil {
				t.Fatal(err)
			}
			if len(exps) == 0 {
				t.Fatal("no ERROR expectations")
			}
			opts, err := fixtureOptions(path)
			if err != nil {
				t.Fatal(err)
			}
			var log diag.Log
			ParseFile(path, opts, &log)
			for _, m := range log.Msgs {
				found := false
				for _, e := range exps {
					if e.matches(m, path) {
						e.matched, found = true, true
						break
					}
				}
				if !found && m.Severity == diag.Error {
					t.Errorf("unexpected %s", m.Render())
				}
			}
			for _, e := range exps {
				if !e.matched {
					t.Errorf("line %d: no diagnostic for %s; got:\n%s", e.line, e.spelling, strings.Join(msgs(&log), "\n"))
				}
			}
		})
	}
}

func (e *expectation) matches(m diag.Msg, path string) bool {
	if m.Code != e.code || !e.re.MatchString(m.Text) {
		return false
	}
	if e.file {
		return true
	}
	if m.Pos.Src == nil || filepath.Clean(m.Pos.Src.Path) != filepath.Clean(path) {
		return false
	}
	line, col := m.Pos.Src.LineCol(m.Pos.Off)
	return line == e.line && col < e.col
}
