package spirv

import (
	"os"
	"path/filepath"
	"testing"
)

// TestGolden pins the disassembly (spirv-dis, friendly names) of a few modules
// at the default target (Vulkan 1.2 / SPIR-V 1.5). Refresh with -update.
func TestGolden(t *testing.T) {
	for _, c := range []struct {
		name string
		b    *mb
		opts Options
	}{
		{"cssum", cssum(), Options{}},
		{"quad_pixel", quadPixel(), Options{}},
		{"control_flow", controlFlow(), Options{}},
		{"resources_vk11", resources(), Options{Vulkan: "1.1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			mod, err := EmitEntry(c.b.m, c.b.ep, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			got := disassemble(t, mod)
			path := filepath.Join("testdata", c.name+".spvasm")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("%s differs from the golden file (run go test -update after checking the change):\n%s", path, got)
			}
		})
	}
}
