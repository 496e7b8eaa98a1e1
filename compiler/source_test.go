package compiler

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"waverig/compiler/diag"
)

// within runs f and fails the test if it has not returned after a few seconds:
// reading a device or a FIFO must never hang the compiler.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: still running after 10 s (a blocking or endless read)", what)
	}
}

// nonSources makes a temporary directory holding a FIFO (fifo.hlsli) and a
// sparse file one byte over MaxSourceBytes (big.hlsli).
func nonSources(t *testing.T) (dir, fifo, big string) {
	dir = t.TempDir()
	fifo, big = filepath.Join(dir, "fifo.hlsli"), filepath.Join(dir, "big.hlsli")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	sizedFile(t, big, MaxSourceBytes+1)
	return dir, fifo, big
}

func sizedFile(t *testing.T, path string, size int64) {
	f, err := os.Create(path)
	if err == nil {
		err = f.Truncate(size)
		f.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
}

// TestReadSource: the one reader of HLSL source refuses devices, FIFOs,
// directories and files over MaxSourceBytes with a coded error at the file, and
// reads a file of exactly MaxSourceBytes.
func TestReadSource(t *testing.T) {
	dir, fifo, big := nonSources(t)
	exact := filepath.Join(dir, "exact.hlsl")
	sizedFile(t, exact, MaxSourceBytes)
	for _, c := range []struct{ path, want string }{
		{"/dev/zero", "/dev/zero: error E0801: cannot read the file: /dev/zero is not a regular file (a device)"},
		{fifo, fifo + ": error E0801: cannot read the file: " + fifo + " is not a regular file (a FIFO)"},
		{dir, dir + ": error E0801: cannot read the file: " + dir + " is not a regular file (a directory)"},
		{big, big + ": error E0801: cannot read the file: " + big + " is 16777217 bytes, more than the limit of 16777216"},
		{filepath.Join(dir, "missing.hlsl"), filepath.Join(dir, "missing.hlsl") + ": error E0801: cannot read the file: no such file or directory"},
	} {
		within(t, c.path, func() {
			data, err := ReadSource(c.path)
			var de *diag.Errors
			if !errors.As(err, &de) || len(de.Msgs) != 1 || de.Msgs[0].Code != diag.ErrReadFile || de.Err == nil {
				t.Errorf("%s: %v, %d bytes; want one E0801", c.path, err, len(data))
				return
			}
			if err.Error() != c.want {
				t.Errorf("%s:\n got %s\nwant %s", c.path, err, c.want)
			}
		})
	}
	if _, err := ReadSource(filepath.Join(dir, "missing.hlsl")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v is not fs.ErrNotExist", err)
	}
	if data, err := ReadSource(exact); err != nil || len(data) != MaxSourceBytes {
		t.Errorf("a file of exactly MaxSourceBytes: %d bytes, %v", len(data), err)
	}
}

// TestUnreadableSources compiles main files and #includes that are not
// sources: each is one E0801 printed at the file (main file) or at the
// #include, and the compile returns.
func TestUnreadableSources(t *testing.T) {
	dir, fifo, big := nonSources(t)
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, read := range []func(string) ([]byte, error){nil, ReadSource} {
		for _, c := range []struct{ name, path, want string }{
			{"main file is a FIFO", fifo, fifo + ": error E0801: cannot read the file: " + fifo + " is not a regular file (a FIFO)\n"},
			{"main file is /dev/urandom", "/dev/urandom", "/dev/urandom: error E0801: cannot read the file: /dev/urandom is not a regular file (a device)\n"},
			{"#include of /dev/zero", write("zero.hlsl", "#include \"/dev/zero\"\n"),
				filepath.Join(dir, "zero.hlsl") + ":1:10: error E0801: cannot read include file \"/dev/zero\": /dev/zero is not a regular file (a device)\n"},
			{"#include of a FIFO", write("fifo.hlsl", "// a FIFO\n#include \"fifo.hlsli\"\n"),
				filepath.Join(dir, "fifo.hlsl") + ":2:10: error E0801: cannot read include file \"fifo.hlsli\": " + fifo + " is not a regular file (a FIFO)\n"},
			{"#include over the limit", write("big.hlsl", "#include \"big.hlsli\"\n"),
				filepath.Join(dir, "big.hlsl") + ":1:10: error E0801: cannot read include file \"big.hlsli\": " + big + " is 16777217 bytes, more than the limit of 16777216\n"},
		} {
			within(t, c.name, func() {
				res, err := CompileFile(c.path, Options{ReadFile: read})
				if err == nil || len(res.Diagnostics) != 1 || res.Diagnostics[0].Code != diag.ErrReadFile {
					t.Errorf("%s: %v\n%s", c.name, err, res.Render())
					return
				}
				got := res.Diagnostics[0].String() + "\n"
				if got != c.want {
					t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
				}
			})
		}
		// A missing include is still "not found" (E0003), not unreadable.
		res, _ := CompileFile(write("missing.hlsl", "#include \"absent.hlsli\"\n"), Options{ReadFile: read})
		if len(res.Diagnostics) != 1 || res.Diagnostics[0].Code != diag.ErrPPIncludeNotFound {
			t.Errorf("missing include: %s", res.Render())
		}
	}
}

// TestWholeFileDiagnostics (issue 7): E0801, E0802 and E0804 are about a whole
// file and print it as their position, "path: error CODE: …", with no line and
// no caret (they printed "<unknown>:").
func TestWholeFileDiagnostics(t *testing.T) {
	dir := t.TempDir()
	noEntry := filepath.Join(dir, "helpers.hlsl")
	os.WriteFile(noEntry, []byte("uint f(uint x) { return x; }\n"), 0o644)
	waves := filepath.Join(fixturesDir, "Waves.hlsl")
	missing := filepath.Join(dir, "missing.hlsl")
	for _, c := range []struct {
		path string
		opts Options
		want string
	}{
		{missing, Options{}, missing + ": error E0801: cannot read the file: no such file or directory\n"},
		{noEntry, Options{}, noEntry + ": error E0802: no entry point: add [shader(\"compute\")] and [numthreads(…)] to a function, or pass -entry and -stage\n"},
		{waves, Options{Entry: "Nope"}, waves + ": error E0804: entry point \"Nope\" not found\n"},
	} {
		res, err := CompileFile(c.path, c.opts)
		if err == nil {
			t.Fatalf("%s compiled", c.path)
		}
		if got := res.Render(); got != c.want {
			t.Errorf("got  %q\nwant %q", got, c.want)
		}
		if got := err.Error() + "\n"; got != c.want {
			t.Errorf("error value: got %q\nwant %q", got, c.want)
		}
	}
	// In-memory sources are named by the name given to Compile.
	res, _ := Compile("mem.hlsl", []byte("uint f(uint x) { return x; }\n"), Options{})
	if got := res.Render(); !strings.HasPrefix(got, "mem.hlsl: error E0802: ") {
		t.Errorf("in memory: %q", got)
	}
}
