package spirv

import (
	"strings"
	"testing"

	"waverig/compiler/intrinsics"
	"waverig/compiler/ir"
	. "waverig/compiler/ir/irtest"
)

// helperLane: an entry point of the stage that stores IsHelperLane() into a local.
func helperLane(stage ir.Stage) *Builder {
	b := Compute("main", 64)
	if stage != ir.Compute {
		b = Entry("main", stage)
	}
	r := b.Local("r", ir.BoolT)
	b.Add(&ir.Store{Place: LRef(r), Value: Intr(intrinsics.IsHelperLane, ir.BoolT)})
	return b
}

// TestIsHelperLane checks what each stage and target declares for IsHelperLane,
// as DXC: in pixel shaders OpIsHelperInvocationEXT with DemoteToHelperInvocation
// and SPV_EXT_demote_to_helper_invocation for Vulkan 1.1/1.2, a load of the
// Volatile HelperInvocation builtin for Vulkan 1.3 (nothing beyond Shader); the
// constant false in other stages. Never a subgroup bit. Every module passes spirv-val.
func TestIsHelperLane(t *testing.T) {
	for _, stage := range []ir.Stage{ir.Pixel, ir.Compute, ir.Vertex} {
		for vk, mod := range emitValid(t, helperLane(stage), Options{}) {
			dis := disassemble(t, mod)
			caps, exts := capNames(mod.Capabilities), strings.Join(mod.Extensions, ",")
			wantCaps, wantExts := "Shader", ""
			var want, never []string
			switch {
			case stage != ir.Pixel:
				want = []string{"OpConstantFalse %bool"}
				never = []string{"OpIsHelperInvocationEXT", "HelperInvocation"}
			case vk == "1.3":
				want = []string{"OpDecorate %HelperInvocation BuiltIn HelperInvocation", "OpDecorate %HelperInvocation Volatile",
					"OpLoad %bool %HelperInvocation", "OpEntryPoint Fragment %main \"main\" %HelperInvocation"}
				never = []string{"OpIsHelperInvocationEXT", "Flat"}
			default:
				wantCaps, wantExts = "Shader,cap5379", "SPV_EXT_demote_to_helper_invocation"
				want = []string{"OpIsHelperInvocationEXT %bool", "OpCapability DemoteToHelperInvocation"}
				never = []string{"BuiltIn HelperInvocation"}
			}
			if caps != wantCaps || exts != wantExts {
				t.Errorf("%v, vulkan %s: capabilities %s extensions %q, want %s %q", stage, vk, caps, exts, wantCaps, wantExts)
			}
			if mod.SubgroupBits != 0 {
				t.Errorf("%v, vulkan %s: SubgroupBits %#x, want 0 (not a wave operation)", stage, vk, mod.SubgroupBits)
			}
			for _, w := range want {
				if !strings.Contains(dis, w) {
					t.Errorf("%v, vulkan %s: no %q in\n%s", stage, vk, w, dis)
				}
			}
			for _, n := range never {
				if strings.Contains(dis, n) {
					t.Errorf("%v, vulkan %s: unexpected %q in\n%s", stage, vk, n, dis)
				}
			}
		}
	}
}
