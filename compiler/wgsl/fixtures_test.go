package wgsl

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"waverig/compiler/args"
	"waverig/compiler/diag"
	"waverig/compiler/ir"
	. "waverig/compiler/ir/irtest"
	"waverig/compiler/sema"
	"waverig/compiler/syntax"
	"waverig/harness/webgpu"
)

// fixtureOptions reads the `// waverig-args: …` first line of a fixture (the
// front-end options that change the IR).
func fixtureOptions(t *testing.T, src string) sema.Options {
	list, ok := args.FixtureLine(src)
	if !ok {
		return sema.Options{}
	}
	a, err := args.Parse(list)
	if err != nil {
		t.Fatalf("fixture options: %v", err)
	}
	return sema.Options{Entry: a.Entry, Stage: a.Stage, Shifts: a.Shifts, AutoBindings: a.AutoBindings,
		PartitionedNV: a.HasExtension("SPV_NV_shader_subgroup_partitioned")}
}

// fixtureErrors lists the fixture entry points WGSL cannot express, with the
// code the back end must report in the naga and the standard dialect ("" =
// must emit and validate); every other entry point must emit and validate.
var fixtureErrors = map[string][2]diag.Code{
	"partitioned.main": {diag.ErrWGSLNoLowering, diag.ErrWGSLNoLowering}, // WaveMatch, WaveMultiPrefix*
	// WaveMatch and WaveMultiPrefixCountBits (fixtures/lang, SPIR-V goldens only).
	"wave_multi_prefix_count_bits.main": {diag.ErrWGSLNoLowering, diag.ErrWGSLNoLowering},
	"push_constants.main":               {"", diag.ErrWGSLPushConstant},       // naga has var<immediate>
	"wide_types.main":                   {diag.ErrWGSLType, diag.ErrWGSLType}, // double, int64_t, uint64_t
	"double_bits.main":                  {diag.ErrWGSLType, diag.ErrWGSLType}, // asdouble, asuint(double, …)
	// A float4 RWTexture2D that is read and written: WebGPU allows read_write
	// storage textures only for r32 formats.
	"texel_swizzle.main": {diag.ErrWGSLTextureAccess, diag.ErrWGSLTextureAccess},
	// IsHelperLane in a pixel shader: WGSL has no helper-invocation builtin.
	"is_helper_lane.PS":      {diag.ErrWGSLHelperLane, diag.ErrWGSLHelperLane},
	"is_helper_lane_vk13.PS": {diag.ErrWGSLHelperLane, diag.ErrWGSLHelperLane},
	// Amplification and mesh shaders: WebGPU has no mesh pipeline.
	"MeshletCull.ASCull":    {diag.ErrWGSLMeshStage, diag.ErrWGSLMeshStage},
	"MeshletCull.MSDraw":    {diag.ErrWGSLMeshStage, diag.ErrWGSLMeshStage},
	"MeshletCull.MSRecords": {diag.ErrWGSLMeshStage, diag.ErrWGSLMeshStage},
}

// TestFixtures compiles every positive HLSL fixture with the real front end,
// emits each entry point in both dialects and validates the naga output with
// wgpu-native and the standard output with Tint (Dawn). The seed's Waves.hlsl entries also have golden files.
func TestFixtures(t *testing.T) {
	var files []string
	// The shared fixtures, plus sema's own test inputs (which keep the cases
	// that are not portable to every target).
	for _, pat := range []string{"../../fixtures/*.hlsl", "../../fixtures/lang/*.hlsl", "../../fixtures/wave/*.hlsl", "../sema/testdata/*.hlsl"} {
		m, _ := filepath.Glob(pat)
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Skip("no fixtures")
	}
	sort.Strings(files)
	d := device(t)
	tintd := tint(t)
	entries, valid, tinted := 0, 0, 0
	seenKeys := map[string]bool{}
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		log := &diag.Log{}
		f, _ := syntax.Parse(path, src, syntax.Options{}, log)
		var m *ir.Module
		if !log.HasErrors() {
			m = sema.Check(f, fixtureOptions(t, string(src)), log)
		}
		if m == nil || log.HasErrors() {
			t.Errorf("%s: front end errors: %v", path, log.Msgs)
			continue
		}
		Valid(t, m)
		base := strings.TrimSuffix(filepath.Base(path), ".hlsl")
		for _, ep := range m.EntryPoints {
			entries++
			key := base + "." + ep.Name
			seenKeys[key] = true
			want, expectErr := fixtureErrors[key]
			naga, err := EmitEntry(m, ep, Options{Dialect: Naga})
			std, errStd := EmitEntry(m, ep, Options{Dialect: Standard})
			if expectErr {
				for i, got := range []error{err, errStd} {
					if (want[i] == "" && got != nil) || (want[i] != "" && !hasCode(got, want[i])) {
						t.Errorf("%s (%s): want %q, got %v", key, [2]string{"naga", "standard"}[i], want[i], got)
					}
				}
				if want[0] != "" {
					continue
				}
			} else if err != nil || errStd != nil {
				t.Errorf("%s: %v / %v", key, err, errStd)
				continue
			}
			if err := d.Validate(naga.Source, stageName(ep.Stage), ep.Name); err != nil {
				t.Errorf("%s: wgpu-native rejects the output: %v\n%s", key, err, numbered(naga.Source))
				continue
			}
			valid++
			if tintd != nil && errStd == nil {
				if err := tintd.Validate(std.Source); err != nil {
					t.Errorf("%s: Tint rejects the standard dialect: %v\n%s", key, err, numbered(std.Source))
				} else {
					tinted++
				}
			}
			if base == "Waves" {
				checkGolden(t, "fixture_"+key+"_naga", naga.Source)
				checkGolden(t, "fixture_"+key+"_standard", std.Source)
			}
		}
	}
	for key := range fixtureErrors {
		if !seenKeys[key] {
			t.Errorf("fixtureErrors names %s, which no fixture defines any more", key)
		}
	}
	t.Logf("%d fixture files, %d entry points, %d validated by wgpu-native, %d by Tint (standard dialect), %d expected errors", len(files), entries, valid, tinted, len(fixtureErrors))
}

// compileHLSL runs the real front end on a source string.
func compileHLSL(t *testing.T, src string) *ir.Module {
	t.Helper()
	log := &diag.Log{}
	f, _ := syntax.Parse("inline.hlsl", []byte(src), syntax.Options{}, log)
	var m *ir.Module
	if !log.HasErrors() {
		m = sema.Check(f, sema.Options{}, log)
	}
	if m == nil || log.HasErrors() {
		t.Fatalf("front end: %v", log.Msgs)
	}
	return m
}

// TestEarlyReturnFromHLSL: HLSL's early-return-then-barrier pattern, through
// the front end, emitted, validated and run; the barrier loop must see every
// invocation and the returned ones must write nothing.
func TestEarlyReturnFromHLSL(t *testing.T) {
	m := compileHLSL(t, `
RWStructuredBuffer<uint> Out : register(u0);
groupshared uint g[64];

[shader("compute")]
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID, uint gi : SV_GroupIndex)
{
    if (gi >= 40)
        return;
    g[gi] = gi * 3;
    GroupMemoryBarrierWithGroupSync();
    for (uint s = 1; s < 4; s++) {
        if (Out[gi] == 12345)
            return;
        g[gi] += s;
        GroupMemoryBarrierWithGroupSync();
    }
    Out[gi] = g[gi ^ 1];
}
`)
	out, err := EmitEntry(m, m.EntryPoints[0], Options{Dialect: Naga})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.Source, "wr_active") {
		t.Fatalf("no restructuring:\n%s", out.Source)
	}
	checkGolden(t, "hlsl_early_return", out.Source)
	res := run(t, m, 1, []webgpu.Binding{{Binding: 0, Data: fill(64, 7), ReadBack: true}})
	got := u32s(res[0])
	for gi := uint32(0); gi < 64; gi++ {
		want := uint32(7)
		if gi < 40 {
			want = 3*(gi^1) + 6
		}
		if got[gi] != want {
			t.Errorf("Out[%d] = %d, want %d", gi, got[gi], want)
		}
	}
}
