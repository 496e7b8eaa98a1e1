// Package intrinsics is the one table of HLSL intrinsics: for each one its HLSL
// signature (read by sema), its lowering on every target (read by the SPIR-V, WGSL
// and MSL back ends) and the Vulkan subgroup feature bit it needs (read by the
// reflection). Nothing else in the compiler may keep a per-intrinsic switch of
// names, opcodes or bits: add a column here instead.
//
// The wave/quad rows follow DXC's code (SpirvEmitter.cpp), not its doc table:
// WaveReadLaneAt is OpGroupNonUniformShuffle, WaveReadLaneFirst is BroadcastFirst
// (Ballot capability), prefix operations are ExclusiveScan.
package intrinsics

import "sync"

// Op identifies an intrinsic. The zero Op is invalid.
type Op uint16

// Class groups intrinsics by what kind of lowering they need.
type Class uint8

const (
	ClassWave    Class = iota + 1 // subgroup operation (GroupNonUniform*)
	ClassQuad                     // quad operation (GroupNonUniformQuad)
	ClassBarrier                  // control/memory barrier
	ClassAtomic                   // Interlocked* (first argument is a place)
	ClassMath                     // component-wise math and bit operations
	ClassTexture                  // texture/sampler methods
	ClassDeriv                    // ddx/ddy (pixel only)
	ClassMisc
	ClassHelper // per-invocation pixel state (IsHelperLane): no operands, see Info.FalseOutsidePixel
	ClassMesh   // amplification/mesh pipeline control (DispatchMesh, SetMeshOutputCounts)
)

// StageMask is a set of shader stages, for the stages an intrinsic is valid in
// (Info.Stages). The bit of a stage is 1 << (ir.Stage - 1); ir.Stage.Mask gives it.
type StageMask uint8

const (
	StageCompute StageMask = 1 << iota
	StagePixel
	StageVertex
	StageAmplification
	StageMesh
)

// Kinds is a bit set of scalar kinds an argument may have.
type Kinds uint8

const (
	KBool    Kinds = 1 << iota
	KInt           // signed integers (int, int64_t)
	KUint          // unsigned integers (uint, uint64_t)
	KFloat         // half, float, double
	KNumeric = KInt | KUint | KFloat
	KAny     = KBool | KNumeric
	KInteger = KInt | KUint
)

// Shapes is a bit set of the shapes an argument may have.
type Shapes uint8

const (
	SScalar Shapes = 1 << iota
	SVector
	SMatrix
	SScalarVector = SScalar | SVector
	SAll          = SScalar | SVector | SMatrix
)

// Param describes one HLSL parameter of an intrinsic.
type Param struct {
	Name   string
	Kinds  Kinds
	Shapes Shapes
	// SameAs >= 0 means: after promotion this argument has the same type as parameter SameAs
	// (HLSL's template-style "same type as the first argument" rule). -1: independent.
	SameAs int
	// Scalar32 forces a 32-bit scalar (lane indices, byte offsets).
	Scalar32 bool
	// Place: the argument is an lvalue (atomic destination, out parameter).
	Place bool
	// Out: written by the intrinsic (e.g. original_value of InterlockedAdd).
	Out bool
	// Required: an Out parameter the call must pass (asuint's lowbits/highbits);
	// without it a trailing Out parameter may be left off (InterlockedAdd's
	// original_value).
	Required bool
	// N, for a vector parameter, is the component count it must have (4: the uint4
	// mask of the partitioned operations); 0: any.
	N int
	// Payload: the argument is a whole groupshared variable of struct type, the
	// amplification shader's payload (DispatchMesh's fourth argument); Kinds and
	// Shapes do not apply. Sema moves the variable into the task-payload space.
	Payload bool
}

// Result says how the result type is formed.
type Result uint8

const (
	RVoid        Result = iota
	RSameAsArg0         // the (promoted) type of argument 0
	RBoolShape0         // bool with the shape of argument 0 (per-component AllEqual)
	RBool               // scalar bool
	RUint               // scalar uint
	RUint4              // uint4 (ballot)
	RFloatScalar        // scalar of arg 0's float type (dot, length)
	RIntShape0          // int with the shape of argument 0 (sign)
	RUintShape0         // uint with the shape of argument 0 (countbits, firstbit*, asuint)
	RSintShape0         // int with the shape of argument 0 (asint)
	RFloatShape0        // float with the shape of argument 0 (asfloat, f16tof32)
	RFloat4             // float4 (texture sample; texture element type in practice)
	RSpecial            // sema computes it (mul, asdouble, Load2/3/4, GetDimensions…)
)

// Vote is the reduction of a quad vote (Info.QuadVote).
type Vote uint8

const (
	VoteNone Vote = iota
	VoteAny       // QuadAny: true if the operand is true in any lane of the quad
	VoteAll       // QuadAll: true if the operand is true in all lanes of the quad
)

// SPIRV says how the SPIR-V back end lowers an intrinsic.
type SPIRV struct {
	// Opcode per scalar kind of the operand (the result type for ops without operands).
	// Zero means "not valid for that kind". Index with ir.ScalarKind (Bool, Sint, Uint, Float).
	Op [4]uint16
	// GLSLStd450 extended-instruction number per scalar kind, when the op is an OpExtInst.
	Ext [4]uint16
	// GroupOp is the GroupOperation operand (Reduce 0, InclusiveScan 1, ExclusiveScan 2), or -1.
	GroupOp int8
	// QuadDirection is the QuadSwap Direction operand (0 X, 1 Y, 2 diagonal), or -1.
	QuadDirection int8
	// PerComponent: emit once per vector component and recombine (AllEqual).
	PerComponent bool
	// ViaBallot: the predicate is first reduced with OpGroupNonUniformBallot (CountBits).
	ViaBallot bool
	// CountsBool: the bool predicate is counted: the instruction (Op[Bool]) runs on
	// it as 1u or 0u (OpSelect) and yields a uint (WaveMultiPrefixCountBits, whose
	// partitioned scan has no ballot form).
	CountsBool bool
	// Builtin: the value is a load of this SPIR-V BuiltIn (SubgroupSize 36,
	// SubgroupLocalInvocationId 41, HelperInvocation 23); 0 if not a builtin.
	Builtin uint16
	// BuiltinSince: the SPIR-V version word from which the value is the Builtin load;
	// before it the row's instruction (Op) is emitted instead. 0: always the Builtin.
	// (IsHelperLane, as DXC: OpIsHelperInvocationEXT before SPIR-V 1.6, a load of the
	// Volatile HelperInvocation builtin from 1.6 on.)
	BuiltinSince uint32
	// Capability is the SPIR-V capability the instruction needs (GroupNonUniform 61 …
	// Quad 68, DemoteToHelperInvocation 5379); the reflection turns declared
	// capabilities into Vulkan bits. Declared only when the instruction is emitted.
	Capability uint16
	// Extension is the SPIR-V extension the Capability needs before CoreSince (the
	// version word in which it became core); "" if none.
	Extension string
	CoreSince uint32
	// OptIn: Op (with Capability and Extension) is emitted only when Extension is
	// enabled (-fspv-extension=NAME); otherwise the row's portable lowering, which
	// needs the capability Portable (quad votes: the predicate combined with its
	// three OpGroupNonUniformQuadSwap, see Info.QuadVote).
	OptIn    bool
	Portable uint16
	// Barriers: execution scope (-1: OpMemoryBarrier, no execution barrier), memory
	// scope and memory-semantics bits, as DXC emits them.
	ExecScope, MemScope int8
	Semantics           uint32
}

// Info is one row of the table.
type Info struct {
	Op     Op
	Name   string // HLSL spelling
	Class  Class
	SM     string // shader model that introduced it ("6.0")
	Params []Param
	Result Result
	// PixelOnly: valid in pixel shaders only (derivatives, implicit-LOD sampling); E0409-style
	// errors elsewhere (ErrPixelOnly).
	PixelOnly bool
	// Stages the intrinsic is valid in, as DXC says; 0 = every stage. Sema reports a call
	// reachable from an entry point of another stage (ErrIntrinsicStage): DispatchMesh is
	// amplification only, SetMeshOutputCounts mesh only.
	Stages StageMask
	// FalseOutsidePixel: valid in every stage, but outside pixel shaders the value is the
	// constant false on every target (IsHelperLane: only pixel shaders have helper lanes).
	FalseOutsidePixel bool
	// QuadVote marks the SM 6.7 quad votes: the result is the OR (VoteAny) or AND
	// (VoteAll) of the bool operand over the four lanes of the quad. Back ends
	// without a quad vote combine the value with its three quad swaps.
	QuadVote Vote
	// SemaOnly: sema rewrites every call into plain IR (Construct, Bitcast, stores),
	// so no back end ever sees an ir.Intrinsic of this op; ir.Validate rejects one and
	// the back ends' table tests leave the row out (asdouble, asuint's double form).
	SemaOnly bool

	SPIRV SPIRV
	// VkBit is the VkSubgroupFeatureFlagBits bit the SPIR-V lowering needs (0 for non-wave ops).
	// It must agree with SPIRV.Capability; a test checks CapabilityVkBit(Capability) == VkBit.
	VkBit uint32

	// WGSL is the WGSL builtin function name when the lowering is one call; WGSLLowering
	// names a lowering the WGSL back end implements (see docs/ARCHITECTURE.md) when not.
	WGSL         string
	WGSLLowering string
	// MSL is the Metal function name when the lowering is one call; MSLLowering otherwise.
	MSL         string
	MSLLowering string
}

// SPIR-V capability numbers used by wave/quad intrinsics.
const (
	CapGroupNonUniform                uint16 = 61
	CapGroupNonUniformVote            uint16 = 62
	CapGroupNonUniformArithmetic      uint16 = 63
	CapGroupNonUniformBallot          uint16 = 64
	CapGroupNonUniformShuffle         uint16 = 65
	CapGroupNonUniformShuffleRelative uint16 = 66
	CapGroupNonUniformClustered       uint16 = 67
	CapGroupNonUniformQuad            uint16 = 68
	CapGroupNonUniformPartitionedNV   uint16 = 5297
	CapDemoteToHelperInvocation       uint16 = 5379 // core in SPIR-V 1.6
	CapQuadControlKHR                 uint16 = 5087 // SPV_KHR_quad_control (QuadAny/QuadAll)
	CapMeshShadingEXT                 uint16 = 5283 // SPV_EXT_mesh_shader (TaskEXT/MeshEXT, DispatchMesh, SetMeshOutputCounts)
)

// VkSubgroupFeatureFlagBits.
const (
	VkBasic           uint32 = 0x1
	VkVote            uint32 = 0x2
	VkArithmetic      uint32 = 0x4
	VkBallot          uint32 = 0x8
	VkShuffle         uint32 = 0x10
	VkShuffleRelative uint32 = 0x20
	VkClustered       uint32 = 0x40
	VkQuad            uint32 = 0x80
	VkPartitionedNV   uint32 = 0x100
)

// VkBitNames lists the bits in the order the reflection line prints them.
var VkBitNames = []struct {
	Bit  uint32
	Name string
}{
	{VkBasic, "Basic"}, {VkVote, "Vote"}, {VkArithmetic, "Arithmetic"}, {VkBallot, "Ballot"},
	{VkShuffle, "Shuffle"}, {VkShuffleRelative, "ShuffleRelative"}, {VkClustered, "Clustered"},
	{VkQuad, "Quad"}, {VkPartitionedNV, "PartitionedNV"},
}

// CapabilityVkBit maps a declared SPIR-V capability to its Vulkan subgroup feature bit
// (0 if the capability is not a subgroup one). One bit per declared capability: Quad
// alone gives 0x80 (the implicit GroupNonUniform is not counted, as in the seed).
func CapabilityVkBit(cap uint16) uint32 {
	switch cap {
	case CapGroupNonUniform:
		return VkBasic
	case CapGroupNonUniformVote:
		return VkVote
	case CapGroupNonUniformArithmetic:
		return VkArithmetic
	case CapGroupNonUniformBallot:
		return VkBallot
	case CapGroupNonUniformShuffle:
		return VkShuffle
	case CapGroupNonUniformShuffleRelative:
		return VkShuffleRelative
	case CapGroupNonUniformClustered:
		return VkClustered
	case CapGroupNonUniformQuad:
		return VkQuad
	case CapQuadControlKHR:
		// Not a subgroup feature bit of its own (Vulkan enables it with the device
		// feature shaderQuadControl of VK_KHR_shader_quad_control; the module names
		// the extension): its instructions are quad operations, so a device must
		// also have the Quad bit, as for the QuadSwap form of the same intrinsics.
		return VkQuad
	case CapGroupNonUniformPartitionedNV:
		return VkPartitionedNV
	}
	return 0
}

// index holds the lookup maps over Table. They are built on first use rather
// than in init so that a process that never compiles (waverig help, devices …)
// does not pay for them at start-up.
type index struct {
	byName map[string][]*Info
	byOp   map[Op]*Info
}

var tableIndex = sync.OnceValue(func() *index {
	ix := &index{byName: make(map[string][]*Info, len(Table)), byOp: make(map[Op]*Info, len(Table))}
	for i := range Table {
		in := &Table[i]
		// HLSL overloads a name only by argument count here (asuint(x) and
		// asuint(d, out lo, out hi)): two rows a call of some count could both match
		// are a table bug.
		for _, o := range ix.byName[in.Name] {
			lo, hi := in.Arity()
			olo, ohi := o.Arity()
			if lo <= ohi && olo <= hi {
				panic("intrinsics: overlapping overloads of " + in.Name)
			}
		}
		ix.byName[in.Name] = append(ix.byName[in.Name], in)
		ix.byOp[in.Op] = in
	}
	return ix
})

// Arity is the fewest and most arguments a call of the row takes: trailing Out
// parameters that are not Required may be left off.
func (in *Info) Arity() (lo, hi int) {
	lo = len(in.Params)
	for lo > 0 && in.Params[lo-1].Out && !in.Params[lo-1].Required {
		lo--
	}
	return lo, len(in.Params)
}

// Lookup finds an intrinsic by its HLSL name (free functions; methods are named
// "Type.Method", e.g. "RWByteAddressBuffer.InterlockedAdd"). For an overloaded
// name it is the first row; Overloads lists them all.
func Lookup(name string) (*Info, bool) {
	rows := tableIndex().byName[name]
	if len(rows) == 0 {
		return nil, false
	}
	return rows[0], true
}

// Overloads lists the rows spelled name, in table order (one for most names).
func Overloads(name string) []*Info {
	return tableIndex().byName[name]
}

// Get returns the row of an Op. It panics on an Op not in the table (a compiler bug).
func Get(op Op) *Info {
	in, ok := tableIndex().byOp[op]
	if !ok {
		panic("intrinsics: unknown op")
	}
	return in
}

func (op Op) String() string {
	if in, ok := tableIndex().byOp[op]; ok {
		return in.Name
	}
	return "Op(?)"
}
