package produce

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"waverig/harness/vulkan"
)

// script writes an executable shell script into dir and returns its path.
func script(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// Compiler specs are checked before anything runs: a command's path must be
// an executable regular file (kept absolute, so children find it), its name
// neither a built-in's nor taken twice.
func TestParseCompilers(t *testing.T) {
	dir := t.TempDir()
	ok := script(t, dir, "cc.sh", "exit 0\n")
	plain := filepath.Join(dir, "plain.txt")
	os.WriteFile(plain, []byte("x"), 0o644)
	got, err := ParseCompilers("ours,glslang,cmd:mine=" + ok)
	if err != nil || strings.Join(got, " ") != "ours glslang cmd:mine="+ok {
		t.Fatalf("%q %v", got, err)
	}
	if n := CompilerName(got[2]); n != "mine" {
		t.Errorf("name %q", n)
	}
	// A relative path is resolved now.
	wd, _ := os.Getwd()
	rel, _ := filepath.Rel(wd, ok)
	if spec, err := ParseCompiler("cmd:rel=" + rel); err != nil || spec != "cmd:rel="+ok {
		t.Errorf("relative path: %q %v", spec, err)
	}
	for _, c := range []struct{ spec, want string }{
		{"dxc", "unknown compiler"},
		{"cmd:mine", "cmd:NAME=PATH"},
		{"cmd:=" + ok, "cmd:NAME=PATH"},
		{"cmd:Mine=" + ok, "lower-case"},
		{"cmd:ours=" + ok, "built-in"},
		{"cmd:x=" + filepath.Join(dir, "missing"), "not an executable program"},
		{"cmd:x=" + plain, "not an executable program"},
		{"cmd:x=" + dir, "not an executable program"},
	} {
		if _, err := ParseCompiler(c.spec); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.spec, err, c.want)
		}
	}
	if _, err := ParseCompilers("ours,cmd:a=" + ok + ",cmd:a=" + ok); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("a name twice: %v", err)
	}
}

// The command line of the convention, in its documented order.
func TestCommandArgs(t *testing.T) {
	in := CommandInput{Entry: "CSMain", Stage: "pixel", Defines: map[string]string{"N": "64", "A": "1"}, Extensions: []string{"SPV_KHR_quad_control"}}
	got := strings.Join(in.Args("k.hlsl", "k.spv"), " ")
	want := "--hlsl k.hlsl --entry CSMain --stage pixel --target vulkan1.1 --out k.spv --define A=1 --define N=64 " +
		"--extension SPV_KHR_quad_control --register-shift t=0 --register-shift u=16 --register-shift b=32 --register-shift s=48"
	if got != want {
		t.Errorf("args\n%s\nwant\n%s", got, want)
	}
}

// Each exit status of the convention: 0 with a module, 3 (a skip with the
// message), anything else an error with stderr; a module that is not SPIR-V,
// or none, is an error too.
func TestCommandCompilerExitStatuses(t *testing.T) {
	dir := t.TempDir()
	spv, err := filepath.Abs("../../fixtures/cases/module.spv")
	if err != nil {
		t.Fatal(err)
	}
	// Each script finds --out by walking its arguments, as a real one would.
	findOut := "while [ $# -gt 0 ]; do [ \"$1\" = --out ] && out=$2; shift; done\n"
	cc := func(name, body string) CommandCompiler {
		return CommandCompiler{Name: name, Path: script(t, dir, name, findOut+body)}
	}
	in := CommandInput{Source: []byte("// nothing\n"), Entry: "main", Stage: "compute"}

	words, skip, err := cc("good", "cp '"+spv+"' \"$out\"\n").RunSPIRV(in)
	if err != nil || skip != "" || len(words) < 5 || words[0] != 0x07230203 {
		t.Fatalf("good: %d words, skip %q, %v", len(words), skip, err)
	}
	if _, skip, err := cc("cannot", "echo 'no wave ops in this back end' >&2; exit 3\n").RunSPIRV(in); err != nil || skip != "compiler cannot cannot compile this shader: no wave ops in this back end" {
		t.Errorf("exit 3: skip %q, %v", skip, err)
	}
	if _, _, err := cc("broken", "echo 'internal error: boom' >&2; exit 1\n").RunSPIRV(in); err == nil || !strings.Contains(err.Error(), "compiler broken failed (exit 1):\ninternal error: boom") {
		t.Errorf("exit 1: %v", err)
	}
	if _, _, err := cc("silent", "exit 0\n").RunSPIRV(in); err == nil || !strings.Contains(err.Error(), "wrote no module") {
		t.Errorf("no module: %v", err)
	}
	if _, _, err := cc("text", "echo 'not spir-v at all, no' > \"$out\"\n").RunSPIRV(in); err == nil || !strings.Contains(err.Error(), "not a SPIR-V module") {
		t.Errorf("not SPIR-V: %v", err)
	}
}

// A command's module is bound by its decorations: registers by the names
// waverig's reflection gives them, else by the requested shifts where the
// module has a buffer there; a register the module does not use is unbound.
func TestBindCommandModule(t *testing.T) {
	mb := []vulkan.ModuleBinding{
		{Set: 0, Binding: 7, Kind: vulkan.Storage, Name: "Out"},      // a compiler with its own numbering
		{Set: 0, Binding: 32, Kind: vulkan.Uniform, Name: ""},        // stripped: only the shift finds it
		{Set: 2, Binding: 16, Kind: vulkan.Storage, Name: "Unknown"}, // u0,space2 by shift
	}
	names := map[string]string{"u0": "Out", "b0": "Params", "t3": "Gone"}
	got := bindCommandModule(mb, []string{"u0", "b0", "u0,space2", "t3"}, names)
	if b := got["u0"]; b.Set != 0 || b.Binding != 7 || b.Descriptor != "VK_DESCRIPTOR_TYPE_STORAGE_BUFFER" {
		t.Errorf("u0 by name: %+v", b)
	}
	if b := got["b0"]; b.Set != 0 || b.Binding != 32 || b.Descriptor != "VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER" {
		t.Errorf("b0 by shift: %+v", b)
	}
	if b := got["u0,space2"]; b.Set != 2 || b.Binding != 16 {
		t.Errorf("u0,space2 by shift: %+v", b)
	}
	if b, ok := got["t3"]; ok {
		t.Errorf("t3 is not in the module but was bound: %+v", b)
	}
}

// A command asked for WGSL (WebGPU) gets --target wgsl and its text back;
// bytes that are not text are an error naming the compiler.
func TestCommandCompilerWGSL(t *testing.T) {
	dir := t.TempDir()
	findOut := "while [ $# -gt 0 ]; do [ \"$1\" = --target ] && target=$2; [ \"$1\" = --out ] && out=$2; shift; done\n"
	in := CommandInput{Source: []byte("// nothing\n"), Entry: "main", Stage: "compute"}
	cc := CommandCompiler{Name: "w", Path: script(t, dir, "w", findOut+"[ \"$target\" = wgsl ] || exit 7\necho '@compute @workgroup_size(1) fn main() {}' > \"$out\"\n")}
	src, skip, err := cc.RunWGSL(in)
	if err != nil || skip != "" || !strings.Contains(src, "fn main()") {
		t.Fatalf("wgsl: %q %q %v", src, skip, err)
	}
	bin := CommandCompiler{Name: "bin", Path: script(t, dir, "bin", findOut+"printf 'a\\000b' > \"$out\"\n")}
	if _, _, err := bin.RunWGSL(in); err == nil || !strings.Contains(err.Error(), "not WGSL text") {
		t.Errorf("binary output: %v", err)
	}
	// The SPIR-V request of the same command says vulkan1.1 (exit 7 here).
	if _, _, err := cc.RunSPIRV(in); err == nil || !strings.Contains(err.Error(), "exit 7") {
		t.Errorf("spir-v request: %v", err)
	}
}

// Standard WGSL's `enable subgroups;` is dropped for naga, alone or from a
// list; nothing else changes.
func TestNagaWGSL(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"enable subgroups;\nfn f() {}\n", "// (enable subgroups; dropped for wgpu-native)\nfn f() {}\n"},
		{"enable f16, subgroups;\n", "enable f16;\n"},
		{"enable f16;\n", "enable f16;\n"},
		{"diagnostic(off, subgroup_uniformity);\n", "// (diagnostic(off, subgroup_uniformity); dropped for wgpu-native)\n"},
		{"// enable subgroups; in a comment stays\n", "// enable subgroups; in a comment stays\n"},
	} {
		if got := nagaWGSL(c.in); got != c.want {
			t.Errorf("nagaWGSL(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// A command compiler never sees the variables that make a waverig binary
// the rig's worker: a wrapper that runs waverig would run kernels (and call
// itself again) instead of compiling.
func TestCommandEnvDropsWorkerVariables(t *testing.T) {
	t.Setenv("WAVERIG_CHILD", `{"device":0}`) // harness.ChildEnv: a wave-size child
	t.Setenv("WAVERIG_SCORE_CHILD", "1")
	dir := t.TempDir()
	body := "while [ $# -gt 0 ]; do [ \"$1\" = --out ] && out=$2; shift; done\n" +
		"env | grep -q '^WAVERIG_.*CHILD=' && { echo inherited >&2; exit 9; }\n" +
		"[ -n \"$PATH\" ] || exit 8\nprintf '@compute @workgroup_size(1) fn main() {}' > \"$out\"\n"
	cc := CommandCompiler{Name: "env", Path: script(t, dir, "env", body)}
	if _, _, err := cc.RunWGSL(CommandInput{Source: []byte("x"), Entry: "main", Stage: "compute"}); err != nil {
		t.Fatal(err)
	}
}

// Every spec ParseCompiler accepts is a Compiler whose Spec is that spec
// (what repro command lines name it by); anything else is no compiler.
func TestFromSpec(t *testing.T) {
	ok := script(t, t.TempDir(), "cc.sh", "exit 0\n")
	specs, err := ParseCompilers("ours,glslang,cmd:mine=" + ok)
	if err != nil {
		t.Fatal(err)
	}
	for _, spec := range specs {
		c, found := FromSpec(spec)
		if !found || c.Spec() != spec {
			t.Errorf("FromSpec(%q) = %v %v", spec, c, found)
		}
	}
	for _, spec := range []string{"dxc", "cmd:mine", "cmd:=" + ok, ""} {
		if c, found := FromSpec(spec); found {
			t.Errorf("FromSpec(%q) = %v, want none", spec, c)
		}
	}
}

// glslang emits no WGSL: asked for it, it is a skip, not an error.
func TestGlslangWGSLIsASkip(t *testing.T) {
	_, skip, err := GlslangCompiler{}.Compile(Source{HLSL: []byte("x"), Entry: "main", Stage: "compute"}, WGSL)
	if err != nil || skip == "" {
		t.Errorf("skip %q, err %v", skip, err)
	}
}

// A command compiler through the interface: its WGSL is adapted for naga,
// and bound by the names Source.Names gives the registers (the module's
// @binding(5) is not where the shifts would put u0).
func TestCommandCompilerBindsByNames(t *testing.T) {
	body := "while [ $# -gt 0 ]; do [ \"$1\" = --out ] && out=$2; shift; done\n" +
		"printf 'enable subgroups;\\n@group(0) @binding(5) var<storage, read_write> Out: array<u32>;\\n@compute @workgroup_size(1) fn main() {}\\n' > \"$out\"\n"
	cc := CommandCompiler{Name: "w", Path: script(t, t.TempDir(), "w", body)}
	asked := 0
	src := Source{Name: "k.hlsl", HLSL: []byte("x"), Entry: "main", Stage: "compute", Registers: []string{"u0"},
		Names: func() map[string]string { asked++; return map[string]string{"u0": "Out"} }}
	m, skip, err := cc.Compile(src, WGSL)
	if err != nil || skip != "" {
		t.Fatalf("skip %q, err %v", skip, err)
	}
	if strings.Contains(m.WGSL, "enable subgroups;\n") || m.Entry != "main" || asked != 1 {
		t.Errorf("module %q entry %q, names asked %d times", m.WGSL, m.Entry, asked)
	}
	if b, ok := m.Bindings["u0"]; !ok || b.Set != 0 || b.Binding != 5 || b.Name != "Out" {
		t.Errorf("u0 bound at %+v (%v)", b, ok)
	}
}
