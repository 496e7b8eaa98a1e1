package main

import (
	"flag"
	"fmt"
	"io"

	"waverig/devices"
)

// runDevices is `waverig devices [-json]`.
func runDevices(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("devices", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print JSON laid out like vulkaninfo --json")
	pos, code, cont := parseArgs(fs, args, stdout)
	if !cont {
		return code
	}
	if !wantArgs("devices", pos, 0, 0, "waverig devices [-json]", stderr) {
		return exitUsage
	}
	devs, err := devices.Enumerate()
	if err != nil {
		fmt.Fprintf(stderr, "waverig devices: %v\n", err)
		return exitIncomplete
	}
	if *asJSON {
		err = devices.WriteJSON(stdout, devs)
	} else {
		err = devices.WriteTable(stdout, devs)
	}
	if err != nil {
		fmt.Fprintf(stderr, "waverig devices: %v\n", err)
		return 1
	}
	return 0
}
