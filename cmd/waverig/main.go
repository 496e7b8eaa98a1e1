// Command waverig is the rig's command line: compile HLSL (compile), list
// devices (devices), run the wave-intrinsic matrix on a device (run) and run one
// case file (exec).
package main

import (
	"fmt"
	"io"
	"os"
)

const usage = `waverig proves GPU wave (subgroup) intrinsics on real drivers.

usage:
  waverig run [-device N|substring] [-ops REGEX] [-sizes all|4,8] [-out DIR]   run the matrix (main job)
  waverig exec CASE.json [-device …] [-compiler ours|glslang]                 run one case file
  waverig devices [-json]                                                     list Vulkan devices
  waverig compile [flags] FILE.hlsl                                           compile HLSL (see waverig compile -h)
  waverig report DIR                                                          JUnit/CSV/HTML from DIR/results.jsonl
  waverig diff BASELINE.jsonl NEW.jsonl                                       regressions and fixes between two runs
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "compile":
		return runCompile(args[1:], stdout, stderr)
	case "devices":
		return runDevices(args[1:], stdout, stderr)
	case "run":
		return runMatrix(args[1:], stdout, stderr)
	case "exec":
		return runExec(args[1:], stdout, stderr)
	case "report":
		return runReport(args[1:], stdout, stderr)
	case "diff":
		return runDiff(args[1:], stdout, stderr)
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "waverig: unknown command %q\n%s", args[0], usage)
	return 2
}
