package suites

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"waverig/devices"
	"waverig/harness"
	"waverig/harness/pass"
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

// suiteDevice is one Vulkan device of the machine as the suites cover it:
// every device gets its own specs (lavapipe 22.3.6, lavapipe 25.0.7 and
// SwiftShader side by side on a machine without a GPU), named and labelled by
// a slug that tells two devices of one name apart by their driver.
type suiteDevice struct {
	Index  int
	Device devices.Device
	// Slug is the device in labels (device:SLUG): the driver and its version,
	// e.g. lavapipe-mesa-22.3.6, swiftshader-5.0.0.
	Slug string
	Plan plan.Plan
	// WebGPU says why WebGPU (wgpu-native) cannot run on the device, Dawn why
	// Dawn cannot ("" when it can).
	WebGPU, Dawn string
}

// Title is the device in spec texts: index, name and driver.
func (d suiteDevice) Title() string {
	return fmt.Sprintf("device %d: %s (%s)", d.Index, d.Device.Name, pass.DriverString(d.Device))
}

// suiteDevices are the devices the specs run on: every device of the machine
// (the system's drivers and those scripts/setup.sh provisions: lavapipe 22.3.6
// and 25.0.7 and SwiftShader here), or the indices WAVERIG_SUITE_DEVICES lists
// ("0" or "0,2"). They are asked once when the spec tree is built (the tree
// needs each device's wave sizes); suiteErr says why there are none. A child
// process runs the rig, not specs, and asks nothing.
var suiteDevices, suiteErr = findSuiteDevices()

// allDevices are every device of the machine, for the specs about the set.
var allDevices []devices.Device

// SuiteDevicesEnv narrows the specs to some devices.
const SuiteDevicesEnv = "WAVERIG_SUITE_DEVICES"

func findSuiteDevices() ([]suiteDevice, string) {
	if harness.IsChild() {
		return nil, "child process"
	}
	ds, err := devices.Enumerate()
	if err != nil {
		return nil, err.Error()
	}
	if len(ds) == 0 {
		return nil, "no Vulkan device (install mesa-vulkan-drivers for lavapipe)"
	}
	allDevices = ds
	want := map[int]bool{}
	if v := os.Getenv(SuiteDevicesEnv); v != "" && v != "all" {
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 0 || n >= len(ds) {
				panic(fmt.Sprintf("%s=%q: want all or a comma list of device indices below %d", SuiteDevicesEnv, v, len(ds)))
			}
			want[n] = true
		}
	}
	var out []suiteDevice
	for i, d := range ds {
		if len(want) > 0 && !want[i] {
			continue
		}
		out = append(out, suiteDevice{Index: i, Device: d, Slug: deviceSlug(d), Plan: plan.Make(d, nil), WebGPU: pass.WebGPUAvailable(d), Dawn: pass.DawnAvailable(d)})
	}
	return out, ""
}

var (
	mesaVersion = regexp.MustCompile(`^Mesa (\d+\.\d+\.\d+)`)
	notSlug     = regexp.MustCompile(`[^a-z0-9.]+`)
)

// deviceSlug names a device's driver and version for labels: Mesa drivers by
// their Mesa release (both lavapipes report driver version 0.0.1), others by
// their driver name and version.
func deviceSlug(d devices.Device) string {
	name := strings.TrimSuffix(strings.ToLower(d.DriverName), " driver")
	if name == "llvmpipe" {
		name = "lavapipe"
	}
	version := d.DriverVersionText
	if m := mesaVersion.FindStringSubmatch(d.DriverInfo); m != nil {
		name, version = name+"-mesa", m[1]
	}
	return strings.Trim(notSlug.ReplaceAllString(name+"-"+version, "-"), "-")
}

var _ = SynchronizedBeforeSuite(func() []byte {
	data, _ := json.Marshal(suiteErr)
	return data
}, func(data []byte) {
	var why string
	Expect(json.Unmarshal(data, &why)).To(Succeed())
	if why != "" && os.Getenv("CI") != "" {
		Fail("CI needs a Vulkan device: " + why)
	}
})

// requireDevices skips (locally) or fails (CI) when there is no Vulkan device.
func requireDevices() {
	if suiteErr != "" {
		if os.Getenv("CI") != "" {
			Fail("no Vulkan device: " + suiteErr)
		}
		Skip("no Vulkan device: " + suiteErr)
	}
}

// firstDevice is device 0, for the specs that are about the rig rather than
// a driver (planted bugs).
func firstDevice() suiteDevice {
	requireDevices()
	return suiteDevices[0]
}

// sizePlan returns the device's plan entry for a wave size, or a skip reason
// naming why the device cannot run it.
func (d suiteDevice) sizePlan(size uint32) (plan.SizePlan, string) {
	for _, sp := range d.Plan.Sizes {
		if sp.Size == size {
			return sp, sp.SkipReason
		}
	}
	return plan.SizePlan{}, fmt.Sprintf("wave size %d is not offered by %s (subgroupSize %d, legal sizes %v)", size, d.Device.Name, d.Device.SubgroupSize, d.Device.LegalSubgroupSizes())
}
