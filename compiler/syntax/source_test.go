package syntax

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"waverig/compiler/diag"
)

// TestSourcesAreRegularFilesWithALimit: a main file or #include that is a device,
// a FIFO or too large is a coded error, never an endless read or a hang.
func TestSourcesAreRegularFilesWithALimit(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.hlsl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.hlsl")
	f, _ := os.Create(big)
	f.Truncate(MaxSourceBytes + 1)
	f.Close()
	for _, c := range []struct{ name, main string }{
		{"include of /dev/zero", `#include "/dev/zero"` + "\n"},
		{"include of a FIFO", `#include "` + fifo + `"` + "\n"},
		{"include over the limit", `#include "` + big + `"` + "\n"},
	} {
		main := filepath.Join(dir, "main.hlsl")
		os.WriteFile(main, []byte(c.main), 0o644)
		done := make(chan *diag.Log, 1)
		go func() {
			log := &diag.Log{}
			ParseFile(main, Options{}, log)
			done <- log
		}()
		select {
		case log := <-done:
			if !log.HasErrors() {
				t.Errorf("%s: no error", c.name)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: the compiler hangs", c.name)
		}
	}
	for _, path := range []string{"/dev/zero", fifo, big} {
		_, err := ReadSource(path)
		if err == nil || !(strings.Contains(err.Error(), "not a regular file") || strings.Contains(err.Error(), "limit")) {
			t.Errorf("%s: %v", path, err)
		}
		log := &diag.Log{}
		ParseFile(path, Options{}, log)
		if !log.HasErrors() {
			t.Errorf("main file %s: no error", path)
		}
	}
}
