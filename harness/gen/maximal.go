package gen

import "fmt"

// SPIR-V numbers the maximal-reconvergence request needs.
const (
	spvOpExtension        = 10
	spvOpExtInstImport    = 11
	spvOpMemoryModel      = 14
	spvOpEntryPoint       = 15
	spvOpExecutionMode    = 16
	spvModeMaxReconverges = 6023 // MaximallyReconvergesKHR
)

// RequestMaximalReconvergence returns the module with OpExtension
// "SPV_KHR_maximal_reconvergence" and `OpExecutionMode %main
// MaximallyReconvergesKHR` added (the form DXC gives
// [WaveOpsIncludeHelperLanes]; HLSL has no attribute that asks for it in
// compute), so a device with shaderMaximalReconvergence must run every
// program under the exact contract.
func RequestMaximalReconvergence(words []uint32) ([]uint32, error) {
	if len(words) < 5 {
		return nil, fmt.Errorf("not a SPIR-V module")
	}
	ext := []uint32{0, 0, 0, 0, 0, 0, 0, 0, 0}
	name := "SPV_KHR_maximal_reconvergence" // 29 bytes + NUL: 8 words
	for i := 0; i < len(name); i++ {
		ext[1+i/4] |= uint32(name[i]) << (8 * (i % 4))
	}
	ext[0] = uint32(len(ext))<<16 | spvOpExtension
	out := append([]uint32(nil), words[:5]...)
	var entry uint32
	extDone, modeDone := false, false
	for i := 5; i < len(words); {
		n := int(words[i] >> 16)
		op := words[i] & 0xffff
		if n == 0 || i+n > len(words) {
			return nil, fmt.Errorf("bad instruction at word %d", i)
		}
		if !extDone && (op == spvOpExtInstImport || op == spvOpMemoryModel) {
			out = append(out, ext...)
			extDone = true
		}
		if op == spvOpEntryPoint {
			entry = words[i+2]
		}
		if !modeDone && entry != 0 && op != spvOpEntryPoint && op != spvOpExecutionMode {
			out = append(out, 3<<16|spvOpExecutionMode, entry, spvModeMaxReconverges)
			modeDone = true
		}
		out = append(out, words[i:i+n]...)
		i += n
	}
	if !extDone || !modeDone {
		return nil, fmt.Errorf("no entry point to ask maximal reconvergence for")
	}
	return out, nil
}

// PlantInclusivePrefix turns the log of a correct device into one whose
// WavePrefixSum is inclusive (each lane's own bit added where its condition
// holds): a planted bug for the tests of `waverig fuzz` on a real device.
func PlantInclusivePrefix(p *Program, words []uint32) {
	ops := p.siteOps()
	for f := 0; f < p.Lanes(); f++ {
		r := words[f*RecWords:]
		evs := p.Simulate(LaneInput{Lane: r[wLane], Gi: uint32(f % p.Threads), Data: p.Input[f]})
		for k, e := range evs {
			if k >= MaxEvents || k >= int(r[wEvents]) {
				break
			}
			if ops[e.Site].Op == OpPrefixSum && e.Cond && r[wLane] < 64 {
				b := bit(r[wLane])
				r[hdr+3*k+1] |= uint32(b)
				r[hdr+3*k+2] |= uint32(b >> 32)
			}
		}
	}
}
