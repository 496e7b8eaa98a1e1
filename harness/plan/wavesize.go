package plan

import (
	"fmt"
	"strings"

	"waverig/compiler/reflect"
	"waverig/devices"
	"waverig/harness/kernels"
)

// [WaveSize] kernels. DXC ignores the attribute for SPIR-V (with a warning);
// waverig's compiler reports the range in its reflection, and the rig honours
// it: the pipeline is created with VkPipelineShaderStageRequiredSubgroupSize
// at a legal size in the range (and full subgroups when the workgroup is a
// whole number of waves), or the kernel is a skip naming the sizes the device
// has. Such a kernel runs once, in the pass at the size it was given.

// PassRuns reports whether a pass at wave size size on device d (as the rig
// of that pass sees it, PassDevice) runs or reports a kernel of [WaveSize]
// range ws (nil: none): every kernel but a [WaveSize] one, which runs once, in
// the pass at the size PickWaveSize gives it, or — when no legal size fits —
// is skipped in the pass at the device's own size. Rig.inPass and PlanRun
// both ask it, so the run and its listing cannot disagree.
func PassRuns(ws *reflect.WaveSize, d devices.Device, size uint32) bool {
	if ws == nil {
		return true
	}
	chosen, _ := PickWaveSize(ws, d)
	if chosen == 0 {
		return size == d.SubgroupSize
	}
	return chosen == size
}

// PickWaveSize chooses the size a [WaveSize] range runs at on a device: the
// preferred size when the device can run it, else the device's default size
// when it is in the range, else the largest legal size in the range. It
// returns 0 and the reason when no legal size is in the range.
func PickWaveSize(ws *reflect.WaveSize, d devices.Device) (uint32, string) {
	legal := d.LegalSubgroupSizes()
	var in []uint32
	for _, s := range legal {
		if s >= uint32(ws.Min) && s <= uint32(ws.Max) {
			in = append(in, s)
		}
	}
	if len(in) == 0 {
		return 0, fmt.Sprintf("[WaveSize] %s: no legal size of %s is in it (compute runs at %v)", WaveSizeRange(ws), d.Name, legal)
	}
	for _, want := range []uint32{uint32(ws.Preferred), d.SubgroupSize} {
		for _, s := range in {
			if want != 0 && s == want {
				return s, ""
			}
		}
	}
	return in[len(in)-1], ""
}

// WaveSizeRange spells a range for messages: 32, or 16..64 (preferred 32).
func WaveSizeRange(ws *reflect.WaveSize) string {
	if ws.Min == ws.Max {
		return fmt.Sprint(ws.Min)
	}
	if ws.Preferred != 0 {
		return fmt.Sprintf("%d..%d (preferred %d)", ws.Min, ws.Max, ws.Preferred)
	}
	return fmt.Sprintf("%d..%d", ws.Min, ws.Max)
}

// DeclaresWaveSize reports whether a kernel can have a [WaveSize] range: only
// a compute source that spells the attribute (the others are never compiled
// to find out; a kernel the device cannot run is never compiled).
func DeclaresWaveSize(k kernels.Kernel) bool {
	return k.Draw == nil && strings.Contains(strings.ToLower(k.HLSL), "wavesize")
}
