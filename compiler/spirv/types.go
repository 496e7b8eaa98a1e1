package spirv

import (
	"fmt"

	"waverig/compiler/diag"
	"waverig/compiler/ir"
)

func (b *builder) errorf(pos diag.Pos, code diag.Code, format string, args ...any) {
	if len(b.errs) < 50 {
		b.errs = append(b.errs, diag.Msg{Severity: diag.Error, Code: code, Pos: pos, Text: fmt.Sprintf(format, args...)})
	}
}

// typeID lowers an IR type to its plain SPIR-V type: the type of values and of
// Function, Private, Workgroup and stage-IO storage, which must carry no
// explicit layout (VUID-StandaloneSpirv-None-10684 for SPIR-V 1.5+; some
// drivers crash on it at any version).
func (b *builder) typeID(t ir.Type) uint32 { return b.typeOf(t, false) }

// layoutType lowers an IR type as it lives in a Uniform, StorageBuffer or
// PushConstant block: arrays carry ArrayStride, structs member Offsets and
// matrix decorations, all from the IR layout fields.
func (b *builder) layoutType(t ir.Type) uint32 { return b.typeOf(t, true) }

// hasLayout reports whether a type's plain and explicit-layout forms differ
// (it contains a struct or an array).
func hasLayout(t ir.Type) bool {
	switch t.(type) {
	case *ir.Struct, *ir.Array:
		return true
	}
	return false
}

func (b *builder) typeOf(t ir.Type, explicit bool) uint32 {
	switch t := t.(type) {
	case ir.Scalar:
		return b.scalarType(t)
	case ir.Vector:
		return b.vectorType(t.Elem, t.N)
	case ir.Matrix:
		return b.matrixType(t)
	case *ir.Array:
		return b.arrayType(t, explicit)
	case *ir.Struct:
		return b.structType(t, explicit)
	case ir.Void, nil:
		return b.voidType()
	case ir.Texture2D:
		return b.imageType(t)
	case ir.Sampler:
		if b.samplerID == 0 {
			b.samplerID = b.id()
			inst(&b.globals, opTypeSampler, b.samplerID)
		}
		return b.samplerID
	}
	b.errorf(b.pos, diag.ErrSpvType, "type %v cannot be lowered to SPIR-V", t)
	return b.scalarType(ir.U32)
}

// matrixType: an HLSL floatRxC is R SPIR-V columns of C components (HLSL rows
// are SPIR-V columns, as DXC does), so mul(v, M) is OpMatrixTimesVector(M, v).
func (b *builder) matrixType(m ir.Matrix) uint32 {
	elem := m.Elem
	if elem.Kind != ir.Float {
		b.errorf(b.pos, diag.ErrSpvIntMatrix, "%v: SPIR-V matrices are float only; use a float matrix or an array of vectors", m)
		elem = ir.F32
	}
	rows, cols := clampDim(m.Rows), clampDim(m.Cols)
	col := b.vectorType(elem, cols)
	return b.lookupType(opTypeMatrix, col, uint32(rows), 0, 0, col, uint32(rows))
}

func clampDim(n int) int {
	if n < 2 {
		return 2
	}
	if n > 4 {
		return 4
	}
	return n
}

func (b *builder) arrayType(a *ir.Array, explicit bool) uint32 {
	elem := b.typeOf(a.Elem, explicit)
	stride := uint32(0)
	if explicit {
		stride = uint32(a.Stride)
		if stride == 0 {
			// Host-shareable arrays need a stride; fall back to the natural one
			// when sema did not lay the array out.
			stride = uint32(hostStride(a.Elem))
		}
	}
	var id uint32
	var created bool
	if a.Len == 0 {
		id, created = b.lookupAggregate(opTypeRuntimeArray, elem, 0, stride, elem)
	} else {
		n := b.u32(uint32(a.Len))
		id, created = b.lookupAggregate(opTypeArray, elem, n, stride, elem, n)
	}
	if created && stride != 0 {
		inst(&b.decos, opDecorate, id, decArrayStride, stride)
	}
	return id
}

// lookupAggregate is lookupType for array types, which also tells whether the
// type was just created (so its ArrayStride is decorated once).
func (b *builder) lookupAggregate(op uint16, a, bb, c uint32, operands ...uint32) (uint32, bool) {
	for i := range b.types {
		t := &b.types[i]
		if t.op == op && t.a == a && t.b == bb && t.c == c {
			return t.id, false
		}
	}
	id := b.id()
	inst(&b.globals, op, append([]uint32{id}, operands...)...)
	b.types = append(b.types, typeEntry{op: op, a: a, b: bb, c: c, id: id})
	return id, true
}

func (b *builder) structType(s *ir.Struct, explicit bool) uint32 {
	return b.structOf(s, explicit, false)
}

// structOf declares one form of an IR struct: plain, explicit-layout, or the
// explicit-layout Block a cbuffer/push-constant variable points to. The Block
// form is its own type so that a Block struct is never nested in another
// block (StructuredBuffer<S> next to ConstantBuffer<S>).
func (b *builder) structOf(s *ir.Struct, explicit, block bool) uint32 {
	for i := range b.structs {
		if e := &b.structs[i]; e.s == s && e.explicit == explicit && e.block == block {
			return e.id
		}
	}
	members := make([]uint32, 1, len(s.Fields)+1)
	for _, f := range s.Fields {
		members = append(members, b.typeOf(f.Type, explicit))
	}
	id := b.id()
	members[0] = id
	inst(&b.globals, opTypeStruct, members...)
	b.structs = append(b.structs, structEntry{s: s, explicit: explicit, block: block, id: id})
	instStr(&b.names, opName, []uint32{id}, s.Name)
	if block {
		inst(&b.decos, opDecorate, id, decBlock)
	}
	var offsets []int
	if explicit {
		offsets = fieldOffsets(s)
	}
	for i, f := range s.Fields {
		instStr(&b.names, opMemberName, []uint32{id, uint32(i)}, f.Name)
		if explicit {
			inst(&b.decos, opMemberDecorate, id, uint32(i), decOffset, uint32(offsets[i]))
			b.decorateMatrixMember(id, uint32(i), f.Type)
		}
	}
	return id
}

// fieldOffsets returns the IR layout's member offsets, or natural (WGSL
// host-shareable) ones for a struct sema did not lay out.
func fieldOffsets(s *ir.Struct) []int {
	offs := make([]int, len(s.Fields))
	if s.Size != 0 {
		for i, f := range s.Fields {
			offs[i] = f.Offset
		}
		return offs
	}
	end := 0
	for i, f := range s.Fields {
		size, align := hostSizeAlign(f.Type)
		offs[i] = (end + align - 1) / align * align
		end = offs[i] + size
	}
	return offs
}

// decorateMatrixMember adds MatrixStride and the major order for a member that is
// a matrix or an array of matrices. HLSL column_major (IR RowMajor=false) stores
// each HLSL column contiguously, which in SPIR-V terms (HLSL rows = SPIR-V
// columns) is RowMajor, and vice versa, as DXC decorates.
func (b *builder) decorateMatrixMember(st, i uint32, t ir.Type) {
	for {
		a, ok := t.(*ir.Array)
		if !ok {
			break
		}
		t = a.Elem
	}
	m, ok := t.(ir.Matrix)
	if !ok {
		return
	}
	stride := uint32(m.Stride)
	if stride == 0 {
		stride = 16
	}
	order := uint32(decRowMajor)
	if m.RowMajor {
		order = decColMajor
	}
	inst(&b.decos, opMemberDecorate, st, i, order)
	inst(&b.decos, opMemberDecorate, st, i, decMatrixStride, stride)
}

// blockStruct returns the Block-decorated struct a buffer variable points to:
// the IR struct itself (cbuffers, push constants, structs in storage), or a
// wrapper `struct { T data; }` for any other type (runtime arrays of
// Structured/ByteAddress buffers). wrapped tells the access-chain code to add
// the leading member index 0.
func (b *builder) blockStruct(t ir.Type, name string) (id uint32, wrapped bool) {
	if s, ok := t.(*ir.Struct); ok {
		return b.structOf(s, true, true), false
	}
	elem := b.layoutType(t)
	for i := range b.structs {
		if b.structs[i].s == nil && b.structs[i].wrapElem == elem {
			return b.structs[i].id, true
		}
	}
	id = b.id()
	inst(&b.globals, opTypeStruct, id, elem)
	b.structs = append(b.structs, structEntry{wrapElem: elem, explicit: true, block: true, id: id})
	instStr(&b.names, opName, []uint32{id}, "type."+name)
	instStr(&b.names, opMemberName, []uint32{id, 0}, "data")
	inst(&b.decos, opDecorate, id, decBlock)
	inst(&b.decos, opMemberDecorate, id, 0, decOffset, 0)
	b.decorateMatrixMember(id, 0, t)
	return id, true
}

// hostStride is the WGSL host-shareable array stride of an element type, used
// only when the IR carries no layout for a buffer's element array.
func hostStride(t ir.Type) int {
	size, align := hostSizeAlign(t)
	return (size + align - 1) / align * align
}

func hostSizeAlign(t ir.Type) (int, int) {
	switch t := t.(type) {
	case ir.Scalar:
		s := t.Bits / 8
		if t.Kind == ir.Bool {
			s = 4
		}
		return s, s
	case ir.Vector:
		s, _ := hostSizeAlign(t.Elem)
		if t.N == 2 {
			return 2 * s, 2 * s
		}
		return t.N * s, 4 * s
	case ir.Matrix:
		s, a := hostSizeAlign(ir.Vector{Elem: t.Elem, N: t.Cols})
		return t.Rows * ((s + a - 1) / a * a), a
	case *ir.Array:
		if t.Stride != 0 {
			return t.Stride * t.Len, 4
		}
		return hostStride(t.Elem) * t.Len, 4
	case *ir.Struct:
		if t.Size != 0 {
			return t.Size, max(t.Align, 1)
		}
	}
	return 4, 4
}

// imageType: Texture2D is a sampled image (Sampled=1), RWTexture2D a storage
// image (Sampled=2) with format Unknown, whose reads and writes need the
// *WithoutFormat capabilities (recorded where OpImageRead/OpImageWrite are emitted).
func (b *builder) imageType(t ir.Texture2D) uint32 {
	elem := t.Elem
	if elem.Bits != 32 || elem.Kind == ir.Bool {
		elem = ir.Scalar{Kind: elem.Kind, Bits: 32}
		if elem.Kind == ir.Bool {
			elem.Kind = ir.Uint
		}
	}
	st := b.scalarType(elem)
	sampled := uint32(1)
	if t.Storage {
		sampled = 2
	}
	return b.lookupType(opTypeImage, st, sampled, 0, 0, st, 1 /*2D*/, 0, 0, 0, sampled, 0 /*Unknown*/)
}

// funcType declares an OpTypeFunction (deduplicated by its exact signature).
// The signature is compared in place and copied only when it is new.
func (b *builder) funcType(ret uint32, params []uint32) uint32 {
	for i := range b.fnTypes {
		sig := b.fnTypes[i].sig
		if len(sig) == len(params)+1 && sig[0] == ret && equalWords(sig[1:], params) {
			return b.fnTypes[i].id
		}
	}
	sig := make([]uint32, 0, len(params)+1)
	sig = append(append(sig, ret), params...)
	id := b.id()
	// inst(&b.globals, opTypeFunction, id, sig...), without building the operand slice.
	b.globals = append(b.globals, uint32(len(sig)+2)<<16|uint32(opTypeFunction), id)
	b.globals = append(b.globals, sig...)
	b.fnTypes = append(b.fnTypes, fnTypeEntry{sig, id})
	return id
}

type fnTypeEntry struct {
	sig []uint32
	id  uint32
}

// contains16 reports whether a type holds 16-bit scalars (for the 16-bit storage capabilities).
func contains16(t ir.Type) bool {
	switch t := t.(type) {
	case ir.Scalar:
		return t.Bits == 16
	case ir.Vector:
		return t.Elem.Bits == 16
	case ir.Matrix:
		return t.Elem.Bits == 16
	case *ir.Array:
		return contains16(t.Elem)
	case *ir.Struct:
		for _, f := range t.Fields {
			if contains16(f.Type) {
				return true
			}
		}
	}
	return false
}
