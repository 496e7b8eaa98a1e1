package msl

import "testing"

// BenchmarkEmitMSL measures one CSSum-like entry point (groupshared, a helper
// function, WaveActiveSum, WaveIsFirstLane, an atomic) from IR to MSL text.
func BenchmarkEmitMSL(b *testing.B) {
	p := cssum()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := EmitEntry(p.M, p.EP, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
