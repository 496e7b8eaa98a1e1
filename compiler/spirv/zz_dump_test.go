package spirv

import "testing"

func TestDumpCSSum(t *testing.T) {
	mod, err := EmitEntry(cssum().m, cssum().ep, Options{Vulkan: "1.1"})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(disassemble(t, mod))
}
