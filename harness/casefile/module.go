package casefile

import (
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// Case files whose shader is a module, not HLSL: a SPIR-V binary (.spv),
// SPIR-V assembly (.spvasm, assembled with spirv-as) or WGSL (.wgsl). Nothing
// compiles them, so nothing reflects them: their buffers are named by the
// module's own bindings, "SET:BINDING" (WGSL's @group:@binding), read from
// its decorations (vulkan.ModuleBindings) or declarations (wgslBindings).

// Module shader kinds, by file extension.
const (
	ShaderHLSL   = ""
	ShaderSPV    = ".spv"
	ShaderSPVAsm = ".spvasm"
	ShaderWGSL   = ".wgsl"
)

// ShaderKind is the kind of a case file's shader by its extension:
// ShaderSPV, ShaderSPVAsm, ShaderWGSL, or ShaderHLSL for anything else.
func ShaderKind(shader string) string {
	switch ext := strings.ToLower(filepath.Ext(shader)); ext {
	case ShaderSPV, ShaderSPVAsm, ShaderWGSL:
		return ext
	}
	return ShaderHLSL
}

// moduleBindingRE is how a module case names a buffer: set (group) and binding.
var moduleBindingRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d{1,9}:\d{1,9}$`) })

// checkModuleCase is check's part for a module shader: what only HLSL has
// (defines, SPIR-V extensions for waverig's compiler) is an error rather than
// silently ignored.
func (c *Case) checkModuleCase() error {
	if ShaderKind(c.Shader) == ShaderHLSL {
		return nil
	}
	if len(c.Defines) > 0 {
		return c.Errorf(`"defines" apply to HLSL only; %s is a module`, c.Shader)
	}
	if len(c.Extensions) > 0 {
		return c.Errorf(`"extensions" apply to HLSL only (they go to waverig's compiler); %s is a module, which declares its own`, c.Shader)
	}
	return nil
}

// BindingWord is what a buffer's "binding" names, for messages.
func (c *Case) BindingWord() string {
	if ShaderKind(c.Shader) == ShaderHLSL {
		return "register"
	}
	return "binding"
}
