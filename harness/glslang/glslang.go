// Package glslang runs glslangValidator as the rig's second SPIR-V producer: one
// process per kernel, an on-disk cache keyed by glslang's version and the input,
// and the register-to-binding map that glslang's HLSL front end applies. `waverig
// run` and `waverig exec` both compile through it.
package glslang

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"waverig/compiler/reflect"
)

// Module is glslang's output for one entry point: the SPIR-V words and the
// binding of each HLSL register the caller named.
type Module struct {
	SPIRV    []uint32
	Entry    string
	Bindings map[string]reflect.Binding // key: reflect.NormalizeRegister(register)
}

// Installed reports whether glslangValidator is on PATH.
func Installed() bool { return tool() != "" }

var tool = sync.OnceValue(func() string {
	p, _ := exec.LookPath("glslangValidator")
	return p
})

// NotInstalled is the skip reason when glslangValidator is absent.
const NotInstalled = "glslangValidator not installed (apt-get install glslang-tools)"

// helperLanesAttr is Shader Model 6.7's pixel entry attribute; IgnoresHelperLanes
// is the skip reason of a kernel that has it (glslang 12 warns "unrecognized
// attribute" and compiles the shader without it).
const (
	helperLanesAttr    = "WaveOpsIncludeHelperLanes"
	IgnoresHelperLanes = "glslang 12 ignores [WaveOpsIncludeHelperLanes] (warning: unrecognized attribute), so its module would not make helper lanes take part in wave operations"
)

// timeout bounds one glslangValidator process.
const timeout = 60 * time.Second

// shiftArgs give each register class its own binding range: glslang maps
// register(xN) to binding N whatever the class, so t0 and u0 would collide
// (t: 0-15, u: 16-31, b: 32-47, s: 48-63). Bindings below follow the same rule.
var shiftArgs = []string{"--hlsl-iomap", "--shift-texture-binding", "0", "--shift-uav-binding", "16",
	"--shift-cbuffer-binding", "32", "--shift-sampler-binding", "48"}

// Macro is defined (to 1) in every compile, so that HLSL written for several
// compilers can take another road where glslang 12's HLSL front end lacks a
// standard form: it has no asuint(double, out uint, out uint) (and its
// asuint(double) converts to float first), so the rig's kernels store doubles
// through a double view of their buffer under this macro (harness/kernels,
// storeResult).
const Macro = "WAVERIG_GLSLANG"

var classBase = map[string]int{"t": 0, "u": 16, "b": 32, "s": 48}

// classRange is how many registers of one class the map can hold.
const classRange = 16

var registerRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([btus])(\d+)(?:,space(\d+))?$`) })

// Binding is where glslang puts an HLSL register ("u1", "t0,space2").
func Binding(register string) (reflect.Binding, error) {
	norm := reflect.NormalizeRegister(register)
	m := registerRE().FindStringSubmatch(norm)
	if m == nil {
		return reflect.Binding{}, fmt.Errorf("cannot map register %q for glslang", register)
	}
	n, err1 := strconv.Atoi(m[2])
	s := 0
	var err2 error
	if m[3] != "" {
		s, err2 = strconv.Atoi(m[3])
	}
	if err1 != nil || err2 != nil || n >= classRange {
		return reflect.Binding{}, fmt.Errorf("register %q: the glslang binding map gives each class %d bindings", register, classRange)
	}
	desc := "VK_DESCRIPTOR_TYPE_STORAGE_BUFFER"
	if m[1] == "b" {
		desc = "VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER"
	}
	return reflect.Binding{Register: register, Set: s, Binding: n + classBase[m[1]], Descriptor: desc}, nil
}

// Compile compiles an HLSL compute entry point. skip is non-empty when glslang is
// not installed or rejects the source (its HLSL front end lacks e.g. int64_t):
// that says nothing about a driver, so callers skip with the reason. err is
// a failure of the machinery (a register the map cannot hold, a broken process).
func Compile(text, entry string, registers []string) (mod *Module, skip string, err error) {
	return CompileStage(text, entry, "compute", registers)
}

// stageFlags are glslangValidator's -S names of the stages the rig runs.
// glslang 12's HLSL front end parses task and mesh entries but knows no
// DispatchMesh or SetMeshOutputCounts: asking it anyway gives the reason a
// user reads in the skip, its own words, rather than ours.
var stageFlags = map[string]string{"compute": "comp", "pixel": "frag", "vertex": "vert", "amplification": "task", "task": "task", "mesh": "mesh"}

// CompileStage is Compile for an entry point of a stage ("compute", "pixel",
// "vertex").
func CompileStage(text, entry, stage string, registers []string) (mod *Module, skip string, err error) {
	flag, ok := stageFlags[stage]
	if !ok {
		return nil, "", fmt.Errorf("glslang: unknown stage %q", stage)
	}
	if !Installed() {
		return nil, NotInstalled, nil
	}
	mod = &Module{Entry: entry, Bindings: map[string]reflect.Binding{}}
	for _, r := range registers {
		b, err := Binding(r)
		if err != nil {
			return nil, "", err
		}
		mod.Bindings[reflect.NormalizeRegister(r)] = b
	}
	data, skip, err := spirv(text, entry, flag)
	if err != nil || skip != "" {
		return nil, skip, err
	}
	mod.SPIRV = make([]uint32, len(data)/4)
	for i := range mod.SPIRV {
		mod.SPIRV[i] = binary.LittleEndian.Uint32(data[4*i:])
	}
	return mod, "", nil
}

var version = sync.OnceValue(func() string {
	out, _ := exec.Command(tool(), "--version").Output()
	return string(out)
})

// cacheDir is where modules are kept between processes: every lavapipe wave size
// runs in its own child process, and without the cache each would pay ~90 ms per
// kernel again. "" when the user has no cache directory.
func cacheDir() string {
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "waverig", "glslang")
}

func spirv(text, entry, stage string) (spv []byte, skip string, err error) {
	sum := sha256.Sum256([]byte(version() + "\x00" + Macro + "\x00" + strings.Join(shiftArgs, " ") + "\x00" + stage + "\x00" + entry + "\x00" + text))
	dir := cacheDir()
	cached := filepath.Join(dir, fmt.Sprintf("%x.spv", sum[:12]))
	rejected := filepath.Join(dir, fmt.Sprintf("%x.rejected", sum[:12]))
	if dir != "" {
		if data, err := os.ReadFile(cached); err == nil && len(data) >= 20 && len(data)%4 == 0 {
			return data, "", nil
		}
		if why, err := os.ReadFile(rejected); err == nil {
			return nil, string(why), nil
		}
	}
	tmp, err := os.MkdirTemp("", "waverig-glslang")
	if err != nil {
		return nil, "", err
	}
	defer os.RemoveAll(tmp)
	src := filepath.Join(tmp, "kernel.hlsl")
	out := filepath.Join(tmp, "kernel.spv")
	if err := os.WriteFile(src, []byte(text), 0o644); err != nil {
		return nil, "", err
	}
	// vulkan1.1: glslang 12 emits BufferBlock at SPIR-V 1.5, which spirv-val rejects.
	args := append([]string{"-V", "-D", "-D" + Macro + "=1", "--target-env", "vulkan1.1", "-S", stage, "-e", entry}, shiftArgs...)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, tool(), append(args, "-o", out, src)...)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, "", fmt.Errorf("glslangValidator did not finish in %v", timeout)
		}
		if _, ok := err.(*exec.ExitError); !ok {
			return nil, "", fmt.Errorf("running glslangValidator: %v", err)
		}
		why := "glslangValidator rejects this kernel: " + firstError(buf.String())
		store(dir, rejected, []byte(why))
		return nil, why, nil
	}
	if strings.Contains(buf.String(), "'"+helperLanesAttr+"' : unrecognized attribute") {
		// glslang 12 drops the attribute with a warning: its module would not make
		// helper lanes take part in wave operations, and a checker that requires
		// them would blame the device. A glslang that knows it stops warning.
		why := IgnoresHelperLanes
		store(dir, rejected, []byte(why))
		return nil, why, nil
	}
	data, err := os.ReadFile(out)
	if err != nil {
		return nil, "", err
	}
	if len(data) < 20 || len(data)%4 != 0 {
		return nil, "", fmt.Errorf("glslangValidator wrote %d bytes, not a SPIR-V module", len(data))
	}
	store(dir, cached, data)
	return data, "", nil
}

// store writes a cache entry atomically (temp file + rename): concurrent child
// processes never read half a file. A cache that cannot be written is only slower.
func store(dir, path string, data []byte) {
	if dir == "" || os.MkdirAll(dir, 0o755) != nil {
		return
	}
	f, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return
	}
	_, werr := f.Write(data)
	if cerr := f.Close(); werr != nil || cerr != nil {
		os.Remove(f.Name())
		return
	}
	if os.Rename(f.Name(), path) != nil {
		os.Remove(f.Name())
	}
}

// firstError picks the first ERROR line of glslang's output.
func firstError(out string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "ERROR: ") {
			if i := strings.Index(l, ".hlsl:"); i >= 0 {
				return "line " + strings.TrimSpace(l[i+len(".hlsl:"):])
			}
			return strings.TrimPrefix(l, "ERROR: ")
		}
	}
	return strings.TrimSpace(out)
}
