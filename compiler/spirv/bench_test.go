package spirv

import "testing"

// BenchmarkEmitCSSum measures emission of the seed compute shader (IR -> words).
func BenchmarkEmitCSSum(b *testing.B) {
	m := cssum()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := EmitEntry(m.M, m.EP, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEmitControlFlow measures a larger module (calls, loops, switch).
func BenchmarkEmitControlFlow(b *testing.B) {
	m := controlFlow()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := EmitEntry(m.M, m.EP, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
