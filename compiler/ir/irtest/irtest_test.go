package irtest

import (
	"testing"

	"waverig/compiler/intrinsics"
	"waverig/compiler/ir"
)

// TestBuilder builds the package example plus a helper function and checks the
// module's shape: valid, helper before the entry function, stage IO registered.
func TestBuilder(t *testing.T) {
	b := Compute("CSSum", 64)
	out := b.RWBuffer("Out", ir.U32, 0, 1)
	tid := b.Input("tid", ir.Vector{Elem: ir.U32, N: 3}, ir.BuiltinGlobalInvocationID, 0)
	h := &ir.Function{Name: "twice", Result: ir.U32}
	v := h.NewLocal("v", ir.U32)
	h.Params = []ir.Param{{Local: v}}
	h.Body = ir.Block{&ir.Return{Value: Bin(ir.MulOp, Load(LRef(v)), Uint(2))}}
	b.Func(h)
	acc := b.Local("acc", ir.U32)
	b.Add(
		Store(LRef(acc), &ir.Call{Func: h, Args: []ir.Expr{X(Load(GRef(tid)))}}),
		Store(Elem(out, X(Load(GRef(tid)))), Intr(intrinsics.WaveActiveSum, ir.U32, Load(LRef(acc)))),
	)
	Valid(t, b.M)
	if fs := b.M.Functions; len(fs) != 2 || fs[0] != h || fs[1] != b.F {
		t.Errorf("functions %v, want the helper then the entry function", fs)
	}
	if len(b.EP.Inputs) != 1 || b.EP.Inputs[0] != tid || b.EP.NumThreads != [3]int{64, 1, 1} {
		t.Errorf("entry point %+v", b.EP)
	}
	if s := Splat(Float(1), 3); !ir.Equal(s.Type(), ir.Vector{Elem: ir.F32, N: 3}) {
		t.Errorf("Splat gives %s", s.Type())
	}
	if got := ir.Dump(b.M); got == "" {
		t.Error("empty dump")
	}
}

func TestStride(t *testing.T) {
	for _, c := range []struct {
		t    ir.Type
		want int
	}{
		{ir.U32, 4}, {ir.F64, 8}, {ir.Vector{Elem: ir.F32, N: 2}, 8}, {ir.Vector{Elem: ir.F32, N: 3}, 16},
		{ir.Vector{Elem: ir.F16, N: 3}, 8}, {ir.Matrix{Elem: ir.F32, Rows: 2, Cols: 3}, 32},
		{&ir.Struct{Name: "S", Size: 20, Align: 4}, 20},
	} {
		if got := stride(c.t); got != c.want {
			t.Errorf("stride(%s) = %d, want %d", c.t, got, c.want)
		}
	}
}
