package syntax

import "strings"

// The parser must tell types from values without knowing declarations (a cast
// `(float3)v` versus a parenthesised `(v)`), so it keeps the names of built-in
// types here and adds struct and typedef names as it sees them.

// scalarTypes are the names that also form vectors (float3) and matrices (float4x4).
var scalarTypes = map[string]bool{
	"bool": true, "int": true, "uint": true, "dword": true, "half": true, "float": true, "double": true,
	"min16float": true, "min10float": true, "min16int": true, "min12int": true, "min16uint": true,
	"int16_t": true, "uint16_t": true, "int32_t": true, "uint32_t": true, "int64_t": true, "uint64_t": true,
	"float16_t": true, "float32_t": true, "float64_t": true,
}

// templateTypes take `<…>` arguments; in expressions `<` after these names opens
// a template argument list instead of comparing.
var templateTypes = map[string]bool{
	"vector": true, "matrix": true,
	"Buffer": true, "RWBuffer": true, "StructuredBuffer": true, "RWStructuredBuffer": true,
	"AppendStructuredBuffer": true, "ConsumeStructuredBuffer": true, "ConstantBuffer": true, "TextureBuffer": true,
	"Texture1D": true, "Texture1DArray": true, "Texture2D": true, "Texture2DArray": true, "Texture2DMS": true,
	"Texture2DMSArray": true, "Texture3D": true, "TextureCube": true, "TextureCubeArray": true,
	"RWTexture1D": true, "RWTexture1DArray": true, "RWTexture2D": true, "RWTexture2DArray": true, "RWTexture3D": true,
	"RasterizerOrderedBuffer": true, "RasterizerOrderedStructuredBuffer": true,
	"RasterizerOrderedTexture1D": true, "RasterizerOrderedTexture1DArray": true, "RasterizerOrderedTexture2D": true,
	"RasterizerOrderedTexture2DArray": true, "RasterizerOrderedTexture3D": true,
	"InputPatch": true, "OutputPatch": true, "PointStream": true, "LineStream": true, "TriangleStream": true,
	"SubpassInput": true, "SubpassInputMS": true,
}

// plainTypes are the other built-in type names.
var plainTypes = map[string]bool{
	"void": true, "string": true, "SamplerState": true, "SamplerComparisonState": true, "sampler": true,
	"sampler1D": true, "sampler2D": true, "sampler3D": true, "samplerCUBE": true,
	"ByteAddressBuffer": true, "RWByteAddressBuffer": true, "RasterizerOrderedByteAddressBuffer": true,
	"RaytracingAccelerationStructure": true,
}

// isBuiltinType reports whether name is a built-in type: a scalar, a vector
// (float3), a matrix (int2x3), vector/matrix or a resource or sampler type.
func isBuiltinType(name string) bool {
	if scalarTypes[name] || templateTypes[name] || plainTypes[name] {
		return true
	}
	n := len(name)
	dim := func(c byte) bool { return c >= '1' && c <= '4' }
	if n >= 4 && dim(name[n-1]) && name[n-2] == 'x' && dim(name[n-3]) {
		return scalarTypes[name[:n-3]]
	}
	if n >= 2 && dim(name[n-1]) {
		return scalarTypes[name[:n-1]]
	}
	return false
}

// storageWords become VarDecl.Storage / FuncDecl.Storage.
var storageWords = map[string]bool{
	"static": true, "const": true, "groupshared": true, "uniform": true, "extern": true, "precise": true,
	"nointerpolation": true, "linear": true, "centroid": true, "noperspective": true, "sample": true,
	"volatile": true, "shared": true, "inline": true, "export": true, "globallycoherent": true,
}

// typeModWords bind to the type (TypeExpr.Modifiers).
var typeModWords = map[string]bool{"row_major": true, "column_major": true, "unorm": true, "snorm": true}

// paramDirWords are the parameter directions.
var paramDirWords = map[string]bool{"in": true, "out": true, "inout": true}

// keywords cannot be used as names in expressions.
var keywords = map[string]bool{
	"if": true, "else": true, "for": true, "while": true, "do": true, "switch": true, "case": true,
	"default": true, "break": true, "continue": true, "return": true, "discard": true, "struct": true,
	"typedef": true, "cbuffer": true, "tbuffer": true, "template": true, "namespace": true, "class": true,
	"interface": true, "typename": true,
}

// stmtWords start statements; at file scope they mean a misplaced statement.
var stmtWords = map[string]bool{
	"if": true, "else": true, "for": true, "while": true, "do": true, "switch": true, "case": true,
	"default": true, "break": true, "continue": true, "return": true, "discard": true,
}

// unsupportedWords start HLSL constructs waverig does not compile.
var unsupportedWords = map[string]string{
	"template": "templates", "namespace": "namespaces", "class": "classes", "interface": "interfaces",
	"enum": "enums", "using": "using declarations",
}

// numLit is a numeric literal split into its digits and its suffix.
type numLit struct {
	digits string // the spelling without the suffix: "0x1F", "017", "1.5", "1e-3", ".5"
	suffix string // lower-cased: "u", "ul", "f", "h", "l", …
	float  bool
	err    string // why the literal is malformed; "" when it is fine
}

var intSuffixes = map[string]bool{"": true, "u": true, "l": true, "ul": true, "lu": true, "ll": true, "ull": true, "llu": true}
var floatSuffixes = map[string]bool{"": true, "f": true, "h": true, "l": true}

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
		case !intSuffixes[lit.suffix]:
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
	case lit.float && !floatSuffixes[lit.suffix]:
		lit.err = "invalid suffix " + quote(text[i:]) + " on floating-point literal"
	case !lit.float && !intSuffixes[lit.suffix]:
		lit.err = "invalid suffix " + quote(text[i:]) + " on integer literal"
	case !lit.float && intEnd > 1 && text[0] == '0' && strings.ContainsAny(text[:intEnd], "89"):
		lit.err = "invalid digit in octal literal " + quote(text[:intEnd])
	}
	return lit, lit.err == ""
}

func isHexDigit(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func quote(s string) string { return "'" + s + "'" }
