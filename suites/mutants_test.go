package suites

import (
	"fmt"
	"os/exec"
	"regexp"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"waverig/harness"
	"waverig/harness/kernels"
	"waverig/harness/mutate"
)

// mutantKernels names, per planted bug, the operation whose kernel carries the
// construct it changes. The bug is planted in waverig's own SPIR-V for that kernel.
var mutantKernels = map[string]string{
	"Reduce->ExclusiveScan":              "WaveActiveSum",
	"IAdd->IMul":                         "WaveActiveSum",
	"Shuffle lane+1":                     "WaveReadLaneAt",
	"QuadSwap direction":                 "QuadReadAcrossX",
	"inverted active-lane branch":        "WaveActiveSum",
	"wrong identity for an empty prefix": "WavePrefixSum",
}

var _ = Describe("planted bugs", Ordered, Label("api:vulkan", "stage:compute", "mutants"), func() {
	var rig *harness.Rig
	BeforeAll(func() {
		requireDevice()
		for _, tool := range []string{"spirv-dis", "spirv-as"} {
			if _, err := exec.LookPath(tool); err != nil {
				Skip(tool + " not installed (apt-get install spirv-tools)")
			}
		}
		var err error
		rig, err = harness.New(0, harness.Config{Compilers: []string{harness.Ours}})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(rig.Close)
	})

	It("has at least six planted bugs", func() {
		Expect(len(mutate.All)).To(BeNumerically(">=", 6))
		for _, m := range mutate.All {
			Expect(mutantKernels).To(HaveKey(m.Name), "planted bug %q has no kernel", m.Name)
		}
	})

	for _, m := range mutate.All {
		m := m
		It(fmt.Sprintf("catches %q", m.Name), Label("op:"+mutantKernels[m.Name]), func() {
			op := mutantKernels[m.Name]
			ks := kernels.Matrix(kernels.Filter{Ops: regexp.MustCompile("^" + op + "$")})
			Expect(ks).NotTo(BeEmpty())
			// The first kernel of the op whose module the mutation applies to and
			// that passes unmutated: the failure must come from the planted bug.
			for _, k := range ks {
				words, err := rig.CompiledSPIRV(k)
				Expect(err).NotTo(HaveOccurred())
				text, err := mutate.Disassemble(words)
				Expect(err).NotTo(HaveOccurred())
				if !m.Applies(text) {
					continue
				}
				clean, err := rig.RunWithSPIRV(k, words)
				Expect(err).NotTo(HaveOccurred())
				for _, cr := range clean {
					Expect(cr.Passed).To(BeTrue(), "unmutated %s fails: %+v", cr.Case.ID(), cr.Failures)
				}
				mutant, err := m.ApplyTo(words, "vulkan1.2")
				Expect(err).NotTo(HaveOccurred())
				results, err := rig.RunWithSPIRV(k, mutant)
				Expect(err).NotTo(HaveOccurred())
				failed := 0
				for _, cr := range results {
					if !cr.Passed {
						failed++
					}
				}
				Expect(failed).To(BeNumerically(">", 0), "the rig did not notice %q in kernel %s", m.Name, k.Name)
				AddReportEntry("caught", fmt.Sprintf("%q: %d of %d cases of kernel %s fail", m.Name, failed, len(results), k.Name))
				return
			}
			Fail(fmt.Sprintf("no %s kernel contains what %q changes", op, m.Name))
		})
	}
})
