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

// executionModes returns the modes of the module's OpExecutionMode instructions.
func executionModes(words []uint32) []uint32 {
	var modes []uint32
	for i := 5; i < len(words); {
		n := int(words[i] >> 16)
		if n == 0 {
			break
		}
		if words[i]&0xffff == opExecutionMode && n >= 3 {
			modes = append(modes, words[i+2])
		}
		i += n
	}
	return modes
}

// TestWaveOpsIncludeHelperLanes checks what [WaveOpsIncludeHelperLanes] adds to
// a pixel entry point on every target, as DXC: both extensions, QuadControlKHR,
// and MaximallyReconvergesKHR then RequireFullQuadsKHR after OriginUpperLeft.
// The capability gives no subgroup bit unless an instruction needs it too
// (QuadAny with SPV_KHR_quad_control). The installed spirv-val predates both
// extensions, so the fixture test validates the rest of such modules.
func TestWaveOpsIncludeHelperLanes(t *testing.T) {
	for _, quadAny := range []bool{false, true} {
		b := Entry("main", ir.Pixel)
		b.EP.WaveOpsIncludeHelperLanes = true
		opts := Options{}
		wantCaps, wantBits := "Shader,cap5087", uint32(0)
		if quadAny {
			r := b.Local("r", ir.BoolT)
			b.Add(&ir.Store{Place: LRef(r), Value: Intr(intrinsics.QuadAny, ir.BoolT, Bool(true))})
			opts.Extensions = []string{"SPV_KHR_quad_control"}
			wantBits = intrinsics.VkQuad
		}
		Valid(t, b.M)
		for _, vk := range []string{"1.1", "1.2", "1.3"} {
			opts.Vulkan = vk
			mod, err := EmitEntry(b.M, b.EP, opts)
			if err != nil {
				t.Fatalf("vulkan %s: %v", vk, err)
			}
			if got := capNames(mod.Capabilities); got != wantCaps {
				t.Errorf("quadAny=%v vulkan %s: capabilities %s, want %s", quadAny, vk, got, wantCaps)
			}
			if got := strings.Join(mod.Extensions, ","); got != "SPV_KHR_maximal_reconvergence,SPV_KHR_quad_control" {
				t.Errorf("quadAny=%v vulkan %s: extensions %s", quadAny, vk, got)
			}
			if mod.SubgroupBits != wantBits {
				t.Errorf("quadAny=%v vulkan %s: SubgroupBits %#x, want %#x", quadAny, vk, mod.SubgroupBits, wantBits)
			}
			if got := executionModes(mod.Words); len(got) != 3 || got[0] != modeOriginUpperLeft || got[1] != 6023 || got[2] != 5089 {
				t.Errorf("quadAny=%v vulkan %s: execution modes %v, want [7 6023 5089]", quadAny, vk, got)
			}
		}
	}
	// Without the attribute a pixel shader declares none of it.
	plain := helperLane(ir.Pixel)
	mod, err := EmitEntry(plain.M, plain.EP, Options{Vulkan: "1.3"})
	if err != nil {
		t.Fatal(err)
	}
	if got := executionModes(mod.Words); len(got) != 1 || len(mod.Extensions) != 0 {
		t.Errorf("no attribute: execution modes %v, extensions %v", got, mod.Extensions)
	}
}
