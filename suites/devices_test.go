package suites

import (
	"bytes"
	"encoding/json"
	"os"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"waverig/devices"
	"waverig/devices/icd"
	"waverig/harness"
	"waverig/harness/plan"
)

var _ = Describe("devices", Label("api:vulkan", "devices"), func() {
	It("reports subgroup properties for every device, as a table and as JSON", func() {
		requireDevice()
		var table, js bytes.Buffer
		Expect(devices.WriteTable(&table, suiteEnv.Devices)).To(Succeed())
		Expect(devices.WriteJSON(&js, suiteEnv.Devices)).To(Succeed())
		var parsed any
		Expect(json.Unmarshal(js.Bytes(), &parsed)).To(Succeed())
		for _, d := range suiteEnv.Devices {
			Expect(table.String()).To(ContainSubstring(d.Name))
			Expect(d.SubgroupSize).To(BeNumerically(">=", 1))
			Expect(d.SupportedOperations&0x1).NotTo(BeZero(), "%s lacks VK_SUBGROUP_FEATURE_BASIC_BIT", d.Name)
		}
	})

	It("sees every CPU driver of the machine: the system's lavapipe and setup's lavapipe 25.0.7 and SwiftShader", func() {
		requireDevice()
		if why := icd.Missing(devices.Drivers()); why != "" {
			if os.Getenv(icd.RequireEnv) == "1" {
				Fail(icd.RequireEnv + "=1: " + why)
			}
			Skip(why)
		}
		found := map[string]string{}
		for _, d := range suiteEnv.Devices {
			switch {
			case d.Provisioned != "":
				found[d.Provisioned] = harness.DriverString(d)
			case d.DriverIDName == "VK_DRIVER_ID_MESA_LLVMPIPE":
				found["system lavapipe"] = harness.DriverString(d)
			}
		}
		Expect(found).To(HaveKey("system lavapipe"))
		Expect(found).To(HaveKeyWithValue("lavapipe-mesa-25.0.7", ContainSubstring("Mesa 25.0.7")))
		Expect(found).To(HaveKeyWithValue("swiftshader", ContainSubstring("SwiftShader")))
		Expect(suiteDevices).To(HaveLen(len(suiteEnv.Devices)), "the wave specs run on every device")
	})

	It("sees lavapipe's subgroup properties as Mesa 22.3 reports them", func() {
		d := requireDevice()
		if !plan.IsLavapipe(d) {
			Skip("device 0 is " + d.Name + ", not lavapipe")
		}
		// Basic|Vote|Arithmetic|Ballot|Shuffle|ShuffleRelative|Quad, no Clustered.
		Expect(d.SupportedOperations & 0xbf).To(Equal(uint32(0xbf)))
		Expect(d.SupportedOperations & 0x40).To(BeZero())
		// Compute (0x20) and fragment (0x10).
		Expect(d.SupportedStages & 0x30).To(Equal(uint32(0x30)))
		Expect(d.QuadOperationsInAllStages).To(BeFalse())
		Expect(d.LegalSubgroupSizes()).To(Equal([]uint32{d.SubgroupSize}))
	})
})
