package suites

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"waverig/devices"
	"waverig/harness"
	"waverig/harness/plan"
)

// TestMain lets the suite binary double as the rig's child process (the same
// protocol as the waverig binary, harness/child.go).
func TestMain(m *testing.M) {
	if harness.IsChild() {
		os.Exit(harness.ChildMain(os.Stdout))
	}
	os.Exit(m.Run())
}

func TestSuites(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "waverig")
}

// env is what SynchronizedBeforeSuite gathers once and shares with every process.
type env struct {
	Devices []devices.Device
	Err     string
	Plan    plan.Plan // device 0's
	// WebGPU says why WebGPU cannot run on device 0 ("" when it can).
	WebGPU string
	// Plans and WebGPUs are every device's (Plan and WebGPU of device i).
	Plans   []plan.Plan
	WebGPUs []string
}

var suiteEnv env

var _ = SynchronizedBeforeSuite(func() []byte {
	var e env
	ds, err := devices.Enumerate()
	if err != nil {
		e.Err = err.Error()
	} else if len(ds) == 0 {
		e.Err = "no Vulkan device (install mesa-vulkan-drivers for lavapipe)"
	} else {
		e.Devices = ds
		for _, d := range ds {
			e.Plans = append(e.Plans, plan.Make(d, nil))
			e.WebGPUs = append(e.WebGPUs, harness.WebGPUAvailable(d))
		}
		e.Plan, e.WebGPU = e.Plans[0], e.WebGPUs[0]
	}
	data, _ := json.Marshal(e)
	return data
}, func(data []byte) {
	Expect(json.Unmarshal(data, &suiteEnv)).To(Succeed())
	if suiteEnv.Err != "" && os.Getenv("CI") != "" {
		Fail("CI needs a Vulkan device: " + suiteEnv.Err)
	}
})

// requireDevice skips (locally) or fails (CI) when there is no Vulkan device.
func requireDevice() devices.Device {
	if suiteEnv.Err != "" {
		if os.Getenv("CI") != "" {
			Fail("no Vulkan device: " + suiteEnv.Err)
		}
		Skip("no Vulkan device: " + suiteEnv.Err)
	}
	return suiteEnv.Devices[0]
}

// sizePlan returns device dev's plan entry for a wave size, or a skip reason
// naming why the device cannot run it.
func sizePlan(dev int, size uint32) (plan.SizePlan, string) {
	if dev >= len(suiteEnv.Devices) {
		return plan.SizePlan{}, fmt.Sprintf("no device %d (the suite found %d)", dev, len(suiteEnv.Devices))
	}
	for _, sp := range suiteEnv.Plans[dev].Sizes {
		if sp.Size == size {
			return sp, sp.SkipReason
		}
	}
	d := suiteEnv.Devices[dev]
	return plan.SizePlan{}, fmt.Sprintf("wave size %d is not offered by %s (subgroupSize %d, legal sizes %v)", size, d.Name, d.SubgroupSize, d.LegalSubgroupSizes())
}
