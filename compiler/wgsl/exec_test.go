package wgsl

import (
	"encoding/binary"
	"math"
	"testing"

	"waverig/compiler/intrinsics"
	"waverig/compiler/ir"
	. "waverig/compiler/ir/irtest"
	"waverig/harness/webgpu"
)

// The tests here run the emitted WGSL on wgpu-native (lavapipe locally) and
// check the values the lowerings produce, not just that they validate.

func u32s(b []byte) []uint32 {
	out := make([]uint32, len(b)/4)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return out
}

func fill(n int, v uint32) []byte {
	b := make([]byte, 4*n)
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint32(b[4*i:], v)
	}
	return b
}

func run(t *testing.T, m *ir.Module, groups uint32, bindings []webgpu.Binding) [][]byte {
	t.Helper()
	Valid(t, m)
	d := device(t)
	ep := m.EntryPoints[0]
	out, err := EmitEntry(m, ep, Options{Dialect: Naga})
	if err != nil {
		t.Fatal(err)
	}
	res, err := d.RunCompute(out.Source, ep.Name, [3]uint32{groups, 1, 1}, bindings)
	if err != nil {
		t.Fatalf("%v\n%s", err, numbered(out.Source))
	}
	return res
}

// TestLoweringsExecute checks the emulated wave operations against their
// HLSL definitions, lane by lane. Every lane of a 64-wide group is active,
// so the expected values follow from the lane index and the lane count.
func TestLoweringsExecute(t *testing.T) {
	const threads, slots = 64, 16
	b := newCompute("Lowerings", threads)
	out := b.RWBuffer("Out", ir.U32, 0, 0)
	lane := Intr(intrinsics.WaveGetLaneIndex, ir.U32)
	count := Intr(intrinsics.WaveGetLaneCount, ir.U32)
	bin := func(op ir.BinOp, x, y ir.Expr, t ir.Type) ir.Expr { return &ir.Binary{Op: op, X: x, Y: y, T: t} }
	u := func(x ir.Expr) ir.Expr { return &ir.Convert{X: x, T: ir.U32} }
	odd := bin(ir.Ne, bin(ir.BitAnd, lane, Uint(1), ir.U32), Uint(0), ir.BoolT)
	v2 := ir.Vector{Elem: ir.U32, N: 2}
	b2 := ir.Vector{Elem: ir.BoolT, N: 2}
	allEq2 := Intr(intrinsics.WaveActiveAllEqual, b2, &ir.Construct{T: v2, Args: []ir.Expr{Uint(7), lane}})
	values := []ir.Expr{
		lane,
		count,
		Intr(intrinsics.WaveActiveCountBits, ir.U32, ir.ConstBool(true)),
		Intr(intrinsics.WavePrefixCountBits, ir.U32, ir.ConstBool(true)),
		u(Intr(intrinsics.WaveIsFirstLane, ir.BoolT)),
		u(Intr(intrinsics.WaveActiveAllEqual, ir.BoolT, Uint(5))),
		u(Intr(intrinsics.WaveActiveAllEqual, ir.BoolT, lane)),
		bin(ir.BitOr, u(&ir.Swizzle{Base: allEq2, Comps: []int{0}}), bin(ir.Shl, u(&ir.Swizzle{Base: allEq2, Comps: []int{1}}), Uint(1), ir.U32), ir.U32),
		Intr(intrinsics.QuadReadLaneAt, ir.U32, lane, bin(ir.BitAnd, bin(ir.Add, lane, Uint(1), ir.U32), Uint(3), ir.U32)),
		Intr(intrinsics.QuadReadLaneAt, ir.U32, lane, Uint(2)),
		u(Intr(intrinsics.WaveReadLaneAt, ir.BoolT, odd, bin(ir.Rem, bin(ir.Add, lane, Uint(1), ir.U32), count, ir.U32))),
		Intr(intrinsics.WavePrefixCountBits, ir.U32, odd),
		Intr(intrinsics.WaveActiveCountBits, ir.U32, bin(ir.Lt, lane, Uint(3), ir.BoolT)),
		u(Intr(intrinsics.WaveReadLaneFirst, ir.BoolT, bin(ir.Eq, lane, Uint(0), ir.BoolT))),
		&ir.Swizzle{Base: Intr(intrinsics.WaveActiveBallot, vec4u, ir.ConstBool(true)), Comps: []int{0}},
		Intr(intrinsics.QuadReadAcrossDiagonal, ir.U32, lane),
	}
	for i, v := range values {
		idx := bin(ir.Add, bin(ir.MulOp, b.laneX(), Uint(slots), ir.U32), Uint(uint64(i)), ir.U32)
		b.Add(Store(Elem(out, idx), v))
	}
	res := run(t, b.M, 1, []webgpu.Binding{{Binding: 0, Data: fill(threads*slots, 0xdeadbeef), ReadBack: true}})
	got := u32s(res[0])
	n := got[1]
	if n < 4 || n > 128 || n&(n-1) != 0 {
		t.Fatalf("lane count %d", n)
	}
	t.Logf("subgroup size %d", n)
	b2u := func(b bool) uint32 {
		if b {
			return 1
		}
		return 0
	}
	for tid := 0; tid < threads; tid++ {
		s := got[tid*slots : (tid+1)*slots]
		l := s[0]
		ballot := uint32(0xffffffff)
		if n < 32 {
			ballot = 1<<n - 1
		}
		want := []uint32{
			l, n, n, l, b2u(l == 0), 1, b2u(n == 1), 1 | b2u(n == 1)<<1,
			l&^3 | (l+1)&3, l&^3 | 2, ((l + 1) % n) & 1, l / 2, min(3, n), 1, ballot, l ^ 3,
		}
		names := []string{"lane", "count", "CountBits(true)", "PrefixCountBits(true)", "IsFirstLane", "AllEqual(5)",
			"AllEqual(lane)", "AllEqual(uint2(7,lane))", "QuadReadLaneAt(dyn)", "QuadReadLaneAt(2)", "ReadLaneAt(bool)",
			"PrefixCountBits(odd)", "CountBits(lane<3)", "ReadLaneFirst(bool)", "Ballot.x", "QuadReadAcrossDiagonal"}
		for i := range want {
			if s[i] != want[i] {
				t.Errorf("thread %d (lane %d): %s = %d, want %d", tid, l, names[i], s[i], want[i])
			}
		}
	}
}

// TestEarlyReturnExecutes runs the restructured early-return kernel: lanes
// that return skip the rest, the others meet at every barrier.
func TestEarlyReturnExecutes(t *testing.T) {
	res := run(t, earlyReturn(), 1, []webgpu.Binding{{Binding: 0, Data: fill(64, 0xdead), ReadBack: true}})
	got := u32s(res[0])
	for l := uint32(0); l < 64; l++ {
		var want uint32
		switch {
		case l >= 48:
			want = 0xdead // returned before writing
		case l < 4:
			want = l ^ 1 // Out[l] == i for i = l^1 < 4: returned inside the loop
		default:
			want = l + 0 + 1 + 2 + 3
		}
		if got[l] != want {
			t.Errorf("Out[%d] = %d, want %d", l, got[l], want)
		}
	}
}

// TestAtomicsExecute: InterlockedAdd from every lane, and the strong compare-
// exchange loop (the first lane always sees 0 and must swap it).
func TestAtomicsExecute(t *testing.T) {
	b := newCompute("Atomics", 64)
	ctr := b.RWBuffer("Counters", ir.U32, 0, 0)
	ctr.Atomic = true
	out := b.RWBuffer("Out", ir.U32, 0, 1)
	orig := b.F.NewLocal("orig", ir.U32)
	b.Add(
		&ir.ExprStmt{X: Intr(intrinsics.InterlockedAdd, ir.U32, Elem(ctr, Uint(0)), Uint(1))},
		Store(&ir.LocalRef{L: orig}, Intr(intrinsics.InterlockedCompareExchange, ir.U32, Elem(ctr, Uint(1)), b.laneX(),
			&ir.Binary{Op: ir.Add, X: b.laneX(), Y: Uint(1), T: ir.U32})),
		Store(Elem(out, b.laneX()), Load(&ir.LocalRef{L: orig})),
	)
	res := run(t, b.M, 1, []webgpu.Binding{
		{Binding: 0, Data: fill(2, 0), ReadBack: true},
		{Binding: 1, Data: fill(64, 0xffff), ReadBack: true},
	})
	c, o := u32s(res[0]), u32s(res[1])
	if c[0] != 64 {
		t.Errorf("InterlockedAdd total %d, want 64", c[0])
	}
	if c[1] < 1 || c[1] > 64 {
		t.Errorf("compare-exchange chain reached %d", c[1])
	}
	if o[0] != 0 {
		t.Errorf("lane 0 saw original %d, want 0", o[0])
	}
	// Every lane that swapped saw exactly its own index; the chain is the
	// lanes 0..c[1]-1.
	for l := uint32(0); l < c[1]; l++ {
		if o[l] != l {
			t.Errorf("lane %d in the chain saw %d", l, o[l])
		}
	}
}

func f32s(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

func putF32(b []byte, off int, v float32) {
	binary.LittleEndian.PutUint32(b[off:], math.Float32bits(v))
}

// TestMatricesExecute: the HLSL bytes of a column-major and a row-major
// float2x3 go in, HLSL's mul and row/element accesses come out, and stores
// land where HLSL puts them.
func TestMatricesExecute(t *testing.T) {
	b := newCompute("main", 1)
	cm := ir.Matrix{Elem: ir.F32, Rows: 2, Cols: 3, Stride: 8}
	rm := ir.Matrix{Elem: ir.F32, Rows: 2, Cols: 3, Stride: 16, RowMajor: true}
	st := &ir.Struct{Name: "Mats", Fields: []ir.Field{{Name: "cm", Type: cm}, {Name: "rm", Type: rm, Offset: 32}}, Size: 64, Align: 16}
	b.M.Structs = append(b.M.Structs, st)
	buf := b.Global(&ir.Global{Name: "M", Type: st, Space: ir.SpaceStorage, Resource: ir.ResRWStructuredBuffer, Binding: &ir.Binding{Binding: 0}})
	out := b.RWBuffer("Out", vec3f, 0, 1)
	field := func(i int) ir.Expr { return &ir.Member{Base: &ir.GlobalRef{G: buf}, Field: i} }
	row := func(m ir.Expr, r uint64) *ir.Index { return &ir.Index{Base: m, Idx: Uint(r), T: vec3f} }
	f := func(v float64) ir.Expr { return ir.ConstFloat(ir.F32, v) }
	v := &ir.Construct{T: ir.Vector{Elem: ir.F32, N: 2}, Args: []ir.Expr{f(2), f(3)}}
	w := &ir.Construct{T: vec3f, Args: []ir.Expr{f(1), f(10), f(100)}}
	b.Add(
		Store(Elem(out, Uint(0)), Intr(intrinsics.Mul, vec3f, v, Load(field(0)))),
		Store(Elem(out, Uint(1)), Intr(intrinsics.Mul, vec3f, v, Load(field(1)))),
		Store(Elem(out, Uint(2)), Load(row(field(0), 1))),
		Store(Elem(out, Uint(3)), Load(row(field(1), 1))),
		Store(Elem(out, Uint(4)), &ir.Construct{T: vec3f, Args: []ir.Expr{
			Intr(intrinsics.Mul, ir.Vector{Elem: ir.F32, N: 2}, Load(field(0)), w), f(0)}}),
		Store(row(field(0), 0), &ir.Construct{T: vec3f, Args: []ir.Expr{f(-1), f(-2), f(-3)}}),
		Store(&ir.Index{Base: row(field(1), 0), Idx: Uint(2), T: ir.F32}, f(99)),
	)
	// m[r][c] = 10*r + c + 1 in both matrices, in HLSL's byte layouts.
	in := make([]byte, 64)
	for r := 0; r < 2; r++ {
		for c := 0; c < 3; c++ {
			val := float32(10*r + c + 1)
			putF32(in, c*8+r*4, val)     // column-major: 3 columns of 2
			putF32(in, 32+r*16+c*4, val) // row-major: 2 rows of 3 (stride 16)
		}
	}
	res := run(t, b.M, 1, []webgpu.Binding{{Binding: 0, Data: in, ReadBack: true}, {Binding: 1, Data: make([]byte, 5*16), ReadBack: true}})
	got := f32s(res[1])
	m := func(r, c int) float32 { return float32(10*r + c + 1) }
	vecMul := []float32{2*m(0, 0) + 3*m(1, 0), 2*m(0, 1) + 3*m(1, 1), 2*m(0, 2) + 3*m(1, 2)}
	want := [][]float32{
		vecMul, vecMul,
		{m(1, 0), m(1, 1), m(1, 2)}, {m(1, 0), m(1, 1), m(1, 2)},
		{m(0, 0) + 10*m(0, 1) + 100*m(0, 2), m(1, 0) + 10*m(1, 1) + 100*m(1, 2), 0},
	}
	for i, wv := range want {
		for c := range wv {
			if g := got[4*i+c]; g != wv[c] {
				t.Errorf("Out[%d].%c = %v, want %v", i, "xyz"[c], g, wv[c])
			}
		}
	}
	mem := f32s(res[0])
	// Row 0 of the column-major matrix is element 0 of each column.
	for c, want := range []float32{-1, -2, -3} {
		if g := mem[c*2]; g != want {
			t.Errorf("cm[0][%d] in memory = %v, want %v", c, g, want)
		}
	}
	if g := mem[2*1+1]; g != m(1, 1) {
		t.Errorf("cm[1][1] was disturbed: %v", g)
	}
	if g := mem[8+2]; g != 99 {
		t.Errorf("rm[0][2] in memory = %v, want 99", g)
	}
}

// TestUniformPaddingExecutes: the padded cbuffer arrays read back HLSL's values.
func TestUniformPaddingExecutes(t *testing.T) {
	cb := make([]byte, 112)
	for i := 0; i < 4; i++ {
		putF32(cb, 16*i, float32(i+1)*1.5) // a[i]
	}
	putF32(cb, 64+16+4, 1000) // b[1].y
	binary.LittleEndian.PutUint32(cb[96:], 3)
	res := run(t, uniformPaddingModule(), 1, []webgpu.Binding{{Binding: 1, Data: cb, Uniform: true}, {Binding: 0, Data: make([]byte, 16), ReadBack: true}})
	got := f32s(res[1])
	for tid := 0; tid < 4; tid++ {
		want := float32(tid%3+1)*1.5 + 1000
		if got[tid] != want {
			t.Errorf("Out[%d] = %v, want %v", tid, got[tid], want)
		}
	}
}
