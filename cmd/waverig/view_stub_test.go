//go:build !viewer

package main

import (
	"strings"
	"testing"
)

// A binary built without -tags viewer knows the command and says how to get it.
func TestViewWithoutTheViewerTag(t *testing.T) {
	var stdout, stderr strings.Builder
	if code := run([]string{"view", t.TempDir()}, &stdout, &stderr); code != exitUsage {
		t.Errorf("exit %d, want %d", code, exitUsage)
	}
	want := "waverig view: this binary was built without -tags viewer (go build -tags viewer ./cmd/waverig)\n"
	if stderr.String() != want || stdout.Len() != 0 {
		t.Errorf("stdout %q, stderr %q; want stderr %q", stdout.String(), stderr.String(), want)
	}
}
