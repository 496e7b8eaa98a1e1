// Package golden compares output against golden files; -update rewrites them.
//
// It registers the test binary's one -update flag. Check compares one output
// with its file (with -update it writes the file instead). Main, called from a
// package's TestMain with the patterns of its golden files, then looks for
// orphans: golden files no Check call of the run compared, left behind when a
// test or a case is renamed or removed. Orphans fail the run, listed by name;
// with -update they are deleted.
//
// Orphans are only looked for after a complete run that passed: without a -run
// filter (other than "." or ".*"), -skip, -short or -list, and with no test
// skipped through Skipf (a test that skips before comparing its files would
// leave them looking orphaned).
package golden

import (
	"bytes"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files from the current output and delete orphaned ones")

var (
	mu      sync.Mutex
	checked = map[string]bool{} // absolute paths Check has seen
	skipped bool                // a test skipped through Skipf
)

// Update reports whether the run rewrites golden files (-update).
func Update() bool { return *update }

// Check compares got with the golden file at path (relative to the package
// directory) and fails t with the first differing lines; with -update it
// writes got to path, creating the directory if needed.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	record(path)
	want, err := os.ReadFile(path)
	if *update {
		if err == nil && bytes.Equal(want, got) {
			return
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	switch {
	case err != nil:
		t.Errorf("golden file %s: %v (go test -update writes it)", path, err)
	case !bytes.Equal(want, got):
		t.Errorf("%s differs from the output (check the change, then go test -update):\n%s", path, diff(string(want), string(got)))
	}
}

// Skipf is t.Skipf for a test that would have compared golden files: as some
// may now go unchecked, Main does not look for orphans in this run.
func Skipf(t testing.TB, format string, args ...any) {
	t.Helper()
	mu.Lock()
	skipped = true
	mu.Unlock()
	t.Skipf(format, args...)
}

// Main runs the tests, then reports (or, with -update, deletes) the orphaned
// files among those matching patterns, and returns the exit code for os.Exit.
// Patterns are slash-separated paths relative to the package directory, in
// path.Match syntax plus "**" for any number of directories:
//
//	func TestMain(m *testing.M) { os.Exit(golden.Main(m, "testdata/golden/**/*.golden")) }
func Main(m *testing.M, patterns ...string) int {
	code := m.Run()
	if code != 0 {
		return code
	}
	if why := partial(); why != "" {
		if testing.Verbose() {
			fmt.Printf("golden: orphans not looked for: %s\n", why)
		}
		return 0
	}
	orphans, err := Orphans(patterns...)
	if err != nil {
		fmt.Printf("golden: %v\n", err)
		return 1
	}
	if len(orphans) == 0 {
		return 0
	}
	if *update {
		for _, p := range orphans {
			if err := os.Remove(p); err != nil {
				fmt.Printf("golden: %v\n", err)
				return 1
			}
			fmt.Printf("golden: deleted %s, which no test produces\n", p)
		}
		return 0
	}
	fmt.Printf("golden: %d orphaned golden file(s), which no test produced (go test -update deletes them):\n", len(orphans))
	for _, p := range orphans {
		fmt.Printf("\t%s\n", p)
	}
	return 1
}

// Orphans returns the files matching patterns (see Main) that no Check call
// has compared so far, sorted.
func Orphans(patterns ...string) ([]string, error) {
	var out []string
	for _, pat := range patterns {
		root := literalPrefix(pat)
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if os.IsNotExist(err) && p == root {
					return filepath.SkipDir
				}
				return err
			}
			if d.IsDir() || !match(pat, filepath.ToSlash(p)) {
				return nil
			}
			abs, err := filepath.Abs(p)
			if err != nil {
				return err
			}
			mu.Lock()
			seen := checked[abs]
			mu.Unlock()
			if !seen {
				out = append(out, p)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Strings(out)
	return out, nil
}

// diff describes where want and got differ: their first five differing lines.
func diff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl == gl {
			continue
		}
		if shown == 5 {
			b.WriteString("…\n")
			break
		}
		fmt.Fprintf(&b, "line %d:\n  want: %s\n  got:  %s\n", i+1, wl, gl)
		shown++
	}
	if len(w) != len(g) {
		fmt.Fprintf(&b, "(%d lines, want %d)\n", len(g), len(w))
	}
	return b.String()
}

func record(p string) {
	abs, err := filepath.Abs(p)
	if err != nil {
		abs = p
	}
	mu.Lock()
	checked[abs] = true
	mu.Unlock()
}

// partial says why this run cannot have compared every golden file, or "".
func partial() string {
	flagValue := func(name string) string {
		if f := flag.Lookup(name); f != nil {
			return f.Value.String()
		}
		return ""
	}
	switch run := flagValue("test.run"); {
	case run != "" && run != "." && run != ".*":
		return "-run " + run
	case flagValue("test.skip") != "":
		return "-skip"
	case flagValue("test.list") != "":
		return "-list"
	case testing.Short():
		return "-short"
	}
	mu.Lock()
	defer mu.Unlock()
	if skipped {
		return "a test that compares golden files was skipped"
	}
	return ""
}

// literalPrefix is the directory part of a pattern before its first element
// with a wildcard: where the walk for its files starts.
func literalPrefix(pat string) string {
	elems := strings.Split(pat, "/")
	i := 0
	for i < len(elems)-1 && !strings.ContainsAny(elems[i], "*?[\\") {
		i++
	}
	if i == 0 {
		return "."
	}
	return filepath.FromSlash(strings.Join(elems[:i], "/"))
}

// match reports whether the slash path p matches pat, where a "**" element
// stands for any number of directories.
func match(pat, p string) bool {
	return matchElems(strings.Split(path.Clean(pat), "/"), strings.Split(path.Clean(p), "/"))
}

func matchElems(pat, p []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for i := 0; i <= len(p); i++ {
				if matchElems(pat[1:], p[i:]) {
					return true
				}
			}
			return false
		}
		if len(p) == 0 {
			return false
		}
		if ok, err := path.Match(pat[0], p[0]); err != nil || !ok {
			return false
		}
		pat, p = pat[1:], p[1:]
	}
	return len(p) == 0
}
