package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps failures instead of failing the test.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatal(args ...any) { r.errs = append(r.errs, fmt.Sprint(args...)) }

// inDir runs f in a fresh temporary directory with an empty Check record.
func inDir(t *testing.T, f func()) {
	t.Chdir(t.TempDir())
	mu.Lock()
	saved := checked
	checked = map[string]bool{}
	mu.Unlock()
	defer func() {
		mu.Lock()
		checked = saved
		mu.Unlock()
	}()
	f()
}

func setUpdate(t *testing.T, v bool) {
	old := *update
	*update = v
	t.Cleanup(func() { *update = old })
}

func TestCheck(t *testing.T) {
	setUpdate(t, false)
	inDir(t, func() {
		r := &recorder{TB: t}
		Check(r, "testdata/a.txt", []byte("one\ntwo\n"))
		if len(r.errs) != 1 || !strings.Contains(r.errs[0], "go test -update writes it") {
			t.Fatalf("missing file: %q", r.errs)
		}

		setUpdate(t, true)
		r = &recorder{TB: t}
		Check(r, "testdata/deep/a.txt", []byte("one\ntwo\n"))
		if data, err := os.ReadFile("testdata/deep/a.txt"); err != nil || string(data) != "one\ntwo\n" || len(r.errs) != 0 {
			t.Fatalf("-update wrote %q, %v; failures %q", data, err, r.errs)
		}

		setUpdate(t, false)
		r = &recorder{TB: t}
		Check(r, "testdata/deep/a.txt", []byte("one\ntwo\n"))
		Check(r, "testdata/deep/a.txt", []byte("one\nthree\n"))
		if len(r.errs) != 1 || !strings.Contains(r.errs[0], "line 2:\n  want: two\n  got:  three") {
			t.Fatalf("difference: %q", r.errs)
		}
	})
}

func TestOrphans(t *testing.T) {
	inDir(t, func() {
		for _, p := range []string{"testdata/golden/a.golden", "testdata/golden/lang/b.golden", "testdata/golden/lang/c.golden",
			"testdata/golden/lang/notes.txt", "testdata/x.ir", "testdata/y.ir", "other/z.ir"} {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		r := &recorder{TB: t}
		Check(r, "testdata/golden/a.golden", []byte("x"))
		Check(r, "./testdata/golden/lang/b.golden", []byte("x"))
		Check(r, "testdata/x.ir", []byte("x"))
		got, err := Orphans("testdata/golden/**/*.golden", "testdata/*.ir", "missing/*.ir")
		want := []string{filepath.FromSlash("testdata/golden/lang/c.golden"), filepath.FromSlash("testdata/y.ir")}
		if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("Orphans = %v, %v; want %v", got, err, want)
		}
	})
}

func TestMatch(t *testing.T) {
	for _, c := range []struct {
		pat, path string
		want      bool
	}{
		{"testdata/*.wgsl", "testdata/a.wgsl", true},
		{"testdata/*.wgsl", "testdata/sub/a.wgsl", false},
		{"testdata/**/*.golden", "testdata/a.golden", true},
		{"testdata/**/*.golden", "testdata/x/y/a.golden", true},
		{"testdata/**/*.golden", "testdata/x/a.txt", false},
		{"testdata/**", "testdata/x/a.txt", true},
		{"testdata/*.ir", "other/a.ir", false},
	} {
		if got := match(c.pat, c.path); got != c.want {
			t.Errorf("match(%q, %q) = %v", c.pat, c.path, got)
		}
	}
	for pat, want := range map[string]string{"testdata/*.ir": "testdata", "testdata/golden/**/*.golden": filepath.FromSlash("testdata/golden"), "*.ir": "."} {
		if got := literalPrefix(pat); got != want {
			t.Errorf("literalPrefix(%q) = %q, want %q", pat, got, want)
		}
	}
}

func TestDiff(t *testing.T) {
	got := diff("a\nb\nc\n", "a\nB\nc\nd\n")
	if !strings.Contains(got, "line 2:\n  want: b\n  got:  B\n") || !strings.Contains(got, "line 4:") || !strings.Contains(got, "(5 lines, want 4)") {
		t.Errorf("Diff:\n%s", got)
	}
}
