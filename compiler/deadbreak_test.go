package compiler

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestDeadBreakAfterContinueInSwitch is the bug waverig fuzz found on the H200
// (docs/hardware/nvidia-h200/fuzz.md): a switch case ending `continue; break;`
// inside a loop, with code after the switch. The dead break used to count as a
// branch to the switch's merge, so the code after the switch went into a merge
// block nothing reaches, and its own switch's branch to the loop's continue
// target was outside the loop construct: spirv-val rejected the module.
func TestDeadBreakAfterContinueInSwitch(t *testing.T) {
	spirvVal := needTool(t, "spirv-val")
	src := `RWStructuredBuffer<uint> o : register(u0);
[numthreads(8, 1, 1)]
void main(uint gi : SV_GroupIndex) {
    uint acc = 0u;
    for (uint i = 0u; i < 2u; i++) {
        switch (gi % 2u) { default: { continue; break; } }
        switch (gi % 3u) { default: { continue; break; } }
    }
    while (acc < 4u) {
        acc++;
        if (acc == 2u) { continue; break; }
    }
    o[gi] = acc;
}
`
	for _, vk := range []string{"1.1", "1.2", "1.3"} {
		res, err := Compile("deadbreak.hlsl", []byte(src), Options{Vulkan: vk, Entry: "main", Stage: "compute"})
		if err != nil {
			t.Fatalf("Vulkan %s: %v\n%s", vk, err, res.Render())
		}
		f := filepath.Join(t.TempDir(), "m.spv")
		os.WriteFile(f, res.Find("main", SPIRV), 0o644)
		if out, err := exec.Command(spirvVal, "--target-env", "vulkan"+vk, f).CombinedOutput(); err != nil {
			t.Errorf("Vulkan %s: spirv-val: %s", vk, out)
		}
	}
}
