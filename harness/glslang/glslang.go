// Package glslang is the rig's second SPIR-V producer: Khronos' glslang, linked
// in as a library (lib.go: the calls glslangValidator makes for the rig's flags,
// its words byte for byte), an on-disk cache keyed by glslang's version and the
// input, and the register-to-binding map that glslang's HLSL front end applies.
// `waverig run` and `waverig exec` both compile through it.
package glslang

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"waverig/compiler/reflect"
)

// Module is glslang's output for one entry point: the SPIR-V words and the
// binding of each HLSL register the caller named.
type Module struct {
	SPIRV    []uint32
	Entry    string
	Bindings map[string]reflect.Binding // key: reflect.NormalizeRegister(register)
}

// helperLanesAttr is Shader Model 6.7's pixel entry attribute; IgnoresHelperLanes
// is the skip reason of a kernel that has it (glslang 12 warns "unrecognized
// attribute" and compiles the shader without it).
const (
	helperLanesAttr    = "WaveOpsIncludeHelperLanes"
	IgnoresHelperLanes = "glslang 12 ignores [WaveOpsIncludeHelperLanes] (warning: unrecognized attribute), so its module would not make helper lanes take part in wave operations"
)

// shiftBases give each register class its own binding range: glslang maps
// register(xN) to binding N whatever the class, so t0 and u0 would collide
// (t: 0-15, u: 16-31, b: 32-47, s: 48-63, classBase). They are the library's
// textures, UAVs, cbuffers and samplers, and shiftArgs glslangValidator's
// flags for the same compile (Args). Bindings below follow the same rule.
var shiftBases = [4]uint{uint(classBase["t"]), uint(classBase["u"]), uint(classBase["b"]), uint(classBase["s"])}

var shiftArgs = []string{"--hlsl-iomap",
	"--shift-texture-binding", strconv.Itoa(classBase["t"]), "--shift-uav-binding", strconv.Itoa(classBase["u"]),
	"--shift-cbuffer-binding", strconv.Itoa(classBase["b"]), "--shift-sampler-binding", strconv.Itoa(classBase["s"])}

// sourceName is the file name glslang's messages give the kernel.
const sourceName = "kernel.hlsl"

// Args are the glslangValidator arguments that compile src to out as the
// library does (for a user's repro, and the test that holds the two equal).
func Args(entry, stage, src, out string) []string {
	args := append([]string{"-V", "-D", "-D" + Macro + "=1", "--target-env", "vulkan1.1", "-S", stageFlags[stage], "-e", entry}, shiftArgs...)
	return append(args, "-o", out, src)
}

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

// version names the compiler in the cache key.
var version = sync.OnceValue(func() string { return "glslang library " + libVersion() })

// Version is the linked glslang's version ("12.0.0").
func Version() string { return libVersion() }

// cacheDir is where modules are kept between processes: every lavapipe wave size
// runs in its own child process, and without the cache each would compile
// every kernel again. "" when the user has no cache directory.
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
	// vulkan1.1: glslang 12 emits BufferBlock at SPIR-V 1.5, which spirv-val rejects.
	words, log, ok := libCompile(text, sourceName, entry, stage, preamble(Macro+"=1"), shiftBases)
	if !ok {
		why := "glslang rejects this kernel: " + firstError(log)
		store(dir, rejected, []byte(why))
		return nil, why, nil
	}
	if strings.Contains(log, "'"+helperLanesAttr+"' : unrecognized attribute") {
		// glslang 12 drops the attribute with a warning: its module would not make
		// helper lanes take part in wave operations, and a checker that requires
		// them would blame the device. A glslang that knows it stops warning.
		why := IgnoresHelperLanes
		store(dir, rejected, []byte(why))
		return nil, why, nil
	}
	if len(words) < 5 {
		return nil, "", fmt.Errorf("glslang made %d words, not a SPIR-V module", len(words))
	}
	data := make([]byte, 4*len(words))
	for i, w := range words {
		binary.LittleEndian.PutUint32(data[4*i:], w)
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
