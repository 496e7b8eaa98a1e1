package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// Exit statuses of every command. A run's 1 says exactly one thing: the device or
// a compiler produced a wrong result (or crashed) that no expectation file knew
// about. Everything else that stops a command has its own status.
const (
	exitOK         = 0
	exitUnexpected = 1 // run, diff: a wrong result nobody knew about; compile: errors; exec: mismatches
	exitUsage      = 2 // bad flags, bad input files, a busy result directory
	exitIncomplete = 3 // the command could not finish or could not record its results
)

// parseArgs parses flags that may come before, between or after positional
// arguments (Go's flag package stops at the first positional, which would
// silently drop every flag after it). -h prints the usage on stdout and gives
// exitOK; a bad flag gives exitUsage. cont is false when the caller must return
// code.
func parseArgs(fs *flag.FlagSet, args []string, stdout io.Writer) (pos []string, code int, cont bool) {
	fs.Usage = func() {}
	for {
		err := fs.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stdout)
			fmt.Fprintf(stdout, "usage of waverig %s:\n", fs.Name())
			fs.PrintDefaults()
			return nil, exitOK, false
		}
		if err != nil {
			return nil, exitUsage, false
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, 0, true
		}
		if rest[0] == "--" {
			return append(pos, rest[1:]...), 0, true
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// wantArgs checks the number of positional arguments.
func wantArgs(cmd string, pos []string, min, max int, usage string, stderr io.Writer) bool {
	if len(pos) < min || (max >= 0 && len(pos) > max) {
		fmt.Fprintf(stderr, "waverig %s: %d argument(s) given\nusage: %s\n", cmd, len(pos), usage)
		return false
	}
	return true
}
