package produce

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"waverig/compiler/reflect"
	"waverig/harness/vulkan"
)

// External compilers (docs/compilers.md). A compiler spec is "ours",
// "glslang" or "cmd:NAME=PATH": PATH is any program that follows the calling
// convention below, and NAME is what records, test names (/compiler=NAME) and
// blame (compiler:NAME) call it.
//
//	PATH --hlsl FILE --entry NAME --stage compute|pixel|vertex --target vulkan1.1|wgsl
//	     --out FILE [--define K=V]… [--extension SPV_…]… [--register-shift CLASS=N]…
//
// Vulkan asks for SPIR-V (--target vulkan1.1), WebGPU for WGSL (--target
// wgsl). Exit 0: the module is in --out. Exit CommandCannotCompile: the compiler
// declares it cannot compile this shader (a skip, with its stderr as the
// reason). Any other status: a compile error (the case fails, stderr is the
// message). The rig binds the module by its own DescriptorSet/Binding
// decorations (bindCommandModule), never by assuming the register shifts.

// CommandPrefix starts a command compiler spec.
const CommandPrefix = "cmd:"

// CommandCannotCompile is the exit status by which a command compiler says
// it cannot compile a shader (a feature it lacks, not a bug it has): the case
// is a skip with the compiler's message, as glslang's missing int64_t is.
const CommandCannotCompile = 3

// CommandTarget is the target environment the rig asks command compilers
// for: Vulkan 1.1 is the first with subgroup operations, and every module it
// allows runs on the devices the rig drives (glslang 12 must use it too:
// its SPIR-V 1.5 keeps BufferBlock, which spirv-val rejects).
const CommandTarget = "vulkan1.1"

// CommandTargetWGSL is the target WebGPU asks command compilers for: WGSL
// text. Standard WGSL is accepted; the rig adapts it to wgpu-native
// (nagaWGSL).
const CommandTargetWGSL = "wgsl"

// commandTimeout bounds one compiler process.
const commandTimeout = 60 * time.Second

// RegisterShifts are the binding offsets the rig asks a command compiler to
// give each HLSL register class (--register-shift t=0 …), glslang's map (t0
// and u0 must not collide). They are a request: the module's decorations
// decide, and a compiler that ignores them is still bound right as long as its
// module names its resources.
var RegisterShifts = [][2]string{{"t", "0"}, {"u", "16"}, {"b", "32"}, {"s", "48"}}

var compilerNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9_.-]*$`) })

// CommandCompiler is a parsed "cmd:NAME=PATH".
type CommandCompiler struct {
	Name string
	Path string // absolute
}

// ParseCompiler checks one compiler spec and returns it as the rig keeps it:
// "ours", "glslang", or "cmd:NAME=ABSPATH" (the path resolved now, so child
// processes and later runs find the same program). A PATH that is not an
// executable regular file is an error here, before anything runs.
func ParseCompiler(spec string) (string, error) {
	spec = strings.TrimSpace(spec)
	switch spec {
	case Ours, Glslang:
		return spec, nil
	}
	rest, ok := strings.CutPrefix(spec, CommandPrefix)
	if !ok {
		return "", fmt.Errorf("unknown compiler %q (use ours, glslang or cmd:NAME=PATH)", spec)
	}
	name, path, ok := strings.Cut(rest, "=")
	if !ok || name == "" || path == "" {
		return "", fmt.Errorf("compiler %q: write cmd:NAME=PATH", spec)
	}
	if !compilerNameRE().MatchString(name) {
		return "", fmt.Errorf("compiler %q: NAME %q must be lower-case letters, digits, '_', '.' or '-', starting with a letter", spec, name)
	}
	if name == Ours || name == Glslang {
		return "", fmt.Errorf("compiler %q: %s is a built-in compiler's name", spec, name)
	}
	abs, err := commandPath(path)
	if err != nil {
		return "", fmt.Errorf("compiler %s: %v", name, err)
	}
	return CommandPrefix + name + "=" + abs, nil
}

// commandPath resolves a compiler command: a path (with a '/') or a program on
// PATH, which must be an executable regular file.
func commandPath(path string) (string, error) {
	p, err := exec.LookPath(path)
	if err != nil {
		return "", fmt.Errorf("%s: not an executable program: %v", path, errors.Unwrap(err))
	}
	if p, err = filepath.Abs(p); err != nil {
		return "", err
	}
	st, err := os.Stat(p)
	switch {
	case err != nil:
		return "", err
	case !st.Mode().IsRegular():
		return "", fmt.Errorf("%s is not a regular file", p)
	}
	return p, nil
}

// ParseCompilers reads a comma-separated compiler list (-compilers): each
// entry through ParseCompiler, no name twice.
func ParseCompilers(list string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, s := range strings.Split(list, ",") {
		spec, err := ParseCompiler(s)
		if err != nil {
			return nil, err
		}
		name := CompilerName(spec)
		if seen[name] {
			return nil, fmt.Errorf("compiler %q named twice", name)
		}
		seen[name] = true
		out = append(out, spec)
	}
	return out, nil
}

// CompilerName is the name records use for a spec: "ours", "glslang" or the
// NAME of "cmd:NAME=PATH".
func CompilerName(spec string) string {
	if c, ok := CommandOf(spec); ok {
		return c.Name
	}
	return spec
}

// CommandOf splits a "cmd:NAME=PATH" spec.
func CommandOf(spec string) (CommandCompiler, bool) {
	rest, ok := strings.CutPrefix(spec, CommandPrefix)
	if !ok {
		return CommandCompiler{}, false
	}
	name, path, ok := strings.Cut(rest, "=")
	return CommandCompiler{name, path}, ok
}

// CommandInput is one compile request to a command compiler.
type CommandInput struct {
	Source   []byte // HLSL
	FileName string // the base name it is written under (for the compiler's messages)
	// Path, when set, is the source's own file, passed as --hlsl instead of a
	// temporary copy of Source: an exec case's shader, whose #includes are
	// relative to it.
	Path       string
	Entry      string
	Stage      string // compute, pixel, vertex
	Defines    map[string]string
	Extensions []string
	// Target is CommandTarget (SPIR-V for Vulkan; "" means it) or
	// CommandTargetWGSL (WGSL for WebGPU).
	Target string
}

// target is the --target a request asks for.
func (in CommandInput) target() string {
	if in.Target == "" {
		return CommandTarget
	}
	return in.Target
}

// Args is the command line the convention gives a request whose source is
// at src and whose module goes to out.
func (in CommandInput) Args(src, out string) []string {
	args := []string{"--hlsl", src, "--entry", in.Entry, "--stage", in.Stage, "--target", in.target(), "--out", out}
	keys := make([]string, 0, len(in.Defines))
	for k := range in.Defines {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		args = append(args, "--define", k+"="+in.Defines[k])
	}
	for _, e := range in.Extensions {
		args = append(args, "--extension", e)
	}
	for _, s := range RegisterShifts {
		args = append(args, "--register-shift", s[0]+"="+s[1])
	}
	return args
}

// RunSPIRV runs the command on one request for SPIR-V. skip is non-empty when
// the compiler declared it cannot compile the shader (exit
// CommandCannotCompile); err is any other failure (its message holds the
// compiler's stderr).
func (c CommandCompiler) RunSPIRV(in CommandInput) (words []uint32, skip string, err error) {
	in.Target = CommandTarget
	data, skip, err := c.run(in)
	if err != nil || skip != "" {
		return nil, skip, err
	}
	words, err = SPIRVWords(data)
	if err != nil {
		return nil, "", fmt.Errorf("compiler %s: %v", c.Name, err)
	}
	return words, "", nil
}

// RunWGSL runs the command on one request for WGSL (WebGPU): the module's
// text, as RunSPIRV's words.
func (c CommandCompiler) RunWGSL(in CommandInput) (wgsl string, skip string, err error) {
	in.Target = CommandTargetWGSL
	data, skip, err := c.run(in)
	if err != nil || skip != "" {
		return "", skip, err
	}
	if !utf8.Valid(data) || bytes.IndexByte(data, 0) >= 0 {
		return "", "", fmt.Errorf("compiler %s: --target wgsl wrote %d bytes that are not WGSL text (not UTF-8, or a NUL byte)", c.Name, len(data))
	}
	return string(data), "", nil
}

// run runs the command on one request and returns what it wrote to --out.
func (c CommandCompiler) run(in CommandInput) (data []byte, skip string, err error) {
	tmp, err := os.MkdirTemp("", "waverig-cmd")
	if err != nil {
		return nil, "", err
	}
	defer os.RemoveAll(tmp)
	name := in.FileName
	if name == "" {
		name = "kernel.hlsl"
	}
	outName := "module.spv"
	if in.target() == CommandTargetWGSL {
		outName = "module.wgsl"
	}
	src, out := filepath.Join(tmp, filepath.Base(name)), filepath.Join(tmp, outName)
	if in.Path != "" {
		if src, err = filepath.Abs(in.Path); err != nil {
			return nil, "", err
		}
	} else if err := os.WriteFile(src, in.Source, 0o644); err != nil {
		return nil, "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.Path, in.Args(src, out)...)
	cmd.Dir = tmp
	cmd.Env = commandEnv(os.Environ())
	killGroupOnCancel(cmd)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	runErr := cmd.Run()
	msg := strings.TrimSpace(strings.ReplaceAll(stderr.String(), tmp+string(filepath.Separator), ""))
	if msg == "" {
		msg = "(nothing on stderr)"
	}
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return nil, "", fmt.Errorf("compiler %s did not finish in %v", c.Name, commandTimeout)
	case errors.As(runErr, &exit) && exit.ExitCode() == CommandCannotCompile:
		return nil, fmt.Sprintf("compiler %s cannot compile this shader: %s", c.Name, msg), nil
	case errors.As(runErr, &exit):
		return nil, "", fmt.Errorf("compiler %s failed (exit %d):\n%s", c.Name, exit.ExitCode(), msg)
	case runErr != nil:
		return nil, "", fmt.Errorf("running compiler %s (%s): %v", c.Name, c.Path, runErr)
	}
	data, err = os.ReadFile(out)
	if err != nil {
		return nil, "", fmt.Errorf("compiler %s exited 0 but wrote no module: %v", c.Name, err)
	}
	return data, "", nil
}

// commandEnv is the environment of a command compiler: the rig's, less the
// variables that make a waverig binary a worker of the rig (a child process
// for one wave size, a mutation-score child). A command that runs waverig —
// scripts/compilers/waverig-wrapper.sh does — would otherwise inherit them and
// run the rig's kernels instead of compiling, each calling the command again:
// a fork bomb, not a compile.
func commandEnv(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "WAVERIG_") && strings.HasSuffix(name, "CHILD") {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// SPIRVWords checks that data is a SPIR-V binary (the magic number, in
// little-endian order) and returns its words.
func SPIRVWords(data []byte) ([]uint32, error) {
	if len(data) < 20 || len(data)%4 != 0 {
		return nil, fmt.Errorf("%d bytes is not a SPIR-V module (a whole number of words, at least the 5-word header)", len(data))
	}
	w := bytesToWords(data)
	if w[0] != 0x07230203 {
		return nil, fmt.Errorf("not a SPIR-V module: magic number 0x%08x", w[0])
	}
	return w, nil
}

// bindCommandModule maps HLSL registers to the bindings a module the rig did
// not compile declares for them. A register is matched by its resource's name
// (names, from waverig's reflection of the same source: the HLSL identifier,
// which glslang and DXC both keep as the variable's or block's OpName), else
// by the convention's register shifts (set = space, binding = number + the
// class's shift) where the module has a buffer there. A register matching
// neither is not used by the module: nothing is bound for it, and the runner
// refuses a module that uses a buffer nobody bound.
func bindCommandModule(mb []vulkan.ModuleBinding, registers []string, names map[string]string) map[string]reflect.Binding {
	byName := map[string]vulkan.ModuleBinding{}
	byPlace := map[[2]uint32]vulkan.ModuleBinding{}
	for _, b := range mb {
		if b.Name != "" {
			byName[b.Name] = b
		}
		byPlace[[2]uint32{b.Set, b.Binding}] = b
	}
	out := map[string]reflect.Binding{}
	for _, reg := range registers {
		norm := reflect.NormalizeRegister(reg)
		b, ok := byName[names[norm]]
		if names[norm] == "" || !ok {
			set, binding, okShift := shiftedBinding(norm)
			b, ok = byPlace[[2]uint32{set, binding}]
			ok = ok && okShift
		}
		if ok {
			out[norm] = reflect.Binding{Register: reg, Name: b.Name, Set: int(b.Set), Binding: int(b.Binding), Descriptor: b.Descriptor()}
		}
	}
	return out
}

var shiftRegisterRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([btus])(\d+)(?:,space(\d+))?$`) })

// shiftedBinding is where RegisterShifts put a (normalized) register.
func shiftedBinding(reg string) (set, binding uint32, ok bool) {
	m := shiftRegisterRE().FindStringSubmatch(reg)
	if m == nil {
		return 0, 0, false
	}
	n, err := strconv.ParseUint(m[2], 10, 16)
	if err != nil {
		return 0, 0, false
	}
	if m[3] != "" {
		s, err := strconv.ParseUint(m[3], 10, 16)
		if err != nil {
			return 0, 0, false
		}
		set = uint32(s)
	}
	for _, s := range RegisterShifts {
		if s[0] == m[1] {
			shift, _ := strconv.Atoi(s[1])
			return set, uint32(n) + uint32(shift), true
		}
	}
	return 0, 0, false
}

// Spec is "cmd:NAME=PATH".
func (c CommandCompiler) Spec() string { return CommandPrefix + c.Name + "=" + c.Path }

// Compile runs the command on one entry point (RunSPIRV or RunWGSL) and binds
// its module by its own declarations (bindCommandModule): SPIR-V by its
// DescriptorSet/Binding decorations, WGSL (adapted to naga, nagaWGSL) by its
// @group/@binding attributes; either by the names src.Names gives the
// registers, else by the requested shifts (set or group = space).
func (c CommandCompiler) Compile(src Source, t Target) (Module, string, error) {
	in := CommandInput{Source: src.HLSL, FileName: src.Name, Path: src.Path, Entry: src.Entry, Stage: src.Stage, Defines: src.Defines, Extensions: src.Extensions}
	var names map[string]string
	if src.Names != nil {
		names = src.Names()
	}
	if t.IsWGSL() {
		text, skip, err := c.RunWGSL(in)
		if err != nil || skip != "" {
			return Module{}, skip, err
		}
		if t == WGSL {
			text = nagaWGSL(text)
		}
		mb, err := WGSLModuleBindings(text, in.Entry, in.Stage)
		if err != nil {
			return Module{}, "", fmt.Errorf("compiler %s's WGSL: %v", c.Name, err)
		}
		return Module{WGSL: text, Entry: in.Entry, Bindings: bindCommandModule(mb, src.Registers, names)}, "", nil
	}
	words, skip, err := c.RunSPIRV(in)
	if err != nil || skip != "" {
		return Module{}, skip, err
	}
	mb, err := vulkan.ModuleBindings(words, in.Entry, in.Stage)
	if err != nil {
		return Module{}, "", fmt.Errorf("compiler %s's module: %v", c.Name, err)
	}
	return Module{SPIRV: words, Entry: in.Entry, Bindings: bindCommandModule(mb, src.Registers, names)}, "", nil
}

// enableSubgroupsRE matches WGSL's `enable subgroups;` directive, alone or in
// a list (`enable f16, subgroups;`).
var enableSubgroupsRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^(\s*enable\s+)([^;]*)(;)`)
})

// subgroupDiagnosticRE matches the global subgroup_uniformity filter.
var subgroupDiagnosticRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^\s*diagnostic\s*\(\s*off\s*,\s*subgroup_uniformity\s*\)\s*;`)
})

// nagaWGSL adapts standard WGSL to the wgpu-native the rig drives: naga 29
// rejects the `enable subgroups;` directive ("not yet supported") although it
// accepts the subgroup builtins once the device has the subgroup feature,
// which the rig always requests. So the directive is dropped (or `subgroups`
// from an enable list), and so is the `diagnostic(off, subgroup_uniformity);`
// filter naga does not know (it warns on every pipeline); nothing else is
// changed, and everything else naga does not accept fails at pipeline
// creation with naga's words.
func nagaWGSL(src string) string {
	src = subgroupDiagnosticRE().ReplaceAllString(src, "// (diagnostic(off, subgroup_uniformity); dropped for wgpu-native)")
	return enableSubgroupsRE().ReplaceAllStringFunc(src, func(line string) string {
		m := enableSubgroupsRE().FindStringSubmatch(line)
		var keep []string
		for _, ext := range strings.Split(m[2], ",") {
			if e := strings.TrimSpace(ext); e != "" && e != "subgroups" {
				keep = append(keep, e)
			}
		}
		if len(keep) == 0 {
			return "// (enable subgroups; dropped for wgpu-native)"
		}
		return m[1] + strings.Join(keep, ", ") + m[3]
	})
}

// subgroupUseRE matches a use of a subgroup builtin or built-in value.
var subgroupUseRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\bsubgroup[A-Z_a-z]\w*`) })

// StandardWGSL adapts WGSL written for wgpu-native (naga's dialect) to Tint,
// the other way from nagaWGSL: a module that uses subgroups without the
// `enable subgroups;` directive gets it, and the subgroup_uniformity filter,
// before its first line; anything else is left as written. A module in the
// standard dialect comes back unchanged.
func StandardWGSL(src string) string {
	if !subgroupUseRE().MatchString(src) {
		return src
	}
	enabled := false
	for _, m := range enableSubgroupsRE().FindAllStringSubmatch(src, -1) {
		for _, ext := range strings.Split(m[2], ",") {
			enabled = enabled || strings.TrimSpace(ext) == "subgroups"
		}
	}
	head := ""
	if !enabled {
		head += "enable subgroups; // added for Tint (the module was in naga's dialect)\n"
	}
	if !subgroupDiagnosticRE().MatchString(src) {
		head += "diagnostic(off, subgroup_uniformity);\n"
	}
	return head + src
}
