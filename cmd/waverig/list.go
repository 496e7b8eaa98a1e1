package main

// `waverig list`: the test names a `waverig run` with the same flags records,
// before anything runs — for a CI system that shards, a baseline's author, or
// a progress display. The plan is the harness's (pass.PlanCases); this file
// only reads the flags and prints.

import (
	"flag"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"waverig/devices"
	"waverig/harness/kernels"
	"waverig/harness/pass"
	"waverig/harness/plan"
	"waverig/harness/produce"
)

const listUsage = "waverig list [-device N|substring[,…]|all] [-ops REGEX] [-api vulkan,webgpu,dawn] [-stages compute,pixel,vertex] [-sizes all|4,8] [-compilers ours,glslang,cmd:NAME=PATH] [-shard K/N] [-gen-seeds 1-20|1,5,9|none]"

// planFlags are the flags that decide what a run covers, as `waverig run`
// reads them; list takes the same spellings and the same checks.
type planFlags struct {
	device, ops, types, sizes, compilers, apis, stages, shard, genSeeds *string
	fraction                                                            *int
}

func addPlanFlags(fs *flag.FlagSet) planFlags {
	return planFlags{
		device:    fs.String("device", "0", "devices: an index or a substring of \"name | driver name | driver info\", a comma list of them, or all"),
		ops:       fs.String("ops", "", "only operations matching this regular expression (e.g. WavePrefix)"),
		types:     fs.String("types", "", "only these HLSL types, comma-separated: a type (float3) or a scalar and * for all its widths (double*)"),
		sizes:     fs.String("sizes", "all", "wave sizes: all, default (each device's own size: one pass per device), or a list like 4,8"),
		compilers: fs.String("compilers", "", "compilers: ours,glslang,cmd:NAME=PATH (docs/compilers.md; default: ours, plus glslang when installed)"),
		apis:      fs.String("api", "", "APIs: vulkan, webgpu (wgpu-native), dawn (WebGPU through Dawn) (default: every API with a device)"),
		stages:    fs.String("stages", "", "shader stages: compute,pixel,vertex,task,mesh (default: all five)"),
		shard:     fs.String("shard", "", "share K of N of the kernels (1 ≤ K ≤ N), as run -shard K/N runs it"),
		genSeeds:  fs.String("gen-seeds", "", genSeedsUsage),
		fraction:  fs.Int("fraction", 1, "the CI tier: every operation × type family × stage at each wave size, 1/N of the rest, every case a baseline expects to crash (1: everything; docs/suites.md)"),
	}
}

// config turns the flags into the run's configuration and wanted sizes; the
// error names the flag.
func (p planFlags) config() (cfg pass.Config, sizes []uint32, err error) {
	if *p.ops != "" {
		re, err := regexp.Compile(*p.ops)
		if err != nil {
			return cfg, nil, fmt.Errorf("-ops: %v", err)
		}
		cfg.Filter.Ops = re
		if noCase(cfg.Filter) {
			return cfg, nil, fmt.Errorf("-ops %q matches no operation of the matrix", *p.ops)
		}
	}
	if *p.types != "" {
		for _, t := range strings.Split(*p.types, ",") {
			if t = strings.TrimSpace(t); t != "" {
				cfg.Filter.Types = append(cfg.Filter.Types, t)
			}
		}
		if noCase(cfg.Filter) {
			return cfg, nil, fmt.Errorf("-types %q (with -ops %q) matches no case of the matrix", *p.types, *p.ops)
		}
	}
	if *p.compilers != "" {
		if cfg.Compilers, err = produce.ParseCompilers(*p.compilers); err != nil {
			return cfg, nil, fmt.Errorf("-compilers: %v", err)
		}
	}
	if sizes, err = parseSizes(*p.sizes); err != nil {
		return cfg, nil, fmt.Errorf("-sizes: %v", err)
	}
	if cfg.Shard, err = plan.ParseShard(*p.shard); err != nil {
		return cfg, nil, fmt.Errorf("-shard: %v", err)
	}
	if *p.apis != "" {
		if cfg.APIs, err = pass.ParseAPIs(*p.apis); err != nil {
			return cfg, nil, fmt.Errorf("-api: %v", err)
		}
	}
	if *p.stages != "" {
		if cfg.Stages, err = pass.ParseStages(*p.stages); err != nil {
			return cfg, nil, fmt.Errorf("-stages: %v", err)
		}
	}
	if *p.fraction < 1 {
		return cfg, nil, fmt.Errorf("-fraction %d: at least 1", *p.fraction)
	}
	cfg.Fraction = *p.fraction
	if cfg.GenSeeds, err = genSeeds(*p.genSeeds, cfg); err != nil {
		return cfg, nil, err
	}
	return cfg, sizes, nil
}

// noCase reports whether a filter leaves the matrix empty. Pixel-only
// programs (PSSlope, IsHelperLane, the helper-lane kernels) are in no compute
// kernel, so the pixel matrix is asked too.
func noCase(f kernels.Filter) bool {
	return len(kernels.Matrix(f)) == 0 && len(kernels.GraphicsMatrix(kernels.Pixel, f)) == 0 &&
		len(kernels.MeshMatrix(kernels.Task, f)) == 0 // the task stage's own: MeshletCompaction
}

const genSeedsUsage = "generated programs (waverig fuzz's) each wave size runs after the matrix: seeds like 1-20 or 1,5,9, or none (default: 1-20; none with -ops, or -compilers without ours)"

// genSeeds reads -gen-seeds for a configuration whose other flags are read.
// Unset, a run covers seeds 1-20 unless it was narrowed to some operations
// (-ops) or to other compilers (the programs are compiled by waverig's): such
// a run asks about one thing, and twenty whole programs are not it.
func genSeeds(arg string, cfg pass.Config) ([]uint64, error) {
	if arg == "" {
		if cfg.Filter.Ops != nil || (cfg.Compilers != nil && !slices.Contains(cfg.Compilers, pass.Ours)) {
			return nil, nil
		}
		return pass.DefaultGenSeeds(), nil
	}
	seeds, err := pass.ParseGenSeeds(arg)
	if err != nil {
		return nil, fmt.Errorf("-gen-seeds: %v", err)
	}
	return seeds, nil
}

// runList is `waverig list`: every test name (results.Record.Name) the run of
// the same flags records — skips included, layout and parity records not, nor
// the pairs an API cannot run by design (counted on stderr) — one per line,
// sorted, on stdout; the count on stderr. With several devices the
// names of all of them, each once.
func runList(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("list", flag.ContinueOnError)
	fs.SetOutput(stderr)
	pf := addPlanFlags(fs)
	pos, code, cont := parseArgs(fs, args, stdout)
	if !cont {
		return code
	}
	if !wantArgs("list", pos, 0, 0, listUsage, stderr) {
		return exitUsage
	}
	cfg, want, err := pf.config()
	if err != nil {
		fmt.Fprintf(stderr, "waverig list: %v\n", err)
		return exitUsage
	}
	devs, err := devices.Enumerate()
	if err != nil {
		fmt.Fprintf(stderr, "waverig list: %v\n", err)
		return exitIncomplete
	}
	idxs, err := pickDevices(devs, *pf.device)
	if err != nil {
		fmt.Fprintf(stderr, "waverig list: %v\n", err)
		return exitUsage
	}
	var planned []plan.PlannedCase
	var excluded []plan.Excluded
	for _, idx := range idxs {
		dc := cfg
		if dc.APIs == nil {
			var notes []string
			dc.APIs, notes = pass.DefaultAPIs(devs[idx])
			for _, n := range notes {
				fmt.Fprintf(stderr, "device %d: %s\n", idx, n)
			}
		}
		dev := devs[idx]
		dev.Index = idx
		cs, ex := pass.PlanRun(plan.Make(dev, want), dc)
		planned, excluded = append(planned, cs...), append(excluded, ex...)
	}
	names := plan.CaseNames(planned)
	for _, n := range names {
		if _, err := fmt.Fprintln(stdout, n); err != nil {
			break // `waverig list | head`: the reader has what it wanted
		}
	}
	// What the run leaves out by design, as its summary says it (before the
	// count, which stays the last line).
	printExcluded(stderr, excluded)
	if len(idxs) > 1 {
		fmt.Fprintf(stderr, "%d cases (%d records on %d devices)\n", len(names), len(planned), len(idxs))
	} else {
		fmt.Fprintf(stderr, "%d cases\n", len(names))
	}
	return exitOK
}
