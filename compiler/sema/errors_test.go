package sema

import (
	"strings"
	"testing"

	"waverig/compiler/diag"
	"waverig/compiler/ir"
	"waverig/compiler/syntax"
)

// kernel wraps a statement list in a compute entry point with a RW output buffer.
func kernel(body string) string {
	return "RWStructuredBuffer<uint> Out : register(u0);\n" +
		"[shader(\"compute\")] [numthreads(1, 1, 1)]\n" +
		"void main(uint3 id : SV_DispatchThreadID) {\n" + body + "\n}\n"
}

// TestDiagnostics checks the code and position of diagnostics for small snippets.
// The position is given as the text the caret must point at (its first occurrence
// marked with «»).
func TestDiagnostics(t *testing.T) {
	cases := []struct {
		name string
		src  string // with «» around the token the diagnostic points at
		code diag.Code
		sev  diag.Severity
		opts Options
	}{
		{"truncation", kernel("float4 v = 1; float2 w = «v»; Out[0] = (uint)w.x;"), diag.WarnTruncation, diag.Warning, Options{}},
		{"matrix truncation", kernel("float4x4 m = 1; float3x3 n = «m»; Out[0] = (uint)n[0].x;"), diag.WarnTruncation, diag.Warning, Options{}},
		{"float to int", kernel("float f = 1.5; uint u = «f»; Out[0] = u;"), diag.WarnFloatToInt, diag.Warning, Options{}},
		{"double to float", kernel("double d = 1.0l; float f = «d»; Out[0] = (uint)f;"), diag.WarnDoubleToFloat, diag.Warning, Options{}},
		{"unknown ident", kernel("Out[0] = «nope»;"), diag.ErrUnknownIdent, diag.Error, Options{}},
		{"bad swizzle", kernel("float3 v = 0; Out[0] = (uint)v.«w»;"), diag.ErrBadSwizzle, diag.Error, Options{}},
		{"repeat swizzle write", kernel("float3 v = 0; «v».yy = 1; Out[0] = 0;"), diag.ErrSwizzleRepeat, diag.Error, Options{}},
		{"wave kind", kernel("Out[0] = (uint)WaveActiveBitOr(«1.5»);"), diag.ErrIntrinsicKind, diag.Error, Options{}},
		{"wave bool sum", kernel("Out[0] = WaveActiveSum(«true»);"), diag.ErrIntrinsicKind, diag.Error, Options{}},
		{"wave match", kernel("Out[0] = «WaveMatch»(1).x;"), diag.ErrPartitioned, diag.Error, Options{}},
		{"vector &&", kernel("bool2 a = true; bool2 b = a «&&» a; Out[0] = 0;"), diag.ErrVectorLogical, diag.Error, Options{}},
		{"readonly const", kernel("const uint k = 1; «k» = 2; Out[0] = k;"), diag.ErrNotAssignable, diag.Error, Options{}},
		{"continue outside", kernel("«continue»;"), diag.ErrJumpOutside, diag.Error, Options{}},
		{"atomic on static", "static uint s;\n" + kernel("InterlockedAdd(«s», 1); Out[0] = s;"), diag.ErrAtomicDest, diag.Error, Options{}},
		{"collision", "StructuredBuffer<uint> In : register(t0);\nRWStructuredBuffer<uint> «Out» : register(u0);\n" +
			"[shader(\"compute\")] [numthreads(1,1,1)] void main() { Out[0] = In[0]; }", diag.ErrBindingCollision, diag.Error, Options{}},
		{"no numthreads", "RWStructuredBuffer<uint> Out;\n[shader(\"compute\")] void «main»() { Out[0] = 0; }", diag.ErrMissingNumThreads, diag.Error, Options{}},
		{"ddx in compute", kernel("Out[0] = (uint)«ddx»(1.0);"), diag.ErrPixelOnly, diag.Error, Options{}},
		{"recursion", "RWStructuredBuffer<uint> Out;\nuint «f»(uint x) { return f(x); }\n[shader(\"compute\")] [numthreads(1,1,1)] void main() { Out[0] = f(1); }", diag.ErrRecursion, diag.Error, Options{}},
		{"fallthrough", kernel("switch (id.x) { case 0: Out[0] = 1; «case» 1: break; }"), diag.ErrFallThrough, diag.Error, Options{}},
		{"missing return", "RWStructuredBuffer<uint> Out;\nuint «g»(uint x) { if (x > 0) return 1; }\n[shader(\"compute\")] [numthreads(1,1,1)] void main() { Out[0] = g(1); }", diag.ErrMissingReturn, diag.Error, Options{}},
		{"out arg literal", "RWStructuredBuffer<uint> Out;\nvoid p(out uint x) { x = 1; }\n[shader(\"compute\")] [numthreads(1,1,1)] void main() { p(«3»); }", diag.ErrOutArg, diag.Error, Options{}},
		{"ignored attribute", "RWStructuredBuffer<uint> Out;\n«[»earlydepthstencil] [shader(\"compute\")] [numthreads(1,1,1)] void main() { Out[0] = 0; }", diag.WarnIgnoredAttribute, diag.Warning, Options{}},
		{"cross float2", kernel("float2 a = 1; Out[0] = (uint)cross(«a», a).x;"), diag.ErrIntrinsicShape, diag.Error, Options{}},
		{"undefined", "RWStructuredBuffer<uint> Out;\nuint f(uint x);\n[shader(\"compute\")] [numthreads(1,1,1)] void main() { Out[0] = «f»(1); }", diag.ErrUndefinedFunc, diag.Error, Options{}},
		// asdouble(lowbits, highbits) and asuint(double, out lowbits, out highbits).
		{"asdouble one arg", kernel("Out[0] = (uint)«asdouble»(1u);"), diag.ErrArgCount, diag.Error, Options{}},
		{"asuint two args", kernel("uint lo; «asuint»(1.0l, lo); Out[0] = lo;"), diag.ErrArgCount, diag.Error, Options{}},
		{"asuint four args", kernel("uint lo, hi; «asuint»(1.0l, lo, hi, hi); Out[0] = lo;"), diag.ErrArgCount, diag.Error, Options{}},
		{"asdouble float", kernel("float f = 1; Out[0] = (uint)asdouble(«f», 1u);"), diag.ErrIntrinsicKind, diag.Error, Options{}},
		{"asdouble float literal", kernel("Out[0] = (uint)asdouble(1u, «2.0»);"), diag.ErrIntrinsicKind, diag.Error, Options{}},
		{"asdouble double", kernel("double d = 1; Out[0] = (uint)asdouble(«d», 1u);"), diag.ErrIntrinsicKind, diag.Error, Options{}},
		{"asdouble 64-bit", kernel("uint64_t u = 1; Out[0] = (uint)asdouble(1u, «u»);"), diag.ErrIntrinsicKind, diag.Error, Options{}},
		{"asdouble shapes", kernel("uint2 a = 1; uint3 b = 1; Out[0] = (uint)asdouble(a, «b»).x;"), diag.ErrIntrinsicShape, diag.Error, Options{}},
		{"asdouble scalar and vector", kernel("uint2 a = 1; Out[0] = (uint)asdouble(a, «1u»).x;"), diag.ErrIntrinsicShape, diag.Error, Options{}},
		{"asuint matrix", kernel("double2x2 m = 1; uint lo, hi; asuint(«m», lo, hi); Out[0] = lo;"), diag.ErrIntrinsicShape, diag.Error, Options{}},
		{"asuint float value", kernel("float f = 1; uint lo, hi; asuint(«f», lo, hi); Out[0] = lo;"), diag.ErrIntrinsicKind, diag.Error, Options{}},
		{"asuint out literal", kernel("uint hi; asuint(1.0l, «3», hi); Out[0] = hi;"), diag.ErrOutArg, diag.Error, Options{}},
		{"asuint out expression", kernel("uint lo, hi; asuint(1.0l, lo, hi «+» 1); Out[0] = lo;"), diag.ErrOutArg, diag.Error, Options{}},
		{"asuint out read-only", "StructuredBuffer<uint> In : register(t0);\n" + kernel("uint hi; asuint(1.0l, «In[0]», hi); Out[0] = hi;"), diag.ErrOutArg, diag.Error, Options{}},
		{"asuint out float", kernel("float lo; uint hi; asuint(1.0l, «lo», hi); Out[0] = hi;"), diag.ErrIntrinsicKind, diag.Error, Options{}},
		{"asuint void value", kernel("uint lo, hi; Out[0] = «asuint»(1.0l, lo, hi);"), diag.ErrTypeMismatch, diag.Error, Options{}},
		{"InterlockedAdd void value", kernel("Out[0] = «InterlockedAdd»(Out[1], 1);"), diag.ErrTypeMismatch, diag.Error, Options{}},
		{"asuint out shape", kernel("double2 d = 1; uint2 lo; uint hi; asuint(d, lo, «hi»); Out[0] = hi;"), diag.ErrIntrinsicShape, diag.Error, Options{}},
		{"unknown entry", "RWStructuredBuffer<uint> Out;\n[numthreads(1,1,1)] void main() { Out[0] = 0; }", diag.ErrUnknownEntry, diag.Error, Options{Entry: "other", Stage: "compute"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			start := strings.Index(tc.src, "«")
			if start < 0 && tc.code != diag.ErrUnknownEntry {
				t.Fatal("no «» marker")
			}
			src := strings.NewReplacer("«", "", "»", "").Replace(tc.src)
			log := &diag.Log{}
			f, _ := syntax.Parse("t.hlsl", []byte(src), syntax.Options{}, log)
			if log.HasErrors() {
				t.Fatalf("parse errors: %s", errorsOf(log))
			}
			Check(f, tc.opts, log)
			for _, m := range log.Msgs {
				if m.Code != tc.code || m.Severity != tc.sev {
					continue
				}
				if start < 0 {
					return
				}
				if !m.Pos.IsValid() || m.Pos.Off != start {
					t.Fatalf("%s reported at %s, want offset %d:\n%s", tc.code, m.Pos, start, m.Render())
				}
				return
			}
			t.Fatalf("no %s %s; got:\n%s", tc.sev, tc.code, errorsOf(log))
		})
	}
}

// TestBindings checks both binding modes on one declaration list.
func TestBindings(t *testing.T) {
	src := `StructuredBuffer<uint> A : register(t0);
RWStructuredBuffer<uint> B : register(u0);
RWStructuredBuffer<uint> C : register(u1, space2);
[[vk::binding(3, 1)]] StructuredBuffer<uint> D : register(t7);
StructuredBuffer<uint> E;
[shader("compute")] [numthreads(1,1,1)]
void main() { B[0] = A[0] + D[0] + E[0]; C[0] = 1; }
`
	get := func(opts Options) map[string]ir.Binding {
		m, log := compile(t, "b.hlsl", src, opts)
		if m == nil {
			t.Fatalf("errors: %s", errorsOf(log))
		}
		out := map[string]ir.Binding{}
		for _, g := range m.Globals {
			if g.Binding != nil {
				out[g.Name] = *g.Binding
			}
		}
		return out
	}
	shifted := get(Options{Shifts: map[byte]map[int]int{'u': {0: 10}}})
	want := map[string]ir.Binding{
		"A": {Set: 0, Binding: 0, Register: "t0"},
		"B": {Set: 0, Binding: 10, Register: "u0"},
		"C": {Set: 2, Binding: 1, Register: "u1,space2"},
		"D": {Set: 1, Binding: 3, Register: "t7"},
		"E": {Set: 0, Binding: 1},
	}
	for k, w := range want {
		if shifted[k] != w {
			t.Errorf("default mode %s = %+v, want %+v", k, shifted[k], w)
		}
	}
	auto := get(Options{AutoBindings: true})
	wantAuto := map[string]ir.Binding{
		"A": {Set: 0, Binding: 0, Register: "t0"},
		"B": {Set: 0, Binding: 1, Register: "u0"},
		"C": {Set: 2, Binding: 0, Register: "u1,space2"},
		"D": {Set: 1, Binding: 0, Register: "t7"},
		"E": {Set: 0, Binding: 2},
	}
	for k, w := range wantAuto {
		if auto[k] != w {
			t.Errorf("auto mode %s = %+v, want %+v", k, auto[k], w)
		}
	}
	// Without the shift, A and B collide.
	_, log := compile(t, "b.hlsl", src, Options{})
	found := false
	for _, m := range log.Msgs {
		if m.Code == diag.ErrBindingCollision && strings.Contains(m.Text, `t0 "A" and u0 "B"`) {
			found = true
		}
	}
	if !found {
		t.Errorf("no collision error: %s", errorsOf(log))
	}
}

// TestOverloadArity checks the argument-count message of an overloaded
// intrinsic names every count some overload takes, and that the 1-argument
// asuint still types as uint (the 3-argument one is void).
func TestOverloadArity(t *testing.T) {
	for _, c := range []struct{ call, want string }{
		{"uint lo; asuint(1.0l, lo);", "asuint takes 1 or 3 arguments, got 2"},
		{"asuint();", "asuint takes 1 or 3 arguments, got 0"},
		{"asdouble(1u, 2u, 3u);", "asdouble takes 2 arguments, got 3"},
		{"InterlockedAdd(Out[0]);", "InterlockedAdd takes 2 or 3 arguments, got 1"},
	} {
		_, log := compile(t, "a.hlsl", kernel(c.call+" Out[1] = 0;"), Options{})
		if !strings.Contains(errorsOf(log), c.want) {
			t.Errorf("%s: want %q, got:\n%s", c.call, c.want, errorsOf(log))
		}
	}
	m, log := compile(t, "a.hlsl", kernel("Out[0] = asuint(1.5f) + asuint(2);"), Options{})
	if m == nil {
		t.Fatalf("1-argument asuint: %s", errorsOf(log))
	}
	_, log = compile(t, "a.hlsl", kernel("uint lo, hi; Out[0] = asuint(1.0l, lo, hi);"), Options{})
	if !strings.Contains(errorsOf(log), "void expression has no value") {
		t.Errorf("the value of asuint(double, out, out) should be void, got:\n%s", errorsOf(log))
	}
}
