package harness

// Running a module case (.spv, .spvasm, .wgsl): nothing compiles it, so its
// bindings come from the module itself (harness/casefile has the format).

import (
	"bytes"
	"context"
	"errors"
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
	"waverig/harness/casefile"
	"waverig/harness/vulkan"
)

// execModule runs a case whose shader is a module.
func (r *Rig) execModule(api string, c *casefile.Case, comp string, src []byte) ([]casefile.Mismatch, error) {
	kind := casefile.ShaderKind(c.Shader)
	if comp != "" && comp != Ours {
		return nil, c.Errorf("%s is a module, which no compiler compiles: -compiler applies to HLSL shaders", c.Shader)
	}
	if kind == casefile.ShaderWGSL {
		if api != WebGPU {
			return nil, c.Errorf("%s is WGSL, which runs through WebGPU only (-api webgpu)", c.Shader)
		}
		if r.gpu == nil {
			return nil, &casefile.Skip{Reason: r.gpuSkip}
		}
		if c.SubgroupSize != 0 && c.SubgroupSize != r.dev.SubgroupSize {
			return nil, &casefile.Skip{Reason: fmt.Sprintf("WebGPU cannot require wave size %d (the device runs %d)", c.SubgroupSize, r.dev.SubgroupSize)}
		}
		binds, err := wgslBindings(string(src), c.Entry)
		if err != nil {
			return nil, c.Errorf("%s: %v", c.Shader, err)
		}
		mod := &module{wgsl: string(src), entry: c.Entry, bindings: binds}
		if _, err := bindBuffers(c, mod); err != nil {
			return nil, err
		}
		return r.execWebGPU(c, mod)
	}
	if api != Vulkan {
		return nil, c.Errorf("%s is SPIR-V, which runs through Vulkan only", c.Shader)
	}
	var words []uint32
	var err error
	if kind == casefile.ShaderSPVAsm {
		words, err = assemble(src)
		var skip *casefile.Skip
		if errors.As(err, &skip) {
			return nil, err
		}
	} else {
		words, err = spirvWords(src)
	}
	if err != nil {
		return nil, c.Errorf("%s: %v", c.Shader, err)
	}
	mb, err := vulkan.ModuleBindings(words, c.Entry, "compute")
	if err != nil {
		return nil, c.Errorf("%s: %v", c.Shader, strings.TrimPrefix(err.Error(), "vulkan: "))
	}
	mod := &module{spirv: words, entry: c.Entry, bindings: moduleBindingMap(mb)}
	// A module spirv-val rejects is a bad shader of the case (exit 2), not a
	// failure of the device; a missing validator stays what execVulkan says.
	if err := r.validate(mod); err != nil && !errors.Is(err, vulkan.ErrNoValidator) {
		return nil, c.Errorf("%s: %v", c.Shader, err)
	}
	// A SPIR-V module cannot carry [WaveSize] (in Vulkan it is the
	// pipeline's required subgroup size): subgroup_size is the case's word.
	return r.execVulkan(c, mod, nil)
}

// moduleBindingMap keys a module's bindings as a module case names them.
func moduleBindingMap(mb []vulkan.ModuleBinding) map[string]reflect.Binding {
	out := map[string]reflect.Binding{}
	for _, b := range mb {
		kind := "storage buffer"
		if b.Kind == vulkan.Uniform {
			kind = "uniform buffer"
		}
		name := b.Name
		if name == "" {
			name = "(unnamed)"
		}
		key := fmt.Sprintf("%d:%d", b.Set, b.Binding)
		out[key] = reflect.Binding{Register: key, Name: name, Set: int(b.Set), Binding: int(b.Binding), Kind: kind, Descriptor: b.Descriptor()}
	}
	return out
}

// spvasmVersionRE finds the "; Version: 1.N" header comment spirv-dis writes.
var spvasmVersionRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^;\s*Version:\s*1\.([0-6])\s*$`) })

// assembleTimeout bounds one spirv-as process.
const assembleTimeout = 60 * time.Second

// assemble turns SPIR-V assembly into words with spirv-as, at the version
// its "; Version: 1.N" header comment names (what spirv-dis writes, so a
// disassembled module assembles back as it was), else SPIR-V 1.3 (Vulkan
// 1.1, the first with subgroup operations). A missing spirv-as is a
// *casefile.Skip; text it rejects is an error with its message.
func assemble(src []byte) ([]uint32, error) {
	tool, err := exec.LookPath("spirv-as")
	if err != nil {
		return nil, &casefile.Skip{Reason: "spirv-as not installed (apt-get install spirv-tools): it assembles .spvasm shaders"}
	}
	env := "spv1.3"
	if m := spvasmVersionRE().FindSubmatch(src); m != nil {
		env = "spv1." + string(m[1])
	}
	tmp, err := os.MkdirTemp("", "waverig-spvasm")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	in, out := filepath.Join(tmp, "module.spvasm"), filepath.Join(tmp, "module.spv")
	if err := os.WriteFile(in, src, 0o644); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), assembleTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, tool, "--target-env", env, "-o", out, in)
	var msg bytes.Buffer
	cmd.Stdout, cmd.Stderr = &msg, &msg
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("spirv-as did not finish in %v", assembleTimeout)
		}
		text := strings.TrimSpace(strings.ReplaceAll(msg.String(), in, "module.spvasm"))
		return nil, fmt.Errorf("spirv-as rejects it: %s", text)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		return nil, err
	}
	return spirvWords(data)
}

// WGSL declarations the binding reader understands: attributes, then a
// storage or uniform variable.
var (
	wgslVarRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`((?:@\s*\w+\s*(?:\([^)]*\))?\s*)+)var\s*<\s*(storage|uniform)\s*(?:,\s*\w+\s*)?>\s*(\w+)`)
	})
	wgslAttrRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`@\s*(group|binding)\s*\(\s*(\d+)\s*\)`) })
	wgslEntryRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`@\s*(compute|fragment|vertex)\b[^;{]*?\bfn\s+(\w+)`) })
	wgslComment = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)//[^\n]*|/\*.*?\*/`) })
)

// wgslStageAttr is the WGSL attribute of each of the rig's stages.
var wgslStageAttr = map[string]string{"compute": "compute", "pixel": "fragment", "vertex": "vertex"}

// wgslBindings reads the buffers a WGSL module declares, keyed "GROUP:BINDING",
// and checks that it has a compute entry point called entry (a module case).
func wgslBindings(src, entry string) (map[string]reflect.Binding, error) {
	mb, err := wgslModuleBindings(src, entry, "compute")
	if err != nil {
		return nil, err
	}
	out := map[string]reflect.Binding{}
	for _, b := range mb {
		key := fmt.Sprintf("%d:%d", b.Set, b.Binding)
		kind := "storage buffer"
		if b.Kind == vulkan.Uniform {
			kind = "uniform buffer"
		}
		out[key] = reflect.Binding{Register: key, Name: b.Name, Set: int(b.Set), Binding: int(b.Binding), Kind: kind, Descriptor: b.Descriptor()}
	}
	return out, nil
}

// wgslModuleBindings reads the buffers a WGSL module declares, as
// vulkan.ModuleBindings reads a SPIR-V module's, and checks that it has an
// entry point called entry for the stage. Every declared buffer counts as
// used (WGSL reflection of what an entry point reaches is wgpu's, not the
// rig's), so a job binds them all.
func wgslModuleBindings(src, entry, stage string) ([]vulkan.ModuleBinding, error) {
	src = wgslComment().ReplaceAllString(src, " ")
	attr := wgslStageAttr[stage]
	found := false
	for _, m := range wgslEntryRE().FindAllStringSubmatch(src, -1) {
		found = found || (m[1] == attr && m[2] == entry)
	}
	if !found {
		return nil, fmt.Errorf("no @%s entry point named %q", attr, entry)
	}
	var out []vulkan.ModuleBinding
	seen := map[[2]uint32]bool{}
	for _, m := range wgslVarRE().FindAllStringSubmatch(src, -1) {
		group, binding := -1, -1
		for _, a := range wgslAttrRE().FindAllStringSubmatch(m[1], -1) {
			n, err := strconv.Atoi(a[2])
			if err != nil || n > 1<<16 {
				return nil, fmt.Errorf("var %s: @%s(%s) is out of range", m[3], a[1], a[2])
			}
			if a[1] == "group" {
				group = n
			} else {
				binding = n
			}
		}
		if group < 0 || binding < 0 {
			return nil, fmt.Errorf("var<%s> %s lacks @group or @binding", m[2], m[3])
		}
		at := [2]uint32{uint32(group), uint32(binding)}
		if seen[at] {
			return nil, fmt.Errorf("two variables at @group(%d) @binding(%d)", group, binding)
		}
		seen[at] = true
		b := vulkan.ModuleBinding{Set: at[0], Binding: at[1], Kind: vulkan.Storage, Name: m[3]}
		if m[2] == "uniform" {
			b.Kind = vulkan.Uniform
		}
		out = append(out, b)
	}
	return out, nil
}
