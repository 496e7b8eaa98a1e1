package reflect

import (
	"math"
	"testing"

	"waverig/compiler/ir"
)

// TestGroupSharedSize: unpadded sizes, saturating instead of overflowing.
func TestGroupSharedSize(t *testing.T) {
	f32, f16, f64 := ir.Scalar{Kind: ir.Float, Bits: 32}, ir.Scalar{Kind: ir.Float, Bits: 16}, ir.Scalar{Kind: ir.Float, Bits: 64}
	for _, c := range []struct {
		name string
		t    ir.Type
		want int
	}{
		{"bool", ir.BoolT, 4},
		{"half", f16, 2},
		{"float3", ir.Vector{Elem: f32, N: 3}, 12},
		{"float3[1365]", &ir.Array{Elem: ir.Vector{Elem: f32, N: 3}, Len: 1365}, 16380},
		{"float4x3", ir.Matrix{Elem: f32, Rows: 4, Cols: 3}, 48},
		{"struct { uint; double; }", &ir.Struct{Fields: []ir.Field{{Type: ir.U32}, {Type: f64}}}, 12},
		{"struct { half; half; }[3]", &ir.Array{Elem: &ir.Struct{Fields: []ir.Field{{Type: f16}, {Type: f16}}}, Len: 3}, 12},
		{"uint4[2^20][2^20][2^20]", &ir.Array{Elem: &ir.Array{Elem: &ir.Array{Elem: ir.Vector{Elem: ir.U32, N: 4}, Len: 1 << 20}, Len: 1 << 20}, Len: 1 << 20}, math.MaxInt},
	} {
		if got := GroupSharedSize(c.t); got != c.want {
			t.Errorf("%s: %d bytes, want %d", c.name, got, c.want)
		}
	}
}
