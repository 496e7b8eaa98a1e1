package spirv

import (
	"errors"
	"strings"
	"testing"

	"waverig/compiler/diag"
	"waverig/compiler/intrinsics"
	"waverig/compiler/ir"
	. "waverig/compiler/ir/irtest"
)

func wantCode(t *testing.T, err error, code diag.Code, pos diag.Pos) {
	t.Helper()
	var de *diag.Errors
	if !errors.As(err, &de) || len(de.Msgs) == 0 {
		t.Fatalf("want %s, got %v", code, err)
	}
	m := de.Msgs[0]
	if m.Code != code {
		t.Fatalf("want %s, got %v", code, err)
	}
	if pos.IsValid() && m.Pos != pos {
		t.Errorf("position %v, want %v", m.Pos, pos)
	}
	if _, ok := diag.Lookup(m.Code); !ok {
		t.Errorf("code %s is not registered", m.Code)
	}
}

func TestQuadLaneMustBeConstantBefore15(t *testing.T) {
	src := diag.NewSource("q.hlsl", "float r = QuadReadLaneAt(v, lane);\n")
	pos := diag.Pos{Src: src, Off: 10}
	b := Compute("main", 64)
	v, lane, r := b.Local("v", ir.F32), b.Local("lane", ir.U32), b.Local("r", ir.F32)
	b.Add(&ir.Store{Place: LRef(r), Value: &ir.Intrinsic{Op: intrinsics.QuadReadLaneAt, Args: []ir.Expr{Load(LRef(v)), Load(LRef(lane))}, T: ir.F32, Pos: pos}})
	Valid(t, b.M)
	_, err := EmitEntry(b.M, b.EP, Options{Vulkan: "1.1"})
	wantCode(t, err, diag.ErrSpvQuadLaneConst, pos)
	for _, vk := range []struct{ vk, env string }{{"1.2", "vulkan1.2"}, {"1.3", "vulkan1.3"}} {
		mod, err := EmitEntry(b.M, b.EP, Options{Vulkan: vk.vk})
		if err != nil {
			t.Fatalf("vulkan %s: %v", vk.vk, err)
		}
		validate(t, mod, vk.env)
	}
}

func TestPartitionedNeedsOption(t *testing.T) {
	b := Compute("main", 64)
	v, r := b.Local("v", ir.U32), b.Local("r", v4u)
	b.Add(&ir.Store{Place: LRef(r), Value: Intr(intrinsics.WaveMatch, v4u, Load(LRef(v)))})
	Valid(t, b.M)
	_, err := EmitEntry(b.M, b.EP, Options{})
	wantCode(t, err, diag.ErrSpvPartitioned, diag.Pos{})
	if !strings.Contains(err.Error(), "WaveActiveBallot") {
		t.Errorf("message should suggest the ballot loop: %v", err)
	}
	mods := emitValid(t, b, Options{PartitionedNV: true})
	for vk, mod := range mods {
		if len(mod.Extensions) != 1 || mod.Extensions[0] != "SPV_NV_shader_subgroup_partitioned" {
			t.Errorf("vulkan %s: extensions %v", vk, mod.Extensions)
		}
		if mod.SubgroupBits != intrinsics.VkPartitionedNV {
			t.Errorf("vulkan %s: bits %#x", vk, mod.SubgroupBits)
		}
	}
}

func TestIntegerMatrixRejected(t *testing.T) {
	b := Compute("main", 64)
	b.Local("m", ir.Matrix{Elem: ir.I32, Rows: 2, Cols: 2})
	Valid(t, b.M)
	_, err := EmitEntry(b.M, b.EP, Options{})
	wantCode(t, err, diag.ErrSpvIntMatrix, diag.Pos{})
}

func TestBadTarget(t *testing.T) {
	_, err := EmitEntry(cssum().M, cssum().EP, Options{Vulkan: "1.0"})
	wantCode(t, err, diag.ErrSpvTarget, diag.Pos{})
}

func TestSpecConstantMustBeScalar(t *testing.T) {
	b := Compute("main", 64)
	g := b.Global(&ir.Global{Name: "k", Type: v2f, Space: ir.SpacePrivate, Const: true, Spec: true,
		Init: &ir.Construct{T: v2f, Args: []ir.Expr{Float(1), Float(2)}}})
	r := b.Local("r", v2f)
	b.Add(&ir.Store{Place: LRef(r), Value: Load(GRef(g))})
	Valid(t, b.M)
	_, err := EmitEntry(b.M, b.EP, Options{})
	wantCode(t, err, diag.ErrSpvSpecConst, diag.Pos{})
}

// TestMalformedIRNeverPanics feeds shapes sema should never produce; the back
// end must answer with coded errors, not crash.
func TestMalformedIRNeverPanics(t *testing.T) {
	mk := func(st ...ir.Stmt) *Builder {
		b := Compute("main", 64)
		b.Add(st...)
		return b
	}
	other := &ir.Local{Name: "stranger", Type: ir.U32, ID: 42}
	cases := map[string]*Builder{
		"break outside loop":  mk(&ir.Break{}),
		"continue outside":    mk(&ir.Continue{}),
		"nil expression":      mk(&ir.ExprStmt{X: &ir.Binary{Op: ir.Add, X: nil, Y: Uint(1), T: ir.U32}}),
		"store to value":      mk(&ir.Store{Place: Uint(1), Value: Uint(2)}),
		"foreign local":       mk(&ir.Store{Place: LRef(other), Value: Uint(2)}),
		"float switch":        mk(&ir.Switch{Selector: Float(1)}),
		"bad binary op":       mk(&ir.ExprStmt{X: &ir.Binary{Op: 200, X: Uint(1), Y: Uint(1), T: ir.U32}}),
		"unknown intrinsic":   mk(&ir.ExprStmt{X: &ir.Intrinsic{Op: 9999, T: ir.U32}}),
		"missing wave args":   mk(&ir.ExprStmt{X: &ir.Intrinsic{Op: intrinsics.WaveActiveSum, T: ir.U32}}),
		"atomic on value":     mk(&ir.ExprStmt{X: Intr(intrinsics.InterlockedAdd, ir.U32, Uint(1), Uint(2))}),
		"texture on buffer":   mk(&ir.ExprStmt{X: Intr(intrinsics.TextureLoad, v4f, Uint(1), Uint(2))}),
		"shift on float":      mk(&ir.ExprStmt{X: Bin(ir.Shl, Float(1), Float(1))}),
		"call arity":          mk(&ir.ExprStmt{X: &ir.Call{Func: &ir.Function{Name: "f", Result: ir.Void{}, Params: []ir.Param{{Local: &ir.Local{Type: ir.U32}}}}}}),
		"bitand on floats":    mk(&ir.ExprStmt{X: Bin(ir.BitAnd, Float(1), Float(1))}),
		"member out of range": mk(&ir.ExprStmt{X: &ir.Member{Base: &ir.Construct{T: &ir.Struct{Name: "S"}}, Field: 3}}),
	}
	for name, b := range cases {
		t.Run(name, func(t *testing.T) {
			mod, err := EmitEntry(b.M, b.EP, Options{})
			var de *diag.Errors
			if err == nil || !errors.As(err, &de) || mod != nil {
				t.Fatalf("want a coded error, got %v", err)
			}
			t.Log(de.Msgs[0].Code, strings.SplitN(de.Msgs[0].Text, "\n", 2)[0])
			for _, m := range de.Msgs {
				if m.Code == diag.ErrSpvInternal {
					t.Errorf("the malformed shape reached a recovered panic: %s", m.Text)
				}
				if !strings.HasPrefix(string(m.Code), "E05") {
					t.Errorf("code %s outside the SPIR-V range", m.Code)
				}
			}
		})
	}
	if _, err := EmitEntry(nil, nil, Options{}); err == nil {
		t.Error("nil module accepted")
	}
}

func TestHandleLocalRejected(t *testing.T) {
	b := Compute("main", 64)
	b.Local("t", ir.Texture2D{Elem: ir.F32, Components: 4})
	Valid(t, b.M)
	_, err := EmitEntry(b.M, b.EP, Options{})
	wantCode(t, err, diag.ErrSpvType, diag.Pos{})
}
