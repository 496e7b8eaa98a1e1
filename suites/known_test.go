package suites

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"waverig/harness"
	"waverig/harness/expect"
	"waverig/harness/kernels"
	"waverig/harness/pass"
	"waverig/harness/plan"
	"waverig/harness/results"
)

// reachableSizes are every lavapipe wave size this machine can reach: all of
// them, because LP_NATIVE_VECTOR_WIDTH=512 gives 16 lanes without AVX-512 too
// (emulated, slower). A skip that hides a crash is checked at each size it
// names, never only at the sizes one machine happened to run.
var reachableSizes = []uint32{4, 8, 16}

// representatives are the kernels a skips.txt line hides on one (API,
// compiler, size): the WaveActiveSum kernel of each stage the line covers when
// it has one (a line for a whole stage would cost a crashed process per
// kernel), else the first kernel of the stage it matches.
func representatives(l *expect.Line, api, comp string, size uint32) []kernels.Kernel {
	byStage := map[string]kernels.Kernel{}
	var order []string
	for _, k := range wholeMatrix() {
		st := stageOf(k)
		if prev, ok := byStage[st]; ok && (prev.Cases[0].OpName() == "WaveActiveSum" || k.Cases[0].OpName() != "WaveActiveSum") {
			continue
		}
		for _, c := range k.Cases {
			if l.Matches(results.TestName(api, st, c.ID(), comp, size)) {
				if _, ok := byStage[st]; !ok {
					order = append(order, st)
				}
				byStage[st] = k
				break
			}
		}
	}
	var out []kernels.Kernel
	for _, st := range order {
		out = append(out, byStage[st])
	}
	return out
}

// wholeMatrix is every kernel of every stage, built once per suite process
// without its buffers (the specs below match kernels by their cases and run
// them by case ID, so the child builds the buffers it runs). Built for each
// (line, size, API, compiler), as it was, it cost about two seconds a time and
// most of these specs' 95 s in a CI run.
var wholeMatrix = sync.OnceValue(func() []kernels.Kernel {
	all := everyStage(kernels.Filter{})
	for i := range all {
		all[i].Buffers, all[i].Textures = nil, nil
	}
	return all
})

// Known driver crashes in fails.csv (status Crash) run with the matrix, in the
// child processes lavapipe's sizes run in: a crash that went away (or became
// a wrong result) is an UnexpectedImprovement there, and a crash no line knows
// is an unexpected Crash. What the matrix does not run is skips.txt; a skip
// line whose reason starts "Crash:" hides a crash, and these specs re-run one
// representative kernel of it alone, baselines off, wherever it applies: the
// spec fails when the driver no longer crashes there (the skip has outlived
// the bug and hides cases that could run).
var _ = Describe("skips that hide driver crashes", Label("known-crashes"), func() {
	sets, err := expect.Builtin()
	if err != nil {
		panic(err) // the embedded files are part of the binary; a parse error is a build defect
	}
	for _, set := range sets {
		for _, l := range set.Skips {
			if !l.HidesCrash() {
				continue
			}
			set, l := set, l
			It(fmt.Sprintf("%s: %s still crashes the driver", l.Where, l.Test), func() {
				requireDevices()
				var sd *suiteDevice
				for i := range suiteDevices {
					if set.Applies(pass.DeviceString(suiteDevices[i].Device)) {
						sd = &suiteDevices[i]
						break
					}
				}
				if sd == nil {
					Skip(fmt.Sprintf("%s applies to drivers matching %q: none on this machine", set.Name, set.Driver))
				}
				d := sd.Device
				if !plan.IsLavapipe(d) {
					Skip("crashes are re-checked through lavapipe child processes only")
				}
				comps := []string{pass.Ours, pass.Glslang}
				apis := []string{pass.Vulkan}
				if sd.WebGPU == "" {
					apis = append(apis, pass.WebGPU)
				}
				if sd.Dawn == "" {
					apis = append(apis, pass.Dawn)
				}
				checked := 0
				var gone []string
				for _, size := range reachableSizes {
					p := plan.Make(d, []uint32{size})
					for _, api := range apis {
						for _, comp := range comps {
							if api != pass.Vulkan && comp != pass.Ours {
								continue
							}
							for _, k := range representatives(l, api, comp, size) {
								Expect(p.Sizes).To(HaveLen(1))
								sp := p.Sizes[0]
								Expect(sp.SkipReason).To(BeEmpty(), "wave size %d must be reachable on lavapipe", size)
								ids := map[string]bool{}
								for _, c := range k.Cases {
									ids[c.ID()] = true
								}
								f := filterFor([]string{k.Cases[0].OpName()})
								f.Cases = ids
								cfg := pass.Config{Filter: f, NoExpectations: true, Compilers: []string{comp}, APIs: []string{api}}
								By(fmt.Sprintf("running %s on %s/%s at wave size %d", k.Name, api, comp, size))
								crashed, reached := false, false
								_, err := harness.RunChild(func() *exec.Cmd { return exec.Command(os.Args[0]) }, sd.Index, sp, cfg, func(r results.Record) {
									if r.Case == results.LayoutCase || r.Kernel != k.Name || r.Backend() != api || r.Compiler != comp {
										return
									}
									if r.Status != results.Skip && !strings.Contains(r.Reason, "spirv-val") {
										reached = true
									}
									crashed = crashed || r.Status == results.Crash
								})
								Expect(err).NotTo(HaveOccurred())
								if !reached {
									continue // the module never got to the driver here
								}
								checked++
								if !crashed {
									gone = append(gone, fmt.Sprintf("%s [%s %s] at wave size %d", k.Name, api, comp, size))
								}
							}
						}
					}
				}
				Expect(checked).To(BeNumerically(">", 0), "no kernel the line hides reached the driver")
				Expect(gone).To(BeEmpty(), "%s no longer crashes there: narrow or remove the skip (harness/expect/data/%s)", l.Where, strings.TrimPrefix(set.Name, "builtin:"))
			})
		}
	}
})
