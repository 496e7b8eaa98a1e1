package syntax

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"waverig/compiler/diag"
)

func TestObjectMacros(t *testing.T) {
	expectPP(t, "#define N 4\nint a[N];", "int a [ 4 ] ;")
	expectPP(t, "#define E\nE x E", "x")
	expectPP(t, "#define A B\n#define B C\nA", "C")
	expectPP(t, "#define A A\nA", "A") // painted blue: terminates
	expectPP(t, "#define A B\n#define B A\nA B", "A B")
	expectPP(t, "#define X X + 1\nX", "X + 1")
	expectPP(t, "#define N 1\n#undef N\nN", "N")
	expectPP(t, "#define N 1 \\\n + 2\nN", "1 + 2")
	expectPP(t, "#define N /* c */ 1 // tail\nN", "1")
	expectPP(t, "#define N 1\n#define N 1\nN", "1") // identical redefinition is silent
}

func TestFunctionMacros(t *testing.T) {
	expectPP(t, "#define ADD(a, b) ((a) + (b))\nADD(1, 2)", "( ( 1 ) + ( 2 ) )")
	expectPP(t, "#define F(x) x\nF((1, 2))", "( 1 , 2 )")
	expectPP(t, "#define F(x) [x]\nF()", "[ ]")
	expectPP(t, "#define Z() 0\nZ()", "0")
	expectPP(t, "#define F(x) x\nF", "F")        // name without arguments is not a use
	expectPP(t, "#define F(x) x\nF\n(1)", "1")   // arguments may start on the next line
	expectPP(t, "#define F (x) x\nF", "( x ) x") // space before '(' makes it object-like
	expectPP(t, "#define F(x) F(x)\nF(F(1))", "F ( F ( 1 ) )")
	expectPP(t, "#define TWICE(x) x x\n#define ONE 1\nTWICE(ONE)", "1 1")
	expectPP(t, "#define F(x) x + 1\n#define G F\nG(2)", "2 + 1")
	expectPP(t, "#define F(a, b) a b\nF(f(1, 2), [3])", "f ( 1 , 2 ) [ 3 ]")
	expectError(t, "#define F(a, b) a b\nint x = F(1, {2, 3});", "E0013 macro F expects 2 argument(s), got 3") // only () groups
	expectPP(t, "#define V(...) f(__VA_ARGS__)\nV(1, 2, 3) V()", "f ( 1 , 2 , 3 ) f ( )")
	expectPP(t, "#define V(a, ...) a: __VA_ARGS__\nV(1) V(1, 2)", "1 : 1 : 2")
	// The classic C standard example of rescanning with a hidden name.
	expectPP(t, "#define f(a) a*g\n#define g(a) f(a)\nf(2)(9)", "2 * 9 * g")
}

func TestStringizeAndPaste(t *testing.T) {
	expectPP(t, "#define S(x) #x\nS(a + b) S(  p   q ) S(\"q\\n\")", `"a + b" "p q" "\"q\\n\""`)
	expectPP(t, "#define CAT(a, b) a ## b\nCAT(foo, bar) CAT(1, 2) CAT(x, ) CAT(, y)", "foobar 12 x y")
	expectPP(t, "#define REG(n) register(u ## n)\nREG(3)", "register ( u3 )")
	expectPP(t, "#define CAT(a, b) a ## b\n#define AB done\nCAT(A, B)", "done")
	expectPP(t, "#define OP(a) a ## = 1\nOP(+)", "+= 1")
	expectError(t, "#define CAT(a, b) a ## b\nint CAT(+, -);", "E0015 pasting \"+\" and \"-\" does not give a valid token")
	expectError(t, "#define P(a) ## a", "E0015 '##' cannot appear at either end of a macro body")
	expectError(t, "#define S(a) #b", "E0016 '#' is not followed by a macro parameter")
}

func TestMacroErrors(t *testing.T) {
	expectError(t, "#define\n", "E0011 #define needs a macro name")
	expectError(t, "#define 3 x", "E0011 #define needs a macro name")
	expectError(t, "#define F(a, a) a", "E0011 duplicate macro parameter \"a\"")
	expectError(t, "#define F(a b) a", "E0011 expected ',' or ')' in the parameter list of macro F")
	expectError(t, "#define F(a", "E0011 expected ',' or ')' in the parameter list of macro F")
	expectError(t, "#define defined 1", "E0011 \"defined\" cannot be used as a macro name")
	expectError(t, "#define ADD(a, b) a + b\nint x = ADD(1);", "E0013 macro ADD expects 2 argument(s), got 1")
	expectError(t, "#define F(a) a\nint x = F(1;", "E0014 unterminated argument list invoking macro F")
	expectError(t, "#define N 1\n#define N 2\nint x = N;", "W0003 macro N redefined")
	expectError(t, "#undef __LINE__\n#define __FILE__ 1", "W0005 __LINE__ is built in\nW0005 __FILE__ is built in")
	expectError(t, "#undef\n", "E0018 #undef needs a macro name")
}

func TestConditionals(t *testing.T) {
	expectPP(t, "#if 1\na\n#else\nb\n#endif", "a")
	expectPP(t, "#if 0\na\n#else\nb\n#endif", "b")
	expectPP(t, "#if 0\na\n#elif 1\nb\n#elif 1\nc\n#else\nd\n#endif", "b")
	expectPP(t, "#if 0\na\n#elif 0\nb\n#else\nd\n#endif", "d")
	expectPP(t, "#define X\n#ifdef X\na\n#endif\n#ifndef X\nb\n#endif", "a")
	expectPP(t, "#if defined(X) || defined Y\na\n#else\nb\n#endif", "b")
	expectPP(t, "#define Y 0\n#if defined Y && !Y\na\n#endif", "a")
	expectPP(t, "#if 0\n#if 1\na\n#else\nb\n#endif\nc\n#else\nd\n#endif", "d")
	expectPP(t, "#if 0\n#bogus directive\n#include \"nope\"\n#error no\n#endif\nok", "ok")
	expectPP(t, "#if 1\n#elif 1/0\n#endif\nok", "ok") // a skipped #elif is not evaluated
	expectPP(t, "#ifdef __LINE__\nline\n#endif", "line")
	expectPP(t, "#define F(x) x\n#if F(2) == 2\nyes\n#endif", "yes")
	expectPPOpts(t, "#if X == 3 && defined(Y) && Y == 1\nyes\n#endif", Options{Defines: map[string]string{"X": "3", "Y": ""}}, "yes")
}

func TestIfExpressions(t *testing.T) {
	eval := func(expr string) bool {
		got, log := ppText("#if "+expr+"\nT\n#else\nF\n#endif", Options{})
		if log.HasErrors() {
			t.Errorf("#if %s: %v", expr, msgs(log))
		}
		return got == "T"
	}
	trueExprs := []string{
		"1 + 2 * 3 == 7", "(1 + 2) * 3 == 9", "10 / 3 == 3", "10 % 3 == 1", "-7 / 2 == -3",
		"1 << 4 == 16", "256 >> 4 == 16", "-1 >> 1 == -1", "3 < 4", "4 > 3", "3 <= 3", "3 >= 3", "3 != 4",
		"(6 & 3) == 2", "(6 | 3) == 7", "(6 ^ 3) == 5", "1 && 2", "0 || 3", "!0", "~0 == -1",
		"1 ? 2 : 0", "0 ? 0 : 3", "(0, 1)", "UNKNOWN == 0", "-1 < 0", "-1 > 0u", "0x10 == 16", "010 == 8",
		"'A' == 65", "true", "!false", "!(0 && 1 / 0)", "1 || 1 % 0", "1 ? 1 : 1 / 0", "+3 == 3", "18446744073709551615u == -1",
		"__LINE__ == 1",
	}
	for _, e := range trueExprs {
		if !eval(e) {
			t.Errorf("#if %s is false, want true", e)
		}
	}
	for _, e := range []string{"0", "1 - 1", "2 < 1", "UNKNOWN", "defined(UNKNOWN)", "1 > 2 ? 1 : 0"} {
		if eval(e) {
			t.Errorf("#if %s is true, want false", e)
		}
	}
	expectError(t, "#if 1 / 0\n#endif", "E0009 division by zero in #if expression")
	expectError(t, "#if 0\n#elif 1 % (2 - 2)\n#endif", "E0009 division by zero in #elif expression")
	expectError(t, "#if 1 +\n#endif", "E0008 #if expression ends unexpectedly")
	expectError(t, "#if (1\n#endif", "E0008 expected ')' in #if expression")
	expectError(t, "#if 1 2\n#endif", "E0008 unexpected '2' in #if expression")
	expectError(t, "#if 1.5\n#endif", "E0008 invalid integer \"1.5\" in #if expression")
	expectError(t, "#if\n#endif", "E0008 #if with no expression")
	expectError(t, "#if defined(\n#endif", "E0018 'defined' needs a macro name")
	expectError(t, "#if 1 ? 2\n#endif", "E0008 expected ':' in #if expression")
}

func TestConditionalErrors(t *testing.T) {
	expectError(t, "#if 1\nint x;", "E0005 unterminated conditional")
	expectError(t, "#ifdef A\n#if 1\n#endif", "E0005 unterminated conditional")
	expectError(t, "#endif", "E0006 #endif without #if")
	expectError(t, "#else\n", "E0006 #else without #if")
	expectError(t, "#elif 1\n", "E0006 #elif without #if")
	expectError(t, "#if 1\n#else\n#else\n#endif", "E0007 #else after #else")
	expectError(t, "#if 0\n#else\n#elif 1\n#endif", "E0007 #elif after #else")
	expectError(t, "#ifdef\n#endif", "E0018 #ifdef needs a macro name")
	expectError(t, "#if 1\n#endif FOO", "W0004 extra tokens at end of #endif directive")
	// The unterminated #if is reported at the #if, in the included file.
	_, log := parseWith("#include \"a.hlsl\"\nint y;", Options{ReadFile: mapFS(map[string]string{"a.hlsl": "#if 1\nint x;"})})
	if len(log.Msgs) != 1 || log.Msgs[0].Code != diag.ErrPPUnterminatedIf || log.Msgs[0].Pos.Src.Path != "a.hlsl" {
		t.Errorf("unterminated #if in include: %v", msgs(log))
	}
}

func TestDirectives(t *testing.T) {
	expectError(t, "#error stop here: 1 + 2\n", "E0002 #error stop here: 1 + 2")
	expectError(t, "#pragma pack_matrix(row_major)\n", "W0001 #pragma pack_matrix(row_major) is ignored")
	expectError(t, "#line 10 \"x.hlsl\"\n", "W0002 #line is ignored")
	expectError(t, "#import \"x\"\n", "E0012 unknown preprocessor directive #import")
	expectError(t, "# 1 \"x\"\n", "E0012 invalid preprocessor directive '1'")
	expectPP(t, "#\nx", "x")
	expectPP(t, "a __LINE__\nb __LINE__ __FILE__", `a 1 b 2 "test.hlsl"`)
	expectPP(t, "#define L __LINE__\n\nL", "3")
	expectPP(t, "x /* multi\nline */ y", "x y")
	expectError(t, "int x; /* never closed", "E0001 unterminated /* comment")
	expectPP(t, "// comment \\\ncontinued\nz", "z")
	expectPP(t, "__HLSL_VERSION", "2021")
}

func TestIncludes(t *testing.T) {
	files := map[string]string{
		"main.hlsl":       "#include \"sub/a.hlsl\"\nA B",
		"sub/a.hlsl":      "#define A a\n#include \"b.hlsl\"\n", // b.hlsl is next to a.hlsl
		"sub/b.hlsl":      "#define B b\n",
		"once.hlsl":       "#pragma once\nonce\n",
		"guard.hlsl":      "#ifndef G\n#define G\nguarded\n#endif\n",
		"self.hlsl":       "#include \"self.hlsl\"\n",
		"twice.hlsl":      "#include \"twice.hlsl\"\n#include \"twice.hlsl\"\n",
		"inc/lib.hlsl":    "lib",
		"unterminated.h":  "#if 1\n",
		"macroname.hlsl":  "#define HDR \"inc/lib.hlsl\"\n#include HDR\n",
		"comment.hlsl":    "/* open",
		"sub/shadow.hlsl": "local",
		"inc/shadow.hlsl": "idir",
	}
	opts := Options{ReadFile: mapFS(files), IncludeDirs: []string{"inc"}}
	run := func(src string) (string, *diag.Log) { return ppText(src, opts) }

	if got, log := run("#include \"main.hlsl\""); got != "a b" || log.HasErrors() {
		t.Errorf("nested relative include: %q %v", got, msgs(log))
	}
	if got, _ := run("#include \"once.hlsl\"\n#include \"once.hlsl\""); got != "once" {
		t.Errorf("#pragma once: %q", got)
	}
	if got, _ := run("#include \"guard.hlsl\"\n#include \"guard.hlsl\""); got != "guarded" {
		t.Errorf("include guard: %q", got)
	}
	if got, _ := run("#include <lib.hlsl>\n#include \"lib.hlsl\""); got != "lib lib" {
		t.Errorf("-I search: %q", got)
	}
	if got, _ := run("#include \"macroname.hlsl\""); got != "lib" {
		t.Errorf("#include MACRO: %q", got)
	}
	if got, _ := ppText("#include \"shadow.hlsl\"", Options{ReadFile: mapFS(files), IncludeDirs: []string{"inc"}}); got != "idir" {
		t.Errorf("-I after local dir: %q", got)
	}
	var log diag.Log
	toks, _ := preprocess("sub/x.hlsl", []byte("#include \"shadow.hlsl\""), opts, &log)
	if toks[0].Text != "local" {
		t.Errorf("including file's directory comes first: %q", toks[0].Text)
	}

	expectErrorOpts(t, "#include \"nope.hlsl\"", opts, "E0003 cannot open include file \"nope.hlsl\"")
	expectErrorOpts(t, "#include nope", opts, "E0017 #include expects \"FILENAME\" or <FILENAME>, found 'nope'")
	expectErrorOpts(t, "#include", opts, "E0017 #include expects")
	expectErrorOpts(t, "#include <lib.hlsl", opts, "E0017 missing '>'")
	expectErrorOpts(t, "#include \"self.hlsl\"", opts, "E0004 #include nested more than 64 levels deep")
	expectErrorOpts(t, "#include \"unterminated.h\"", opts, "E0005 unterminated conditional")
	expectErrorOpts(t, "#include \"comment.hlsl\"", opts, "E0001 unterminated /* comment")

	// An include that doubles at each level must stop at the work limit, fast.
	start := time.Now()
	_, log2 := ppText("#include \"twice.hlsl\"", opts)
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("exponential include took %v", d)
	}
	if !hasCode(log2, diag.ErrPPExpansionLimit) && !hasCode(log2, diag.ErrPPIncludeDepth) {
		t.Errorf("exponential include: %v", msgs(log2))
	}
}

func hasCode(log *diag.Log, c diag.Code) bool {
	for _, m := range log.Msgs {
		if m.Code == c {
			return true
		}
	}
	return false
}

func TestExpansionLimit(t *testing.T) {
	// Ten levels of ten-fold expansion would be 10^10 tokens.
	var b strings.Builder
	for i := 0; i < 10; i++ {
		b.WriteString("#define M" + string(rune('0'+i)) + " " + strings.Repeat("M"+string(rune('0'+i+1))+" ", 10) + "\n")
	}
	b.WriteString("M0\n")
	start := time.Now()
	_, log := ppText(b.String(), Options{})
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("exponential macro took %v", d)
	}
	if got := msgs(log); len(got) != 1 || !strings.HasPrefix(got[0], "E0010") {
		t.Errorf("exponential macro: %v", got)
	}
	// Exponential growth through arguments.
	src := "#define F(x) x x x x\n" + strings.Repeat("F(", 30) + "1" + strings.Repeat(")", 30)
	_, log = ppText(src, Options{})
	if !hasCode(log, diag.ErrPPExpansionLimit) {
		t.Errorf("exponential arguments: %v", msgs(log))
	}
	// Deeply nested arguments.
	src = "#define F(x) x\n" + strings.Repeat("F(", 5000) + "1" + strings.Repeat(")", 5000)
	_, log = ppText(src, Options{})
	if !hasCode(log, diag.ErrPPExpansionLimit) {
		t.Errorf("deep arguments: %v", msgs(log))
	}
}

// TestLongMacroChains checks that chains of macros expanding to each other stop
// at the nesting limit quickly (hide sets grow with the chain) and that chains of
// ordinary length work.
func TestLongMacroChains(t *testing.T) {
	chain := func(n int, def string, use string) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, def, i, i+1)
		}
		return b.String() + use
	}
	expectPP(t, chain(200, "#define M%d M%d\n", "M0"), "M200")
	expectPP(t, chain(200, "#define F%d(x) F%d(x)\n", "F0(1)"), "F200 ( 1 )")
	for _, src := range []string{
		chain(5000, "#define M%d M%d\n", "M0 M0"),
		chain(5000, "#define F%d(x) F%d(x)\n", "F0(1) F0(F0(2))"),
	} {
		start := time.Now()
		_, log := ppText(src, Options{})
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("chain took %v", d)
		}
		if got := msgs(log); len(got) != 1 || !strings.HasPrefix(got[0], "E0010 macro expansion nested more than 256 levels") {
			t.Errorf("long chain: %v", got)
		}
	}
}

func TestCommandLineDefines(t *testing.T) {
	opts := Options{Defines: map[string]string{"N": "", "M": "4", "F(x)": "x*2"}}
	expectPPOpts(t, "N M F(3)", opts, "1 4 3 * 2")
}

func TestMacroPositions(t *testing.T) {
	src := "#define BAD 1 +\nint x = BAD;"
	_, log := parseWith(src, Options{})
	if len(log.Msgs) != 1 {
		t.Fatalf("want one error, got %v", msgs(log))
	}
	// The error is at the ';' after the use; the '+' from the body points at BAD.
	line, col := log.Msgs[0].Pos.Src.LineCol(log.Msgs[0].Pos.Off)
	if line != 2 || col != 12 {
		t.Errorf("error at %d:%d, want 2:12", line, col)
	}
	var l2 diag.Log
	toks, _ := preprocess("t.hlsl", []byte(src), Options{}, &l2)
	for _, tk := range toks[3:5] { // 1 +
		if l, c := tk.Pos.Src.LineCol(tk.Pos.Off); l != 2 || c != 9 {
			t.Errorf("token %q from macro at %d:%d, want 2:9 (the use of BAD)", tk.Text, l, c)
		}
	}
}

func TestDirectiveInsideArguments(t *testing.T) {
	expectPP(t, "#define F(a, b) a + b\nF(1,\n#ifdef X\n2\n#else\n3\n#endif\n)", "1 + 3")
	expectError(t, "#define F(a) a\nint x = F(1\n#if 1\n", "E0014 unterminated argument list invoking macro F\nE0005 unterminated conditional")
}

func TestOneMessageForTruncatedText(t *testing.T) {
	expectError(t, "void f() { int x = 1; /* open", "E0001 unterminated /* comment")
}

func TestDefinedFromMacro(t *testing.T) {
	expectPP(t, "#define X 0\n#define HAS_X defined(X)\n#if HAS_X && defined X\nyes\n#endif", "yes")
	expectPP(t, "#define HAS_Y defined Y\n#if HAS_Y\nyes\n#else\nno\n#endif", "no")
	expectPP(t, "#define X\n#if defined(X) && defined X\nyes\n#endif", "yes") // X expands to nothing: operands must stay
}

func TestCommentsInDirectives(t *testing.T) {
	expectPP(t, "#define X 1 /* spans\nlines */ 2\nX", "1 2")
	expectPP(t, "/* leading\ncomment */ #define Y 3\nY", "3")
}
