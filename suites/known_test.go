package suites

import (
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"waverig/harness"
	"waverig/harness/expect"
	"waverig/harness/glslang"
	"waverig/harness/kernels"
	"waverig/harness/results"
)

// reachableSizes are every lavapipe wave size this machine can reach: all of
// them, because LP_NATIVE_VECTOR_WIDTH=512 gives 16 lanes without AVX-512 too
// (emulated, slower). A known crash is checked at each, never only at the sizes
// one machine happened to run.
var reachableSizes = []uint32{4, 8, 16}

// crashKey is one (type, compiler, API, size) the driver crashed on.
type crashKey struct {
	typ, compiler, api string
	size               uint32
}

// caseIDs are the IDs of one operation's cases in one stage that a filter keeps
// (with its Cases unset): the crash checks run one stage's kernels only.
func caseIDs(op, stage string, f kernels.Filter) map[string]bool {
	ids := map[string]bool{}
	for _, k := range familyKernels([]string{op}) {
		if stageOf(k) != stage {
			continue
		}
		for _, c := range k.Cases {
			if f.Keep(c) {
				ids[c.ID()] = true
			}
		}
	}
	return ids
}

// Known driver crashes are not run by the matrix (each one kills a process and
// costs a restart). These specs re-run the cases of each crash entry alone, with
// the expectation files off, at every reachable wave size and with every
// compiler, and check that the entry is exact: it still crashes where it says
// (else the entry has outlived the bug), and nothing crashes that no entry covers
// (else the entry is narrower than the crash, and a machine that reaches the
// uncovered size or compiler goes red).
var _ = Describe("known driver crashes", Label("known-crashes"), func() {
	sets, err := expect.Builtin()
	if err != nil {
		panic(err) // the embedded files are part of the binary; a parse error is a build defect
	}
	for _, set := range sets {
		for _, e := range set.Entries {
			if e.Kind != expect.Crash {
				continue
			}
			set, e := set, e
			// An entry for a whole stage (op=*) is checked on one representative kernel
			// per stage: every kernel of it would cost one crashed process each.
			op := e.Op
			if op == "*" {
				op = "WaveActiveSum"
			}
			stage := e.Stage
			if stage == "" {
				stage = results.Compute
			}
			It(fmt.Sprintf("%s: %s %s (%s) crashes exactly where the entry says", e.Where, e.Op, e.Type, stage), Label("op:"+op, "stage:"+stage), func() {
				d := requireDevice()
				if !set.Applies(harness.DeviceString(d)) {
					Skip(fmt.Sprintf("%s applies to drivers matching %q, not %s", set.Name, set.Driver, harness.DeviceString(d)))
				}
				if !harness.IsLavapipe(d) {
					Skip("known crashes are re-checked through lavapipe child processes only")
				}
				comps := []string{harness.Ours}
				if glslang.Installed() {
					comps = append(comps, harness.Glslang)
				} else if e.Compiler == harness.Glslang {
					Skip(glslang.NotInstalled)
				}
				crashed := map[crashKey]results.Record{}
				// reached: (compiler, API, size) combinations whose modules got to the
				// driver (not skipped, not refused by spirv-val): only those can crash.
				reached := map[crashKey]bool{}
				apis := e.APIs()
				if apis == nil {
					apis = []string{harness.Vulkan}
					if suiteEnv.WebGPU == "" {
						apis = append(apis, harness.WebGPU)
					}
				}
				ran := 0
				plan := harness.MakePlan(d, reachableSizes)
				for _, sp := range plan.Sizes {
					Expect(sp.SkipReason).To(BeEmpty(), "wave size %d must be reachable on lavapipe", sp.Size)
					cfg := harness.Config{Filter: filterFor([]string{op}), NoExpectations: true, Compilers: comps, APIs: apis}
					cfg.Filter.Types = []string{e.Type}
					if e.Op == "*" {
						cfg.Filter.Types = []string{"uint"}
					}
					cfg.Filter.Cases = caseIDs(op, stage, cfg.Filter)
					By(fmt.Sprintf("running %s %s at wave size %d", e.Op, e.Type, sp.Size))
					_, err := harness.RunChild(func() *exec.Cmd { return exec.Command(os.Args[0]) }, 0, sp, cfg, func(r results.Record) {
						if r.Case == results.LayoutCase {
							return
						}
						ran++
						if r.Status != results.Skip && !strings.Contains(r.Reason, "spirv-val") {
							reached[crashKey{"", r.Compiler, r.API, r.WaveSize}] = true
						}
						if r.Status == results.Error && strings.Contains(r.Reason, "crashed") {
							crashed[crashKey{r.Type, r.Compiler, r.API, r.WaveSize}] = r
						}
					})
					Expect(err).NotTo(HaveOccurred())
				}
				Expect(ran).To(BeNumerically(">", 0), "no case matched the entry")
				entries := expect.For(sets, harness.DeviceString(d))
				var uncovered, gone []string
				for k, r := range crashed {
					if expect.FindRecord(entries, expect.Crash, r) == nil {
						uncovered = append(uncovered, fmt.Sprintf("%s [%s %s] at wave size %d", k.typ, k.api, k.compiler, k.size))
					}
				}
				for _, size := range reachableSizes {
					for _, comp := range comps {
						for _, api := range apis {
							if !e.Covers(comp, size) || !reached[crashKey{"", comp, api, size}] {
								continue
							}
							any := false
							for k := range crashed {
								any = any || (k.size == size && k.compiler == comp && k.api == api)
							}
							if !any {
								gone = append(gone, fmt.Sprintf("[%s %s] at wave size %d", api, comp, size))
							}
						}
					}
				}
				sort.Strings(uncovered)
				sort.Strings(gone)
				Expect(uncovered).To(BeEmpty(), "the driver also crashes where no entry says so: widen %s (harness/expect/data/%s)", e.Where, set.Name)
				Expect(gone).To(BeEmpty(), "%s no longer crashes there: narrow or remove the entry (harness/expect/data/%s)", e.Where, set.Name)
			})
		}
	}
})
