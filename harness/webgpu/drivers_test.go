package webgpu

import (
	"errors"
	"os"
	"strings"
	"testing"

	"waverig/devices"
	"waverig/devices/icd"
)

// TestMatchingPicksTheDriver: the system's lavapipe and setup's lavapipe
// 25.0.7 have one name and the same ids; each Vulkan device must get the
// wgpu adapter of its own driver, and a driver wgpu does not offer is refused
// rather than matched by name.
func TestMatchingPicksTheDriver(t *testing.T) {
	ds, err := devices.Enumerate()
	if errors.Is(err, devices.ErrNoVulkan) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if why := icd.Missing(devices.Drivers()); why != "" {
		if os.Getenv(icd.RequireEnv) == "1" {
			t.Fatalf("%s=1: %s", icd.RequireEnv, why)
		}
		t.Skip(why)
	}
	picked := map[int]string{}
	lavapipes := 0
	for _, d := range ds {
		if d.Type != "cpu" {
			continue
		}
		v := VulkanDevice{Name: d.Name, DriverInfo: d.DriverInfo, VendorID: d.VendorID, DeviceID: d.DeviceID}
		a, err := FindMatching(v)
		if err != nil {
			t.Errorf("device %d %s (%s): %v", d.Index, d.Name, d.DriverInfo, err)
			continue
		}
		if a.Backend != "vulkan" || a.Driver != d.DriverInfo || a.Name != d.Name {
			t.Errorf("device %d %s (%q) got adapter %d %s (%s, %q)", d.Index, d.Name, d.DriverInfo, a.Index, a.Name, a.Backend, a.Driver)
		}
		if prev, ok := picked[a.Index]; ok {
			t.Errorf("adapter %d picked for %s and for %s", a.Index, prev, d.DriverInfo)
		}
		picked[a.Index] = d.DriverInfo
		if strings.Contains(d.Name, "llvmpipe") {
			lavapipes++
			v.DriverInfo = "Mesa 99.0.0 (LLVM 15.0.6)"
			if a, err := FindMatching(v); err == nil || !strings.Contains(err.Error(), "refused") {
				t.Errorf("a lavapipe of a driver wgpu does not offer matched adapter %+v (%v)", a, err)
			}
		}
	}
	if lavapipes < 2 {
		t.Errorf("%d lavapipes among the Vulkan devices, want the system's and 25.0.7", lavapipes)
	}
}
