package kernels

import (
	"fmt"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The checker benchmarks run over a fixed, representative part of the matrix
// simulated at wave size 32 (the NVIDIA H200's): every benchStride-th compute
// kernel of Matrix(Filter{}) — every operation, type family and shape occur —
// and every benchStride-th pixel kernel. The whole matrix is ~470 MB of records
// and half a minute to simulate, too much to set up per benchmark run.
const benchStride = 8

type benchKernel struct {
	k   Kernel
	out map[string][]byte
}

var (
	benchOnce sync.Once
	benchSet  []benchKernel
	benchErr  error
)

func benchKernels(b *testing.B) []benchKernel {
	benchOnce.Do(func() {
		ks := Matrix(Filter{})
		var picked []Kernel
		for i := 0; i < len(ks); i += benchStride {
			picked = append(picked, ks[i])
		}
		px := GraphicsMatrix(Pixel, Filter{})
		for i := 0; i < len(px); i += benchStride {
			picked = append(picked, px[i])
		}
		for _, k := range picked {
			out, err := Simulate(k, SimLayout{WaveSize: 32, Seed: 7, Helpers: IncludesHelperLanes(k.Cases[0])})
			if err != nil {
				benchErr = err
				return
			}
			benchSet = append(benchSet, benchKernel{k, out})
		}
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchSet
}

// copyOut is a second API's buffers: the same device's bits (two correct paths
// to one device usually agree bit for bit).
func copyOut(out map[string][]byte) map[string][]byte {
	c := make(map[string][]byte, len(out))
	for r, b := range out {
		c[r] = append([]byte(nil), b...)
	}
	return c
}

// cpuTime is this process's user + system CPU time: the machine the
// benchmarks run on is shared, so wall time says little.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the CPU time since c0 per kernel (cpu-ns/kernel).
func reportCPU(b *testing.B, c0 time.Duration, kernels int) {
	b.ReportMetric(float64((cpuTime()-c0).Nanoseconds())/float64(b.N*kernels), "cpu-ns/kernel")
}

// BenchmarkCheckMatrix is one Check of every benchmark kernel per op; the
// kernel/op metric is ns per kernel.
func BenchmarkCheckMatrix(b *testing.B) {
	ks := benchKernels(b)
	b.ReportAllocs()
	b.ResetTimer()
	c0 := cpuTime()
	for i := 0; i < b.N; i++ {
		for _, bk := range ks {
			for _, r := range Check(bk.k, bk.out, 32) {
				if !r.Passed {
					b.Fatalf("%s: a simulated correct device fails: %s", bk.k.Name, r)
				}
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(ks)), "ns/kernel")
	reportCPU(b, c0, len(ks))
}

// BenchmarkCompareMatrix is Compare on its own (a memo of its own, nothing
// checked before) for every benchmark kernel.
func BenchmarkCompareMatrix(b *testing.B) {
	ks := benchKernels(b)
	outB := make([]map[string][]byte, len(ks))
	for i, bk := range ks {
		outB[i] = copyOut(bk.out)
	}
	b.ReportAllocs()
	b.ResetTimer()
	c0 := cpuTime()
	for i := 0; i < b.N; i++ {
		for j, bk := range ks {
			ps, err := Compare(bk.k, "vulkan", bk.out, "webgpu", outB[j])
			if err != nil {
				b.Fatal(err)
			}
			for _, p := range ps {
				if p.Differing != 0 {
					b.Fatalf("%s: identical outputs differ", p.Case.ID())
				}
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(ks)), "ns/kernel")
	reportCPU(b, c0, len(ks))
}

// BenchmarkCompareAfterCheck is the rig's parity step: Compare through the
// memo both sides' Checks filled (the Checks are not timed).
func BenchmarkCompareAfterCheck(b *testing.B) {
	ks := benchKernels(b)
	outB := make([]map[string][]byte, len(ks))
	for i, bk := range ks {
		outB[i] = copyOut(bk.out)
	}
	b.ReportAllocs()
	b.ResetTimer()
	var cpu time.Duration
	for i := 0; i < b.N; i++ {
		for j, bk := range ks {
			b.StopTimer()
			m := NewMemo(bk.k)
			m.Check(bk.out, 32)
			m.Check(outB[j], 32)
			b.StartTimer()
			c0 := cpuTime()
			if _, err := m.Compare("vulkan", bk.out, "webgpu", outB[j]); err != nil {
				b.Fatal(err)
			}
			cpu += cpuTime() - c0
		}
	}
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N*len(ks)), "cpu-ns/kernel")
}

// BenchmarkKernelFinish is the CPU half of one kernel in a GPU run with both
// APIs: Checks of Vulkan with each compiler and of WebGPU (the same layout,
// as a device with a fixed wave size gives) and their parity comparison,
// through one memo as the rig does.
func BenchmarkKernelFinish(b *testing.B) {
	ks := benchKernels(b)
	outs := make([][2]map[string][]byte, len(ks))
	for i, bk := range ks {
		outs[i] = [2]map[string][]byte{copyOut(bk.out), copyOut(bk.out)}
	}
	b.ReportAllocs()
	b.ResetTimer()
	c0 := cpuTime()
	for i := 0; i < b.N; i++ {
		for j, bk := range ks {
			m := NewMemo(bk.k)
			m.Check(bk.out, 32)
			m.Check(outs[j][0], 32)
			m.Check(outs[j][1], 32)
			if _, err := m.Compare("vulkan", bk.out, "webgpu", outs[j][1]); err != nil {
				b.Fatal(err)
			}
		}
	}
	reportCPU(b, c0, len(ks))
}

var (
	pixelBenchOnce sync.Once
	pixelBenchSet  map[uint32][]benchKernel
	pixelBenchErr  error
)

// pixelBenchKernels are every benchStride-th pixel kernel simulated at wave
// sizes 32 (the H200's) and 8 (lavapipe's default width on this machine), the
// helper lanes taking part where the kernel asks for them.
func pixelBenchKernels(b *testing.B, size uint32) []benchKernel {
	pixelBenchOnce.Do(func() {
		pixelBenchSet = map[uint32][]benchKernel{}
		px := GraphicsMatrix(Pixel, Filter{})
		for _, sz := range []uint32{32, 8} {
			for i := 0; i < len(px); i += benchStride {
				k := px[i]
				out, err := Simulate(k, SimLayout{WaveSize: sz, Seed: 7, Helpers: IncludesHelperLanes(k.Cases[0])})
				if err != nil {
					pixelBenchErr = err
					return
				}
				pixelBenchSet[sz] = append(pixelBenchSet[sz], benchKernel{k, out})
			}
		}
	})
	if pixelBenchErr != nil {
		b.Fatal(pixelBenchErr)
	}
	return pixelBenchSet[size]
}

// BenchmarkCheckPixel is the pixel checker on its own: one Check (a memo of
// its own, so every model runs) of every benchmark pixel kernel per op, at
// wave sizes 32 and 8.
func BenchmarkCheckPixel(b *testing.B) {
	for _, size := range []uint32{32, 8} {
		b.Run(fmt.Sprintf("wave%d", size), func(b *testing.B) {
			ks := pixelBenchKernels(b, size)
			b.ReportAllocs()
			b.ResetTimer()
			c0 := cpuTime()
			for i := 0; i < b.N; i++ {
				for _, bk := range ks {
					for _, r := range Check(bk.k, bk.out, size) {
						if !r.Passed {
							b.Fatalf("%s: a simulated correct device fails: %s", bk.k.Name, r)
						}
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(ks)), "ns/kernel")
			reportCPU(b, c0, len(ks))
		})
	}
}
