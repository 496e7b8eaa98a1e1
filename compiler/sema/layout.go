package sema

import (
	"fmt"

	"waverig/compiler/diag"
	"waverig/compiler/ir"
)

// Buffer layout.
//
// waverig uses ONE layout rule that SPIR-V (Offset/ArrayStride/MatrixStride
// decorations), WGSL and MSL can all express: WGSL's host-shareable layout.
//
// Storage buffers (StructuredBuffer, RWStructuredBuffer, push constants):
//   - scalars: align = size = 4 bytes (8 for 64-bit types, 2 for half); bool is
//     stored as a 32-bit uint.
//   - vec2: align 2*s, size 2*s; vec3: align 4*s, size 3*s; vec4: align 4*s,
//     size 4*s (s = scalar size).
//   - matrices (column_major by default, as in HLSL): a column-major RxC matrix is C
//     column vectors of R components, a row_major one is R row vectors of C
//     components; each vector is aligned like a vector, MatrixStride =
//     roundUp(size(vector), align(vector)), size = count * MatrixStride.
//   - arrays: ArrayStride = roundUp(size(elem), align(elem)), align = align(elem).
//   - structs: each member at the next offset aligned to the member's alignment;
//     align = max member align; size = roundUp(end of last member, align).
//
// Uniform buffers (cbuffer, ConstantBuffer<T>) additionally round array element
// strides and struct alignments up to 16 (WGSL's uniform address space rules).
//
// This equals DXC's default Vulkan layout (vector-relaxed std430 for storage,
// vector-relaxed std140 for uniform buffers) wherever WGSL can express it. Where
// they differ:
//   - a float3 (any 3-vector) is 16-byte aligned here; DXC's vector-relaxed rule
//     puts `float a; float3 b;` at offsets 0 and 4, waverig at 0 and 16. A scalar
//     after a float3 still packs into its last 4 bytes (offset 12) in both.
//   - StructuredBuffer<float3>: ArrayStride 16 in both (12 only with DXC's
//     -fvk-use-dx-layout or -fvk-use-scalar-layout, which waverig does not offer).
//   - cbuffer scalar and vector arrays: element stride 16 in both (WGSL's uniform
//     rule and std140 agree); D3D's own packing (-fvk-use-dx-layout) would put a
//     scalar that follows the array into the last element's unused bytes, here it
//     starts after the whole array.
//   - cbuffer matrices: the matrix stride is rounded up to 16 as std140 and DXC do
//     (float2x2 has MatrixStride 16), because Vulkan uniform blocks require it; WGSL's
//     own mat2x2 would use 8, so the WGSL and MSL back ends pad the columns.
//   - structs nested in a cbuffer are 16-byte aligned and sized in both.
type layoutRule uint8

const (
	layoutStorage layoutRule = iota + 1
	layoutUniform
)

func (r layoutRule) String() string {
	if r == layoutUniform {
		return "uniform"
	}
	return "storage"
}

func roundUp(n, a int) int {
	if a <= 1 {
		return n
	}
	return (n + a - 1) / a * a
}

// vecLayout is the size and alignment of a vector of n scalars s.
func vecLayout(s ir.Scalar, n int) (size, align int) {
	ss := s.Bits / 8
	if s.Kind == ir.Bool {
		ss = 4
	}
	switch n {
	case 1:
		return ss, ss
	case 2:
		return 2 * ss, 2 * ss
	case 3:
		return 3 * ss, 4 * ss
	}
	return 4 * ss, 4 * ss
}

// layout returns t with strides filled in for memory under rule (arrays are
// copied, never mutated, because array types may be shared with non-buffer
// variables), plus its size and alignment. Structs are laid out in place; a struct
// laid out under both rules with different member offsets is an error.
func (c *checker) layout(t ir.Type, rule layoutRule, pos diag.Pos) (ir.Type, int, int) {
	switch x := t.(type) {
	case ir.Scalar:
		size, align := vecLayout(x, 1)
		return x, size, align
	case ir.Vector:
		size, align := vecLayout(x.Elem, x.N)
		return x, size, align
	case ir.Matrix:
		n, count := x.Rows, x.Cols // column-major: Cols columns of Rows components
		if x.RowMajor {
			n, count = x.Cols, x.Rows
		}
		vsize, valign := vecLayout(x.Elem, n)
		x.Stride = roundUp(vsize, valign)
		if rule == layoutUniform {
			// Vulkan's uniform-block rules (std140, relaxed) require a matrix stride
			// that is a multiple of 16, without VK_KHR_uniform_buffer_standard_layout;
			// spirv-val rejects 8. DXC does the same. WGSL and MSL express it with
			// padded columns.
			x.Stride = roundUp(x.Stride, 16)
			valign = roundUp(valign, 16)
		}
		return x, count * x.Stride, valign
	case *ir.Array:
		elem, esize, ealign := c.layout(x.Elem, rule, pos)
		stride := roundUp(esize, ealign)
		align := ealign
		if rule == layoutUniform {
			stride = roundUp(stride, 16)
			align = roundUp(align, 16)
		}
		return &ir.Array{Elem: elem, Len: x.Len, Stride: stride}, x.Len * stride, align
	case *ir.Struct:
		return x, c.layoutStruct(x, rule, pos), c.structAlign(x, rule)
	}
	return t, 0, 1
}

// layoutStruct lays out st in place and returns its size under rule.
func (c *checker) layoutStruct(st *ir.Struct, rule layoutRule, pos diag.Pos) int {
	fields := make([]ir.Field, len(st.Fields))
	copy(fields, st.Fields)
	off, maxAlign := 0, 1
	for i := range fields {
		ft, size, align := c.layout(fields[i].Type, rule, pos)
		off = roundUp(off, align)
		fields[i].Type = ft
		fields[i].Offset = off
		off += size
		if align > maxAlign {
			maxAlign = align
		}
	}
	if rule == layoutUniform {
		maxAlign = roundUp(maxAlign, 16)
	}
	size := roundUp(off, maxAlign)
	if prev, done := c.layoutOf[st]; done {
		if prev != rule {
			for i := range fields {
				if fields[i].Offset != st.Fields[i].Offset || !ir.Equal(fields[i].Type, st.Fields[i].Type) {
					c.errorf(pos, diag.ErrLayoutConflict, "struct %s is used in both %s and %s buffers and member %q would have different layouts (%s at offset %d vs %s at offset %d); declare a separate struct for each",
						st.Name, prev, rule, fields[i].Name, layoutTypeName(st.Fields[i].Type), st.Fields[i].Offset, layoutTypeName(fields[i].Type), fields[i].Offset)
					break
				}
			}
		}
		return size
	}
	c.layoutOf[st] = rule
	st.Fields = fields
	st.Size = size
	st.Align = maxAlign
	return size
}

// structAlign is the alignment of st under rule (computed without mutating it).
func (c *checker) structAlign(st *ir.Struct, rule layoutRule) int {
	a := 1
	for _, f := range st.Fields {
		_, _, fa := c.layoutNoStruct(f.Type, rule)
		if fa > a {
			a = fa
		}
	}
	if rule == layoutUniform {
		a = roundUp(a, 16)
	}
	return a
}

// layoutNoStruct computes alignment without touching struct state.
func (c *checker) layoutNoStruct(t ir.Type, rule layoutRule) (ir.Type, int, int) {
	switch x := t.(type) {
	case *ir.Struct:
		return x, x.Size, c.structAlign(x, rule)
	case *ir.Array:
		_, esize, ealign := c.layoutNoStruct(x.Elem, rule)
		if rule == layoutUniform {
			ealign = roundUp(ealign, 16)
		}
		return x, x.Len * roundUp(esize, ealign), ealign
	}
	return c.layout(t, rule, diag.Pos{})
}

// describeLayout renders a laid-out type for error messages and tests.
func describeLayout(t ir.Type) string {
	if st, ok := t.(*ir.Struct); ok {
		s := fmt.Sprintf("%s{size=%d align=%d", st.Name, st.Size, st.Align)
		for _, f := range st.Fields {
			s += fmt.Sprintf(" %s@%d:%s", f.Name, f.Offset, f.Type)
		}
		return s + "}"
	}
	return t.String()
}

// layoutTypeName renders a laid-out type with its stride for messages.
func layoutTypeName(t ir.Type) string {
	if a, ok := t.(*ir.Array); ok && a.Stride != 0 {
		return fmt.Sprintf("%s (stride %d)", typeName(a), a.Stride)
	}
	return typeName(t)
}
