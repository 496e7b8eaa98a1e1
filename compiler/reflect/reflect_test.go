package reflect_test

import (
	"testing"

	"waverig/compiler"
)

// GroupSharedBytes counts the groupshared variables the entry point uses, at
// natural sizes: an unused one does not count.
func TestGroupSharedBytes(t *testing.T) {
	src := `struct Pair { uint a; float3 b; };
RWStructuredBuffer<uint> Out : register(u0);
groupshared uint Words[100];
groupshared Pair Pairs[4];
groupshared float4 Unused[1000];
[shader("compute")] [numthreads(8, 1, 1)]
void CSMain(uint gi : SV_GroupIndex) { Words[gi] = gi; Pairs[gi % 4].a = gi; GroupMemoryBarrierWithGroupSync(); Out[gi] = Words[7 - gi] + Pairs[0].a; }
`
	res, err := compiler.Compile("shared.hlsl", []byte(src), compiler.Options{Entry: "CSMain", Stage: "compute"})
	if err != nil {
		t.Fatalf("%v\n%s", err, res.Render())
	}
	ep := res.Entry("CSMain")
	if want := 100*4 + 4*(4+12); ep.GroupSharedBytes != want {
		t.Errorf("GroupSharedBytes = %d, want %d", ep.GroupSharedBytes, want)
	}
}
