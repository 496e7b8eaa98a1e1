package glslang

import (
	"os"
	"testing"
)

func TestBindingMapGivesEachClassItsOwnRange(t *testing.T) {
	for reg, want := range map[string][2]int{"t0": {0, 0}, "u0": {0, 16}, "b3": {0, 35}, "s15": {0, 63}, "u1,space2": {2, 17}, "U1, Space2": {2, 17}} {
		b, err := Binding(reg)
		if err != nil || b.Set != want[0] || b.Binding != want[1] {
			t.Errorf("%s: set %d binding %d (%v), want %v", reg, b.Set, b.Binding, err, want)
		}
	}
	if b, _ := Binding("b0"); b.Descriptor != "VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER" {
		t.Errorf("b0 is a uniform buffer: %s", b.Descriptor)
	}
	for _, bad := range []string{"u16", "x0", "u", "u99999999999999999999"} {
		if _, err := Binding(bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// TestCompileCachesAndSkips compiles a kernel twice (the second time from the
// disk cache) and a kernel glslang rejects (a skip, not an error).
func TestCompileCachesAndSkips(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	src := "RWStructuredBuffer<uint> o : register(u0);\n[numthreads(4,1,1)] void CSMain(uint i : SV_GroupIndex) { o[i] = WaveActiveSum(i); }\n"
	for run := 0; run < 2; run++ {
		m, skip, err := Compile(src, "CSMain", []string{"u0"})
		if err != nil || skip != "" || len(m.SPIRV) < 5 || m.SPIRV[0] != 0x07230203 || m.Bindings["u0"].Binding != 16 {
			t.Fatalf("run %d: skip %q err %v", run, skip, err)
		}
	}
	entries, _ := os.ReadDir(cacheDir())
	if len(entries) != 1 {
		t.Fatalf("cache holds %d files, want 1", len(entries))
	}
	_, skip, err := Compile("int64_t x;\n[numthreads(1,1,1)] void CSMain() {}\n", "CSMain", nil)
	if err != nil || skip == "" {
		t.Fatalf("a kernel glslang rejects: skip %q err %v", skip, err)
	}
}

// TestHelperLanesAttributeSkips: glslang 12 compiles a pixel shader with
// [WaveOpsIncludeHelperLanes] but drops the attribute with a warning, so the
// kernel is a skip with that reason (from the cache too); without the attribute
// the same shader compiles.
func TestHelperLanesAttributeSkips(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	body := "uint4 PSMain(float4 pos : SV_Position) : SV_Target { o[0] = WaveActiveSum(1u); return uint4(0u, 0u, 0u, 0u); }\n"
	decl := "RWStructuredBuffer<uint> o : register(u0);\n"
	for run := 0; run < 2; run++ {
		_, skip, err := CompileStage(decl+"[WaveOpsIncludeHelperLanes]\n"+body, "PSMain", "pixel", []string{"u0"})
		if err != nil || skip != IgnoresHelperLanes {
			t.Fatalf("run %d: skip %q err %v, want the skip %q", run, skip, err, IgnoresHelperLanes)
		}
	}
	m, skip, err := CompileStage(decl+body, "PSMain", "pixel", []string{"u0"})
	if err != nil || skip != "" || len(m.SPIRV) < 5 {
		t.Fatalf("without the attribute: skip %q err %v", skip, err)
	}
}
