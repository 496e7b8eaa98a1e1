package intrinsics

// The Op constants, in table order. Wave and quad operations first (the 24 of
// Shader Model 6.0), then SM 6.5 partitioned operations, barriers, atomics, math,
// derivatives, texture and buffer methods, then Shader Model 6.6 IsHelperLane and
// the Shader Model 6.7 quad votes.
const (
	WaveGetLaneCount Op = iota + 1
	WaveGetLaneIndex
	WaveIsFirstLane
	WaveActiveAnyTrue
	WaveActiveAllTrue
	WaveActiveAllEqual
	WaveActiveBallot
	WaveActiveCountBits
	WaveActiveSum
	WaveActiveProduct
	WaveActiveMin
	WaveActiveMax
	WaveActiveBitAnd
	WaveActiveBitOr
	WaveActiveBitXor
	WavePrefixSum
	WavePrefixProduct
	WavePrefixCountBits
	WaveReadLaneAt
	WaveReadLaneFirst
	QuadReadAcrossX
	QuadReadAcrossY
	QuadReadAcrossDiagonal
	QuadReadLaneAt

	WaveMatch
	WaveMultiPrefixSum
	WaveMultiPrefixProduct
	WaveMultiPrefixBitAnd
	WaveMultiPrefixBitOr
	WaveMultiPrefixBitXor
	WaveMultiPrefixCountBits

	GroupMemoryBarrier
	GroupMemoryBarrierWithGroupSync
	DeviceMemoryBarrier
	DeviceMemoryBarrierWithGroupSync
	AllMemoryBarrier
	AllMemoryBarrierWithGroupSync

	InterlockedAdd
	InterlockedAnd
	InterlockedOr
	InterlockedXor
	InterlockedMin
	InterlockedMax
	InterlockedExchange
	InterlockedCompareExchange
	InterlockedCompareStore

	Abs
	Min
	Max
	Clamp
	Saturate
	Sign
	Floor
	Ceil
	Round
	Trunc
	Frac
	Sqrt
	Rsqrt
	Exp
	Exp2
	Log
	Log2
	Pow
	Sin
	Cos
	Tan
	Lerp
	Mad
	Dot
	Cross
	Length
	Normalize
	Any
	All
	Countbits
	Firstbithigh
	Firstbitlow
	Reversebits
	Asuint
	Asint
	Asfloat
	F16tof32
	F32tof16
	Mul
	Ddx
	Ddy

	TextureSample
	TextureSampleLevel
	TextureLoad
	TextureStore
	TextureGetDimensions
	BufferGetDimensions

	IsHelperLane

	QuadAny
	QuadAll

	// The double-bit reinterpretations (SM 5.0), after the votes so the
	// earlier Op values stay as they were.
	Asdouble
	AsuintDouble

	// The Shader Model 6.5 amplification/mesh pipeline intrinsics, last for the same reason.
	DispatchMesh
	SetMeshOutputCounts
)

// QuadVotes lists the Shader Model 6.7 quad votes (QuadAny, QuadAll), in the table's order.
var QuadVotes = []Op{QuadAny, QuadAll}

// Wave24 lists the 24 Shader Model 6.0 wave and quad intrinsics, in the table's order.
var Wave24 = []Op{
	WaveGetLaneCount, WaveGetLaneIndex, WaveIsFirstLane, WaveActiveAnyTrue, WaveActiveAllTrue,
	WaveActiveAllEqual, WaveActiveBallot, WaveActiveCountBits, WaveActiveSum, WaveActiveProduct,
	WaveActiveMin, WaveActiveMax, WaveActiveBitAnd, WaveActiveBitOr, WaveActiveBitXor, WavePrefixSum,
	WavePrefixProduct, WavePrefixCountBits, WaveReadLaneAt, WaveReadLaneFirst, QuadReadAcrossX,
	QuadReadAcrossY, QuadReadAcrossDiagonal, QuadReadLaneAt,
}

// Scalar-kind indices into SPIRV.Op / SPIRV.Ext (equal to ir.ScalarKind values).
const (
	kBool = iota
	kSint
	kUint
	kFloat
)

// Shorthands for the table below.
func p(name string, k Kinds, s Shapes) Param {
	return Param{Name: name, Kinds: k, Shapes: s, SameAs: -1}
}
func same(name string, of int) Param { return Param{Name: name, SameAs: of, Kinds: KAny, Shapes: SAll} }
func lane(name string) Param {
	return Param{Name: name, Kinds: KUint | KInt, Shapes: SScalar, SameAs: -1, Scalar32: true}
}

// mask is the uint4 partition mask of the SM 6.5 partitioned operations.
func mask() Param { return Param{Name: "mask", Kinds: KUint, Shapes: SVector, SameAs: -1, N: 4} }
func place(name string, k Kinds) Param {
	return Param{Name: name, Kinds: k, Shapes: SScalar, SameAs: -1, Place: true}
}
func out(name string) Param {
	return Param{Name: name, Kinds: KInteger, Shapes: SScalar, SameAs: -1, Place: true, Out: true}
}

// outBits is a required out parameter of asuint(double, out uint, out uint): a
// uint place of the value's shape.
func outBits(name string) Param {
	return Param{Name: name, Kinds: KInteger, Shapes: SScalarVector, SameAs: -1, Place: true, Out: true, Required: true}
}

// ops builds the per-kind opcode array: bool, signed, unsigned, float.
func ops(b, s, u, f uint16) [4]uint16 { return [4]uint16{b, s, u, f} }

var noQuad = int8(-1)

func wave(op Op, name string, params []Param, r Result, sp SPIRV, bit uint32, wgsl, wgslLow, msl, mslLow string) Info {
	if sp.QuadDirection == 0 && sp.Capability != CapGroupNonUniformQuad {
		sp.QuadDirection = -1
	}
	return Info{Op: op, Name: name, Class: ClassWave, SM: "6.0", Params: params, Result: r, SPIRV: sp, VkBit: bit,
		WGSL: wgsl, WGSLLowering: wgslLow, MSL: msl, MSLLowering: mslLow}
}

func reduce(group int8, o [4]uint16, cap uint16) SPIRV {
	return SPIRV{Op: o, GroupOp: group, QuadDirection: -1, Capability: cap}
}

const (
	opElect          = 333
	opAll            = 334
	opAny            = 335
	opAllEqual       = 336
	opBroadcastFirst = 338
	opBallot         = 339
	opBallotBitCount = 342
	opShuffle        = 345
	opIAdd, opFAdd   = 349, 350
	opIMul, opFMul   = 351, 352
	opSMin, opUMin   = 353, 354
	opFMin           = 355
	opSMax, opUMax   = 356, 357
	opFMax           = 358
	opBitAnd         = 359
	opBitOr          = 360
	opBitXor         = 361
	opQuadBroadcast  = 365
	opQuadSwap       = 366
	opPartitionNV    = 5296
	opQuadAllKHR     = 5110 // SPV_KHR_quad_control
	opQuadAnyKHR     = 5111

	opEmitMeshTasksEXT  = 5294 // SPV_EXT_mesh_shader: a block terminator
	opSetMeshOutputsEXT = 5295

	opIsHelperInvocationEXT = 5381
	builtinHelperInvocation = 23
	spirv16                 = 0x00010600

	reduceOp    = 0
	exclusiveOp = 2
	partExclOp  = 8 // PartitionedExclusiveScanNV
)

// Table is the intrinsic table. Order matters only for documentation.
var Table = []Info{
	// --- Shader Model 6.0 wave intrinsics ---------------------------------------------------
	wave(WaveGetLaneCount, "WaveGetLaneCount", nil, RUint,
		SPIRV{Builtin: 36, GroupOp: -1, QuadDirection: -1, Capability: CapGroupNonUniform}, VkBasic,
		"", "builtin subgroup_size", "", "builtin threads_per_simdgroup"),
	wave(WaveGetLaneIndex, "WaveGetLaneIndex", nil, RUint,
		SPIRV{Builtin: 41, GroupOp: -1, QuadDirection: -1, Capability: CapGroupNonUniform}, VkBasic,
		"", "builtin subgroup_invocation_id", "", "builtin thread_index_in_simdgroup"),
	wave(WaveIsFirstLane, "WaveIsFirstLane", nil, RBool,
		reduce(-1, ops(opElect, 0, 0, 0), CapGroupNonUniform), VkBasic,
		"subgroupElect", "naga: lane index == subgroupBroadcastFirst(lane index)", "simd_is_first", ""),
	wave(WaveActiveAnyTrue, "WaveActiveAnyTrue", []Param{p("expr", KBool, SScalar)}, RBool,
		reduce(-1, ops(opAny, 0, 0, 0), CapGroupNonUniformVote), VkVote,
		"subgroupAny", "", "simd_any", ""),
	wave(WaveActiveAllTrue, "WaveActiveAllTrue", []Param{p("expr", KBool, SScalar)}, RBool,
		reduce(-1, ops(opAll, 0, 0, 0), CapGroupNonUniformVote), VkVote,
		"subgroupAll", "", "simd_all", ""),
	wave(WaveActiveAllEqual, "WaveActiveAllEqual", []Param{p("expr", KAny, SScalarVector)}, RBoolShape0,
		SPIRV{Op: ops(opAllEqual, opAllEqual, opAllEqual, opAllEqual), GroupOp: -1, QuadDirection: -1, PerComponent: true, Capability: CapGroupNonUniformVote}, VkVote,
		"", "per component: subgroupAll(x == subgroupBroadcastFirst(x))", "", "per component: simd_all(x == simd_broadcast_first(x))"),
	wave(WaveActiveBallot, "WaveActiveBallot", []Param{p("expr", KBool, SScalar)}, RUint4,
		reduce(-1, ops(opBallot, 0, 0, 0), CapGroupNonUniformBallot), VkBallot,
		"subgroupBallot", "", "", "uint4 from the 64-bit simd_ballot vote, masked to the simd-group size"),
	wave(WaveActiveCountBits, "WaveActiveCountBits", []Param{p("expr", KBool, SScalar)}, RUint,
		SPIRV{Op: ops(opBallotBitCount, 0, 0, 0), GroupOp: reduceOp, QuadDirection: -1, ViaBallot: true, Capability: CapGroupNonUniformBallot}, VkBallot,
		"", "countOneBits of the four words of subgroupBallot(expr)", "", "popcount of simd_ballot(expr)"),
	wave(WaveActiveSum, "WaveActiveSum", []Param{p("expr", KNumeric, SScalarVector)}, RSameAsArg0,
		reduce(reduceOp, ops(0, opIAdd, opIAdd, opFAdd), CapGroupNonUniformArithmetic), VkArithmetic,
		"subgroupAdd", "", "simd_sum", ""),
	wave(WaveActiveProduct, "WaveActiveProduct", []Param{p("expr", KNumeric, SScalarVector)}, RSameAsArg0,
		reduce(reduceOp, ops(0, opIMul, opIMul, opFMul), CapGroupNonUniformArithmetic), VkArithmetic,
		"subgroupMul", "", "simd_product", ""),
	wave(WaveActiveMin, "WaveActiveMin", []Param{p("expr", KNumeric, SScalarVector)}, RSameAsArg0,
		reduce(reduceOp, ops(0, opSMin, opUMin, opFMin), CapGroupNonUniformArithmetic), VkArithmetic,
		"subgroupMin", "", "simd_min", ""),
	wave(WaveActiveMax, "WaveActiveMax", []Param{p("expr", KNumeric, SScalarVector)}, RSameAsArg0,
		reduce(reduceOp, ops(0, opSMax, opUMax, opFMax), CapGroupNonUniformArithmetic), VkArithmetic,
		"subgroupMax", "", "simd_max", ""),
	wave(WaveActiveBitAnd, "WaveActiveBitAnd", []Param{p("expr", KUint, SScalarVector)}, RSameAsArg0,
		reduce(reduceOp, ops(0, 0, opBitAnd, 0), CapGroupNonUniformArithmetic), VkArithmetic,
		"subgroupAnd", "", "simd_and", ""),
	wave(WaveActiveBitOr, "WaveActiveBitOr", []Param{p("expr", KUint, SScalarVector)}, RSameAsArg0,
		reduce(reduceOp, ops(0, 0, opBitOr, 0), CapGroupNonUniformArithmetic), VkArithmetic,
		"subgroupOr", "", "simd_or", ""),
	wave(WaveActiveBitXor, "WaveActiveBitXor", []Param{p("expr", KUint, SScalarVector)}, RSameAsArg0,
		reduce(reduceOp, ops(0, 0, opBitXor, 0), CapGroupNonUniformArithmetic), VkArithmetic,
		"subgroupXor", "", "simd_xor", ""),
	wave(WavePrefixSum, "WavePrefixSum", []Param{p("expr", KNumeric, SScalarVector)}, RSameAsArg0,
		reduce(exclusiveOp, ops(0, opIAdd, opIAdd, opFAdd), CapGroupNonUniformArithmetic), VkArithmetic,
		"subgroupExclusiveAdd", "", "simd_prefix_exclusive_sum", ""),
	wave(WavePrefixProduct, "WavePrefixProduct", []Param{p("expr", KNumeric, SScalarVector)}, RSameAsArg0,
		reduce(exclusiveOp, ops(0, opIMul, opIMul, opFMul), CapGroupNonUniformArithmetic), VkArithmetic,
		"subgroupExclusiveMul", "", "simd_prefix_exclusive_product", ""),
	wave(WavePrefixCountBits, "WavePrefixCountBits", []Param{p("expr", KBool, SScalar)}, RUint,
		SPIRV{Op: ops(opBallotBitCount, 0, 0, 0), GroupOp: exclusiveOp, QuadDirection: -1, ViaBallot: true, Capability: CapGroupNonUniformBallot}, VkBallot,
		"", "subgroupExclusiveAdd(select(0u, 1u, expr))", "", "simd_prefix_exclusive_sum(uint(expr))"),
	wave(WaveReadLaneAt, "WaveReadLaneAt", []Param{p("expr", KAny, SScalarVector), lane("laneIndex")}, RSameAsArg0,
		reduce(-1, ops(opShuffle, opShuffle, opShuffle, opShuffle), CapGroupNonUniformShuffle), VkShuffle,
		"subgroupShuffle", "bool via u32", "simd_shuffle", "bool via ushort"),
	wave(WaveReadLaneFirst, "WaveReadLaneFirst", []Param{p("expr", KAny, SScalarVector)}, RSameAsArg0,
		reduce(-1, ops(opBroadcastFirst, opBroadcastFirst, opBroadcastFirst, opBroadcastFirst), CapGroupNonUniformBallot), VkBallot,
		"subgroupBroadcastFirst", "bool via u32", "simd_broadcast_first", "bool via ushort"),

	// --- Shader Model 6.0 quad intrinsics ---------------------------------------------------
	quad(QuadReadAcrossX, "QuadReadAcrossX", 0, "quadSwapX", "quad_shuffle_xor(x, 1)"),
	quad(QuadReadAcrossY, "QuadReadAcrossY", 1, "quadSwapY", "quad_shuffle_xor(x, 2)"),
	quad(QuadReadAcrossDiagonal, "QuadReadAcrossDiagonal", 2, "quadSwapDiagonal", "quad_shuffle_xor(x, 3)"),
	{Op: QuadReadLaneAt, Name: "QuadReadLaneAt", Class: ClassQuad, SM: "6.0",
		Params: []Param{p("expr", KNumeric, SScalarVector), lane("quadLaneID")}, Result: RSameAsArg0,
		SPIRV: SPIRV{Op: ops(0, opQuadBroadcast, opQuadBroadcast, opQuadBroadcast), GroupOp: -1, QuadDirection: -1, Capability: CapGroupNonUniformQuad},
		VkBit: VkQuad, WGSL: "quadBroadcast", WGSLLowering: "constant lane: quadBroadcast; other lanes: select over the four quadBroadcast(x, 0..3)",
		MSL: "quad_broadcast"},

	// --- Shader Model 6.5 partitioned operations (need SPV_NV_shader_subgroup_partitioned) -----
	partitioned(WaveMatch, "WaveMatch", nil, SPIRV{Op: ops(opPartitionNV, opPartitionNV, opPartitionNV, opPartitionNV), GroupOp: -1, QuadDirection: -1, Capability: CapGroupNonUniformPartitionedNV}, VkPartitionedNV, RUint4),
	partitioned(WaveMultiPrefixSum, "WaveMultiPrefixSum", []Param{mask()}, reduce(partExclOp, ops(0, opIAdd, opIAdd, opFAdd), CapGroupNonUniformArithmetic), VkArithmetic|VkPartitionedNV, RSameAsArg0),
	partitioned(WaveMultiPrefixProduct, "WaveMultiPrefixProduct", []Param{mask()}, reduce(partExclOp, ops(0, opIMul, opIMul, opFMul), CapGroupNonUniformArithmetic), VkArithmetic|VkPartitionedNV, RSameAsArg0),
	partitioned(WaveMultiPrefixBitAnd, "WaveMultiPrefixBitAnd", []Param{mask()}, reduce(partExclOp, ops(0, opBitAnd, opBitAnd, 0), CapGroupNonUniformArithmetic), VkArithmetic|VkPartitionedNV, RSameAsArg0),
	partitioned(WaveMultiPrefixBitOr, "WaveMultiPrefixBitOr", []Param{mask()}, reduce(partExclOp, ops(0, opBitOr, opBitOr, 0), CapGroupNonUniformArithmetic), VkArithmetic|VkPartitionedNV, RSameAsArg0),
	partitioned(WaveMultiPrefixBitXor, "WaveMultiPrefixBitXor", []Param{mask()}, reduce(partExclOp, ops(0, opBitXor, opBitXor, 0), CapGroupNonUniformArithmetic), VkArithmetic|VkPartitionedNV, RSameAsArg0),
	// WaveMultiPrefixCountBits(bool, uint4) -> uint: the lanes of the partition below this one
	// whose value is true. DXC has no SPIR-V lowering for it ("intrinsic function
	// unimplemented"); here, as its siblings: OpGroupNonUniformIAdd PartitionedExclusiveScanNV on
	// the predicate counted as 1u/0u (SPIRV.CountsBool).
	partitioned(WaveMultiPrefixCountBits, "WaveMultiPrefixCountBits", []Param{mask()}, SPIRV{Op: ops(opIAdd, 0, 0, 0), GroupOp: partExclOp, QuadDirection: -1, CountsBool: true, Capability: CapGroupNonUniformArithmetic}, VkArithmetic|VkPartitionedNV, RUint),

	// --- Barriers (DXC processIntrinsicMemoryBarrier) ---------------------------------------------
	barrier(GroupMemoryBarrier, "GroupMemoryBarrier", -1, 2, 0x108, "workgroupBarrier", "threadgroup_barrier(mem_flags::mem_threadgroup)"),
	barrier(GroupMemoryBarrierWithGroupSync, "GroupMemoryBarrierWithGroupSync", 2, 2, 0x108, "workgroupBarrier", "threadgroup_barrier(mem_flags::mem_threadgroup)"),
	barrier(DeviceMemoryBarrier, "DeviceMemoryBarrier", -1, 1, 0x848, "storageBarrier", "threadgroup_barrier(mem_flags::mem_device)"),
	barrier(DeviceMemoryBarrierWithGroupSync, "DeviceMemoryBarrierWithGroupSync", 2, 1, 0x848, "storageBarrier", "threadgroup_barrier(mem_flags::mem_device)"),
	barrier(AllMemoryBarrier, "AllMemoryBarrier", -1, 1, 0x948, "", "threadgroup_barrier(mem_flags::mem_device | mem_flags::mem_threadgroup)"),
	barrier(AllMemoryBarrierWithGroupSync, "AllMemoryBarrierWithGroupSync", 2, 1, 0x948, "", "threadgroup_barrier(mem_flags::mem_device | mem_flags::mem_threadgroup)"),

	// --- Atomics: Interlocked*(dest, value[, original]) on buffers and groupshared -------------
	atomic(InterlockedAdd, "InterlockedAdd", ops(0, 234, 234, 0), "atomicAdd", "atomic_fetch_add_explicit"),
	atomic(InterlockedAnd, "InterlockedAnd", ops(0, 240, 240, 0), "atomicAnd", "atomic_fetch_and_explicit"),
	atomic(InterlockedOr, "InterlockedOr", ops(0, 241, 241, 0), "atomicOr", "atomic_fetch_or_explicit"),
	atomic(InterlockedXor, "InterlockedXor", ops(0, 242, 242, 0), "atomicXor", "atomic_fetch_xor_explicit"),
	atomic(InterlockedMin, "InterlockedMin", ops(0, 236, 237, 0), "atomicMin", "atomic_fetch_min_explicit"),
	atomic(InterlockedMax, "InterlockedMax", ops(0, 238, 239, 0), "atomicMax", "atomic_fetch_max_explicit"),
	atomic(InterlockedExchange, "InterlockedExchange", ops(0, 229, 229, 0), "atomicExchange", "atomic_exchange_explicit"),
	{Op: InterlockedCompareExchange, Name: "InterlockedCompareExchange", Class: ClassAtomic, SM: "5.0",
		Params: []Param{place("dest", KInteger), p("compare_value", KInteger, SScalar), p("value", KInteger, SScalar), out("original_value")},
		Result: RVoid, SPIRV: SPIRV{Op: ops(0, 230, 230, 0), GroupOp: -1, QuadDirection: -1},
		WGSL: "atomicCompareExchangeWeak", WGSLLowering: "loop until exchanged or the old value differs (strong semantics)",
		MSL: "atomic_compare_exchange_weak_explicit", MSLLowering: "loop (MSL has only weak CAS)"},
	{Op: InterlockedCompareStore, Name: "InterlockedCompareStore", Class: ClassAtomic, SM: "5.0",
		Params: []Param{place("dest", KInteger), p("compare_value", KInteger, SScalar), p("value", KInteger, SScalar)},
		Result: RVoid, SPIRV: SPIRV{Op: ops(0, 230, 230, 0), GroupOp: -1, QuadDirection: -1},
		WGSL: "atomicCompareExchangeWeak", WGSLLowering: "loop, result dropped",
		MSL: "atomic_compare_exchange_weak_explicit", MSLLowering: "loop, result dropped"},

	// --- Math and bit intrinsics (GLSL.std.450 numbers in SPIRV.Ext) ---------------------------
	math(Abs, "abs", 1, KNumeric, RSameAsArg0, ext(0, 5, 0, 4), "abs", "abs"),
	math(Min, "min", 2, KNumeric, RSameAsArg0, ext(0, 39, 38, 37), "min", "min"),
	math(Max, "max", 2, KNumeric, RSameAsArg0, ext(0, 42, 41, 40), "max", "max"),
	math(Clamp, "clamp", 3, KNumeric, RSameAsArg0, ext(0, 45, 44, 43), "clamp", "clamp"),
	math(Saturate, "saturate", 1, KFloat, RSameAsArg0, ext(0, 0, 0, 43), "saturate", "saturate"),
	math(Sign, "sign", 1, KInt|KFloat, RIntShape0, ext(0, 7, 0, 6), "sign", "sign"),
	math(Floor, "floor", 1, KFloat, RSameAsArg0, ext(0, 0, 0, 8), "floor", "floor"),
	math(Ceil, "ceil", 1, KFloat, RSameAsArg0, ext(0, 0, 0, 9), "ceil", "ceil"),
	math(Round, "round", 1, KFloat, RSameAsArg0, ext(0, 0, 0, 2), "round", "rint"),
	math(Trunc, "trunc", 1, KFloat, RSameAsArg0, ext(0, 0, 0, 3), "trunc", "trunc"),
	math(Frac, "frac", 1, KFloat, RSameAsArg0, ext(0, 0, 0, 10), "fract", "fract"),
	math(Sqrt, "sqrt", 1, KFloat, RSameAsArg0, ext(0, 0, 0, 31), "sqrt", "sqrt"),
	math(Rsqrt, "rsqrt", 1, KFloat, RSameAsArg0, ext(0, 0, 0, 32), "inverseSqrt", "rsqrt"),
	math(Exp, "exp", 1, KFloat, RSameAsArg0, ext(0, 0, 0, 27), "exp", "exp"),
	math(Exp2, "exp2", 1, KFloat, RSameAsArg0, ext(0, 0, 0, 29), "exp2", "exp2"),
	math(Log, "log", 1, KFloat, RSameAsArg0, ext(0, 0, 0, 28), "log", "log"),
	math(Log2, "log2", 1, KFloat, RSameAsArg0, ext(0, 0, 0, 30), "log2", "log2"),
	math(Pow, "pow", 2, KFloat, RSameAsArg0, ext(0, 0, 0, 26), "pow", "pow"),
	math(Sin, "sin", 1, KFloat, RSameAsArg0, ext(0, 0, 0, 13), "sin", "sin"),
	math(Cos, "cos", 1, KFloat, RSameAsArg0, ext(0, 0, 0, 14), "cos", "cos"),
	math(Tan, "tan", 1, KFloat, RSameAsArg0, ext(0, 0, 0, 15), "tan", "tan"),
	math(Lerp, "lerp", 3, KFloat, RSameAsArg0, ext(0, 0, 0, 46), "mix", "mix"),
	math(Mad, "mad", 3, KNumeric, RSameAsArg0, ext(0, 0, 0, 50), "fma", "fma"),
	{Op: Dot, Name: "dot", Class: ClassMath, SM: "1.0", Params: []Param{p("x", KNumeric, SScalarVector), same("y", 0)}, Result: RFloatScalar,
		SPIRV: SPIRV{Op: ops(0, 0, 0, 148), GroupOp: -1, QuadDirection: -1}, WGSL: "dot", MSL: "dot", WGSLLowering: "integer: sum of products", MSLLowering: "integer: sum of products"},
	{Op: Cross, Name: "cross", Class: ClassMath, SM: "1.0", Params: []Param{p("x", KFloat, SVector), same("y", 0)}, Result: RSameAsArg0,
		SPIRV: ext(0, 0, 0, 68), WGSL: "cross", MSL: "cross"},
	{Op: Length, Name: "length", Class: ClassMath, SM: "1.0", Params: []Param{p("x", KFloat, SScalarVector)}, Result: RFloatScalar,
		SPIRV: ext(0, 0, 0, 66), WGSL: "length", MSL: "length"},
	math(Normalize, "normalize", 1, KFloat, RSameAsArg0, ext(0, 0, 0, 69), "normalize", "normalize"),
	{Op: Any, Name: "any", Class: ClassMath, SM: "1.0", Params: []Param{p("x", KAny, SScalarVector)}, Result: RBool,
		SPIRV: SPIRV{Op: ops(154, 0, 0, 0), GroupOp: -1, QuadDirection: -1}, WGSL: "any", MSL: "any"},
	{Op: All, Name: "all", Class: ClassMath, SM: "1.0", Params: []Param{p("x", KAny, SScalarVector)}, Result: RBool,
		SPIRV: SPIRV{Op: ops(155, 0, 0, 0), GroupOp: -1, QuadDirection: -1}, WGSL: "all", MSL: "all"},
	math(Countbits, "countbits", 1, KInteger, RUintShape0, SPIRV{Op: ops(0, 205, 205, 0)}, "countOneBits", "popcount"),
	math(Firstbithigh, "firstbithigh", 1, KInteger, RUintShape0, ext(0, 74, 75, 0), "firstLeadingBit", "firstbithigh (via clz)"),
	math(Firstbitlow, "firstbitlow", 1, KInteger, RUintShape0, ext(0, 73, 73, 0), "firstTrailingBit", "firstbitlow (via ctz)"),
	math(Reversebits, "reversebits", 1, KUint, RSameAsArg0, SPIRV{Op: ops(0, 0, 204, 0)}, "reverseBits", "reverse_bits"),
	math(Asuint, "asuint", 1, KNumeric, RUintShape0, SPIRV{Op: ops(0, 124, 124, 124)}, "bitcast", "as_type"),
	math(Asint, "asint", 1, KNumeric, RSintShape0, SPIRV{Op: ops(0, 124, 124, 124)}, "bitcast", "as_type"),
	math(Asfloat, "asfloat", 1, KNumeric, RFloatShape0, SPIRV{Op: ops(0, 124, 124, 124)}, "bitcast", "as_type"),
	// asdouble(lowbits, highbits) and asuint(value, out lowbits, out highbits) move an
	// IEEE double through two uints bit-exactly. Sema lowers both to plain IR (an
	// OpBitcast between a double and a uint2, component 0 the low word, as DXC), so
	// no back end sees these ops; WGSL and Metal have no 64-bit float and reject the
	// double type itself.
	{Op: Asdouble, Name: "asdouble", Class: ClassMath, SM: "5.0", SemaOnly: true,
		Params: []Param{p("lowbits", KInteger, SScalarVector), p("highbits", KInteger, SScalarVector)}, Result: RSpecial,
		SPIRV:        SPIRV{Op: ops(0, 0, 124, 0), GroupOp: -1, QuadDirection: -1},
		WGSLLowering: "none: WGSL has no f64 (E0601)", MSLLowering: "none: Metal has no double (E0701)"},
	{Op: AsuintDouble, Name: "asuint", Class: ClassMath, SM: "5.0", SemaOnly: true,
		Params: []Param{p("value", KFloat, SScalarVector), outBits("lowbits"), outBits("highbits")}, Result: RVoid,
		SPIRV:        SPIRV{Op: ops(0, 0, 0, 124), GroupOp: -1, QuadDirection: -1},
		WGSLLowering: "none: WGSL has no f64 (E0601)", MSLLowering: "none: Metal has no double (E0701)"},
	math(F16tof32, "f16tof32", 1, KUint, RFloatShape0, ext(0, 0, 62, 0), "unpack2x16float", "as_type<half2>"),
	math(F32tof16, "f32tof16", 1, KFloat, RUintShape0, ext(0, 0, 0, 58), "pack2x16float", "as_type<uint>(half2)"),
	{Op: Mul, Name: "mul", Class: ClassMath, SM: "1.0", Params: []Param{p("x", KNumeric, SAll), p("y", KNumeric, SAll)}, Result: RSpecial,
		SPIRV: SPIRV{GroupOp: -1, QuadDirection: -1}, WGSL: "*", MSL: "*", WGSLLowering: "operands swapped: HLSL row-vector convention over column-major storage"},
	{Op: Ddx, Name: "ddx", Class: ClassDeriv, SM: "2.0", Params: []Param{p("x", KFloat, SScalarVector)}, Result: RSameAsArg0, PixelOnly: true,
		SPIRV: SPIRV{Op: ops(0, 0, 0, 207), GroupOp: -1, QuadDirection: -1}, WGSL: "dpdx", MSL: "dfdx"},
	{Op: Ddy, Name: "ddy", Class: ClassDeriv, SM: "2.0", Params: []Param{p("x", KFloat, SScalarVector)}, Result: RSameAsArg0, PixelOnly: true,
		SPIRV: SPIRV{Op: ops(0, 0, 0, 208), GroupOp: -1, QuadDirection: -1}, WGSL: "dpdy", MSL: "dfdy"},

	// --- Resource methods (sema resolves "Type.Method" calls to these) ------------------------------
	{Op: TextureSample, Name: "Texture2D.Sample", Class: ClassTexture, SM: "4.0", Result: RSpecial, PixelOnly: true,
		SPIRV: SPIRV{Op: ops(0, 87, 87, 87), GroupOp: -1, QuadDirection: -1}, WGSL: "textureSample", MSL: "sample"},
	{Op: TextureSampleLevel, Name: "Texture2D.SampleLevel", Class: ClassTexture, SM: "4.0", Result: RSpecial,
		SPIRV: SPIRV{Op: ops(0, 88, 88, 88), GroupOp: -1, QuadDirection: -1}, WGSL: "textureSampleLevel", MSL: "sample(level)"},
	{Op: TextureLoad, Name: "Texture2D.Load", Class: ClassTexture, SM: "4.0", Result: RSpecial,
		SPIRV: SPIRV{Op: ops(0, 95, 95, 95), GroupOp: -1, QuadDirection: -1}, WGSL: "textureLoad", MSL: "read", WGSLLowering: "RWTexture2D: OpImageRead (98)"},
	{Op: TextureStore, Name: "RWTexture2D.Store", Class: ClassTexture, SM: "5.0", Result: RVoid,
		SPIRV: SPIRV{Op: ops(0, 99, 99, 99), GroupOp: -1, QuadDirection: -1}, WGSL: "textureStore", MSL: "write"},
	{Op: TextureGetDimensions, Name: "Texture2D.GetDimensions", Class: ClassTexture, SM: "4.0", Result: RSpecial,
		SPIRV: SPIRV{Op: ops(0, 103, 103, 103), GroupOp: -1, QuadDirection: -1}, WGSL: "textureDimensions", MSL: "get_width/get_height", WGSLLowering: "RWTexture2D: OpImageQuerySize (104)"},
	{Op: BufferGetDimensions, Name: "Buffer.GetDimensions", Class: ClassMisc, SM: "5.0", Result: RSpecial,
		SPIRV: SPIRV{Op: ops(0, 68, 68, 68), GroupOp: -1, QuadDirection: -1}, WGSL: "arrayLength", MSL: "", MSLLowering: "buffer size from the argument-buffer sizes table"},

	// --- Shader Model 6.6 ------------------------------------------------------------------------
	// IsHelperLane: DXC accepts it in every stage; only pixel shaders have helper lanes, so
	// elsewhere every target gets the constant false. In pixel shaders, as DXC (processIsHelperLane):
	// OpIsHelperInvocationEXT (SPV_EXT_demote_to_helper_invocation) for Vulkan 1.1/1.2, a load of
	// the HelperInvocation builtin (Volatile, as SPIR-V 1.6 requires) for Vulkan 1.3. Not a wave
	// operation: no Vulkan subgroup feature bit. WGSL has no helper-invocation builtin (E0612).
	{Op: IsHelperLane, Name: "IsHelperLane", Class: ClassHelper, SM: "6.6", Result: RBool, FalseOutsidePixel: true,
		SPIRV: SPIRV{Op: ops(opIsHelperInvocationEXT, 0, 0, 0), GroupOp: -1, QuadDirection: -1,
			Builtin: builtinHelperInvocation, BuiltinSince: spirv16,
			Capability: CapDemoteToHelperInvocation, Extension: "SPV_EXT_demote_to_helper_invocation", CoreSince: spirv16},
		WGSLLowering: "none in fragment shaders: WGSL has no helper-invocation builtin (E0612); false elsewhere",
		MSL:          "simd_is_helper_thread"},

	// --- Shader Model 6.7 quad votes ----------------------------------------------------------
	// QuadAny/QuadAll(bool): scalar bool only (DXC's table has no vector overload). SPIR-V, as
	// DXC: with -fspv-extension=SPV_KHR_quad_control OpGroupNonUniformQuadAny/AllKHR (no scope
	// operand; capability QuadControlKHR); otherwise the predicate combined (or / and) with its
	// three OpGroupNonUniformQuadSwap (directions 0, 1, 2), capability GroupNonUniformQuad.
	// Both forms need the Quad subgroup feature bit (see CapabilityVkBit).
	quadVote(QuadAny, "QuadAny", VoteAny, opQuadAnyKHR, "quad_any"),
	quadVote(QuadAll, "QuadAll", VoteAll, opQuadAllKHR, "quad_all"),

	// --- Shader Model 6.5 amplification and mesh shaders (SPV_EXT_mesh_shader) ----------------
	// DispatchMesh(x, y, z, payload): amplification shaders only, called once per thread group
	// in uniform control flow. As DXC's SPIR-V manual says: a workgroup barrier
	// (OpControlBarrier Workgroup Workgroup AcquireRelease|WorkgroupMemory, the scopes and
	// semantics below) so every thread's payload writes are visible, then OpEmitMeshTasksEXT
	// x y z payload, a block terminator: the code after it is unreachable. The payload is the
	// groupshared struct, which sema moves into the TaskPayloadWorkgroupEXT storage class.
	// Metal takes the payload as the object_data argument and the group count through
	// mesh_grid_properties::set_threadgroups_per_grid, called by thread 0 after a
	// threadgroup barrier (compiler/msl/mesh.go: SPIR-V's first-invocation rule).
	{Op: DispatchMesh, Name: "DispatchMesh", Class: ClassMesh, SM: "6.5", Stages: StageAmplification,
		Params: []Param{lane("threadGroupCountX"), lane("threadGroupCountY"), lane("threadGroupCountZ"),
			{Name: "meshPayload", SameAs: -1, Place: true, Payload: true}},
		Result: RVoid,
		SPIRV: SPIRV{Op: ops(opEmitMeshTasksEXT, opEmitMeshTasksEXT, opEmitMeshTasksEXT, opEmitMeshTasksEXT), GroupOp: -1, QuadDirection: -1,
			Capability: CapMeshShadingEXT, Extension: "SPV_EXT_mesh_shader",
			ExecScope: 2, MemScope: 2, Semantics: 0x108},
		WGSLLowering: "none: WebGPU has no mesh shaders (E0614)",
		MSLLowering:  "Metal 3: threadgroup_barrier, then thread 0 calls mesh_grid_properties::set_threadgroups_per_grid; the payload is the [[payload]] object_data argument"},
	// SetMeshOutputCounts(numVertices, numPrimitives): mesh shaders only, before any output
	// is written (DXC does not check the order; neither does waverig). OpSetMeshOutputsEXT.
	// Metal's mesh<…> output has only set_primitive_count (the vertex count only bounds
	// which vertices the back end's gather hands over).
	{Op: SetMeshOutputCounts, Name: "SetMeshOutputCounts", Class: ClassMesh, SM: "6.5", Stages: StageMesh,
		Params: []Param{lane("numVertices"), lane("numPrimitives")},
		Result: RVoid,
		SPIRV: SPIRV{Op: ops(opSetMeshOutputsEXT, opSetMeshOutputsEXT, opSetMeshOutputsEXT, opSetMeshOutputsEXT), GroupOp: -1, QuadDirection: -1,
			Capability: CapMeshShadingEXT, Extension: "SPV_EXT_mesh_shader"},
		WGSLLowering: "none: WebGPU has no mesh shaders (E0614)",
		MSLLowering:  "Metal 3: set_primitive_count(numPrimitives) on the mesh<…> output; the vertex count bounds the set_vertex calls"},
}

func quadVote(op Op, name string, v Vote, khr uint16, msl string) Info {
	return Info{Op: op, Name: name, Class: ClassQuad, SM: "6.7", Params: []Param{p("expr", KBool, SScalar)}, Result: RBool,
		QuadVote: v,
		SPIRV: SPIRV{Op: ops(khr, 0, 0, 0), GroupOp: -1, QuadDirection: -1, Capability: CapQuadControlKHR,
			Extension: "SPV_KHR_quad_control", OptIn: true, Portable: CapGroupNonUniformQuad},
		VkBit:        VkQuad,
		WGSLLowering: "quad vote: the predicate as u32 combined with its quadSwapX, quadSwapY and quadSwapDiagonal",
		MSL:          msl}
}

func quad(op Op, name string, dir int8, wgsl, msl string) Info {
	return Info{Op: op, Name: name, Class: ClassQuad, SM: "6.0", Params: []Param{p("localValue", KNumeric, SScalarVector)}, Result: RSameAsArg0,
		SPIRV: SPIRV{Op: ops(0, opQuadSwap, opQuadSwap, opQuadSwap), GroupOp: -1, QuadDirection: dir, Capability: CapGroupNonUniformQuad},
		VkBit: VkQuad, WGSL: wgsl, MSL: "quad_shuffle_xor", MSLLowering: msl}
}

func partitioned(op Op, name string, extra []Param, sp SPIRV, bit uint32, r Result) Info {
	params := []Param{p("value", KNumeric, SScalarVector)}
	switch {
	case op == WaveMatch:
		params = []Param{p("value", KAny, SScalarVector)}
	case sp.CountsBool:
		params = []Param{p("value", KBool, SScalar)}
	}
	params = append(params, extra...)
	if sp.QuadDirection == 0 {
		sp.QuadDirection = -1
	}
	return Info{Op: op, Name: name, Class: ClassWave, SM: "6.5", Params: params, Result: r, SPIRV: sp, VkBit: bit,
		WGSLLowering: "not expressible: build groups with WaveActiveBallot and WaveReadLaneFirst in a loop",
		MSLLowering:  "not expressible: build groups with WaveActiveBallot and WaveReadLaneFirst in a loop"}
}

func barrier(op Op, name string, exec, mem int8, sem uint32, wgsl, msl string) Info {
	return Info{Op: op, Name: name, Class: ClassBarrier, SM: "5.0", Result: RVoid,
		SPIRV: SPIRV{Op: ops(0, 0, 0, 0), GroupOp: -1, QuadDirection: -1, ExecScope: exec, MemScope: mem, Semantics: sem},
		WGSL:  wgsl, WGSLLowering: barrierWGSL(wgsl), MSL: msl}
}

func barrierWGSL(name string) string {
	if name == "" {
		return "storageBarrier(); workgroupBarrier()"
	}
	return ""
}

func atomic(op Op, name string, o [4]uint16, wgsl, msl string) Info {
	return Info{Op: op, Name: name, Class: ClassAtomic, SM: "5.0",
		Params: []Param{place("dest", KInteger), p("value", KInteger, SScalar), out("original_value")},
		Result: RVoid, SPIRV: SPIRV{Op: o, GroupOp: -1, QuadDirection: -1}, WGSL: wgsl, MSL: msl}
}

func ext(b, s, u, f uint16) SPIRV {
	return SPIRV{Ext: [4]uint16{b, s, u, f}, GroupOp: -1, QuadDirection: -1}
}

func math(op Op, name string, nargs int, k Kinds, r Result, sp SPIRV, wgsl, msl string) Info {
	params := []Param{p("x", k, SScalarVector)}
	for i := 1; i < nargs; i++ {
		params = append(params, same(string(rune('x'+i)), 0))
	}
	sp.GroupOp, sp.QuadDirection = -1, -1
	return Info{Op: op, Name: name, Class: ClassMath, SM: "1.0", Params: params, Result: r, SPIRV: sp, WGSL: wgsl, MSL: msl}
}
