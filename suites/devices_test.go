package suites

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"waverig/devices"
	"waverig/devices/icd"
	"waverig/harness/pass"
)

var _ = Describe("devices", Label("api:vulkan", "devices"), func() {
	It("reports subgroup properties for every device, as a table and as JSON", func() {
		requireDevices()
		var ds []devices.Device
		for _, d := range suiteDevices {
			ds = append(ds, d.Device)
		}
		var table, js bytes.Buffer
		Expect(devices.WriteTable(&table, ds)).To(Succeed())
		Expect(devices.WriteJSON(&js, ds)).To(Succeed())
		var parsed any
		Expect(json.Unmarshal(js.Bytes(), &parsed)).To(Succeed())
		for _, d := range ds {
			Expect(table.String()).To(ContainSubstring(d.Name))
			Expect(d.SubgroupSize).To(BeNumerically(">=", 1))
			Expect(d.SupportedOperations&0x1).NotTo(BeZero(), "%s lacks VK_SUBGROUP_FEATURE_BASIC_BIT", d.Name)
		}
	})

	It("sees every CPU driver of the machine: the system's lavapipe and setup's lavapipe 25.0.7 and SwiftShader", func() {
		requireDevices()
		if why := icd.Missing(devices.Drivers()); why != "" {
			if os.Getenv(icd.RequireEnv) == "1" {
				Fail(icd.RequireEnv + "=1: " + why)
			}
			Skip(why)
		}
		found := map[string]string{}
		for _, d := range allDevices {
			switch {
			case d.Provisioned != "":
				found[d.Provisioned] = pass.DriverString(d)
			case d.DriverIDName == "VK_DRIVER_ID_MESA_LLVMPIPE":
				found["system lavapipe"] = pass.DriverString(d)
			}
		}
		Expect(found).To(HaveKey("system lavapipe"))
		Expect(found).To(HaveKeyWithValue("lavapipe-mesa-25.0.7", ContainSubstring("Mesa 25.0.7")))
		Expect(found).To(HaveKeyWithValue("swiftshader", ContainSubstring("SwiftShader")))
		if os.Getenv(SuiteDevicesEnv) == "" {
			Expect(suiteDevices).To(HaveLen(len(allDevices)), "the wave specs run on every device")
		}
	})

	It("tells every device apart by its driver", func() {
		requireDevices()
		seen := map[string]string{}
		for _, d := range suiteDevices {
			Expect(seen).NotTo(HaveKey(d.Slug), "%s and %s share the label device:%s", seen[d.Slug], d.Title(), d.Slug)
			seen[d.Slug] = d.Title()
		}
	})

	// What each CPU driver of these machines reports (docs/devices.md; the
	// facts were read with vulkaninfo): a driver that changes what it offers
	// changes what the matrix runs, so the change is a failing spec, not a
	// silent shift of skips.
	for _, known := range []struct {
		what           string
		driver         string // substring of "name | driver name | driver info"
		ops, opsAbsent uint32
		stages         uint32
		quadAllStages  bool
		fixedSize      uint32 // its one legal size (0: LP_NATIVE_VECTOR_WIDTH decides)
	}{
		// Basic|Vote|Arithmetic|Ballot|Shuffle|ShuffleRelative|Quad, no Clustered;
		// fragment (0x10) and compute (0x20).
		{what: "lavapipe from Mesa 22.3.6", driver: "Mesa 22.3.6", ops: 0xbf, opsAbsent: 0x40, stages: 0x30},
		// Adds Clustered (0x40) and Rotate (0x200, 0x400); task (0x40) and mesh (0x80) stages.
		{what: "lavapipe from Mesa 25.0.7", driver: "Mesa 25.0.7", ops: 0x6ff, stages: 0xf0},
		// Vertex (0x1), fragment and compute; one size, 4.
		{what: "SwiftShader 5.0.0", driver: "SwiftShader driver", ops: 0xbf, opsAbsent: 0x40, stages: 0x31, fixedSize: 4},
	} {
		known := known
		It("sees "+known.what+"'s subgroup properties as it reports them", func() {
			requireDevices()
			var found []suiteDevice
			for _, d := range suiteDevices {
				if strings.Contains(pass.DeviceString(d.Device), known.driver) {
					found = append(found, d)
				}
			}
			if len(found) == 0 {
				Skip(known.what + " is not on this machine (scripts/setup.sh provisions it)")
			}
			for _, d := range found {
				dd := d.Device
				Expect(dd.SupportedOperations&known.ops).To(Equal(known.ops), d.Title())
				Expect(dd.SupportedOperations & known.opsAbsent).To(BeZero())
				Expect(dd.SupportedStages & known.stages).To(Equal(known.stages))
				Expect(dd.QuadOperationsInAllStages).To(Equal(known.quadAllStages))
				Expect(dd.LegalSubgroupSizes()).To(Equal([]uint32{dd.SubgroupSize}))
				if known.fixedSize != 0 {
					Expect(dd.SubgroupSize).To(Equal(known.fixedSize))
				}
			}
		})
	}
})
