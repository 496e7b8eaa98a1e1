package ir

import (
	"fmt"
	"strconv"
	"strings"

	"waverig/compiler/intrinsics"
)

// ScalarKind is the class of a scalar type.
type ScalarKind uint8

const (
	Bool ScalarKind = iota
	Sint
	Uint
	Float
)

// Type is an IR type. Types are compared with Equal (structurally; structs by identity).
type Type interface {
	String() string
	isType()
}

// Scalar is bool, a signed or unsigned integer, or a float of Bits width
// (bool: 32 by convention, never stored to memory; ints 32/64; floats 16/32/64).
type Scalar struct {
	Kind ScalarKind
	Bits int
}

// Vector of 2–4 scalars.
type Vector struct {
	Elem Scalar
	N    int
}

// Matrix of Rows×Cols floats (HLSL floatRxC: Rows rows of Cols-vectors).
// Back ends choose their own in-register representation; in memory the layout
// pass gives MatrixStride and the major order.
type Matrix struct {
	Elem       Scalar
	Rows, Cols int
	// RowMajor is the memory order when the matrix lives in a buffer.
	RowMajor bool
	Stride   int // MatrixStride in bytes (set by layout for buffer members)
}

// Array of Len elements; Len == 0 is a runtime-sized array (only as the element
// store of a buffer). Stride is the ArrayStride in bytes, set by layout where the
// array lives in host-shareable memory (0 elsewhere).
type Array struct {
	Elem   Type
	Len    int
	Stride int
}

// Struct is a named aggregate. Two Struct types are equal only if they are the same pointer.
type Struct struct {
	Name   string
	Fields []Field
	// Size is the byte size under the layout rule (0 if not laid out).
	Size  int
	Align int
}

// Field is one struct member. Offset is set by layout (buffer structs only).
type Field struct {
	Name     string
	Type     Type
	Offset   int
	Semantic string // HLSL semantic, kept for stage IO structs and reflection
}

// Void is the result type of functions and intrinsics that return nothing.
type Void struct{}

// Texture2D is an image handle (Texture2D<T> when !Storage, RWTexture2D<T> when Storage).
// Elem is the sampled/stored component type (always a 4-vector in IR; Components says how
// many components the HLSL declaration had).
type Texture2D struct {
	Elem       Scalar
	Components int
	Storage    bool
}

// Sampler is SamplerState.
type Sampler struct{}

func (Scalar) isType()    {}
func (Vector) isType()    {}
func (Matrix) isType()    {}
func (*Array) isType()    {}
func (*Struct) isType()   {}
func (Void) isType()      {}
func (Texture2D) isType() {}
func (Sampler) isType()   {}

// Common scalar types.
var (
	BoolT = Scalar{Bool, 32}
	I32   = Scalar{Sint, 32}
	U32   = Scalar{Uint, 32}
	F32   = Scalar{Float, 32}
	F16   = Scalar{Float, 16}
	F64   = Scalar{Float, 64}
	I64   = Scalar{Sint, 64}
	U64   = Scalar{Uint, 64}
)

func (s Scalar) String() string {
	if i := bitsIndex(s.Bits); i >= 0 && s.Kind <= Float {
		return scalarNames[s.Kind][i]
	}
	switch s.Kind {
	case Bool:
		return "bool"
	case Sint:
		return "i" + strconv.Itoa(s.Bits)
	case Uint:
		return "u" + strconv.Itoa(s.Bits)
	default:
		return "f" + strconv.Itoa(s.Bits)
	}
}

func (v Vector) String() string {
	if i := bitsIndex(v.Elem.Bits); i >= 0 && v.Elem.Kind <= Float && v.N >= 2 && v.N <= 4 {
		return vectorNames[v.Elem.Kind][i][v.N-2]
	}
	return "vec" + strconv.Itoa(v.N) + "<" + v.Elem.String() + ">"
}

// scalarNames and vectorNames are the String forms of the common scalar and
// vector types (static data): types are printed in dumps, reflection and
// messages, and Sprintf there cost allocations.
var scalarNames = [4][3]string{
	{"bool", "bool", "bool"},
	{"i16", "i32", "i64"},
	{"u16", "u32", "u64"},
	{"f16", "f32", "f64"},
}

var vectorNames = [4][3][3]string{
	{
		{"vec2<bool>", "vec3<bool>", "vec4<bool>"},
		{"vec2<bool>", "vec3<bool>", "vec4<bool>"},
		{"vec2<bool>", "vec3<bool>", "vec4<bool>"},
	},
	{
		{"vec2<i16>", "vec3<i16>", "vec4<i16>"},
		{"vec2<i32>", "vec3<i32>", "vec4<i32>"},
		{"vec2<i64>", "vec3<i64>", "vec4<i64>"},
	},
	{
		{"vec2<u16>", "vec3<u16>", "vec4<u16>"},
		{"vec2<u32>", "vec3<u32>", "vec4<u32>"},
		{"vec2<u64>", "vec3<u64>", "vec4<u64>"},
	},
	{
		{"vec2<f16>", "vec3<f16>", "vec4<f16>"},
		{"vec2<f32>", "vec3<f32>", "vec4<f32>"},
		{"vec2<f64>", "vec3<f64>", "vec4<f64>"},
	},
}

func (m Matrix) String() string {
	s := fmt.Sprintf("mat%dx%d<%s>", m.Rows, m.Cols, m.Elem)
	if m.Stride != 0 {
		order := "col_major"
		if m.RowMajor {
			order = "row_major"
		}
		s += fmt.Sprintf("{%s,stride=%d}", order, m.Stride)
	}
	return s
}
func (a *Array) String() string {
	s := ""
	if a.Len == 0 {
		s = fmt.Sprintf("array<%s>", a.Elem)
	} else {
		s = fmt.Sprintf("array<%s,%d>", a.Elem, a.Len)
	}
	if a.Stride != 0 {
		s += fmt.Sprintf("{stride=%d}", a.Stride)
	}
	return s
}
func (s *Struct) String() string { return "struct " + s.Name }
func (Void) String() string      { return "void" }
func (t Texture2D) String() string {
	if t.Storage {
		return fmt.Sprintf("rwtexture2d<%s>", t.Elem)
	}
	return fmt.Sprintf("texture2d<%s>", t.Elem)
}
func (Sampler) String() string { return "sampler" }

// StructDecl renders a struct with its fields and offsets, for IR dumps.
func StructDecl(s *Struct) string {
	var b strings.Builder
	fmt.Fprintf(&b, "struct %s {", s.Name)
	if s.Size != 0 {
		fmt.Fprintf(&b, " // size=%d align=%d", s.Size, s.Align)
	}
	b.WriteString("\n")
	for _, f := range s.Fields {
		fmt.Fprintf(&b, "  %s: %s", f.Name, f.Type)
		if s.Size != 0 {
			fmt.Fprintf(&b, " @offset(%d)", f.Offset)
		}
		if f.Semantic != "" {
			fmt.Fprintf(&b, " : %s", f.Semantic)
		}
		b.WriteString("\n")
	}
	b.WriteString("}")
	return b.String()
}

// Equal reports whether two types are the same.
func Equal(a, b Type) bool {
	switch x := a.(type) {
	case Scalar:
		y, ok := b.(Scalar)
		return ok && x == y
	case Vector:
		y, ok := b.(Vector)
		return ok && x == y
	case Matrix:
		y, ok := b.(Matrix)
		return ok && x == y
	case *Array:
		y, ok := b.(*Array)
		return ok && x.Len == y.Len && x.Stride == y.Stride && Equal(x.Elem, y.Elem)
	case *Struct:
		y, ok := b.(*Struct)
		return ok && x == y
	case Void:
		_, ok := b.(Void)
		return ok
	case Texture2D:
		y, ok := b.(Texture2D)
		return ok && x == y
	case Sampler:
		_, ok := b.(Sampler)
		return ok
	}
	return false
}

// ScalarOf returns the scalar element of a scalar, vector or matrix type.
func ScalarOf(t Type) (Scalar, bool) {
	switch x := t.(type) {
	case Scalar:
		return x, true
	case Vector:
		return x.Elem, true
	case Matrix:
		return x.Elem, true
	}
	return Scalar{}, false
}

// Components is 1 for scalars, N for vectors, Rows*Cols for matrices, 0 otherwise.
func Components(t Type) int {
	switch x := t.(type) {
	case Scalar:
		return 1
	case Vector:
		return x.N
	case Matrix:
		return x.Rows * x.Cols
	}
	return 0
}

// WithScalar returns t (scalar or vector) with its element replaced by s.
func WithScalar(t Type, s Scalar) Type {
	switch x := t.(type) {
	case Vector:
		return vectorType(Vector{s, x.N})
	case Matrix:
		x.Elem = s
		return x
	}
	return scalarType(s)
}

// VecOf returns Scalar s when n == 1, else Vector{s, n}.
func VecOf(s Scalar, n int) Type {
	if n == 1 {
		return scalarType(s)
	}
	return vectorType(Vector{s, n})
}

// Storing a Scalar or Vector in a Type interface allocates (neither fits in a
// pointer word). VecOf, WithScalar and Const.Type run for nearly every
// expression the back ends look at, so the common types are boxed once, in
// these tables; Go lays them out statically (no package initialisation).
var scalarTypes = [4][3]Type{
	{Scalar{Bool, 16}, Scalar{Bool, 32}, Scalar{Bool, 64}},
	{Scalar{Sint, 16}, Scalar{Sint, 32}, Scalar{Sint, 64}},
	{Scalar{Uint, 16}, Scalar{Uint, 32}, Scalar{Uint, 64}},
	{Scalar{Float, 16}, Scalar{Float, 32}, Scalar{Float, 64}},
}

var vectorTypes = [4][3][5]Type{
	{
		{nil, nil, Vector{Scalar{Bool, 16}, 2}, Vector{Scalar{Bool, 16}, 3}, Vector{Scalar{Bool, 16}, 4}},
		{nil, nil, Vector{Scalar{Bool, 32}, 2}, Vector{Scalar{Bool, 32}, 3}, Vector{Scalar{Bool, 32}, 4}},
		{nil, nil, Vector{Scalar{Bool, 64}, 2}, Vector{Scalar{Bool, 64}, 3}, Vector{Scalar{Bool, 64}, 4}},
	},
	{
		{nil, nil, Vector{Scalar{Sint, 16}, 2}, Vector{Scalar{Sint, 16}, 3}, Vector{Scalar{Sint, 16}, 4}},
		{nil, nil, Vector{Scalar{Sint, 32}, 2}, Vector{Scalar{Sint, 32}, 3}, Vector{Scalar{Sint, 32}, 4}},
		{nil, nil, Vector{Scalar{Sint, 64}, 2}, Vector{Scalar{Sint, 64}, 3}, Vector{Scalar{Sint, 64}, 4}},
	},
	{
		{nil, nil, Vector{Scalar{Uint, 16}, 2}, Vector{Scalar{Uint, 16}, 3}, Vector{Scalar{Uint, 16}, 4}},
		{nil, nil, Vector{Scalar{Uint, 32}, 2}, Vector{Scalar{Uint, 32}, 3}, Vector{Scalar{Uint, 32}, 4}},
		{nil, nil, Vector{Scalar{Uint, 64}, 2}, Vector{Scalar{Uint, 64}, 3}, Vector{Scalar{Uint, 64}, 4}},
	},
	{
		{nil, nil, Vector{Scalar{Float, 16}, 2}, Vector{Scalar{Float, 16}, 3}, Vector{Scalar{Float, 16}, 4}},
		{nil, nil, Vector{Scalar{Float, 32}, 2}, Vector{Scalar{Float, 32}, 3}, Vector{Scalar{Float, 32}, 4}},
		{nil, nil, Vector{Scalar{Float, 64}, 2}, Vector{Scalar{Float, 64}, 3}, Vector{Scalar{Float, 64}, 4}},
	},
}

func bitsIndex(bits int) int {
	switch bits {
	case 16:
		return 0
	case 32:
		return 1
	case 64:
		return 2
	}
	return -1
}

// scalarType returns s as a Type, without allocating for the common scalars.
func scalarType(s Scalar) Type {
	if i := bitsIndex(s.Bits); i >= 0 && s.Kind <= Float {
		return scalarTypes[s.Kind][i]
	}
	return s
}

// vectorType returns v as a Type, without allocating for the common vectors.
func vectorType(v Vector) Type {
	if i := bitsIndex(v.Elem.Bits); i >= 0 && v.Elem.Kind <= Float && v.N >= 2 && v.N <= 4 {
		return vectorTypes[v.Elem.Kind][i][v.N]
	}
	return v
}

// IntrinsicResult forms the result type of an intrinsic-table row from the
// (converted) type of its argument 0, by the row's Result rule. Sema types calls
// with it, and the back ends' table tests build their IR with it, so both agree on
// what each row returns. RSpecial and RVoid give Void (sema types those itself).
func IntrinsicResult(r intrinsics.Result, t0 Type) Type {
	switch r {
	case intrinsics.RSameAsArg0:
		return t0
	case intrinsics.RBoolShape0:
		return WithScalar(t0, BoolT)
	case intrinsics.RBool:
		return BoolT
	case intrinsics.RUint:
		return U32
	case intrinsics.RUint4:
		return Vector{Elem: U32, N: 4}
	case intrinsics.RFloatScalar:
		s, _ := ScalarOf(t0)
		return s
	case intrinsics.RIntShape0, intrinsics.RSintShape0:
		return WithScalar(t0, I32)
	case intrinsics.RUintShape0:
		return WithScalar(t0, U32)
	case intrinsics.RFloatShape0:
		return WithScalar(t0, F32)
	case intrinsics.RFloat4:
		return Vector{Elem: F32, N: 4}
	}
	return Void{}
}
