package spirv

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"waverig/compiler/intrinsics"
	"waverig/compiler/ir"
	. "waverig/compiler/ir/irtest"
	"waverig/internal/golden"
)

// The modules here are built by hand with irtest (the front end is not needed
// to test the back end).

// cssum builds the seed example: Out[tid.x] = WaveActiveSum(1) + (WaveIsFirstLane() ? 1 : 0).
func cssum() *Builder {
	b := Compute("CSSum", 64)
	out := b.RWBuffer("Out", ir.U32, 0, 1)
	tid := b.Input("tid", ir.Vector{Elem: ir.U32, N: 3}, ir.BuiltinGlobalInvocationID, 0)
	sum := Intr(intrinsics.WaveActiveSum, ir.U32, Uint(1))
	first := &ir.Convert{X: Intr(intrinsics.WaveIsFirstLane, ir.BoolT), T: ir.U32}
	b.Add(&ir.Store{Place: Elem(out, X(Load(GRef(tid)))), Value: Bin(ir.Add, sum, first)})
	return b
}

// quadPixel builds a pixel shader using only QuadReadAcrossX/Y (the PSSlope seed).
func quadPixel() *Builder {
	b := Entry("PSSlope", ir.Pixel)
	pos := b.Input("pos", ir.Vector{Elem: ir.F32, N: 4}, ir.BuiltinPosition, 0)
	o := b.Output("target", ir.Vector{Elem: ir.F32, N: 4}, ir.BuiltinNone, 0)
	v := X(Load(GRef(pos)))
	dx := Bin(ir.Sub, Intr(intrinsics.QuadReadAcrossX, ir.F32, v), v)
	dy := Bin(ir.Sub, Intr(intrinsics.QuadReadAcrossY, ir.F32, v), v)
	b.Add(&ir.Store{Place: GRef(o), Value: &ir.Construct{T: ir.Vector{Elem: ir.F32, N: 4}, Args: []ir.Expr{dx, dy, Float(0), Float(1)}}})
	return b
}

var vulkanEnvs = []struct{ vk, env string }{{"1.1", "vulkan1.1"}, {"1.2", "vulkan1.2"}, {"1.3", "vulkan1.3"}}

// needTool skips (locally) or fails (in CI) when a SPIRV-Tools binary is missing.
func needTool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is required in CI: %v", name, err)
		}
		golden.Skipf(t, "%s not installed: %v", name, err)
	}
	return p
}

// validate runs spirv-val on the module for a target environment.
func validate(t *testing.T, mod *Module, env string) {
	t.Helper()
	val := needTool(t, "spirv-val")
	path := filepath.Join(t.TempDir(), "m.spv")
	if err := os.WriteFile(path, mod.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(val, "--target-env", env, path).CombinedOutput()
	if err != nil {
		dis := disassemble(t, mod)
		t.Fatalf("spirv-val --target-env %s: %v\n%s\n%s", env, err, out, dis)
	}
}

func disassemble(t testing.TB, mod *Module) string {
	t.Helper()
	dis := needTool(t, "spirv-dis")
	path := filepath.Join(t.TempDir(), "m.spv")
	if err := os.WriteFile(path, mod.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(dis, "--no-color", "--no-header", path).CombinedOutput()
	if err != nil {
		t.Fatalf("spirv-dis: %v\n%s", err, out)
	}
	return string(out)
}

// emitValid checks the module against ir's invariants, then emits it for
// every Vulkan target and validates each with spirv-val.
func emitValid(t *testing.T, b *Builder, opts Options) map[string]*Module {
	t.Helper()
	Valid(t, b.M)
	return emitAll(t, b, opts)
}

// emitAll is emitValid for modules outside ir's invariants, which the back end
// accepts all the same.
func emitAll(t *testing.T, b *Builder, opts Options) map[string]*Module {
	t.Helper()
	mods := map[string]*Module{}
	for _, e := range vulkanEnvs {
		o := opts
		o.Vulkan = e.vk
		mod, err := EmitEntry(b.M, b.EP, o)
		if err != nil {
			t.Fatalf("vulkan %s: %v", e.vk, err)
		}
		validate(t, mod, e.env)
		for _, leak := range explicitLayoutLeaks(mod.Words) {
			t.Errorf("vulkan %s: %s", e.vk, leak)
		}
		if nested := nestedBlocks(mod.Words); len(nested) != 0 {
			t.Errorf("vulkan %s: Block structs nested in other types: %v", e.vk, nested)
		}
		mods[e.vk] = mod
	}
	return mods
}

func capNames(caps []uint16) string {
	var s []string
	for _, c := range caps {
		s = append(s, capName(c))
	}
	return strings.Join(s, ",")
}

func capName(c uint16) string {
	switch c {
	case capShader:
		return "Shader"
	case intrinsics.CapGroupNonUniform:
		return "GroupNonUniform"
	case intrinsics.CapGroupNonUniformArithmetic:
		return "GroupNonUniformArithmetic"
	case intrinsics.CapGroupNonUniformQuad:
		return "GroupNonUniformQuad"
	}
	return "cap" + itoa(int(c))
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var d []byte
	for n > 0 {
		d = append([]byte{byte('0' + n%10)}, d...)
		n /= 10
	}
	return string(d)
}
