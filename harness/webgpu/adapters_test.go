package webgpu

import (
	"os"
	"regexp"
	"slices"
	"strconv"
	"testing"
)

// lavapipeWave is the wave size lavapipe must have: LP_NATIVE_VECTOR_WIDTH/32
// where that is set, else the width its name reports ("…, 256 bits)"). ok is
// false on other drivers.
func lavapipeWave(t *testing.T, name string) (uint32, bool) {
	m := regexp.MustCompile(`^llvmpipe .*, (\d+) bits\)$`).FindStringSubmatch(name)
	if m == nil {
		return 0, false
	}
	bits, _ := strconv.Atoi(m[1])
	if env := os.Getenv("LP_NATIVE_VECTOR_WIDTH"); env != "" {
		w, err := strconv.Atoi(env)
		if err != nil {
			t.Fatalf("LP_NATIVE_VECTOR_WIDTH=%q", env)
		}
		if w != bits {
			t.Errorf("LP_NATIVE_VECTOR_WIDTH=%d but the adapter says %d bits", w, bits)
		}
		bits = w
	}
	return uint32(bits / 32), true
}

func TestAdapters(t *testing.T) {
	d := device(t) // skips where wgpu-native has no adapter
	as, err := Adapters(true)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range as {
		t.Logf("%+v", a)
	}
	found := false
	for i, a := range as {
		if a.Index != i || a.Name == "" || a.Backend == "" {
			t.Errorf("adapter %d badly described: %+v", i, a)
		}
		if a.Subgroup && (len(a.WaveSizes) == 0) != (a.ProbeError != "") {
			t.Errorf("adapter %d: wave sizes %v with probe error %q", i, a.WaveSizes, a.ProbeError)
		}
		if a.Backend != "vulkan" || !a.SameDevice(d.Adapter.Name, d.Adapter.VendorID, d.Adapter.DeviceID) {
			continue
		}
		found = true
		if !a.Subgroup {
			t.Errorf("the shared device's adapter lacks subgroups: %+v", a)
		}
		if want, ok := lavapipeWave(t, a.Name); ok {
			if !slices.Equal(a.WaveSizes, []uint32{want}) {
				t.Errorf("%s: probe measured %v, want [%d] (%s)", a.Name, a.WaveSizes, want, a.ProbeError)
			}
			if a.VendorID != 0x10005 || a.AdapterType != "cpu" || a.Vendor != "llvmpipe" {
				t.Errorf("lavapipe described as %+v", a)
			}
		}
	}
	if !found {
		t.Errorf("Adapters does not list the shared device's adapter %q", d.Adapter.Name)
	}
	if os.Getenv("LP_NATIVE_VECTOR_WIDTH") != "" && d.Adapter.Vendor == "llvmpipe" && !found {
		t.Error("llvmpipe not listed")
	}
}

func TestProbeWaveSizes(t *testing.T) {
	d := device(t)
	sizes, err := d.ProbeWaveSizes()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: wave sizes %v", d.Adapter.Name, sizes)
	if want, ok := lavapipeWave(t, d.Adapter.Name); ok && !slices.Equal(sizes, []uint32{want}) {
		t.Errorf("probe measured %v, want [%d]", sizes, want)
	}
	for _, s := range sizes {
		if s == 0 || s&(s-1) != 0 || s > 128 {
			t.Errorf("implausible wave size %d", s)
		}
	}
}

func TestOpenAdapterAndMatching(t *testing.T) {
	shared := device(t)
	d, err := OpenAdapter(shared.Adapter.Index)
	if err != nil {
		t.Fatal(err)
	}
	if d.Adapter.Name != shared.Adapter.Name || d.Adapter.Backend != shared.Adapter.Backend {
		t.Errorf("OpenAdapter(%d) opened %+v, Open opened %+v", shared.Adapter.Index, d.Adapter, shared.Adapter)
	}
	d.Release()
	if _, err := d.RunCompute(probeWGSL, "w64", [3]uint32{1, 1, 1}, nil); err == nil {
		t.Error("a released device ran a dispatch")
	}
	if _, err := OpenAdapter(1000); err == nil {
		t.Error("OpenAdapter(1000) opened something")
	}

	// The Vulkan name of lavapipe at another vector width still matches, and
	// the Vulkan backend is preferred over GL (which reports the same name).
	name := lavapipeBits.ReplaceAllString(shared.Adapter.Name, ", 512 bits)")
	m, err := OpenMatching(VulkanDevice{Name: name, DriverInfo: shared.Adapter.Driver, VendorID: shared.Adapter.VendorID, DeviceID: shared.Adapter.DeviceID})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Release()
	if m.Adapter.Backend != "vulkan" || m.Adapter.Name != shared.Adapter.Name {
		t.Errorf("OpenMatching(%q) opened %+v", name, m.Adapter)
	}
	if _, err := OpenMatching(VulkanDevice{Name: "no such GPU", VendorID: 0x1234, DeviceID: 0x5678}); err == nil {
		t.Error("OpenMatching found a device that does not exist")
	}
}

func TestSameDevice(t *testing.T) {
	lvp := Adapter{Name: "llvmpipe (LLVM 15.0.6, 256 bits)", VendorID: 0x10005}
	nv := Adapter{Name: "NVIDIA GeForce RTX 4090", VendorID: 0x10de, DeviceID: 0x2684}
	for _, c := range []struct {
		a        Adapter
		name     string
		ven, dev uint32
		want     bool
	}{
		{lvp, "llvmpipe (LLVM 15.0.6, 256 bits)", 0x10005, 0, true},
		{lvp, "llvmpipe (LLVM 15.0.6, 128 bits)", 0x10005, 0, true},
		{lvp, "llvmpipe (LLVM 15.0.6, 512 bits)", 0, 0, true},
		{lvp, "llvmpipe (LLVM 16.0.0, 256 bits)", 0x10005, 0, false},
		{lvp, "llvmpipe (LLVM 15.0.6, 256 bits)", 0x10de, 0, false},
		{lvp, "", 0x10005, 0, false},
		{nv, "NVIDIA GeForce RTX 4090 (renamed)", 0x10de, 0x2684, true},
		{nv, "NVIDIA GeForce RTX 4090", 0x10de, 0x2704, false},
		{nv, "NVIDIA GeForce RTX 4090", 0, 0, true},
		{nv, "NVIDIA GeForce RTX 4090", 0x1002, 0x2684, false},
	} {
		if got := c.a.SameDevice(c.name, c.ven, c.dev); got != c.want {
			t.Errorf("%q %04x:%04x SameDevice(%q, %04x, %04x) = %v", c.a.Name, c.a.VendorID, c.a.DeviceID, c.name, c.ven, c.dev, got)
		}
	}
}
