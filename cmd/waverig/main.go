// Command waverig is the rig's command line: compile HLSL (compile), list
// devices (devices), run the wave-intrinsic matrix on a device (run), list the
// test names a run records (list), join shards and hosts' runs (merge), make a
// baseline directory from a run (baseline) and run one case file (exec).
package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"

	"waverig/harness"
)

const usage = `waverig proves GPU wave (subgroup) intrinsics on real drivers.

usage:
  waverig run [-device N|substring] [-ops REGEX] [-sizes all|4,8] [-out DIR] [-baseline DIR]   run the matrix (main job)
  waverig list [-ops REGEX] [-sizes 4,8] [-shard K/N] …                       the test names run would record
  waverig merge -out DIR RUN_DIR…                                             join shards or hosts' runs into one
  waverig baseline -out DIR RUN_DIR                                           a baseline directory from a run
  waverig exec CASE.json [-device …] [-compiler ours|glslang|cmd:NAME=PATH]   run one case file
  waverig devices [-json]                                                     list Vulkan devices
  waverig compile [flags] FILE.hlsl                                           compile HLSL (see waverig compile -h)
  waverig report DIR                                                          JUnit/CSV/HTML from DIR/results.jsonl
  waverig diff [-cross-device] BASELINE.jsonl NEW.jsonl                       regressions and fixes between two runs
  waverig view DIR                                                            a window on a run (built with -tags viewer)
  waverig fuzz [-seed S] [-n N] [-time D] [-out DIR] [-sizes 4,8,16]          generated control flow vs a CPU simulation

exit status: 0 ok; 1 a result no baseline expects — a new wrong result, crash or timeout, or an
unexpected improvement (run, merge, diff, fuzz), compile errors (compile), mismatches (exec); 2 bad
usage or input; 3 could not finish or save results.
`

func main() { os.Exit(mainStatus()) }

// mainStatus is main without the exit, so tests can run the binary's whole
// behaviour (child mode and signals included) from the test binary.
func mainStatus() int {
	// WAVERIG_CPUPROFILE=FILE: a Go CPU profile of this process (a child's goes
	// to FILE.child-PID), for `go tool pprof`; docs/performance.md.
	if path := os.Getenv("WAVERIG_CPUPROFILE"); path != "" {
		if harness.IsChild() {
			path += fmt.Sprintf(".child-%d", os.Getpid())
		}
		if f, err := os.Create(path); err == nil && pprof.StartCPUProfile(f) == nil {
			defer func() { pprof.StopCPUProfile(); f.Close() }()
		}
	}
	// A lavapipe wave size runs in a child process of this binary (harness/child.go).
	if harness.IsChild() {
		return harness.ChildMain(os.Stdout)
	}
	// `waverig run | head -1`: without this, the first write to the closed pipe
	// kills the process with SIGPIPE before it writes its summary and reports.
	// With SIGPIPE caught, such writes fail with EPIPE and the run goes on.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	return run(os.Args[1:], os.Stdout, os.Stderr)
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
	case "list":
		return runList(args[1:], stdout, stderr)
	case "merge":
		return runMerge(args[1:], stdout, stderr)
	case "baseline":
		return runBaseline(args[1:], stdout, stderr)
	case "report":
		return runReport(args[1:], stdout, stderr)
	case "diff":
		return runDiff(args[1:], stdout, stderr)
	case "view":
		return runView(args[1:], stdout, stderr)
	case "fuzz":
		return runFuzz(args[1:], stdout, stderr)
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "waverig: unknown command %q\n%s", args[0], usage)
	return 2
}
