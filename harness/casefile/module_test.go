package casefile

import (
	"strings"
	"testing"
)

func TestShaderKind(t *testing.T) {
	for in, want := range map[string]string{"k.hlsl": ShaderHLSL, "a/b.SPV": ShaderSPV, "m.spvasm": ShaderSPVAsm, "m.wgsl": ShaderWGSL, "noext": ShaderHLSL} {
		if got := ShaderKind(in); got != want {
			t.Errorf("%s: %q, want %q", in, got, want)
		}
	}
}

// A module case names buffers SET:BINDING, an HLSL case registers; what only
// HLSL has is refused for a module instead of being ignored.
func TestModuleCaseChecks(t *testing.T) {
	for _, c := range []struct{ json, want string }{
		{`{"shader":"m.spv","entry":"main","dispatch":[1,1,1],"buffers":[{"binding":"u0","format":"uint32","count":1}]}`, `named by set and binding, like "0:1"`},
		{`{"shader":"k.hlsl","entry":"main","dispatch":[1,1,1],"buffers":[{"binding":"0:1","format":"uint32","count":1}]}`, "not an HLSL register"},
		{`{"shader":"m.spvasm","entry":"main","defines":{"N":"1"},"dispatch":[1,1,1],"buffers":[{"binding":"0:1","format":"uint32","count":1}]}`, `"defines" apply to HLSL only`},
		{`{"shader":"m.wgsl","entry":"main","extensions":["SPV_KHR_quad_control"],"dispatch":[1,1,1],"buffers":[{"binding":"0:1","format":"uint32","count":1}]}`, `"extensions" apply to HLSL only`},
		{`{"shader":"m.spv","entry":"main","dispatch":[1,1,1],"buffers":[{"binding":"0:1","format":"uint32","count":1},{"binding":"0:1","format":"uint32","count":1}]}`, "both bind binding 0:1"},
	} {
		_, err := parse("case.json", []byte(c.json))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.json, err, c.want)
		}
	}
	if _, err := parse("case.json", []byte(`{"shader":"m.spv","entry":"main","dispatch":[1,1,1],"buffers":[{"binding":"1:2","format":"uint32","count":1}]}`)); err != nil {
		t.Errorf("a valid module case: %v", err)
	}
}
