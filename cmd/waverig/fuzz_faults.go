//go:build waverig_faults

package main

import (
	"fmt"
	"os"

	"waverig/harness/gen"
)

// A fault build (go build -tags waverig_faults) plants a bug in `waverig
// fuzz`'s logs when WAVERIG_TEST_FUZZ_BUG is "inclusive-prefix": WavePrefixSum
// reads as inclusive (gen.PlantInclusivePrefix), for the CLI's tests of the
// failure path (shrinking, the repro bundle). The run's generated programs
// have their own variable (harness/pass/faults_on.go).
func init() {
	switch bug := os.Getenv("WAVERIG_TEST_FUZZ_BUG"); bug {
	case "":
	case "inclusive-prefix":
		fuzzTamper = gen.PlantInclusivePrefix
	default:
		fmt.Fprintf(os.Stderr, "waverig (fault build): WAVERIG_TEST_FUZZ_BUG=%q: the one planted bug is inclusive-prefix\n", bug)
		os.Exit(2)
	}
}
