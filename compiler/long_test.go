package compiler

import (
	"fmt"
	"strings"
	"testing"
)

// longFunction returns a compute shader whose entry point has n statements of
// the given shape: "add" (a += 1;), "decl" (uint vI = a + I;) or "if"
// (if (id.x == I) { a += 1; }) or "scope" ({ uint t = a + I; a = t; }: many
// locals of one name).
func longFunction(n int, shape string) []byte {
	var b strings.Builder
	b.WriteString("RWStructuredBuffer<uint> Out : register(u0);\n[shader(\"compute\")] [numthreads(1, 1, 1)]\nvoid main(uint3 id : SV_DispatchThreadID) {\n    uint a = 0;\n")
	for i := 0; i < n; i++ {
		switch shape {
		case "add":
			b.WriteString("    a += 1;\n")
		case "decl":
			fmt.Fprintf(&b, "    uint v%d = a + %d;\n", i, i)
		case "if":
			fmt.Fprintf(&b, "    if (id.x == %d) { a += 1; }\n", i)
		case "scope":
			fmt.Fprintf(&b, "    { uint t = a + %d; a = t; }\n", i)
		}
	}
	b.WriteString("    Out[id.x] = a;\n}\n")
	return []byte(b.String())
}

// BenchmarkCompileLongFunction compiles one entry point with 25k and 100k
// statements of each shape to all three targets. Issue 7: the time per
// statement must stay flat as n grows (it was quadratic).
func BenchmarkCompileLongFunction(b *testing.B) {
	for _, shape := range []string{"add", "decl", "if", "scope"} {
		for _, n := range []int{25000, 100000} {
			src := longFunction(n, shape)
			b.Run(fmt.Sprintf("%s/%dk", shape, n/1000), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if res, err := Compile("long.hlsl", src, Options{Targets: []Target{SPIRV, WGSL, MSL}}); err != nil {
						b.Fatal(res.Render())
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/stmt")
			})
		}
	}
}

// TestLongFunctionNames checks the names WGSL and MSL give many locals of one
// name (issue 7 made their search linear per name instead of quadratic): t,
// t_1, …, t_(n-1), each declared once.
func TestLongFunctionNames(t *testing.T) {
	const n = 2000
	res, err := Compile("long.hlsl", longFunction(n, "scope"), Options{Targets: []Target{WGSL, MSL}})
	if err != nil {
		t.Fatal(res.Render())
	}
	for _, tc := range []struct {
		target Target
		decl   string // how a declaration of local NAME starts
	}{{WGSL, "var NAME: u32"}, {MSL, "uint NAME = "}} {
		out := string(res.Find("main", tc.target))
		for i := 0; i < n; i++ {
			name := "t"
			if i > 0 {
				name = fmt.Sprintf("t_%d", i)
			}
			if c := strings.Count(out, strings.Replace(tc.decl, "NAME", name, 1)); c != 1 {
				t.Fatalf("%v: %q declared %d times", tc.target, name, c)
			}
		}
	}
}
