package plan

import (
	"slices"
	"strings"
	"testing"

	"waverig/compiler/reflect"
	"waverig/devices"
)

// sizeControl is a device with size control over 16..64, default 32.
func sizeControl() devices.Device {
	d := devices.Device{Name: "Some GPU", SubgroupSize: 32}
	d.SizeControl = devices.SizeControl{Supported: true, MinSubgroupSize: 16, MaxSubgroupSize: 64, RequiredSubgroupSizeStages: devices.StageCompute}
	return d
}

// lavapipe is a device as devices.Enumerate reports lavapipe at 256 bits.
func lavapipe() devices.Device {
	d := devices.Device{Name: "llvmpipe (LLVM 15.0.6, 256 bits)", SubgroupSize: 8}
	d.SizeControl = devices.SizeControl{Supported: true, MinSubgroupSize: 8, MaxSubgroupSize: 8, RequiredSubgroupSizeStages: devices.StageCompute}
	return d
}

func sizesOf(p Plan) []uint32 {
	var out []uint32
	for _, sp := range p.Sizes {
		out = append(out, sp.Size)
	}
	return out
}

// TestPlanSizeControl: every legal size in-process; a size asked for that is
// not legal is a skip naming the legal ones, never dropped silently.
func TestPlanSizeControl(t *testing.T) {
	d := sizeControl()
	p := Make(d, nil)
	if !slices.Equal(sizesOf(p), d.LegalSubgroupSizes()) {
		t.Fatalf("sizes %v, legal %v", sizesOf(p), d.LegalSubgroupSizes())
	}
	for _, sp := range p.Sizes {
		if !sp.InProcess || sp.LPWidth != 0 || sp.SkipReason != "" || PassDevice(d, sp).SubgroupSize != d.SubgroupSize {
			t.Errorf("size %d: %+v, want in-process on the device as enumerated", sp.Size, sp)
		}
	}
	legal := d.LegalSubgroupSizes()
	illegal := legal[len(legal)-1] * 2
	p = Make(d, []uint32{legal[0], illegal})
	if !slices.Equal(sizesOf(p), []uint32{legal[0], illegal}) {
		t.Fatalf("asked for %d and %d, planned %v", legal[0], illegal, sizesOf(p))
	}
	if p.Sizes[0].SkipReason != "" || !strings.Contains(p.Sizes[1].SkipReason, "not legal") {
		t.Errorf("skips %q, %q: want only the illegal size skipped", p.Sizes[0].SkipReason, p.Sizes[1].SkipReason)
	}
}

// TestPlanLavapipe: one child per width, each its own device size; the
// 512-bit width is optional, and left out of the default plan without AVX-512
// but attempted when asked for.
func TestPlanLavapipe(t *testing.T) {
	t.Setenv("GALLIUM_OVERRIDE_CPU_CAPS", "avx") // Mesa's override: as a CPU without AVX-512
	if HasAVX512() {
		t.Fatal("HasAVX512 ignores GALLIUM_OVERRIDE_CPU_CAPS")
	}
	d := lavapipe()
	if !IsLavapipe(d) || IsLavapipe(sizeControl()) {
		t.Fatal("IsLavapipe")
	}
	p := Make(d, nil)
	if len(p.Sizes) != len(LavapipeWidths) {
		t.Fatalf("%d sizes, %d widths", len(p.Sizes), len(LavapipeWidths))
	}
	for i, sp := range p.Sizes {
		lw := LavapipeWidths[i]
		if sp.Size != lw.Size || sp.LPWidth != lw.Width || sp.InProcess {
			t.Errorf("size %d: %+v, want a child at width %d", lw.Size, sp, lw.Width)
		}
		if pd := PassDevice(d, sp); pd.SubgroupSize != sp.Size || !slices.Equal(pd.LegalSubgroupSizes(), []uint32{sp.Size}) {
			t.Errorf("size %d: the child's device has size %d, legal %v", sp.Size, pd.SubgroupSize, pd.LegalSubgroupSizes())
		}
		if wide := lw.Width == 512; sp.Optional != wide || (sp.SkipReason != "") != wide {
			t.Errorf("width %d: optional %v, skip %q", lw.Width, sp.Optional, sp.SkipReason)
		}
	}
	for _, sp := range Make(d, []uint32{16}).Sizes {
		if sp.SkipReason != "" {
			t.Errorf("-sizes 16 without AVX-512: skipped (%s), want attempted", sp.SkipReason)
		}
	}
}

// TestPickWaveSize: the size is legal and in the range, the preferred one when
// legal, else the device's own when in range; a range with no legal size is 0
// and a reason; exactly one pass over the device's sizes runs the kernel.
func TestPickWaveSize(t *testing.T) {
	d := sizeControl()
	legal := d.LegalSubgroupSizes()
	lo, hi := int(legal[0]), int(legal[len(legal)-1])
	for _, ws := range []reflect.WaveSize{
		{Min: lo, Max: hi}, {Min: lo, Max: hi, Preferred: hi}, {Min: lo, Max: lo},
		{Min: 1, Max: hi * 4, Preferred: lo / 2}, {Min: hi, Max: hi * 2},
	} {
		got, why := PickWaveSize(&ws, d)
		if why != "" || !slices.Contains(legal, got) || int(got) < ws.Min || int(got) > ws.Max {
			t.Errorf("%s: %d (%q), want a legal size in the range", WaveSizeRange(&ws), got, why)
			continue
		}
		preferredLegal := slices.Contains(legal, uint32(ws.Preferred))
		ownIn := ws.Min <= int(d.SubgroupSize) && int(d.SubgroupSize) <= ws.Max
		if preferredLegal && got != uint32(ws.Preferred) || !preferredLegal && ownIn && got != d.SubgroupSize {
			t.Errorf("%s: %d, want the preferred size, else the device's own %d", WaveSizeRange(&ws), got, d.SubgroupSize)
		}
		runs := 0
		for _, s := range legal {
			if PassRuns(&ws, d, s) {
				runs++
			}
		}
		if runs != 1 {
			t.Errorf("%s: %d passes run it, want 1", WaveSizeRange(&ws), runs)
		}
	}
	none := reflect.WaveSize{Min: hi * 2, Max: hi * 4}
	if got, why := PickWaveSize(&none, d); got != 0 || !strings.Contains(why, "no legal size") {
		t.Errorf("%s: %d (%q), want 0 and a reason", WaveSizeRange(&none), got, why)
	}
	if !PassRuns(&none, d, d.SubgroupSize) || PassRuns(&none, d, uint32(lo)) {
		t.Errorf("a range with no legal size is reported once, in the pass at the device's own size")
	}
	if !PassRuns(nil, d, uint32(lo)) {
		t.Error("a kernel without [WaveSize] runs in every pass")
	}
}
