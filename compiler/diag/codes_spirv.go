package diag

// SPIR-V back-end errors (E05xx). These fire only on IR that sema accepted but
// that the SPIR-V target (or the chosen SPIR-V version) cannot express.
const (
	ErrSpvNoLowering    Code = "E0501"
	ErrSpvQuadLaneConst Code = "E0502"
	ErrSpvPartitioned   Code = "E0503"
	ErrSpvIntMatrix     Code = "E0504"
	ErrSpvType          Code = "E0505"
	ErrSpvShape         Code = "E0506"
	ErrSpvTarget        Code = "E0507"
	ErrSpvSpecConst     Code = "E0508"
	ErrSpvMeshTarget    Code = "E0509"
	ErrSpvInternal      Code = "E0599"
)

var codesSpirv = []CodeInfo{
	CodeInfo{ErrSpvNoLowering, "the intrinsic has no SPIR-V lowering for this operand type",
		"float4 r = WaveMultiPrefixBitAnd(f4, WaveMatch(key)); // bitwise scan of floats",
		"use an argument type the intrinsic's SPIR-V lowering has an opcode for (bitwise operations take integers)"},
	CodeInfo{ErrSpvQuadLaneConst, "QuadReadLaneAt needs a constant lane index before SPIR-V 1.5 (Vulkan 1.1)",
		"uint l = WaveGetLaneIndex() & 3; float r = QuadReadLaneAt(x, l); // -vulkan 1.1",
		"use a literal lane index, or target Vulkan 1.2 or later"},
	CodeInfo{ErrSpvPartitioned, "WaveMatch and WaveMultiPrefix* need SPV_NV_shader_subgroup_partitioned",
		"uint4 m = WaveMatch(x);",
		"enable the partitioned extension, or build the groups with WaveActiveBallot and WaveReadLaneFirst in a loop"},
	CodeInfo{ErrSpvIntMatrix, "integer and bool matrices cannot be expressed in SPIR-V (OpTypeMatrix is float only)",
		"int2x2 m = int2x2(1, 2, 3, 4);",
		"use a float matrix or an array of vectors"},
	CodeInfo{ErrSpvType, "a type cannot be lowered to SPIR-V",
		"", "the front end produced an IR type the SPIR-V back end does not know; please report it with the source"},
	CodeInfo{ErrSpvShape, "the IR has a shape the SPIR-V back end does not support (a break outside a loop, a store to a value, …)",
		"", "sema should have rejected the construct; please report it with the source"},
	CodeInfo{ErrSpvTarget, "the requested Vulkan target version is not supported",
		"waverig compile -vulkan 1.0 a.hlsl",
		"use -vulkan 1.1, 1.2 or 1.3"},
	CodeInfo{ErrSpvSpecConst, "a specialization constant must be a bool, integer or float scalar",
		"[[vk::constant_id(0)]] const float2 k = float2(1, 2);",
		"declare one scalar specialization constant per component"},
	CodeInfo{ErrSpvMeshTarget, "amplification and mesh shaders need SPIR-V 1.4 (SPV_EXT_mesh_shader), so a Vulkan 1.2 or 1.3 target",
		"waverig compile -vulkan 1.1 meshlet.hlsl",
		"use -vulkan 1.2 (SPIR-V 1.5) or -vulkan 1.3 (SPIR-V 1.6)"},
	CodeInfo{ErrSpvInternal, "internal error in the SPIR-V back end (a bug in waverig; please report it with the source)", "", ""},
}
