package diag

// Semantic-analysis diagnostics: E02xx types and declarations, E03xx expressions,
// calls and intrinsics, E04xx statements, entry points and bindings.
const (
	ErrUnknownType       Code = "E0201"
	ErrRedeclared        Code = "E0202"
	ErrArraySize         Code = "E0203"
	ErrBadTemplate       Code = "E0204"
	ErrUnsupportedType   Code = "E0205"
	ErrImplicitUniform   Code = "E0206"
	ErrStaticInit        Code = "E0207"
	ErrLayoutConflict    Code = "E0208"
	ErrBadAttribute      Code = "E0209"
	ErrBadResourceElem   Code = "E0210"
	ErrFuncRedefined     Code = "E0211"
	ErrBadDeclaration    Code = "E0212"
	ErrUnknownIdent      Code = "E0301"
	ErrTypeMismatch      Code = "E0302"
	ErrBadOperands       Code = "E0303"
	ErrNotAssignable     Code = "E0304"
	ErrBadSwizzle        Code = "E0305"
	ErrSwizzleRepeat     Code = "E0306"
	ErrNoMember          Code = "E0307"
	ErrBadIndex          Code = "E0308"
	ErrArgCount          Code = "E0309"
	ErrNoOverload        Code = "E0310"
	ErrAmbiguous         Code = "E0311"
	ErrIntrinsicKind     Code = "E0312"
	ErrIntrinsicShape    Code = "E0313"
	ErrAtomicDest        Code = "E0314"
	ErrPartitioned       Code = "E0315"
	ErrVectorLogical     Code = "E0316"
	ErrUnknownMethod     Code = "E0317"
	ErrPixelOnly         Code = "E0318"
	ErrNotConstant       Code = "E0319"
	ErrUndefinedFunc     Code = "E0320"
	ErrOutArg            Code = "E0321"
	ErrConstructorArgs   Code = "E0322"
	ErrBadCast           Code = "E0323"
	ErrConstDivZero      Code = "E0324"
	ErrNotCallable       Code = "E0325"
	ErrMissingReturn     Code = "E0401"
	ErrRecursion         Code = "E0402"
	ErrFallThrough       Code = "E0403"
	ErrJumpOutside       Code = "E0404"
	ErrReturnType        Code = "E0405"
	ErrMissingNumThreads Code = "E0406"
	ErrUnknownSemantic   Code = "E0407"
	ErrBindingCollision  Code = "E0408"
	ErrDuplicateCase     Code = "E0409"
	ErrDiscardStage      Code = "E0410"
	ErrBadShaderAttr     Code = "E0411"
	ErrMissingSemantic   Code = "E0412"
	ErrSwitchSelector    Code = "E0413"
	ErrBadNumThreads     Code = "E0414"
	ErrNumThreadsLimit   Code = "E0415"
	ErrGroupSharedLimit  Code = "E0416"
	ErrBindingRange      Code = "E0417"
	ErrBadWaveSize       Code = "E0418"
	ErrWaveSizeMinMax    Code = "E0419"
	ErrWaveSizePreferred Code = "E0420"
	ErrWaveSizeStage     Code = "E0421"
	ErrWaveSizeTwice     Code = "E0422"
	ErrHelperLanesStage  Code = "E0423"
	ErrHelperLanesArgs   Code = "E0424"
	// Amplification and mesh shaders (Shader Model 6.5).
	ErrOutputTopology    Code = "E0425"
	ErrMeshOutputsParam  Code = "E0426"
	ErrMeshThreadsLimit  Code = "E0427"
	ErrPayloadSize       Code = "E0428"
	ErrMeshOutputsLimit  Code = "E0429"
	ErrIntrinsicStage    Code = "E0430"
	ErrDispatchMeshCount Code = "E0431"
	ErrMeshParam         Code = "E0432"
	WarnPackOffset       Code = "W0201"
	WarnIgnoredAttribute Code = "W0202"
	WarnTruncation       Code = "W0301"
	WarnFloatToInt       Code = "W0302"
	WarnDoubleToFloat    Code = "W0303"
)

var codesSema = []CodeInfo{
	CodeInfo{ErrUnknownType, "unknown type name", "Foo x;", "declare the struct or typedef before use"},
	CodeInfo{ErrRedeclared, "a name is declared twice in the same scope", "int a; float a;", "rename one of them"},
	CodeInfo{ErrArraySize, "an array size is not a positive integer constant", "int a[-1];", "use a positive literal or static const"},
	CodeInfo{ErrBadTemplate, "wrong template arguments for a built-in type", "vector<float,5> v;", "vectors have 1-4 components, matrices 1-4 rows and columns"},
	CodeInfo{ErrUnsupportedType, "the type is valid HLSL but waverig cannot compile it", "int16_t x;", "use a 32-bit or 64-bit type"},
	CodeInfo{ErrImplicitUniform, "a global variable without `static` would be an implicit $Globals constant buffer member", "float scale;", "declare it `static`, or put it in a cbuffer"},
	CodeInfo{ErrStaticInit, "a static global initializer is not a constant expression", "static int x = f();", "initialize it in the entry point instead"},
	CodeInfo{ErrLayoutConflict, "a struct is used in both uniform and storage buffers, whose layouts differ for it", "struct S { float a[2]; }; cbuffer C { S c; }; StructuredBuffer<S> b;", "declare two structs"},
	CodeInfo{ErrBadAttribute, "an attribute has invalid arguments or is used where it does not apply", "[[vk::binding(x)]] StructuredBuffer<uint> b;", ""},
	CodeInfo{ErrBadResourceElem, "invalid element type for a resource", "StructuredBuffer<Texture2D> b;", "use scalars, vectors, matrices, arrays or structs of them"},
	CodeInfo{ErrFuncRedefined, "a function is defined twice with the same parameter types, or a prototype disagrees with its definition", "int f(int a) { return a; }\nint f(int b) { return b; }", ""},
	CodeInfo{ErrBadDeclaration, "a declaration is not allowed here", "void f() { RWStructuredBuffer<uint> b; }", "declare resources at global scope"},
	CodeInfo{ErrUnknownIdent, "unknown identifier", "x = y + 1;", "declare the variable first"},
	CodeInfo{ErrTypeMismatch, "a value cannot be converted to the required type", "float4 v = someStruct;", ""},
	CodeInfo{ErrBadOperands, "invalid operand types for an operator", "float f = 1.5 << 2;", ""},
	CodeInfo{ErrNotAssignable, "the left side of an assignment is not a writable location", "StructuredBuffer<uint> In; In[0] = 1;", "write to a RW resource, a local or a static global"},
	CodeInfo{ErrBadSwizzle, "invalid swizzle", "float2 v; v.z;", "use only the components the vector has, from one set (xyzw or rgba)"},
	CodeInfo{ErrSwizzleRepeat, "a component appears twice in a swizzle that is written", "v.xx = 1;", ""},
	CodeInfo{ErrNoMember, "the struct has no member of that name", "s.missing", ""},
	CodeInfo{ErrBadIndex, "the value cannot be indexed, or the index is not an integer", "float f; f[0];", ""},
	CodeInfo{ErrArgCount, "wrong number of arguments", "WaveActiveSum(a, b)", ""},
	CodeInfo{ErrNoOverload, "no function overload accepts the arguments", "void f(S s); f(1);", ""},
	CodeInfo{ErrAmbiguous, "more than one overload matches equally well", "void f(int); void f(uint); f(1.5);", "add a cast to pick one"},
	CodeInfo{ErrIntrinsicKind, "an intrinsic does not accept an argument of this scalar type", "WaveActiveBitAnd(1.0f)", "see the intrinsic's documented types"},
	CodeInfo{ErrIntrinsicShape, "an intrinsic does not accept an argument of this shape", "WaveActiveAnyTrue(bool2(true, false))", ""},
	CodeInfo{ErrAtomicDest, "the destination of an Interlocked* operation must be an integer in a RW buffer or groupshared memory", "int x; InterlockedAdd(x, 1);", ""},
	CodeInfo{ErrPartitioned, "WaveMatch and WaveMultiPrefix* need SPV_NV_shader_subgroup_partitioned", "uint4 m = WaveMatch(x);", "pass -fspv-extension=SPV_NV_shader_subgroup_partitioned, or build the groups with WaveActiveBallot and WaveReadLaneFirst in a loop"},
	CodeInfo{ErrVectorLogical, "&&, || and ?: with vector operands are not short-circuiting in HLSL 2021", "bool2 c = a && b;", "use and(a, b), or(a, b) or select(c, a, b)"},
	CodeInfo{ErrUnknownMethod, "the object has no method of that name", "buf.Frobnicate()", ""},
	CodeInfo{ErrPixelOnly, "the operation is only valid in pixel shaders", "[numthreads(1,1,1)] void main() { float d = ddx(1.0); }", "use SampleLevel instead of Sample outside pixel shaders"},
	CodeInfo{ErrNotConstant, "a constant expression is required", "[numthreads(n,1,1)]", ""},
	CodeInfo{ErrUndefinedFunc, "the function is declared but never defined", "void f(); … f();", ""},
	CodeInfo{ErrOutArg, "an out or inout argument is not a writable location", "void f(out int x); f(1 + 2);", "pass a variable"},
	CodeInfo{ErrConstructorArgs, "the constructor arguments do not have the right number of components", "float4 v = float4(1, 2);", ""},
	CodeInfo{ErrBadCast, "invalid cast", "(Texture2D)x", ""},
	CodeInfo{ErrConstDivZero, "integer division or remainder by a constant zero", "int k = x / 0;", ""},
	CodeInfo{ErrNotCallable, "the name is not a function, intrinsic or type", "int x; x(1);", ""},
	CodeInfo{ErrMissingReturn, "a non-void function can reach its end without returning a value", "int f(int x) { if (x > 0) return 1; }", ""},
	CodeInfo{ErrRecursion, "recursion (direct or mutual) is not allowed in shaders", "int f(int x) { return f(x - 1); }", "rewrite it as a loop"},
	CodeInfo{ErrFallThrough, "a non-empty switch case falls through into the next case", "case 0: x = 1; case 1: …", "end the case with break"},
	CodeInfo{ErrJumpOutside, "break or continue outside a loop (or continue outside a loop inside a switch)", "void f() { break; }", ""},
	CodeInfo{ErrReturnType, "the returned value does not match the function's result type", "void f() { return 1; }", ""},
	CodeInfo{ErrMissingNumThreads, "a compute entry point has no [numthreads(x,y,z)]", "[shader(\"compute\")] void main() {}", "add [numthreads(64,1,1)]"},
	CodeInfo{ErrUnknownSemantic, "unknown or misplaced system-value semantic", "void main(uint i : SV_Foo)", ""},
	CodeInfo{ErrBindingCollision, "two different resources use the same descriptor set and binding", "StructuredBuffer<uint> In : register(t0);\nRWStructuredBuffer<uint> Out : register(u0);", "pass -fvk-t-shift/-fvk-u-shift, use [[vk::binding]], or -auto-bindings"},
	CodeInfo{ErrDuplicateCase, "duplicate case value or more than one default label", "case 1: … case 1:", ""},
	CodeInfo{ErrDiscardStage, "discard is only valid in pixel shaders", "[numthreads(1,1,1)] void main() { discard; }", ""},
	CodeInfo{ErrBadShaderAttr, "invalid shader stage or entry point", "[shader(\"hull\")] void main() {}", "waverig compiles compute, pixel, vertex, amplification and mesh shaders"},
	CodeInfo{ErrMissingSemantic, "an entry point parameter or result has no semantic", "[shader(\"pixel\")] float4 main(float4 p) { return p; }", ""},
	CodeInfo{ErrSwitchSelector, "a switch selector must be a scalar integer and case labels integer constants", "switch (1.5) {}", ""},
	CodeInfo{ErrBadNumThreads, "numthreads needs three positive integer constants", "[numthreads(0,1,1)]", ""},
	CodeInfo{ErrNumThreadsLimit, "numthreads is over HLSL's limits: x and y at most 1024, z at most 64, x*y*z at most 1024", "[numthreads(64,32,1)]", "use at most 1024 threads per group and dispatch more groups"},
	CodeInfo{ErrGroupSharedLimit, "the groupshared variables an entry point uses take more than 32768 bytes (the Shader Model 6.0 limit)", "groupshared float4 cache[4096];", "use smaller arrays, 16-bit types, or keep the data in a RW buffer"},
	CodeInfo{ErrBindingRange, "a descriptor binding or set number does not fit in 32 bits, after -fvk-*-shift", "RWStructuredBuffer<uint> Out : register(u1); // with -fvk-u-shift 4294967295 0", "use a smaller shift, register or space"},
	CodeInfo{ErrBadWaveSize, "WaveSize takes one to three integer constants, each a power of two from 4 to 128", "[WaveSize(48)]", "use 4, 8, 16, 32, 64 or 128: [WaveSize(32)], [WaveSize(min, max)] or [WaveSize(min, max, preferred)]"},
	CodeInfo{ErrWaveSizeMinMax, "WaveSize's minimum is not less than its maximum", "[WaveSize(64, 16)]", "write the smaller size first, or use [WaveSize(N)] for one size"},
	CodeInfo{ErrWaveSizePreferred, "WaveSize's preferred size is outside its [min, max] range", "[WaveSize(16, 32, 64)]", "pick a preferred size from min to max"},
	CodeInfo{ErrWaveSizeStage, "WaveSize is only valid on compute entry points", "[shader(\"pixel\")] [WaveSize(32)] float4 main() : SV_Target { return 0; }", "remove the attribute, or make the entry point a compute shader"},
	CodeInfo{ErrWaveSizeTwice, "an entry point has more than one WaveSize attribute", "[WaveSize(32)] [WaveSize(64)] [numthreads(64,1,1)] void main() {}", "keep one [WaveSize(min, max)] with the whole range"},
	CodeInfo{ErrHelperLanesStage, "WaveOpsIncludeHelperLanes is only valid on pixel entry points (only pixel shaders have helper lanes)", "[shader(\"compute\")] [WaveOpsIncludeHelperLanes] [numthreads(64,1,1)] void main() {}", "remove the attribute, or put it on the pixel shader whose wave operations should count helper lanes"},
	CodeInfo{ErrHelperLanesArgs, "WaveOpsIncludeHelperLanes takes no arguments and is written once per entry point", "[WaveOpsIncludeHelperLanes(true)] float4 main() : SV_Target { return 0; }", "write [WaveOpsIncludeHelperLanes] once, without parentheses"},
	CodeInfo{ErrOutputTopology, "a mesh entry point has no [outputtopology(\"triangle\")] or [outputtopology(\"line\")], or names another topology",
		"[shader(\"mesh\")] [numthreads(32,1,1)] void main(out indices uint3 t[8], out vertices V v[8]) {}",
		"add [outputtopology(\"triangle\")] (indices uint3) or [outputtopology(\"line\")] (indices uint2); DXC and Vulkan have no point topology for HLSL"},
	CodeInfo{ErrMeshOutputsParam, "a mesh entry point lacks its out vertices or out indices parameter, or declares one twice",
		"[shader(\"mesh\")] [outputtopology(\"triangle\")] [numthreads(32,1,1)] void main(out indices uint3 t[8]) {}",
		"declare both `out vertices V verts[N]` and `out indices uint3 tris[M]` (DXC requires them)"},
	CodeInfo{ErrMeshThreadsLimit, "an amplification or mesh entry point has more than 128 threads per group (the Shader Model 6.5 limit)",
		"[shader(\"mesh\")] [numthreads(256,1,1)]",
		"use at most 128 threads and let each thread write several vertices or primitives"},
	CodeInfo{ErrPayloadSize, "the amplification-to-mesh payload is larger than 16384 bytes (the Shader Model 6.5 limit)",
		"struct P { uint ids[8192]; }; groupshared P p; … DispatchMesh(1, 1, 1, p);",
		"send indices instead of data, and read the data from a buffer in the mesh shader"},
	CodeInfo{ErrMeshOutputsLimit, "a mesh entry point declares more than 256 vertices or 256 primitives",
		"out vertices V verts[512]",
		"split the meshlet: DXC and Vulkan's guaranteed minimum (maxMeshOutputVertices/Primitives) allow 256"},
	CodeInfo{ErrIntrinsicStage, "the intrinsic is not valid in this entry point's stage (DispatchMesh is amplification only, SetMeshOutputCounts mesh only)",
		"[shader(\"compute\")] [numthreads(1,1,1)] void main() { SetMeshOutputCounts(3, 1); }",
		"call it only from the stage that has it"},
	CodeInfo{ErrDispatchMeshCount, "an amplification entry point does not call DispatchMesh, or calls it more than once on a path",
		"[shader(\"amplification\")] [numthreads(32,1,1)] void main() { }",
		"call DispatchMesh(x, y, z, payload) exactly once, at the end of the entry point, in uniform control flow"},
	CodeInfo{ErrMeshParam, "a mesh-shader parameter qualifier (vertices, indices, primitives, payload) is misused: wrong stage, direction or type, a missing array size, or a DispatchMesh payload that is not a groupshared struct",
		"[shader(\"mesh\")] … void main(out indices uint t[8], …)",
		"write `out vertices V v[N]`, `out indices uint3 t[M]` (uint2 for lines), `out primitives P p[M]` and `in payload P pl` on a mesh entry point's parameters only"},
	CodeInfo{WarnPackOffset, "packoffset is ignored: members are laid out by waverig's buffer layout rule", "cbuffer C { float4 a : packoffset(c0); };", ""},
	CodeInfo{WarnIgnoredAttribute, "the attribute is not understood and is ignored", "[earlydepthstencil] float4 main() : SV_Target", ""},
	CodeInfo{WarnTruncation, "implicit truncation of a vector", "float2 v = float4(1, 2, 3, 4);", "take the components you want with a swizzle (.xy)"},
	CodeInfo{WarnFloatToInt, "implicit conversion from floating point to integer loses the fraction", "int i = 1.5;", "cast explicitly: (int)x"},
	CodeInfo{WarnDoubleToFloat, "implicit conversion from double to float loses precision", "float f = 1.0l;", "cast explicitly: (float)x"},
}
