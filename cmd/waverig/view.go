//go:build viewer

package main

import (
	"flag"
	"fmt"
	"image/png"
	"io"
	"os"

	"waverig/viewer"
)

// runView is `waverig view DIR`: a window on a run's results (package viewer),
// in binaries built with -tags viewer.
func runView(args []string, stdout, stderr io.Writer) int {
	const usage = "waverig view [-select N] [-size WxH] [-frames N] [-screenshot FILE.png] DIR   (DIR holds results.jsonl or results.jsonl.gz)"
	fs := flag.NewFlagSet("view", flag.ContinueOnError)
	fs.SetOutput(stderr)
	sel := fs.Int("select", 0, "`N`: start on the N-th case that did not pass (0: the worst)")
	size := fs.String("size", "1100x700", "the window's size, `WxH` pixels")
	frames := fs.Int("frames", 0, "close after presenting `N` frames (0: when closed with Esc, q or the window's button)")
	shot := fs.String("screenshot", "", "present one frame, write it to `FILE` as PNG (the pixels the window shows) and exit")
	pos, code, cont := parseArgs(fs, args, stdout)
	if !cont {
		return code
	}
	if !wantArgs("view", pos, 1, 1, usage, stderr) {
		return exitUsage
	}
	var w, h int
	if n, err := fmt.Sscanf(*size, "%dx%d", &w, &h); n != 2 || err != nil || w <= 0 || h <= 0 {
		fmt.Fprintf(stderr, "waverig view: -size %q: want WxH, e.g. 1100x700\n", *size)
		return exitUsage
	}
	if *frames < 0 {
		fmt.Fprintf(stderr, "waverig view: -frames %d: want 0 or more\n", *frames)
		return exitUsage
	}
	run, err := viewer.Load(pos[0])
	if err != nil {
		fmt.Fprintf(stderr, "waverig view: %v\n", err)
		return exitUsage
	}
	if run.Truncated {
		fmt.Fprintf(stderr, "waverig view: %s: the last line is cut off; showing the %d complete records\n", pos[0], len(run.Records))
	}
	opts := viewer.Options{Width: w, Height: h, Select: *sel, Frames: *frames, Log: stdout}
	var last *viewer.Frame
	if *shot != "" {
		opts.Frames = 1
		opts.Presented = func(f *viewer.Frame, _, _ int) bool { last = f; return false }
	}
	if err := viewer.Show(run, opts); err != nil {
		fmt.Fprintf(stderr, "waverig view: %v\n", err)
		return exitIncomplete
	}
	if *shot != "" && last != nil {
		f, err := os.Create(*shot)
		if err == nil {
			err = png.Encode(f, last.Image)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			fmt.Fprintf(stderr, "waverig view: -screenshot: %v\n", err)
			return exitIncomplete
		}
	}
	return exitOK
}
