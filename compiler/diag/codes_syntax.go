package diag

// Lexer and parser errors (E01xx), reported by compiler/syntax.
const (
	ErrSynBadChar           Code = "E0101"
	ErrSynUnterminatedStr   Code = "E0102"
	ErrSynBadNumber         Code = "E0103"
	ErrSynExpected          Code = "E0104"
	ErrSynExpectedExpr      Code = "E0105"
	ErrSynExpectedType      Code = "E0106"
	ErrSynExpectedDecl      Code = "E0107"
	ErrSynNestingTooDeep    Code = "E0108"
	ErrSynBadRegister       Code = "E0110"
	ErrSynCaseOutsideSwitch Code = "E0111"
	ErrSynUnsupportedSyntax Code = "E0112"
	ErrSynElseWithoutIf     Code = "E0113"
	ErrSynBadParamDir       Code = "E0114"
	ErrSynBadAttribute      Code = "E0115"
	ErrSynBadPackOffset     Code = "E0116"
)

var codesSyntax = []CodeInfo{
	CodeInfo{ErrSynBadChar, "a character that cannot start any HLSL token", "int x = 1 @ 2;", ""},
	CodeInfo{ErrSynUnterminatedStr, "a string or character literal is not closed on its line", "[shader(\"compute)]", "add the closing quote"},
	CodeInfo{ErrSynBadNumber, "malformed numeric literal (bad digit, bad suffix, or too large for 64 bits)", "int x = 09; float y = 1.0q;", "integer suffixes are u, l, ul, ll, ull; float suffixes are f, h, l"},
	CodeInfo{ErrSynExpected, "a specific token is missing (for example ';' or ')')", "int x = 1\nint y;", ""},
	CodeInfo{ErrSynExpectedExpr, "an expression is missing", "x = * 2;", ""},
	CodeInfo{ErrSynExpectedType, "a type name is missing", "static x;", ""},
	CodeInfo{ErrSynExpectedDecl, "only declarations may appear at file scope", "x = 1;", "move the statement into a function"},
	CodeInfo{ErrSynNestingTooDeep, "expressions, statements or types nest more than 1000 levels deep", "x = ((((((…))))));", "split the expression"},
	CodeInfo{ErrSynBadRegister, "malformed register(…) binding", "RWBuffer<uint> b : register(q1);", "write register(<b|t|u|s><index>[, space<n>])"},
	CodeInfo{ErrSynCaseOutsideSwitch, "case or default label outside a switch", "case 1: x = 2;", ""},
	CodeInfo{ErrSynUnsupportedSyntax, "an HLSL language feature waverig does not support (templates, classes, interfaces, namespaces, member functions)", "template<typename T> T f(T x) { return x; }", ""},
	CodeInfo{ErrSynElseWithoutIf, "else without a preceding if", "else x = 1;", ""},
	CodeInfo{ErrSynBadParamDir, "in, out and inout are allowed only on function parameters", "out float x;", ""},
	CodeInfo{ErrSynBadAttribute, "malformed [attribute] or [[vk::attribute]]", "[[vk::binding(0)] RWBuffer<uint> b;", "close it with ]] (or ] for a plain attribute)"},
	CodeInfo{ErrSynBadPackOffset, "malformed packoffset(…)", "float4 a : packoffset(x0);", "write packoffset(c<n>[.x|y|z|w])"},
}
