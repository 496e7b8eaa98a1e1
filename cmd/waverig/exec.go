package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"waverig/devices"
	"waverig/harness/casefile"
	"waverig/harness/pass"
	"waverig/harness/produce"
)

const execUsage = "waverig exec CASE.json [-device N|substring] [-api vulkan|webgpu] [-compiler ours|glslang|cmd:NAME=PATH]"

// runExec is `waverig exec CASE.json [-device …] [-compiler ours|glslang|cmd:NAME=PATH]`;
// flags may come before or after the case file. Exit 0: every expectation
// holds, or "skip: REASON" (the device cannot run the case, or a tool is
// missing); 1: mismatches, or the device or compiler failed on the case; 2: a
// bad case file, a shader that does not compile, or bad arguments; 3: no
// device could be opened, or spirv-val is required (CI) and missing.
func runExec(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("exec", flag.ContinueOnError)
	fs.SetOutput(stderr)
	devSel := fs.String("device", "0", "device index, or a substring of \"name | driver name | driver info\"")
	comp := fs.String("compiler", pass.Ours, "ours, glslang or cmd:NAME=PATH (docs/compilers.md); HLSL shaders only")
	api := fs.String("api", pass.Vulkan, "vulkan (SPIR-V), webgpu (waverig's WGSL through wgpu-native, on the same device), dawn (standard WGSL through Dawn, on the same device) or browser (standard WGSL in headless Chromium's WebGPU, on the adapter it picks)")
	files, code, cont := parseArgs(fs, args, stdout)
	if !cont {
		return code
	}
	if !wantArgs("exec", files, 1, 1, execUsage, stderr) {
		return exitUsage
	}
	file := files[0]
	spec, err := produce.ParseCompiler(*comp)
	if err != nil {
		fmt.Fprintf(stderr, "waverig exec: -compiler %q: %v\n", *comp, err)
		return exitUsage
	}
	apis, err := pass.ParseAPIs(*api)
	if *api == pass.Browser {
		apis, err = []string{pass.Browser}, nil
	}
	if err != nil || len(apis) != 1 {
		fmt.Fprintf(stderr, "waverig exec: -api %q: use vulkan, webgpu, dawn or browser\n", *api)
		return exitUsage
	}
	c, err := casefile.Load(file)
	if err != nil {
		fmt.Fprintf(stderr, "waverig exec: %v\n", err)
		return exitUsage
	}
	devs, err := devices.Enumerate()
	if err != nil {
		fmt.Fprintf(stderr, "waverig exec: %v\n", err)
		return exitIncomplete
	}
	idx, err := pickDevice(devs, *devSel)
	if err != nil {
		fmt.Fprintf(stderr, "waverig exec: %v\n", err)
		return exitUsage
	}
	rig, err := pass.New(idx, pass.Config{APIs: apis})
	if err != nil {
		fmt.Fprintf(stderr, "waverig exec: %v\n", err)
		return exitIncomplete
	}
	defer rig.Close()
	mism, err := rig.ExecCase(apis[0], c, spec)
	var ce *casefile.Error
	var skip *casefile.Skip
	switch {
	case errors.As(err, &skip):
		fmt.Fprintf(stdout, "skip: %s\n", skip.Reason)
		return exitOK
	case errors.As(err, &ce):
		fmt.Fprintf(stderr, "waverig exec: %v\n", err)
		return exitUsage
	case err != nil:
		fmt.Fprintf(stderr, "waverig exec: %v\n", err)
		return exitUnexpected
	}
	if len(mism) == 0 {
		if apis[0] == pass.Browser {
			fmt.Fprintf(stdout, "ok: %s in the browser (headless Chromium's WebGPU, adapter %s)\n", file, rig.BrowserAdapter())
			return exitOK
		}
		fmt.Fprintf(stdout, "ok: %s on %s through %s (wave size %d)\n", file, rig.Device().Name, apis[0], rig.WaveSize())
		return exitOK
	}
	fmt.Fprintf(stdout, "%d mismatch(es) in %s on %s:\n", len(mism), file, rig.Device().Name)
	for i, m := range mism {
		if i == 20 {
			fmt.Fprintf(stdout, "… and %d more\n", len(mism)-20)
			break
		}
		fmt.Fprintf(stdout, "  %s\n", m)
	}
	return exitUnexpected
}
