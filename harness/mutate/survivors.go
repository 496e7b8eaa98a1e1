package mutate

// Survivors explains every mutant the rig does not catch on the device the
// score runs on (docs/detection.md): either why the mutant is equivalent (no
// kernel input can tell it from the correct module) or which gap in the tests
// it shows. The score test fails on a survivor missing here.
var Survivors = map[string]string{
	"Shuffle lane wrapped": "equivalent: every WaveReadLaneAt lane argument of the kernels (1, the lane count - 1, " +
		"(lane + 1) mod the lane count, ...) is below the wave size, where wrapping changes nothing; HLSL leaves a " +
		"lane at or past the wave size undefined, so no correct test can tell this mutant apart.",
	"ballot high words swapped": "equivalent on waves of at most 64 lanes (every size lavapipe offers): words 2 and 3 " +
		"of a ballot hold lanes 64 to 127 and are zero, so swapping them changes nothing. It shows only at wave size " +
		"128, which no device this score runs on reaches (a gap of the device, not of the checks: the ballot model " +
		"compares all four words).",
}

// CFSurvivors explains every control-flow mutant (mutate.ControlFlow) that no
// site catches at some wave size in the control-flow score's seed set
// (docs/detection.md, "Control-flow mutants of generated programs"): which
// sites ran and why no generated program observes the change. TestCFScore
// fails on a survivor missing here.
var CFSurvivors = map[string]string{}

// NotPlanted lists what the catalogue does not plant yet, and why.
var NotPlanted = []string{
	"Memory semantics dropped on barriers: no wave kernel has a barrier (OpControlBarrier/OpMemoryBarrier), so there is nothing to drop.",
	"InverseBallot, BallotBitExtract, BallotFindLSB/MSB, SubgroupEqMask/LtMask and the other mask builtins: waverig's compiler emits none of them for SM 6.0 wave intrinsics " +
		"(HLSL has no such intrinsics), so no kernel has the instruction to change.",
}
