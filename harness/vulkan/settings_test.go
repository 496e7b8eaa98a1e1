package vulkan

import (
	"strings"
	"testing"
	"time"

	"waverig/devices"
	"waverig/devices/vkx"
)

// subgroupSettings is pure logic over the device description; these cases
// cover device shapes this machine does not have (NVIDIA-like fixed 32,
// AMD-like 32..64, no size control at all).
func TestSubgroupSettings(t *testing.T) {
	fixed32 := devices.Device{Name: "fixed32", SubgroupSize: 32, SizeControl: devices.SizeControl{
		Supported: true, MinSubgroupSize: 32, MaxSubgroupSize: 32, MaxComputeWorkgroupSubgroups: 32,
		RequiredSubgroupSizeStages: devices.StageCompute, ComputeFullSubgroups: true}}
	range3264 := devices.Device{Name: "range", SubgroupSize: 64, SizeControl: devices.SizeControl{
		Supported: true, MinSubgroupSize: 32, MaxSubgroupSize: 64, MaxComputeWorkgroupSubgroups: 16,
		RequiredSubgroupSizeStages: devices.StageCompute, ComputeFullSubgroups: true}}
	plain := devices.Device{Name: "plain", SubgroupSize: 16}
	local := func(x, y, z uint32) spirvInfo { return spirvInfo{version: 0x00010300, localSize: [3]uint32{x, y, z}} }
	full := vkx.StageRequireFullSubgroups
	varying := vkx.StageAllowVaryingSubgroupSize
	cases := []struct {
		name      string
		dev       devices.Device
		job       Job
		info      spirvInfo
		size, fl  uint32
		errSubstr string
	}{
		{"default", fixed32, Job{}, local(64, 1, 1), 0, 0, ""},
		{"required 32", fixed32, Job{RequiredSubgroupSize: 32}, local(64, 1, 1), 32, 0, ""},
		{"required 16 illegal", fixed32, Job{RequiredSubgroupSize: 16}, local(64, 1, 1), 0, 0, "not legal"},
		{"range 32 full", range3264, Job{RequiredSubgroupSize: 32, FullSubgroups: true}, local(64, 1, 1), 32, full, ""},
		{"range full needs multiple", range3264, Job{RequiredSubgroupSize: 64, FullSubgroups: true}, local(32, 1, 1), 0, 0, "multiple of 64"},
		{"range varying full uses max", range3264, Job{VaryingSubgroupSize: true, FullSubgroups: true}, local(32, 1, 1), 0, 0, "multiple of 64"},
		{"range varying", range3264, Job{VaryingSubgroupSize: true}, local(32, 1, 1), 0, varying, ""},
		{"varying plus required", range3264, Job{VaryingSubgroupSize: true, RequiredSubgroupSize: 32}, local(32, 1, 1), 0, 0, "cannot be combined"},
		{"too many subgroups", range3264, Job{RequiredSubgroupSize: 32}, local(1024, 1, 1), 0, 0, "maxComputeWorkgroupSubgroups"},
		{"plain default size is legal", plain, Job{RequiredSubgroupSize: 16, FullSubgroups: true}, local(64, 1, 1), 0, 0, ""},
		{"plain other size", plain, Job{RequiredSubgroupSize: 32}, local(64, 1, 1), 0, 0, "not legal"},
		{"plain varying", plain, Job{VaryingSubgroupSize: true}, local(64, 1, 1), 0, 0, "needs subgroupSizeControl"},
	}
	for _, c := range cases {
		// As Run does: the limits (a legal size, few enough subgroups), then the settings.
		r := &Runner{dev: c.dev}
		var size, flags uint32
		err := CheckDemand(c.dev, demandOf(c.job, c.info))
		if err == nil {
			size, flags, err = r.subgroupSettings(c.job, c.info)
		}
		if c.errSubstr != "" {
			if err == nil || !strings.Contains(err.Error(), c.errSubstr) {
				t.Errorf("%s: err = %v, want %q", c.name, err, c.errSubstr)
			}
			continue
		}
		if err != nil || size != c.size || flags != c.fl {
			t.Errorf("%s: got size %d flags 0x%x err %v, want size %d flags 0x%x", c.name, size, flags, err, c.size, c.fl)
		}
	}
}

// A dispatch past the timeout is an error, and the runner refuses work
// afterwards instead of touching a device that may still be busy.
func TestDispatchTimeout(t *testing.T) {
	if testing.Short() {
		t.Skip("spins a CPU core for about half a second on lavapipe")
	}
	sharedRunner(t) // skip/fail reasons
	r, err := NewRunner(testDevice())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	const groups = 320 // 20480 invocations x 60000 steps: about half a second on lavapipe
	job := Job{
		SPIRV: compileGLSL(t, "spin.comp"), Entry: "main", Groups: [3]uint32{1, 1, 1},
		Buffers: []Buffer{{Kind: Storage, Data: make([]byte, 4*64*groups)}},
	}
	if _, err := r.Run(job); err != nil {
		t.Fatalf("one workgroup: %v", err)
	}
	r.SetTimeout(20 * time.Millisecond)
	job.Groups[0] = groups
	start := time.Now()
	_, err = r.Run(job)
	if err == nil {
		t.Skipf("%d workgroups finished within 20ms (%v): device too fast to test the timeout", groups, time.Since(start))
	}
	if !strings.Contains(err.Error(), "VK_TIMEOUT") {
		t.Fatalf("err = %v, want VK_TIMEOUT", err)
	}
	job.Groups[0] = 1
	if _, err := r.Run(job); err == nil || !strings.Contains(err.Error(), "unusable") {
		t.Fatalf("run after a timeout: err = %v, want the runner to refuse", err)
	}
}
