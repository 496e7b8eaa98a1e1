package kernels

import (
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"waverig/compiler"
	"waverig/compiler/intrinsics"
	"waverig/harness/models"
)

var partitionKernels = partitionMatrix(Filter{})

// TestPartitionMatrix: one kernel per (operation, family with types, shape), each
// compiled with the partitioned extension and needing its feature bit; every type
// runs under every pattern (three random seeds) and key scheme; IDs are unique and
// carry the scheme as a fifth component.
func TestPartitionMatrix(t *testing.T) {
	cells, cases := 0, 0
	for _, op := range PartitionOps {
		for _, fam := range families {
			if len(opTypes(op, fam)) > 0 {
				cells += len(Shapes)
				for _, sh := range Shapes {
					cases += shapeTypes(sh, opTypes(op, fam), fam.scalars) * patternCases(sh) * len(KeySchemes)
				}
			}
		}
	}
	if len(partitionKernels) != cells {
		t.Fatalf("%d partitioned kernels, %d cells", len(partitionKernels), cells)
	}
	ids := map[string]bool{}
	perOp := map[intrinsics.Op]int{}
	for _, k := range partitionKernels {
		if len(k.Extensions) != 1 || k.Extensions[0] != PartitionedExtension {
			t.Errorf("%s: extensions %v", k.Name, k.Extensions)
		}
		op := k.Cases[0].Op
		want := intrinsics.VkBasic | intrinsics.VkBallot | intrinsics.VkPartitionedNV
		if op != intrinsics.WaveMatch {
			want |= intrinsics.VkArithmetic
		}
		if k.SubgroupBits() != want {
			t.Errorf("%s: subgroup bits %#x, want %#x", k.Name, k.SubgroupBits(), want)
		}
		sh := k.Cases[0].Shape
		if k.Groups != sh.Grid(len(k.Cases)) || len(k.Buffers[0].Data) != len(k.Cases)*sh.Threads()*sh.GroupCount()*recWords*4 {
			t.Errorf("%s: %d groups, %d bytes for %d cases", k.Name, k.Groups[0], len(k.Buffers[0].Data), len(k.Cases))
		}
		for _, c := range k.Cases {
			perOp[c.Op]++
			if ids[c.ID()] {
				t.Errorf("case %s twice", c.ID())
			}
			ids[c.ID()] = true
			if !strings.HasSuffix(c.ID(), "/keys="+c.Keys) || strings.Count(c.ID(), "/") != 4 {
				t.Errorf("ID %s", c.ID())
			}
		}
	}
	if len(ids) != cases {
		t.Errorf("%d cases, want %d", len(ids), cases)
	}
	for _, op := range PartitionOps {
		if perOp[op] == 0 {
			t.Errorf("%s has no cases", op)
		}
	}
	// Bit operations take unsigned integers only; WaveMatch every type, bool included.
	bitAnd, match := 0, 0
	for _, sh := range Shapes {
		// Full shapes: 2 and 8 scalars at 4 widths; reduced ones: the scalars, and
		// width 4 of a family's first scalar where the op takes it.
		for _, fam := range families {
			bitAnd += shapeTypes(sh, opTypes(intrinsics.WaveMultiPrefixBitAnd, fam), fam.scalars) * patternCases(sh) * len(KeySchemes)
			match += shapeTypes(sh, opTypes(intrinsics.WaveMatch, fam), fam.scalars) * patternCases(sh) * len(KeySchemes)
		}
	}
	if got, want := perOp[intrinsics.WaveMultiPrefixBitAnd], bitAnd; got != want {
		t.Errorf("WaveMultiPrefixBitAnd: %d cases, want %d (uint, uint64_t)", got, want)
	}
	if got, want := perOp[intrinsics.WaveMatch], match; got != want {
		t.Errorf("WaveMatch: %d cases, want %d (8 scalars x 4 widths)", got, want)
	}
	c := Case{Op: intrinsics.WaveMatch, Type: Type{"uint", 1}, Pattern: Odd, Shape: Shapes[0], Keys: KeysHash}
	if c.ID() != "WaveMatch/uint/odd/whole/keys=hash" {
		t.Errorf("ID = %s", c.ID())
	}
	// The filter selects partitioned cases like any other, by operation and ID.
	ks := Matrix(Filter{Ops: regexp.MustCompile(`^WaveMultiPrefixSum$`), Types: []string{"float2"}, Patterns: []Pattern{Even},
		Shapes: []string{"2d"}, Cases: map[string]bool{"WaveMultiPrefixSum/float2/even/2d/keys=random": true}})
	if len(ks) != 1 || len(ks[0].Cases) != 1 || ks[0].Cases[0].Keys != KeysRandom {
		t.Errorf("filtered: %+v", ks)
	}
	t.Logf("%d partitioned kernels, %d cases", len(partitionKernels), len(ids))
}

// TestPartitionKeys: the hash scheme makes groups that are not runs of lanes, and
// the random keys come from four keys, seeded by the case.
func TestPartitionKeys(t *testing.T) {
	groups := map[uint32][]uint32{}
	for lane := uint32(0); lane < 8; lane++ {
		k := partitionKey(KeysHash, lane, 0)
		groups[k] = append(groups[k], lane)
	}
	runs := 0
	for _, g := range groups {
		if int(g[len(g)-1]-g[0]) == len(g)-1 {
			runs++
		}
	}
	if len(groups) != 4 || runs == len(groups) {
		t.Errorf("hash keys of 8 lanes: %v", groups)
	}
	c := Case{Op: intrinsics.WaveMatch, Type: Type{"uint", 1}, Pattern: All, Shape: Shapes[0], Keys: KeysRandom}
	a, b := randomKeys(c, 64), randomKeys(c, 64)
	distinct := map[uint32]bool{}
	for i := range a {
		if a[i] != b[i] || a[i] > 255 {
			t.Fatalf("random keys not seeded or out of range: %d %d", a[i], b[i])
		}
		distinct[a[i]] = true
	}
	if len(distinct) != 4 {
		t.Errorf("%d random keys, want 4", len(distinct))
	}
	if partitionKey(KeysDistinct, 9, 3) != 9 || partitionKey(KeysEqual, 9, 3) != equalKey || partitionKey(KeysRandom, 9, 3) != 3 {
		t.Error("partitionKey")
	}
}

// TestMatchValues: the values WaveMatch matches on are distinct for distinct keys
// (bool aside), never -0 or NaN, survive the record encoding, and keys two bits
// apart give vectors that differ in one component only (a device comparing part of a
// vector merges them).
func TestMatchValues(t *testing.T) {
	for _, s := range []string{"int", "uint", "float", "half", "double", "int64_t", "uint64_t", "bool"} {
		for n := 1; n <= 4; n++ {
			mt, _ := Type{s, n}.Model()
			seen := map[string]uint32{}
			for key := uint32(0); key < 256; key++ {
				v := matchValue(mt, key)
				var rec [recWords]uint32
				writeComps(rec[:], wIn, mt.Scalar, v)
				if back := readComps(rec[:], wIn, mt.Scalar, n); models.FormatComps(mt.Scalar, back) != models.FormatComps(mt.Scalar, v) {
					t.Fatalf("%s key %d: %v does not survive the record", mt, key, v)
				}
				for _, x := range v {
					if mt.Scalar.IsFloat() && (isNegZero(mt.Scalar, x) || math.IsNaN(models.ToFloat64(mt.Scalar, x))) {
						t.Fatalf("%s key %d: -0 or NaN", mt, key)
					}
				}
				id := models.FormatComps(mt.Scalar, v)
				if other, dup := seen[id]; dup && s != "bool" {
					t.Fatalf("%s: keys %d and %d give %s", mt, other, key, id)
				}
				seen[id] = key
			}
			if n > 1 && s != "bool" {
				a, b := matchValue(mt, 0), matchValue(mt, 1<<2) // digit of component 1 differs
				for k := range a {
					if (a[k] != b[k]) != (k == 1) {
						t.Errorf("%s: keys 0 and 4 give %v and %v", mt, a, b)
					}
				}
			}
		}
	}
	// 64-bit components: some keys share the high half, others the low half.
	u64 := models.Type{Scalar: models.Uint64, N: 1}
	lo, hi := false, false
	for a := uint32(0); a < 8; a++ {
		for b := a + 1; b < 8; b++ {
			x, y := matchValue(u64, a)[0], matchValue(u64, b)[0]
			lo = lo || uint32(x) == uint32(y)
			hi = hi || x>>32 == y>>32
		}
	}
	if !lo || !hi {
		t.Errorf("64-bit values: shared low half %v, shared high half %v", lo, hi)
	}
}

// TestPartitionKernelsCompile compiles every partitioned kernel with waverig's
// compiler to SPIR-V with the extension (spirv-val must accept each module, which
// must declare the extension and capability), and proves one is refused without it.
func TestPartitionKernelsCompile(t *testing.T) {
	spirvVal, err := exec.LookPath("spirv-val")
	if err != nil && os.Getenv("CI") != "" {
		t.Fatal("spirv-val is not on PATH and CI is set")
	}
	dir := t.TempDir()
	opts := func(ext []string) compiler.Options {
		return compiler.Options{Targets: []compiler.Target{compiler.SPIRV}, Entry: "main", Stage: "compute",
			AutoBindings: true, Vulkan: "1.2", Extensions: ext}
	}
	for _, k := range partitionKernels {
		t.Run(k.Name, func(t *testing.T) {
			t.Parallel()
			res, err := compiler.Compile(k.Name+".hlsl", []byte(k.HLSL), opts(k.Extensions))
			if err != nil {
				t.Fatalf("SPIR-V: %v", err)
			}
			spv := res.Find("main", compiler.SPIRV)
			if spv == nil {
				t.Fatal("no SPIR-V")
			}
			if spirvVal == "" {
				return
			}
			f := filepath.Join(dir, k.Name+".spv")
			if err := os.WriteFile(f, spv, 0o644); err != nil {
				t.Fatal(err)
			}
			if out, err := exec.Command(spirvVal, "--target-env", "vulkan1.2", f).CombinedOutput(); err != nil {
				t.Errorf("spirv-val: %v\n%s", err, out)
			}
			dis, err := exec.Command("spirv-dis", f).CombinedOutput()
			if err == nil && (!strings.Contains(string(dis), `OpExtension "SPV_NV_shader_subgroup_partitioned"`) ||
				!strings.Contains(string(dis), "GroupNonUniformPartitionedNV")) {
				t.Errorf("module does not declare the partitioned extension and capability")
			}
		})
	}
	t.Run("without the extension", func(t *testing.T) {
		if _, err := compiler.Compile("k.hlsl", []byte(partitionKernels[0].HLSL), opts(nil)); err == nil {
			t.Error("a partitioned kernel compiled without SPV_NV_shader_subgroup_partitioned")
		}
	})
}

// partitionSample is a few kernels of every partitioned operation, small enough to
// simulate at every size.
func partitionSample() []Kernel {
	return partitionMatrix(Filter{Types: []string{"uint", "int2", "float", "half3", "double", "uint64_t", "uint64_t2", "bool"},
		Shapes: []string{"partial", "2d"}})
}

// TestPartitionCheckOnSimulatedDevice: a correct simulated device passes every
// partitioned case, with lanes compared and no lane left undefined (the kernels'
// masks always form a partition), at wave sizes from 1 to 128, linear and shuffled.
func TestPartitionCheckOnSimulatedDevice(t *testing.T) {
	sample := partitionSample()
	compared := 0
	for _, size := range []uint32{1, 4, 8, 32, 128} {
		for _, seed := range []uint64{0, 3} {
			for _, k := range sample {
				out, err := Simulate(k, SimLayout{WaveSize: size, Seed: seed})
				if err != nil {
					t.Fatalf("%s: %v", k.Name, err)
				}
				for _, r := range Check(k, out, size) {
					compared += r.Lanes
					if !r.Passed || !strings.Contains(r.Note, " 0 undefined") {
						t.Fatalf("size %d seed %d: %s", size, seed, r)
					}
				}
			}
		}
	}
	if compared == 0 {
		t.Fatal("no lane compared")
	}
}

// plant recomputes every active lane's output of a simulated run with a wrong model
// (bad gets one arm of one wave as the checker builds it).
func plant(t *testing.T, k Kernel, out map[string][]byte, bad func(c Case, mt models.Type, lanes []models.Lane) []models.Value) map[string][]byte {
	t.Helper()
	init, got, err := kernelWords(k, out)
	if err != nil {
		t.Fatal(err)
	}
	threads := k.Cases[0].Shape.Threads()
	hs := make([]hdr, len(init)/recWords)
	for i := range hs {
		hs[i] = readHdr(got, init, i, threads)
	}
	op := k.Cases[0].Op
	for _, wv := range groupWaves(hs) {
		c := k.Cases[wv[0].caseIdx]
		mt, _ := c.Type.Model()
		rt := models.ResultType(op, mt)
		for arm := uint32(1); arm <= 2; arm++ {
			lanes := make([]models.Lane, len(wv))
			for j, h := range wv {
				in := readComps(init[h.idx*recWords:][:recWords], wIn, mt.Scalar, mt.N)
				lanes[j] = models.Lane{Index: h.lane, Active: h.branch == arm, LaneArg: h.laneArg,
					Input: partitionInput(op, mt, h.laneArg, in)}
			}
			vals := bad(c, mt, lanes)
			for j, h := range wv {
				if lanes[j].Active && !vals[j].Undefined {
					writeComps(got[h.idx*recWords:][:recWords], wOut, rt.Scalar, vals[j].Comps)
				}
			}
		}
	}
	return map[string][]byte{"u0": bytesOf(got)}
}

// failing runs the checker and returns the IDs of the failing cases.
func failing(k Kernel, out map[string][]byte, size uint32) map[string]bool {
	f := map[string]bool{}
	for _, r := range Check(k, out, size) {
		if !r.Passed {
			f[r.Case.ID()] = true
		}
	}
	return f
}

func onlyKernel(t *testing.T, op, typ string) Kernel {
	t.Helper()
	ks := partitionMatrix(Filter{Ops: regexp.MustCompile("^" + op + "$"), Types: []string{typ}, Shapes: []string{"whole"}})
	if len(ks) != 1 {
		t.Fatalf("%s %s: %d kernels", op, typ, len(ks))
	}
	return ks[0]
}

// TestPartitionFaultsAreCaught plants the bugs a device or compiler could have and
// proves the checker fails the cases that can see them.
func TestPartitionFaultsAreCaught(t *testing.T) {
	const size = 8
	sim := func(k Kernel) map[string][]byte {
		out, err := Simulate(k, SimLayout{WaveSize: size, Seed: 5})
		if err != nil {
			t.Fatal(err)
		}
		if f := failing(k, out, size); len(f) != 0 {
			t.Fatalf("%s fails on a correct device: %v", k.Name, f)
		}
		return out
	}
	// WaveMatch comparing only the low 32 bits of 64-bit values: lanes 0 and 2 of
	// the distinct scheme share them.
	k := onlyKernel(t, "WaveMatch", "uint64_t")
	f := failing(k, plant(t, k, sim(k), func(c Case, mt models.Type, lanes []models.Lane) []models.Value {
		for i := range lanes {
			lanes[i].Input = []uint64{lanes[i].Input[0] & 0xffffffff}
		}
		v, _ := models.Match(mt, lanes)
		return v
	}), size)
	if !f["WaveMatch/uint64_t/all/whole/keys=distinct"] {
		t.Errorf("low-half compare not caught: %v", f)
	}
	// WaveMatch comparing the first component of a vector only: the hash scheme's
	// keys differ in other components.
	k = onlyKernel(t, "WaveMatch", "float2")
	f = failing(k, plant(t, k, sim(k), func(c Case, mt models.Type, lanes []models.Lane) []models.Value {
		v, _ := models.Match(models.Type{Scalar: mt.Scalar, N: 1}, lanes)
		return v
	}), size)
	if !f["WaveMatch/float2/all/whole/keys=hash"] || f["WaveMatch/float2/all/whole/keys=equal"] {
		t.Errorf("first-component compare: %v", f)
	}
	// WaveMatch merging the nested pattern's two arms (two call sites).
	k = onlyKernel(t, "WaveMatch", "int")
	out := sim(k)
	w, _ := words(out["u0"])
	for i := 0; i < len(w)/recWords; i++ {
		if r := w[i*recWords:][:recWords]; r[wBranch] == 2 {
			r[wBranch] = 1
		}
	}
	if f := failing(k, map[string][]byte{"u0": bytesOf(w)}, size); !f["WaveMatch/int/nested/whole/keys=equal"] {
		t.Errorf("merged arms not caught: %v", f)
	}
	// A lane that used a key its scheme does not give it.
	w, _ = words(out["u0"])
	i := recordOf(t, k, w, Odd)
	w[i*recWords+wLaneArg] ^= 0x100
	var keyFailure bool
	for _, r := range Check(k, map[string][]byte{"u0": bytesOf(w)}, size) {
		for _, lf := range r.Failures {
			keyFailure = keyFailure || strings.Contains(lf.Input, "(partition key)")
		}
	}
	if !keyFailure {
		t.Error("a wrong partition key was not reported")
	}
	// WaveMultiPrefixSum ignoring the mask (the plain exclusive scan of the arm) and
	// an inclusive scan within the partition.
	k = onlyKernel(t, "WaveMultiPrefixSum", "uint")
	f = failing(k, plant(t, k, sim(k), func(c Case, mt models.Type, lanes []models.Lane) []models.Value {
		v, _ := models.Prefix(intrinsics.WavePrefixSum, mt, lanes)
		return v
	}), size)
	if !f["WaveMultiPrefixSum/uint/all/whole/keys=hash"] || f["WaveMultiPrefixSum/uint/all/whole/keys=equal"] {
		t.Errorf("ignored mask: %v", f)
	}
	f = failing(k, plant(t, k, sim(k), func(c Case, mt models.Type, lanes []models.Lane) []models.Value {
		v, _ := models.Expected(intrinsics.WaveMultiPrefixSum, mt, lanes, size)
		for i := range v {
			if !v[i].Undefined {
				v[i].Comps[0] = (v[i].Comps[0] + lanes[i].Input[0]) & 0xffffffff
			}
		}
		return v
	}), size)
	for _, keys := range KeySchemes {
		if !f["WaveMultiPrefixSum/uint/all/whole/keys="+keys] {
			t.Errorf("inclusive scan not caught for keys=%s: %v", keys, f)
		}
	}
	// A failing WaveMatch lane is reported with its key, value and a hex mask.
	k = onlyKernel(t, "WaveMatch", "uint")
	out = sim(k)
	w, _ = words(out["u0"])
	i = recordOf(t, k, w, All)
	w[i*recWords+wOut] ^= 1 << (w[i*recWords+wLane] ^ 1)
	for _, r := range Check(k, map[string][]byte{"u0": bytesOf(w)}, size) {
		if r.Passed {
			continue
		}
		lf := r.Failures[0]
		if len(r.Failures) != 1 || !strings.Contains(lf.Input, " key=") || !strings.HasPrefix(lf.Expected, "0x") || lf.Lane != w[i*recWords+wLane] {
			t.Errorf("%s: %+v", r.Case.ID(), r.Failures)
		}
	}
}
