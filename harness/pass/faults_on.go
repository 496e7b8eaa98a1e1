//go:build waverig_faults

package pass

import (
	"fmt"
	"os"
	"regexp"

	"waverig/harness/gen"
	"waverig/harness/results"
)

// The fault plan of a test build (go build -tags waverig_faults), read once
// at start-up: each WAVERIG_TEST_* pattern is a regular expression.
//
//	WAVERIG_TEST_FAIL     passing cases (by test name, results.Record.Name) fail, on every run
//	WAVERIG_TEST_FLAKY    passing cases fail on their kernel's first run only
//	WAVERIG_TEST_HANG     a child process hangs in matching kernels (by kernel name;
//	                      a generated program's is gen/seed=N), for -kernel-timeout to find
//	WAVERIG_TEST_GEN_BUG  "inclusive-prefix": generated programs' WavePrefixSum is
//	                      inclusive in their logs (gen.PlantInclusivePrefix)
//
// A planted failure is one lane whose actual value says it was planted.
func init() {
	fail, flaky, hang := faultPattern("WAVERIG_TEST_FAIL"), faultPattern("WAVERIG_TEST_FLAKY"), faultPattern("WAVERIG_TEST_HANG")
	if fail != nil || flaky != nil {
		faults.plant = func(recs []results.Record, attempt int) {
			for i := range recs {
				rec := &recs[i]
				if rec.Status != results.Pass {
					continue
				}
				name := rec.Name()
				if (fail != nil && fail.MatchString(name)) || (flaky != nil && attempt == 0 && flaky.MatchString(name)) {
					rec.Status = results.Fail
					rec.Failures = []results.LaneFailure{{WaveKey: 0, Lane: 1, ActiveMask: "0xf", Input: "1", Expected: "1", Actual: "planted by WAVERIG_TEST_FAIL/FLAKY"}}
				}
			}
		}
	}
	if hang != nil {
		faults.hang = func(kernel string) {
			if hang.MatchString(kernel) {
				select {} // the parent's watchdog kills this child
			}
		}
	}
	switch bug := os.Getenv("WAVERIG_TEST_GEN_BUG"); bug {
	case "":
	case "inclusive-prefix":
		faults.genTamper = gen.PlantInclusivePrefix
	default:
		faultExit("WAVERIG_TEST_GEN_BUG=%q: the one planted bug is inclusive-prefix", bug)
	}
}

// faultPattern compiles a hook's pattern (nil when the variable is unset).
func faultPattern(name string) *regexp.Regexp {
	v := os.Getenv(name)
	if v == "" {
		return nil
	}
	re, err := regexp.Compile(v)
	if err != nil {
		faultExit("%s: %v", name, err)
	}
	return re
}

// faultExit stops a fault build whose plan is wrong: the test that set it
// must not pass with no fault planted.
func faultExit(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "waverig (fault build): "+format+"\n", args...)
	os.Exit(2)
}
