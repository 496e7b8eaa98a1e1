package devices

import (
	"waverig/devices/icd"

	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteTable prints one block per device: identity, then every subgroup
// property a test author needs to read expectations and skips off.
func WriteTable(w io.Writer, ds []Device) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	yes := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	for i, d := range ds {
		if i > 0 {
			fmt.Fprintln(tw)
		}
		fmt.Fprintf(tw, "GPU%d\t%s\n", d.Index, d.Name)
		fmt.Fprintf(tw, "  type\t%s, vendor 0x%04x, device 0x%04x\n", d.Type, d.VendorID, d.DeviceID)
		drv := d.DriverName
		if d.DriverInfo != "" {
			drv += " (" + d.DriverInfo + ")"
		}
		if drv == "" {
			drv = "(no driver properties)"
		}
		fmt.Fprintf(tw, "  vulkan\t%s, driver %s %s, %s\n", d.APIVersion, d.DriverVersionText, drv, d.DriverIDName)
		if d.Provisioned != "" {
			fmt.Fprintf(tw, "  installed by\twaverig's setup: %s\n", d.Provisioned)
		}
		fmt.Fprintf(tw, "  subgroup size\t%d\n", d.SubgroupSize)
		fmt.Fprintf(tw, "  legal sizes\t%s\n", joinU32(d.LegalSubgroupSizes()))
		sc := d.SizeControl
		if sc.Supported {
			fmt.Fprintf(tw, "  size control\tmin %d, max %d, %d subgroups/workgroup, stages %s, full subgroups %s\n",
				sc.MinSubgroupSize, sc.MaxSubgroupSize, sc.MaxComputeWorkgroupSubgroups,
				strings.Join(shortNames(sc.RequiredSubgroupSizeStageNames, "VK_SHADER_STAGE_"), " "),
				yes(sc.ComputeFullSubgroups))
		} else {
			fmt.Fprintf(tw, "  size control\tno\n")
		}
		fmt.Fprintf(tw, "  stages\t%s (0x%x)\n",
			strings.Join(shortNames(d.SupportedStageNames, "VK_SHADER_STAGE_"), " "), d.SupportedStages)
		fmt.Fprintf(tw, "  operations\t%s (0x%x)\n",
			strings.Join(shortNames(d.SupportedOperationNames, "VK_SUBGROUP_FEATURE_"), " "), d.SupportedOperations)
		fmt.Fprintf(tw, "  quad ops in all stages\t%s\n", yes(d.QuadOperationsInAllStages))
		var types []string
		for _, t := range []struct {
			on   bool
			name string
		}{
			{d.ShaderFloat16, "float16"}, {d.ShaderInt8, "int8"}, {d.ShaderInt16, "int16"},
			{d.ShaderInt64, "int64"}, {d.ShaderFloat64, "float64"},
			{d.StorageBuffer16BitAccess, "16-bit-storage"}, {d.StorageBuffer8BitAccess, "8-bit-storage"},
			{d.ShaderSubgroupExtendedTypes, "subgroup-extended-types"},
		} {
			if t.on {
				types = append(types, t.name)
			}
		}
		fmt.Fprintf(tw, "  types\t%s\n", orNone(types))
		var feats []string
		for _, f := range []struct {
			on   bool
			name string
		}{
			{d.SubgroupBroadcastDynamicID, "broadcast-dynamic-id"},
			{d.ShaderSubgroupUniformControlFlow, "uniform-control-flow"},
			{d.ShaderSubgroupRotate, "rotate"}, {d.ShaderSubgroupRotateClustered, "rotate-clustered"},
			{d.ShaderQuadControl, "quad-control"}, {d.ShaderMaximalReconvergence, "maximal-reconvergence"},
			{d.VulkanMemoryModel, "vulkan-memory-model"},
			{d.FragmentStoresAndAtomics, "fragment-stores"}, {d.VertexPipelineStoresAndAtomics, "vertex-stores"},
		} {
			if f.on {
				feats = append(feats, f.name)
			}
		}
		fmt.Fprintf(tw, "  features\t%s\n", orNone(feats))
		var have, missing []string
		for _, e := range SubgroupExtensions {
			if d.Extensions[e] {
				have = append(have, e)
			} else {
				missing = append(missing, e)
			}
		}
		fmt.Fprintf(tw, "  extensions\t%s\n", orNone(have))
		fmt.Fprintf(tw, "  absent\t%s\n", orNone(missing))
		fmt.Fprintf(tw, "  compute limits\t%d invocations, size %s, push constants %d bytes\n",
			d.MaxComputeWorkGroupInvocations, joinDims(d.MaxComputeWorkGroupSize), d.MaxPushConstantsSize)
		fmt.Fprintf(tw, "  mesh shaders\t%s\n", d.Mesh.tableLine())
	}
	return tw.Flush()
}

// DriversLine says in one line which drivers the loader was given: the
// user's VK_DRIVER_FILES, or the system's plus waverig's provisioned ones.
func DriversLine(s icd.Setup) string {
	var names []string
	for _, d := range s.Active {
		names = append(names, d.Name)
	}
	switch {
	case s.UserFiles != "":
		line := "drivers: exactly " + icd.DriverFilesEnv + "=" + s.UserFiles
		if len(names) > 0 {
			line += " (waverig's " + strings.Join(names, ", ") + " among them)"
		}
		return line
	case s.Err != nil:
		return fmt.Sprintf("drivers: the system's only (%v)", s.Err)
	case len(names) == 0:
		return "drivers: the system's only (none installed in " + icd.Dir() + ": scripts/setup.sh installs lavapipe 25 and SwiftShader)"
	}
	return "drivers: the system's, and waverig's " + strings.Join(names, ", ") + " (" + icd.Dir() + ")"
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "-"
	}
	return strings.Join(s, " ")
}

func joinU32(v []uint32) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return orNone(s)
}

func joinDims(v [3]uint32) string { return fmt.Sprintf("%dx%dx%d", v[0], v[1], v[2]) }

// The JSON document follows the Vulkan Profiles layout vulkaninfo --json
// writes (capabilities.device.{extensions,features,properties}, keyed by C
// struct name, flags as lists of enum names), one entry per device. Masks
// are added as numbers under "<field>Mask" so a report can be diffed
// against either vulkaninfo or gpuinfo.org.
type jsonDoc struct {
	Schema  string       `json:"$comment"`
	Devices []jsonDevice `json:"devices"`
}

type jsonDevice struct {
	Index        int              `json:"index"`
	Capabilities jsonCapabilities `json:"capabilities"`
}

type jsonCapabilities struct {
	Device jsonCaps `json:"device"`
}

type jsonCaps struct {
	Extensions map[string]uint32         `json:"extensions"`
	Features   map[string]map[string]any `json:"features"`
	Properties map[string]map[string]any `json:"properties"`
}

// WriteJSON writes the devices as vulkaninfo-style profile JSON.
func WriteJSON(w io.Writer, ds []Device) error {
	doc := jsonDoc{
		Schema:  "waverig devices: Vulkan Profiles layout (as vulkaninfo --json), one entry per device",
		Devices: make([]jsonDevice, 0, len(ds)),
	}
	for _, d := range ds {
		exts := d.ExtensionVersions
		if exts == nil {
			exts = map[string]uint32{}
			for name, on := range d.Extensions {
				if on {
					exts[name] = 0
				}
			}
		}
		props := map[string]map[string]any{
			"VkPhysicalDeviceProperties": {
				"apiVersion":        d.APIVersion,
				"driverVersion":     d.DriverVersion,
				"driverVersionText": d.DriverVersionText,
				"vendorID":          d.VendorID,
				"deviceID":          d.DeviceID,
				"deviceType":        deviceTypeEnum(d.Type),
				"deviceName":        d.Name,
				"limits": map[string]any{
					"maxComputeWorkGroupInvocations": d.MaxComputeWorkGroupInvocations,
					"maxComputeWorkGroupSize":        d.MaxComputeWorkGroupSize,
					"maxComputeWorkGroupCount":       d.MaxComputeWorkGroupCount,
					"maxPushConstantsSize":           d.MaxPushConstantsSize,
					"maxUniformBufferRange":          d.MaxUniformBufferRange,
					"maxStorageBufferRange":          d.MaxStorageBufferRange,
					"maxComputeSharedMemorySize":     d.MaxComputeSharedMemorySize,
					"maxFramebufferWidth":            d.MaxFramebufferWidth,
					"maxFramebufferHeight":           d.MaxFramebufferHeight,
				},
			},
			"VkPhysicalDeviceSubgroupProperties": {
				"subgroupSize":              d.SubgroupSize,
				"supportedStages":           nonNil(d.SupportedStageNames),
				"supportedStagesMask":       d.SupportedStages,
				"supportedOperations":       nonNil(d.SupportedOperationNames),
				"supportedOperationsMask":   d.SupportedOperations,
				"quadOperationsInAllStages": d.QuadOperationsInAllStages,
			},
		}
		if d.SizeControl.MaxSubgroupSize > 0 {
			sc := d.SizeControl
			props["VkPhysicalDeviceSubgroupSizeControlProperties"] = map[string]any{
				"minSubgroupSize":                sc.MinSubgroupSize,
				"maxSubgroupSize":                sc.MaxSubgroupSize,
				"maxComputeWorkgroupSubgroups":   sc.MaxComputeWorkgroupSubgroups,
				"requiredSubgroupSizeStages":     nonNil(sc.RequiredSubgroupSizeStageNames),
				"requiredSubgroupSizeStagesMask": sc.RequiredSubgroupSizeStages,
			}
		}
		if d.DriverName != "" || d.DriverID != 0 {
			props["VkPhysicalDeviceDriverProperties"] = map[string]any{
				"driverID":           d.DriverIDName,
				"driverIDValue":      d.DriverID,
				"driverName":         d.DriverName,
				"driverInfo":         d.DriverInfo,
				"conformanceVersion": d.Conformance,
			}
		}
		feats := map[string]map[string]any{
			"VkPhysicalDeviceFeatures": {
				"shaderInt16":   d.ShaderInt16,
				"shaderInt64":   d.ShaderInt64,
				"shaderFloat64": d.ShaderFloat64,

				"fragmentStoresAndAtomics":       d.FragmentStoresAndAtomics,
				"vertexPipelineStoresAndAtomics": d.VertexPipelineStoresAndAtomics,
			},
			"VkPhysicalDeviceShaderFloat16Int8Features": {
				"shaderFloat16": d.ShaderFloat16,
				"shaderInt8":    d.ShaderInt8,
			},
			"VkPhysicalDevice16BitStorageFeatures": {"storageBuffer16BitAccess": d.StorageBuffer16BitAccess},
			"VkPhysicalDevice8BitStorageFeatures":  {"storageBuffer8BitAccess": d.StorageBuffer8BitAccess},
			"VkPhysicalDeviceShaderSubgroupExtendedTypesFeatures": {
				"shaderSubgroupExtendedTypes": d.ShaderSubgroupExtendedTypes,
			},
			"VkPhysicalDeviceSubgroupSizeControlFeatures": {
				"subgroupSizeControl":  d.SizeControl.Supported,
				"computeFullSubgroups": d.SizeControl.ComputeFullSubgroups,
			},
			"VkPhysicalDeviceVulkan12Features": {
				"subgroupBroadcastDynamicId": d.SubgroupBroadcastDynamicID,
				"vulkanMemoryModel":          d.VulkanMemoryModel,
			},
		}
		if d.Extensions["VK_KHR_shader_subgroup_uniform_control_flow"] {
			feats["VkPhysicalDeviceShaderSubgroupUniformControlFlowFeaturesKHR"] = map[string]any{
				"shaderSubgroupUniformControlFlow": d.ShaderSubgroupUniformControlFlow,
			}
		}
		if d.Extensions["VK_KHR_shader_subgroup_rotate"] {
			feats["VkPhysicalDeviceShaderSubgroupRotateFeaturesKHR"] = map[string]any{
				"shaderSubgroupRotate":          d.ShaderSubgroupRotate,
				"shaderSubgroupRotateClustered": d.ShaderSubgroupRotateClustered,
			}
		}
		if d.Extensions["VK_KHR_shader_quad_control"] {
			feats["VkPhysicalDeviceShaderQuadControlFeaturesKHR"] = map[string]any{"shaderQuadControl": d.ShaderQuadControl}
		}
		if d.Extensions["VK_KHR_shader_maximal_reconvergence"] {
			feats["VkPhysicalDeviceShaderMaximalReconvergenceFeaturesKHR"] = map[string]any{
				"shaderMaximalReconvergence": d.ShaderMaximalReconvergence,
			}
		}
		if f := d.Mesh.jsonFeatures(); f != nil {
			feats["VkPhysicalDeviceMeshShaderFeaturesEXT"] = f
			props["VkPhysicalDeviceMeshShaderPropertiesEXT"] = d.Mesh.jsonProperties()
		}
		doc.Devices = append(doc.Devices, jsonDevice{
			Index:        d.Index,
			Capabilities: jsonCapabilities{Device: jsonCaps{Extensions: exts, Features: feats, Properties: props}},
		})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func u32s(v uint32) string { return fmt.Sprint(v) }
