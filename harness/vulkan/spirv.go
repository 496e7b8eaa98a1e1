package vulkan

import (
	"fmt"
)

// spirvInfo is what the runner reads from a module before giving it to the
// driver: drivers are not required to survive malformed SPIR-V (lavapipe
// asserts on some), so the structural checks here turn the common breakages
// (truncation, wrong magic, bad word counts, missing entry point) into
// error values first.
type spirvInfo struct {
	version   uint32    // e.g. 0x00010300
	localSize [3]uint32 // from OpExecutionMode LocalSize; zero when unknown
}

const (
	spirvMagic = 0x07230203

	opEntryPoint      = 15
	opExecutionMode   = 16
	opExecutionModeID = 331

	execModelGLCompute = 5
	execModeLocalSize  = 17
)

// parseSPIRV checks the header and the instruction stream and finds the
// GLCompute entry point called entry.
func parseSPIRV(words []uint32, entry string) (spirvInfo, error) {
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
	if words[3] == 0 {
		return info, fmt.Errorf("SPIR-V: id bound is 0")
	}
	bound := words[3]
	entryID := uint32(0)
	otherModels := []string{}
	type mode struct{ id, x, y, z uint32 }
	var sizes []mode
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
				if ops[0] != execModelGLCompute {
					otherModels = append(otherModels, fmt.Sprintf("execution model %d", ops[0]))
				} else {
					entryID = ops[1]
				}
			}
		case opExecutionMode:
			if len(ops) >= 5 && ops[1] == execModeLocalSize {
				sizes = append(sizes, mode{ops[0], ops[2], ops[3], ops[4]})
			}
		}
		i += n
	}
	if entryID == 0 {
		if len(otherModels) > 0 {
			return info, fmt.Errorf("SPIR-V: entry point %q is not a compute shader (%s)", entry, otherModels[0])
		}
		return info, fmt.Errorf("SPIR-V: no GLCompute entry point named %q", entry)
	}
	for _, m := range sizes {
		if m.id == entryID {
			info.localSize = [3]uint32{m.x, m.y, m.z}
		}
	}
	return info, nil
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
