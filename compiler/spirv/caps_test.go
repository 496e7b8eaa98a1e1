package spirv

import (
	"testing"
)

func TestCSSumCapabilities(t *testing.T) {
	for vk, mod := range emitValid(t, cssum(), Options{}) {
		if got := capNames(mod.Capabilities); got != "Shader,GroupNonUniform,GroupNonUniformArithmetic" {
			t.Errorf("vulkan %s: capabilities %s", vk, got)
		}
		if mod.SubgroupBits != 0x5 {
			t.Errorf("vulkan %s: SubgroupBits %#x, want 0x5", vk, mod.SubgroupBits)
		}
		if len(mod.Extensions) != 0 {
			t.Errorf("vulkan %s: extensions %v", vk, mod.Extensions)
		}
	}
}

func TestQuadPixelCapabilities(t *testing.T) {
	for vk, mod := range emitValid(t, quadPixel(), Options{}) {
		if got := capNames(mod.Capabilities); got != "Shader,GroupNonUniformQuad" {
			t.Errorf("vulkan %s: capabilities %s", vk, got)
		}
		if mod.SubgroupBits != 0x80 {
			t.Errorf("vulkan %s: SubgroupBits %#x, want 0x80", vk, mod.SubgroupBits)
		}
	}
}
