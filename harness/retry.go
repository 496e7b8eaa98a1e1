package harness

import (
	"fmt"
	"os"
	"regexp"
	"sync"

	"waverig/harness/kernels"
	"waverig/harness/results"
)

// retryNew re-runs a kernel whose check found new failures — failures no
// baseline line expects — up to cfg.Retries times, as deqp-runner does before
// it reports a regression: a case that passes on a re-run is a Flake (its
// record keeps the first run's failing lanes and says how many runs it took);
// one that fails every time stays a Fail. Known failures are not re-run: the
// baseline already says what they do.
func (r *Rig) retryNew(k kernels.Kernel, memo *kernels.Memo, t target, size uint32, recs, failed []results.Record) ([]results.Record, []results.Record) {
	if r.cfg.Retries <= 0 || len(failed) == 0 {
		return recs, failed
	}
	open := map[string]int{} // case ID -> index in recs
	for i, rec := range recs {
		if rec.Status == results.Fail && rec.Verdict() == results.VerdictUnexpected {
			open[rec.Case] = i
		}
	}
	for attempt := 1; attempt <= r.cfg.Retries && len(open) > 0; attempt++ {
		out, err := r.runKernel(k, t, size)
		if err != nil {
			break // it ran before: an error now is not the case's result
		}
		again, _ := r.checkAttempt(k, memo, t, size, out, attempt)
		for _, rec := range again {
			i, ok := open[rec.Case]
			if !ok {
				continue
			}
			recs[i].Attempts = attempt + 1
			if rec.Status == results.Pass {
				recs[i].Status = results.Flake
				recs[i].Reason = fmt.Sprintf("failed, then passed on re-run %d of %d (the first run's failing lanes are kept); was: %s", attempt, r.cfg.Retries, recs[i].Reason)
				delete(open, rec.Case)
			}
		}
	}
	// What the repro bundle gets: the cases that still fail.
	var still []results.Record
	for _, rec := range recs {
		if rec.Status == results.Fail {
			still = append(still, rec)
		}
	}
	return recs, still
}

// Test hooks: faults planted in the rig's results, so that the CLI's tests can
// prove what the baseline, flake and report machinery does with a regression
// or a flaky case on a device that has neither. Each is a regular expression
// over test names (results.Record.Name):
//
//	WAVERIG_TEST_FAIL   matching cases that pass fail instead, on every run
//	WAVERIG_TEST_FLAKY  matching cases that pass fail on their kernel's first run only
//	WAVERIG_TEST_HANG   a child process hangs in matching kernels (by kernel name),
//	                    for the watchdog (-kernel-timeout) to find
//
// The planted failure is one lane whose actual value says it was planted.
var (
	faultsMu              sync.Mutex
	faultsEnv             string
	plantFail, plantFlaky *regexp.Regexp
	plantHang             *regexp.Regexp
)

// plantedFaults compiles the hooks' patterns, again whenever the environment
// changed (a test runs several in-process runs with different hooks).
func plantedFaults() (fail, flaky *regexp.Regexp) {
	env := os.Getenv("WAVERIG_TEST_FAIL") + "\x00" + os.Getenv("WAVERIG_TEST_FLAKY") + "\x00" + os.Getenv("WAVERIG_TEST_HANG")
	faultsMu.Lock()
	defer faultsMu.Unlock()
	if env == faultsEnv {
		return plantFail, plantFlaky
	}
	compile := func(name string) *regexp.Regexp {
		v := os.Getenv(name)
		if v == "" {
			return nil
		}
		re, err := regexp.Compile(v)
		if err != nil {
			panic(fmt.Sprintf("%s: %v", name, err)) // a test's own mistake
		}
		return re
	}
	faultsEnv, plantFail, plantFlaky, plantHang = env, compile("WAVERIG_TEST_FAIL"), compile("WAVERIG_TEST_FLAKY"), compile("WAVERIG_TEST_HANG")
	return plantFail, plantFlaky
}

// plantFaults applies the test hooks to one run (attempt 0 is the first) of a
// kernel's records.
func plantFaults(recs []results.Record, attempt int) {
	fail, flaky := plantedFaults()
	if fail == nil && flaky == nil {
		return
	}
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

// hangPlanted reports whether a child process should hang in a kernel
// (WAVERIG_TEST_HANG); only children do, which the parent's watchdog kills.
func (r *Rig) hangPlanted(kernel string) bool {
	plantedFaults()
	faultsMu.Lock()
	hang := plantHang
	faultsMu.Unlock()
	return r.onBegin != nil && hang != nil && hang.MatchString(kernel)
}
