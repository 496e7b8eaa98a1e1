package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// kernel is a compute shader with one entry point named entry.
func kernel(entry string) string {
	return "RWStructuredBuffer<uint> Out : register(u0);\n[shader(\"compute\")] [numthreads(1, 1, 1)]\nvoid " + entry + "() { Out[0] = 1; }\n"
}

// TestCompileExitCodes: 0 ok, 1 compile errors, 2 for a bad flag and for a bad
// flag value (issue 7: values gave 1), found before anything compiles.
func TestCompileExitCodes(t *testing.T) {
	dir := t.TempDir()
	ok := filepath.Join(dir, "ok.hlsl")
	os.WriteFile(ok, []byte(kernel("main")), 0o644)
	for _, c := range []struct {
		args []string
		code int
		err  string // substring of stderr
	}{
		{[]string{ok}, 0, ""},
		{[]string{"-vulkan", "1.7", ok}, 2, `-vulkan "1.7"`},
		{[]string{"-stage", "hull", "-entry", "main", ok}, 2, `-stage "hull"`},
		{[]string{"-stage", "compute", ok}, 2, "-stage needs -entry"},
		{[]string{"-wgsl-dialect", "tint", ok}, 2, `-wgsl-dialect "tint"`},
		{[]string{"-fspv-extension=SPV_KHR_nope", ok}, 2, "SPV_KHR_nope is not supported"},
		{[]string{"-target", "spirv,dxil", ok}, 2, `unknown target "dxil"`},
		{[]string{"-fvk-u-shift", "4294967296", "0", ok}, 2, "SHIFT and SPACE must be integers from 0 to 4294967295"},
		{[]string{"-fvk-u-shift", "1", "-1", ok}, 2, "SHIFT and SPACE"},
		// A bad value after the file is still found (flags and files interleave).
		{[]string{ok, "-vulkan", "9"}, 2, `-vulkan "9"`},
		{[]string{"-entry", "nope", ok}, 1, "error E0804"},
		{[]string{"-fvk-u-shift", "4294967295", "0", ok}, 0, ""},
	} {
		code, _, errs := runCLI(append([]string{"compile"}, c.args...)...)
		if code != c.code || !strings.Contains(errs, c.err) {
			t.Errorf("%v: exit %d, want %d with %q in stderr:\n%s", c.args, code, c.code, c.err, errs)
		}
	}
}

// TestCompileHelp: -h prints the usage on stdout and exits 0.
func TestCompileHelp(t *testing.T) {
	for _, h := range []string{"-h", "-help", "--help"} {
		code, out, errs := runCLI("compile", h)
		if code != 0 || !strings.HasPrefix(out, "usage: waverig compile") || errs != "" {
			t.Errorf("compile %s: exit %d\nstdout %q\nstderr %q", h, code, out, errs)
		}
	}
}

// TestCompileFlagsAfterFiles: a file name does not end the flags; the flags
// after it apply (issue 7: Go's flag package would drop them), and after "--"
// every argument is a file.
func TestCompileFlagsAfterFiles(t *testing.T) {
	dir := t.TempDir()
	two := filepath.Join(dir, "two.hlsl")
	os.WriteFile(two, []byte(kernel("first")+"[shader(\"compute\")] [numthreads(2, 1, 1)]\nvoid second() { Out[1] = 2; }\n"), 0o644)
	out := filepath.Join(dir, "out")
	code, stdout, errs := runCLI("compile", two, "-entry", "second", "-target", "wgsl", "-o", out)
	if code != 0 || stdout != "second (Compute): None = 0x0\n" {
		t.Fatalf("exit %d\n%s%s", code, stdout, errs)
	}
	if _, err := os.Stat(filepath.Join(out, "second.wgsl")); err != nil {
		t.Errorf("-target and -o after the file were not applied: %v", err)
	}
	dash := filepath.Join(dir, "-dash.hlsl")
	os.WriteFile(dash, []byte(kernel("main")), 0o644)
	if code, _, errs := runCLI("compile", "-json", "--", dash); code != 0 {
		t.Errorf("file after --: exit %d\n%s", code, errs)
	}
}

// TestCompileOutputDirs: with several files, -o DIR writes DIR/<name>/ for
// each; a name that is not a plain directory inside DIR, or two files with one
// name, is exit 2 before anything is written.
func TestCompileOutputDirs(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	for _, p := range []string{"a/k.hlsl", "b/k.hlsl", "b/K.hlsl", "c/other.hlsl", "d/...hlsl", "d/..hlsl", "d/.hlsl"} {
		p = filepath.Join(src, p)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(kernel("main")), 0o644)
	}
	in := func(p string) string { return filepath.Join(src, p) }

	out := filepath.Join(dir, "out", "ok")
	if code, _, errs := runCLI("compile", "-o", out, in("a/k.hlsl"), in("c/other.hlsl")); code != 0 {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	for _, f := range []string{"k/main.spv", "other/main.spv"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}

	for _, c := range []struct {
		files []string
		err   string
	}{
		{[]string{in("a/k.hlsl"), in("b/k.hlsl")}, "a/k.hlsl and " + in("b/k.hlsl") + " would both write to "},
		{[]string{in("a/k.hlsl"), in("b/K.hlsl")}, "would both write to"},
		{[]string{in("a/k.hlsl"), in("a/k.hlsl")}, "would both write to"},
		{[]string{in("a/k.hlsl"), in("d/...hlsl")}, `cannot name an output directory inside`},
		{[]string{in("d/..hlsl"), in("a/k.hlsl")}, `(its name without the extension is ".")`},
		{[]string{in("d/.hlsl"), in("a/k.hlsl")}, `(its name without the extension is "")`},
	} {
		out := filepath.Join(dir, "out", "bad", "inner")
		code, _, errs := runCLI(append([]string{"compile", "-o", out}, c.files...)...)
		if code != 2 || !strings.Contains(errs, c.err) {
			t.Errorf("%v: exit %d, want 2 with %q:\n%s", c.files, code, c.err, errs)
		}
		// Nothing was written, inside or next to DIR.
		if _, err := os.Stat(filepath.Join(dir, "out", "bad")); err == nil {
			t.Errorf("%v: wrote into %s", c.files, filepath.Join(dir, "out", "bad"))
		}
	}
}
