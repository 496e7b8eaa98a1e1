package ir

import (
	"strings"
	"testing"

	"waverig/compiler/intrinsics"
)

// TestDumpSmallModule pins the textual form of a tiny hand-built module.
func TestDumpSmallModule(t *testing.T) {
	buf := &Global{Name: "Out", Type: &Array{Elem: U32, Stride: 4}, Space: SpaceStorage, Resource: ResRWStructuredBuffer,
		Binding: &Binding{Set: 0, Binding: 1, Register: "u1"}}
	id := &Global{Name: "tid", Type: Vector{U32, 3}, Space: SpaceInput, Builtin: BuiltinGlobalInvocationID, Semantic: "SV_DispatchThreadID"}
	f := &Function{Name: "CSSum", Result: Void{}}
	sum := &Intrinsic{Op: intrinsics.WaveActiveSum, Args: []Expr{ConstUint(U32, 1)}, T: U32}
	f.Body = Block{&Store{Place: &Index{Base: &GlobalRef{buf}, Idx: &Swizzle{Base: &Load{&GlobalRef{id}}, Comps: []int{0}}, T: U32}, Value: sum}}
	m := &Module{Globals: []*Global{buf, id}, Functions: []*Function{f},
		EntryPoints: []*EntryPoint{{Name: "CSSum", Stage: Compute, NumThreads: [3]int{64, 1, 1}, Func: f, Inputs: []*Global{id}}}}
	got := Dump(m)
	want := `global storage Out: array<u32>{stride=4} resource=RWStructuredBuffer @set(0) @binding(1) register(u1)
global input tid: vec3<u32> @builtin(global_invocation_id) : SV_DispatchThreadID
fn CSSum() -> void {
  store @Out[load(@tid).x] = WaveActiveSum(1u32): u32
}
entry Compute CSSum -> fn CSSum numthreads(64,1,1) in[tid] out[]
`
	if got != want {
		t.Fatalf("dump mismatch:\n%s\nwant:\n%s", got, want)
	}
	if !strings.Contains(got, "WaveActiveSum") {
		t.Fatal("intrinsic name missing")
	}
}

func TestHalfRoundTrip(t *testing.T) {
	for _, v := range []float32{0, 1, -2.5, 65504, 0.000061035156, 1.0 / 3} {
		h := Float32ToHalf(v)
		back := HalfToFloat32(h)
		if Float32ToHalf(back) != h {
			t.Errorf("%v: %04x -> %v does not round-trip", v, h, back)
		}
	}
	if HalfToFloat32(Float32ToHalf(1.5)) != 1.5 {
		t.Error("1.5 not exact")
	}
}
