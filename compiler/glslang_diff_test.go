package compiler

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// knownGlslangDifferences lists, in one place, every way glslang's HLSL front end
// is allowed to lower a wave operation differently from us, with the reason. Each
// entry maps our instruction signature to glslang's. TestGlslangDifferential fails
// on any other difference, and also fails if an entry is never observed, so the
// list cannot go stale when glslang is fixed.
var knownGlslangDifferences = []struct {
	ours, glslang, reason string
}{
	{"GroupNonUniformIAdd ExclusiveScan", "GroupNonUniformIAdd InclusiveScan",
		"glslang lowers WavePrefixSum to an inclusive scan; HLSL defines it as exclusive (DXC emits ExclusiveScan)"},
	{"GroupNonUniformFAdd ExclusiveScan", "GroupNonUniformFAdd InclusiveScan",
		"glslang lowers WavePrefixSum (float) to an inclusive scan; HLSL defines it as exclusive"},
	{"GroupNonUniformIMul ExclusiveScan", "GroupNonUniformIMul InclusiveScan",
		"glslang lowers WavePrefixProduct to an inclusive scan; HLSL defines it as exclusive"},
	{"GroupNonUniformFMul ExclusiveScan", "GroupNonUniformFMul InclusiveScan",
		"glslang lowers WavePrefixProduct (float) to an inclusive scan; HLSL defines it as exclusive"},
}

var groupOpRE = regexp.MustCompile(`Op(GroupNonUniform\w+)\b(.*)`)

// waveSignatures extracts, from a disassembly, the set of GroupNonUniform
// instructions with their group operation ("GroupNonUniformIAdd Reduce").
func waveSignatures(dis string) map[string]bool {
	sigs := map[string]bool{}
	for _, line := range strings.Split(dis, "\n") {
		m := groupOpRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		sig := m[1]
		for _, g := range []string{"Reduce", "InclusiveScan", "ExclusiveScan", "ClusteredReduce", "PartitionedExclusiveScanNV"} {
			if strings.Contains(" "+m[2]+" ", " "+g+" ") {
				sig += " " + g
			}
		}
		sigs[sig] = true
	}
	return sigs
}

// TestGlslangDifferential compiles every positive fixture with our compiler and with
// glslangValidator and compares, per entry point, which GroupNonUniform instruction
// and group operation each wave/quad call became.
func TestGlslangDifferential(t *testing.T) {
	glslang := needTool(t, "glslangValidator")
	spirvDis := needTool(t, "spirv-dis")
	pos, _ := fixtureFiles(t)
	seen := make([]bool, len(knownGlslangDifferences))
	compared, rejected := 0, 0
	for _, rel := range pos {
		path := filepath.Join(fixturesDir, rel)
		src, _ := os.ReadFile(path)
		opts := fixtureOptions(t, path, src)
		res, err := CompileFile(path, opts)
		if err != nil {
			continue // TestPositiveFixtures reports it
		}
		for _, ep := range res.Reflection.EntryPoints {
			stage := map[string]string{"Compute": "comp", "Pixel": "frag", "Vertex": "vert"}[ep.Stage]
			dir := t.TempDir()
			theirs := filepath.Join(dir, "glslang.spv")
			args := []string{"-V", "-D", "--target-env", "vulkan1.1", "-S", stage, "-e", ep.Name, "-o", theirs}
			for k, v := range opts.Defines {
				args = append(args, "-D"+k+"="+v)
			}
			args = append(args, path)
			if out, err := exec.Command(glslang, args...).CombinedOutput(); err != nil {
				rejected++
				t.Logf("%s %s: glslang rejects it (not compared): %s", rel, ep.Name, firstLine(string(out)))
				continue
			}
			if declaresNewer(ep.Extensions) {
				// spirv-dis may predate the extension ([WaveOpsIncludeHelperLanes]'s
				// execution modes), and glslang ignores the attribute anyway.
				t.Logf("%s %s: declares %v, newer than spirv-dis (not compared)", rel, ep.Name, ep.Extensions)
				continue
			}
			ours := filepath.Join(dir, "ours.spv")
			os.WriteFile(ours, res.Find(ep.Name, SPIRV), 0o644)
			a, err1 := exec.Command(spirvDis, ours).Output()
			b, err2 := exec.Command(spirvDis, theirs).Output()
			if err1 != nil || err2 != nil {
				t.Fatalf("%s: spirv-dis failed: %v %v", rel, err1, err2)
			}
			compared++
			o, g := waveSignatures(string(a)), waveSignatures(string(b))
			for i, d := range knownGlslangDifferences {
				if o[d.ours] && g[d.glslang] && !g[d.ours] {
					seen[i] = true
					delete(o, d.ours)
					delete(g, d.glslang)
				}
			}
			if only := diffSets(o, g); only != "" {
				t.Errorf("%s %s: unexplained difference from glslang: %s", rel, ep.Name, only)
			}
		}
	}
	t.Logf("compared %d entry points with glslang; %d rejected by glslang", compared, rejected)
	if compared == 0 {
		t.Fatal("nothing compared")
	}
	for i, d := range knownGlslangDifferences {
		if !seen[i] {
			t.Errorf("known difference no longer observed (update the list): ours %q vs glslang %q (%s)", d.ours, d.glslang, d.reason)
		}
	}
}

func diffSets(a, b map[string]bool) string {
	var onlyA, onlyB []string
	for k := range a {
		if !b[k] {
			onlyA = append(onlyA, k)
		}
	}
	for k := range b {
		if !a[k] {
			onlyB = append(onlyB, k)
		}
	}
	if len(onlyA) == 0 && len(onlyB) == 0 {
		return ""
	}
	sort.Strings(onlyA)
	sort.Strings(onlyB)
	return "only ours: [" + strings.Join(onlyA, "; ") + "], only glslang: [" + strings.Join(onlyB, "; ") + "]"
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
