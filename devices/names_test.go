package devices

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// These tests need no Vulkan: they exercise the pure parts on synthetic
// devices, so CI without a GPU still covers them.

func TestLegalSubgroupSizes(t *testing.T) {
	sc := SizeControl{Supported: true, MinSubgroupSize: 4, MaxSubgroupSize: 64, RequiredSubgroupSizeStages: StageCompute | StageFragment}
	cases := []struct {
		name string
		d    Device
		want []uint32
	}{
		{"range", Device{SubgroupSize: 32, SizeControl: sc}, []uint32{4, 8, 16, 32, 64}},
		{"no size control", Device{SubgroupSize: 32}, []uint32{32}},
		{"min = max", Device{SubgroupSize: 8, SizeControl: SizeControl{Supported: true, MinSubgroupSize: 8, MaxSubgroupSize: 8, RequiredSubgroupSizeStages: StageCompute}}, []uint32{8}},
		{"not for compute", Device{SubgroupSize: 16, SizeControl: SizeControl{Supported: true, MinSubgroupSize: 8, MaxSubgroupSize: 32, RequiredSubgroupSizeStages: StageFragment}}, []uint32{16}},
		{"nothing known", Device{}, nil},
	}
	for _, c := range cases {
		if got := c.d.LegalSubgroupSizes(); !slices.Equal(got, c.want) {
			t.Errorf("%s: LegalSubgroupSizes = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestFlagNames(t *testing.T) {
	got := SubgroupOperationNames(0xbf | 0x1000)
	want := []string{
		"VK_SUBGROUP_FEATURE_BASIC_BIT", "VK_SUBGROUP_FEATURE_VOTE_BIT", "VK_SUBGROUP_FEATURE_ARITHMETIC_BIT",
		"VK_SUBGROUP_FEATURE_BALLOT_BIT", "VK_SUBGROUP_FEATURE_SHUFFLE_BIT", "VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT",
		"VK_SUBGROUP_FEATURE_QUAD_BIT", "0x1000",
	}
	if !slices.Equal(got, want) {
		t.Errorf("SubgroupOperationNames(0x10bf) = %v, want %v", got, want)
	}
	if got := ShaderStageNames(0x30); !slices.Equal(got, []string{"VK_SHADER_STAGE_FRAGMENT_BIT", "VK_SHADER_STAGE_COMPUTE_BIT"}) {
		t.Errorf("ShaderStageNames(0x30) = %v", got)
	}
	if got := ShaderStageNames(0); got == nil || len(got) != 0 {
		t.Errorf("ShaderStageNames(0) = %#v, want an empty list", got)
	}
	short := shortNames(SubgroupOperationNames(OpShuffleRelative|OpPartitionedNV), "VK_SUBGROUP_FEATURE_")
	if !slices.Equal(short, []string{"shuffle_relative", "partitioned_nv"}) {
		t.Errorf("shortNames = %v", short)
	}
}

func TestVersions(t *testing.T) {
	// NVIDIA 580.159.04 as the driver packs it (10.8.8.6 bits).
	nv := uint32(580)<<22 | 159<<14 | 4<<6
	if got := DriverVersionString(0x10de, nv); got != "580.159.4.0" {
		t.Errorf("NVIDIA driver version = %q", got)
	}
	mesa := uint32(22)<<22 | 3<<12 | 6
	if got := DriverVersionString(0x10005, mesa); got != "22.3.6" {
		t.Errorf("Mesa driver version = %q", got)
	}
	if got := VersionString(1<<22 | 3<<12 | 230); got != "1.3.230" {
		t.Errorf("VersionString = %q", got)
	}
	if DriverIDName(13) != "VK_DRIVER_ID_MESA_LLVMPIPE" || DriverIDName(999) != "VkDriverId(999)" {
		t.Errorf("DriverIDName: %q %q", DriverIDName(13), DriverIDName(999))
	}
}

// An H200-like synthetic device: size control 32..32, all the newer
// extensions. Output must carry them without a driver.
func TestOutputSynthetic(t *testing.T) {
	d := Device{
		Index: 1, Name: "Synthetic GPU", Type: "discrete-gpu", VendorID: 0x10de, APIVersion: "1.4.312",
		SubgroupSize: 32, SupportedStages: 0x3f, SupportedStageNames: ShaderStageNames(0x3f),
		SupportedOperations: 0x1ff, SupportedOperationNames: SubgroupOperationNames(0x1ff),
		SizeControl: SizeControl{Supported: true, MinSubgroupSize: 32, MaxSubgroupSize: 32, MaxComputeWorkgroupSubgroups: 32,
			RequiredSubgroupSizeStages: StageCompute, RequiredSubgroupSizeStageNames: ShaderStageNames(StageCompute), ComputeFullSubgroups: true},
		ShaderQuadControl: true,
		Extensions:        map[string]bool{"VK_KHR_shader_quad_control": true, "VK_NV_shader_subgroup_partitioned": true},
	}
	var tab bytes.Buffer
	if err := WriteTable(&tab, []Device{d}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"GPU1", "Synthetic GPU", "partitioned_nv", "quad-control", "VK_KHR_shader_quad_control", "(0x1ff)"} {
		if !strings.Contains(tab.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, tab.String())
		}
	}
	var js bytes.Buffer
	if err := WriteJSON(&js, []Device{d}); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"VK_SUBGROUP_FEATURE_PARTITIONED_BIT_NV"`, `"VkPhysicalDeviceShaderQuadControlFeaturesKHR"`, `"supportedOperationsMask": 511`, `"VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU"`} {
		if !strings.Contains(js.String(), want) {
			t.Errorf("JSON lacks %s", want)
		}
	}
}
