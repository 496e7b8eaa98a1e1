package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"waverig/devices"
	"waverig/harness"
)

// runExec is `waverig exec CASE.json [-device …] [-compiler ours|glslang]`.
// Exit 0: every expectation holds; 1: mismatches (or a device error); 2: a bad
// case file or a shader that does not compile.
func runExec(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("exec", flag.ContinueOnError)
	fs.SetOutput(stderr)
	devSel := fs.String("device", "0", "device index or name substring")
	comp := fs.String("compiler", harness.Ours, "ours or glslang")
	// Allow the case file before or after the flags.
	var file string
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		file, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if file == "" && fs.NArg() > 0 {
		file = fs.Arg(0)
	}
	if file == "" {
		fmt.Fprintln(stderr, "usage: waverig exec CASE.json [-device N|substring] [-compiler ours|glslang]")
		return 2
	}
	if *comp != harness.Ours && *comp != harness.Glslang {
		fmt.Fprintf(stderr, "waverig exec: -compiler %q: use ours or glslang\n", *comp)
		return 2
	}
	c, err := harness.LoadCaseFile(file)
	if err != nil {
		fmt.Fprintf(stderr, "waverig exec: %v\n", err)
		return 2
	}
	devs, err := devices.Enumerate()
	if err != nil {
		fmt.Fprintf(stderr, "waverig exec: %v\n", err)
		return 1
	}
	idx, err := pickDevice(devs, *devSel)
	if err != nil {
		fmt.Fprintf(stderr, "waverig exec: %v\n", err)
		return 2
	}
	rig, err := harness.New(idx, harness.Config{RequireTools: os.Getenv("CI") != ""})
	if err != nil {
		fmt.Fprintf(stderr, "waverig exec: %v\n", err)
		return 1
	}
	defer rig.Close()
	mism, err := rig.ExecCase(c, *comp)
	var ce *harness.CaseError
	switch {
	case errors.As(err, &ce):
		fmt.Fprintf(stderr, "waverig exec: %v\n", err)
		return 2
	case err != nil:
		fmt.Fprintf(stderr, "waverig exec: %v\n", err)
		return 1
	}
	if len(mism) == 0 {
		fmt.Fprintf(stdout, "ok: %s on %s (wave size %d)\n", file, rig.Device().Name, rig.WaveSize())
		return 0
	}
	fmt.Fprintf(stdout, "%d mismatch(es) in %s on %s:\n", len(mism), file, rig.Device().Name)
	for i, m := range mism {
		if i == 20 {
			fmt.Fprintf(stdout, "… and %d more\n", len(mism)-20)
			break
		}
		fmt.Fprintf(stdout, "  %s[%d]: expected %s, actual %s\n", m.Buffer, m.Index, m.Expected, m.Actual)
	}
	return 1
}
