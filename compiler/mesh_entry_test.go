package compiler

import "testing"

// A file with an amplification and a mesh entry compiles each of them alone
// (-entry, as the rig compiles one module per stage): the unselected mesh
// entry's out vertices / out indices / in payload parameters are a mesh
// entry's, not stray qualifiers (E0432).
func TestMeshletCullEachEntryAlone(t *testing.T) {
	for _, c := range []struct{ entry, stage string }{{"ASCull", "amplification"}, {"MSDraw", "mesh"}, {"MSRecords", "mesh"}} {
		res, err := CompileFile("../fixtures/MeshletCull.hlsl", Options{Entry: c.entry, Stage: c.stage, Vulkan: "1.3"})
		if err != nil {
			t.Errorf("%s alone: %v", c.entry, err)
			continue
		}
		if len(res.Diagnostics) != 0 {
			t.Errorf("%s alone: %v", c.entry, res.Diagnostics)
		}
	}
}
