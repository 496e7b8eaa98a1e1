package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"waverig/devices"
)

// execShader is a kernel with one storage buffer (u0), one uniform buffer (b0)
// and a texture (t1) used only when TEX is defined; N and M set numthreads' X
// and Y, G the groupshared array's length.
const execShader = `RWStructuredBuffer<uint> Out : register(u0);
cbuffer Params : register(b0) { uint Count; uint Scale; };
#ifdef TEX
Texture2D<float4> Tex : register(t1);
#endif
#ifndef N
#define N 1
#endif
#ifndef M
#define M 1
#endif
#ifdef G
groupshared uint Shared[G];
#endif
[shader("compute")]
[numthreads(N, M, 1)]
void CSMain(uint3 id : SV_DispatchThreadID, uint gi : SV_GroupIndex)
{
    uint v = id.x * Scale;
#ifdef G
    Shared[gi] = v;
    GroupMemoryBarrierWithGroupSync();
    v = Shared[gi];
#endif
#ifdef TEX
    v += (uint)Tex.Load(int3(0, 0, 0)).x;
#endif
    if (id.x < Count)
        Out[id.x] = v;
}
`

// execCase writes execShader and a case file (the JSON body with %s replaced
// by the shader's name) into dir and returns the case file's path.
func execCase(t *testing.T, dir, name, body string) string {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "k.hlsl"), []byte(execShader), 0o644); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name+".json")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// execJSON is a case of execShader: defines, dispatch, subgroup size and the
// buffers' JSON.
func execJSON(defines string, dispatch [3]uint64, subgroup uint64, buffers string) string {
	return fmt.Sprintf(`{"shader":"k.hlsl","entry":"CSMain","defines":{%s},"dispatch":[%d,%d,%d],"subgroup_size":%d,"buffers":[%s]}`,
		defines, dispatch[0], dispatch[1], dispatch[2], subgroup, buffers)
}

const (
	execOut    = `{"binding":"u0","format":"uint32","count":4,"expect":[0,3,6,9]}`
	execParams = `{"binding":"b0","format":"uint32","data":[4,3,0,0]}`
)

// TestExecExitCodes runs the CLI on a case file for every kind of problem the
// README lists: each case-file problem is exit 2 with a message on stderr; a
// case the device cannot run is "skip: REASON" on stdout and exit 0; bad
// arguments are exit 2; -h is exit 0.
func TestExecExitCodes(t *testing.T) {
	requireVulkan(t)
	devs, _ := devices.Enumerate()
	d := devs[0]
	dir := t.TempDir()
	one := [3]uint64{4, 1, 1} // four groups of one thread
	good := execJSON("", one, 0, execOut+","+execParams)
	goodPath := execCase(t, dir, "good", good)
	illegal := uint64(0)
	for s := uint64(1); s <= 128; s <<= 1 {
		legal := false
		for _, l := range d.LegalSubgroupSizes() {
			legal = legal || uint64(l) == s
		}
		if !legal {
			illegal = s
			break
		}
	}
	sharedWords := uint64(d.MaxComputeSharedMemorySize)/4 + 16
	// numthreads(64, y, 1): more invocations than the device allows, each
	// dimension within its limits.
	y := uint64(d.MaxComputeWorkGroupInvocations)/64 + 1

	type tc struct {
		name     string
		args     []string // %case is replaced by the case file written from body
		body     string
		code     int
		out, err string // substrings of stdout and stderr
	}
	cases := []tc{
		{name: "passes", body: good, code: 0, out: "ok: "},
		{name: "flags before the case", args: []string{"exec", "-device", "0", "-compiler", "ours", "%case"}, body: good, code: 0, out: "ok: "},
		{name: "mismatch", body: execJSON("", one, 0, `{"binding":"u0","format":"uint32","count":4,"expect":[0,3,7,9]}`+","+execParams), code: 1, out: "u0[2]: expected 7, actual 6"},
		{name: "null is any value", body: execJSON("", one, 0, `{"binding":"u0","format":"uint32","count":4,"expect":[0,null,6,null]}`+","+execParams), code: 0, out: "ok: "},
		{name: "mismatch in a named record", body: execJSON("", one, 0, `{"binding":"u0","format":"uint32","count":4,"expect":[0,3,null,8],"record":["lo","hi"]}`+","+execParams), code: 1, out: "u0[3] (record 1 hi): expected 8, actual 9"},
		{name: "null in data", body: execJSON("", one, 0, `{"binding":"u0","format":"uint32","data":[1,null]}`+","+execParams), code: 2, err: `null means "any value"`},
		{name: "unknown extension", body: strings.Replace(good, `"buffers"`, `"extensions":["SPV_KHR_bogus"],"buffers"`, 1), code: 2, err: "SPV_KHR_bogus"},
		{name: "known extension", body: strings.Replace(good, `"buffers"`, `"extensions":["SPV_KHR_quad_control"],"buffers"`, 1), code: 0, out: "ok: "},

		// Case-file problems: exit 2.
		{name: "bad JSON", body: `{"shader": "k.hlsl",`, code: 2, err: "unexpected EOF"},
		{name: "unknown key", args: []string{"exec", "../../fixtures/cases/bad_unknown_key.json"}, code: 2, err: `unknown field "colour"`},
		{name: "bad format", body: execJSON("", one, 0, `{"binding":"u0","format":"half","count":4}`), code: 2, err: `format "half"`},
		{name: "bad register", body: execJSON("", one, 0, `{"binding":"q0","format":"uint32","count":4}`), code: 2, err: "not an HLSL register"},
		{name: "zero dispatch", body: execJSON("", [3]uint64{4, 0, 1}, 0, execOut+","+execParams), code: 2, err: "dispatch[1] is 0"},
		{name: "negative count", body: execJSON("", one, 0, `{"binding":"u0","format":"uint32","count":-1}`), code: 2, err: "negative"},
		{name: "fractional count", body: execJSON("", one, 0, `{"binding":"u0","format":"uint32","count":2.5}`), code: 2, err: "count"},
		{name: "count 2^31 (8 GB)", body: execJSON("", one, 0, `{"binding":"u0","format":"uint32","count":2147483648}`), code: 2, err: "at most 256 MiB"},
		{name: "count 1e12", body: execJSON("", one, 0, `{"binding":"u0","format":"uint32","count":1000000000000}`), code: 2, err: "at most 256 MiB"},
		{name: "value out of range", body: execJSON("", one, 0, `{"binding":"u0","format":"uint32","data":[1,4294967296]}`), code: 2, err: "value 1 (4294967296): not a uint32"},
		{name: "float out of range", body: execJSON("", one, 0, `{"binding":"u0","format":"float32","data":[1e39]}`), code: 2, err: "float32 range"},
		{name: "expect out of range", body: execJSON("", one, 0, `{"binding":"u0","format":"int32","count":1,"expect":[-2147483649]}`), code: 2, err: "expect[0]"},
		{name: "expect longer than buffer", body: execJSON("", one, 0, `{"binding":"u0","format":"uint32","count":2,"expect":[0,3,6]}`), code: 2, err: "3 expected values but the buffer holds only 2"},
		{name: "subgroup size not a power of two", body: execJSON("", one, 3, execOut+","+execParams), code: 2, err: "powers of two"},
		{name: "duplicate register", body: execJSON("", one, 0, execOut+","+execParams+`,{"binding":"u0,space0","format":"uint32","count":1}`), code: 2, err: "both bind register"},
		{name: "missing shader file", body: strings.Replace(good, "k.hlsl", "absent.hlsl", 1), code: 2, err: "cannot read shader"},
		{name: "shader is a directory", body: strings.Replace(good, "k.hlsl", ".", 1), code: 2, err: "not a regular file (a directory)"},
		{name: "shader does not compile", body: execJSON(`"N":"(1"`, one, 0, execOut+","+execParams), code: 2, err: "shader does not compile"},
		{name: "register not in shader", body: execJSON("", one, 0, execOut+","+execParams+`,{"binding":"u5","format":"uint32","count":1}`), code: 2, err: "no resource at register u5"},
		{name: "resource without a buffer", body: execJSON("", one, 0, execOut), code: 2, err: "ConstantBuffer Params (register b0) but the case has no buffer"},
		{name: "cbuffer larger than its data", body: execJSON("", one, 0, execOut+`,{"binding":"b0","format":"uint32","data":[4]}`), code: 2, err: "Params of 16 bytes; the case gives 4"},
		{name: "texture register", body: execJSON(`"TEX":"1"`, one, 0, execOut+","+execParams+`,{"binding":"t1","format":"float32","count":4}`), code: 2, err: "not a buffer"},
		{name: "case file is a device", args: []string{"exec", "/dev/zero"}, code: 2, err: "not a regular file (a device)"},
		{name: "case file is a directory", args: []string{"exec", dir}, code: 2, err: "not a regular file (a directory)"},
		{name: "case file missing", args: []string{"exec", filepath.Join(dir, "absent.json")}, code: 2, err: "cannot read case file"},

		// Arguments.
		{name: "-h", args: []string{"exec", "-h"}, code: 0, out: "-compiler"},
		{name: "no case file", args: []string{"exec"}, code: 2, err: "usage"},
		{name: "stray positional", args: []string{"exec", goodPath, "-device", "0", "extra"}, code: 2, err: "2 argument(s)"},
		{name: "two case files", args: []string{"exec", goodPath, goodPath}, code: 2, err: "2 argument(s)"},
		{name: "flag after the case file is parsed", args: []string{"exec", goodPath, "-compiler", "nope"}, code: 2, err: `-compiler "nope"`},
		{name: "unknown flag", args: []string{"exec", goodPath, "-frobnicate"}, code: 2, err: "frobnicate"},
		{name: "bad compiler", args: []string{"exec", goodPath, "-compiler", "dxc"}, code: 2, err: `-compiler "dxc"`},
		{name: "no such device", args: []string{"exec", goodPath, "-device", "no-such-gpu"}, code: 2, err: "matches no device"},

		// WebGPU: the same case as waverig's WGSL on the same device's wgpu adapter.
		{name: "passes through webgpu", args: []string{"exec", "%case", "-api", "webgpu"}, body: good, code: 0, out: "through webgpu"},
		{name: "mismatch through webgpu", args: []string{"exec", "-api", "webgpu", "%case"}, body: execJSON("", one, 0, `{"binding":"u0","format":"uint32","count":4,"expect":[0,3,7,9]}`+","+execParams), code: 1, out: "u0[2]: expected 7, actual 6"},
		{name: "example case through webgpu", args: []string{"exec", "../../fixtures/cases/prefix.json", "-api", "webgpu"}, code: 0, out: "through webgpu"},
		{name: "resource without a buffer through webgpu", args: []string{"exec", "-api", "webgpu", "%case"}, body: execJSON("", one, 0, execOut), code: 2, err: "ConstantBuffer Params (register b0) but the case has no buffer"},
		{name: "glslang has no WGSL", args: []string{"exec", "-api", "webgpu", "-compiler", "glslang", "%case"}, body: good, code: 2, err: "emits no WGSL"},
		{name: "bad api", args: []string{"exec", goodPath, "-api", "metal"}, code: 2, err: `-api "metal"`},

		// Beyond the device's limits: skip, exit 0.
		{name: "storage buffer over maxStorageBufferRange", body: execJSON("", one, 0, fmt.Sprintf(`{"binding":"u0","format":"uint32","count":%d}`, uint64(d.MaxStorageBufferRange)/4+1)+","+execParams), code: 0, out: "skip: storage buffer 0 is"},
		{name: "uniform buffer over maxUniformBufferRange", body: execJSON("", one, 0, execOut+","+fmt.Sprintf(`{"binding":"b0","format":"uint32","count":%d}`, uint64(d.MaxUniformBufferRange)/4+1)), code: 0, out: "skip: uniform buffer 1 is"},
		{name: "groupshared over maxComputeSharedMemorySize", body: execJSON(fmt.Sprintf(`"G":"%d"`, sharedWords), one, 0, execOut+","+execParams), code: 0, out: "skip: the shader uses at least"},
	}
	// Past HLSL's own limits (32768 bytes of groupshared memory, 1024 threads a
	// group) the compiler refuses the kernel (E0416, E0415) before the device is
	// asked: on devices whose limits reach HLSL's the skip cannot happen.
	hlslLimit := func(c *tc, over bool, code string) {
		if over {
			c.code, c.out, c.err = 2, "", code
		}
	}
	hlslLimit(&cases[len(cases)-1], sharedWords*4 > 32768, "E0416")
	if lim := uint64(d.MaxComputeWorkGroupCount[0]); lim < 1<<32-1 { // dispatch holds uint32s
		cases = append(cases, tc{name: "workgroup count", body: execJSON("", [3]uint64{lim + 1, 1, 1}, 0, execOut+","+execParams), code: 0, out: "skip: workgroup count"})
	}
	if y <= uint64(d.MaxComputeWorkGroupSize[1]) && y <= 1024 {
		cases = append(cases, tc{name: "workgroup invocations", body: execJSON(fmt.Sprintf(`"N":"64","M":"%d"`, y), one, 0, execOut+","+execParams), code: 0,
			out: fmt.Sprintf("skip: local size 64x%dx1 is %d invocations, maxComputeWorkGroupInvocations is", y, 64*y)})
		hlslLimit(&cases[len(cases)-1], 64*y > 1024, "E0415")
	}
	if illegal != 0 {
		cases = append(cases, tc{name: "illegal subgroup size", body: execJSON("", one, illegal, execOut+","+execParams), code: 0,
			out: fmt.Sprintf("skip: subgroup size %d is not legal on %s", illegal, d.Name)})
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := c.args
			if args == nil {
				args = []string{"exec", "%case"}
			}
			var casePath string
			if c.body != "" {
				casePath = execCase(t, dir, fmt.Sprintf("case%d", i), c.body)
			}
			args = append([]string(nil), args...)
			for k := range args {
				if args[k] == "%case" {
					args[k] = casePath
				}
			}
			code, out, errs := runCLI(args...)
			if code != c.code || !strings.Contains(out, c.out) || !strings.Contains(errs, c.err) {
				t.Errorf("%v: exit %d, want %d with stdout containing %q and stderr %q\nstdout: %s\nstderr: %s", args, code, c.code, c.out, c.err, out, errs)
			}
			if c.code == 2 && c.body != "" && !strings.HasPrefix(errs, "waverig exec: ") {
				t.Errorf("stderr does not start with the command's name: %s", errs)
			}
		})
	}
}

// A storage buffer over the device's range is a skip found before the buffer
// is allocated: the process allocates far less than the buffer's size.
func TestExecSkipsBeforeAllocating(t *testing.T) {
	requireVulkan(t)
	devs, _ := devices.Enumerate()
	n := uint64(devs[0].MaxStorageBufferRange)/4 + 1
	if 4*n > 256<<20 {
		t.Skipf("maxStorageBufferRange %d is over the case-file cap", devs[0].MaxStorageBufferRange)
	}
	p := execCase(t, t.TempDir(), "big", execJSON("", [3]uint64{1, 1, 1}, 0, fmt.Sprintf(`{"binding":"u0","format":"uint32","count":%d}`, n)+","+execParams))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	code, out, errs := runCLI("exec", p)
	runtime.ReadMemStats(&after)
	if code != 0 || !strings.HasPrefix(out, "skip: ") {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 4*n/2 {
		t.Errorf("allocated %d bytes for a skipped %d-byte buffer", got, 4*n)
	}
}

// With -compiler glslang, a register glslang's binding map cannot hold is a
// case-file problem (exit 2).
func TestExecGlslangRegisterMap(t *testing.T) {
	requireVulkan(t)
	if _, err := exec.LookPath("glslangValidator"); err != nil {
		t.Skip("glslangValidator not installed")
	}
	dir := t.TempDir()
	p := execCase(t, dir, "reg", execJSON("", [3]uint64{1, 1, 1}, 0, execOut+","+execParams+`,{"binding":"u16","format":"uint32","count":1}`))
	code, _, errs := runCLI("exec", p, "-compiler", "glslang")
	if code != 2 || !strings.Contains(errs, "16 bindings") {
		t.Errorf("exit %d: %s", code, errs)
	}
}

// The shader's #includes are read like the shader: a device is refused (exit
// 2) instead of being read for ever.
func TestExecIncludeOfADevice(t *testing.T) {
	requireVulkan(t)
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "inc.hlsl"), []byte("#include \"/dev/zero\"\n"+execShader), 0o644)
	p := filepath.Join(dir, "inc.json")
	os.WriteFile(p, []byte(strings.Replace(execJSON("", [3]uint64{4, 1, 1}, 0, execOut+","+execParams), "k.hlsl", "inc.hlsl", 1)), 0o644)
	code, _, errs := runCLI("exec", p)
	if code != 2 || !strings.Contains(errs, `include file "/dev/zero"`) {
		t.Errorf("exit %d: %s", code, errs)
	}
}

// The validator and glslang are linked into waverig: with a PATH that holds
// neither spirv-val nor glslangValidator, a case still runs validated, in CI
// too (where a missing tool would be exit 3).
func TestExecNeedsNoToolCommands(t *testing.T) {
	requireVulkan(t)
	p := execCase(t, t.TempDir(), "good", execJSON("", [3]uint64{4, 1, 1}, 0, execOut+","+execParams))
	for _, ci := range []string{"", "1"} {
		cmd := exec.Command(os.Args[0], "exec", p)
		cmd.Env = append(os.Environ(), asMainEnv+"=1", "PATH="+t.TempDir(), "CI="+ci)
		out, err := cmd.Output()
		if err != nil || !strings.HasPrefix(string(out), "ok: ") {
			t.Errorf("CI=%q, no tool on PATH: exit %d, %q", ci, cmd.ProcessState.ExitCode(), out)
		}
	}
}
