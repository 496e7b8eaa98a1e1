package diag

// WGSL back end errors (E06xx): HLSL that is valid for SPIR-V but has no WGSL
// (WebGPU) equivalent, or IR the WGSL back end cannot express.
const (
	ErrWGSLType       Code = "E0601"
	ErrWGSLVertexWave Code = "E0602"
	// ErrWGSLVertexLaneCount: WaveGetLaneCount in a vertex shader in the naga
	// dialect without a wave size to give it.
	ErrWGSLVertexLaneCount Code = "E0613"
	ErrWGSLPushConstant    Code = "E0603"
	ErrWGSLNoLowering      Code = "E0604"
	ErrWGSLBarrierReturn   Code = "E0605"
	ErrWGSLQuadLane        Code = "E0606"
	ErrWGSLStage           Code = "E0607"
	ErrWGSLLayout          Code = "E0608"
	ErrWGSLAtomic          Code = "E0609"
	ErrWGSLTextureAccess   Code = "E0610"
	ErrWGSLEntryName       Code = "E0611"
	ErrWGSLHelperLane      Code = "E0612"
	ErrWGSLMeshStage       Code = "E0614"
	ErrWGSLInternal        Code = "E0699"
	WarnWGSLWaveSize       Code = "W0601"
	WarnWGSLHelperLanes    Code = "W0602"
)

var codesWgsl = []CodeInfo{
	CodeInfo{ErrWGSLType, "the type has no WGSL equivalent (64-bit integers and doubles, integer or bool matrices)",
		"RWStructuredBuffer<double> b;\n[numthreads(1,1,1)] void main() { b[0] = 1.0; }",
		"use float/int/uint (or half with -enable-16bit-types); WGSL has no f64 or i64"},
	CodeInfo{ErrWGSLVertexWave, "a wave or quad operation is used in a vertex shader; WebGPU allows them only in compute and fragment shaders (the naga dialect takes them: wgpu-native's native-feature-subgroup-vertex)",
		"float4 main(uint v : SV_VertexID) : SV_Position { return WaveActiveSum(v); }",
		"move the wave operation to a compute or pixel shader, compile this entry point for SPIR-V only, or for wgpu-native with -wgsl-dialect naga"},
	CodeInfo{ErrWGSLPushConstant, "push constants are not part of standard WebGPU",
		"[[vk::push_constant]] struct P { uint n; } p;",
		"use a cbuffer, or the naga dialect (wgpu-native), which has var<immediate>"},
	CodeInfo{ErrWGSLNoLowering, "the intrinsic has no WGSL lowering",
		"uint4 m = WaveMatch(x);",
		"build the partition with WaveActiveBallot and WaveReadLaneFirst in a loop"},
	CodeInfo{ErrWGSLBarrierReturn, "a barrier follows a divergent return in a way the WGSL back end cannot restructure into uniform control flow",
		"for (;;) { if (id.x > 3) return; } continuing-block barrier",
		"move the barrier out of the loop's continue block, or replace the early return by an if around the work"},
	CodeInfo{ErrWGSLQuadLane, "QuadReadLaneAt with a constant lane outside 0..3",
		"float v = QuadReadLaneAt(x, 5);", "quad lanes are 0, 1, 2 and 3"},
	CodeInfo{ErrWGSLStage, "the operation is not available in this shader stage in WGSL",
		"[numthreads(1,1,1)] void main() { float d = ddx(1.0); }",
		"barriers are compute-only, derivatives and Sample are fragment-only in WGSL"},
	CodeInfo{ErrWGSLLayout, "the buffer layout cannot be expressed with WGSL's @align/@size attributes",
		"cbuffer C { float2 a; float2x3 m; } // matrix stride not 8 or 16",
		"reorder members or pad explicitly so each member sits at a WGSL-alignable offset"},
	CodeInfo{ErrWGSLAtomic, "atomic storage is used in a way WGSL forbids",
		"groupshared uint g[4]; ... InterlockedAdd(g[0], 1); uint4 copy = g; // whole-array read of atomics",
		"access atomic storage element by element"},
	CodeInfo{ErrWGSLTextureAccess, "a multi-channel RWTexture2D is both read and written; WebGPU allows read_write storage textures only with r32float, r32uint or r32sint",
		"RWTexture2D<float4> img; ... img[p] = img[p] * 2;",
		"use a single-channel RWTexture2D<float>/<uint>/<int>, or read from a separate Texture2D"},
	CodeInfo{ErrWGSLEntryName, "the entry point's name is a WGSL keyword or reserved word, so WebGPU cannot name it",
		"[numthreads(1,1,1)] void loop() {}", "rename the entry point"},
	CodeInfo{ErrWGSLHelperLane, "IsHelperLane is used in a pixel shader; WGSL has no helper-invocation builtin",
		"float4 main() : SV_Target { return IsHelperLane() ? 0.0 : 1.0; }",
		"compile this entry point for SPIR-V or MSL only, or drop the test (helper lanes never write render targets); outside pixel shaders IsHelperLane is false and needs nothing"},
	CodeInfo{ErrWGSLVertexLaneCount, "WaveGetLaneCount in a vertex shader in the naga dialect, with no wave size given: naga has no subgroup_size built-in in vertex shaders",
		"float4 main(uint v : SV_VertexID) : SV_Position { return WaveGetLaneCount(); }",
		"the rig passes the device's subgroupSize (wgsl.Options.VertexWaveSize); the standard dialect refuses every vertex wave operation (E0602)"},
	CodeInfo{ErrWGSLMeshStage, "the entry point is an amplification or mesh shader; WebGPU has no mesh shaders",
		"[shader(\"mesh\")] [outputtopology(\"triangle\")] [numthreads(32,1,1)] void main(…) {}",
		"compile the amplification and mesh entry points for SPIR-V (Vulkan, SPV_EXT_mesh_shader) or MSL only: -target spirv,msl"},
	CodeInfo{ErrWGSLInternal, "internal error in the WGSL back end (a bug in waverig; please report it with the source)", "", ""},
	CodeInfo{WarnWGSLWaveSize, "WebGPU cannot require a wave size: the WGSL is emitted without it and [WaveSize] is only carried in the reflection",
		"[WaveSize(32)] [numthreads(64,1,1)] void main() {}",
		"make the kernel correct for any subgroup size WebGPU picks (subgroupMinSize to subgroupMaxSize), or check WaveGetLaneCount() at run time"},
	CodeInfo{WarnWGSLHelperLanes, "WebGPU cannot make helper invocations take part in subgroup operations: the WGSL is emitted without [WaveOpsIncludeHelperLanes], which is only carried in the reflection",
		"[WaveOpsIncludeHelperLanes] float4 main(float4 p : SV_Position) : SV_Target { return WaveActiveSum(p.x); }",
		"make the pixel shader correct whether or not helper invocations are active in its wave operations (WGSL leaves it to the device), or compile it for SPIR-V"},
}
