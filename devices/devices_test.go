package devices

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// need skips for a missing prerequisite locally and fails under CI, where
// Vulkan is installed on purpose.
func need(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf("CI: %s", why)
	}
	t.Skip(why)
}

func enumerate(t *testing.T) []Device {
	t.Helper()
	ds, err := Enumerate()
	if errors.Is(err, ErrNoVulkan) {
		need(t, err.Error())
	}
	if err != nil {
		t.Fatalf("Enumerate: %v", err)
	}
	if len(ds) == 0 {
		t.Fatal("Enumerate returned no device and no error")
	}
	return ds
}

func lavapipe(t *testing.T, ds []Device) Device {
	t.Helper()
	for _, d := range ds {
		if strings.Contains(d.Name, "llvmpipe") {
			return d
		}
	}
	need(t, "no lavapipe (llvmpipe) device; install mesa-vulkan-drivers")
	return Device{}
}

var bitsInName = regexp.MustCompile(`(\d+) bits\)`)

// expectedLavapipeSize is the subgroup size lavapipe should report: the
// child processes say it explicitly; otherwise the default vector width is
// 256 bits (8 lanes of 32 bits) on any host with AVX2.
func expectedLavapipeSize(t *testing.T) uint32 {
	if s := os.Getenv("WAVERIG_EXPECT_SUBGROUP"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatal(err)
		}
		return uint32(n)
	}
	if os.Getenv("LP_NATIVE_VECTOR_WIDTH") != "" {
		return 0 // set by the user: only the name/size consistency is checked
	}
	cpu, err := os.ReadFile("/proc/cpuinfo")
	if err != nil || !strings.Contains(string(cpu), " avx2") {
		return 0
	}
	return 8
}

func TestEnumerateLavapipe(t *testing.T) {
	d := lavapipe(t, enumerate(t))
	if want := expectedLavapipeSize(t); want != 0 && d.SubgroupSize != want {
		t.Errorf("subgroupSize = %d, want %d", d.SubgroupSize, want)
	}
	// lavapipe names its vector width; one 32-bit lane per 32 bits.
	if m := bitsInName.FindStringSubmatch(d.Name); m != nil {
		bits, _ := strconv.Atoi(m[1])
		if uint32(bits/32) != d.SubgroupSize {
			t.Errorf("%q: subgroupSize %d, want %d from the vector width", d.Name, d.SubgroupSize, bits/32)
		}
	}
	if d.Type != "cpu" || d.DriverIDName != "VK_DRIVER_ID_MESA_LLVMPIPE" || !strings.HasPrefix(d.DriverInfo, "Mesa") {
		t.Errorf("type %q driver %q (%q), want a cpu device with the llvmpipe driver id", d.Type, d.DriverIDName, d.DriverInfo)
	}
	wantOps := uint32(OpBasic | OpVote | OpArithmetic | OpBallot | OpShuffle | OpShuffleRelative | OpQuad)
	if !d.Supports(wantOps) {
		t.Errorf("supportedOperations 0x%x lacks 0x%x", d.SupportedOperations, wantOps&^d.SupportedOperations)
	}
	if d.Supports(OpClustered) {
		t.Errorf("lavapipe 22.3 reports CLUSTERED (0x%x); facts say it does not", d.SupportedOperations)
	}
	if d.SupportedStages&(StageCompute|StageFragment) != StageCompute|StageFragment {
		t.Errorf("supportedStages 0x%x lacks compute|fragment", d.SupportedStages)
	}
	for _, n := range []string{"VK_SUBGROUP_FEATURE_BASIC_BIT", "VK_SUBGROUP_FEATURE_QUAD_BIT", "VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT"} {
		if !slices.Contains(d.SupportedOperationNames, n) {
			t.Errorf("supportedOperations names %v lack %s", d.SupportedOperationNames, n)
		}
	}
	if !slices.Contains(d.SupportedStageNames, "VK_SHADER_STAGE_COMPUTE_BIT") {
		t.Errorf("stage names %v lack compute", d.SupportedStageNames)
	}
	if !d.Extensions["VK_EXT_subgroup_size_control"] || !d.ShaderSubgroupExtendedTypes {
		t.Errorf("size-control extension %v, extended types %v; lavapipe 22.3 has both",
			d.Extensions["VK_EXT_subgroup_size_control"], d.ShaderSubgroupExtendedTypes)
	}
	if got := d.LegalSubgroupSizes(); !slices.Contains(got, d.SubgroupSize) {
		t.Errorf("legal sizes %v do not contain the default %d", got, d.SubgroupSize)
	}
	if d.MaxComputeWorkGroupInvocations < 128 || d.MaxComputeWorkGroupSize[0] < 128 {
		t.Errorf("compute limits %d / %v below the Vulkan minimum", d.MaxComputeWorkGroupInvocations, d.MaxComputeWorkGroupSize)
	}
	if d.MaxComputeSharedMemorySize < 16384 || d.MaxStorageBufferRange < 1<<27 || d.MaxUniformBufferRange < 16384 {
		t.Errorf("shared memory %d, storage range %d, uniform range %d: below the Vulkan minimum",
			d.MaxComputeSharedMemorySize, d.MaxStorageBufferRange, d.MaxUniformBufferRange)
	}
	t.Logf("%s: size %d, legal %v, ops 0x%x", d.Name, d.SubgroupSize, d.LegalSubgroupSizes(), d.SupportedOperations)
}

// child re-runs one test of this package in a fresh process with extra
// environment: the Vulkan ICD reads its settings when it is loaded, which
// happens once per process.
func child(t *testing.T, test string, env ...string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child %s %v: %v\n%s", test, env, err, out)
	}
	if strings.Contains(string(out), "--- SKIP: "+test) {
		t.Skipf("child skipped:\n%s", out)
	}
	if !strings.Contains(string(out), "--- PASS: "+test) {
		t.Fatalf("child %s did not pass:\n%s", test, out)
	}
	return string(out)
}

func TestLavapipeWidths(t *testing.T) {
	if os.Getenv("WAVERIG_EXPECT_SUBGROUP") != "" {
		t.Skip("already the child")
	}
	lavapipe(t, enumerate(t))
	// 512 works without AVX-512 too: LLVM splits the wide vectors.
	for _, w := range []struct{ width, size string }{{"128", "4"}, {"512", "16"}} {
		t.Run("width"+w.width, func(t *testing.T) {
			out := child(t, "TestEnumerateLavapipe", "LP_NATIVE_VECTOR_WIDTH="+w.width, "WAVERIG_EXPECT_SUBGROUP="+w.size)
			if !strings.Contains(out, "size "+w.size+", legal ["+w.size+"]") {
				t.Errorf("child output lacks size %s:\n%s", w.size, out)
			}
		})
	}
}

// TestNoDriver hides every ICD from the loader in a child process: the
// error must wrap ErrNoVulkan and name the packages to install.
func TestNoDriver(t *testing.T) {
	if os.Getenv("WAVERIG_NO_DRIVER_CHILD") != "" {
		_, err := Enumerate()
		if !errors.Is(err, ErrNoVulkan) {
			t.Fatalf("Enumerate with no ICD: err = %v, want ErrNoVulkan", err)
		}
		for _, pkg := range []string{"libvulkan1", "libvulkan-dev", "mesa-vulkan-drivers"} {
			if !strings.Contains(err.Error(), pkg) {
				t.Errorf("error %q does not name %s", err, pkg)
			}
		}
		t.Logf("error: %v", err)
		return
	}
	enumerate(t) // only meaningful where a loader exists
	empty := t.TempDir()
	child(t, "TestNoDriver", "WAVERIG_NO_DRIVER_CHILD=1",
		"VK_ICD_FILENAMES="+empty+"/none.json", "VK_DRIVER_FILES="+empty+"/none.json")
}

func TestJSONOutput(t *testing.T) {
	ds := enumerate(t)
	var buf bytes.Buffer
	if err := WriteJSON(&buf, ds); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Devices []struct {
			Index        int `json:"index"`
			Capabilities struct {
				Device struct {
					Extensions map[string]uint32                     `json:"extensions"`
					Properties map[string]map[string]json.RawMessage `json:"properties"`
					Features   map[string]map[string]bool            `json:"features"`
				} `json:"device"`
			} `json:"capabilities"`
		} `json:"devices"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, buf.String())
	}
	if len(doc.Devices) != len(ds) {
		t.Fatalf("%d devices in JSON, %d enumerated", len(doc.Devices), len(ds))
	}
	for i, d := range ds {
		caps := doc.Devices[i].Capabilities.Device
		sg := caps.Properties["VkPhysicalDeviceSubgroupProperties"]
		var mask uint32
		var names []string
		if err := json.Unmarshal(sg["supportedOperationsMask"], &mask); err != nil {
			t.Fatalf("supportedOperationsMask: %v", err)
		}
		if err := json.Unmarshal(sg["supportedOperations"], &names); err != nil {
			t.Fatalf("supportedOperations: %v", err)
		}
		if mask != d.SupportedOperations {
			t.Errorf("device %d: JSON mask 0x%x, device 0x%x", i, mask, d.SupportedOperations)
		}
		// The names must spell the mask exactly.
		var fromNames uint32
		for _, n := range names {
			for _, b := range subgroupFeatureBits {
				if b.name == n {
					fromNames |= b.bit
				}
			}
		}
		if fromNames != mask || len(names) == 0 {
			t.Errorf("device %d: names %v give 0x%x, mask 0x%x", i, names, fromNames, mask)
		}
		var stages uint32
		if err := json.Unmarshal(sg["supportedStagesMask"], &stages); err != nil || stages != d.SupportedStages {
			t.Errorf("device %d: supportedStagesMask %d (%v), want %d", i, stages, err, d.SupportedStages)
		}
		var name string
		if err := json.Unmarshal(caps.Properties["VkPhysicalDeviceProperties"]["deviceName"], &name); err != nil || name != d.Name {
			t.Errorf("device %d: deviceName %q (%v), want %q", i, name, err, d.Name)
		}
		if len(caps.Extensions) != len(d.Extensions) {
			t.Errorf("device %d: %d extensions in JSON, %d on the device", i, len(caps.Extensions), len(d.Extensions))
		}
		if d.SizeControl.MaxSubgroupSize > 0 {
			if _, ok := caps.Properties["VkPhysicalDeviceSubgroupSizeControlProperties"]["requiredSubgroupSizeStagesMask"]; !ok {
				t.Errorf("device %d: no VkPhysicalDeviceSubgroupSizeControlProperties", i)
			}
		}
		if caps.Features["VkPhysicalDeviceFeatures"]["shaderInt64"] != d.ShaderInt64 {
			t.Errorf("device %d: shaderInt64 differs", i)
		}
	}
}

func TestTableOutput(t *testing.T) {
	ds := enumerate(t)
	var buf bytes.Buffer
	if err := WriteTable(&buf, ds); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, d := range ds {
		for _, want := range []string{d.Name, "subgroup size", strconv.Itoa(int(d.SubgroupSize)), "0x" + strconv.FormatUint(uint64(d.SupportedOperations), 16)} {
			if !strings.Contains(out, want) {
				t.Errorf("table lacks %q:\n%s", want, out)
			}
		}
	}
}
