package msl_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"waverig/compiler"
	"waverig/compiler/diag"
	"waverig/compiler/ir"
	"waverig/compiler/msl"
)

// The HLSL fixtures through the whole compiler (front end, sema, MSL back end):
// every entry point must translate, pass the clang syntax-and-name check, and
// use the same simd_/quad_ families as SPIRV-Cross does on our SPIR-V for the
// same entry (modulo msl's documented allow-list).

func fixtureFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, pat := range []string{"../../fixtures/*.hlsl", "../../fixtures/wave/*.hlsl", "../../fixtures/lang/*.hlsl"} {
		fs, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, fs...)
	}
	if len(files) == 0 {
		t.Skip("no fixtures found")
	}
	sort.Strings(files)
	return files
}

type fixtureOut struct {
	name      string // file:entry
	msl, spv  []byte
	intrinsic string // the wave intrinsic the generated fixture is named after, or ""
	meshStage bool   // an amplification or mesh entry point
}

func compileFixtures(t *testing.T) []fixtureOut {
	t.Helper()
	var outs []fixtureOut
	for _, f := range fixtureFiles(t) {
		res, err := compiler.CompileFile(f, compiler.Options{Targets: []compiler.Target{compiler.SPIRV, compiler.MSL}})
		if err != nil {
			// A fixture may need options (bindings, -entry) or use what Metal lacks
			// (doubles, 64-bit simd operands, partitioned ops): coded and logged.
			// The MSL back end failing on IR it should handle is a test failure.
			if strings.Contains(err.Error(), string(diag.ErrMSLUnsupported)) || strings.Contains(err.Error(), string(diag.ErrMSLMalformedInput)) {
				t.Errorf("%s: %v", f, err)
			} else {
				t.Logf("%s: not compiled for MSL: %v", f, err)
			}
			continue
		}
		base := strings.TrimSuffix(filepath.Base(f), ".hlsl")
		op := ""
		if p := strings.SplitN(base, "_", 2)[0]; strings.Contains(f, "/wave/") || p == "QuadAny" || p == "QuadAll" {
			op = p // fixtures/lang/QuadAny_khr.hlsl: the quad votes with SPV_KHR_quad_control
		}
		for _, ep := range res.Module.EntryPoints {
			m, s := res.Find(ep.Name, compiler.MSL), res.Find(ep.Name, compiler.SPIRV)
			if m == nil || s == nil {
				t.Errorf("%s: entry %s has no MSL or SPIR-V output", f, ep.Name)
				continue
			}
			outs = append(outs, fixtureOut{name: base + ":" + ep.Name, msl: m, spv: s, intrinsic: op,
				meshStage: ep.Stage == ir.Amplification || ep.Stage == ir.Mesh})
		}
	}
	return outs
}

func TestFixturesParseAsCxx(t *testing.T) {
	outs := compileFixtures(t)
	srcs := map[string]string{}
	for _, o := range outs {
		srcs[o.name] = string(o.msl)
	}
	if len(srcs) == 0 {
		t.Fatal("no fixture compiled to MSL")
	}
	msl.ClangCheck(t, srcs)
}

// TestMeshletCullGoldens pins the Metal 3 object and mesh functions of
// fixtures/MeshletCull.hlsl (testdata/fixture_MeshletCull_<entry>.metal; -update
// rewrites them); TestGoldensParseAsCxx runs them through clang.
func TestMeshletCullGoldens(t *testing.T) {
	res, err := compiler.CompileFile("../../fixtures/MeshletCull.hlsl", compiler.Options{Targets: []compiler.Target{compiler.MSL}})
	if err != nil {
		t.Fatal(err)
	}
	stages := map[string]bool{}
	for _, ep := range res.Module.EntryPoints {
		src := res.Find(ep.Name, compiler.MSL)
		if src == nil {
			t.Fatalf("entry %s has no MSL output", ep.Name)
		}
		msl.CheckGolden(t, "fixture_MeshletCull_"+ep.Name, string(src))
		stages[ep.Stage.String()] = true
	}
	if len(res.Module.EntryPoints) != 3 || !stages["Amplification"] || !stages["Mesh"] {
		t.Errorf("MeshletCull.hlsl: want its amplification and two mesh entry points, got %d entries (%v)", len(res.Module.EntryPoints), stages)
	}
}

func TestFixturesAgreeWithSpirvCross(t *testing.T) {
	tool, err := exec.LookPath("spirv-cross")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("spirv-cross not found and CI is set")
		}
		t.Skip("spirv-cross not found")
	}
	compared := 0
	for _, o := range compileFixtures(t) {
		path := filepath.Join(t.TempDir(), "x.spv")
		if err := os.WriteFile(path, o.spv, 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(tool, "--msl", "--msl-version", "20400", path).CombinedOutput()
		if o.meshStage && (err != nil || strings.Contains(string(out), "\nunknown ")) {
			// SPIRV-Cross learnt task and mesh shaders after the packaged version
			// (it prints an "unknown" entry qualifier or throws "Subgroup builtins
			// are not available in this type of function"): nothing to compare with.
			t.Logf("%s: this spirv-cross cannot translate task/mesh shaders, not compared: %v %.120s", o.name, err, out)
			continue
		}
		if err != nil {
			t.Errorf("%s: spirv-cross: %v\n%s", o.name, err, out)
			continue
		}
		ours, theirs := msl.CrossFamilies(string(o.msl)), msl.CrossFamilies(string(out))
		oursOnly, theirsOnly := msl.DiffSets(ours, theirs)
		if len(oursOnly)+len(theirsOnly) > 0 && !msl.AllowedDifference(o.intrinsic, oursOnly, theirsOnly) {
			t.Errorf("%s: simd/quad families differ: ours %v, SPIRV-Cross %v", o.name, ours, theirs)
		}
		compared++
	}
	t.Logf("compared %d fixture entry points with SPIRV-Cross", compared)
}
