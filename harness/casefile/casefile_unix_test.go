//go:build unix

package casefile

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"waverig/internal/fsutil"
)

// A FIFO is refused at once: opening it must not wait for a writer.
func TestReadRegularFileFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := fsutil.ReadRegular(fifo, 1<<20)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file (a FIFO)") {
			t.Errorf("err = %v, want a FIFO refused", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("fsutil.ReadRegular blocks on a FIFO")
	}
}
