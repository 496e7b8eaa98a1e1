package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"waverig/devices"
	"waverig/harness/gen"
	"waverig/harness/plan"
)

const fuzzUsage = "waverig fuzz [-device N|substring] [-seed S] [-n N] [-time D] [-out DIR] [-sizes 4,8,16] [-keep-going]"

// fuzzSizeEnv tells a child `waverig fuzz` (one lavapipe width) the wave size
// its device must report: LP_NATIVE_VECTOR_WIDTH is read once, when the driver
// loads, so each lavapipe size is a process of its own.
const fuzzSizeEnv = "WAVERIG_FUZZ_SIZE"

// fuzzTamper is a fault build's planted bug in the programs' logs
// (fuzz_faults.go, tag waverig_faults); nil in the default build.
var fuzzTamper func(p *gen.Program, words []uint32)

// runFuzz is `waverig fuzz`: generated programs (harness/gen), seeds S, S+1, …,
// on one device at each wave size of -sizes (default: the device's own), each
// checked against the CPU simulation under the subset contract. Exit 0: no
// failure; 1: a program failed (a wrong result, or a module waverig's compiler
// or spirv-val rejected), its shrunk repro in -out; 2: bad usage; 3: no device,
// a size it cannot run, a device error, or the repro could not be written.
func runFuzz(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("fuzz", flag.ContinueOnError)
	fs.SetOutput(stderr)
	devSel := fs.String("device", "0", "device index, or a substring of \"name | driver name | driver info\"")
	seed := fs.Uint64("seed", 1, "the first program's seed (program i is seed S+i)")
	n := fs.Int("n", 0, "programs per wave size (default 100 when -time is not given)")
	dur := fs.Duration("time", 0, "stop each wave size after this long (e.g. 10m)")
	out := fs.String("out", "fuzz-repro", "where a failure's shrunk repro is written (DIR/size=N with several sizes)")
	sizesArg := fs.String("sizes", "", "wave sizes, e.g. 4,8,16 (lavapipe: one child process per size)")
	keepGoing := fs.Bool("keep-going", false, "run past failures: shrink the first, count the others (failure rates)")
	pos, code, cont := parseArgs(fs, args, stdout)
	if !cont {
		return code
	}
	if !wantArgs("fuzz", pos, 0, 0, fuzzUsage, stderr) {
		return exitUsage
	}
	if *n < 0 || *dur < 0 {
		fmt.Fprintf(stderr, "waverig fuzz: -n and -time must not be negative\n")
		return exitUsage
	}
	if *n == 0 && *dur == 0 {
		*n = 100
	}
	sizes, err := parseSizes(*sizesArg)
	if err != nil || (*sizesArg == "all") {
		fmt.Fprintf(stderr, "waverig fuzz: -sizes %q: list powers of two, e.g. 4,8,16\n", *sizesArg)
		return exitUsage
	}
	devs, err := devices.Enumerate()
	if err != nil {
		fmt.Fprintf(stderr, "waverig fuzz: %v\n", err)
		return exitIncomplete
	}
	idx, err := pickDevice(devs, *devSel)
	if err != nil {
		fmt.Fprintf(stderr, "waverig fuzz: %v\n", err)
		return exitUsage
	}
	cfg := gen.FuzzConfig{Seed: *seed, N: *n, Time: *dur, Progress: stderr, KeepGoing: *keepGoing}

	if want := os.Getenv(fuzzSizeEnv); want != "" { // a lavapipe child
		size, _ := strconv.Atoi(want)
		if devs[idx].SubgroupSize != uint32(size) {
			fmt.Fprintf(stderr, "waverig fuzz: %s reports wave size %d with LP_NATIVE_VECTOR_WIDTH=%s, not %d\n",
				devs[idx].Name, devs[idx].SubgroupSize, os.Getenv("LP_NATIVE_VECTOR_WIDTH"), size)
			return exitIncomplete
		}
		return fuzzOne(idx, 0, cfg, *out, stdout, stderr)
	}
	if len(sizes) == 0 {
		return fuzzOne(idx, 0, cfg, *out, stdout, stderr)
	}
	worst := exitOK
	for _, size := range sizes {
		dir := *out
		if len(sizes) > 1 {
			dir = filepath.Join(*out, fmt.Sprintf("size=%d", size))
		}
		var st int
		if plan.IsLavapipe(devs[idx]) {
			st = fuzzChild(size, args, dir, stdout, stderr)
		} else {
			st = fuzzOne(idx, size, cfg, dir, stdout, stderr)
		}
		worst = worseExit(worst, st)
	}
	return worst
}

// worseExit orders exit statuses: usage and incomplete runs over failures.
func worseExit(a, b int) int {
	rank := map[int]int{exitOK: 0, exitUnexpected: 1, exitIncomplete: 2, exitUsage: 3}
	if rank[b] > rank[a] {
		return b
	}
	return a
}

// fuzzChild runs one lavapipe size as a child process of this binary with the
// same flags, its own -out and LP_NATIVE_VECTOR_WIDTH (32 bits a lane).
func fuzzChild(size uint32, args []string, dir string, stdout, stderr io.Writer) int {
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "waverig fuzz: %v\n", err)
		return exitIncomplete
	}
	// Later flags win: the child's -out and -sizes override the parent's.
	cargs := append(append([]string{"fuzz"}, args...), "-out", dir, "-sizes", "")
	cmd := exec.Command(self, cargs...)
	cmd.Env = append(os.Environ(), fmt.Sprintf("LP_NATIVE_VECTOR_WIDTH=%d", size*32), fmt.Sprintf("%s=%d", fuzzSizeEnv, size))
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ee) && ee.ExitCode() > 0:
		return ee.ExitCode()
	}
	fmt.Fprintf(stderr, "waverig fuzz: wave size %d: %v\n", size, err)
	return exitIncomplete
}

// fuzzOne runs the programs on one device at one size (0: its own).
func fuzzOne(idx int, size uint32, cfg gen.FuzzConfig, out string, stdout, stderr io.Writer) int {
	d, err := gen.OpenDevice(idx)
	if err != nil {
		fmt.Fprintf(stderr, "waverig fuzz: %v\n", err)
		return exitIncomplete
	}
	defer d.Close()
	d.Tamper = fuzzTamper
	cfg.Mode = d.Contract()
	if size != 0 {
		if err := d.SetWaveSize(size); err != nil {
			fmt.Fprintf(stderr, "waverig fuzz: %v\n", err)
			return exitIncomplete
		}
	}
	res, err := d.Fuzz(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "waverig fuzz: %s at wave size %d: %v\n", d.Name(), d.WaveSize(), err)
		return exitIncomplete
	}
	rate := float64(res.Programs) / max(res.Elapsed.Seconds(), 1e-9)
	head := fmt.Sprintf("fuzz: %s, wave size %d, %s contract, seeds %d..%d: %d programs, %d results checked, %.1fs (%.1f programs/s)",
		d.Name(), d.WaveSize(), cfg.Mode, cfg.Seed, cfg.Seed+uint64(max(res.Programs, 1))-1, res.Programs, res.Events, res.Elapsed.Seconds(), rate)
	if res.Failed == nil {
		fmt.Fprintf(stdout, "%s: no failures\n", head)
		return exitOK
	}
	fl := res.Failed
	fmt.Fprintf(stdout, "%s: seed %d FAILS: %s\n", head, fl.Seed, fl.OriginalFailure)
	if cfg.KeepGoing {
		compile := 0
		for _, sf := range res.FailedSeeds {
			if sf.Compile {
				compile++
			}
		}
		fmt.Fprintf(stdout, "  %d failing programs: %d rejected by the compiler or spirv-val, %d wrong results\n", len(res.FailedSeeds), compile, len(res.FailedSeeds)-compile)
		for i, sf := range res.FailedSeeds {
			if i == 20 {
				fmt.Fprintf(stdout, "  … and %d more\n", len(res.FailedSeeds)-20)
				break
			}
			fmt.Fprintf(stdout, "  seed %d: %s\n", sf.Seed, sf.Why)
		}
	}
	fmt.Fprintf(stdout, "  shrunk from %d to %d statements (%d candidates in %s)\n", fl.OriginalSize, fl.Shrunk.Size(), fl.ShrinkTries, fl.ShrinkTime.Round(time.Millisecond))
	for i, f := range fl.Failures {
		if i == 10 {
			fmt.Fprintf(stdout, "  … and %d more\n", len(fl.Failures)-10)
			break
		}
		fmt.Fprintf(stdout, "  %s\n", f)
	}
	if fl.CompileError != "" {
		fmt.Fprintf(stdout, "  %s\n", firstLineOf(fl.CompileError))
	}
	if err := fl.WriteRepro(out); err != nil {
		fmt.Fprintf(stderr, "waverig fuzz: writing the repro: %v\n", err)
		return exitIncomplete
	}
	fmt.Fprintf(stdout, "  repro: %s\n", out)
	return exitUnexpected
}

func firstLineOf(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			return s[:i]
		}
	}
	return s
}
