package syntax

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"waverig/compiler/diag"
)

// fixturesDir is the repository's fixture tree, relative to this package.
const fixturesDir = "../../fixtures"

// fixtureFiles lists every .hlsl under the fixture tree (read at test time, so
// new fixtures become fuzz seeds and parse checks automatically).
func fixtureFiles(t testing.TB) []string {
	var out []string
	err := filepath.WalkDir(fixturesDir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".hlsl") {
			out = append(out, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

var inlineSeeds = []string{
	"",
	"#define A A\nA",
	"#define F(x) F(x) x\nF(F(1))",
	"#if 1\n#elif\n#else\n#endif",
	"#include \"main.hlsl\"\n",
	"#include \"self.hlsl\"\n",
	"#define S(x) #x\n#define C(a,b) a##b\nS(C(1,2)) C(+,+) C(,)",
	"void f() { a[b[0]] = (float3)(1).x; [unroll] for (;;) {} }",
	"[[vk::binding(0,1)]] RWStructuredBuffer<vector<int,2>> b : register(u1, space2);",
	"struct S { float a : A; } s; typedef S T[2]; cbuffer C : register(b0) { T t : packoffset(c0.x); }",
	"float f(int x = 1) : SV_Target { switch (x) { case 1: default: discard; } return x ? 1.f : 2.h; }",
	"/* unterminated",
	"\"unterminated",
	"#if 1 / 0\n#endif\n#if (((\n#endif",
	"int x = 0x; float y = 1e+; int z = 099;",
	"\\\n#define X \\\n 1\nX",
	"vector<float, 3>(1, 2, 3); (vector<float,2>)x; StructuredBuffer<float4>>",
}

// FuzzParse checks that any input terminates quickly and without a panic, that
// every diagnostic carries a registered code and a position inside its source,
// and that the result can be printed.
func FuzzParse(f *testing.F) {
	for _, path := range fixtureFiles(f) {
		if b, err := os.ReadFile(path); err == nil {
			f.Add(string(b))
		}
	}
	for _, s := range inlineSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		files := map[string]string{
			"main.hlsl": src,
			"a.hlsl":    "#define A 1\nfloat a;\n",
			"self.hlsl": "#include \"self.hlsl\"\n",
			"half.hlsl": src[:len(src)/2],
		}
		var log diag.Log
		start := time.Now()
		file, srcs := Parse("main.hlsl", []byte(src), Options{ReadFile: mapFS(files), Defines: map[string]string{"D": "", "E": "2"}}, &log)
		if d := time.Since(start); d > 20*time.Second {
			t.Errorf("parse took %v", d)
		}
		if file == nil || len(srcs) == 0 || srcs[0].Path != "main.hlsl" {
			t.Fatalf("Parse returned file %v, sources %v", file, srcs)
		}
		for _, m := range log.Msgs {
			if m.Code == diag.ErrInternal {
				t.Fatalf("internal error: %s", m.Text)
			}
			if _, ok := diag.Lookup(m.Code); !ok {
				t.Errorf("unregistered code %s: %s", m.Code, m.Text)
			}
			if m.Pos.Src != nil && (m.Pos.Off < 0 || m.Pos.Off > len(m.Pos.Src.Text)) {
				t.Errorf("%s: offset %d outside its source (%d bytes)", m.Code, m.Pos.Off, len(m.Pos.Src.Text))
			}
			_ = m.Render()
		}
		_ = Dump(file)
	})
}

// TestFixturesParse checks that every fixture outside the syntax and
// preprocessor negative sets is free of preprocessor and syntax errors.
func TestFixturesParse(t *testing.T) {
	n := 0
	for _, path := range fixtureFiles(t) {
		slash := filepath.ToSlash(path)
		if strings.Contains(slash, "/negative/syntax/") || strings.Contains(slash, "/negative/preprocess/") {
			continue
		}
		opts, err := fixtureOptions(path)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		var log diag.Log
		ParseFile(path, opts, &log)
		for _, m := range log.Msgs {
			if m.Severity == diag.Error && (strings.HasPrefix(string(m.Code), "E00") || strings.HasPrefix(string(m.Code), "E01")) {
				t.Errorf("%s", m.Render())
			}
		}
		n++
	}
	t.Logf("%d fixtures parsed", n)
}

// BenchmarkParseFixtures measures front-end throughput over the positive
// fixtures (the negative ones include deliberate limit-hitting inputs).
func BenchmarkParseFixtures(b *testing.B) {
	var srcs [][]byte
	size := 0
	for _, path := range fixtureFiles(b) {
		if strings.Contains(filepath.ToSlash(path), "/negative/") {
			continue
		}
		if data, err := os.ReadFile(path); err == nil {
			srcs = append(srcs, data)
			size += len(data)
		}
	}
	b.SetBytes(int64(size))
	for b.Loop() {
		for _, s := range srcs {
			var log diag.Log
			Parse("bench.hlsl", s, Options{ReadFile: mapFS(nil)}, &log)
		}
	}
}
