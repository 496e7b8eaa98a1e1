package main

import "testing"

// Skip reasons that differ only in a source line or lavapipe's width count as
// one reason in the summary; different errors stay apart.
func TestSkipReasonKey(t *testing.T) {
	same := [][2]string{
		{"glslangValidator rejects this kernel: line 62: 'int64_t' : unknown variable",
			"glslangValidator rejects this kernel: line 135: 'int64_t' : unknown variable"},
		{"[WaveSize] 4: no legal size of llvmpipe (LLVM 15.0.6, 256 bits) is in it (compute runs at [8])",
			"[WaveSize] 4: no legal size of llvmpipe (LLVM 15.0.6, 512 bits) is in it (compute runs at [16])"},
	}
	for _, p := range same {
		if a, b := skipReasonKey(p[0]), skipReasonKey(p[1]); a != b {
			t.Errorf("%q and %q are one reason: keys %q and %q", p[0], p[1], a, b)
		}
	}
	apart := [][2]string{
		{"glslangValidator rejects this kernel: line 51: 'QuadAny' : no matching overloaded function found",
			"glslangValidator rejects this kernel: line 51: 'QuadAll' : no matching overloaded function found"},
		{"[WaveSize] 4: no legal size of llvmpipe (LLVM 15.0.6, 256 bits) is in it (compute runs at [8])",
			"[WaveSize] 8: no legal size of llvmpipe (LLVM 15.0.6, 128 bits) is in it (compute runs at [4])"},
		{"device lacks shaderQuadControl (VK_KHR_shader_quad_control)", "device lacks VK_SUBGROUP_FEATURE_PARTITIONED_BIT_NV (supportedOperations 0xbf)"},
	}
	for _, p := range apart {
		if skipReasonKey(p[0]) == skipReasonKey(p[1]) {
			t.Errorf("%q and %q are two reasons, both keyed %q", p[0], p[1], skipReasonKey(p[0]))
		}
	}
	if got := skipReasonKey("glslangValidator rejects this kernel: line 62: '' : unsupported construction"); got != "glslangValidator rejects this kernel: '' : unsupported construction" {
		t.Errorf("key %q", got)
	}
}
