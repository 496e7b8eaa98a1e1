package msl

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"waverig/compiler/intrinsics"
	"waverig/compiler/ir"
	"waverig/compiler/spirv"
)

// The second opinion: for every wave/quad case, our SPIR-V back end's module goes
// through SPIRV-Cross (`spirv-cross --msl --msl-version 20400`), and both MSL
// texts must use the same family of simd_/quad_ functions. Where the two
// translators legitimately differ, the difference is listed below with its reason,
// and TestSpirvCrossAllowListIsLive checks that each listed difference still
// occurs, so the list cannot go stale.

// simdFamily matches the Metal simd-group / quad-group function names in a text,
// and the simd-group builtin attributes (WaveGetLaneCount/Index read those).
var simdFamily = regexp.MustCompile(`\b(simd_[a-z_]+|quad_[a-z_]+)\s*\(|\[\[(threads_per_simdgroup|thread_execution_width|thread_index_in_simdgroup)\]\]`)

// families returns the sorted set of simd_/quad_ functions a text calls
// (helper bodies included: SPIRV-Cross wraps some calls in spv* helpers, we in wr_*).
func families(src string) []string {
	set := map[string]bool{}
	for _, m := range simdFamily.FindAllStringSubmatch(src, -1) {
		f := m[1] + m[2]
		if f == "thread_execution_width" {
			// SPIRV-Cross's older spelling of the simd-group width in kernels.
			f = "threads_per_simdgroup"
		}
		set[f] = true
	}
	var out []string
	for f := range set {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

// knownDifference is an accepted representation difference for one case.
type knownDifference struct {
	oursOnly, theirsOnly []string
	reason               string
}

// allowList: intrinsic (HLSL name) -> the families only one side uses, and why.
// Every case of a listed intrinsic must show exactly this difference.
var allowList = map[string]knownDifference{
	"QuadAny": {[]string{"quad_any"}, []string{"quad_shuffle_xor"},
		"Metal has quad_any; SPIRV-Cross lowers the portable SPIR-V form (the predicate or-ed with its three QuadSwaps) as quad_shuffle_xor"},
	"QuadAll": {[]string{"quad_all"}, []string{"quad_shuffle_xor"},
		"Metal has quad_all; SPIRV-Cross lowers the portable SPIR-V form (the predicate and-ed with its three QuadSwaps) as quad_shuffle_xor"},
	"WaveActiveAllEqual": {nil, []string{"simd_any"},
		"SPIRV-Cross's spvSubgroupAllEqual helper always prints a bool specialization, simd_all(v) || !simd_any(v), " +
			"even when only the numeric template is called; both sides compare with simd_all(x == simd_broadcast_first(x)) " +
			"(we move bools through ushort instead, as Metal's broadcast takes no bool)"},
	"WavePrefixCountBits": {[]string{"simd_prefix_exclusive_sum"}, []string{"simd_ballot", "thread_index_in_simdgroup"},
		"the intrinsic table's MSL lowering is simd_prefix_exclusive_sum(uint(b)) (one simd-group call, exact for any " +
			"simd-group size); SPIRV-Cross lowers SPIR-V's Ballot + BallotBitCount(ExclusiveScan) literally as a popcount " +
			"of simd_ballot masked to the lanes below [[thread_index_in_simdgroup]]. Both count the lower lanes whose predicate is true"},
	"WaveActiveBallot": {[]string{"threads_per_simdgroup"}, nil,
		"we clear the ballot bits at and above the simd-group size ([[threads_per_simdgroup]]), as the intrinsic table " +
			"asks; SPIRV-Cross's spvSubgroupBallot returns the raw 64-bit vote. Both build the uint4 from simd_ballot"},
}

// crossMSL translates one case's entry point through our SPIR-V back end and SPIRV-Cross.
func crossMSL(t *testing.T, tool string, c *rowCase) (string, error) {
	t.Helper()
	mod, err := spirv.EmitEntry(c.b.M, c.b.EP, spirv.Options{Vulkan: "1.1"})
	if err != nil && c.call.Op == intrinsics.QuadReadLaneAt {
		// SPIR-V 1.3 needs a constant QuadBroadcast lane; the case uses a computed
		// one, which SPIR-V 1.5 (Vulkan 1.2) allows.
		mod, err = spirv.EmitEntry(c.b.M, c.b.EP, spirv.Options{Vulkan: "1.2"})
	}
	if err != nil {
		return "", err
	}
	dir := t.TempDir()
	path := filepath.Join(dir, c.name+".spv")
	if err := os.WriteFile(path, mod.Bytes(), 0o644); err != nil {
		return "", err
	}
	out, err := exec.Command(tool, "--msl", "--msl-version", "20400", path).CombinedOutput()
	if err != nil {
		return "", &crossError{string(out)}
	}
	return string(out), nil
}

type crossError struct{ out string }

func (e *crossError) Error() string { return "spirv-cross: " + e.out }

// waveCases are the table cases of the 24 SM 6.0 wave/quad intrinsics and the SM 6.7 quad votes.
func waveCases() []*rowCase {
	wave := map[intrinsics.Op]bool{}
	for _, op := range append(append([]intrinsics.Op(nil), intrinsics.Wave24...), intrinsics.QuadVotes...) {
		wave[op] = true
	}
	var cs []*rowCase
	for _, c := range allRowCases() {
		if wave[c.call.Op] {
			cs = append(cs, c)
		}
	}
	return cs
}

func join(s []string) string { return strings.Join(s, ",") }

func diffSets(a, b []string) (onlyA, onlyB []string) {
	in := func(s []string, x string) bool {
		for _, y := range s {
			if x == y {
				return true
			}
		}
		return false
	}
	for _, x := range a {
		if !in(b, x) {
			onlyA = append(onlyA, x)
		}
	}
	for _, x := range b {
		if !in(a, x) {
			onlyB = append(onlyB, x)
		}
	}
	return
}

type crossResult struct {
	name, op             string
	ours, theirs         []string
	oursOnly, theirsOnly []string
	err                  error
}

func runCross(t *testing.T) []crossResult {
	tool := requireTool(t, "spirv-cross")
	var rs []crossResult
	for _, c := range waveCases() {
		out, err := EmitEntry(c.b.M, c.b.EP, Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		theirs, err := crossMSL(t, tool, c)
		if *dumpCross && err == nil {
			t.Logf("%s SPIRV-Cross:\n%s", c.name, theirs)
		}
		r := crossResult{name: c.name, op: c.call.Op.String(), ours: families(out.Source), err: err}
		if err == nil {
			r.theirs = families(theirs)
			r.oursOnly, r.theirsOnly = diffSets(r.ours, r.theirs)
		}
		rs = append(rs, r)
	}
	return rs
}

func TestSpirvCrossSameFamilies(t *testing.T) {
	for _, r := range runCross(t) {
		if r.err != nil {
			t.Errorf("%s: %v", r.name, r.err)
			continue
		}
		if len(r.ours) == 0 {
			t.Errorf("%s: our MSL calls no simd_/quad_ function", r.name)
		}
		if len(r.oursOnly) == 0 && len(r.theirsOnly) == 0 {
			continue
		}
		k, ok := allowList[r.op]
		if !ok || strings.Join(k.oursOnly, ",") != strings.Join(r.oursOnly, ",") || strings.Join(k.theirsOnly, ",") != strings.Join(r.theirsOnly, ",") {
			t.Errorf("%s: families differ: ours %v, SPIRV-Cross %v (only ours %v, only theirs %v)", r.name, r.ours, r.theirs, r.oursOnly, r.theirsOnly)
		}
	}
}

// TestSpirvCrossAllowListIsLive fails when an allow-listed difference no longer occurs.
func TestSpirvCrossAllowListIsLive(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range runCross(t) {
		k, ok := allowList[r.op]
		if !ok || r.err != nil {
			continue
		}
		seen[r.op] = true
		if strings.Join(k.oursOnly, ",") != strings.Join(r.oursOnly, ",") || strings.Join(k.theirsOnly, ",") != strings.Join(r.theirsOnly, ",") {
			t.Errorf("%s: the allow-listed difference (only ours %v, only theirs %v) is gone or changed: now only ours %v, only theirs %v; update allowList",
				r.name, k.oursOnly, k.theirsOnly, r.oursOnly, r.theirsOnly)
		}
	}
	for name := range allowList {
		if !seen[name] {
			t.Errorf("allowList names %s, which has no wave case", name)
		}
	}
}

var _ = ir.U32

var dumpCross = flag.Bool("dumpcross", false, "log SPIRV-Cross's MSL for each wave case")
