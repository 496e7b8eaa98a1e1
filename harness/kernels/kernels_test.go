package kernels

import (
	"crypto/sha256"
	"fmt"
	"math"
	"regexp"
	"strings"
	"testing"

	"waverig/compiler/intrinsics"
	"waverig/harness/models"
	"waverig/harness/results"
)

func digest(ks []Kernel) string {
	h := sha256.New()
	for _, k := range ks {
		fmt.Fprintf(h, "%s|%s|%v|%v|", k.Name, k.HLSL, k.Groups, k.Needs)
		for _, c := range k.Cases {
			fmt.Fprintf(h, "%s;", c.ID())
		}
		for _, b := range k.Buffers {
			h.Write([]byte(b.Register))
			h.Write(b.Data)
		}
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

var fullMatrix = Matrix(Filter{})

func TestMatrixDeterministicAndComplete(t *testing.T) {
	again := Matrix(Filter{})
	if digest(fullMatrix) != digest(again) {
		t.Fatal("Matrix differs between two calls")
	}
	// About 90 kernels per shape: the reduced shapes (ExtraShapes) cut cases, not
	// kernels, since a kernel is one (operation, family, shape).
	if n := len(fullMatrix); n > 100*len(Shapes) || n < 100 {
		t.Errorf("%d kernels; the lavapipe budget wants at most ~%d", n, 100*len(Shapes))
	}
	perOp := map[intrinsics.Op]int{}
	patterns := map[Pattern]bool{}
	shapes := map[string]bool{}
	scalars := map[string]bool{}
	ids := map[string]bool{}
	names := map[string]bool{}
	for _, k := range fullMatrix {
		if names[k.Name] {
			t.Errorf("kernel name %s twice", k.Name)
		}
		names[k.Name] = true
		for _, c := range k.Cases {
			if c.Name == "" { // not a case of a named program ([WaveSize] kernels, .khr variants)
				perOp[c.Op]++
			}
			patterns[c.Pattern] = true
			shapes[c.Shape.Name] = true
			scalars[c.Type.Scalar] = true
			if ids[c.ID()] {
				t.Errorf("case %s twice", c.ID())
			}
			ids[c.ID()] = true
		}
	}
	for _, op := range intrinsics.Wave24 {
		if perOp[op] == 0 {
			t.Errorf("%s has no cases", op)
		}
	}
	for _, p := range Patterns {
		if !patterns[p] {
			t.Errorf("pattern %s missing", p)
		}
	}
	for _, s := range Shapes {
		if !shapes[s.Name] {
			t.Errorf("shape %s missing", s.Name)
		}
	}
	for _, s := range []string{"int", "uint", "float", "bool", "half", "double", "int64_t", "uint64_t"} {
		if !scalars[s] {
			t.Errorf("type %s missing", s)
		}
	}
	// Every op runs each of its types under every pattern (3 random seeds) and full
	// shape; on a reduced shape the scalars, width 4 of each family's first scalar
	// the op takes, one random seed.
	sum, bitAnd, ballot := 0, 0, 0
	for _, sh := range Shapes {
		ballot += patternCases(sh)
		if !sh.Reduced {
			sum += 7 * 4 * patternCases(sh)
			bitAnd += 2 * 4 * patternCases(sh)
			continue
		}
		for _, fam := range families {
			sum += shapeTypes(sh, opTypes(intrinsics.WaveActiveSum, fam), fam.scalars) * patternCases(sh)
			bitAnd += shapeTypes(sh, opTypes(intrinsics.WaveActiveBitAnd, fam), fam.scalars) * patternCases(sh)
		}
	}
	if got, want := perOp[intrinsics.WaveActiveSum], sum; got != want {
		t.Errorf("WaveActiveSum: %d cases, want %d (7 types x 4 widths)", got, want)
	}
	if got, want := perOp[intrinsics.WaveActiveBitAnd], bitAnd; got != want {
		t.Errorf("WaveActiveBitAnd: %d cases, want %d (uint, uint64_t)", got, want)
	}
	if got, want := perOp[intrinsics.WaveActiveBallot], ballot; got != want {
		t.Errorf("WaveActiveBallot: %d cases, want %d", got, want)
	}
	t.Logf("%d kernels, %d cases", len(fullMatrix), len(ids))
}

func TestKernelFeaturesAndIDs(t *testing.T) {
	for _, k := range fullMatrix {
		if isSum(k) {
			continue // the seed's CSSum writes no records: TestSeedSum
		}
		var want Features
		for _, c := range k.Cases {
			want.Float16 = want.Float16 || c.Type.Scalar == "half"
			want.Float64 = want.Float64 || c.Type.Scalar == "double"
			want.Int64 = want.Int64 || strings.Contains(c.Type.Scalar, "64")
		}
		want.QuadControl = contains(k.Extensions, "SPV_KHR_quad_control") // the native quad votes
		if k.Needs != want {
			t.Errorf("%s needs %+v, its types need %+v", k.Name, k.Needs, want)
		}
		if k.Entry != "main" || !strings.Contains(k.HLSL, "[numthreads(") || len(k.Buffers) != 1 || k.Buffers[0].Register != "u0" {
			t.Errorf("%s: malformed kernel", k.Name)
		}
		// A record per invocation of every workgroup of the (possibly 3-D) grid.
		groups := int(k.Groups[0] * k.Groups[1] * k.Groups[2])
		if len(k.Buffers[0].Data) != groups*k.Cases[0].Shape.Threads()*recWords*4 {
			t.Errorf("%s: buffer %d bytes for %v groups", k.Name, len(k.Buffers[0].Data), k.Groups)
		}
	}
	c := Case{Op: intrinsics.WaveActiveSum, Type: Type{"float", 3}, Pattern: Even, Shape: Shapes[1]}
	if c.ID() != "WaveActiveSum/float3/even/partial" {
		t.Errorf("ID = %s", c.ID())
	}
	c.Pattern, c.Seed = Random, 2
	if c.ID() != "WaveActiveSum/float3/random#2/partial" {
		t.Errorf("ID = %s", c.ID())
	}
}

func TestFilter(t *testing.T) {
	ks := Matrix(Filter{Ops: regexp.MustCompile(`^WavePrefixSum$`), Types: []string{"int2", "half*"}, Patterns: []Pattern{Odd}, Shapes: []string{"2d"}})
	var ids []string
	for _, k := range ks {
		for _, c := range k.Cases {
			ids = append(ids, c.ID())
		}
	}
	want := []string{"WavePrefixSum/int2/odd/2d", "WavePrefixSum/half/odd/2d", "WavePrefixSum/half2/odd/2d",
		"WavePrefixSum/half3/odd/2d", "WavePrefixSum/half4/odd/2d"}
	if strings.Join(ids, ",") != strings.Join(want, ",") {
		t.Errorf("filtered cases %v, want %v", ids, want)
	}
	if len(ks) != 2 || ks[0].Needs.Float16 || !ks[1].Needs.Float16 {
		t.Errorf("filtered kernels: %d, needs %+v", len(ks), ks)
	}
}

// TestGeneratedInputsAreExactAndTransportable proves the float inputs keep results
// order independent (no -0, product exponents bounded) and that every input survives
// the record encoding bit-exactly (doubles included).
func TestGeneratedInputsAreExactAndTransportable(t *testing.T) {
	for _, k := range fullMatrix {
		if isSum(k) {
			continue // the seed's CSSum: its inputs are TestSeedSum's
		}
		init, _, err := kernelWords(k, map[string][]byte{"u0": k.Buffers[0].Data})
		if err != nil {
			t.Fatal(err)
		}
		// A replica is one block of records: its workgroups' invocations.
		threads := k.Cases[0].Shape.Threads() * k.Cases[0].Shape.GroupCount()
		for g := 0; g < len(init)/(threads*recWords); g++ {
			_, mode, _, ci := unctl(init[g*threads*recWords+wCtl])
			c := k.Cases[ci]
			mt, _ := c.Type.Model()
			want, _ := groupInputs(c, mt, mode, threads)
			for i := 0; i < threads; i++ {
				got := readComps(init[(g*threads+i)*recWords:][:recWords], wIn, mt.Scalar, mt.N)
				for comp := range got {
					if got[comp] != want[i][comp] {
						t.Fatalf("%s: input %x did not survive the record (%x)", c.ID(), want[i][comp], got[comp])
					}
					// Sums and products only: Min/Max, reads and AllEqual get ±0 and
					// other special values on purpose (inputs.go).
					if mt.Scalar.IsFloat() && arithmetic(c.Op) && isNegZero(mt.Scalar, got[comp]) {
						t.Fatalf("%s: -0 input", c.ID())
					}
					if (c.Op == intrinsics.WaveActiveProduct || c.Op == intrinsics.WavePrefixProduct) && mt.Scalar.IsFloat() {
						f := models.ToFloat64(mt.Scalar, got[comp])
						switch {
						case mt.Scalar == models.Float64:
							if f != 1 && f != -1 && f != 2 && f != -2 && f != 0.5 && f != -0.5 {
								t.Fatalf("%s: product input %g", c.ID(), f)
							}
						case math.Abs(math.Abs(f)-1) > 8.0/1024:
							// Half and float: 1 ± k·2^-10 / 2^-12, k ≤ 8, no overflow over 128 lanes.
							t.Fatalf("%s: product input %g", c.ID(), f)
						}
					}
				}
			}
		}
	}
}

// simulateAndCheck runs every kernel on the simulated device and checks it.
func simulateAndCheck(t *testing.T, ks []Kernel, l SimLayout) {
	t.Helper()
	for _, k := range ks {
		out, err := Simulate(k, l)
		if err != nil {
			t.Fatalf("%s: %v", k.Name, err)
		}
		for _, r := range Check(k, out, l.WaveSize) {
			if !r.Passed {
				t.Errorf("size %d seed %d: %s failed: %s %+v", l.WaveSize, l.Seed, r.Case.ID(), r.Note, first(r.Failures))
				return
			}
		}
	}
}

func first(f []results.LaneFailure) any {
	if len(f) == 0 {
		return nil
	}
	return f[0]
}

func TestCheckPassesOnSimulatedDevice(t *testing.T) {
	// Whole matrix, shuffled layout at size 8 (lavapipe's default).
	simulateAndCheck(t, fullMatrix, SimLayout{WaveSize: 8, Seed: 11})
	// One kernel per op on the base family at every other legal size, linear and shuffled.
	sample := Matrix(Filter{Types: []string{"int", "uint4", "float2", "bool", "bool3"}, Shapes: []string{"partial", "2d"}})
	for _, size := range []uint32{1, 2, 4, 16, 32, 64, 128} {
		for _, seed := range []uint64{0, 5} {
			simulateAndCheck(t, sample, SimLayout{WaveSize: size, Seed: seed})
		}
	}
}

func TestCheckComparesLanes(t *testing.T) {
	ks := Matrix(Filter{Ops: regexp.MustCompile(`^WaveActiveSum$`), Types: []string{"int"}, Shapes: []string{"whole"}})
	out, _ := Simulate(ks[0], SimLayout{WaveSize: 8, Seed: 3})
	total := 0
	for _, r := range Check(ks[0], out, 8) {
		total += r.Lanes
		if r.Case.Pattern == All && r.Lanes != 64 {
			t.Errorf("%s compared %d lanes, want 64", r.Case.ID(), r.Lanes)
		}
		if r.Case.Pattern == Even && r.Lanes != 32 {
			t.Errorf("%s compared %d lanes, want 32", r.Case.ID(), r.Lanes)
		}
	}
	if total == 0 {
		t.Fatal("nothing compared")
	}
}

// recordOf finds the first record of a case (by pattern) that ran the op.
func recordOf(t *testing.T, k Kernel, out []uint32, p Pattern) int {
	t.Helper()
	for i := 0; i < len(out)/recWords; i++ {
		pat, _, _, ci := unctl(out[i*recWords+wCtl])
		if Patterns[pat] == p && k.Cases[ci].Pattern == p && out[i*recWords+wBranch] == 1 {
			return i
		}
	}
	t.Fatalf("no active record for %s", p)
	return 0
}

func TestCheckCatchesOneWrongLane(t *testing.T) {
	// A sum: a Max component with a NaN or an infinity among its lanes accepts
	// any value (Vulkan's default float mode), so a flipped bit there is no bug.
	ks := Matrix(Filter{Ops: regexp.MustCompile(`^WaveActiveSum$`), Types: []string{"float2"}, Shapes: []string{"partial"}})
	k := ks[0]
	out, _ := Simulate(k, SimLayout{WaveSize: 16, Seed: 9})
	w, _ := words(out["u0"])
	i := recordOf(t, k, w, Odd)
	w[i*recWords+wOut+1] ^= 0x00400000 // perturb component y of one lane
	out["u0"] = bytesOf(w)
	failed := 0
	for _, r := range Check(k, out, 16) {
		if r.Passed {
			continue
		}
		failed++
		if r.Case.Pattern != Odd || len(r.Failures) != 1 {
			t.Fatalf("%s: %d failures: %+v", r.Case.ID(), len(r.Failures), r.Failures)
		}
		f := r.Failures[0]
		if f.Lane != w[i*recWords+wLane] || f.WaveKey != w[i*recWords+wKey] || f.Expected == f.Actual {
			t.Errorf("failure %+v does not name record %d (lane %d key %d)", f, i, w[i*recWords+wLane], w[i*recWords+wKey])
		}
		if !strings.HasPrefix(f.ActiveMask, "0x") || !strings.HasPrefix(f.Input, "x=(") {
			t.Errorf("failure fields: %+v", f)
		}
	}
	if failed != 1 {
		t.Errorf("%d cases failed, want 1", failed)
	}
	for _, r := range Check(k, out, 16) {
		if !r.Passed && !strings.Contains(r.String(), "FAIL WaveActiveSum/float2/odd/partial") {
			t.Errorf("report: %s", r)
		}
	}
}

func TestCheckCatchesInclusivePrefix(t *testing.T) {
	ks := Matrix(Filter{Ops: regexp.MustCompile(`^WavePrefixSum$`), Types: []string{"uint"}, Shapes: []string{"whole"}})
	k := ks[0]
	out, _ := Simulate(k, SimLayout{WaveSize: 32, Seed: 4})
	w, _ := words(out["u0"])
	// Turn every active lane's exclusive result into the inclusive one (glslang's bug).
	for i := 0; i < len(w)/recWords; i++ {
		r := w[i*recWords:][:recWords]
		if r[wBranch] != 0 {
			r[wOut] += r[wIn]
		}
	}
	out["u0"] = bytesOf(w)
	for _, r := range Check(k, out, 32) {
		if r.Passed {
			t.Errorf("%s passed an inclusive scan", r.Case.ID())
			continue
		}
		f := r.Failures[0]
		var x, exp, act uint64
		fmt.Sscanf(f.Input, "x=%d", &x)
		fmt.Sscanf(f.Expected, "%d", &exp)
		fmt.Sscanf(f.Actual, "%d", &act)
		if uint32(exp+x) != uint32(act) {
			t.Errorf("%s: failure %+v is not expected+input", r.Case.ID(), f)
		}
	}
}

func TestCheckCatchesControlFlowAndLayoutErrors(t *testing.T) {
	ks := Matrix(Filter{Ops: regexp.MustCompile(`^WaveActiveCountBits$`), Shapes: []string{"2d"}})
	k := ks[0]
	out, _ := Simulate(k, SimLayout{WaveSize: 8, Seed: 2})
	w, _ := words(out["u0"])
	i := recordOf(t, k, w, FirstHalf)
	w[i*recWords+wBranch] = 0 // the lane claims it skipped the op
	j := recordOf(t, k, w, Last)
	w[j*recWords+wKey]++ // a wave key that is not the lowest lane's flat id
	out["u0"] = bytesOf(w)
	var sawFlow, sawLayout bool
	for _, r := range Check(k, out, 8) {
		if r.Passed {
			continue
		}
		for _, f := range r.Failures {
			sawFlow = sawFlow || strings.Contains(f.Input, "control flow")
		}
		sawLayout = sawLayout || strings.Contains(r.Note, "layout:")
	}
	if !sawFlow || !sawLayout {
		t.Errorf("control flow caught %v, layout caught %v", sawFlow, sawLayout)
	}
	// The wrong wave size fails every case with a layout note.
	out, _ = Simulate(k, SimLayout{WaveSize: 8})
	for _, r := range Check(k, out, 16) {
		if r.Passed || !strings.Contains(r.Note, "expected wave size 16") {
			t.Fatalf("%s with wrong wave size: %v %s", r.Case.ID(), r.Passed, r.Note)
		}
	}
	// A missing buffer fails everything, without a panic.
	for _, r := range Check(k, map[string][]byte{}, 8) {
		if r.Passed || r.Note == "" {
			t.Fatal("missing buffer passed")
		}
	}
	for _, r := range Check(k, map[string][]byte{"u0": {1, 2, 3}}, 8) {
		if r.Passed {
			t.Fatal("short buffer passed")
		}
	}
}

func TestCheckUndefinedQuadPartnersAreNotCompared(t *testing.T) {
	ks := Matrix(Filter{Ops: regexp.MustCompile(`^QuadReadAcrossX$`), Types: []string{"uint"}, Patterns: []Pattern{Even}, Shapes: []string{"whole"}})
	out, _ := Simulate(ks[0], SimLayout{WaveSize: 4, Seed: 1})
	r := Check(ks[0], out, 4)[0]
	// Per lane (the first replica), even lanes' X partners are odd lanes, all
	// inactive: 32 lanes are undefined and not compared; the per-quad replica
	// (coverage.go) runs whole quads, so the case still compares lanes.
	if !r.Passed || r.Lanes != 64 || !strings.Contains(r.Note, "32 undefined") {
		t.Errorf("%+v", r)
	}
}

func TestLayoutKernel(t *testing.T) {
	k := Layout()
	for _, size := range []uint32{4, 8, 16, 32, 64} {
		for _, seed := range []uint64{0, 7} {
			rep := CheckLayout(k, simulateLayout(SimLayout{WaveSize: size, Seed: seed}))
			if !rep.OK || rep.WaveSize != size || rep.Lanes != 62*layoutG {
				t.Errorf("size %d seed %d: %s", size, seed, rep)
			}
			if seed == 0 && (!rep.Consecutive || rep.LinearQuads != rep.FullQuads) {
				t.Errorf("linear layout not observed as linear: %s", rep)
			}
			if seed != 0 && rep.Consecutive {
				t.Errorf("shuffled layout observed as consecutive: %s", rep)
			}
			if size > 2 && rep.PartialWaves != layoutG {
				t.Errorf("size %d: %d partial waves, want %d", size, rep.PartialWaves, layoutG)
			}
		}
	}
	out := simulateLayout(SimLayout{WaveSize: 8})
	w, _ := words(out["u0"])
	w[5*lWords+lLane] = w[6*lWords+lLane] // duplicate lane index
	w[40*lWords+lCount] = 16              // inconsistent count
	w[70*lWords+lDtidY] = 3               // wrong system value
	rep := CheckLayout(k, map[string][]byte{"u0": bytesOf(w)})
	if rep.OK || len(rep.Problems) < 3 {
		t.Errorf("corrupt layout passed: %s", rep)
	}
	if rep := CheckLayout(k, map[string][]byte{"u0": k.Buffers[0].Data}); rep.OK {
		t.Error("an unwritten buffer passed the layout check")
	}
}

// TestNestedArms: the nested pattern runs scalar types in two arms (two call sites,
// two disjoint lane sets) and vectors in one; the checker models each arm on its own.
func TestNestedArms(t *testing.T) {
	ks := Matrix(Filter{Ops: regexp.MustCompile(`^WaveActiveSum$`), Types: []string{"int", "int2"}, Patterns: []Pattern{Nested}, Shapes: []string{"whole"}})
	if n := strings.Count(ks[0].HLSL, "WaveActiveSum(x)"); n != 3 {
		t.Errorf("%d WaveActiveSum call sites, want 2 for int and 1 for int2", n)
	}
	out, _ := Simulate(ks[0], SimLayout{WaveSize: 8, Seed: 6})
	res := Check(ks[0], out, 8)
	// Each 8-lane wave: lanes 0,1,4 in arm 1, lanes 3,6,7 in arm 2 (lane%3 != 2, bit 1).
	if !res[0].Passed || res[0].Lanes != 48 || !strings.Contains(res[0].Note, "8 waves, 16 arms") {
		t.Errorf("int: %s", res[0])
	}
	if !res[1].Passed || res[1].Lanes != 24 || !strings.Contains(res[1].Note, "8 waves, 8 arms") {
		t.Errorf("int2: %s", res[1])
	}
	// Merging the arms (arm-2 lanes reporting the sum over both arms) is caught.
	w, _ := words(out["u0"])
	for i := 0; i < len(w)/recWords; i++ {
		if r := w[i*recWords:][:recWords]; r[wBranch] == 2 {
			r[wBranch] = 1
		}
	}
	out["u0"] = bytesOf(w)
	if res := Check(ks[0], out, 8); res[0].Passed {
		t.Error("arms merged into one passed")
	}
}

// TestEveryKernelBuilds: Matrix skips a kernel whose build fails (it must not panic);
// this proves none does, by counting the (op, family, shape) cells with types.
func TestEveryKernelBuilds(t *testing.T) {
	want := 0
	for _, op := range intrinsics.Wave24 {
		for _, fam := range families {
			if len(opTypes(op, fam)) == 0 {
				continue
			}
			for _, sh := range Shapes {
				if sh.Threads() >= minThreads(op) {
					want++
				}
			}
		}
	}
	// The operations past Shader Model 6.0 count their own cells in their tests.
	want += len(partitionMatrix(Filter{})) + len(quadVoteMatrix(Filter{})) + len(waveSizeMatrix(Filter{})) + len(seedComputeKernels(Filter{}))
	if len(fullMatrix) != want {
		t.Fatalf("%d kernels built, %d cells", len(fullMatrix), want)
	}
	bits := map[string]uint32{}
	for _, k := range fullMatrix {
		bits[k.Cases[0].Op.String()] = k.SubgroupBits()
	}
	if bits["QuadReadAcrossX"] != intrinsics.VkBasic|intrinsics.VkBallot|intrinsics.VkQuad ||
		bits["WaveActiveSum"] != intrinsics.VkBasic|intrinsics.VkBallot|intrinsics.VkArithmetic ||
		bits["WaveReadLaneAt"] != intrinsics.VkBasic|intrinsics.VkBallot|intrinsics.VkShuffle {
		t.Errorf("subgroup bits: %v", bits)
	}
	if _, err := Simulate(Kernel{Name: "nobuf", Cases: fullMatrix[0].Cases}, SimLayout{WaveSize: 8}); err == nil {
		t.Error("Simulate accepted a kernel without buffers")
	}
	if _, err := Simulate(fullMatrix[0], SimLayout{WaveSize: 6}); err == nil {
		t.Error("Simulate accepted wave size 6")
	}
	if _, err := build("empty", nil); err == nil {
		t.Error("build accepted no cases")
	}
	bad := []Case{{Op: intrinsics.WaveActiveBitAnd, Type: Type{"float", 1}, Pattern: All, Shape: Shapes[0]}}
	if _, err := build("bad", bad); err == nil {
		t.Error("build accepted WaveActiveBitAnd on float")
	}
}

// TestCheckSurvivesGarbage: random buffers (a crashed or wild kernel) fail every case
// with notes and never panic.
func TestCheckSurvivesGarbage(t *testing.T) {
	r := &rng{s: 99}
	for _, k := range []Kernel{fullMatrix[0], fullMatrix[len(fullMatrix)/2], fullMatrix[len(fullMatrix)-1]} {
		w, _ := words(k.Buffers[0].Data)
		for i := range w {
			if r.chance(1, 3) {
				w[i] = uint32(r.next())
			}
		}
		for _, res := range Check(k, map[string][]byte{"u0": bytesOf(w)}, 8) {
			if res.Passed {
				t.Fatalf("%s passed on garbage", res.Case.ID())
			}
		}
	}
	rep := CheckLayout(Layout(), map[string][]byte{"u0": bytesOf([]uint32{1, 2, 3})})
	if rep.OK {
		t.Error("short layout buffer passed")
	}
}

// arithmetic reports the sum and product operations, whose float inputs keep
// results order independent (no -0).
func arithmetic(op intrinsics.Op) bool {
	switch op {
	case intrinsics.WaveActiveSum, intrinsics.WavePrefixSum, intrinsics.WaveActiveProduct, intrinsics.WavePrefixProduct,
		intrinsics.WaveMultiPrefixSum, intrinsics.WaveMultiPrefixProduct:
		return true
	}
	return false
}
