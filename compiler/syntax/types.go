package syntax

import "strings"

// The parser must tell types from values without knowing declarations (a cast
// `(float3)v` versus a parenthesised `(v)`), so it keeps the names of built-in
// types here and adds struct and typedef names as it sees them.
//
// The word sets of this package (here, in parse_expr.go and in ppexpr.go) are
// switch statements rather than package-level maps: a map literal is built by
// package initialisation on every process start, and a string switch (which the
// compiler turns into a search on length and content) is also cheaper than
// hashing for the lookup the parser makes per token.

// scalarTypes are the names that also form vectors (float3) and matrices (float4x4).
func scalarTypes(s string) bool {
	switch s {
	case "bool", "int", "uint", "dword", "half", "float", "double", "min16float", "min10float", "min16int",
		"min12int", "min16uint", "int16_t", "uint16_t", "int32_t", "uint32_t", "int64_t", "uint64_t",
		"float16_t", "float32_t", "float64_t":
		return true
	}
	return false
}

// templateTypes take `<…>` arguments; in expressions `<` after these names opens
// a template argument list instead of comparing.
func templateTypes(s string) bool {
	switch s {
	case "vector", "matrix", "Buffer", "RWBuffer", "StructuredBuffer", "RWStructuredBuffer", "AppendStructuredBuffer",
		"ConsumeStructuredBuffer", "ConstantBuffer", "TextureBuffer", "Texture1D", "Texture1DArray",
		"Texture2D", "Texture2DArray", "Texture2DMS", "Texture2DMSArray", "Texture3D", "TextureCube",
		"TextureCubeArray", "RWTexture1D", "RWTexture1DArray", "RWTexture2D", "RWTexture2DArray", "RWTexture3D",
		"RasterizerOrderedBuffer", "RasterizerOrderedStructuredBuffer", "RasterizerOrderedTexture1D",
		"RasterizerOrderedTexture1DArray", "RasterizerOrderedTexture2D", "RasterizerOrderedTexture2DArray",
		"RasterizerOrderedTexture3D", "InputPatch", "OutputPatch", "PointStream", "LineStream", "TriangleStream",
		"SubpassInput", "SubpassInputMS":
		return true
	}
	return false
}

// plainTypes are the other built-in type names.
func plainTypes(s string) bool {
	switch s {
	case "void", "string", "SamplerState", "SamplerComparisonState", "sampler", "sampler1D", "sampler2D",
		"sampler3D", "samplerCUBE", "ByteAddressBuffer", "RWByteAddressBuffer", "RasterizerOrderedByteAddressBuffer",
		"RaytracingAccelerationStructure":
		return true
	}
	return false
}

// isBuiltinType reports whether name is a built-in type: a scalar, a vector
// (float3), a matrix (int2x3), vector/matrix or a resource or sampler type.
func isBuiltinType(name string) bool {
	if scalarTypes(name) || templateTypes(name) || plainTypes(name) {
		return true
	}
	n := len(name)
	dim := func(c byte) bool { return c >= '1' && c <= '4' }
	if n >= 4 && dim(name[n-1]) && name[n-2] == 'x' && dim(name[n-3]) {
		return scalarTypes(name[:n-3])
	}
	if n >= 2 && dim(name[n-1]) {
		return scalarTypes(name[:n-1])
	}
	return false
}

// storageWords become VarDecl.Storage / FuncDecl.Storage.
func storageWords(s string) bool {
	switch s {
	case "static", "const", "groupshared", "uniform", "extern", "precise", "nointerpolation", "linear",
		"centroid", "noperspective", "sample", "volatile", "shared", "inline", "export", "globallycoherent":
		return true
	}
	return false
}

// typeModWords bind to the type (TypeExpr.Modifiers).
func typeModWords(s string) bool {
	switch s {
	case "row_major", "column_major", "unorm", "snorm":
		return true
	}
	return false
}

// paramDirWords are the parameter directions.
func paramDirWords(s string) bool {
	switch s {
	case "in", "out", "inout":
		return true
	}
	return false
}

// meshQualWords are the mesh-shader parameter qualifiers (Shader Model 6.5),
// contextual: only in front of a parameter's type.
func meshQualWords(s string) bool {
	switch s {
	case "vertices", "indices", "primitives", "payload":
		return true
	}
	return false
}

// keywords cannot be used as names in expressions.
func keywords(s string) bool {
	switch s {
	case "if", "else", "for", "while", "do", "switch", "case", "default", "break", "continue", "return",
		"discard", "struct", "typedef", "cbuffer", "tbuffer", "template", "namespace", "class", "interface",
		"typename":
		return true
	}
	return false
}

// stmtWords start statements; at file scope they mean a misplaced statement.
func stmtWords(s string) bool {
	switch s {
	case "if", "else", "for", "while", "do", "switch", "case", "default", "break", "continue", "return",
		"discard":
		return true
	}
	return false
}

// unsupportedWords start HLSL constructs waverig does not compile.
func unsupportedWords(s string) (string, bool) {
	switch s {
	case "template":
		return "templates", true
	case "namespace":
		return "namespaces", true
	case "class":
		return "classes", true
	case "interface":
		return "interfaces", true
	case "enum":
		return "enums", true
	case "using":
		return "using declarations", true
	}
	return "", false
}

// numLit is a numeric literal split into its digits and its suffix.
type numLit struct {
	digits string // the spelling without the suffix: "0x1F", "017", "1.5", "1e-3", ".5"
	suffix string // lower-cased: "u", "ul", "f", "h", "l", …
	float  bool
	err    string // why the literal is malformed; "" when it is fine
}

func intSuffixes(s string) bool {
	switch s {
	case "", "u", "l", "ul", "lu", "ll", "ull", "llu":
		return true
	}
	return false
}
func floatSuffixes(s string) bool {
	switch s {
	case "", "f", "h", "l":
		return true
	}
	return false
}

// splitNumber classifies a pp-number as HLSL sees it.
func splitNumber(text string) (numLit, bool) {
	if isHexNumber(text) {
		i := 2
		for i < len(text) && isHexDigit(text[i]) {
			i++
		}
		lit := numLit{digits: text[:i], suffix: strings.ToLower(text[i:])}
		switch {
		case i == 2:
			lit.err = "hexadecimal literal has no digits"
		case !intSuffixes(lit.suffix):
			lit.err = "invalid suffix " + quote(text[i:]) + " on integer literal"
		}
		return lit, lit.err == ""
	}
	i := 0
	for i < len(text) && isDigit(text[i]) {
		i++
	}
	intEnd := i
	lit := numLit{}
	if i < len(text) && text[i] == '.' {
		lit.float = true
		i++
		for i < len(text) && isDigit(text[i]) {
			i++
		}
	}
	if i < len(text) && (text[i] == 'e' || text[i] == 'E') {
		j := i + 1
		if j < len(text) && (text[j] == '+' || text[j] == '-') {
			j++
		}
		if j < len(text) && isDigit(text[j]) {
			for j < len(text) && isDigit(text[j]) {
				j++
			}
			lit.float = true
			i = j
		} else {
			lit.digits, lit.suffix = text[:i], strings.ToLower(text[i:])
			lit.err = "exponent has no digits"
			return lit, false
		}
	}
	lit.digits, lit.suffix = text[:i], strings.ToLower(text[i:])
	switch {
	case lit.float && !floatSuffixes(lit.suffix):
		lit.err = "invalid suffix " + quote(text[i:]) + " on floating-point literal"
	case !lit.float && !intSuffixes(lit.suffix):
		lit.err = "invalid suffix " + quote(text[i:]) + " on integer literal"
	case !lit.float && intEnd > 1 && text[0] == '0' && strings.ContainsAny(text[:intEnd], "89"):
		lit.err = "invalid digit in octal literal " + quote(text[:intEnd])
	}
	return lit, lit.err == ""
}

func isHexDigit(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func quote(s string) string { return "'" + s + "'" }
