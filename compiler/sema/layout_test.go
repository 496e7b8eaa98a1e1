package sema

import (
	"fmt"
	"strings"
	"testing"

	"waverig/compiler/diag"
	"waverig/compiler/ir"
)

func field(name string, t ir.Type) ir.Field { return ir.Field{Name: name, Type: t} }

// offsets renders "name@offset" for every field, plus size and align.
func offsets(st *ir.Struct) string {
	var parts []string
	for _, f := range st.Fields {
		parts = append(parts, fmt.Sprintf("%s@%d", f.Name, f.Offset))
	}
	return fmt.Sprintf("%s size=%d align=%d", strings.Join(parts, " "), st.Size, st.Align)
}

// TestLayoutRules checks the WGSL host-shareable rule on the cases where DXC's
// defaults and WGSL could disagree (the expected offsets are WGSL's, from the
// WGSL spec's alignment/size tables).
func TestLayoutRules(t *testing.T) {
	vec := func(s ir.Scalar, n int) ir.Type { return ir.Vector{Elem: s, N: n} }
	cases := []struct {
		name   string
		fields []ir.Field
		rule   layoutRule
		want   string
	}{
		{"float then float3 goes to 16", []ir.Field{field("a", ir.F32), field("b", vec(ir.F32, 3))}, layoutStorage, "a@0 b@16 size=32 align=16"},
		{"float3 then float packs at 12", []ir.Field{field("a", vec(ir.F32, 3)), field("b", ir.F32)}, layoutStorage, "a@0 b@12 size=16 align=16"},
		{"vec2 aligns to 8", []ir.Field{field("a", ir.F32), field("b", vec(ir.F32, 2))}, layoutStorage, "a@0 b@8 size=16 align=8"},
		{"half packs at 2", []ir.Field{field("a", ir.F16), field("b", ir.F16), field("c", vec(ir.F16, 3))}, layoutStorage, "a@0 b@2 c@8 size=16 align=8"},
		{"double aligns to 8", []ir.Field{field("a", ir.U32), field("b", ir.F64)}, layoutStorage, "a@0 b@8 size=16 align=8"},
		{"uint64 vec3 aligns to 32", []ir.Field{field("a", ir.U32), field("b", vec(ir.U64, 3))}, layoutStorage, "a@0 b@32 size=64 align=32"},
		{"storage scalar array stride 4", []ir.Field{field("a", &ir.Array{Elem: ir.F32, Len: 3}), field("b", ir.F32)}, layoutStorage, "a@0 b@12 size=16 align=4"},
		{"uniform scalar array stride 16", []ir.Field{field("a", &ir.Array{Elem: ir.F32, Len: 3}), field("b", ir.F32)}, layoutUniform, "a@0 b@48 size=64 align=16"},
		{"float3x3 columns of 16", []ir.Field{field("m", ir.Matrix{Elem: ir.F32, Rows: 3, Cols: 3}), field("x", ir.F32)}, layoutStorage, "m@0 x@48 size=64 align=16"},
		{"float2x3 column-major: 3 columns of vec2", []ir.Field{field("m", ir.Matrix{Elem: ir.F32, Rows: 2, Cols: 3}), field("x", ir.F32)}, layoutStorage, "m@0 x@24 size=32 align=8"},
		{"float2x3 row_major: 2 rows of vec3", []ir.Field{field("m", ir.Matrix{Elem: ir.F32, Rows: 2, Cols: 3, RowMajor: true}), field("x", ir.F32)}, layoutStorage, "m@0 x@32 size=48 align=16"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newChecker(Options{}, &diag.Log{})
			st := &ir.Struct{Name: "S", Fields: tc.fields}
			c.layoutStruct(st, tc.rule, diag.Pos{})
			if got := offsets(st); got != tc.want {
				t.Errorf("got %s, want %s (%s)", got, tc.want, describeLayout(st))
			}
		})
	}
}

// TestLayoutNested checks nested structs: a uniform struct member is 16-aligned and
// arrays of structs use the struct's rounded size as stride.
func TestLayoutNested(t *testing.T) {
	c := newChecker(Options{}, &diag.Log{})
	inner := &ir.Struct{Name: "In", Fields: []ir.Field{field("a", ir.F32), field("b", ir.F32)}}
	outer := &ir.Struct{Name: "Out", Fields: []ir.Field{field("x", ir.F32), field("in", inner), field("arr", &ir.Array{Elem: inner, Len: 2})}}
	c.layoutStruct(outer, layoutStorage, diag.Pos{})
	if got := offsets(outer); got != "x@0 in@4 arr@12 size=28 align=4" {
		t.Errorf("storage: %s", got)
	}
	if s := outer.Fields[2].Type.(*ir.Array).Stride; s != 8 {
		t.Errorf("storage array of struct stride %d, want 8", s)
	}
	c2 := newChecker(Options{}, &diag.Log{})
	inner2 := &ir.Struct{Name: "In", Fields: []ir.Field{field("a", ir.F32), field("b", ir.F32)}}
	outer2 := &ir.Struct{Name: "Out", Fields: []ir.Field{field("x", ir.F32), field("in", inner2), field("arr", &ir.Array{Elem: inner2, Len: 2})}}
	c2.layoutStruct(outer2, layoutUniform, diag.Pos{})
	if got := offsets(outer2); got != "x@0 in@16 arr@32 size=64 align=16" {
		t.Errorf("uniform: %s", got)
	}
	if s := outer2.Fields[2].Type.(*ir.Array).Stride; s != 16 {
		t.Errorf("uniform array of struct stride %d, want 16", s)
	}
}

// TestLayoutConflict: one struct whose uniform and storage layouts differ is an error.
func TestLayoutConflict(t *testing.T) {
	src := `struct S { float a[2]; };
ConstantBuffer<S> cb : register(b0);
RWStructuredBuffer<S> sb : register(u1);
[shader("compute")] [numthreads(1,1,1)] void main() { sb[0] = cb; }
`
	_, log := compile(t, "l.hlsl", src, Options{})
	for _, m := range log.Msgs {
		if m.Code == diag.ErrLayoutConflict {
			return
		}
	}
	t.Fatalf("no layout conflict reported: %s", errorsOf(log))
}

// TestArraysCopiedNotShared: laying out a buffer must not give strides to an array
// type shared with a local through a typedef.
func TestArraysCopiedNotShared(t *testing.T) {
	src := `typedef float F3[3];
struct S { F3 v; };
RWStructuredBuffer<S> sb : register(u0);
[shader("compute")] [numthreads(1,1,1)] void main() { F3 local = { 1, 2, 3 }; sb[0].v = local; }
`
	m, log := compile(t, "a.hlsl", src, Options{})
	if m == nil {
		t.Fatalf("errors: %s", errorsOf(log))
	}
	for _, f := range m.Functions {
		for _, l := range f.Locals {
			if a, ok := l.Type.(*ir.Array); ok && a.Stride != 0 {
				t.Errorf("local %s has stride %d", l.Name, a.Stride)
			}
		}
	}
	for _, v := range invariants(m) {
		t.Error(v)
	}
}
