package diag

// Preprocessor errors and warnings (E00xx/W00xx), reported by compiler/syntax.
const (
	ErrPPUnterminatedComment Code = "E0001"
	ErrPPUserError           Code = "E0002"
	ErrPPIncludeNotFound     Code = "E0003"
	ErrPPIncludeDepth        Code = "E0004"
	ErrPPUnterminatedIf      Code = "E0005"
	ErrPPStrayConditional    Code = "E0006"
	ErrPPElseAfterElse       Code = "E0007"
	ErrPPBadIfExpr           Code = "E0008"
	ErrPPIfDivByZero         Code = "E0009"
	ErrPPExpansionLimit      Code = "E0010"
	ErrPPBadDefine           Code = "E0011"
	ErrPPUnknownDirective    Code = "E0012"
	ErrPPMacroArgCount       Code = "E0013"
	ErrPPUnterminatedArgs    Code = "E0014"
	ErrPPBadPaste            Code = "E0015"
	ErrPPBadStringize        Code = "E0016"
	ErrPPBadInclude          Code = "E0017"
	ErrPPMissingMacroName    Code = "E0018"

	WarnPPPragmaIgnored  Code = "W0001"
	WarnPPLineIgnored    Code = "W0002"
	WarnPPMacroRedefined Code = "W0003"
	WarnPPExtraTokens    Code = "W0004"
	WarnPPUndefBuiltin   Code = "W0005"
)

var codesPreprocess = []CodeInfo{
	CodeInfo{ErrPPUnterminatedComment, "a /* comment is never closed", "/* starts here and never ends", "add */"},
	CodeInfo{ErrPPUserError, "#error directive reached", "#error this configuration is not supported", "fix the -D options or the #if that leads here"},
	CodeInfo{ErrPPIncludeNotFound, "an #include file cannot be found or read", `#include "missing.hlsl"`, "check the name; files are searched next to the including file, then in each -I directory"},
	CodeInfo{ErrPPIncludeDepth, "#include nesting is deeper than 64 (usually a file that includes itself)", "// a.hlsl\n#include \"a.hlsl\"", "add an include guard (#ifndef A_HLSL / #define A_HLSL / … / #endif) or #pragma once"},
	CodeInfo{ErrPPUnterminatedIf, "#if, #ifdef or #ifndef has no matching #endif", "#ifdef FAST\nfloat f;", "add #endif at the end of the conditional block"},
	CodeInfo{ErrPPStrayConditional, "#else, #elif or #endif without a matching #if", "#endif", "remove it, or add the #if it belongs to"},
	CodeInfo{ErrPPElseAfterElse, "#else or #elif after the #else of the same #if", "#if A\n#else\n#elif B\n#endif", "an #if can have only one #else, and it must come last"},
	CodeInfo{ErrPPBadIfExpr, "the expression of an #if or #elif is not a valid integer constant expression", "#if 1 +", ""},
	CodeInfo{ErrPPIfDivByZero, "division or remainder by zero in an #if expression", "#if 4 / (N - N)", ""},
	CodeInfo{ErrPPExpansionLimit, "macro expansion or #include produced too much text (limit 1,000,000 tokens) or nested too deeply", "#define A B B B B B B B B B B\n#define B C C C C C C C C C C\n…", "macros that expand exponentially are not supported"},
	CodeInfo{ErrPPBadDefine, "malformed #define", "#define F(a, a) a", "a macro needs a name; parameters must be distinct identifiers"},
	CodeInfo{ErrPPUnknownDirective, "unknown preprocessor directive", "#import \"a.hlsl\"", ""},
	CodeInfo{ErrPPMacroArgCount, "a function-like macro is invoked with the wrong number of arguments", "#define ADD(a, b) a + b\nint x = ADD(1);", ""},
	CodeInfo{ErrPPUnterminatedArgs, "the argument list of a function-like macro is never closed", "#define F(a) a\nint x = F(1;", "add the missing )"},
	CodeInfo{ErrPPBadPaste, "## cannot be used here, or pasting does not form a valid token", "#define P(a) ## a", "## needs an operand on both sides, and the two spellings must join into one token"},
	CodeInfo{ErrPPBadStringize, "# in a function-like macro must be followed by a parameter name", "#define S(a) #b", ""},
	CodeInfo{ErrPPBadInclude, "#include must be followed by \"file\" or <file>", "#include missing.hlsl", ""},
	CodeInfo{ErrPPMissingMacroName, "the directive needs a macro name (an identifier)", "#ifdef 3", ""},
	CodeInfo{WarnPPPragmaIgnored, "#pragma is ignored (only #pragma once has an effect)", "#pragma pack_matrix(row_major)", "write row_major/column_major on the declarations instead"},
	CodeInfo{WarnPPLineIgnored, "#line is ignored; positions stay those of the real file", "#line 10 \"x.hlsl\"", ""},
	CodeInfo{WarnPPMacroRedefined, "a macro is redefined with a different body", "#define N 1\n#define N 2", "#undef it first if the change is intended"},
	CodeInfo{WarnPPExtraTokens, "extra tokens at the end of a directive are ignored", "#endif FOO", "write the text as a comment: #endif // FOO"},
	CodeInfo{WarnPPUndefBuiltin, "__LINE__ and __FILE__ are built in and cannot be defined or undefined", "#undef __LINE__", ""},
}
