package syntax

import (
	"io/fs"
	"strings"
	"testing"

	"waverig/compiler/diag"
)

// mapFS returns a ReadFile over an in-memory file map.
func mapFS(files map[string]string) func(string) ([]byte, error) {
	return func(path string) ([]byte, error) {
		if s, ok := files[path]; ok {
			return []byte(s), nil
		}
		return nil, &fs.PathError{Op: "open", Path: path, Err: fs.ErrNotExist}
	}
}

// msgs renders the log as "CODE text" lines.
func msgs(log *diag.Log) []string {
	var out []string
	for _, m := range log.Msgs {
		out = append(out, string(m.Code)+" "+m.Text)
	}
	return out
}

func parseWith(src string, opts Options) (*File, *diag.Log) {
	var log diag.Log
	f, _ := Parse("test.hlsl", []byte(src), opts, &log)
	return f, &log
}

// expectParse checks that src parses without diagnostics into want (Dump format).
func expectParse(t *testing.T, src, want string) {
	t.Helper()
	f, log := parseWith(src, Options{})
	if len(log.Msgs) > 0 {
		t.Errorf("parse %q: unexpected diagnostics:\n%s", src, strings.Join(msgs(log), "\n"))
		return
	}
	if got := Dump(f); got != want {
		t.Errorf("parse %q:\n got: %s\nwant: %s", src, got, want)
	}
}

// expectError checks the diagnostics of src: one per line of want, each line a
// prefix of the corresponding "CODE message".
func expectError(t *testing.T, src, want string) {
	t.Helper()
	expectErrorOpts(t, src, Options{}, want)
}

func expectErrorOpts(t *testing.T, src string, opts Options, want string) {
	t.Helper()
	_, log := parseWith(src, opts)
	got := msgs(log)
	wants := strings.Split(want, "\n")
	ok := len(got) == len(wants)
	for i := 0; ok && i < len(got); i++ {
		ok = strings.HasPrefix(got[i], wants[i])
	}
	if !ok {
		t.Errorf("source %q:\n got: %s\nwant: %s", src, strings.Join(got, "\n      "), strings.Join(wants, "\n      "))
	}
}

// ppText preprocesses src and returns the token spellings joined by single spaces.
func ppText(src string, opts Options) (string, *diag.Log) {
	var log diag.Log
	toks, _ := preprocess("test.hlsl", []byte(src), opts, &log)
	var parts []string
	for _, t := range toks {
		if t.Kind != tEOF {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, " "), &log
}

func expectPP(t *testing.T, src, want string) {
	t.Helper()
	expectPPOpts(t, src, Options{}, want)
}

func expectPPOpts(t *testing.T, src string, opts Options, want string) {
	t.Helper()
	got, log := ppText(src, opts)
	for _, m := range log.Msgs {
		if m.Severity == diag.Error {
			t.Errorf("preprocess %q: unexpected error %s %s", src, m.Code, m.Text)
		}
	}
	if got != want {
		t.Errorf("preprocess %q:\n got: %s\nwant: %s", src, got, want)
	}
}
