package spirv

import (
	"os"
	"path/filepath"
	"testing"

	. "waverig/compiler/ir/irtest"
	"waverig/internal/golden"
)

func TestMain(m *testing.M) { os.Exit(golden.Main(m, "testdata/*.spvasm")) }

// TestGolden pins the disassembly (spirv-dis, friendly names) of a few modules
// at the default target (Vulkan 1.2 / SPIR-V 1.5). Refresh with -update.
func TestGolden(t *testing.T) {
	for _, c := range []struct {
		name string
		b    *Builder
		opts Options
	}{
		{"cssum", cssum(), Options{}},
		{"quad_pixel", quadPixel(), Options{}},
		{"control_flow", controlFlow(), Options{}},
		{"resources_vk11", resources(), Options{Vulkan: "1.1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			Valid(t, c.b.M)
			mod, err := EmitEntry(c.b.M, c.b.EP, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", c.name+".spvasm"), []byte(disassemble(t, mod)))
		})
	}
}
