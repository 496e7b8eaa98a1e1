package plan

import (
	"sort"

	"waverig/harness/results"
)

// PlannedCase is one case record a run will write (pass.PlanRun lists them).
type PlannedCase struct {
	Device   int // the device's index (devices.Enumerate)
	Kernel   string
	API      string
	Stage    string
	Case     string // kernels.Case.ID
	Compiler string
	// WaveSize is the size of the pass. A WebGPU record carries the size its
	// layout kernel observes, which is the pass's on every device the rig
	// knows (WebGPU runs only in the pass at the device's own size).
	WaveSize uint32
}

// Name is the record's test name (results.Record.Name).
func (c PlannedCase) Name() string {
	return results.TestName(c.API, c.Stage, c.Case, c.Compiler, c.WaveSize)
}

// Excluded counts the cases a plan leaves out on one API for one reason:
// the API cannot run their kernels by design (pass.NotApplicable).
type Excluded struct {
	API, Reason string
	Cases       int
}

// CaseNames are the sorted, distinct test names of planned cases (two devices
// of one run give one case the same name).
func CaseNames(cs []PlannedCase) []string {
	seen := make(map[string]bool, len(cs))
	names := make([]string, 0, len(cs))
	for _, c := range cs {
		n := c.Name()
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}
