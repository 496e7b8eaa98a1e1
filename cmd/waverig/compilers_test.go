package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"waverig/harness/results"
)

// wrapper is glslang behind the command-compiler convention.
const wrapper = "../../scripts/compilers/glslang-wrapper.sh"

// requireGlslang skips without glslangValidator, except under CI.
func requireGlslang(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("glslangValidator"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("CI needs glslangValidator")
		}
		t.Skip("glslangValidator not installed")
	}
}

// compilerScript writes an executable script that follows the convention's
// command line and returns "cmd:NAME=PATH".
func compilerScript(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name+".sh")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return "cmd:" + name + "=" + p
}

// glslang through the wrapper is just another compiler: its records say
// compiler "wrapped", its test names end /compiler=wrapped, and it ends every
// case as glslang itself does (bound by its module's own decorations, not by
// glslang's known register map). Its inclusive WavePrefixSum is blamed
// compiler:wrapped where waverig's module passed; glslang's same failures are
// known to the built-in baseline, but no baseline knows the name "wrapped",
// so the run fails (exit 1). What glslang cannot compile (int64_t) is a skip
// with its message.
func TestRunCommandCompiler(t *testing.T) {
	requireVulkan(t)
	requireGlslang(t)
	out := t.TempDir()
	code, stdout, stderr := runCLI("run", "-ops", "^WavePrefixSum$", "-sizes", "4", "-api", "vulkan", "-stages", "compute",
		"-compilers", "ours,glslang,cmd:wrapped="+wrapper, "-out", out)
	if code != exitUnexpected {
		t.Fatalf("exit %d, want 1\n%s%s", code, stdout, stderr)
	}
	recs, _, err := results.ReadRunDir(out)
	if err != nil {
		t.Fatal(err)
	}
	glslangStatus := map[string]string{}
	for _, r := range recs {
		if r.Compiler == "glslang" {
			glslangStatus[r.Case] = r.Status
			if r.Status == results.Fail && r.Verdict() != results.VerdictKnown {
				t.Fatalf("glslang's own failure is not known to the built-in baseline: %+v", r)
			}
		}
	}
	n := map[string]int{}
	for _, r := range recs {
		if r.Case == results.LayoutCase {
			continue
		}
		n[r.Compiler]++
		if r.Compiler != "wrapped" {
			continue
		}
		if !strings.HasSuffix(r.Name(), "/size=4/compiler=wrapped") {
			t.Fatalf("test name %q", r.Name())
		}
		if r.Status != glslangStatus[r.Case] {
			t.Fatalf("%s: wrapped %s, glslang %s", r.Case, r.Status, glslangStatus[r.Case])
		}
		switch r.Status {
		case results.Fail:
			n["fail"]++
			if r.Blame != "compiler:wrapped" || r.Verdict() != results.VerdictUnexpected {
				t.Fatalf("a wrapped failure: blame %q verdict %q: %+v", r.Blame, r.Verdict(), r)
			}
		case results.Vacuous:
			// As glslang's twin (checked above): lavapipe runs a workgroup one
			// invocation wide in x one invocation per wave, where "odd" picks none.
			n["vacuous"]++
		case results.Skip:
			n["skip"]++
			if !strings.Contains(r.Reason, "compiler wrapped cannot compile this shader: glslangValidator rejects this shader: line ") || !strings.Contains(r.Type, "int64_t") {
				t.Fatalf("a wrapped skip: %+v", r)
			}
		default:
			t.Fatalf("a wrapped record: %+v", r)
		}
	}
	if n["ours"] == 0 || n["wrapped"] != n["ours"] || n["glslang"] != n["ours"] || n["fail"] == 0 || n["skip"] == 0 {
		t.Errorf("records: %v", n)
	}
	if !strings.Contains(stdout, "compiler:wrapped: failures where waverig's compiler passed") {
		t.Errorf("the blame is not printed:\n%s", stdout)
	}
	// The repro bundle re-runs with the same command compiler.
	readme, err := os.ReadFile(filepath.Join(out, "repro", "WavePrefixSum_base_whole.vulkan.wrapped.wave4", "README.txt"))
	abs, _ := filepath.Abs(wrapper)
	if err != nil || !strings.Contains(string(readme), "-compilers cmd:wrapped="+abs) || !strings.Contains(string(readme), "-compiler cmd:wrapped="+abs) {
		t.Errorf("repro README: %v\n%s", err, readme)
	}
}

// A command that fails is an error record with its stderr (the compiler, not
// the device, failed; it counts against the run); one that declares it cannot compile (exit 3) is a skip
// with its message; a bad compiler spec is exit 2 before anything runs.
func TestRunCommandCompilerFailures(t *testing.T) {
	requireVulkan(t)
	for _, c := range []struct {
		body, status, reason string
	}{
		{"echo 'internal compiler error: boom' >&2; exit 1\n", results.Error, "compiler broken failed (exit 1):\ninternal compiler error: boom"},
		{"echo 'no subgroup support in this back end' >&2; exit 3\n", results.Skip, "compiler broken cannot compile this shader: no subgroup support in this back end"},
	} {
		out := t.TempDir()
		code, stdout, stderr := runCLI("run", "-ops", "^WaveActiveSum$", "-sizes", "4", "-api", "vulkan", "-stages", "compute",
			"-compilers", compilerScript(t, "broken", c.body), "-out", out)
		want := exitUnexpected
		if c.status == results.Skip {
			want = exitOK
		}
		if code != want {
			t.Fatalf("exit %d, want %d\n%s%s", code, want, stdout, stderr)
		}
		recs, _, _ := results.ReadRunDir(out)
		cases := 0
		for _, r := range recs {
			if r.Case == results.LayoutCase {
				continue
			}
			cases++
			if r.Compiler != "broken" || r.Status != c.status || !strings.Contains(r.Reason, c.reason) {
				t.Fatalf("record %s %s %q, want %s with %q", r.Compiler, r.Status, r.Reason, c.status, c.reason)
			}
		}
		if cases == 0 {
			t.Fatalf("no case records\n%s", stdout)
		}
	}
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	os.WriteFile(plain, []byte("#!/bin/sh\n"), 0o644)
	for _, spec := range []string{"cmd:x=" + filepath.Join(dir, "missing"), "cmd:x=" + plain, "cmd:x=" + dir, "cmd:x", "dxc", "cmd:glslang=" + wrapper} {
		out := t.TempDir()
		code, _, stderr := runCLI("run", "-ops", "^WaveActiveSum$", "-sizes", "4", "-compilers", "ours,"+spec, "-out", out)
		if code != exitUsage || !strings.Contains(stderr, "-compilers") {
			t.Errorf("%s: exit %d, want 2: %s", spec, code, stderr)
		}
		if _, err := results.FindResults(out); err == nil {
			t.Errorf("%s: a run started", spec)
		}
	}
	if code, _, stderr := runCLI("list", "-ops", "^WaveActiveSum$", "-compilers", "cmd:x="+plain); code != exitUsage || !strings.Contains(stderr, "not an executable program") {
		t.Errorf("list: exit %d: %s", code, stderr)
	}
}

// exec compiles with a command compiler too: the wrapped glslang's inclusive
// prefix sum fails the example case as glslang's own does; exit 3 is a skip;
// another failure is exit 1 with the compiler's words.
func TestExecCommandCompiler(t *testing.T) {
	requireVulkan(t)
	requireGlslang(t)
	code, out, errs := runCLI("exec", "../../fixtures/cases/prefix.json", "-compiler", "cmd:wrapped="+wrapper)
	if code != exitUnexpected || !strings.Contains(out, "mismatch") {
		t.Errorf("wrapped glslang: exit %d\n%s%s", code, out, errs)
	}
	// Without OpNames the module is bound by the requested register shifts:
	// the same mismatches.
	if _, err := exec.LookPath("spirv-opt"); err == nil {
		abs, _ := filepath.Abs(wrapper)
		stripped := compilerScript(t, "stripped", `for a; do [ "$prev" = --out ] && out=$a; prev=$a; done
"`+abs+`" "$@" || exit
spirv-opt --strip-debug "$out" -o "$out"
`)
		code2, out2, errs2 := runCLI("exec", "../../fixtures/cases/prefix.json", "-compiler", stripped)
		if code2 != exitUnexpected || out2 != out {
			t.Errorf("stripped: exit %d\n%s%s\nwant\n%s", code2, out2, errs2, out)
		}
	}
	code, out, errs = runCLI("exec", "../../fixtures/cases/prefix.json", "-compiler", compilerScript(t, "nope", "echo 'no WGSL here' >&2; exit 3\n"))
	if code != exitOK || out != "skip: compiler nope cannot compile this shader: no WGSL here\n" {
		t.Errorf("exit 3: exit %d %q %s", code, out, errs)
	}
	code, _, errs = runCLI("exec", "../../fixtures/cases/prefix.json", "-compiler", compilerScript(t, "bad", "echo 'segfault' >&2; exit 139\n"))
	if code != exitUnexpected || !strings.Contains(errs, "compiler bad failed (exit 139):\nsegfault") {
		t.Errorf("exit 139: exit %d %s", code, errs)
	}
	if code, _, errs := runCLI("exec", "../../fixtures/cases/prefix.json", "-compiler", "cmd:bad=/nonexistent/cc"); code != exitUsage || !strings.Contains(errs, "not an executable program") {
		t.Errorf("a missing command: exit %d %s", code, errs)
	}
}

// Case files whose shader is a module: the hand-written .spvasm (assembled by
// spirv-as) and its .spv run on Vulkan, its WGSL twin on WebGPU, all bound by
// SET:BINDING from the module itself (set 1 binding 2, which no register rule
// gives). Every misuse is exit 2 with a message.
func TestExecModules(t *testing.T) {
	requireVulkan(t)
	for _, f := range []string{"module.json", "module_spv.json"} {
		if _, err := exec.LookPath("spirv-as"); err != nil && f == "module.json" && os.Getenv("CI") == "" {
			continue
		}
		if code, out, errs := runCLI("exec", "../../fixtures/cases/"+f); code != exitOK || !strings.HasPrefix(out, "ok: ") {
			t.Errorf("%s: exit %d\n%s%s", f, code, out, errs)
		}
	}
	// WebGPU: ok, or a skip where this device has no adapter.
	if code, out, errs := runCLI("exec", "../../fixtures/cases/module_wgsl.json", "-api", "webgpu"); code != exitOK || !strings.HasPrefix(out, "ok: ") && !strings.HasPrefix(out, "skip: ") {
		t.Errorf("module_wgsl.json: exit %d\n%s%s", code, out, errs)
	}

	dir := t.TempDir()
	for _, f := range []string{"module.spvasm", "module.spv", "module.wgsl"} {
		data, err := os.ReadFile("../../fixtures/cases/" + f)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, f), data, 0o644)
	}
	os.WriteFile(filepath.Join(dir, "junk.spv"), []byte("not a module, 20 bytes at least"), 0o644)
	os.WriteFile(filepath.Join(dir, "junk.spvasm"), []byte("OpCapability Shader\n%x = OpNotAnInstruction\n"), 0o644)
	in := `{"binding":"0:0","format":"uint32","count":64}`
	outBuf := `{"binding":"1:2","format":"uint32","count":128}`
	caseOf := func(shader, buffers string) string {
		return `{"shader":"` + shader + `","entry":"main","dispatch":[1,1,1],"buffers":[` + buffers + `]}`
	}
	for _, c := range []struct {
		name, json string
		args       []string
		want       string
	}{
		{"wrong expectation", caseOf("module.spv", in+`,{"binding":"1:2","format":"uint32","count":128,"expect":[1]}`), nil, ""},
		{"missing buffer", caseOf("module.spv", in), nil, "the shader uses storage buffer Out (binding 1:2) but the case has no buffer for it"},
		{"no such binding", caseOf("module.spv", in+","+outBuf+`,{"binding":"0:5","format":"uint32","count":1}`), nil, "the shader has no resource at binding 0:5"},
		{"register for a module", caseOf("module.spv", `{"binding":"u0","format":"uint32","count":1}`), nil, `named by set and binding, like "0:1"`},
		{"compiler for a module", caseOf("module.spv", in+","+outBuf), []string{"-compiler", "glslang"}, "no compiler compiles"},
		{"SPIR-V through WebGPU", caseOf("module.spv", in+","+outBuf), []string{"-api", "webgpu"}, "runs through Vulkan only"},
		{"WGSL through Vulkan", caseOf("module.wgsl", in+","+outBuf), nil, "runs through WebGPU only (-api webgpu"},
		{"not SPIR-V", caseOf("junk.spv", in+","+outBuf), nil, "junk.spv: 31 bytes is not a SPIR-V module"},
		{"bad assembly", caseOf("junk.spvasm", in+","+outBuf), nil, "junk.spvasm: spirv-as rejects it"},
		{"no such entry", strings.Replace(caseOf("module.spv", in+","+outBuf), `"main"`, `"CSMain"`, 1), nil, `no GLCompute entry point named "CSMain"`},
	} {
		p := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".json")
		os.WriteFile(p, []byte(c.json), 0o644)
		code, out, errs := runCLI(append([]string{"exec", p}, c.args...)...)
		if c.want == "" { // the wrong expectation: mismatches, exit 1
			if code != exitUnexpected || !strings.Contains(out, "1:2[0]: expected 1, actual 0") {
				t.Errorf("%s: exit %d\n%s%s", c.name, code, out, errs)
			}
			continue
		}
		if c.name == "bad assembly" {
			if _, err := exec.LookPath("spirv-as"); err != nil && os.Getenv("CI") == "" {
				continue
			}
		}
		if code != exitUsage || !strings.Contains(errs, c.want) {
			t.Errorf("%s: exit %d, want 2 with %q\n%s%s", c.name, code, c.want, out, errs)
		}
	}
}

// selfWrapper is waverig's own compiler behind the command-compiler
// convention, for SPIR-V and WGSL.
const selfWrapper = "../../scripts/compilers/waverig-wrapper.sh"

// A command compiler runs on WebGPU too (asked for WGSL): waverig's compiler
// behind the convention ends every case on both APIs as the built-in "ours"
// does, bound by its module's own declarations. Standard WGSL (`enable
// subgroups;`, which naga rejects) runs once the rig drops the directive.
// exec takes the same command on WebGPU; glslang's wrapper says it emits no
// WGSL (exit 3): a skip.
func TestRunCommandCompilerWebGPU(t *testing.T) {
	requireVulkan(t)
	requireGlslang(t)
	bin, err := filepath.Abs("../../bin/waverig")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI builds bin/waverig first: %v", err)
		}
		t.Skip("bin/waverig not built (scripts/build.sh)")
	}
	t.Setenv("WAVERIG", bin)
	for _, dialect := range []string{"naga", "standard"} {
		ops := "^(WaveActiveSum|WaveIsFirstLane|QuadReadAcrossX)$"
		if dialect == "standard" {
			ops = "^WaveActiveSum$" // naga has no subgroupElect (WaveIsFirstLane)
		}
		t.Setenv("WAVERIG_WGSL_DIALECT", dialect)
		out := t.TempDir()
		code, stdout, stderr := runCLI("run", "-ops", ops, "-sizes", "4", "-api", "vulkan,webgpu", "-stages", "compute,pixel",
			"-compilers", "ours,cmd:self="+selfWrapper, "-out", out)
		if code != exitOK {
			t.Fatalf("%s: exit %d\n%s%s", dialect, code, stdout, stderr)
		}
		recs, _, err := results.ReadRunDir(out)
		if err != nil {
			t.Fatal(err)
		}
		ours := map[string]string{}
		for _, r := range recs {
			if r.Compiler == "ours" {
				ours[r.API+"|"+r.Stage+"|"+r.Case] = r.Status
			}
		}
		n := map[string]int{}
		for _, r := range recs {
			key := r.API + "|" + r.Stage + "|" + r.Case
			if r.Compiler == "self" {
				if want, ok := ours[key]; !ok || r.Status != want {
					t.Fatalf("%s: %s: self %s (%s), ours %q", dialect, r.Name(), r.Status, r.Reason, want)
				}
				n[r.API+" "+r.Status]++
			}
		}
		if n["webgpu pass"] == 0 || n["vulkan pass"] == 0 {
			t.Errorf("%s: self records %v", dialect, n)
		}
		t.Logf("%s: self records %v", dialect, n)
	}
	code, out, errs := runCLI("exec", "../../fixtures/cases/prefix.json", "-api", "webgpu", "-compiler", "cmd:self="+selfWrapper)
	if code != exitOK || !strings.HasPrefix(out, "ok: ") && !strings.HasPrefix(out, "skip: ") {
		t.Errorf("exec on WebGPU: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = runCLI("exec", "../../fixtures/cases/prefix.json", "-api", "webgpu", "-compiler", "cmd:wrapped="+wrapper)
	if code != exitOK || !strings.HasPrefix(out, "skip: compiler wrapped cannot compile this shader: glslang emits no WGSL") {
		t.Errorf("glslang's wrapper on WebGPU: exit %d\n%s%s", code, out, errs)
	}
}
