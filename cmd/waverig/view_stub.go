//go:build !viewer

package main

import (
	"fmt"
	"io"
)

// runView in a binary built without -tags viewer: the window needs GLFW, whose
// C sources need the X11 development headers the rig does not otherwise ask for.
func runView(_ []string, _, stderr io.Writer) int {
	fmt.Fprintln(stderr, "waverig view: this binary was built without -tags viewer (go build -tags viewer ./cmd/waverig)")
	return exitUsage
}
