package compiler

import "fmt"

// spirvCapabilityNames spells the SPIR-V capabilities the back end can declare,
// for the reflection's "spirvCapabilities" list (numbers from the SPIR-V grammar).
var spirvCapabilityNames = map[uint16]string{
	0: "Matrix", 1: "Shader", 9: "Float16", 10: "Float64", 11: "Int64", 22: "Int16", 39: "Int8",
	35: "SampleRateShading", 50: "ImageQuery", 51: "DerivativeControl",
	55: "StorageImageReadWithoutFormat", 56: "StorageImageWriteWithoutFormat",
	61: "GroupNonUniform", 62: "GroupNonUniformVote", 63: "GroupNonUniformArithmetic",
	64: "GroupNonUniformBallot", 65: "GroupNonUniformShuffle", 66: "GroupNonUniformShuffleRelative",
	67: "GroupNonUniformClustered", 68: "GroupNonUniformQuad", 4433: "StorageBuffer16BitAccess",
	5087: "QuadControlKHR", 5283: "MeshShadingEXT", 5297: "GroupNonUniformPartitionedNV", 5379: "DemoteToHelperInvocation",
}

func capabilityNames(caps []uint16) []string {
	out := make([]string, 0, len(caps))
	for _, c := range caps {
		if n, ok := spirvCapabilityNames[c]; ok {
			out = append(out, n)
		} else {
			out = append(out, fmt.Sprintf("Capability(%d)", c))
		}
	}
	return out
}
