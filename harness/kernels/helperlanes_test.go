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
	"waverig/compiler/diag"
	"waverig/compiler/intrinsics"
)

// helperLanesMatrix is the [WaveOpsIncludeHelperLanes] part of the pixel matrix.
var helperLanesMatrix = helperLanesKernels(Filter{})

// TestHelperLanesMatrix: one kernel per (operation, scene), scalar 32-bit types,
// the graphics patterns; every case named OP.helperlanes (QuadAny.khr.helperlanes
// for the native votes), IDs unique and distinct from the plain matrix's, names
// that are ginkgo labels; both device features needed; the attribute on the pixel
// entry and nowhere else; `-ops helperlanes` selects exactly these kernels.
func TestHelperLanesMatrix(t *testing.T) {
	ops := len(HelperLanesOps) + len(intrinsics.QuadVotes)
	if want := ops * len(PixelShapes); len(helperLanesMatrix) != want {
		t.Fatalf("%d kernels, want %d (%d operations × %d scenes)", len(helperLanesMatrix), want, ops, len(PixelShapes))
	}
	// Cases per kernel: int, uint, float for the sum and the prefix; one type for
	// the bool operations and the quad votes; int, uint, float, bool for the
	// broadcast; int, uint, float for the quad read. Each × the 5 graphics patterns.
	perOp := map[string]int{}
	plain := map[string]bool{}
	for _, k := range pixelMatrix {
		for _, c := range k.Cases {
			if !IncludesHelperLanes(c) {
				plain[c.ID()] = true
			}
		}
	}
	ids := map[string]bool{}
	names := regexp.MustCompile(`^[A-Za-z]+(\.khr)?\.helperlanes$`)
	total := 0
	for _, k := range helperLanesMatrix {
		if !k.Needs.QuadControl || !k.Needs.MaximalReconvergence {
			t.Errorf("%s needs %+v, want quad control and maximal reconvergence", k.Name, k.Needs)
		}
		native := strings.Contains(k.Name, "_khr_")
		if exts := strings.Join(k.Extensions, ","); native != (exts == quadControlExt) || (!native && exts != "") {
			t.Errorf("%s: extensions %q (native %v)", k.Name, exts, native)
		}
		if n := strings.Count(k.HLSL, "[WaveOpsIncludeHelperLanes]"); n != 1 || !strings.Contains(k.HLSL, "[WaveOpsIncludeHelperLanes]\nuint4 "+psEntry+"(") {
			t.Errorf("%s: the attribute appears %d times, or not on the pixel entry", k.Name, n)
		}
		for _, c := range k.Cases {
			total++
			perOp[c.Name]++
			if !IncludesHelperLanes(c) || !names.MatchString(c.Name) || c.OpName() != c.Name {
				t.Errorf("%s: case name %q", k.Name, c.Name)
			}
			if native != nativeQuadVote(c) {
				t.Errorf("%s: native %v but nativeQuadVote %v", c.ID(), native, nativeQuadVote(c))
			}
			if ids[c.ID()] || plain[c.ID()] {
				t.Errorf("duplicate case ID %s", c.ID())
			}
			ids[c.ID()] = true
		}
	}
	for _, k := range pixelMatrix {
		if !IncludesHelperLanes(k.Cases[0]) && strings.Contains(k.HLSL, "WaveOpsIncludeHelperLanes") {
			t.Errorf("plain kernel %s carries the attribute", k.Name)
		}
	}
	scenes, pats := len(PixelShapes), len(GraphicsPatterns)
	want := map[string]int{
		"WaveActiveSum.helperlanes": 3, "WavePrefixSum.helperlanes": 3, "WaveActiveCountBits.helperlanes": 1,
		"WaveActiveBallot.helperlanes": 1, "WaveReadLaneFirst.helperlanes": 4, "WaveActiveAllTrue.helperlanes": 1,
		"WaveActiveAnyTrue.helperlanes": 1, "QuadReadAcrossX.helperlanes": 3,
		"QuadAny.khr.helperlanes": 1, "QuadAll.khr.helperlanes": 1,
	}
	wantTotal := 0
	for name, types := range want {
		wantTotal += types * scenes * pats
		if perOp[name] != types*scenes*pats {
			t.Errorf("%s: %d cases, want %d types × %d scenes × %d patterns", name, perOp[name], types, scenes, pats)
		}
	}
	if total != wantTotal || len(perOp) != len(want) {
		t.Errorf("%d cases over %d names, want %d over %d", total, len(perOp), wantTotal, len(want))
	}
	sel := GraphicsMatrix(Pixel, Filter{Ops: regexp.MustCompile("helperlanes")})
	if len(sel) != len(helperLanesMatrix) {
		t.Errorf("-ops helperlanes selects %d kernels, want %d", len(sel), len(helperLanesMatrix))
	}
	for _, k := range sel {
		if !IncludesHelperLanes(k.Cases[0]) {
			t.Errorf("-ops helperlanes selects %s", k.Name)
		}
	}
	// The plain selection stays plain: an anchored op filter does not pick them up.
	for _, k := range GraphicsMatrix(Pixel, Filter{Ops: regexp.MustCompile(`^WaveActiveSum$`)}) {
		if IncludesHelperLanes(k.Cases[0]) {
			t.Errorf("^WaveActiveSum$ selects %s", k.Name)
		}
	}
}

// SPIR-V numbers the compile test looks for.
const (
	spvOpExecutionMode        = 16
	spvRequireFullQuadsKHR    = 5089
	spvMaximallyReconvergesKH = 6023
	spvQuadControlKHR         = 5087
)

// spvModes lists the execution modes a module declares.
func spvModes(spv []byte) map[uint32]bool {
	modes := map[uint32]bool{}
	for i := 20; i+4 <= len(spv); {
		w := binary.LittleEndian.Uint32(spv[i:])
		n := int(w >> 16)
		if n == 0 || i+4*n > len(spv) {
			break
		}
		if w&0xffff == spvOpExecutionMode && n >= 3 {
			modes[binary.LittleEndian.Uint32(spv[i+8:])] = true
		}
		i += 4 * n
	}
	return modes
}

// withoutHelperLaneDecls drops what a spirv-val older than SPV_KHR_quad_control
// and SPV_KHR_maximal_reconvergence cannot read (their OpExtension, OpCapability
// QuadControlKHR, the two execution modes), as compiler/fixtures_test.go does:
// the rest of the module must then validate.
func withoutHelperLaneDecls(spv []byte) []byte {
	out := append([]byte(nil), spv[:20]...)
	for i := 20; i+4 <= len(spv); {
		w := binary.LittleEndian.Uint32(spv[i:])
		n := int(w >> 16)
		if n == 0 || i+4*n > len(spv) {
			return spv
		}
		drop := false
		switch w & 0xffff {
		case 17: // OpCapability
			drop = binary.LittleEndian.Uint32(spv[i+4:]) == spvQuadControlKHR
		case 10: // OpExtension
			name := strings.TrimRight(string(spv[i+4:i+4*n]), "\x00")
			drop = name == "SPV_KHR_quad_control" || name == "SPV_KHR_maximal_reconvergence"
		case spvOpExecutionMode:
			m := binary.LittleEndian.Uint32(spv[i+8:])
			drop = m == spvRequireFullQuadsKHR || m == spvMaximallyReconvergesKH
		}
		if !drop {
			out = append(out, spv[i:i+4*n]...)
		}
		i += 4 * n
	}
	return out
}

// TestHelperLanesKernelsCompile compiles every kernel as the rig does (waverig's
// compiler, the kernel's extensions): the pixel entry's reflection shows the
// attribute, both extensions and QuadControlKHR, its module the two execution
// modes (the vertex entry none of it). spirv-val 2023.1 predates the extensions:
// it may reject a module only for them, and the module without their
// declarations must validate (the native votes' QuadAny/AllKHR opcodes leave those
// unvalidated there). WGSL is emitted with the W0602 warning the rig skips on.
func TestHelperLanesKernelsCompile(t *testing.T) {
	spirvVal, _ := exec.LookPath("spirv-val")
	dir := t.TempDir()
	for _, k := range helperLanesMatrix {
		t.Run(k.Name, func(t *testing.T) {
			t.Parallel()
			for _, e := range graphicsEntries(k) {
				res, err := compiler.Compile(k.Name+".hlsl", []byte(k.HLSL), compiler.Options{Targets: []compiler.Target{compiler.SPIRV},
					Entry: e[0], Stage: e[1], AutoBindings: true, Vulkan: "1.2", Extensions: k.Extensions})
				if err != nil {
					t.Fatalf("%s (%s): %v", e[0], e[1], err)
				}
				spv, ep := res.Find(e[0], compiler.SPIRV), res.Entry(e[0])
				if spv == nil || ep == nil {
					t.Fatalf("%s: no SPIR-V or reflection", e[0])
				}
				modes := spvModes(spv)
				pixel := e[1] == "pixel"
				exts := strings.Join(ep.Extensions, ",")
				if ep.WaveOpsIncludeHelperLanes != pixel || modes[spvRequireFullQuadsKHR] != pixel || modes[spvMaximallyReconvergesKH] != pixel {
					t.Errorf("%s: reflection attribute %v, RequireFullQuadsKHR %v, MaximallyReconvergesKHR %v", e[0],
						ep.WaveOpsIncludeHelperLanes, modes[spvRequireFullQuadsKHR], modes[spvMaximallyReconvergesKH])
				}
				if pixel && (!strings.Contains(exts, "SPV_KHR_quad_control") || !strings.Contains(exts, "SPV_KHR_maximal_reconvergence") ||
					!strings.Contains(strings.Join(ep.Capabilities, ","), "QuadControlKHR")) {
					t.Errorf("%s: extensions %s, capabilities %v", e[0], exts, ep.Capabilities)
				}
				if spirvVal != "" {
					f := filepath.Join(dir, k.Name+"."+e[0]+".spv")
					if err := os.WriteFile(f, spv, 0o644); err != nil {
						t.Fatal(err)
					}
					if out, err := exec.Command(spirvVal, "--target-env", "vulkan1.2", f).CombinedOutput(); err != nil {
						if !pixel || !strings.Contains(string(out), "Invalid capability operand: 5087") {
							t.Fatalf("spirv-val %s: %v\n%s", e[0], err, out)
						}
						g := filepath.Join(dir, k.Name+"."+e[0]+".older.spv")
						if err := os.WriteFile(g, withoutHelperLaneDecls(spv), 0o644); err != nil {
							t.Fatal(err)
						}
						out2, err := exec.Command(spirvVal, "--target-env", "vulkan1.2", g).CombinedOutput()
						native := len(k.Extensions) > 0
						if err != nil && !(native && strings.Contains(string(out2), "Invalid opcode")) {
							t.Errorf("spirv-val rejects %s without the newer extensions' declarations: %v\n%s", e[0], err, out2)
						}
					}
				}
				wres, err := compiler.Compile(k.Name+".hlsl", []byte(k.HLSL), compiler.Options{Targets: []compiler.Target{compiler.WGSL},
					Entry: e[0], Stage: e[1], AutoBindings: true, WGSLDialect: "naga"})
				if err != nil {
					t.Fatalf("%s WGSL: %v", e[0], err)
				}
				warned := false
				for _, d := range wres.Diagnostics {
					warned = warned || d.Code == diag.WarnWGSLHelperLanes
				}
				if warned != pixel {
					t.Errorf("%s WGSL: W0602 %v, want %v", e[0], warned, pixel)
				}
			}
		})
	}
}

// plainTwin is the plain pixel kernel of a [WaveOpsIncludeHelperLanes] kernel's
// operation and scene, with its patterns and the same types.
func plainTwin(t *testing.T, k Kernel) Kernel {
	t.Helper()
	c := k.Cases[0]
	name := regexp.QuoteMeta(strings.TrimSuffix(c.Name, helperLanesSuffix))
	types := map[string]bool{}
	var ts []string
	for _, c := range k.Cases {
		if !types[c.Type.HLSL()] {
			types[c.Type.HLSL()] = true
			ts = append(ts, c.Type.HLSL())
		}
	}
	ks := GraphicsMatrix(Pixel, Filter{Ops: regexp.MustCompile("^" + name + "$"), Shapes: []string{c.Shape.Name}, Types: ts})
	if len(ks) != 1 {
		t.Fatalf("%s: %d plain kernels", k.Name, len(ks))
	}
	return ks[0]
}

// TestHelperLanesOnSimulator: on a simulated device that includes helper lanes
// every kernel passes (split and mirrored triangles, several sizes) and reports
// "included" wherever helpers decide; on one that leaves them out every kernel of
// a scene with helpers fails — the note says the attribute requires them — while
// the same programs without the attribute pass and report "excluded" where it
// shows. fb16x16 (no helpers) passes both ways.
func TestHelperLanesOnSimulator(t *testing.T) {
	for _, k := range helperLanesMatrix {
		for i, size := range []uint32{8, 32} {
			l := SimLayout{WaveSize: size, Seed: uint64(i) + 5, Helpers: true, Split: size == 8, MirrorY: size == 32}
			for _, r := range simCheck(t, k, l, true) {
				if !r.Passed {
					t.Fatalf("%s size %d helpers included: %s", k.Name, size, r)
				}
				if r.Helpers != "" && r.Helpers != HelpersIncluded {
					t.Errorf("%s: reported %q on a device that includes helpers", r.Case.ID(), r.Helpers)
				}
				if r.Case.Pattern == All && r.Lanes == 0 {
					t.Errorf("%s: compared nothing", r.Case.ID())
				}
			}
		}
		shape := k.Cases[0].Shape.Name
		l := SimLayout{WaveSize: 16, Seed: 9}
		out := simCheck(t, k, l, true)
		n, first := failed(out)
		if shape == "fb16x16" {
			if n > 0 {
				t.Errorf("%s without helpers in the scene: %s", k.Name, first)
			}
			continue
		}
		if n == 0 {
			t.Errorf("%s passed on a device that leaves helpers out", k.Name)
			continue
		}
		if !strings.Contains(first, "[WaveOpsIncludeHelperLanes]") {
			t.Errorf("%s: the failure does not name the attribute: %s", k.Name, first)
		}
		plainK := plainTwin(t, k)
		for _, r := range simCheck(t, plainK, l, true) {
			if !r.Passed {
				t.Errorf("plain %s failed on a device that leaves helpers out: %s", plainK.Name, r)
			}
			if r.Helpers == HelpersIncluded || r.Helpers == HelpersMixed {
				t.Errorf("plain %s: reported %q on a device that leaves helpers out", r.Case.ID(), r.Helpers)
			}
		}
	}
}

// TestHelperLanesFaults: a planted wrong output word, helpers included on odd
// lanes only, and a device whose layout words (WaveReadLaneFirst, WaveActiveSum
// in the prologue) leave helpers out while the operation includes them all fail.
func TestHelperLanesFaults(t *testing.T) {
	pick := func(op, shape string) Kernel {
		ks := GraphicsMatrix(Pixel, Filter{Ops: regexp.MustCompile("^" + regexp.QuoteMeta(op) + "$"), Shapes: []string{shape}})
		if len(ks) != 1 {
			t.Fatalf("%s %s: %d kernels", op, shape, len(ks))
		}
		return ks[0]
	}
	l := SimLayout{WaveSize: 16, Seed: 4, Helpers: true}
	// A wrong value in one covered pixel's output.
	for _, op := range []string{"WaveActiveSum.helperlanes", "WaveActiveBallot.helperlanes", "QuadAny.khr.helperlanes"} {
		k := pick(op, "thin")
		out, err := Simulate(k, l)
		if err != nil {
			t.Fatal(err)
		}
		recs, _ := words(out["u0"])
		for i := 0; i < len(recs); i += recWords {
			if recs[i+wFlat] != unset && recs[i+wBranch] != 0 {
				recs[i+wOut] ^= 1
				break
			}
		}
		out["u0"] = bytesOf(recs)
		if n, _ := failed(Check(k, out, 16)); n == 0 {
			t.Errorf("%s: a flipped output bit passed", k.Name)
		}
	}
	// Helpers in the operation on odd lanes only.
	k := pick("WavePrefixSum.helperlanes", "fb15x15")
	fl := l
	fl.Fault = FaultHelpersSomeLanes
	if n, _ := failed(simCheck(t, k, fl, true)); n == 0 {
		t.Errorf("%s: helpers on odd lanes only passed", k.Name)
	}
	// The quad read cannot tell the choice: the layout words must.
	k = pick("QuadReadAcrossX.helperlanes", "diag16")
	out, err := Simulate(k, SimLayout{WaveSize: 16, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	res := Check(k, out, 16)
	n, first := failed(res)
	if n == 0 || !strings.Contains(first, "key2") {
		t.Errorf("%s: layout words without helpers: %d failed, first %s", k.Name, n, first)
	}
}
