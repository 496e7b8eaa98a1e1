package vulkan

import "strings"

// What SPIRV-Tools releases before 2024 do not know. Debian 12's spirv-val
// (2023.1), the one CI and the GPU machines carry, predates
// SPV_KHR_quad_control and SPV_KHR_maximal_reconvergence, which the native
// quad votes and [WaveOpsIncludeHelperLanes] use: it stops at the first
// unknown operand ("Invalid capability operand: 5087") and validates nothing
// else. Such a module is validated through a view without those constructs:
// every other rule is still checked, and the driver gets the module itself.

// newerExtensions are the extensions the view leaves out, with the message an
// older validator gives for what they add.
var newerExtensions = map[string]string{
	"SPV_KHR_quad_control":          "Invalid capability operand: 5087",
	"SPV_KHR_maximal_reconvergence": "Invalid execution mode operand: 6023",
}

const (
	opExtension       = 10
	opCapability      = 17
	opCopyObject      = 83
	opQuadAllKHR      = 5110
	opQuadAnyKHR      = 5111
	capQuadControlKHR = 5087
	modeRequireFull   = 5089 // RequireFullQuadsKHR
	modeMaxReconverge = 6023 // MaximallyReconvergesKHR
)

// predatesModule reports whether spirv-val's output is an older validator
// stopping at a construct of newerExtensions.
func predatesModule(out string) bool {
	for _, msg := range newerExtensions {
		if strings.Contains(out, msg) {
			return true
		}
	}
	return strings.Contains(out, "Invalid execution mode operand: 5089")
}

// olderValidatorView returns the module as an older validator can read it, and
// the extensions it left out (nil: the module uses none, the view is the
// module). Left out: OpCapability QuadControlKHR, the OpExtension lines,
// OpExecutionMode RequireFullQuadsKHR and MaximallyReconvergesKHR; and
// OpGroupNonUniformQuadAny/AllKHR become OpCopyObject of their predicate (same
// result type and id, so every use still type-checks).
func olderValidatorView(words []uint32) ([]uint32, []string) {
	if len(words) < 5 {
		return words, nil
	}
	out := append([]uint32(nil), words[:5]...)
	var left []string
	for i := 5; i < len(words); {
		n := int(words[i] >> 16)
		if n == 0 || i+n > len(words) {
			return words, nil // malformed: the validator says so on the module itself
		}
		ins := words[i : i+n]
		drop := false
		switch ins[0] & 0xffff {
		case opCapability:
			drop = n == 2 && ins[1] == capQuadControlKHR
		case opExtension:
			name, _ := literalString(ins[1:])
			if _, ok := newerExtensions[name]; ok {
				drop = true
				left = append(left, name)
			}
		case opExecutionMode:
			drop = n >= 3 && (ins[2] == modeRequireFull || ins[2] == modeMaxReconverge)
		case opQuadAllKHR, opQuadAnyKHR:
			if n == 4 {
				out = append(out, 4<<16|opCopyObject, ins[1], ins[2], ins[3])
				i += n
				continue
			}
		}
		if !drop {
			out = append(out, ins...)
		}
		i += n
	}
	if left == nil {
		return words, nil
	}
	return out, left
}
