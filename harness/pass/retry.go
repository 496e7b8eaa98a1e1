package pass

import (
	"fmt"

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
