package suites

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"waverig/harness/gen"
)

// The fixed seeds of generated control flow (harness/gen): programs 1..20,
// at the device's own wave size, under the contract the device promises.
var _ = Describe("generated control flow", Label("api:vulkan", "fuzz"), func() {
	It("passes seeds 1..20 against the CPU simulation", func() {
		requireDevice()
		d, err := gen.OpenDevice(0)
		Expect(err).NotTo(HaveOccurred())
		defer d.Close()
		res, err := d.Fuzz(gen.FuzzConfig{Seed: 1, N: 20, Mode: d.Contract()})
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Programs).To(Equal(20))
		if res.Failed != nil {
			Fail(res.Failed.OriginalFailure + "\n" + res.Failed.Shrunk.HLSL())
		}
	})
})
