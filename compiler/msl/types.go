package msl

import (
	"strconv"
	"strings"

	"waverig/compiler/diag"
	"waverig/compiler/internal/textgen"
	"waverig/compiler/ir"
)

// scalarName is the MSL spelling of a scalar type. 64-bit floats have none; the
// type checker reports them (E0701) before anything is printed.
func scalarName(s ir.Scalar) string {
	switch s.Kind {
	case ir.Bool:
		return "bool"
	case ir.Sint:
		switch s.Bits {
		case 64:
			return "long"
		case 16:
			return "short"
		}
		return "int"
	case ir.Uint:
		switch s.Bits {
		case 64:
			return "ulong"
		case 16:
			return "ushort"
		}
		return "uint"
	}
	switch s.Bits {
	case 16:
		return "half"
	case 64:
		return "double"
	}
	return "float"
}

// typeName is the MSL spelling of a value type (registers, locals, parameters).
func (e *emitter) typeName(t ir.Type) string {
	switch t := t.(type) {
	case ir.Scalar:
		return scalarName(t)
	case ir.Vector:
		return vectorNames.Name(t)
	case ir.Matrix:
		// HLSL rows are MSL columns: floatRxC is R columns of C-vectors (see doc.go).
		return scalarName(t.Elem) + strconv.Itoa(t.Rows) + "x" + strconv.Itoa(t.Cols)
	case *ir.Array:
		e.needArray = true
		return "wr_array<" + e.typeName(t.Elem) + ", " + textgen.Dec(t.Len) + ">"
	case *ir.Struct:
		return e.structName(t)
	case ir.Void:
		return "void"
	case ir.Sampler:
		return "sampler"
	case ir.Texture2D:
		return "texture2d<" + scalarName(t.Elem) + ", access::sample>"
	}
	return "void"
}

// memTypeName spells a type as it is stored in a laid-out struct or buffer: a
// column_major matrix is declared transposed, and vec3 members that leave no room
// for Metal's 16-byte vec3 become packed_<T>3.
func (e *emitter) memTypeName(t ir.Type, packed bool) string {
	switch t := t.(type) {
	case ir.Matrix:
		if t.Stride != 0 && !t.RowMajor {
			return scalarName(t.Elem) + strconv.Itoa(t.Cols) + "x" + strconv.Itoa(t.Rows)
		}
	case ir.Vector:
		if packed && t.N == 3 {
			return "packed_" + scalarName(t.Elem) + "3"
		}
	case *ir.Array:
		if t.Stride != 0 {
			e.needArray = true
			return "wr_array<" + e.elemMemTypeName(t) + ", " + textgen.Dec(t.Len) + ">"
		}
	}
	return e.typeName(t)
}

// elemMemTypeName spells the element of a laid-out array. An element whose
// ArrayStride exceeds Metal's size (cbuffer float a[4]: stride 16) is wrapped in
// wr_strided<T, Stride>, whose member v is the value; places append .v.
func (e *emitter) elemMemTypeName(a *ir.Array) string {
	elem := e.memTypeName(a.Elem, packedElem(a))
	if paddedStride(a) {
		e.needStrided = true
		return "wr_strided<" + elem + ", " + textgen.Dec(a.Stride) + ">"
	}
	return elem
}

// paddedStride reports whether a laid-out array's stride exceeds Metal's natural one.
func paddedStride(a *ir.Array) bool {
	if a.Stride == 0 {
		return false
	}
	s, al := natural(a.Elem, packedElem(a))
	return a.Stride > roundUp(s, al)
}

// packedElem reports whether an array's vec3 elements are packed (stride 12 for floats).
func packedElem(a *ir.Array) bool {
	v, ok := a.Elem.(ir.Vector)
	return ok && v.N == 3 && a.Stride != 0 && a.Stride < 4*v.Elem.Bits/8
}

// natural returns Metal's size and alignment of a type as stored in memory.
func natural(t ir.Type, packed bool) (size, align int) {
	switch t := t.(type) {
	case ir.Scalar:
		b := t.Bits / 8
		if t.Kind == ir.Bool {
			b = 1
		}
		return b, b
	case ir.Vector:
		b := t.Elem.Bits / 8
		if t.Elem.Kind == ir.Bool {
			b = 1
		}
		if packed && t.N == 3 {
			return 3 * b, b
		}
		n := t.N
		if n == 3 {
			n = 4
		}
		return n * b, n * b
	case ir.Matrix:
		cols, rows := t.Rows, t.Cols // the MSL view: HLSL rows are columns
		if t.Stride != 0 && !t.RowMajor {
			cols, rows = t.Cols, t.Rows
		}
		cs, ca := natural(ir.Vector{Elem: t.Elem, N: rows}, false)
		return cols * cs, ca
	case *ir.Array:
		s, a := natural(t.Elem, packedElem(t))
		stride := roundUp(s, a)
		if t.Stride > stride {
			stride = t.Stride // wr_strided pads each element
		}
		return t.Len * stride, a
	case *ir.Struct:
		size, align := 0, 1
		for i, f := range t.Fields {
			fs, fa := natural(f.Type, packedField(t, i))
			if t.Size != 0 && f.Offset > size {
				size = f.Offset
			}
			size = roundUp(size, fa) + fs
			if fa > align {
				align = fa
			}
		}
		if t.Size > size {
			size = t.Size
		}
		return roundUp(size, align), align
	}
	return 0, 1
}

func roundUp(n, a int) int {
	if a <= 1 {
		return n
	}
	return (n + a - 1) / a * a
}

// packedField reports whether field i of a laid-out struct is a vec3 that must be
// packed because the next member (or the struct's end) starts less than 16 bytes on.
func packedField(s *ir.Struct, i int) bool {
	if s.Size == 0 {
		return false
	}
	v, ok := s.Fields[i].Type.(ir.Vector)
	if !ok || v.N != 3 {
		return false
	}
	next := s.Size
	if i+1 < len(s.Fields) {
		next = s.Fields[i+1].Offset
	}
	return next-s.Fields[i].Offset < 4*v.Elem.Bits/8
}

// checkMemType verifies that a type stored in a buffer has Metal's natural strides.
func (e *emitter) checkMemType(t ir.Type, pos diag.Pos, where string) {
	switch t := t.(type) {
	case ir.Matrix:
		if t.Stride != 0 {
			rows := t.Cols
			if !t.RowMajor {
				rows = t.Rows
			}
			if cs, _ := natural(ir.Vector{Elem: t.Elem, N: rows}, false); cs != t.Stride && rows > 1 {
				e.errorf(pos, diag.ErrMSLLayout, "%s: matrix stride %d differs from Metal's %d for %s", where, t.Stride, cs, t)
			}
		}
	case *ir.Array:
		if t.Stride != 0 {
			s, a := natural(t.Elem, packedElem(t))
			switch n := roundUp(s, a); {
			case t.Stride < n:
				e.errorf(pos, diag.ErrMSLLayout, "%s: array stride %d is below Metal's %d for %s", where, t.Stride, n, t.Elem)
			case t.Stride%a != 0:
				e.errorf(pos, diag.ErrMSLLayout, "%s: array stride %d is not a multiple of %s's Metal alignment %d", where, t.Stride, t.Elem, a)
			}
		}
		e.checkMemType(t.Elem, pos, where)
	case *ir.Struct:
		if e.checkedStructs[t] {
			return
		}
		e.checkedStructs[t] = true
		for _, f := range t.Fields {
			e.checkMemType(f.Type, pos, where+"."+f.Name)
		}
	}
}

// structName returns the (sanitized, unique) MSL name of a struct and records that
// it must be declared.
func (e *emitter) structName(s *ir.Struct) string {
	n, ok := e.structNames[s]
	if !ok {
		n = e.unique(ident(s.Name))
		e.structNames[s] = n
	}
	if !e.usedStructs[s] {
		e.usedStructs[s] = true
		for _, f := range s.Fields {
			e.noteType(f.Type)
		}
	}
	return n
}

// noteType records the structs a type mentions so they get declared.
func (e *emitter) noteType(t ir.Type) {
	switch t := t.(type) {
	case *ir.Struct:
		e.structName(t)
	case *ir.Array:
		e.needArray = true
		e.noteType(t.Elem)
	}
}

// structDecl prints one struct. Laid-out structs get explicit padding so every
// member sits at the IR offset; offsets Metal cannot reach are E0705.
func (e *emitter) structDecl(s *ir.Struct) string {
	var b strings.Builder
	textgen.Write(&b, "struct ", e.structNames[s], "\n{\n")
	off, pad := 0, 0
	for i, f := range s.Fields {
		packed := packedField(s, i)
		fs, fa := natural(f.Type, packed)
		if s.Size != 0 {
			at := roundUp(off, fa)
			switch {
			case f.Offset > at:
				if f.Offset%fa != 0 {
					e.errorf(diag.Pos{}, diag.ErrMSLLayout, "struct %s: member %s at offset %d is not %d-aligned as Metal needs", s.Name, f.Name, f.Offset, fa)
				}
				textgen.Write(&b, "    char _pad", textgen.Dec(pad), "[", textgen.Dec(f.Offset-off), "];\n")
				pad++
			case f.Offset < at:
				e.errorf(diag.Pos{}, diag.ErrMSLLayout, "struct %s: member %s at offset %d, but Metal places it at %d", s.Name, f.Name, f.Offset, at)
			}
			off = f.Offset + fs
		}
		textgen.Write(&b, "    ", e.memTypeName(f.Type, packed), " ", fieldName(f.Name, i), ";\n")
	}
	if s.Size != 0 {
		// Trailing padding makes sizeof equal the IR size (uniform structs round to 16).
		if _, align := natural(s, false); s.Size > roundUp(off, align) {
			textgen.Write(&b, "    char _pad", textgen.Dec(pad), "[", textgen.Dec(s.Size-off), "];\n")
		}
		if size, _ := natural(s, false); size != s.Size {
			e.errorf(diag.Pos{}, diag.ErrMSLLayout, "struct %s: size %d, but Metal's is %d", s.Name, s.Size, size)
		}
	}
	b.WriteString("};\n")
	return b.String()
}

// fieldName spells a struct member; fields are scoped to their struct, so only
// reserved words need renaming.
func fieldName(name string, i int) string {
	if name == "" {
		return "m" + textgen.Dec(i)
	}
	return ident(name)
}

// isReserved reports C++14 keywords and Metal names a user identifier must not
// take. A switch rather than a map filled by init: the compiler turns it into a
// binary search over constant strings, so process start-up builds nothing.
func isReserved(s string) bool {
	switch s {
	case "INFINITY", "NAN", "abs", "access", "alignas", "alignof", "all", "and", "and_eq", "any", "as_type",
		"asm", "atomic_int", "atomic_uint", "auto", "bitand", "bitor", "bool", "break", "case", "catch", "ceil",
		"char", "char16_t", "char32_t", "clamp", "class", "clz", "compl", "const", "const_cast", "constant",
		"constexpr", "continue", "cos", "cross", "ctz", "decltype", "default", "delete", "device", "dfdx", "dfdy",
		"discard_fragment", "do", "dot", "double", "dynamic_cast", "else", "enum", "exp", "exp2", "explicit",
		"export", "extern", "false", "float", "floor", "fma", "for", "fract", "fragment", "friend", "goto", "half",
		"if", "inline", "int", "kernel", "length", "level", "log", "log2", "long", "main", "matrix", "max",
		"mem_flags", "memory_order_relaxed", "metal", "min", "mix", "mutable", "namespace", "new", "noexcept",
		"normalize", "not", "not_eq", "nullptr", "object_data", "operator", "or", "or_eq", "packed_float3",
		"popcount", "pow", "private", "protected", "public", "ray_data", "register", "reinterpret_cast", "return",
		"reverse_bits", "rint", "round", "rsqrt", "sampler", "saturate", "select", "short", "sign", "signed",
		"sin", "sizeof", "sqrt", "static", "static_assert", "static_cast", "struct", "switch", "tan", "template",
		"texture2d", "this", "thread", "thread_local", "threadgroup", "threadgroup_barrier",
		"threadgroup_imageblock", "throw", "transpose", "true", "trunc", "try", "typedef", "typeid", "typename",
		"uchar", "uint", "ulong", "union", "unsigned", "ushort", "using", "vec", "vertex", "virtual", "void",
		"volatile", "wchar_t", "while", "xor", "xor_eq":

		return true
	}
	return false
}

// ident turns a name into a valid, non-reserved MSL identifier.
func ident(name string) string {
	// Nearly every name is already a plain ASCII identifier: keep it as it is
	// instead of copying it rune by rune into a builder.
	s := name
	if !textgen.ASCIIIdent(name) {
		var b strings.Builder
		for i, r := range name {
			ok := r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (i > 0 && r >= '0' && r <= '9')
			if ok {
				b.WriteRune(r)
			} else {
				b.WriteByte('_')
			}
		}
		s = b.String()
	}
	if s == "" {
		s = "_"
	}
	// Names starting with "_wr" are ours (helpers, temporaries); keep user names out.
	if isReserved(s) || strings.HasPrefix(s, "_wr") || strings.HasPrefix(s, "wr_") || strings.HasPrefix(s, "__") {
		s += "_"
	}
	return s
}

// vectorNames spells vector types: scalarName(t.Elem) followed by t.N.
var vectorNames = textgen.NewVectorNames(func(t ir.Vector) string {
	return scalarName(t.Elem) + strconv.Itoa(t.N)
})
