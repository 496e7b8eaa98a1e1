package spirv

import (
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"waverig/compiler/ir"
	. "waverig/compiler/ir/irtest"
)

// explicitLayoutLeaks reports pointer types of Function, Private, Workgroup,
// Input or Output storage whose pointee carries explicit layout decorations
// (ArrayStride, member Offset/MatrixStride), which Vulkan forbids from SPIR-V
// 1.5 (VUID-StandaloneSpirv-None-10684, checked by newer spirv-val than the one
// installed here) and which the emitter never produces at any version.
func explicitLayoutLeaks(w []uint32) []string {
	decorated := map[uint32]bool{}
	composite := map[uint32][]uint32{} // type id -> component type ids
	type ptr struct{ id, sc, pointee uint32 }
	var ptrs []ptr
	for i := 5; i < len(w); {
		n, op := int(w[i]>>16), uint16(w[i])
		if n == 0 || i+n > len(w) {
			break
		}
		ops := w[i+1 : i+n]
		switch op {
		case opDecorate:
			if ops[1] == decArrayStride {
				decorated[ops[0]] = true
			}
		case opMemberDecorate:
			if ops[2] == decOffset || ops[2] == decMatrixStride {
				decorated[ops[0]] = true
			}
		case opTypeArray, opTypeRuntimeArray, opTypeVector, opTypeMatrix:
			composite[ops[0]] = ops[1:2]
		case opTypeStruct:
			composite[ops[0]] = ops[1:]
		case opTypePointer:
			ptrs = append(ptrs, ptr{ops[0], ops[1], ops[2]})
		}
		i += n
	}
	var leaks func(id uint32) bool
	leaks = func(id uint32) bool {
		if decorated[id] {
			return true
		}
		for _, c := range composite[id] {
			if leaks(c) {
				return true
			}
		}
		return false
	}
	var out []string
	for _, p := range ptrs {
		switch p.sc {
		case scFunction, scPrivate, scWorkgroup, scInput, scOutput:
			if leaks(p.pointee) {
				out = append(out, fmt.Sprintf("pointer %%%d (storage class %d) to an explicitly laid-out type", p.id, p.sc))
			}
		}
	}
	return out
}

// TestNoExplicitLayoutOutsideBlocks: a struct and an array laid out for a
// buffer, copied to and from locals, privates and groupshared, keep their
// decorations only in the buffer blocks (values are converted on the way).
func TestNoExplicitLayoutOutsideBlocks(t *testing.T) {
	b := Compute("main", 64)
	arr := &ir.Array{Elem: ir.F32, Len: 4, Stride: 16}
	st := &ir.Struct{Name: "S", Size: 80, Align: 16, Fields: []ir.Field{
		{Name: "m", Type: ir.Matrix{Elem: ir.F32, Rows: 2, Cols: 2, Stride: 16}},
		{Name: "a", Type: arr, Offset: 32},
		{Name: "u", Type: ir.U32, Offset: 96},
	}}
	st.Size = 112
	buf := b.RWBuffer("Buf", st, 0, 0)
	buf.Type.(*ir.Array).Stride = 112
	cb := b.Global(&ir.Global{Name: "cb", Type: &ir.Struct{Name: "CB", Size: 112, Align: 16, Fields: []ir.Field{{Name: "s", Type: st}}},
		Space: ir.SpaceUniform, Binding: &ir.Binding{Binding: 1}})
	gs := b.Global(&ir.Global{Name: "gs", Type: &ir.Array{Elem: st, Len: 8}, Space: ir.SpaceWorkgroup})
	priv := b.Global(&ir.Global{Name: "priv", Type: st, Space: ir.SpacePrivate})
	l := b.Local("l", st)
	la := b.Local("la", arr)
	b.Add(
		&ir.Store{Place: LRef(l), Value: Load(Elem(buf, Uint(0)))},
		&ir.Store{Place: LRef(la), Value: Load(&ir.Member{Base: &ir.Member{Base: GRef(cb), Field: 0}, Field: 1})},
		&ir.Store{Place: &ir.Member{Base: LRef(l), Field: 1}, Value: Load(LRef(la))},
		&ir.Store{Place: &ir.Index{Base: GRef(gs), Idx: Uint(1), T: st}, Value: Load(LRef(l))},
		&ir.Store{Place: GRef(priv), Value: Load(&ir.Index{Base: GRef(gs), Idx: Uint(1), T: st})},
		&ir.Store{Place: Elem(buf, Uint(1)), Value: Load(GRef(priv))},
		&ir.Store{Place: &ir.Member{Base: Elem(buf, Uint(2)), Field: 1}, Value: Load(LRef(la))},
	)
	emitValid(t, b, Options{})
}

// assemble runs spirv-as on a module source and returns its words.
func assemble(t *testing.T, src string) []uint32 {
	t.Helper()
	as := needTool(t, "spirv-as")
	dir := t.TempDir()
	in, out := filepath.Join(dir, "m.spvasm"), filepath.Join(dir, "m.spv")
	if err := os.WriteFile(in, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if msg, err := exec.Command(as, "--target-env", "spv1.3", in, "-o", out).CombinedOutput(); err != nil {
		t.Fatalf("spirv-as: %v\n%s", err, msg)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	words := make([]uint32, len(data)/4)
	for i := range words {
		words[i] = binary.LittleEndian.Uint32(data[4*i:])
	}
	return words
}

// TestLayoutCheckersFindProblems makes sure the two checkers are not vacuous:
// an ArrayStride-decorated array in Function storage and a Block struct nested
// in another block are reported.
func TestLayoutCheckersFindProblems(t *testing.T) {
	words := assemble(t, `OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
OpDecorate %arr ArrayStride 16
OpDecorate %inner Block
OpMemberDecorate %inner 0 Offset 0
OpDecorate %outer Block
OpMemberDecorate %outer 0 Offset 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%float = OpTypeFloat 32
%uint = OpTypeInt 32 0
%uint_4 = OpConstant %uint 4
%arr = OpTypeArray %float %uint_4
%inner = OpTypeStruct %float
%outer = OpTypeStruct %inner
%ptr = OpTypePointer Function %arr
%main = OpFunction %void None %fn
%l = OpLabel
%v = OpVariable %ptr Function
OpReturn
OpFunctionEnd
`)
	if leaks := explicitLayoutLeaks(words); len(leaks) != 1 {
		t.Errorf("layout checker found %v, want one leak", leaks)
	}
	if nested := nestedBlocks(words); len(nested) != 1 {
		t.Errorf("block checker found %v, want one nested block", nested)
	}
}

// nestedBlocks reports Block-decorated structs that are members (at any depth,
// through arrays) of another struct: SPIR-V forbids nesting blocks.
func nestedBlocks(w []uint32) []uint32 {
	blocks := map[uint32]bool{}
	members := map[uint32][]uint32{}
	for i := 5; i < len(w); {
		n, op := int(w[i]>>16), uint16(w[i])
		if n == 0 || i+n > len(w) {
			break
		}
		ops := w[i+1 : i+n]
		switch op {
		case opDecorate:
			if ops[1] == decBlock {
				blocks[ops[0]] = true
			}
		case opTypeStruct:
			members[ops[0]] = ops[1:]
		case opTypeArray, opTypeRuntimeArray:
			members[ops[0]] = ops[1:2]
		}
		i += n
	}
	var bad []uint32
	var walk func(id uint32, top bool)
	walk = func(id uint32, top bool) {
		if !top && blocks[id] {
			bad = append(bad, id)
		}
		for _, m := range members[id] {
			walk(m, false)
		}
	}
	for id := range blocks {
		walk(id, true)
	}
	return bad
}

// TestBlockStructNotShared: the same struct as a cbuffer (ConstantBuffer<S>) and
// as a structured-buffer element gets a separate Block type, and whole-block
// loads and stores convert between the forms.
func TestBlockStructNotShared(t *testing.T) {
	b := Compute("main", 64)
	st := &ir.Struct{Name: "S", Size: 80, Align: 16, Fields: []ir.Field{{Name: "v", Type: v4f}, {Name: "a", Type: &ir.Array{Elem: ir.F32, Len: 4, Stride: 16}, Offset: 16}}}
	cb := b.Global(&ir.Global{Name: "cb", Type: st, Space: ir.SpaceUniform, Binding: &ir.Binding{Binding: 0}})
	pc := b.Global(&ir.Global{Name: "pc", Type: st, Space: ir.SpacePushConstant})
	sb := b.Global(&ir.Global{Name: "sb", Type: &ir.Array{Elem: st, Stride: 80}, Space: ir.SpaceStorage, Binding: &ir.Binding{Binding: 1}})
	l := b.Local("l", st)
	b.Add(
		&ir.Store{Place: Elem(sb, Uint(0)), Value: Load(GRef(cb))},
		&ir.Store{Place: LRef(l), Value: Load(GRef(pc))},
		&ir.Store{Place: Elem(sb, Uint(1)), Value: Load(LRef(l))},
	)
	emitValid(t, b, Options{}) // checks nestedBlocks on every target
}
