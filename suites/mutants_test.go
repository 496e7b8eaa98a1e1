package suites

import (
	"fmt"
	"os/exec"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"waverig/harness/kernels"
	"waverig/harness/mutate"
	"waverig/harness/mutate/score"
	"waverig/harness/pass"
	"waverig/harness/vulkan"
)

var _ = Describe("planted bugs", Ordered, Label("api:vulkan", "stage:compute", "mutants"), func() {
	var rig *pass.Rig
	BeforeAll(func() {
		firstDevice()
		for _, tool := range []string{"spirv-dis", "spirv-as"} {
			if _, err := exec.LookPath(tool); err != nil {
				Skip(tool + " not installed (apt-get install spirv-tools)")
			}
		}
		var err error
		rig, err = pass.New(0, pass.Config{Compilers: []string{pass.Ours}})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(rig.Close)
	})

	It("has at least forty planted bugs, each naming the operations it applies to", func() {
		Expect(len(mutate.All)).To(BeNumerically(">=", 40))
		for _, m := range mutate.All {
			Expect(m.Ops).NotTo(BeEmpty(), "planted bug %q names no operation", m.Name)
		}
	})

	// Each planted bug at the device's own wave size, in the kernels the score
	// runs it against (score.Kernels; scripts/mutation-score.sh runs every size).
	for _, m := range mutate.All {
		m := m
		It(fmt.Sprintf("catches %q", m.Name), Label("op:"+m.Ops[0]), func() {
			var ks []kernels.Kernel
			for _, k := range score.Kernels() {
				if slices.Contains(m.Ops, k.Cases[0].OpName()) {
					ks = append(ks, k)
				}
			}
			Expect(ks).NotTo(BeEmpty())
			ran, rejected := 0, ""
			// Every kernel of its operations whose module the mutation applies to and
			// that passes unmutated (the failure must come from the planted bug),
			// until one catches it.
			for _, k := range ks {
				words, err := rig.CompiledSPIRV(k)
				Expect(err).NotTo(HaveOccurred())
				text, err := mutate.Disassemble(words)
				Expect(err).NotTo(HaveOccurred())
				if !m.Applies(text) {
					continue
				}
				clean, err := rig.RunWithSPIRV(k, words)
				if err != nil {
					continue // a kernel this device cannot run (the score lists them)
				}
				for _, cr := range clean {
					Expect(cr.Passed).To(BeTrue(), "unmutated %s fails: %+v", cr.Case.ID(), cr.Failures)
				}
				mutant, err := m.ApplyTo(words, mutate.Env(words))
				Expect(err).NotTo(HaveOccurred())
				if verr := vulkan.Validate(mutant); verr != nil {
					rejected = verr.Error()
					continue
				}
				results, err := rig.RunWithSPIRV(k, mutant)
				Expect(err).NotTo(HaveOccurred())
				ran++
				failed := 0
				for _, cr := range results {
					if !cr.Passed {
						failed++
					}
				}
				if failed > 0 {
					AddReportEntry("caught", fmt.Sprintf("%q: %d of %d cases of kernel %s fail", m.Name, failed, len(results), k.Name))
					return
				}
			}
			switch {
			case ran > 0:
				if why, ok := mutate.Survivors[m.Name]; ok {
					Skip("a known survivor: " + why)
				}
				Fail(fmt.Sprintf("the rig did not notice %q in %d kernels of %v", m.Name, ran, m.Ops))
			case rejected != "":
				Skip("rejected by the validator (not a valid mutant): " + rejected)
			default:
				Skip(fmt.Sprintf("no kernel of %v that runs here contains what %q changes", m.Ops, m.Name))
			}
		})
	}
})
