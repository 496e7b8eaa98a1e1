package pass

import (
	"waverig/harness/gen"
	"waverig/harness/results"
)

// Fault injection, for the CLI's tests of what the baseline, flake, timeout
// and generated-program machinery does with a regression, a flaky case or a
// hung kernel on a device that has none. A build with the tag
// waverig_faults (faults_on.go) sets these hooks from WAVERIG_TEST_*
// variables; in the default build they stay nil, so the rig plants nothing,
// never hangs on purpose and reads no such variable.
var faults struct {
	// plant may turn passing records of one run of a kernel (attempt 0 is
	// the first) into planted failures.
	plant func(recs []results.Record, attempt int)
	// hang blocks for ever if a child process is to hang in the kernel (or
	// generated program) named, for the parent's watchdog to kill.
	hang func(kernel string)
	// genTamper, if set, changes each generated program's log after
	// readback (gen.Device.Tamper).
	genTamper func(p *gen.Program, words []uint32)
}

// plantFaults applies the planted failures (if any) to one run of a kernel's
// records.
func plantFaults(recs []results.Record, attempt int) {
	if faults.plant != nil {
		faults.plant(recs, attempt)
	}
}

// hangIfPlanted blocks for ever in a child process a fault build tells to
// hang in kernel; it returns at once otherwise. Only children hang: their
// parent's watchdog (KernelTimeout) kills them.
func (r *Rig) hangIfPlanted(kernel string) {
	if r.onBegin != nil && faults.hang != nil {
		faults.hang(kernel)
	}
}
