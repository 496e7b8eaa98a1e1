//go:build viewer

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The view command's refusals, which need no display: bad flags and
// arguments are usage errors (2); a run directory without results.jsonl too;
// no display to open is "could not finish" (3). The window itself is tested
// in package viewer, under Xvfb.
func TestViewTaggedRefusals(t *testing.T) {
	run := t.TempDir()
	if err := os.WriteFile(filepath.Join(run, "results.jsonl"), []byte(`{"case":"a","op":"A","status":"pass"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args    []string
		display string
		code    int
		stderr  string
	}{
		{[]string{"view"}, ":0", exitUsage, "0 argument(s) given"},
		{[]string{"view", run, run}, ":0", exitUsage, "2 argument(s) given"},
		{[]string{"view", "-size", "big", run}, ":0", exitUsage, `-size "big"`},
		{[]string{"view", "-frames", "-1", run}, ":0", exitUsage, "-frames -1"},
		{[]string{"view", t.TempDir()}, ":0", exitUsage, "results.jsonl"},
		{[]string{"view", run}, "", exitIncomplete, "DISPLAY is not set"},
	} {
		t.Setenv("DISPLAY", c.display)
		code, _, stderr := runCLI(c.args...)
		if code != c.code || !strings.Contains(stderr, c.stderr) {
			t.Errorf("%q (DISPLAY=%q): exit %d, stderr %q; want %d and %q", c.args, c.display, code, stderr, c.code, c.stderr)
		}
	}
	if code, stdout, _ := runCLI("view", "-h"); code != exitOK || !strings.Contains(stdout, "-screenshot") {
		t.Errorf("view -h: exit %d, stdout %q", code, stdout)
	}
}
