package vulkan

import (
	"fmt"
	"math"
	"sort"
)

// spirvInfo is what the runner reads from a module before giving it to the
// driver. Drivers are not required to survive malformed SPIR-V or a
// pipeline layout that lacks a descriptor the shader uses (lavapipe
// crashes on both), so the checks here turn the common breakages
// (truncation, bad word counts, missing entry point, unbound or mistyped
// buffers) into error values first.
type spirvInfo struct {
	version   uint32    // e.g. 0x00010300
	localSize [3]uint32 // from OpExecutionMode LocalSize; zero when unknown
	// sharedBytes is the workgroup memory of the variables the entry point
	// uses, at natural sizes (a lower bound of what the driver allocates).
	sharedBytes uint64
	// used lists the descriptors the entry point's reachable code touches.
	used []descriptorUse
}

// descriptorUse is one resource variable the entry point uses.
type descriptorUse struct {
	set, binding uint32
	kind         BufferKind
	name         string // OpName of the variable, for messages
	unsupported  string // non-empty: a resource the runner cannot bind
}

const (
	spirvMagic = 0x07230203

	opName            = 5
	opEntryPoint      = 15
	opExecutionMode   = 16
	opTypeBool        = 20
	opTypeInt         = 21
	opTypeFloat       = 22
	opTypeVector      = 23
	opTypeMatrix      = 24
	opTypeImage       = 25
	opTypeSampler     = 26
	opTypeArray       = 28
	opTypeRuntime     = 29
	opTypeStruct      = 30
	opTypePointer     = 32
	opConstant        = 43
	opSpecConstant    = 50
	opFunction        = 54
	opFunctionEnd     = 56
	opFunctionCall    = 57
	opVariable        = 59
	opLoad            = 61
	opStore           = 62
	opCopyMemory      = 63
	opAccessChain     = 65
	opInBoundsAccess  = 66
	opPtrAccessChain  = 67
	opArrayLength     = 68
	opInBoundsPtrAC   = 70
	opDecorate        = 71
	opExecutionModeID = 331

	execModelVertex    = 0
	execModelFragment  = 4
	execModelGLCompute = 5
	execModelTaskEXT   = 5364 // SPV_EXT_mesh_shader
	execModelMeshEXT   = 5365
	execModeLocalSize  = 17

	decorationBlock       = 2
	decorationBufferBlock = 3
	decorationBinding     = 33
	decorationSet         = 34

	scUniformConstant = 0
	scUniform         = 2
	scWorkgroup       = 4
	scStorageBuffer   = 12
)

// pointerOperands gives, per opcode, the operand positions (after the
// opcode word) that hold a pointer which may be a resource variable. These
// are the only ways SPIR-V code can reach a buffer, so scanning them is
// exact where scanning every operand would mistake literals for ids.
var pointerOperands = map[uint32][]int{
	opLoad:           {2},
	opStore:          {0},
	opCopyMemory:     {0, 1},
	opAccessChain:    {2},
	opInBoundsAccess: {2},
	opPtrAccessChain: {2},
	opInBoundsPtrAC:  {2},
	opArrayLength:    {2},
	// Atomics take the pointer directly; a groupshared scalar is used only
	// through them.
	227: {2}, 228: {0}, 229: {2}, 230: {2}, 231: {2}, 232: {2}, 233: {2}, 234: {2}, 235: {2}, // OpAtomicLoad … OpAtomicISub
	236: {2}, 237: {2}, 238: {2}, 239: {2}, 240: {2}, 241: {2}, 242: {2}, // OpAtomicSMin … OpAtomicXor
	5614: {2}, 5615: {2}, 6035: {2}, // OpAtomicFMinEXT, OpAtomicFMaxEXT, OpAtomicFAddEXT
}

// execModelName spells the execution models the runner knows as SPIR-V does.
func execModelName(model uint32) string {
	switch model {
	case execModelVertex:
		return "Vertex"
	case execModelFragment:
		return "Fragment"
	case execModelGLCompute:
		return "GLCompute"
	case execModelTaskEXT:
		return "TaskEXT"
	case execModelMeshEXT:
		return "MeshEXT"
	}
	return fmt.Sprintf("execution model %d", model)
}

// parseSPIRV checks the header and the instruction stream, finds the
// GLCompute entry point called entry and the descriptors it uses.
func parseSPIRV(words []uint32, entry string) (spirvInfo, error) {
	return parseEntry(words, entry, execModelGLCompute)
}

// parseEntry is parseSPIRV for an entry point of any execution model (the
// draw runner's Vertex and Fragment stages).
func parseEntry(words []uint32, entry string, model uint32) (spirvInfo, error) {
	var info spirvInfo
	if len(words) < 5 {
		return info, fmt.Errorf("SPIR-V: module has %d words, the header alone needs 5", len(words))
	}
	if words[0] != spirvMagic {
		return info, fmt.Errorf("SPIR-V: bad magic number 0x%08x (want 0x%08x)", words[0], uint32(spirvMagic))
	}
	info.version = words[1]
	if major, minor := words[1]>>16&0xff, words[1]>>8&0xff; major != 1 || minor > 6 || words[1]&0xff0000ff != 0 {
		return info, fmt.Errorf("SPIR-V: unsupported version word 0x%08x", words[1])
	}
	bound := words[3]
	if bound == 0 {
		return info, fmt.Errorf("SPIR-V: id bound is 0")
	}

	m := module{
		names:    map[uint32]string{},
		decor:    map[uint32]map[uint32]uint32{},
		pointers: map[uint32][2]uint32{},
		types:    map[uint32][]uint32{},
		consts:   map[uint32]uint64{},
		vars:     map[uint32]uint32{},
		funcs:    map[uint32][2]int{},
	}
	entryID := uint32(0)
	otherModel := ""
	type mode struct{ id, x, y, z uint32 }
	var sizes []mode
	curFunc, funcStart := uint32(0), 0
	for i := 5; i < len(words); {
		n := int(words[i] >> 16)
		op := words[i] & 0xffff
		if n == 0 {
			return info, fmt.Errorf("SPIR-V: instruction at word %d has word count 0", i)
		}
		if i+n > len(words) {
			return info, fmt.Errorf("SPIR-V: instruction at word %d (opcode %d) runs past the end of the module", i, op)
		}
		ops := words[i+1 : i+n]
		switch op {
		case opEntryPoint:
			if len(ops) < 3 {
				return info, fmt.Errorf("SPIR-V: truncated OpEntryPoint at word %d", i)
			}
			name, _ := literalString(ops[2:])
			if ops[1] >= bound {
				return info, fmt.Errorf("SPIR-V: OpEntryPoint %q uses id %d beyond the bound %d", name, ops[1], bound)
			}
			if name == entry {
				if ops[0] != model {
					otherModel = execModelName(ops[0])
				} else {
					entryID = ops[1]
				}
			}
		case opExecutionMode:
			if len(ops) >= 5 && ops[1] == execModeLocalSize {
				sizes = append(sizes, mode{ops[0], ops[2], ops[3], ops[4]})
			}
		case opName:
			if len(ops) >= 2 {
				m.names[ops[0]], _ = literalString(ops[1:])
			}
		case opDecorate:
			if len(ops) >= 2 {
				if m.decor[ops[0]] == nil {
					m.decor[ops[0]] = map[uint32]uint32{}
				}
				v := uint32(0)
				if len(ops) >= 3 {
					v = ops[2]
				}
				m.decor[ops[0]][ops[1]] = v
			}
		case opTypePointer:
			if len(ops) >= 3 {
				m.pointers[ops[0]] = [2]uint32{ops[1], ops[2]}
			}
		case opTypeStruct, opTypeArray, opTypeRuntime, opTypeBool, opTypeInt, opTypeFloat, opTypeVector, opTypeMatrix, opTypeImage, opTypeSampler:
			if len(ops) >= 1 {
				m.types[ops[0]] = append([]uint32{op}, ops[1:]...)
			}
		case opConstant, opSpecConstant:
			if len(ops) >= 3 {
				v := uint64(ops[2])
				if len(ops) >= 4 {
					v |= uint64(ops[3]) << 32
				}
				m.consts[ops[1]] = v
			}
		case opVariable:
			if len(ops) >= 3 && curFunc == 0 {
				m.vars[ops[1]] = ops[0] // global variable -> pointer type
			}
		case opFunction:
			if len(ops) >= 2 {
				curFunc, funcStart = ops[1], i
			}
		case opFunctionEnd:
			if curFunc != 0 {
				m.funcs[curFunc] = [2]int{funcStart, i}
			}
			curFunc = 0
		}
		i += n
	}
	if entryID == 0 {
		if otherModel != "" {
			return info, fmt.Errorf("SPIR-V: entry point %q is not a %s shader (%s)", entry, execModelName(model), otherModel)
		}
		return info, fmt.Errorf("SPIR-V: no %s entry point named %q", execModelName(model), entry)
	}
	for _, s := range sizes {
		if s.id == entryID {
			info.localSize = [3]uint32{s.x, s.y, s.z}
		}
	}
	used := m.usedVars(words, entryID)
	info.used = m.usedDescriptors(used)
	for v := range used {
		if ptr := m.pointers[m.vars[v]]; ptr[0] == scWorkgroup {
			info.sharedBytes = satAdd(info.sharedBytes, m.naturalSize(ptr[1], 0))
		}
	}
	return info, nil
}

// module holds the parts of a SPIR-V module the descriptor scan needs.
type module struct {
	names    map[uint32]string
	decor    map[uint32]map[uint32]uint32 // id -> decoration -> first literal
	pointers map[uint32][2]uint32         // pointer type -> (storage class, pointee)
	types    map[uint32][]uint32          // scalar, vector, matrix, struct and array types -> (opcode, operands after the result id...)
	consts   map[uint32]uint64            // OpConstant / OpSpecConstant (default) -> value
	vars     map[uint32]uint32            // global variable -> its pointer type
	funcs    map[uint32][2]int            // function id -> [OpFunction word, OpFunctionEnd word]
}

// usedVars walks the functions reachable from the entry point and returns
// the global variables they touch.
func (m *module) usedVars(words []uint32, entry uint32) map[uint32]bool {
	seenFn := map[uint32]bool{entry: true}
	queue := []uint32{entry}
	usedVar := map[uint32]bool{}
	for len(queue) > 0 {
		fn := queue[0]
		queue = queue[1:]
		span, ok := m.funcs[fn]
		if !ok {
			continue
		}
		for i := span[0]; i < span[1]; {
			n := int(words[i] >> 16)
			op := words[i] & 0xffff
			ops := words[i+1 : i+n]
			if op == opFunctionCall && len(ops) >= 3 {
				if !seenFn[ops[2]] {
					seenFn[ops[2]] = true
					queue = append(queue, ops[2])
				}
				for _, a := range ops[3:] { // resources can be passed by pointer
					if _, ok := m.vars[a]; ok {
						usedVar[a] = true
					}
				}
			}
			for _, k := range pointerOperands[op] {
				if k < len(ops) {
					if _, ok := m.vars[ops[k]]; ok {
						usedVar[ops[k]] = true
					}
				}
			}
			i += n
		}
	}
	return usedVar
}

// usedDescriptors returns the resource variables among the used ones,
// sorted by set and binding.
func (m *module) usedDescriptors(usedVar map[uint32]bool) []descriptorUse {
	var out []descriptorUse
	for v := range usedVar {
		ptr := m.pointers[m.vars[v]]
		sc, pointee := ptr[0], ptr[1]
		if sc != scUniform && sc != scStorageBuffer && sc != scUniformConstant {
			continue // workgroup, private, input/output: not descriptors
		}
		d := descriptorUse{set: m.decor[v][decorationSet], binding: m.decor[v][decorationBinding], name: m.names[v]}
		if d.name == "" { // glslang names block instances ""; the block type has the name
			d.name = m.names[pointee]
		}
		if t := m.types[pointee]; len(t) > 0 && (t[0] == opTypeArray || t[0] == opTypeRuntime) {
			d.unsupported = "an array of descriptors"
		}
		switch {
		case sc == scUniformConstant && len(m.types[pointee]) > 0 && m.types[pointee][0] == opTypeSampler:
			d.kind = SamplerBinding
		case sc == scUniformConstant && sampledImage(m.types[pointee]):
			d.kind = SampledImage
		case sc == scUniformConstant:
			d.unsupported = "an image the runner cannot bind (a storage image, a combined image-sampler) or another opaque resource"
		case sc == scStorageBuffer:
			d.kind = Storage
		default: // Uniform: a BufferBlock struct is the pre-1.3 spelling of a storage buffer
			d.kind = Uniform
			if _, bb := m.decor[pointee][decorationBufferBlock]; bb {
				d.kind = Storage
			}
		}
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].set != out[j].set {
			return out[i].set < out[j].set
		}
		return out[i].binding < out[j].binding
	})
	return out
}

// naturalSize is the unpadded size in bytes of a value of type id (bool as
// 4 bytes), saturating instead of overflowing; depth stops malformed type
// cycles.
func (m *module) naturalSize(id uint32, depth int) uint64 {
	t := m.types[id]
	if len(t) == 0 || depth > 64 {
		return 0
	}
	switch t[0] {
	case opTypeBool:
		return 4
	case opTypeInt, opTypeFloat: // width
		if len(t) >= 2 {
			return uint64(t[1]) / 8
		}
	case opTypeVector, opTypeMatrix: // component or column type, count
		if len(t) >= 3 {
			return satMul(m.naturalSize(t[1], depth+1), uint64(t[2]))
		}
	case opTypeArray: // element type, length (a constant's id)
		if len(t) >= 3 {
			return satMul(m.naturalSize(t[1], depth+1), m.consts[t[2]])
		}
	case opTypeStruct: // member types
		var n uint64
		for _, f := range t[1:] {
			n = satAdd(n, m.naturalSize(f, depth+1))
		}
		return n
	}
	return 0
}

func satAdd(a, b uint64) uint64 {
	if a+b < a {
		return math.MaxUint64
	}
	return a + b
}

func satMul(a, b uint64) uint64 {
	if a != 0 && b > math.MaxUint64/a {
		return math.MaxUint64
	}
	return a * b
}

// sampledImage says whether a recorded OpTypeImage (opcode, then the sampled
// type, Dim, Depth, Arrayed, MS, Sampled, format) is a 2-D, not arrayed,
// single-sample image used with a sampler (Sampled 1) and no depth
// comparison: HLSL's Texture2D.
func sampledImage(t []uint32) bool {
	const dim2D = 1
	return len(t) >= 7 && t[0] == opTypeImage && t[2] == dim2D && t[3] != 1 && t[4] == 0 && t[5] == 0 && t[6] == 1
}

// checkDescriptors matches the shader's descriptors against the job's
// buffers, images and samplers: every used one must be bound, with the
// right kind.
func checkDescriptors(used []descriptorUse, bufs []Buffer, images []Image, samplers []Sampler) error {
	have := map[[2]uint32]BufferKind{}
	for _, b := range bufs {
		have[[2]uint32{b.Set, b.Binding}] = b.Kind
	}
	for _, im := range images {
		have[[2]uint32{im.Set, im.Binding}] = SampledImage
	}
	for _, sm := range samplers {
		have[[2]uint32{sm.Set, sm.Binding}] = SamplerBinding
	}
	for _, d := range used {
		label := fmt.Sprintf("set %d binding %d", d.set, d.binding)
		if d.name != "" {
			label += fmt.Sprintf(" (%q)", d.name)
		}
		if d.unsupported != "" {
			return fmt.Errorf("vulkan: shader uses %s, %s, which the runner cannot bind", label, d.unsupported)
		}
		k, ok := have[[2]uint32{d.set, d.binding}]
		if !ok {
			return fmt.Errorf("vulkan: shader uses %s as a %s buffer but the job binds nothing there", label, d.kind)
		}
		if k != d.kind {
			return fmt.Errorf("vulkan: shader uses %s as a %s buffer but the job binds a %s buffer", label, d.kind, k)
		}
	}
	return nil
}

// literalString decodes a nul-terminated SPIR-V literal string.
func literalString(ws []uint32) (string, bool) {
	var b []byte
	for _, w := range ws {
		for k := 0; k < 4; k++ {
			c := byte(w >> (8 * k))
			if c == 0 {
				return string(b), true
			}
			b = append(b, c)
		}
	}
	return string(b), false
}
