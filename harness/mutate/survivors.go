package mutate

// Survivors explains every mutant the rig does not catch on the device the
// score runs on (docs/detection.md): either why the mutant is equivalent (no
// kernel input can tell it from the correct module) or which gap in the tests
// it shows. The score test fails on a survivor missing here.
var Survivors = map[string]string{}

// NotPlanted lists what the catalogue does not plant yet, and why.
var NotPlanted = []string{
	"Mutants of generated control flow (a branch inverted, a `break` dropped): the kernel generator of issue 11 does not exist yet. " +
		"The one control-flow mutant here inverts the active-lane branch of the static kernels.",
	"Memory semantics dropped on barriers: no wave kernel has a barrier (OpControlBarrier/OpMemoryBarrier), so there is nothing to drop.",
	"InverseBallot, BallotBitExtract, BallotFindLSB/MSB, SubgroupEqMask/LtMask and the other mask builtins: waverig's compiler emits none of them for SM 6.0 wave intrinsics " +
		"(HLSL has no such intrinsics), so no kernel has the instruction to change.",
}
