package syntax

import (
	"strings"
	"testing"

	"waverig/compiler/diag"
)

func TestParseTopLevel(t *testing.T) {
	expectParse(t, "struct S { float a; float3 b : TEXCOORD0; };",
		"(struct S (var float a) (var float3 b :TEXCOORD0))")
	expectParse(t, "struct S { float a; } s;",
		"(group (struct S (var float a)) (var S s))")
	expectParse(t, "struct S { int a, b[2]; }; S s;",
		"(struct S (var int a) (var int b[2]))\n(var S s)")
	expectParse(t, "struct S { int a; }; struct S t;",
		"(struct S (var int a))\n(var S t)")
	expectParse(t, "struct { int a; } anon;",
		"(group (struct __anon_struct0 (var int a)) (var __anon_struct0 anon))")
	expectParse(t, "typedef float4 color; color c;",
		"(typedef float4 color)\n(var color c)")
	expectParse(t, "typedef uint arr[4]; typedef struct { int x; } T; T t;",
		"(typedef uint arr[4])\n(group (struct __anon_struct0 (var int x)) (typedef __anon_struct0 T))\n(var T t)")
	expectParse(t, "cbuffer CB : register(b0) { float4 k; row_major float4x4 m : packoffset(c1.x); }",
		"(cbuffer CB :register(b0,space0) (var float4 k) (var row_major float4x4 m :packoffset(c1.x)))")
	expectParse(t, "tbuffer TB : register(t3, space1) { float a; };",
		"(tbuffer TB :register(t3,space1) (var float a))")
	expectParse(t, "int a, b[2][3], c[];",
		"(group (var int a) (var int b[2][3]) (var int c[]))")
	expectParse(t, ";;", "")
}

func TestParseGlobals(t *testing.T) {
	expectParse(t, "[[vk::binding(0,1)]] RWStructuredBuffer<uint> buf;",
		"(var [vk::binding(0,1)] RWStructuredBuffer<uint> buf)")
	expectParse(t, "[[vk::push_constant]] ConstantBuffer<S> pc;",
		"(var [vk::push_constant] ConstantBuffer<S> pc)")
	expectParse(t, "[[vk::constant_id(3)]] const uint N = 8;",
		"(var [vk::constant_id(3)] const uint N = 8)")
	expectParse(t, "[[vk::binding(1), vk::location(2)]] Texture2D<float4> tex : register(t0);",
		"(var [vk::binding(1)] [vk::location(2)] Texture2D<float4> tex :register(t0,space0))")
	expectParse(t, "static const groupshared uniform extern precise float x;",
		"(var static const groupshared uniform extern precise float x)")
	expectParse(t, "nointerpolation linear centroid noperspective float y;",
		"(var nointerpolation linear centroid noperspective float y)")
	expectParse(t, "row_major float4x4 m; column_major matrix<float,4,4> n;",
		"(var row_major float4x4 m)\n(var column_major matrix<float,4,4> n)")
	expectParse(t, "StructuredBuffer<vector<int,2> > a; StructuredBuffer<vector<int,2>> b;",
		"(var StructuredBuffer<vector<int,2>> a)\n(var StructuredBuffer<vector<int,2>> b)")
	expectParse(t, "RWTexture2D<unorm float4> t : register(u1, space2);",
		"(var RWTexture2D<unorm float4> t :register(u1,space2))")
	expectParse(t, "Texture2DMS<float4, 8> ms; vector<float, 1+2> v;",
		"(var Texture2DMS<float4,8> ms)\n(var vector<float,(+ 1 2)> v)")
	expectParse(t, "SamplerState s : register(s0); RWByteAddressBuffer raw : register(U0) : SEM;",
		"(var SamplerState s :register(s0,space0))\n(var RWByteAddressBuffer raw :SEM :register(u0,space0))")
	expectParse(t, "static const float k[3] = { 1, 2, 3, };",
		"(var static const float k[3] = {1 2 3})")
	expectParse(t, "static const float2x2 m = { {1, 2}, {3, 4} };",
		"(var static const float2x2 m = {{1 2} {3 4}})")
}

func TestParseFunctions(t *testing.T) {
	expectParse(t, "float4 main(float4 p : SV_Position) : SV_Target0 { return p; }",
		"(func float4 main ((var float4 p :SV_Position)) :SV_Target0 {(return p)})")
	expectParse(t, `[shader("compute")] [numthreads(64, 1, 1)] void cs(uint3 id : SV_DispatchThreadID) {}`,
		`(func [shader("compute")] [numthreads(64,1,1)] void cs ((var uint3 id :SV_DispatchThreadID)) {})`)
	expectParse(t, "void f(in float a, out float b, inout float c, in out float d, uniform float e);",
		"(func void f ((var in float a) (var out float b) (var inout float c) (var inout float d) (var uniform float e)))")
	expectParse(t, "struct S { int a; }; S f() { return (S)0; }",
		"(struct S (var int a))\n(func S f () {(return (cast S 0))})")
	expectParse(t, "float f(void) { return 1; }", "(func float f () {(return 1)})")
	expectParse(t, "void g(float2 a[4], [[vk::location(1)]] nointerpolation uint k : K);",
		"(func void g ((var float2 a[4]) (var [vk::location(1)] nointerpolation uint k :K)))")
	expectParse(t, "static inline float h(float);", "(func static inline float h ((var float )))")
	expectParse(t, "float f(float x, float y = 1.0, int z = N + 1) { return x; }",
		"(func float f ((var float x) (var float y = 1.0) (var int z = (+ N 1))) {(return x)})")
	expectParse(t, "export float sq(float x) { return x * x; }",
		"(func export float sq ((var float x)) {(return (* x x))})")
}

func TestParseStatements(t *testing.T) {
	fn := func(body string) string { return "void f() { " + body + " }" }
	wrap := func(dump string) string { return "(func void f () {" + dump + "})" }
	cases := []struct{ body, want string }{
		{"int a = 1, b;", "(decl (var int a = 1) (var int b))"},
		{"static const uint k[2] = {1, 2};", "(decl (var static const uint k[2] = {1 2}))"},
		{"S s; s.a = 1;", "(decl (var S s)) (= (. s a) 1);"},
		{"struct L { int a; }; L l;", "(decl (struct L (var int a))) (decl (var L l))"},
		{"typedef int I; I i;", "(decl (typedef int I)) (decl (var I i))"},
		{"if (a) b = 1; else if (c) b = 2; else b = 3;", "(if a (= b 1); else (if c (= b 2); else (= b 3);))"},
		{"[branch] if (a) {}", "(if [branch] a {})"},
		{"[flatten] if (a) {} else {}", "(if [flatten] a {} else {})"},
		{"for (;;) break;", "(for _ _ _ break;)"},
		{"for (i = 0, j = 1; i < 4; i++, j--) continue;", "(for (, (= i 0) (= j 1)); (< i 4) (, (post++ i) (post-- j)) continue;)"},
		{"[unroll] for (uint i = 0; i < 4; ++i) {}", "(for [unroll] (decl (var uint i = 0)) (< i 4) (++ i) {})"},
		{"[unroll(4)] for (int i = 0, j = 0; ; ) {}", "(for [unroll(4)] (decl (var int i = 0) (var int j = 0)) _ _ {})"},
		{"[loop] while (x) x--;", "(while [loop] x (post-- x);)"},
		{"do { x++; } while (x < 10);", "(do {(post++ x);} (< x 10))"},
		{"switch (x) { case 0: case 1: y = 1; break; case 2: { y = 2; } default: return; }",
			"(switch x (case 0:) (case 1: (= y 1); break;) (case 2: {(= y 2);}) (default: (return)))"},
		{"[branch] switch (x) { default: break; }", "(switch [branch] x (default: break;))"},
		{"discard;", "discard;"},
		{"return;", "(return)"},
		{";", ";"},
		{"{ { x = 1; } }", "{{(= x 1);}}"},
		{"float3(1, 2, 3);", "(call float3 1 2 3);"},
		{"x = y = z;", "(= x (= y z));"},
	}
	for _, c := range cases {
		expectParse(t, fn(c.body), wrap(c.want))
	}
}

func TestParseExpressions(t *testing.T) {
	cases := []struct{ src, want string }{
		{"a + b * c", "(+ a (* b c))"},
		{"(a + b) * c", "(* (paren (+ a b)) c)"},
		{"a - b - c", "(- (- a b) c)"},
		{"a << 1 + 2", "(<< a (+ 1 2))"},
		{"a < b == c > d", "(== (< a b) (> c d))"},
		{"a & b ^ c | d", "(| (^ (& a b) c) d)"},
		{"a || b && c", "(|| a (&& b c))"},
		{"a ? b : c ? d : e", "(? a b (? c d e))"},
		{"a ? b, c : d", "(? a (, b c) d)"},
		{"a += b -= c", "(+= a (-= b c))"},
		{"a <<= 2", "(<<= a 2)"},
		{"x >>= 1, y ^= 2", "(, (>>= x 1) (^= y 2))"},
		{"-a++", "(- (post++ a))"},
		{"!~+-x", "(! (~ (+ (- x))))"},
		{"--x[1]", "(-- (index x 1))"},
		{"(float)x", "(cast float x)"},
		{"(float3)v.x", "(cast float3 (. v x))"},
		{"(float2x2)0", "(cast float2x2 0)"},
		{"(vector<float, 2>)v", "(cast vector<float,2> v)"},
		{"(x)", "(paren x)"},
		{"(x)(y)", "(call (paren x) y)"},
		{"float3(1, 2, 3)", "(call float3 1 2 3)"},
		{"vector<float, 3>(1, 2, 3)", "(call (type vector<float,3>) 1 2 3)"},
		{"matrix<float,2,2>(1,2,3,4)", "(call (type matrix<float,2,2>) 1 2 3 4)"},
		{"buf.Load(4)", "(method buf Load 4)"},
		{"tex.Sample(s, uv).rgb", "(. (method tex Sample s uv) rgb)"},
		{"a[b[0]]", "(index a (index b 0))"},
		{"a[b[c[0]]]", "(index a (index b (index c 0)))"},
		{"s.arr[2].m.xy", "(. (. (index (. s arr) 2) m) xy)"},
		{"f()", "(call f)"},
		{"WaveActiveSum(x) + WaveGetLaneIndex()", "(+ (call WaveActiveSum x) (call WaveGetLaneIndex))"},
		{"true && false", "(&& true false)"},
		{"1 + 0x1Fu + 017 + 5ul + 7LL + 3ULL", "(+ (+ (+ (+ (+ 1 0x1Fu) 017) 5ul) 7ll) 3ull)"},
		{"1. + .5 + 1e-3 + 1.5f + 2.0h + 1.0l + 1.0F + 2E+2", "(+ (+ (+ (+ (+ (+ (+ 1. .5) 1e-3) 1.5f) 2.0h) 1.0l) 1.0f) 2E+2)"},
		{"'a'", "97"},
		{"x < y > z", "(> (< x y) z)"},
	}
	for _, c := range cases {
		expectParse(t, "void f() { "+c.src+"; }", "(func void f () {"+c.want+";})")
	}
}

func TestParseErrors(t *testing.T) {
	expectError(t, "int x = 1\nint y;", "E0104 expected ';' after declaration, found 'int'")
	expectError(t, "void f() { x = ; y = 1; }", "E0105 expected an expression, found ';'")
	expectError(t, "void f() { x = 1 +; y = ; }", "E0105 expected an expression, found ';'\nE0105 expected an expression, found ';'")
	expectError(t, "x = 1;", "E0107 expected a declaration, found an expression starting with 'x'")
	expectError(t, "f();", "E0107 expected a declaration, found an expression starting with 'f'")
	expectError(t, "float = 1;", "E0104 expected a name in declaration, found '='")
	expectError(t, "1;", "E0107 expected a declaration, found '1'")
	expectError(t, "void f() { int x = 1 @ 2; }", "E0101 invalid character \"@\"")
	expectError(t, "void f() { g(\"abc); }", "E0102 unterminated string")
	expectError(t, "int x = 09;", "E0103 invalid number \"09\": invalid digit in octal literal")
	expectError(t, "float x = 1.0q;", "E0103 invalid number \"1.0q\": invalid suffix 'q' on floating-point literal")
	expectError(t, "int x = 1uz;", "E0103 invalid number \"1uz\": invalid suffix 'uz' on integer literal")
	expectError(t, "int x = 0x;", "E0103 invalid number \"0x\": hexadecimal literal has no digits")
	expectError(t, "float x = 1e+;", "E0103 invalid number \"1e+\": exponent has no digits")
	expectError(t, "uint64_t x = 18446744073709551616;", "E0103 integer literal 18446744073709551616 is too large")
	expectError(t, "RWBuffer<uint> b : register(q1);", "E0110 invalid register \"q1\"")
	expectError(t, "RWBuffer<uint> b : register(u1, space);", "E0110 invalid register space \"space\"")
	expectError(t, "RWBuffer<uint> b : register(u);", "E0110 invalid register \"u\"")
	expectError(t, "float4 a : packoffset(x0);", "E0116 invalid packoffset \"x0\"")
	expectError(t, "float4 a : packoffset(c0.q);", "E0116 invalid packoffset component \"q\"")
	expectError(t, "void f() { case 1: x = 2; }", "E0111 'case' label outside a switch")
	expectError(t, "void f() { else x = 1; }", "E0113 'else' without a matching 'if'")
	expectError(t, "out float x;", "E0114 'out' is allowed only on function parameters")
	expectError(t, "template<typename T> T f(T x) { return x; }", "E0112 templates are not supported")
	expectError(t, "struct S { float f() { return 1; } };", "E0112 member functions are not supported")
	expectError(t, "[[vk::binding(0)] RWBuffer<uint> b;", "E0115 expected ']]' to close the attribute")
	expectError(t, "[numthreads(1,1,1) void f() {}", "E0115 expected ']' to close the attribute")
	expectError(t, "static x;", "E0104 expected a name in declaration, found ';'")
	expectError(t, "static ;", "E0106 expected a type, found ';'")
	expectError(t, "void f() { switch (x) { y = 1; case 1: break; } }", "E0104 expected 'case' or 'default' in switch, found 'y'")
	expectError(t, "void f() { do x++; until (x); }", "E0104 expected 'while' after the body of do")
	expectError(t, "void f() { int x;", "E0104 expected '}' to close the block, found end of file")
	expectError(t, "void f() { if (x { } }", "E0104 expected ')' after the if condition, found '{'")
	expectError(t, "void f() { return (float3 1); }", "E0104 expected ')' to close the parenthesis, found '1'")
}

// TestErrorRecovery checks that one mistake gives one message and that the
// parser keeps the declarations around it.
func TestErrorRecovery(t *testing.T) {
	src := `
struct S { float a; int 3; float b; };
void f() {
	int x = ;
	x = 1;
	if (x) { y = = 2; } else { z = 3; }
}
float g() { return 1; }
garbage here !;
float h;
`
	f, log := parseWith(src, Options{})
	if n := len(log.Msgs); n != 4 {
		t.Fatalf("want 4 errors, got %d:\n%s", n, strings.Join(msgs(log), "\n"))
	}
	want := "(struct S (var float a) (var float b))\n" +
		"(func void f () {(= x 1); (if x {} else {(= z 3);})})\n" +
		"(func float g () {(return 1)})\n" +
		"(var float h)"
	if got := Dump(f); got != want {
		t.Errorf("recovered AST:\n got: %s\nwant: %s", got, want)
	}
}

func TestNestingLimit(t *testing.T) {
	deep := strings.Repeat("(", 5000) + "1" + strings.Repeat(")", 5000)
	_, log := parseWith("void f() { x = "+deep+"; }", Options{})
	if got := msgs(log); len(got) != 1 || !strings.HasPrefix(got[0], "E0108") {
		t.Errorf("deep parentheses: %v", got)
	}
	blocks := "void f() " + strings.Repeat("{", 3000) + strings.Repeat("}", 3000)
	_, log = parseWith(blocks, Options{})
	if got := msgs(log); len(got) == 0 || !strings.HasPrefix(got[0], "E0108") {
		t.Errorf("deep blocks: %v", got)
	}
	unary := "void f() { x = " + strings.Repeat("-", 3000) + "1; }"
	_, log = parseWith(unary, Options{})
	if got := msgs(log); len(got) != 1 || !strings.HasPrefix(got[0], "E0108") {
		t.Errorf("deep unary: %v", got)
	}
}

// TestPositions checks that nodes carry byte offsets of what the user wrote.
func TestPositions(t *testing.T) {
	src := "#define ONE 1\nvoid f() { int abc = ONE + x; }"
	f, log := parseWith(src, Options{})
	if len(log.Msgs) != 0 {
		t.Fatal(msgs(log))
	}
	fn := f.Decls[0].(*FuncDecl)
	v := fn.Body.Stmts[0].(*DeclStmt).Decls[0].(*VarDecl)
	if got := src[v.NamePos.Off:][:3]; got != "abc" {
		t.Errorf("NamePos points at %q", got)
	}
	bin := v.Init.(*BinaryExpr)
	if got := src[bin.Pos.Off]; got != '+' {
		t.Errorf("BinaryExpr.Pos points at %q", got)
	}
	// The literal came from the macro: it carries the position of the use of ONE.
	if got := src[bin.X.P().Off:][:3]; got != "ONE" {
		t.Errorf("expanded literal points at %q", got)
	}
	if line, col := bin.X.P().Src.LineCol(bin.X.P().Off); line != 2 || col != 22 {
		t.Errorf("expanded literal at %d:%d", line, col)
	}
}

func TestParseFileAndSources(t *testing.T) {
	files := map[string]string{
		"dir/main.hlsl":   "#include \"common.hlsl\"\n#include <lib.hlsl>\nfloat y = X + L;",
		"dir/common.hlsl": "#define X 1\n",
		"inc/lib.hlsl":    "#define L 2\n",
	}
	var log diag.Log
	f, srcs := ParseFile("dir/main.hlsl", Options{ReadFile: mapFS(files), IncludeDirs: []string{"inc"}}, &log)
	if log.HasErrors() {
		t.Fatal(msgs(&log))
	}
	var paths []string
	for _, s := range srcs {
		paths = append(paths, s.Path)
	}
	if got := strings.Join(paths, ","); got != "dir/main.hlsl,dir/common.hlsl,inc/lib.hlsl" {
		t.Errorf("sources: %s", got)
	}
	if got := Dump(f); got != "(var float y = (+ 1 2))" {
		t.Errorf("AST: %s", got)
	}
	log = diag.Log{}
	f, srcs = ParseFile("missing.hlsl", Options{ReadFile: mapFS(files)}, &log)
	if f == nil || len(srcs) != 0 || len(log.Msgs) != 1 || log.Msgs[0].Code != diag.ErrReadFile {
		t.Errorf("missing main file: %v %v %v", f, srcs, msgs(&log))
	}
}

func TestTopLevelStatement(t *testing.T) {
	expectError(t, "return 1;", "E0107 expected a declaration, found 'return'")
	expectError(t, "if (x) {}\nfloat y;", "E0107 expected a declaration, found 'if'")
}

func TestStructMissingSemicolon(t *testing.T) {
	expectError(t, "struct S { float a; }\nRWBuffer<float> b;", "E0104 expected ';' after the struct definition, found 'RWBuffer'")
	expectError(t, "struct S { float a; }\n[[vk::binding(0)]] RWBuffer<float> b;", "E0104 expected ';' after the struct definition, found '['")
}

// TestNestingDepthIsGenerous checks that ordinary deep code stays well inside the limit.
func TestNestingDepthIsGenerous(t *testing.T) {
	parens := strings.Repeat("(", 900) + "1" + strings.Repeat(")", 900)
	chain := "a" + strings.Repeat(" = a", 900)
	ternary := strings.Repeat("a ? b : ", 900) + "c"
	for _, e := range []string{parens, chain, ternary} {
		_, log := parseWith("void f() { x = "+e+"; }", Options{})
		if log.HasErrors() {
			t.Errorf("%.20s…: %v", e, msgs(log))
		}
	}
	_, log := parseWith("void f() { x = "+strings.Repeat("a ? b : ", 1100)+"c; }", Options{})
	if got := msgs(log); len(got) != 1 || !strings.HasPrefix(got[0], "E0108") {
		t.Errorf("deep ternary: %v", got)
	}
}
