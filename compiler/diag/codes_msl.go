package diag

// MSL back-end errors (E07xx): IR the Metal Shading Language 2.4 back end cannot express.
const (
	ErrMSLType           Code = "E0701"
	ErrMSLVertexSimd     Code = "E0702"
	ErrMSLSimdType       Code = "E0703"
	ErrMSLNoLowering     Code = "E0704"
	ErrMSLLayout         Code = "E0705"
	ErrMSLUnsupported    Code = "E0706"
	ErrMSLAtomic64       Code = "E0707"
	ErrMSLMalformedInput Code = "E0708"
	// E0709 is retired (it was "the MSL back end does not emit amplification or
	// mesh shaders yet"; they are Metal 3 object and mesh functions now): not reused.
	WarnMSLWaveSize    Code = "W0701"
	WarnMSLHelperLanes Code = "W0702"
)

var codesMsl = []CodeInfo{
	CodeInfo{ErrMSLType, "the type has no Metal equivalent (Metal has no 64-bit floating point)",
		"RWStructuredBuffer<double> o;\n[numthreads(1,1,1)] void main() { o[0] = 1.0; }",
		"use float, or compile for the spirv target"},
	CodeInfo{ErrMSLVertexSimd, "simd-group builtins (WaveGetLaneCount, WaveGetLaneIndex, WaveActiveBallot) cannot be used in a vertex function for MSL",
		"float4 main(uint id : SV_VertexID) : SV_Position { return float4(WaveGetLaneIndex(), 0, 0, 1); }",
		"Metal has no [[threads_per_simdgroup]] / [[thread_index_in_simdgroup]] in vertex functions: move the wave code to a compute or pixel shader"},
	CodeInfo{ErrMSLSimdType, "Metal simd-group and quad-group functions do not take 64-bit operands",
		"RWStructuredBuffer<uint64_t> o;\n[numthreads(32,1,1)] void main(uint i : SV_GroupIndex) { o[i] = WaveReadLaneFirst(o[i]); }",
		"split the value into two 32-bit halves (asuint/low-high words) and move each half"},
	CodeInfo{ErrMSLNoLowering, "the intrinsic has no Metal lowering",
		"RWStructuredBuffer<uint4> o;\n[numthreads(32,1,1)] void main(uint i : SV_GroupIndex) { o[i] = WaveMatch(i); }",
		"build the partition with WaveActiveBallot and WaveReadLaneFirst in a loop"},
	CodeInfo{ErrMSLLayout, "the buffer layout cannot be expressed with Metal's natural type layout",
		"cbuffer C { float a[4]; }  // std140 array stride 16, Metal float[] stride 4",
		"use float4 elements (a[i].x) or a StructuredBuffer"},
	CodeInfo{ErrMSLUnsupported, "the construct is not supported by the MSL back end",
		"cbuffer C { float3x3 m; }\n... m[1] = v;  // writing a row of a column-major matrix in memory",
		"write whole matrices or single elements"},
	CodeInfo{ErrMSLAtomic64, "Metal 2.4 has no 64-bit atomics",
		"RWStructuredBuffer<uint64_t> o;\n[numthreads(1,1,1)] void main() { InterlockedAdd(o[0], 1); }",
		"use 32-bit atomics"},
	CodeInfo{ErrMSLMalformedInput, "the MSL back end was given an invalid module or entry point (a compiler bug)",
		"", "report it with the source"},
	CodeInfo{WarnMSLWaveSize, "Metal cannot require a SIMD-group size: the MSL is emitted without it and [WaveSize] is only carried in the reflection",
		"[WaveSize(32)] [numthreads(64,1,1)] void main() {}",
		"check the pipeline's threadExecutionWidth on the host, or WaveGetLaneCount() at run time"},
	CodeInfo{WarnMSLHelperLanes, "Metal cannot require helper threads to take part in SIMD-group functions: the MSL is emitted without [WaveOpsIncludeHelperLanes], which is only carried in the reflection",
		"[WaveOpsIncludeHelperLanes] float4 main(float4 p : SV_Position) : SV_Target { return WaveActiveSum(p.x); }",
		"make the fragment function correct whether or not helper threads take part (simd_is_helper_thread() tells them apart), or compile it for SPIR-V"},
}
