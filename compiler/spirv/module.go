// Package spirv is the compiler's SPIR-V back end: it turns one entry point of an
// *ir.Module into a SPIR-V binary module for Vulkan (SPIR-V 1.3, 1.5 or 1.6),
// with the capabilities the emitted instructions need and nothing more.
//
// Design in short:
//   - One pass over the reachable IR writes instructions into section buffers
//     (names, decorations, types/constants/globals, functions); types and
//     constants are created on first use and deduplicated, so the module holds
//     only what the entry point needs. The sections are concatenated at the end in
//     the SPIR-V logical order behind the header.
//   - Values and Function/Private/Workgroup/IO storage use plain types; only
//     the types inside Uniform, StorageBuffer and PushConstant blocks carry
//     explicit layout (ArrayStride, Offset, MatrixStride from the IR layout).
//     Aggregates are converted between the two forms on buffer loads and
//     stores (OpCopyLogical from SPIR-V 1.4, member-wise before).
//   - Every capability is recorded by the code that emits the instruction or type
//     needing it (see needCap); Module.Capabilities and Module.SubgroupBits are
//     derived from that one record, so the module and the reflection agree.
//   - Wave, quad, barrier, atomic and math intrinsics are lowered from the
//     intrinsics table's SPIRV column (opcode per scalar kind, GLSL.std.450
//     number, group operation, quad direction, flags); this package keeps no
//     per-intrinsic opcode list.
//   - IR statement trees map onto SPIR-V structured control flow: If ->
//     OpSelectionMerge, Loop -> OpLoopMerge with a real continue block, Switch ->
//     OpSwitch with fall-through in case order. Statements after a terminator
//     (return, break, continue, discard) are unreachable and not emitted; merge
//     blocks no path reaches end in OpUnreachable.
//   - A cbuffer or push-constant struct gets its own Block-decorated struct type,
//     so the same IR struct can also be a buffer element without nesting blocks.
//
// IR conventions this back end defines for RSpecial intrinsics (sema builds them):
//   - Texture2D.Sample:        [tex, sampler, uv]            -> Elem vector (T may have fewer components)
//   - Texture2D.SampleLevel:   [tex, sampler, uv, lod]
//   - Texture2D.Load:          [tex, int3(x, y, mip)] or [tex, int2]; RWTexture2D: [tex, int2] (OpImageRead)
//   - RWTexture2D.Store:       [tex, int2, value]
//   - Texture2D.GetDimensions: [tex] or [tex, mip] -> uint2 (width, height); with T void, trailing
//     places receive width, height (and the mip count for sampled textures).
//   - Buffer.GetDimensions:    [buffer] -> u32, the runtime array length in elements.
package spirv

import (
	"encoding/binary"
	"sort"

	"waverig/compiler/diag"
	"waverig/compiler/intrinsics"
	"waverig/compiler/ir"
)

// Options select the target.
type Options struct {
	Vulkan        string // "1.1" -> SPIR-V 1.3, "1.2" (default "") -> SPIR-V 1.5, "1.3" -> SPIR-V 1.6
	PartitionedNV bool   // SPV_NV_shader_subgroup_partitioned enabled
	// Extensions lists the opt-in extensions enabled with -fspv-extension=NAME: an
	// intrinsics row with SPIRV.OptIn uses its Extension's instruction only when the
	// extension is listed here (SPV_KHR_quad_control for QuadAny/QuadAll).
	Extensions []string
}

func (o Options) enabled(ext string) bool {
	for _, e := range o.Extensions {
		if e == ext {
			return true
		}
	}
	return false
}

// Module is one emitted SPIR-V module.
type Module struct {
	Words        []uint32
	Capabilities []uint16 // exactly the capabilities declared, derived from the emitted instructions
	Extensions   []string
	// SubgroupBits is the OR of intrinsics.CapabilityVkBit over the Capabilities
	// instructions need (not over one only an execution mode needs: the
	// QuadControlKHR of [WaveOpsIncludeHelperLanes] asks for no quad operation).
	SubgroupBits uint32
}

// Bytes returns the little-endian byte form (what .spv files hold).
func (m *Module) Bytes() []byte {
	out := make([]byte, 4*len(m.Words))
	for i, w := range m.Words {
		binary.LittleEndian.PutUint32(out[4*i:], w)
	}
	return out
}

// SPIR-V enumerants and opcodes the emitter writes itself (the intrinsic opcodes
// come from the intrinsics table).
const (
	magic = 0x07230203

	opNop                   = 0
	opUndef                 = 1
	opName                  = 5
	opMemberName            = 6
	opExtension             = 10
	opExtInstImport         = 11
	opExtInst               = 12
	opMemoryModel           = 14
	opEntryPoint            = 15
	opExecutionMode         = 16
	opCapability            = 17
	opTypeVoid              = 19
	opTypeBool              = 20
	opTypeInt               = 21
	opTypeFloat             = 22
	opTypeVector            = 23
	opTypeMatrix            = 24
	opTypeImage             = 25
	opTypeSampler           = 26
	opTypeSampledImage      = 27
	opTypeArray             = 28
	opTypeRuntimeArray      = 29
	opTypeStruct            = 30
	opTypePointer           = 32
	opTypeFunction          = 33
	opConstantTrue          = 41
	opConstantFalse         = 42
	opConstant              = 43
	opConstantComposite     = 44
	opSpecConstantTrue      = 48
	opSpecConstantFalse     = 49
	opSpecConstant          = 50
	opFunction              = 54
	opFunctionParameter     = 55
	opFunctionEnd           = 56
	opFunctionCall          = 57
	opVariable              = 59
	opLoad                  = 61
	opStore                 = 62
	opAccessChain           = 65
	opArrayLength           = 68
	opDecorate              = 71
	opMemberDecorate        = 72
	opVectorExtractDyn      = 77
	opVectorShuffle         = 79
	opCompositeConstruct    = 80
	opCompositeExtract      = 81
	opCopyLogical           = 400
	opSampledImage          = 86
	opImageRead             = 98
	opImageQuerySize        = 104
	opImageQueryLevels      = 106
	opConvertFToU           = 109
	opConvertFToS           = 110
	opConvertSToF           = 111
	opConvertUToF           = 112
	opUConvert              = 113
	opSConvert              = 114
	opFConvert              = 115
	opBitcast               = 124
	opSNegate               = 126
	opFNegate               = 127
	opIAdd                  = 128
	opFAdd                  = 129
	opISub                  = 130
	opFSub                  = 131
	opIMul                  = 132
	opFMul                  = 133
	opUDiv                  = 134
	opSDiv                  = 135
	opFDiv                  = 136
	opUMod                  = 137
	opSRem                  = 138
	opFRem                  = 140
	opVectorTimesScalar     = 142
	opMatrixTimesScalar     = 143
	opVectorTimesMatrix     = 144
	opMatrixTimesVector     = 145
	opMatrixTimesMatrix     = 146
	opDot                   = 148
	opAny                   = 154
	opAll                   = 155
	opLogicalEqual          = 164
	opLogicalNotEqual       = 165
	opLogicalOr             = 166
	opLogicalAnd            = 167
	opLogicalNot            = 168
	opSelect                = 169
	opIEqual                = 170
	opINotEqual             = 171
	opUGreaterThan          = 172
	opSGreaterThan          = 173
	opUGreaterThanEqual     = 174
	opSGreaterThanEqual     = 175
	opULessThan             = 176
	opSLessThan             = 177
	opULessThanEqual        = 178
	opSLessThanEqual        = 179
	opFOrdEqual             = 180
	opFUnordNotEqual        = 183
	opFOrdLessThan          = 184
	opFOrdGreaterThan       = 186
	opFOrdLessThanEqual     = 188
	opFOrdGreaterThanEqual  = 190
	opShiftRightLogical     = 194
	opShiftRightArith       = 195
	opShiftLeftLogical      = 196
	opBitwiseOr             = 197
	opBitwiseXor            = 198
	opBitwiseAnd            = 199
	opNot                   = 200
	opControlBarrier        = 224
	opMemoryBarrier         = 225
	opLoopMerge             = 246
	opSelectionMerge        = 247
	opLabel                 = 248
	opBranch                = 249
	opBranchConditional     = 250
	opSwitch                = 251
	opKill                  = 252
	opReturn                = 253
	opReturnValue           = 254
	opUnreachable           = 255
	opTerminateInvocation   = 4416
	opGroupNonUniformBallot = 339
	opNonUniformQuadSwap    = 366

	// Capabilities.
	capShader                 = 1
	capFloat16                = 9
	capFloat64                = 10
	capInt64                  = 11
	capInt64Atomics           = 12
	capInt16                  = 22
	capSampleRateShading      = 35
	capImageQuery             = 50
	capStorageImageReadNoFmt  = 55
	capStorageImageWriteNoFmt = 56
	capStorageBuffer16        = 4433
	capUniformStorage16       = 4434
	capPushConstant16         = 4435
	capInputOutput16          = 4436

	// BuiltIns without an IR global (loaded by intrinsics, see builtinVar).
	builtinHelperInvocation = 23
	builtinSubgroupSize     = 36

	// Storage classes.
	scUniformConstant = 0
	scInput           = 1
	scUniform         = 2
	scOutput          = 3
	scWorkgroup       = 4
	scPrivate         = 6
	scFunction        = 7
	scPushConstant    = 9
	scStorageBuffer   = 12
	// scTaskPayload is TaskPayloadWorkgroupEXT (SPV_EXT_mesh_shader): the
	// amplification-to-mesh payload.
	scTaskPayload = 5402

	// Decorations.
	decSpecID        = 1
	decBlock         = 2
	decRowMajor      = 4
	decColMajor      = 5
	decArrayStride   = 6
	decMatrixStride  = 7
	decBuiltIn       = 11
	decFlat          = 14
	decVolatile      = 21
	decNonWritable   = 24
	decLocation      = 30
	decBinding       = 33
	decDescriptorSet = 34
	decOffset        = 35
	decPerPrimitive  = 5271 // PerPrimitiveEXT: a mesh shader's per-primitive outputs

	// Scopes.
	scopeDevice    = 1
	scopeWorkgroup = 2
	scopeSubgroup  = 3

	// GroupOperation values that need the partitioned capability (PartitionedReduceNV..ExclusiveScanNV).
	groupOpPartitionedFirst = 6
	groupOpPartitionedLast  = 8

	extPartitioned = "SPV_NV_shader_subgroup_partitioned"

	// [WaveOpsIncludeHelperLanes]: execution modes, their extensions and capability.
	modeOriginUpperLeft         = 7
	modeLocalSize               = 17
	modeRequireFullQuadsKHR     = 5089 // SPV_KHR_quad_control, capability QuadControlKHR
	modeMaximallyReconvergesKHR = 6023 // SPV_KHR_maximal_reconvergence, no capability
	extQuadControl              = "SPV_KHR_quad_control"
	extMaximalReconvergence     = "SPV_KHR_maximal_reconvergence"

	// Amplification (task) and mesh shaders: SPV_EXT_mesh_shader, SPIR-V 1.4 or later.
	extMeshShader          = "SPV_EXT_mesh_shader"
	modelTaskEXT           = 5364
	modelMeshEXT           = 5365
	modeOutputVertices     = 26
	modeOutputLinesEXT     = 5269
	modeOutputPrimitives   = 5270
	modeOutputTrianglesEXT = 5298
	spirv14                = 0x00010400
)

// inst appends one instruction (opcode + operands) to a section.
func inst(sec *[]uint32, op uint16, operands ...uint32) {
	*sec = append(*sec, uint32(len(operands)+1)<<16|uint32(op))
	*sec = append(*sec, operands...)
}

// appendString appends a literal string: UTF-8, NUL-terminated, zero-padded to a word.
func appendString(sec []uint32, s string) []uint32 {
	n := len(s)/4 + 1
	for i := 0; i < n; i++ {
		var w uint32
		for j := 0; j < 4; j++ {
			k := 4*i + j
			if k < len(s) {
				w |= uint32(s[k]) << (8 * j)
			}
		}
		sec = append(sec, w)
	}
	return sec
}

// instStr appends an instruction whose operands are leading words, a string, then trailing words.
func instStr(sec *[]uint32, op uint16, lead []uint32, s string, trail ...uint32) {
	start := len(*sec)
	*sec = append(*sec, 0)
	*sec = append(*sec, lead...)
	*sec = appendString(*sec, s)
	*sec = append(*sec, trail...)
	(*sec)[start] = uint32(len(*sec)-start)<<16 | uint32(op)
}

// builder holds module-level state: sections, ids, the type and constant caches
// and the capability record.
type builder struct {
	version uint32
	opts    Options
	nextID  uint32

	names, decos, globals []uint32 // debug names, annotations, types+constants+globals
	funcs                 []uint32

	caps []uint16
	// modeCaps are the capabilities of caps that only an execution mode needs
	// (QuadControlKHR for RequireFullQuadsKHR): no instruction of the module is a
	// subgroup operation because of them, so they add no SubgroupBits.
	modeCaps []uint16
	exts     []string
	glsl     uint32 // GLSL.std.450 import id (0 = not used)

	// Type caches. Scalars and vectors are indexed directly; the rest are short
	// slices searched linearly (a compile declares a few dozen types at most).
	scalarIDs [4][4]uint32    // [kind][width class 8/16/32/64]
	vectorIDs [4][4][5]uint32 // [kind][width][n]
	voidID    uint32
	samplerID uint32
	types     []typeEntry
	structs   []structEntry
	consts    []constEntry
	fnTypes   []fnTypeEntry
	// constIndex and constIDs index consts once it outgrows constsBuf: a
	// function with thousands of distinct literals made the linear search
	// quadratic (issue 7). nil while consts is short.
	constIndex map[constKey]int
	constIDs   map[uint32]bool

	// Initial backing arrays of the caches above, and scratch space for the
	// function bodies: part of the one builder allocation instead of a series
	// of small slices grown by append.
	typesBuf  [24]typeEntry
	constsBuf [24]constEntry
	bodyBuf   []uint32 // reused body of the function being emitted
	varsBuf   []uint32 // reused variable section of the function being emitted

	stage   ir.Stage
	gvars   []gvar
	extraIO []extraVar
	fnIDs   []fnID

	errs []diag.Msg
	pos  diag.Pos // position of the intrinsic or call being lowered, for messages
}

type typeEntry struct {
	op         uint16
	a, b, c, d uint32
	id         uint32
}

type structEntry struct {
	s        *ir.Struct
	explicit bool   // the explicit-layout form (member Offsets) used inside buffer blocks
	wrapElem uint32 // for runtime-array wrapper structs: the array type id (s is nil)
	block    bool
	id       uint32
}

type constEntry struct {
	op    uint16
	typ   uint32
	bits  uint64
	parts []uint32 // composite constants only
	id    uint32
}

// constKey is constIndex's key: a scalar constant's exact value, or for a
// composite a hash of its parts (a hash collision falls back to the search).
type constKey struct {
	op   uint16
	typ  uint32
	bits uint64
}

func (c *constEntry) key() constKey {
	if c.op != opConstantComposite {
		return constKey{c.op, c.typ, c.bits}
	}
	return constKey{c.op, c.typ, hashWords(c.parts)}
}

func hashWords(w []uint32) uint64 {
	h := uint64(14695981039346656037) // FNV-1a
	for _, x := range w {
		h = (h ^ uint64(x)) * 1099511628211
	}
	return h
}

// findConst returns the index of the constant equal to c, or -1.
func (b *builder) findConst(c *constEntry) int {
	if b.constIndex != nil {
		i, ok := b.constIndex[c.key()]
		if !ok {
			return -1
		}
		if e := &b.consts[i]; c.op != opConstantComposite || equalWords(e.parts, c.parts) {
			return i
		}
		// A composite whose parts' hash collides: search.
	}
	for i := range b.consts {
		e := &b.consts[i]
		if e.op == c.op && e.typ == c.typ && e.bits == c.bits && (c.op != opConstantComposite || equalWords(e.parts, c.parts)) {
			return i
		}
	}
	return -1
}

// addConst records a new constant; once consts outgrows constsBuf it is indexed.
func (b *builder) addConst(c constEntry) {
	b.consts = append(b.consts, c)
	switch {
	case b.constIndex != nil:
		b.indexConst(len(b.consts) - 1)
	case len(b.consts) > len(b.constsBuf):
		b.constIndex = make(map[constKey]int, 2*len(b.consts))
		b.constIDs = make(map[uint32]bool, 2*len(b.consts))
		for i := range b.consts {
			b.indexConst(i)
		}
	}
}

func (b *builder) indexConst(i int) {
	e := &b.consts[i]
	k := e.key()
	if _, dup := b.constIndex[k]; !dup {
		b.constIndex[k] = i // the first of colliding composites; findConst searches for the rest
	}
	b.constIDs[e.id] = true
}

func (b *builder) id() uint32 {
	b.nextID++
	return b.nextID
}

// needCap records a capability (once). Shader implicitly declares Matrix; the
// capabilities are sorted when the module is assembled.
func (b *builder) needCap(c uint16) {
	for _, have := range b.caps {
		if have == c {
			return
		}
	}
	b.caps = append(b.caps, c)
}

// needModeCap records a capability an execution mode needs. The modes are
// emitted after the functions, so a capability an instruction already declared
// stays an instruction's (and keeps its subgroup bit).
func (b *builder) needModeCap(c uint16) {
	for _, have := range b.caps {
		if have == c {
			return
		}
	}
	b.caps = append(b.caps, c)
	b.modeCaps = append(b.modeCaps, c)
}

func (b *builder) needExt(e string) {
	for _, have := range b.exts {
		if have == e {
			return
		}
	}
	b.exts = append(b.exts, e)
}

// glslID returns the GLSL.std.450 import id, reserving it on first use.
func (b *builder) glslID() uint32 {
	if b.glsl == 0 {
		b.glsl = b.id()
	}
	return b.glsl
}

// lookupType finds or creates a non-aggregate type (or pointer/function type)
// keyed by its opcode and up to four operand words.
func (b *builder) lookupType(op uint16, a, bb, c, d uint32, operands ...uint32) uint32 {
	for i := range b.types {
		t := &b.types[i]
		if t.op == op && t.a == a && t.b == bb && t.c == c && t.d == d {
			return t.id
		}
	}
	id := b.id()
	// inst(&b.globals, op, id, operands...), without building the operand slice.
	b.globals = append(b.globals, uint32(len(operands)+2)<<16|uint32(op), id)
	b.globals = append(b.globals, operands...)
	b.types = append(b.types, typeEntry{op, a, bb, c, d, id})
	return id
}

func widthClass(bits int) int {
	switch bits {
	case 8:
		return 0
	case 16:
		return 1
	case 64:
		return 3
	}
	return 2
}

func (b *builder) voidType() uint32 {
	if b.voidID == 0 {
		b.voidID = b.id()
		inst(&b.globals, opTypeVoid, b.voidID)
	}
	return b.voidID
}

// scalarType declares bool/int/float types and records the width capabilities.
func (b *builder) scalarType(s ir.Scalar) uint32 {
	k, w := int(s.Kind)&3, widthClass(s.Bits)
	if s.Kind == ir.Bool {
		w = 2
	}
	if id := b.scalarIDs[k][w]; id != 0 {
		return id
	}
	id := b.id()
	switch s.Kind {
	case ir.Bool:
		inst(&b.globals, opTypeBool, id)
	case ir.Sint, ir.Uint:
		signed := uint32(0)
		if s.Kind == ir.Sint {
			signed = 1
		}
		inst(&b.globals, opTypeInt, id, uint32(s.Bits), signed)
		switch s.Bits {
		case 64:
			b.needCap(capInt64)
		case 16:
			b.needCap(capInt16)
		}
	default:
		inst(&b.globals, opTypeFloat, id, uint32(s.Bits))
		switch s.Bits {
		case 64:
			b.needCap(capFloat64)
		case 16:
			b.needCap(capFloat16)
		}
	}
	b.scalarIDs[k][w] = id
	return id
}

func (b *builder) vectorType(s ir.Scalar, n int) uint32 {
	if n < 2 || n > 4 {
		return b.scalarType(s)
	}
	k, w := int(s.Kind)&3, widthClass(s.Bits)
	if s.Kind == ir.Bool {
		w = 2
	}
	if id := b.vectorIDs[k][w][n]; id != 0 {
		return id
	}
	elem := b.scalarType(s)
	id := b.id()
	inst(&b.globals, opTypeVector, id, elem, uint32(n))
	b.vectorIDs[k][w][n] = id
	return id
}

func (b *builder) pointerType(sc uint32, pointee uint32) uint32 {
	return b.lookupType(opTypePointer, sc, pointee, 0, 0, sc, pointee)
}

func (b *builder) u32Type() uint32 { return b.scalarType(ir.U32) }

// constant returns the id of a scalar OpConstant (deduplicated). bits holds the
// value in the IR's Const encoding.
func (b *builder) constant(s ir.Scalar, bits uint64) uint32 {
	t := b.scalarType(s)
	op := uint16(opConstant)
	if s.Kind == ir.Bool {
		op = opConstantFalse
		if bits != 0 {
			op = opConstantTrue
		}
		bits = 0
	} else {
		switch s.Bits {
		case 32:
			bits &= 0xffffffff
		case 16:
			bits &= 0xffff
			if s.Kind == ir.Sint && bits&0x8000 != 0 {
				bits |= 0xffff0000 // 16-bit signed literals are sign-extended to a word
			}
		}
	}
	if i := b.findConst(&constEntry{op: op, typ: t, bits: bits}); i >= 0 {
		return b.consts[i].id
	}
	id := b.id()
	switch {
	case op != opConstant:
		inst(&b.globals, op, t, id)
	case s.Bits == 64:
		inst(&b.globals, op, t, id, uint32(bits), uint32(bits>>32))
	default:
		inst(&b.globals, op, t, id, uint32(bits))
	}
	b.addConst(constEntry{op: op, typ: t, bits: bits, id: id})
	return id
}

func (b *builder) u32(v uint32) uint32 { return b.constant(ir.U32, uint64(v)) }

// compositeConst returns an OpConstantComposite of the given type and parts, deduplicated.
func (b *builder) compositeConst(t uint32, parts []uint32) uint32 {
	if i := b.findConst(&constEntry{op: opConstantComposite, typ: t, parts: parts}); i >= 0 {
		return b.consts[i].id
	}
	id := b.id()
	// inst(&b.globals, opConstantComposite, t, id, parts...), without building the operand slice.
	b.globals = append(b.globals, uint32(len(parts)+3)<<16|uint32(opConstantComposite), t, id)
	b.globals = append(b.globals, parts...)
	b.addConst(constEntry{op: opConstantComposite, typ: t, parts: append([]uint32(nil), parts...), id: id})
	return id
}

func equalWords(a, b []uint32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// assemble concatenates the header and sections in the SPIR-V logical order.
func (b *builder) assemble(entry, modes []uint32) *Module {
	sort.Slice(b.caps, func(i, j int) bool { return b.caps[i] < b.caps[j] })
	sort.Strings(b.exts)
	size := 5 + 2*len(b.caps) + 8*len(b.exts) + 8 + 3 + len(entry) + len(modes) + len(b.names) + len(b.decos) + len(b.globals) + len(b.funcs)
	w := make([]uint32, 0, size)
	w = append(w, magic, b.version, 0, b.nextID+1, 0)
	for _, c := range b.caps {
		inst(&w, opCapability, uint32(c))
	}
	for _, e := range b.exts {
		instStr(&w, opExtension, nil, e)
	}
	if b.glsl != 0 {
		instStr(&w, opExtInstImport, []uint32{b.glsl}, "GLSL.std.450")
	}
	inst(&w, opMemoryModel, 0, 1) // Logical GLSL450
	w = append(w, entry...)
	w = append(w, modes...)
	w = append(w, b.names...)
	w = append(w, b.decos...)
	w = append(w, b.globals...)
	w = append(w, b.funcs...)
	m := &Module{Words: w, Capabilities: b.caps, Extensions: b.exts}
caps:
	for _, c := range b.caps {
		for _, mc := range b.modeCaps {
			if c == mc {
				continue caps
			}
		}
		m.SubgroupBits |= intrinsics.CapabilityVkBit(c)
	}
	return m
}
