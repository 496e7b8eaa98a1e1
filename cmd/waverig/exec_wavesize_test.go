package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"waverig/devices"
)

// waveSizeShader records WaveGetLaneCount() per invocation under a [WaveSize]
// attribute (ATTR) in a 128-invocation workgroup (whole waves at every size).
const waveSizeShader = `RWStructuredBuffer<uint> Out : register(u0);
[shader("compute")]
ATTR
[numthreads(128, 1, 1)]
void CSMain(uint3 id : SV_DispatchThreadID) { Out[id.x] = WaveGetLaneCount(); }
`

// TestExecHonoursWaveSize: exec reads the shader's [WaveSize] range from the
// reflection and runs at a legal size in it (the lane count every invocation
// sees is that size); a range with no legal size is "skip: REASON"; a case file
// whose subgroup_size contradicts the range is a case error (exit 2); WebGPU,
// which cannot require a size, skips.
func TestExecHonoursWaveSize(t *testing.T) {
	requireVulkan(t)
	devs, _ := devices.Enumerate()
	d := devs[0]
	legal := d.LegalSubgroupSizes()
	own := d.SubgroupSize
	var illegal uint32
	for s := uint32(4); s <= 128; s <<= 1 {
		ok := false
		for _, l := range legal {
			ok = ok || l == s
		}
		if !ok {
			illegal = s
			break
		}
	}
	counts := func(s uint32) string {
		v := make([]string, 128)
		for i := range v {
			v[i] = fmt.Sprint(s)
		}
		return strings.Join(v, ",")
	}
	write := func(attr string, subgroup uint32, expectSize uint32) string {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "k.hlsl"), []byte(strings.Replace(waveSizeShader, "ATTR", attr, 1)), 0o644)
		body := fmt.Sprintf(`{"shader":"k.hlsl","entry":"CSMain","dispatch":[1,1,1],"subgroup_size":%d,"buffers":[{"binding":"u0","format":"uint32","count":128,"expect":[%s]}]}`,
			subgroup, counts(expectSize))
		p := filepath.Join(dir, "case.json")
		os.WriteFile(p, []byte(body), 0o644)
		return p
	}
	type tc struct {
		name      string
		args      []string
		code      int
		out, errs string
	}
	cases := []tc{
		{name: "fixed size the device has", args: []string{"exec", write(fmt.Sprintf("[WaveSize(%d)]", own), 0, own)}, code: 0, out: "ok: "},
		{name: "range holding the device's size", args: []string{"exec", write(fmt.Sprintf("[WaveSize(4, 128, %d)]", own), 0, own)}, code: 0, out: "ok: "},
		{name: "subgroup_size outside the range", args: []string{"exec", write(fmt.Sprintf("[WaveSize(%d)]", own), own*2, own)}, code: 2, errs: "outside the shader's [WaveSize]"},
		{name: "WebGPU cannot require it", args: []string{"exec", "-api", "webgpu", write(fmt.Sprintf("[WaveSize(%d)]", own), 0, own)}, code: 0, out: "skip: "},
	}
	if illegal != 0 {
		cases = append(cases, tc{name: "size the device lacks", args: []string{"exec", write(fmt.Sprintf("[WaveSize(%d)]", illegal), 0, illegal)}, code: 0,
			out: fmt.Sprintf("skip: [WaveSize] %d: no legal size of %s", illegal, d.Name)})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := runCLI(c.args...)
			if code != c.code || !strings.Contains(out, c.out) || !strings.Contains(errs, c.errs) {
				t.Fatalf("exit %d (want %d)\nstdout: %s\nstderr: %s\nwant stdout ∋ %q, stderr ∋ %q", code, c.code, out, errs, c.out, c.errs)
			}
		})
	}
}
