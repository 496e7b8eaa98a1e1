package suites

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"waverig/harness/gen"
)

// The fixed seeds of generated control flow (harness/gen): programs 1..20 on
// every device, at its own wave size, under the contract the device promises:
// exact where it has maximal reconvergence (lavapipe from Mesa 25, the H200),
// else the subset contract.
var _ = Describe("generated control flow", Label("api:vulkan", "fuzz"), func() {
	if len(suiteDevices) == 0 {
		It("finds a Vulkan device", func() { requireDevices() })
	}
	for _, dev := range suiteDevices {
		dev := dev
		It("passes seeds 1..20 against the CPU simulation on "+dev.Title(), Label("device:"+dev.Slug), func() {
			d, err := gen.OpenDevice(dev.Index)
			Expect(err).NotTo(HaveOccurred())
			defer d.Close()
			mode := d.Contract()
			res, err := d.Fuzz(gen.FuzzConfig{Seed: 1, N: 20, Mode: mode})
			Expect(err).NotTo(HaveOccurred())
			Expect(res.Programs).To(Equal(20))
			if res.Failed != nil {
				Fail(res.Failed.OriginalFailure + "\n" + res.Failed.Shrunk.HLSL())
			}
			AddReportEntry("contract", fmt.Sprintf("%v (maximal reconvergence: %v)", mode, d.Maximal))
		})
	}
})
