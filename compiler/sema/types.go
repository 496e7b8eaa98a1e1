package sema

import (
	"fmt"
	"strings"

	"waverig/compiler/diag"
	"waverig/compiler/ir"
	"waverig/compiler/syntax"
)

// resType is a resource type as declared (StructuredBuffer<T>, Texture2D<T>, …).
type resType struct {
	kind  ir.ResourceKind
	elem  ir.Type // logical element type (buffers), the struct for ConstantBuffer<T>
	store ir.Type // the element's storage type (bool as u32, row_major kept)
	tex   ir.Texture2D
}

// The name tables of this package are switch statements, not package-level
// maps: maps are built by package initialisation on every process start, and a
// string switch is also cheaper than hashing in the checker's lookups.

// scalarNames maps HLSL scalar spellings to IR scalars. min16float and friends are
// minimum-precision hints: DXC without -enable-16bit-types compiles them at 32 bits,
// and so do we; half is a true 16-bit float.
func scalarNames(s string) (ir.Scalar, bool) {
	switch s {
	case "bool":
		return ir.BoolT, true
	case "int", "int32_t", "min16int", "min12int":
		return ir.I32, true
	case "uint", "uint32_t", "dword", "min16uint":
		return ir.U32, true
	case "float", "float32_t", "min16float", "min10float":
		return ir.F32, true
	case "half", "float16_t":
		return ir.F16, true
	case "double", "float64_t":
		return ir.F64, true
	case "int64_t":
		return ir.I64, true
	case "uint64_t":
		return ir.U64, true
	}
	return ir.Scalar{}, false
}

// unsupportedScalars are valid HLSL spellings waverig does not compile.
func unsupportedScalars(s string) bool {
	switch s {
	case "int16_t", "uint16_t":
		return true
	}
	return false
}

// scalarPrefixes are the scalar names that take a vector/matrix suffix (float3, int2x2).
var scalarPrefixes = []string{"bool", "int", "uint", "dword", "float", "half", "double", "int64_t", "uint64_t",
	"min16float", "min10float", "min16int", "min12int", "min16uint", "float16_t", "float32_t", "float64_t", "int32_t", "uint32_t"}

// builtinType parses names like float3, int2x2, uint64_t4 (no templates).
func builtinType(name string) (ir.Type, bool) {
	if s, ok := scalarNames(name); ok {
		return s, true
	}
	for _, p := range scalarPrefixes {
		if !strings.HasPrefix(name, p) {
			continue
		}
		rest := name[len(p):]
		s, _ := scalarNames(p)
		switch {
		case len(rest) == 1 && rest[0] >= '1' && rest[0] <= '4':
			return ir.VecOf(s, int(rest[0]-'0')), true
		case len(rest) == 3 && rest[1] == 'x' && rest[0] >= '1' && rest[0] <= '4' && rest[2] >= '1' && rest[2] <= '4':
			return ir.Matrix{Elem: s, Rows: int(rest[0] - '0'), Cols: int(rest[2] - '0')}, true
		}
	}
	return nil, false
}

// resourceKinds maps resource type names to their kind.
func resourceKinds(s string) (ir.ResourceKind, bool) {
	switch s {
	case "StructuredBuffer":
		return ir.ResStructuredBuffer, true
	case "RWStructuredBuffer":
		return ir.ResRWStructuredBuffer, true
	case "ByteAddressBuffer":
		return ir.ResByteAddressBuffer, true
	case "RWByteAddressBuffer":
		return ir.ResRWByteAddressBuffer, true
	case "ConstantBuffer":
		return ir.ResConstantBuffer, true
	case "Texture2D":
		return ir.ResTexture2D, true
	case "RWTexture2D":
		return ir.ResRWTexture2D, true
	case "SamplerState":
		return ir.ResSampler, true
	}
	return 0, false
}

// unsupportedResources are HLSL resource types waverig does not compile.
func unsupportedResources(s string) bool {
	switch s {
	case "Buffer", "RWBuffer", "Texture1D", "Texture3D", "TextureCube", "Texture2DArray", "RWTexture3D",
		"RWTexture1D", "AppendStructuredBuffer", "ConsumeStructuredBuffer", "SamplerComparisonState",
		"Texture2DMS", "TextureBuffer", "RWTexture2DArray", "Texture1DArray", "TextureCubeArray":
		return true
	}
	return false
}

// resolveType turns a written type into a logical IR type, or a resource type.
// It reports errors and returns nil on failure.
func (c *checker) resolveType(te *syntax.TypeExpr) (ir.Type, *resType) {
	if te == nil {
		return nil, nil
	}
	name := te.Name
	if unsupportedScalars(name) || strings.HasPrefix(name, "int16_t") || strings.HasPrefix(name, "uint16_t") {
		c.errorf(te.Pos, diag.ErrUnsupportedType, "16-bit integer type %q is not supported; use int or uint", name)
		return nil, nil
	}
	if kind, ok := resourceKinds(name); ok {
		return c.resolveResource(te, kind)
	}
	if unsupportedResources(name) {
		c.errorf(te.Pos, diag.ErrUnsupportedType, "resource type %s is not supported (supported: StructuredBuffer, RWStructuredBuffer, ByteAddressBuffer, RWByteAddressBuffer, ConstantBuffer, Texture2D, RWTexture2D, SamplerState)", name)
		return nil, nil
	}
	switch name {
	case "void":
		return ir.Void{}, nil
	case "vector":
		return c.templVector(te), nil
	case "matrix":
		return c.templMatrix(te), nil
	}
	if len(te.Args) > 0 {
		c.errorf(te.Pos, diag.ErrBadTemplate, "type %s takes no template arguments", name)
		return nil, nil
	}
	if t, ok := builtinType(name); ok {
		return c.checkMatrix(te.Pos, c.applyMajor(te, t)), nil
	}
	if sym := c.scope.lookup(name); sym != nil && sym.kind == symType {
		if sym.res != nil {
			return sym.typ, sym.res
		}
		return c.applyMajor(te, sym.typ), nil
	}
	c.errorf(te.Pos, diag.ErrUnknownType, "unknown type %q", name)
	return nil, nil
}

// applyMajor applies row_major/column_major to a matrix type.
func (c *checker) applyMajor(te *syntax.TypeExpr, t ir.Type) ir.Type {
	m, ok := t.(ir.Matrix)
	if !ok {
		return t
	}
	for _, mod := range te.Modifiers {
		switch mod {
		case "row_major":
			m.RowMajor = true
		case "column_major":
			m.RowMajor = false
		}
	}
	return m
}

// checkMatrix rejects 1xN and Nx1 matrices, which no target has a matrix type for.
func (c *checker) checkMatrix(pos diag.Pos, t ir.Type) ir.Type {
	if m, ok := t.(ir.Matrix); ok {
		if m.Rows < 2 || m.Cols < 2 {
			c.errorf(pos, diag.ErrUnsupportedType, "matrix %s with a single row or column is not supported; use a vector", typeName(t))
			return nil
		}
		if m.Elem.Kind != ir.Float {
			c.errorf(pos, diag.ErrUnsupportedType, "only floating-point matrices are supported, not %s", typeName(t))
			return nil
		}
	}
	return t
}

func (c *checker) templScalar(te *syntax.TypeExpr, i int) (ir.Scalar, bool) {
	if i >= len(te.Args) || te.Args[i].Type == nil {
		c.errorf(te.Pos, diag.ErrBadTemplate, "%s needs a scalar type as template argument %d", te.Name, i+1)
		return ir.Scalar{}, false
	}
	t, _ := c.resolveType(te.Args[i].Type)
	s, ok := t.(ir.Scalar)
	if !ok {
		if t != nil {
			c.errorf(te.Args[i].Type.Pos, diag.ErrBadTemplate, "%s needs a scalar element type, not %s", te.Name, typeName(t))
		}
		return ir.Scalar{}, false
	}
	return s, true
}

func (c *checker) templInt(te *syntax.TypeExpr, i int, def int) (int, bool) {
	if i >= len(te.Args) {
		return def, true
	}
	if te.Args[i].Expr == nil {
		c.errorf(te.Pos, diag.ErrBadTemplate, "%s needs an integer constant as template argument %d", te.Name, i+1)
		return 0, false
	}
	v, ok := c.constInt(te.Args[i].Expr)
	if !ok {
		return 0, false
	}
	if v < 1 || v > 4 {
		c.errorf(te.Args[i].Expr.P(), diag.ErrBadTemplate, "%s dimension must be 1 to 4, not %d", te.Name, v)
		return 0, false
	}
	return int(v), true
}

func (c *checker) templVector(te *syntax.TypeExpr) ir.Type {
	if len(te.Args) == 0 {
		return ir.Vector{Elem: ir.F32, N: 4}
	}
	s, ok := c.templScalar(te, 0)
	n, ok2 := c.templInt(te, 1, 4)
	if !ok || !ok2 || len(te.Args) > 2 {
		if ok && ok2 {
			c.errorf(te.Pos, diag.ErrBadTemplate, "vector takes two template arguments")
		}
		return nil
	}
	return ir.VecOf(s, n)
}

func (c *checker) templMatrix(te *syntax.TypeExpr) ir.Type {
	if len(te.Args) == 0 {
		return c.applyMajor(te, ir.Matrix{Elem: ir.F32, Rows: 4, Cols: 4})
	}
	s, ok := c.templScalar(te, 0)
	r, ok2 := c.templInt(te, 1, 4)
	k, ok3 := c.templInt(te, 2, 4)
	if !ok || !ok2 || !ok3 {
		return nil
	}
	return c.checkMatrix(te.Pos, c.applyMajor(te, ir.Matrix{Elem: s, Rows: r, Cols: k}))
}

func (c *checker) resolveResource(te *syntax.TypeExpr, kind ir.ResourceKind) (ir.Type, *resType) {
	rt := &resType{kind: kind}
	needElem := kind == ir.ResStructuredBuffer || kind == ir.ResRWStructuredBuffer || kind == ir.ResConstantBuffer
	switch {
	case kind == ir.ResByteAddressBuffer || kind == ir.ResRWByteAddressBuffer || kind == ir.ResSampler:
		if len(te.Args) != 0 {
			c.errorf(te.Pos, diag.ErrBadTemplate, "%s takes no template arguments", te.Name)
			return nil, nil
		}
		return nil, rt
	case needElem && (len(te.Args) != 1 || te.Args[0].Type == nil):
		c.errorf(te.Pos, diag.ErrBadTemplate, "%s needs one element type: %s<T>", te.Name, te.Name)
		return nil, nil
	}
	if kind == ir.ResTexture2D || kind == ir.ResRWTexture2D {
		elem := ir.Type(ir.Vector{Elem: ir.F32, N: 4})
		if len(te.Args) == 1 && te.Args[0].Type != nil {
			t, r := c.resolveType(te.Args[0].Type)
			if t == nil || r != nil {
				if r != nil {
					c.errorf(te.Args[0].Type.Pos, diag.ErrBadResourceElem, "%s element must be a scalar or vector", te.Name)
				}
				return nil, nil
			}
			elem = t
		} else if len(te.Args) > 1 {
			c.errorf(te.Pos, diag.ErrBadTemplate, "%s takes one element type", te.Name)
			return nil, nil
		}
		s, ok := ir.ScalarOf(elem)
		if _, isMat := elem.(ir.Matrix); !ok || isMat || s.Bits != 32 || s.Kind == ir.Bool {
			c.errorf(te.Pos, diag.ErrBadResourceElem, "%s element must be a 32-bit int, uint or float scalar or vector, not %s", te.Name, typeName(elem))
			return nil, nil
		}
		rt.tex = ir.Texture2D{Elem: s, Components: ir.Components(elem), Storage: kind == ir.ResRWTexture2D}
		rt.elem = elem
		return nil, rt
	}
	t, r := c.resolveType(te.Args[0].Type)
	if t == nil || r != nil {
		if r != nil {
			c.errorf(te.Args[0].Type.Pos, diag.ErrBadResourceElem, "%s cannot hold a resource type", te.Name)
		}
		return nil, nil
	}
	if _, ok := t.(ir.Void); ok {
		c.errorf(te.Args[0].Type.Pos, diag.ErrBadResourceElem, "%s cannot hold void", te.Name)
		return nil, nil
	}
	if kind == ir.ResConstantBuffer {
		if _, ok := t.(*ir.Struct); !ok {
			c.errorf(te.Args[0].Type.Pos, diag.ErrBadResourceElem, "ConstantBuffer<T> needs a struct type, not %s", typeName(t))
			return nil, nil
		}
	}
	rt.elem = t
	rt.store = storageType(t)
	rt.elem = stripLayout(t)
	return nil, rt
}

// arrayOf wraps t in the array dimensions written after a name (outermost first).
// Unsized dimensions are handled by the caller (arrayDecl), which knows the initializer.
func (c *checker) arrayOf(t ir.Type, dims []syntax.Expr, pos diag.Pos) ir.Type {
	for i := len(dims) - 1; i >= 0; i-- {
		d := dims[i]
		if d == nil {
			c.errorf(pos, diag.ErrArraySize, "array dimension needs a size")
			return nil
		}
		n, ok := c.constInt(d)
		if !ok {
			return nil
		}
		if n <= 0 || n > 1<<20 {
			c.errorf(d.P(), diag.ErrArraySize, "array size must be a positive integer constant, not %d", n)
			return nil
		}
		t = &ir.Array{Elem: t, Len: int(n)}
	}
	return t
}

// flatCount is the number of scalar components in a type (0 for non-data types).
func flatCount(t ir.Type) int {
	switch x := t.(type) {
	case ir.Scalar, ir.Vector, ir.Matrix:
		return ir.Components(t)
	case *ir.Array:
		return x.Len * flatCount(x.Elem)
	case *ir.Struct:
		n := 0
		for _, f := range x.Fields {
			n += flatCount(f.Type)
		}
		return n
	}
	return 0
}

// storageType is the IR type used for a logical type in struct fields and buffers:
// bool becomes u32 (bool is not host-shareable; HLSL stores it as 32 bits).
func storageType(t ir.Type) ir.Type {
	switch x := t.(type) {
	case ir.Scalar:
		if x.Kind == ir.Bool {
			return ir.U32
		}
	case ir.Vector:
		if x.Elem.Kind == ir.Bool {
			return ir.Vector{Elem: ir.U32, N: x.N}
		}
	case *ir.Array:
		e := storageType(x.Elem)
		if e != x.Elem {
			return &ir.Array{Elem: e, Len: x.Len, Stride: x.Stride}
		}
	}
	return t
}

// sameLogical compares logical types ignoring array strides (a local copy of a
// buffer array has the same HLSL type but no stride).
func sameLogical(a, b ir.Type) bool {
	aa, ok1 := a.(*ir.Array)
	ba, ok2 := b.(*ir.Array)
	if ok1 && ok2 {
		return aa.Len == ba.Len && sameLogical(aa.Elem, ba.Elem)
	}
	if ma, ok := a.(ir.Matrix); ok {
		if mb, ok := b.(ir.Matrix); ok {
			return ma.Elem == mb.Elem && ma.Rows == mb.Rows && ma.Cols == mb.Cols
		}
	}
	return ir.Equal(a, b)
}

// typeName renders a logical type the HLSL way for messages.
func typeName(t ir.Type) string {
	switch x := t.(type) {
	case ir.Scalar:
		return scalarName(x)
	case ir.Vector:
		return fmt.Sprintf("%s%d", scalarName(x.Elem), x.N)
	case ir.Matrix:
		return fmt.Sprintf("%s%dx%d", scalarName(x.Elem), x.Rows, x.Cols)
	case *ir.Array:
		if x.Len == 0 {
			return typeName(x.Elem) + "[]"
		}
		return fmt.Sprintf("%s[%d]", typeName(x.Elem), x.Len)
	case *ir.Struct:
		return x.Name
	case nil:
		return "<invalid>"
	}
	return t.String()
}

func scalarName(s ir.Scalar) string {
	switch s {
	case ir.BoolT:
		return "bool"
	case ir.I32:
		return "int"
	case ir.U32:
		return "uint"
	case ir.F32:
		return "float"
	case ir.F16:
		return "half"
	case ir.F64:
		return "double"
	case ir.I64:
		return "int64_t"
	case ir.U64:
		return "uint64_t"
	}
	return s.String()
}

// structDecl declares a struct type. Fields declared bool are u32 in the IR struct.
func (c *checker) structDecl(d *syntax.StructDecl) *ir.Struct {
	st := &ir.Struct{Name: d.Name}
	info := &structInfo{pos: d.Pos}
	seen := map[string]diag.Pos{}
	for _, m := range d.Members {
		t, r := c.resolveType(m.Type)
		if r != nil {
			c.errorf(m.Type.Pos, diag.ErrBadDeclaration, "a struct member cannot be a resource")
			continue
		}
		if t == nil {
			continue
		}
		if _, ok := t.(ir.Void); ok {
			c.errorf(m.Type.Pos, diag.ErrBadDeclaration, "a struct member cannot be void")
			continue
		}
		t = c.arrayOf(t, m.ArrayDims, m.NamePos)
		if t == nil {
			continue
		}
		if p, dup := seen[m.Name]; dup {
			c.log.Add(diag.Msg{Severity: diag.Error, Code: diag.ErrRedeclared, Pos: m.NamePos,
				Text: fmt.Sprintf("member %q is declared twice in struct %s", m.Name, d.Name), Notes: []diag.Note{{Pos: p, Text: "previous declaration here"}}})
			continue
		}
		seen[m.Name] = m.NamePos
		if m.PackOffset != "" {
			c.warnf(m.NamePos, diag.WarnPackOffset, "packoffset is ignored; members are laid out by waverig's layout rule")
		}
		st.Fields = append(st.Fields, ir.Field{Name: m.Name, Type: storageType(t), Semantic: m.Semantic})
		info.fields = append(info.fields, stripLayout(t))
	}
	c.structInfo[st] = info
	if d.Name != "" {
		c.declare(d.Name, d.Pos, &symbol{kind: symType, typ: st})
	}
	c.mod.Structs = append(c.mod.Structs, st)
	return st
}

func (c *checker) typedefDecl(d *syntax.TypedefDecl) {
	t, r := c.resolveType(d.Type)
	if t == nil && r == nil {
		return
	}
	if r != nil {
		if len(d.ArrayDims) > 0 {
			c.errorf(d.Pos, diag.ErrUnsupportedType, "arrays of resources are not supported")
			return
		}
		c.declare(d.Name, d.Pos, &symbol{kind: symType, res: r})
		return
	}
	t = c.arrayOf(t, d.ArrayDims, d.Pos)
	if t == nil {
		return
	}
	c.declare(d.Name, d.Pos, &symbol{kind: symType, typ: t})
}

// fieldLogical returns the logical type of field i of st.
func (c *checker) fieldLogical(st *ir.Struct, i int) ir.Type {
	if info := c.structInfo[st]; info != nil && i < len(info.fields) {
		return info.fields[i]
	}
	return st.Fields[i].Type
}
