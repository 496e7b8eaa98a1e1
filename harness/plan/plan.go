// Package plan decides what a run covers, before anything runs: the wave
// sizes of a device and how each is reached (Make), the share of the kernels
// a shard runs (Shard), the [WaveSize] rule that puts a kernel in one pass
// (PickWaveSize, PassRuns), and the case records a listing counts
// (PlannedCase, CaseNames). It needs no device and no rig: harness runs what
// it decides, and `waverig list` prints it.
package plan

import (
	"fmt"
	"os"
	"runtime"
	"strings"

	"waverig/devices"
)

// Plan is the set of wave sizes a run covers on one device, and how each is reached.
type Plan struct {
	Device devices.Device
	Sizes  []SizePlan
}

// SizePlan is one wave size: either asked for in-process with size control, or
// reached by re-running in a child process with LP_NATIVE_VECTOR_WIDTH (lavapipe).
type SizePlan struct {
	Size       uint32
	LPWidth    int    // > 0: run in a child with LP_NATIVE_VECTOR_WIDTH=LPWidth
	SkipReason string // non-empty: not runnable here, and why
	InProcess  bool
	// Optional: the size may not exist on this machine (lavapipe's 512-bit width is
	// documented to need AVX-512); if the child finds the device reports another
	// size, the size is skipped with that observation instead of failing.
	Optional bool
}

// IsLavapipe reports whether the device is Mesa's llvmpipe Vulkan driver, whose
// one subgroup size is set by LP_NATIVE_VECTOR_WIDTH when the driver loads.
func IsLavapipe(d devices.Device) bool {
	return strings.Contains(strings.ToLower(d.Name), "llvmpipe") || strings.Contains(strings.ToLower(d.DriverName), "llvmpipe")
}

// HasAVX512 reports whether this CPU has AVX-512F (needed for lavapipe's 512-bit
// vectors, i.e. wave size 16).
func HasAVX512() bool {
	if runtime.GOARCH != "amd64" {
		return false
	}
	// Mesa's own CPU overrides (every value of GALLIUM_OVERRIDE_CPU_CAPS, "avx"
	// included, turns AVX-512 off in lavapipe's code generation): honouring them
	// lets an AVX-512 machine run exactly what a machine without it runs.
	if os.Getenv("GALLIUM_OVERRIDE_CPU_CAPS") != "" || os.Getenv("GALLIUM_NOSSE") != "" {
		return false
	}
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return false
	}
	return strings.Contains(string(data), " avx512f")
}

// LavapipeWidths maps wave sizes to LP_NATIVE_VECTOR_WIDTH values (32-bit lanes).
var LavapipeWidths = []struct {
	Size  uint32
	Width int
}{{4, 128}, {8, 256}, {16, 512}}

// DefaultSize in a list of wanted sizes stands for each device's own size:
// the subgroupSize it reports without being asked for one (`-sizes default`,
// one pass per device).
const DefaultSize = 0

// Make decides the sizes for a device; want filters them (nil = all legal).
func Make(d devices.Device, want []uint32) Plan {
	p := Plan{Device: d}
	wanted := func(s uint32) bool {
		if len(want) == 0 {
			return true
		}
		for _, w := range want {
			if w == s || w == DefaultSize && s == d.SubgroupSize {
				return true
			}
		}
		return false
	}
	if IsLavapipe(d) {
		avx512 := HasAVX512()
		for _, lw := range LavapipeWidths {
			if !wanted(lw.Size) {
				continue
			}
			sp := SizePlan{Size: lw.Size, LPWidth: lw.Width}
			if lw.Width == 512 {
				// Mesa gives 512-bit vectors (wave size 16) on AVX-512 machines. Without
				// AVX-512, LLVM splits them and lavapipe still reports 16, but pipelines
				// build ~25x slower, so the default plan leaves it out; asking for 16
				// explicitly attempts it, and the child checks at start-up what the
				// device really reports (an absent size becomes a skip).
				sp.Optional = true
				if !avx512 && len(want) == 0 {
					sp.SkipReason = "wave size 16 on lavapipe needs LP_NATIVE_VECTOR_WIDTH=512, native only with AVX-512 (this CPU has no avx512f); -sizes 16 forces it (emulated, slow)"
				}
			}
			p.Sizes = append(p.Sizes, sp)
		}
		return p
	}
	for _, s := range d.LegalSubgroupSizes() {
		if wanted(s) {
			p.Sizes = append(p.Sizes, SizePlan{Size: s, InProcess: true})
		}
	}
	for _, w := range want {
		if w == DefaultSize {
			continue // the device's own size is always one of its sizes
		}
		found := false
		for _, s := range p.Sizes {
			found = found || s.Size == w
		}
		if !found {
			p.Sizes = append(p.Sizes, SizePlan{Size: w, SkipReason: fmt.Sprintf("wave size %d is not legal on %s (legal: %v)", w, d.Name, d.LegalSubgroupSizes())})
		}
	}
	return p
}

// PassDevice is the device as the rig of one wave size sees it. A lavapipe
// size runs in a child whose LP_NATIVE_VECTOR_WIDTH makes that size the
// device's one size (and its size-control range); a size-control size runs on
// the device as enumerated, asking for the size.
func PassDevice(d devices.Device, sp SizePlan) devices.Device {
	if sp.LPWidth == 0 {
		return d
	}
	d.SubgroupSize = sp.Size
	if d.SizeControl.Supported {
		d.SizeControl.MinSubgroupSize, d.SizeControl.MaxSubgroupSize = sp.Size, sp.Size
	}
	return d
}
