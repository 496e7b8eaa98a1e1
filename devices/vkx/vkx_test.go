package vkx

import (
	"strings"
	"testing"
)

func TestResultName(t *testing.T) {
	cases := map[int32]string{0: "VK_SUCCESS", -4: "VK_ERROR_DEVICE_LOST", 2: "VK_TIMEOUT", -1000069000: "VK_ERROR_OUT_OF_POOL_MEMORY", 12345: "VkResult(12345)"}
	for r, want := range cases {
		if got := ResultName(r); got != want {
			t.Errorf("ResultName(%d) = %q, want %q", r, got, want)
		}
	}
	e := &Error{Op: "vkCreateDevice", Result: -3}
	if !strings.Contains(e.Error(), "vkCreateDevice: VK_ERROR_INITIALIZATION_FAILED") {
		t.Errorf("Error() = %q", e.Error())
	}
}

// Load must be idempotent and, where a loader exists, report a version.
func TestLoad(t *testing.T) {
	p1, err1 := Load()
	p2, err2 := Load()
	if p1 != p2 || (err1 == nil) != (err2 == nil) {
		t.Fatalf("Load not idempotent: %p/%v vs %p/%v", p1, err1, p2, err2)
	}
	if err1 != nil {
		t.Skipf("no Vulkan loader: %v", err1)
	}
	if v := InstanceVersion(); v>>22 != 1 {
		t.Errorf("InstanceVersion = 0x%x, want a 1.x version", v)
	}
}
