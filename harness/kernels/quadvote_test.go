package kernels

import (
	"encoding/binary"
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

var (
	quadVoteCompute = quadVoteMatrix(Filter{})
	quadVotePixel   = quadVotePixelKernels(Filter{})
)

// TestQuadVoteMatrixShape: counts, stable IDs, the variant in the ID, kernel and
// extension bookkeeping, the filter, and the kernels in Matrix / GraphicsMatrix.
func TestQuadVoteMatrixShape(t *testing.T) {
	variants, ops := 2, len(intrinsics.QuadVotes)
	if got, want := len(quadVoteCompute), ops*variants*len(Shapes); got != want {
		t.Errorf("%d compute kernels, want %d", got, want)
	}
	if got, want := len(quadVotePixel), ops*variants*len(PixelShapes); got != want {
		t.Errorf("%d pixel kernels, want %d", got, want)
	}
	perCompute := len(Patterns) - 1 + len(RandomSeeds)
	ids := map[string]bool{}
	for _, k := range append(append([]Kernel(nil), quadVoteCompute...), quadVotePixel...) {
		native := strings.Contains(k.Name, "_khr_")
		if native != (len(k.Extensions) == 1 && k.Extensions[0] == "SPV_KHR_quad_control") || native != k.Needs.QuadControl {
			t.Errorf("%s: extensions %v, needs %+v", k.Name, k.Extensions, k.Needs)
		}
		want := perCompute
		if k.Stage != Pixel {
			want = patternCases(k.Cases[0].Shape)
		}
		if k.Stage == Pixel {
			want = len(GraphicsPatterns)
			if int(k.Draw.Draws) != want*len(densities) {
				t.Errorf("%s: %d draws, want one per case and density", k.Name, k.Draw.Draws)
			}
		} else if k.Groups != k.Cases[0].Shape.Grid(want*len(densities)) {
			t.Errorf("%s: %d groups, want one per case and density", k.Name, k.Groups[0])
		}
		if len(k.Cases) != want {
			t.Errorf("%s: %d cases, want %d", k.Name, len(k.Cases), want)
		}
		if bits := k.SubgroupBits(); bits&intrinsics.VkQuad == 0 {
			t.Errorf("%s: subgroup bits %#x lack Quad", k.Name, bits)
		}
		for _, c := range k.Cases {
			if nativeQuadVote(c) != native || c.Type != (Type{"bool", 1}) {
				t.Errorf("%s: case %s in kernel %s", c.ID(), c.Name, k.Name)
			}
			if ids[c.ID()] {
				t.Errorf("case %s twice", c.ID())
			}
			ids[c.ID()] = true
		}
	}
	for _, id := range []string{"QuadAny/bool/even/whole", "QuadAny.khr/bool/even/whole", "QuadAll.khr/bool/random#3/partial",
		"QuadAll/bool/nested/2d", "QuadAny.khr/bool/firsthalf/diag16", "QuadAll/bool/random#1/thin"} {
		if !ids[id] {
			t.Errorf("case %s missing", id)
		}
	}
	if digest(quadVoteMatrix(Filter{})) != digest(quadVoteCompute) || digest(quadVotePixelKernels(Filter{})) != digest(quadVotePixel) {
		t.Error("the quad vote kernels differ between two calls")
	}
	// The op filter sees the variant: "^QuadAny$" is the portable variant only.
	for _, c := range []struct {
		re     string
		native []bool
	}{{`^QuadAny$`, []bool{false}}, {`^QuadAll\.khr$`, []bool{true}}, {`QuadAny|QuadAll`, []bool{false, true}}} {
		seen := map[bool]bool{}
		for _, k := range Matrix(Filter{Ops: regexp.MustCompile(c.re), Shapes: []string{"whole"}}) {
			for _, cs := range k.Cases {
				seen[nativeQuadVote(cs)] = true
			}
		}
		if len(seen) != len(c.native) {
			t.Errorf("-ops %s selects variants %v", c.re, seen)
		}
		for _, n := range c.native {
			if !seen[n] {
				t.Errorf("-ops %s misses native=%v", c.re, n)
			}
		}
	}
	inMatrix := map[string]bool{}
	for _, k := range append(append([]Kernel(nil), fullMatrix...), pixelMatrix...) {
		inMatrix[k.Name] = true
	}
	for _, k := range append(append([]Kernel(nil), quadVoteCompute...), quadVotePixel...) {
		if !inMatrix[k.Name] {
			t.Errorf("%s is not in the matrix", k.Name)
		}
	}
}

// spvHasOp reports whether a SPIR-V module contains an instruction with opcode op.
func spvHasOp(spv []byte, op uint32) bool {
	for i := 20; i+4 <= len(spv); {
		w := binary.LittleEndian.Uint32(spv[i:])
		n := int(w >> 16)
		if n == 0 {
			return false
		}
		if w&0xffff == op {
			return true
		}
		i += 4 * n
	}
	return false
}

// The opcodes the two forms are told apart by.
const (
	spvQuadSwap   = 366
	spvQuadAllKHR = 5110
	spvQuadAnyKHR = 5111
)

// TestQuadVoteKernelsCompile compiles every quad vote kernel's entry points with
// waverig's compiler as the rig does (the kernel's extensions): the portable
// variant to SPIR-V that spirv-val accepts, built from quad swaps, and to WGSL
// (naga dialect); the native variant to the KHR instruction with its capability and
// extension in the reflection. spirv-val (SPIRV-Tools 2023.1) predates
// SPV_KHR_quad_control, so the native modules are checked by their words and
// reflection, as compiler/fixtures_test.go does.
func TestQuadVoteKernelsCompile(t *testing.T) {
	spirvVal, _ := exec.LookPath("spirv-val")
	dir := t.TempDir()
	for _, k := range append(append([]Kernel(nil), quadVoteCompute...), quadVotePixel...) {
		t.Run(k.Name, func(t *testing.T) {
			t.Parallel()
			entries := [][2]string{{k.Entry, "compute"}}
			if k.Stage == Pixel {
				entries = graphicsEntries(k)
			}
			native := len(k.Extensions) > 0
			khrOp := uint32(spvQuadAnyKHR)
			if k.Cases[0].Op == intrinsics.QuadAll {
				khrOp = spvQuadAllKHR
			}
			for _, e := range entries {
				res, err := compiler.Compile(k.Name+".hlsl", []byte(k.HLSL), compiler.Options{Targets: []compiler.Target{compiler.SPIRV},
					Entry: e[0], Stage: e[1], AutoBindings: true, Vulkan: "1.2", Extensions: k.Extensions})
				if err != nil {
					t.Fatalf("%s (%s): %v", e[0], e[1], err)
				}
				spv, ep := res.Find(e[0], compiler.SPIRV), res.Entry(e[0])
				if spv == nil || ep == nil {
					t.Fatalf("%s: no SPIR-V or reflection", e[0])
				}
				if e[1] == "vertex" {
					continue // the pixel kernels' vertex shader runs no quad vote
				}
				caps, exts := strings.Join(ep.Capabilities, ","), strings.Join(ep.Extensions, ",")
				if native {
					if !spvHasOp(spv, khrOp) || spvHasOp(spv, spvQuadSwap) || !strings.Contains(caps, "QuadControlKHR") || exts != "SPV_KHR_quad_control" {
						t.Errorf("%s native: KHR op %v, quad swap %v, capabilities %s, extensions %s", e[0], spvHasOp(spv, khrOp), spvHasOp(spv, spvQuadSwap), caps, exts)
					}
					continue
				}
				if spvHasOp(spv, khrOp) || !spvHasOp(spv, spvQuadSwap) || strings.Contains(caps, "QuadControl") || exts != "" {
					t.Errorf("%s portable: KHR op %v, quad swap %v, capabilities %s, extensions %s", e[0], spvHasOp(spv, khrOp), spvHasOp(spv, spvQuadSwap), caps, exts)
				}
				if spirvVal != "" {
					f := filepath.Join(dir, k.Name+"."+e[0]+".spv")
					if err := os.WriteFile(f, spv, 0o644); err != nil {
						t.Fatal(err)
					}
					if out, err := exec.Command(spirvVal, "--target-env", "vulkan1.2", f).CombinedOutput(); err != nil {
						t.Errorf("spirv-val %s: %v\n%s", e[0], err, out)
					}
				}
				if _, err := compiler.Compile(k.Name+".hlsl", []byte(k.HLSL), compiler.Options{Targets: []compiler.Target{compiler.WGSL},
					Entry: e[0], Stage: e[1], AutoBindings: true, WGSLDialect: "naga"}); err != nil {
					t.Errorf("%s WGSL (naga): %v", e[0], err)
				}
			}
		})
	}
}

// TestQuadVoteComputeOnSimulator: every compute kernel passes on a correct simulated
// device at every wave size, linear and shuffled; the KHR variant compares every
// active lane, the portable one every lane of a whole quad and fewer elsewhere.
func TestQuadVoteComputeOnSimulator(t *testing.T) {
	for _, size := range []uint32{1, 2, 4, 8, 16, 32, 64, 128} {
		for _, seed := range []uint64{0, 7} {
			simulateAndCheck(t, quadVoteCompute, SimLayout{WaveSize: size, Seed: seed})
		}
	}
	lanes := map[string]int{}
	for _, k := range quadVoteCompute {
		out, err := Simulate(k, SimLayout{WaveSize: 16, Seed: 5})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range Check(k, out, 16) {
			lanes[r.Case.ID()] = r.Lanes
		}
	}
	reps := len(densities)
	for _, op := range intrinsics.QuadVotes {
		n := op.String()
		// Every lane of a whole workgroup is active and every quad whole.
		for _, id := range []string{n + "/bool/all/whole", n + ".khr/bool/all/whole"} {
			if lanes[id] != 64*reps {
				t.Errorf("%s compared %d lanes, want %d", id, lanes[id], 64*reps)
			}
		}
		// Even lanes: two active lanes per quad; the KHR vote defines both.
		if id := n + ".khr/bool/even/whole"; lanes[id] != 32*reps {
			t.Errorf("%s compared %d lanes, want %d", id, lanes[id], 32*reps)
		}
		// The swaps read the inactive odd lanes: defined only where an active lane
		// decides (QuadAny: the all-true density at least; never with none true).
		if got := lanes[n+"/bool/even/whole"]; got < 32 || got >= 32*reps {
			t.Errorf("%s/bool/even/whole compared %d lanes, want some but not all of %d", n, got, 32*reps)
		}
	}
}

// TestQuadVoteComputeFaults: planted wrong results are caught — one flipped lane;
// the wave-wide vote instead of the quad vote; a native result computed like the
// swaps, reading inactive lanes (garbage where the KHR op is defined).
func TestQuadVoteComputeFaults(t *testing.T) {
	one := func(re string, shape string) Kernel {
		ks := quadVoteMatrix(Filter{Ops: regexp.MustCompile(re), Shapes: []string{shape}})
		if len(ks) != 1 {
			t.Fatalf("%s %s: %d kernels", re, shape, len(ks))
		}
		return ks[0]
	}
	// One flipped lane of a whole quad fails exactly its case.
	k := one(`^QuadAll$`, "partial")
	out, _ := Simulate(k, SimLayout{WaveSize: 8, Seed: 2})
	w, _ := words(out["u0"])
	i := recordOf(t, k, w, All)
	w[i*recWords+wOut] ^= 1
	out["u0"] = bytesOf(w)
	n := 0
	for _, r := range Check(k, out, 8) {
		if !r.Passed {
			n++
			if r.Case.Pattern != All || len(r.Failures) != 1 || r.Failures[0].Lane != w[i*recWords+wLane] {
				t.Errorf("flipped lane: %s", r)
			}
		}
	}
	if n != 1 {
		t.Errorf("flipped lane: %d cases failed, want 1", n)
	}
	// The wave-wide vote: WaveActiveAnyTrue's model writes every arm's results.
	k = one(`^QuadAny\.khr$`, "whole")
	out = simulateWith(t, k, 16, func(c Case, lanes []models.Lane) ([]models.Value, error) {
		return models.Vote(intrinsics.WaveActiveAnyTrue, lanes)
	})
	if n, _ := failed(Check(k, out, 16)); n == 0 {
		t.Error("the wave-wide vote passed as QuadAny")
	}
	// A native device that reads inactive lanes: the portable model's results,
	// garbage where it is undefined.
	for _, re := range []string{`^QuadAny\.khr$`, `^QuadAll\.khr$`} {
		k = one(re, "whole")
		out = simulateWith(t, k, 8, func(c Case, lanes []models.Lane) ([]models.Value, error) {
			return models.QuadVote(c.Op, models.QuadVoteSwaps, lanes)
		})
		rs := Check(k, out, 8)
		if n, _ := failed(rs); n == 0 {
			t.Errorf("%s: swaps semantics passed the KHR model", re)
		}
		for _, r := range rs {
			if !r.Passed && r.Case.Pattern == All {
				t.Errorf("%s: whole quads must agree in both forms: %s", re, r)
			}
		}
	}
}

// simulateWith runs k on the simulator and then overwrites every active lane's
// output with what model says (undefined: garbage), keeping the simulated layout.
func simulateWith(t *testing.T, k Kernel, size uint32, model func(Case, []models.Lane) ([]models.Value, error)) map[string][]byte {
	t.Helper()
	out, err := Simulate(k, SimLayout{WaveSize: size, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	init, got, err := kernelWords(k, out)
	if err != nil {
		t.Fatal(err)
	}
	threads := k.Cases[0].Shape.Threads()
	hs := make([]hdr, len(got)/recWords)
	for i := range hs {
		hs[i] = readHdr(got, init, i, threads)
	}
	for _, wv := range groupWaves(hs) {
		c := k.Cases[wv[0].caseIdx]
		for arm := uint32(1); arm <= 2; arm++ {
			lanes := make([]models.Lane, len(wv))
			for j, h := range wv {
				lanes[j] = models.Lane{Index: h.lane, Active: h.branch == arm, Input: readComps(init[h.idx*recWords:][:recWords], wIn, models.Bool, 1)}
			}
			want, err := model(c, lanes)
			if err != nil {
				t.Fatal(err)
			}
			for j, h := range wv {
				if !lanes[j].Active {
					continue
				}
				got[h.idx*recWords+wOut] = 0xdeadbeef
				if !want[j].Undefined {
					got[h.idx*recWords+wOut] = uint32(want[j].Comps[0])
				}
			}
		}
	}
	return map[string][]byte{"u0": bytesOf(got)}
}

// TestQuadVotePixelOnSimulator: every pixel kernel passes on a correct simulated
// device (helpers in wave operations or not), at every wave size, split and
// mirrored. The portable votes include helpers either way, so no wave decides a
// helper set; the native votes include them only on a device that does, and a
// wave that decides must name the device's choice.
func TestQuadVotePixelOnSimulator(t *testing.T) {
	for _, k := range quadVotePixel {
		for i, size := range []uint32{4, 8, 16, 32} {
			for _, helpers := range []bool{false, true} {
				l := SimLayout{WaveSize: size, Seed: uint64(i)*3 + 1, Helpers: helpers, MirrorY: size == 16, Split: size == 8}
				for _, r := range simCheck(t, k, l, i%2 == 0) {
					if !r.Passed {
						t.Fatalf("%s size %d helpers %v: %s", k.Name, size, helpers, r)
					}
					want := ""
					if nativeQuadVote(r.Case) && r.Helpers != "" {
						want = map[bool]string{false: HelpersExcluded, true: HelpersIncluded}[helpers]
					}
					if r.Helpers != want {
						t.Errorf("%s (device helpers %v): the quad vote decided the helper set %q", r.Case.ID(), helpers, r.Helpers)
					}
					if r.Case.Pattern == All && r.Lanes == 0 {
						t.Errorf("%s: compared nothing", r.Case.ID())
					}
				}
			}
		}
	}
}

// TestQuadVotePixelFaults: a device whose helper lanes take part but vote with
// predicate false (lavapipe's helper loads return 0) or that leaves helpers out of
// the quad vote fails where helpers matter. The one exception is the plain native
// QuadAny: all-false helpers give exactly the vote of the covered pixels alone,
// which is the helper-excluded answer SPV_KHR_quad_control allows without
// RequireFullQuadsKHR; its [WaveOpsIncludeHelperLanes] variant catches it.
func TestQuadVotePixelFaults(t *testing.T) {
	for _, tc := range []struct {
		op    string
		catch bool
	}{{`QuadAll`, true}, {`QuadAll\.khr`, true}, {`QuadAny`, true}, {`QuadAny\.khr`, false},
		{`QuadAll\.khr\.helperlanes`, true}, {`QuadAny\.khr\.helperlanes`, true}} {
		for _, shape := range []string{"fb15x15", "thin"} {
			ks := GraphicsMatrix(Pixel, Filter{Ops: regexp.MustCompile("^" + tc.op + "$"), Shapes: []string{shape}, Patterns: []Pattern{All}})
			if len(ks) != 1 {
				t.Fatalf("%s %s: %d kernels", tc.op, shape, len(ks))
			}
			k := ks[0]
			l := SimLayout{WaveSize: 16, Seed: 3, Helpers: true}
			if n, first := failed(simCheck(t, k, l, true)); n > 0 {
				t.Fatalf("%s without the fault: %s", k.Name, first)
			}
			l.Fault = FaultHelperQuadZero
			zero := simCheck(t, k, l, true)
			// All-false helpers turn QuadAll false where a quad's covered pixels are
			// all true, and QuadAny false where only a helper's predicate is true.
			if n, _ := failed(zero); (n > 0) != tc.catch {
				t.Errorf("%s on %s: helpers voting false: %d cases failed, want failures %v", k.Name, shape, n, tc.catch)
			}
		}
	}
	// Helpers left out of QuadAny: the quad's covered pixels vote alone.
	k := GraphicsMatrix(Pixel, Filter{Ops: regexp.MustCompile(`^QuadAny$`), Shapes: []string{"thin"}, Patterns: []Pattern{All}})[0]
	out, err := Simulate(k, SimLayout{WaveSize: 8, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	recs, _ := words(out["u0"])
	in, _ := words(k.Buffers[0].Data)
	sc := *k.Cases[0].Shape.Scene
	pw, ph := sc.Padded()
	lay := pixelLayout{w: sc.Width, h: sc.Height, pw: pw, ph: ph}
	changed := 0
	for d := 0; d < int(k.Draw.Draws); d++ {
		for y := uint32(0); y < sc.Height; y++ {
			for x := uint32(0); x < sc.Width; x++ {
				r := recs[lay.flat(d, x, y)*recWords:][:recWords]
				if r[wFlat] == unset {
					continue
				}
				vote := uint32(0)
				for q := uint32(0); q < 4; q++ {
					nx, ny := x&^1|q&1, y&^1|q>>1
					if nx < sc.Width && ny < sc.Height && recs[lay.flat(d, nx, ny)*recWords+wFlat] != unset {
						vote |= in[lay.padded(d, nx, ny)*tWords+tIn]
					}
				}
				if r[wOut] != vote {
					changed++
				}
				r[wOut] = vote
				if d == int(k.Draw.Draws)-1 {
					// The colour target holds the last draw's output word 0 too.
					binary.LittleEndian.PutUint32(out[ColorTarget][(int(y*sc.Width+x)*4+2)*4:], vote)
				}
			}
		}
	}
	if changed == 0 {
		t.Fatal("no helper decided a quad: the scene does not test helpers")
	}
	out["u0"] = bytesOf(recs)
	if n, _ := failed(Check(k, out, 8)); n == 0 {
		t.Error("QuadAny without its helper lanes passed")
	}
}
