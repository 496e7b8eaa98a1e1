package spirv

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"waverig/compiler/intrinsics"
	"waverig/compiler/ir"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// Small IR builders for hand-made modules (the front end is not needed to test
// the back end).

type mb struct {
	m  *ir.Module
	f  *ir.Function
	ep *ir.EntryPoint
}

func newModule(stage ir.Stage, name string) *mb {
	f := &ir.Function{Name: name, Result: ir.Void{}}
	ep := &ir.EntryPoint{Name: name, Stage: stage, Func: f, NumThreads: [3]int{64, 1, 1}}
	return &mb{m: &ir.Module{Functions: []*ir.Function{f}, EntryPoints: []*ir.EntryPoint{ep}}, f: f, ep: ep}
}

func (b *mb) global(g *ir.Global) *ir.Global {
	b.m.Globals = append(b.m.Globals, g)
	switch g.Space {
	case ir.SpaceInput:
		b.ep.Inputs = append(b.ep.Inputs, g)
	case ir.SpaceOutput:
		b.ep.Outputs = append(b.ep.Outputs, g)
	}
	return g
}

// rwBuffer declares RWStructuredBuffer<elem> at set 0, the given binding.
func (b *mb) rwBuffer(name string, elem ir.Type, binding int) *ir.Global {
	return b.global(&ir.Global{Name: name, Type: &ir.Array{Elem: elem, Stride: hostStride(elem)}, Space: ir.SpaceStorage,
		Resource: ir.ResRWStructuredBuffer, Binding: &ir.Binding{Binding: binding, Register: "u0"}})
}

func (b *mb) input(name string, t ir.Type, bi ir.Builtin, loc int) *ir.Global {
	return b.global(&ir.Global{Name: name, Type: t, Space: ir.SpaceInput, Builtin: bi, Location: loc})
}

func (b *mb) output(name string, t ir.Type, bi ir.Builtin, loc int) *ir.Global {
	return b.global(&ir.Global{Name: name, Type: t, Space: ir.SpaceOutput, Builtin: bi, Location: loc})
}

func (b *mb) add(st ...ir.Stmt) { b.f.Body = append(b.f.Body, st...) }

func (b *mb) local(name string, t ir.Type) *ir.Local { return b.f.NewLocal(name, t) }

func gref(g *ir.Global) *ir.GlobalRef { return &ir.GlobalRef{G: g} }
func lref(l *ir.Local) *ir.LocalRef   { return &ir.LocalRef{L: l} }
func load(p ir.Expr) *ir.Load         { return &ir.Load{Place: p} }
func u32c(v uint64) *ir.Const         { return ir.ConstUint(ir.U32, v) }
func i32c(v int64) *ir.Const          { return ir.ConstInt(ir.I32, v) }
func f32c(v float64) *ir.Const        { return ir.ConstFloat(ir.F32, v) }
func elem(g *ir.Global, idx ir.Expr) *ir.Index {
	return &ir.Index{Base: gref(g), Idx: idx, T: g.Type.(*ir.Array).Elem}
}
func x(e ir.Expr) ir.Expr { return &ir.Swizzle{Base: e, Comps: []int{0}} }
func intr(op intrinsics.Op, t ir.Type, args ...ir.Expr) *ir.Intrinsic {
	return &ir.Intrinsic{Op: op, Args: args, T: t}
}
func bin(op ir.BinOp, x, y ir.Expr) *ir.Binary {
	t := x.Type()
	if op.IsComparison() {
		t = ir.WithScalar(t, ir.BoolT)
	}
	return &ir.Binary{Op: op, X: x, Y: y, T: t}
}

// cssum builds the seed example: Out[tid.x] = WaveActiveSum(1) + (WaveIsFirstLane() ? 1 : 0).
func cssum() *mb {
	b := newModule(ir.Compute, "CSSum")
	out := b.rwBuffer("Out", ir.U32, 1)
	tid := b.input("tid", ir.Vector{Elem: ir.U32, N: 3}, ir.BuiltinGlobalInvocationID, 0)
	sum := intr(intrinsics.WaveActiveSum, ir.U32, u32c(1))
	first := &ir.Convert{X: intr(intrinsics.WaveIsFirstLane, ir.BoolT), T: ir.U32}
	b.add(&ir.Store{Place: elem(out, x(load(gref(tid)))), Value: bin(ir.Add, sum, first)})
	return b
}

// quadPixel builds a pixel shader using only QuadReadAcrossX/Y (the PSSlope seed).
func quadPixel() *mb {
	b := newModule(ir.Pixel, "PSSlope")
	pos := b.input("pos", ir.Vector{Elem: ir.F32, N: 4}, ir.BuiltinPosition, 0)
	o := b.output("target", ir.Vector{Elem: ir.F32, N: 4}, ir.BuiltinNone, 0)
	v := x(load(gref(pos)))
	dx := bin(ir.Sub, intr(intrinsics.QuadReadAcrossX, ir.F32, v), v)
	dy := bin(ir.Sub, intr(intrinsics.QuadReadAcrossY, ir.F32, v), v)
	b.add(&ir.Store{Place: gref(o), Value: &ir.Construct{T: ir.Vector{Elem: ir.F32, N: 4}, Args: []ir.Expr{dx, dy, f32c(0), f32c(1)}}})
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
		t.Skipf("%s not installed: %v", name, err)
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

// emitValid emits the module for every Vulkan target and validates each.
func emitValid(t *testing.T, b *mb, opts Options) map[string]*Module {
	t.Helper()
	mods := map[string]*Module{}
	for _, e := range vulkanEnvs {
		o := opts
		o.Vulkan = e.vk
		mod, err := EmitEntry(b.m, b.ep, o)
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
