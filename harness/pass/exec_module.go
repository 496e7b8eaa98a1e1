package pass

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
	"strings"
	"sync"
	"time"

	"waverig/compiler/reflect"
	"waverig/harness/casefile"
	"waverig/harness/produce"
	"waverig/harness/vulkan"
)

// execModule runs a case whose shader is a module.
func (r *Rig) execModule(api string, c *casefile.Case, comp string, src []byte) ([]casefile.Mismatch, error) {
	kind := casefile.ShaderKind(c.Shader)
	if comp != "" && comp != Ours {
		return nil, c.Errorf("%s is a module, which no compiler compiles: -compiler applies to HLSL shaders", c.Shader)
	}
	if kind == casefile.ShaderWGSL {
		if !runsWGSL(api) {
			return nil, c.Errorf("%s is WGSL, which runs through WebGPU only (-api webgpu, dawn or browser)", c.Shader)
		}
		if r.devs[api] == nil {
			return nil, &casefile.Skip{Reason: r.skips[api]}
		}
		if why := r.wgslWaveSize(api, c.SubgroupSize); why != "" {
			return nil, &casefile.Skip{Reason: why}
		}
		binds, err := wgslBindings(string(src), c.Entry)
		if err != nil {
			return nil, c.Errorf("%s: %v", c.Shader, err)
		}
		text := string(src)
		if api != WebGPU {
			// Tint takes the standard dialect: a case written for
			// wgpu-native gets the directives naga refuses.
			text = produce.StandardWGSL(text)
		}
		mod := &module{wgsl: text, entry: c.Entry, bindings: binds}
		if _, err := bindBuffers(c, mod); err != nil {
			return nil, err
		}
		return r.execWGSL(api, c, mod)
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
		words, err = produce.SPIRVWords(src)
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
	// failure of the device.
	if err := vulkan.Validate(mod.spirv); err != nil {
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
	return produce.SPIRVWords(data)
}

// wgslBindings reads the buffers a WGSL module declares, keyed "GROUP:BINDING",
// and checks that it has a compute entry point called entry (a module case).
func wgslBindings(src, entry string) (map[string]reflect.Binding, error) {
	mb, err := produce.WGSLModuleBindings(src, entry, "compute")
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
