package devices

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	vk "github.com/vulkan-go/vulkan"
)

// validationMisuseEnv makes this test binary the process that misuses Vulkan
// under the layer (TestValidationLayerLogsMisuse re-runs itself with it set).
const validationMisuseEnv = "WAVERIG_TEST_VALIDATION_MISUSE"

// TestValidationLayerLogsMisuse proves the path -validation relies on end to
// end: with ValidationDirEnv set, a process's instance loads the layer, the
// layer writes its messages to DIR/<pid>.log, and CountValidationMessages finds
// them by VUID. The misuse is a buffer of size 0 (VUID-VkBufferCreateInfo-size-00912:
// "size must be greater than 0"), made in a child process so that this
// process's shared instance stays unvalidated.
func TestValidationLayerLogsMisuse(t *testing.T) {
	if os.Getenv(validationMisuseEnv) != "" {
		misuseVulkan(t)
		return
	}
	if _, err := Enumerate(); err != nil {
		t.Skipf("no Vulkan: %v", err)
	}
	if !layerInstalled(ValidationLayer) {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is not installed (scripts/setup.sh installs vulkan-validationlayers)", ValidationLayer)
		}
		t.Skipf("%s is not installed (apt-get install vulkan-validationlayers)", ValidationLayer)
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestValidationLayerLogsMisuse$", "-test.count=1")
	cmd.Env = append(os.Environ(), validationMisuseEnv+"=1", ValidationDirEnv+"="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("misusing process: %v\n%s", err, out)
	}
	logs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	if len(logs) != 1 {
		t.Fatalf("want one log (the child's) in %s, got %v", dir, logs)
	}
	byID := map[string]int{}
	n, err := CountValidationMessages(logs[0], byID)
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 || byID["VUID-VkBufferCreateInfo-size-00912"] == 0 {
		data, _ := os.ReadFile(logs[0])
		t.Fatalf("the layer's log does not report the size-0 buffer (%d messages: %v):\n%s", n, byID, data)
	}
}

// misuseVulkan opens device 0 (through Open, so with the layer) and creates a
// buffer of size 0.
func misuseVulkan(t *testing.T) {
	_, h, err := Open(0)
	if err != nil {
		t.Fatal(err)
	}
	pd := vk.PhysicalDevice(h.Physical)
	queueInfo := vk.DeviceQueueCreateInfo{
		SType:            vk.StructureTypeDeviceQueueCreateInfo,
		QueueFamilyIndex: 0,
		QueueCount:       1,
		PQueuePriorities: []float32{1},
	}
	var dev vk.Device
	if res := vk.CreateDevice(pd, &vk.DeviceCreateInfo{
		SType:                vk.StructureTypeDeviceCreateInfo,
		QueueCreateInfoCount: 1,
		PQueueCreateInfos:    []vk.DeviceQueueCreateInfo{queueInfo},
	}, nil, &dev); res != vk.Success {
		t.Fatalf("vkCreateDevice: %d", res)
	}
	var buf vk.Buffer
	res := vk.CreateBuffer(dev, &vk.BufferCreateInfo{
		SType:       vk.StructureTypeBufferCreateInfo,
		Size:        0, // the misuse
		Usage:       vk.BufferUsageFlags(vk.BufferUsageStorageBufferBit),
		SharingMode: vk.SharingModeExclusive,
	}, nil, &buf)
	if res == vk.Success {
		vk.DestroyBuffer(dev, buf, nil)
	}
	vk.DestroyDevice(dev, nil)
}
