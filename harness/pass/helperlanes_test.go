package pass

import (
	"strings"
	"testing"
)

// TestWGSLSkipsHelperLanes: a pixel entry with [WaveOpsIncludeHelperLanes] is a
// WebGPU skip naming W0602 (the WGSL is emitted without the attribute); the
// vertex entry of the same source and a pixel entry without it compile.
func TestWGSLSkipsHelperLanes(t *testing.T) {
	src := `RWStructuredBuffer<uint> o : register(u0);
float4 VSMain(uint v : SV_VertexID) : SV_Position { return float4(0.0f, 0.0f, 0.0f, 1.0f); }
[WaveOpsIncludeHelperLanes]
uint4 PSMain(float4 pos : SV_Position) : SV_Target { o[0] = WaveActiveSum(1u); return uint4(0u, 0u, 0u, 0u); }
uint4 PSPlain(float4 pos : SV_Position) : SV_Target { o[0] = WaveActiveSum(1u); return uint4(0u, 0u, 0u, 0u); }
`
	m := compileWGSL("hl.hlsl", []byte(src), "PSMain", "pixel", nil)
	if m.err != nil || !strings.Contains(m.skip, "W0602") {
		t.Fatalf("pixel entry with the attribute: skip %q err %v, want a W0602 skip", m.skip, m.err)
	}
	for _, e := range [][2]string{{"VSMain", "vertex"}, {"PSPlain", "pixel"}} {
		if m := compileWGSL("hl.hlsl", []byte(src), e[0], e[1], nil); m.err != nil || m.skip != "" || m.wgsl == "" {
			t.Errorf("%s: skip %q err %v", e[0], m.skip, m.err)
		}
	}
}
