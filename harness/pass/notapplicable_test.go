package pass

import (
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"

	"waverig/harness/kernels"
	"waverig/harness/produce"
	"waverig/harness/results"
)

// byDesignCode are the WGSL back end's codes of what WebGPU cannot do on any
// device: 64-bit types, wave operations in vertex shaders, IsHelperLane, and
// [WaveOpsIncludeHelperLanes]. (W0601, [WaveSize], is the rig's own check.)
var byDesignCode = regexp.MustCompile(`\b(E0601|E0602|E0612|W0602)\b`)

// TestNotApplicableIsWhatWGSLRefuses holds NotApplicable to what the rig
// found out by compiling, for every kernel of the matrix in every stage:
// each WebGPU implementation leaves a kernel out exactly when it tests a SPIR-V extension (the
// rig's old skip), declares [WaveSize] (the reflection's range, the rig's
// old skip), or waverig's WGSL back end refuses it with one of the by-design
// codes; the reason names that code. Vulkan leaves nothing out. A new kernel
// kind that WGSL refuses by design, or a rule that hides a kernel WebGPU
// could run, fails here.
func TestNotApplicableIsWhatWGSLRefuses(t *testing.T) {
	ks := kernels.Matrix(kernels.Filter{})
	ks = append(ks, kernels.GraphicsMatrix(kernels.Pixel, kernels.Filter{})...)
	ks = append(ks, kernels.GraphicsMatrix(kernels.Vertex, kernels.Filter{})...)
	type verdict struct {
		k    kernels.Kernel
		skip map[string]string // by API: what the rig found, "" when it ran it
	}
	found := make([]verdict, len(ks))
	var wg sync.WaitGroup
	work := make(chan int)
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				found[i] = verdict{ks[i], map[string]string{WebGPU: wgslFinding(ks[i], WebGPU), Dawn: wgslFinding(ks[i], Dawn)}}
			}
		}()
	}
	for i := range ks {
		work <- i
	}
	close(work)
	wg.Wait()
	left := map[string]int{}
	for _, v := range found {
		if why := NotApplicable(Vulkan, v.k); why != "" {
			t.Errorf("%s: Vulkan leaves it out (%s)", v.k.Name, why)
		}
		for _, api := range []string{WebGPU, Dawn} {
			why, skip := NotApplicable(api, v.k), v.skip[api]
			switch {
			case (why != "") != (skip != ""):
				t.Errorf("%s on %s: NotApplicable %q, but the rig found %q", v.k.Name, api, why, skip)
			case why != "":
				if code := byDesignCode.FindString(why); code != "" && !strings.Contains(skip, code) {
					t.Errorf("%s on %s: NotApplicable names %s, the WGSL back end says %q", v.k.Name, api, code, skip)
				}
				left[api+": "+why] += len(v.k.Cases)
			}
		}
	}
	if len(left) == 0 {
		t.Fatal("no kernel is left out: the matrix lost its PartitionedNV, [WaveSize] and 64-bit kernels?")
	}
	for why, n := range left {
		t.Logf("%6d cases: %s", n, why)
	}
}

// wgslFinding is why the rig, compiling a kernel in the API's dialect (naga's
// for wgpu-native, the standard one for Dawn), found it could never run there
// ("" when it could).
func wgslFinding(k kernels.Kernel, api string) string {
	compile := func(entry, stage string) *module {
		return produced(produce.OursCompiler{}.Compile(produce.Source{Name: k.Name + ".hlsl", HLSL: []byte(k.HLSL), Entry: entry, Stage: stage}, apiTarget(api)))
	}
	if len(k.Extensions) > 0 {
		return "extension " + strings.Join(k.Extensions, ",")
	}
	if k.Draw == nil {
		if reflectedWaveSize(k) != nil {
			return "[WaveSize]"
		}
		return designSkip(compile(k.Entry, results.Compute))
	}
	for _, e := range [][2]string{{k.Draw.VertexEntry, results.Vertex}, {k.Draw.PixelEntry, results.Pixel}} {
		if e[0] == "" {
			continue
		}
		if why := designSkip(compile(e[0], e[1])); why != "" {
			return why
		}
	}
	return ""
}

// designSkip is a module's skip when it names a by-design code.
func designSkip(m *module) string {
	if byDesignCode.MatchString(m.skip) {
		return m.skip
	}
	return ""
}
