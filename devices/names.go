package devices

import (
	"fmt"
	"strings"
)

// flagBit is one named bit of a Vulkan flag mask.
type flagBit struct {
	bit  uint32
	name string
}

// Subgroup operation bits (VkSubgroupFeatureFlagBits). Rotate bits come from
// VK_KHR_shader_subgroup_rotate, newer than the 1.3.239 headers.
var subgroupFeatureBits = []flagBit{
	{0x001, "VK_SUBGROUP_FEATURE_BASIC_BIT"},
	{0x002, "VK_SUBGROUP_FEATURE_VOTE_BIT"},
	{0x004, "VK_SUBGROUP_FEATURE_ARITHMETIC_BIT"},
	{0x008, "VK_SUBGROUP_FEATURE_BALLOT_BIT"},
	{0x010, "VK_SUBGROUP_FEATURE_SHUFFLE_BIT"},
	{0x020, "VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT"},
	{0x040, "VK_SUBGROUP_FEATURE_CLUSTERED_BIT"},
	{0x080, "VK_SUBGROUP_FEATURE_QUAD_BIT"},
	{0x100, "VK_SUBGROUP_FEATURE_PARTITIONED_BIT_NV"},
	{0x200, "VK_SUBGROUP_FEATURE_ROTATE_BIT_KHR"},
	{0x400, "VK_SUBGROUP_FEATURE_ROTATE_CLUSTERED_BIT_KHR"},
}

// Shader stage bits (VkShaderStageFlagBits), single bits only.
var shaderStageBits = []flagBit{
	{0x00001, "VK_SHADER_STAGE_VERTEX_BIT"},
	{0x00002, "VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT"},
	{0x00004, "VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT"},
	{0x00008, "VK_SHADER_STAGE_GEOMETRY_BIT"},
	{0x00010, "VK_SHADER_STAGE_FRAGMENT_BIT"},
	{0x00020, "VK_SHADER_STAGE_COMPUTE_BIT"},
	{0x00040, "VK_SHADER_STAGE_TASK_BIT_EXT"},
	{0x00080, "VK_SHADER_STAGE_MESH_BIT_EXT"},
	{0x00100, "VK_SHADER_STAGE_RAYGEN_BIT_KHR"},
	{0x00200, "VK_SHADER_STAGE_ANY_HIT_BIT_KHR"},
	{0x00400, "VK_SHADER_STAGE_CLOSEST_HIT_BIT_KHR"},
	{0x00800, "VK_SHADER_STAGE_MISS_BIT_KHR"},
	{0x01000, "VK_SHADER_STAGE_INTERSECTION_BIT_KHR"},
	{0x02000, "VK_SHADER_STAGE_CALLABLE_BIT_KHR"},
	{0x04000, "VK_SHADER_STAGE_SUBPASS_SHADING_BIT_HUAWEI"},
	{0x80000, "VK_SHADER_STAGE_CLUSTER_CULLING_BIT_HUAWEI"},
}

// Well-known masks, exported for callers that gate work on them.
const (
	StageVertex   = 0x01
	StageFragment = 0x10
	StageCompute  = 0x20

	OpBasic           = 0x001
	OpVote            = 0x002
	OpArithmetic      = 0x004
	OpBallot          = 0x008
	OpShuffle         = 0x010
	OpShuffleRelative = 0x020
	OpClustered       = 0x040
	OpQuad            = 0x080
	OpPartitionedNV   = 0x100
	OpRotate          = 0x200
	OpRotateClustered = 0x400
)

// flagNames lists the names of the set bits of mask, in bit order; bits
// this table does not know are written as hex so nothing is dropped.
func flagNames(mask uint32, bits []flagBit) []string {
	out := []string{}
	known := uint32(0)
	for _, b := range bits {
		known |= b.bit
		if mask&b.bit != 0 {
			out = append(out, b.name)
		}
	}
	for rest := mask &^ known; rest != 0; rest &= rest - 1 {
		out = append(out, fmt.Sprintf("0x%x", rest&-rest))
	}
	return out
}

// SubgroupOperationNames spells a VkSubgroupFeatureFlags mask.
func SubgroupOperationNames(mask uint32) []string { return flagNames(mask, subgroupFeatureBits) }

// ShaderStageNames spells a VkShaderStageFlags mask.
func ShaderStageNames(mask uint32) []string { return flagNames(mask, shaderStageBits) }

// shortNames turns flag names into the lower-case words a table shows
// ("VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT" -> "shuffle_relative").
func shortNames(names []string, prefix string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		n = strings.TrimPrefix(n, prefix)
		for _, suf := range []string{"_BIT_KHR", "_BIT_EXT", "_BIT_NV", "_BIT_HUAWEI", "_BIT"} {
			if s, ok := strings.CutSuffix(n, suf); ok {
				n = s
				if suf == "_BIT_NV" {
					n += "_nv"
				}
				break
			}
		}
		out[i] = strings.ToLower(n)
	}
	return out
}

var deviceTypes = []string{"other", "integrated-gpu", "discrete-gpu", "virtual-gpu", "cpu"}

var deviceTypeEnums = []string{
	"VK_PHYSICAL_DEVICE_TYPE_OTHER",
	"VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU",
	"VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU",
	"VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU",
	"VK_PHYSICAL_DEVICE_TYPE_CPU",
}

func deviceTypeName(t uint32) string {
	if int(t) < len(deviceTypes) {
		return deviceTypes[t]
	}
	return fmt.Sprintf("type-%d", t)
}

func deviceTypeEnum(short string) string {
	for i, s := range deviceTypes {
		if s == short {
			return deviceTypeEnums[i]
		}
	}
	return short
}

// driverIDs are VkDriverId values; 26+ postdate the 1.3.239 headers.
var driverIDs = map[uint32]string{
	1:  "VK_DRIVER_ID_AMD_PROPRIETARY",
	2:  "VK_DRIVER_ID_AMD_OPEN_SOURCE",
	3:  "VK_DRIVER_ID_MESA_RADV",
	4:  "VK_DRIVER_ID_NVIDIA_PROPRIETARY",
	5:  "VK_DRIVER_ID_INTEL_PROPRIETARY_WINDOWS",
	6:  "VK_DRIVER_ID_INTEL_OPEN_SOURCE_MESA",
	7:  "VK_DRIVER_ID_IMAGINATION_PROPRIETARY",
	8:  "VK_DRIVER_ID_QUALCOMM_PROPRIETARY",
	9:  "VK_DRIVER_ID_ARM_PROPRIETARY",
	10: "VK_DRIVER_ID_GOOGLE_SWIFTSHADER",
	11: "VK_DRIVER_ID_GGP_PROPRIETARY",
	12: "VK_DRIVER_ID_BROADCOM_PROPRIETARY",
	13: "VK_DRIVER_ID_MESA_LLVMPIPE",
	14: "VK_DRIVER_ID_MOLTENVK",
	15: "VK_DRIVER_ID_COREAVI_PROPRIETARY",
	16: "VK_DRIVER_ID_JUICE_PROPRIETARY",
	17: "VK_DRIVER_ID_VERISILICON_PROPRIETARY",
	18: "VK_DRIVER_ID_MESA_TURNIP",
	19: "VK_DRIVER_ID_MESA_V3DV",
	20: "VK_DRIVER_ID_MESA_PANVK",
	21: "VK_DRIVER_ID_SAMSUNG_PROPRIETARY",
	22: "VK_DRIVER_ID_MESA_VENUS",
	23: "VK_DRIVER_ID_MESA_DOZEN",
	24: "VK_DRIVER_ID_MESA_NVK",
	25: "VK_DRIVER_ID_IMAGINATION_OPEN_SOURCE_MESA",
}

// DriverIDName spells a VkDriverId ("VK_DRIVER_ID_MESA_LLVMPIPE").
func DriverIDName(id uint32) string {
	if n, ok := driverIDs[id]; ok {
		return n
	}
	if id == 0 {
		return ""
	}
	return fmt.Sprintf("VkDriverId(%d)", id)
}

// VersionString decodes a VK_MAKE_API_VERSION value ("1.3.230").
func VersionString(v uint32) string {
	return fmt.Sprintf("%d.%d.%d", (v>>22)&0x7f, (v>>12)&0x3ff, v&0xfff)
}

// DriverVersionString decodes driverVersion, whose layout is vendor-defined:
// NVIDIA packs 10.8.8.6 bits; everyone else on Linux (Mesa included) uses the
// Vulkan version layout.
func DriverVersionString(vendorID, v uint32) string {
	if vendorID == 0x10de {
		return fmt.Sprintf("%d.%d.%d.%d", v>>22, (v>>14)&0xff, (v>>6)&0xff, v&0x3f)
	}
	return VersionString(v)
}

// SubgroupExtensions are the device extensions that matter for wave
// intrinsics; the table lists each as present or absent.
var SubgroupExtensions = []string{
	"VK_EXT_subgroup_size_control",
	"VK_KHR_shader_subgroup_extended_types",
	"VK_KHR_shader_subgroup_uniform_control_flow",
	"VK_KHR_shader_subgroup_rotate",
	"VK_KHR_shader_quad_control",
	"VK_KHR_shader_maximal_reconvergence",
	"VK_NV_shader_subgroup_partitioned",
	"VK_EXT_shader_subgroup_ballot",
	"VK_EXT_shader_subgroup_vote",
	"VK_KHR_shader_float16_int8",
	"VK_KHR_vulkan_memory_model",
}
