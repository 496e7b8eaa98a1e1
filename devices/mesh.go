package devices

import "waverig/devices/vkx"

// MeshExtension is the extension the task (amplification) and mesh kernels
// need.
const MeshExtension = "VK_EXT_mesh_shader"

// The subgroup supported-stages bits of the two stages (VkShaderStageFlagBits).
const (
	StageTask = 0x40 // VK_SHADER_STAGE_TASK_BIT_EXT
	StageMesh = 0x80 // VK_SHADER_STAGE_MESH_BIT_EXT
)

// MeshShader is VK_EXT_mesh_shader on one device:
// VkPhysicalDeviceMeshShaderFeaturesEXT's two features the rig enables and
// the VkPhysicalDeviceMeshShaderPropertiesEXT limits a task or mesh job must
// fit. Extension false leaves everything else zero.
type MeshShader struct {
	Extension  bool `json:"extension"`
	TaskShader bool `json:"taskShader"`
	MeshShader bool `json:"meshShader"`

	MaxTaskWorkGroupTotalCount           uint32    `json:"maxTaskWorkGroupTotalCount"`
	MaxTaskWorkGroupCount                [3]uint32 `json:"maxTaskWorkGroupCount"`
	MaxTaskWorkGroupInvocations          uint32    `json:"maxTaskWorkGroupInvocations"`
	MaxTaskWorkGroupSize                 [3]uint32 `json:"maxTaskWorkGroupSize"`
	MaxTaskPayloadSize                   uint32    `json:"maxTaskPayloadSize"`
	MaxMeshWorkGroupTotalCount           uint32    `json:"maxMeshWorkGroupTotalCount"`
	MaxMeshWorkGroupCount                [3]uint32 `json:"maxMeshWorkGroupCount"`
	MaxMeshWorkGroupInvocations          uint32    `json:"maxMeshWorkGroupInvocations"`
	MaxMeshWorkGroupSize                 [3]uint32 `json:"maxMeshWorkGroupSize"`
	MaxMeshOutputVertices                uint32    `json:"maxMeshOutputVertices"`
	MaxMeshOutputPrimitives              uint32    `json:"maxMeshOutputPrimitives"`
	MaxPreferredTaskWorkGroupInvocations uint32    `json:"maxPreferredTaskWorkGroupInvocations"`
	MaxPreferredMeshWorkGroupInvocations uint32    `json:"maxPreferredMeshWorkGroupInvocations"`
}

func meshShaderOf(m vkx.MeshCaps) MeshShader {
	if !m.Extension {
		return MeshShader{}
	}
	return MeshShader{
		Extension: true, TaskShader: m.TaskShader, MeshShader: m.MeshShader,
		MaxTaskWorkGroupTotalCount:           m.MaxTaskWorkGroupTotalCount,
		MaxTaskWorkGroupCount:                m.MaxTaskWorkGroupCount,
		MaxTaskWorkGroupInvocations:          m.MaxTaskWorkGroupInvocations,
		MaxTaskWorkGroupSize:                 m.MaxTaskWorkGroupSize,
		MaxTaskPayloadSize:                   m.MaxTaskPayloadSize,
		MaxMeshWorkGroupTotalCount:           m.MaxMeshWorkGroupTotalCount,
		MaxMeshWorkGroupCount:                m.MaxMeshWorkGroupCount,
		MaxMeshWorkGroupInvocations:          m.MaxMeshWorkGroupInvocations,
		MaxMeshWorkGroupSize:                 m.MaxMeshWorkGroupSize,
		MaxMeshOutputVertices:                m.MaxMeshOutputVertices,
		MaxMeshOutputPrimitives:              m.MaxMeshOutputPrimitives,
		MaxPreferredTaskWorkGroupInvocations: m.MaxPreferredTaskWorkGroupInvocations,
		MaxPreferredMeshWorkGroupInvocations: m.MaxPreferredMeshWorkGroupInvocations,
	}
}

// jsonFeatures and jsonProperties are the two structs as the profile JSON
// names them (nil without the extension).
func (m MeshShader) jsonFeatures() map[string]any {
	if !m.Extension {
		return nil
	}
	return map[string]any{"taskShader": m.TaskShader, "meshShader": m.MeshShader}
}

func (m MeshShader) jsonProperties() map[string]any {
	if !m.Extension {
		return nil
	}
	return map[string]any{
		"maxTaskWorkGroupTotalCount":           m.MaxTaskWorkGroupTotalCount,
		"maxTaskWorkGroupCount":                m.MaxTaskWorkGroupCount,
		"maxTaskWorkGroupInvocations":          m.MaxTaskWorkGroupInvocations,
		"maxTaskWorkGroupSize":                 m.MaxTaskWorkGroupSize,
		"maxTaskPayloadSize":                   m.MaxTaskPayloadSize,
		"maxMeshWorkGroupTotalCount":           m.MaxMeshWorkGroupTotalCount,
		"maxMeshWorkGroupCount":                m.MaxMeshWorkGroupCount,
		"maxMeshWorkGroupInvocations":          m.MaxMeshWorkGroupInvocations,
		"maxMeshWorkGroupSize":                 m.MaxMeshWorkGroupSize,
		"maxMeshOutputVertices":                m.MaxMeshOutputVertices,
		"maxMeshOutputPrimitives":              m.MaxMeshOutputPrimitives,
		"maxPreferredTaskWorkGroupInvocations": m.MaxPreferredTaskWorkGroupInvocations,
		"maxPreferredMeshWorkGroupInvocations": m.MaxPreferredMeshWorkGroupInvocations,
	}
}

// tableLine is the mesh shader line of `waverig devices`.
func (m MeshShader) tableLine() string {
	if !m.Extension {
		return "no (" + MeshExtension + " absent)"
	}
	yes := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	return "task " + yes(m.TaskShader) + ", mesh " + yes(m.MeshShader) +
		", task " + u32s(m.MaxTaskWorkGroupInvocations) + " invocations (preferred " + u32s(m.MaxPreferredTaskWorkGroupInvocations) +
		"), payload " + u32s(m.MaxTaskPayloadSize) + " bytes, mesh " + u32s(m.MaxMeshWorkGroupInvocations) +
		" invocations (preferred " + u32s(m.MaxPreferredMeshWorkGroupInvocations) + "), outputs " +
		u32s(m.MaxMeshOutputVertices) + " vertices " + u32s(m.MaxMeshOutputPrimitives) + " primitives"
}
