package harness

import (
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"waverig/harness/kernels"
	"waverig/harness/pass"
	"waverig/harness/plan"
	"waverig/harness/results"
	"waverig/harness/simdevice"
)

// The engine on a simulated device (harness/simdevice): whole passes, in this
// process and in child processes of this test binary, with crashes, hangs,
// flakes and failures planted by kernel name. No GPU, no driver: what is
// tested is what the rig does with what a device does.

// simFaultsEnv carries a child's planted faults (JSON simdevice.Faults).
const simFaultsEnv = "WAVERIG_SIMDEVICE_FAULTS"

const simSize = 8

func TestMain(m *testing.M) {
	if IsChild() {
		os.Exit(ChildMainOn(os.Stdout, func(req ChildRequest, cfg pass.Config) (*pass.Rig, error) {
			var f simdevice.Faults
			if v := os.Getenv(simFaultsEnv); v != "" {
				if err := json.Unmarshal([]byte(v), &f); err != nil {
					return nil, err
				}
			}
			return simdevice.Rig(simdevice.Info("sim", simSize), cfg, f)
		}))
	}
	os.Exit(m.Run())
}

// simConfig is a small matrix: three compute operations on two types, every
// pattern and shape, compiled by waverig's compiler, judged by no baseline.
func simConfig() pass.Config {
	return pass.Config{
		Filter:         kernels.Filter{Ops: regexp.MustCompile(`^(WaveActiveSum|WavePrefixSum|WaveReadLaneAt)$`), Types: []string{"uint", "float"}},
		Compilers:      []string{results.Ours},
		APIs:           []string{pass.Vulkan},
		Stages:         []string{results.Compute},
		NoExpectations: true,
	}
}

// simKernels are the names of the matrix's kernels at simSize, in run order.
func simKernels(t *testing.T, cfg pass.Config) []string {
	t.Helper()
	var names []string
	seen := map[string]bool{}
	for _, c := range pass.PlanCases(simPlan(), cfg) {
		if !seen[c.Kernel] {
			seen[c.Kernel] = true
			names = append(names, c.Kernel)
		}
	}
	if len(names) < 4 {
		t.Fatalf("the simulated matrix has %d kernels, want at least 4", len(names))
	}
	return names
}

func simPlan() plan.Plan {
	return plan.Plan{Device: simdevice.Info("sim", simSize), Sizes: []plan.SizePlan{{Size: simSize}}}
}

// simRun is what a pass in child processes left: its case records by test
// name (each must come exactly once), its stats, the children that died and
// what they wrote to stderr.
type simRun struct {
	recs    map[string]results.Record
	layouts map[string]int // layout records, by backend
	st      results.Stats
	crashes []ChildCrash
	log     strings.Builder
}

// runSimChild runs one pass in child processes on the simulated device with
// faults planted.
func runSimChild(t *testing.T, cfg pass.Config, f simdevice.Faults) *simRun {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	faults, _ := json.Marshal(f)
	newCmd := func() *exec.Cmd {
		cmd := exec.Command(self)
		cmd.Env = append(os.Environ(), simFaultsEnv+"="+string(faults))
		return cmd
	}
	run := &simRun{recs: map[string]results.Record{}, layouts: map[string]int{}}
	watch := &ChildWatch{Log: &run.log, Crashed: func(c ChildCrash) { run.crashes = append(run.crashes, c) }}
	run.st, err = runChild(newCmd, 0, "", plan.SizePlan{Size: simSize}, cfg, nil, watch, func(r results.Record) {
		if r.Case == results.LayoutCase {
			run.layouts[r.Backend()]++
			return
		}
		name := r.Name()
		if _, dup := run.recs[name]; dup {
			t.Errorf("%s: two records", name)
		}
		run.recs[name] = r
	})
	if err != nil {
		t.Fatalf("runChild: %v", err)
	}
	return run
}

// crashedJobs are the jobs (kernel names) children died in, in order, all
// with status.
func (run *simRun) crashedJobs(t *testing.T, status string) []string {
	t.Helper()
	var jobs []string
	for _, c := range run.crashes {
		if c.Status != status {
			t.Errorf("a child died in %s with status %s, want %s", c.Job, c.Status, status)
		}
		jobs = append(jobs, strings.TrimSuffix(strings.TrimPrefix(c.Job, pass.Vulkan+"/"), "/"+results.Ours))
	}
	return jobs
}

// checkRecords holds a run's records to the plan: one record per planned
// case, every kernel's cases in want's status (pass when not named).
func checkRecords(t *testing.T, cfg pass.Config, recs map[string]results.Record, want map[string]string) {
	t.Helper()
	planned := pass.PlanCases(simPlan(), cfg)
	if len(recs) != len(planned) {
		t.Errorf("%d case records, the plan has %d", len(recs), len(planned))
	}
	bad := 0
	for _, c := range planned {
		name := results.TestName(c.API, c.Stage, c.Case, c.Compiler, c.WaveSize)
		r, ok := recs[name]
		if !ok {
			t.Errorf("%s: planned, no record", name)
			continue
		}
		status := want[c.Kernel]
		if status == "" {
			status = results.Pass
		}
		if r.Status != status && bad < 10 {
			bad++
			t.Errorf("%s: %s (%s), want %s", name, r.Status, r.Reason, status)
		}
	}
}

// A correct device passes every case, in this process as in a child, and
// the run writes exactly the records the listing planned.
func TestEngineCorrectDevice(t *testing.T) {
	cfg := simConfig()
	rig, err := simdevice.Rig(simdevice.Info("sim", simSize), cfg, simdevice.Faults{})
	if err != nil {
		t.Fatal(err)
	}
	defer rig.Close()
	recs := map[string]results.Record{}
	st, err := rig.Run(simSize, func(r results.Record) {
		if r.Case != results.LayoutCase {
			recs[r.Name()] = r
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	checkRecords(t, cfg, recs, nil)
	if st.Kernels != len(simKernels(t, cfg)) {
		t.Errorf("%d kernels run, the plan has %d", st.Kernels, len(simKernels(t, cfg)))
	}
	child := runSimChild(t, cfg, simdevice.Faults{})
	checkRecords(t, cfg, child.recs, nil)
	if len(child.crashes) != 0 {
		t.Errorf("children died on a correct device: %+v", child.crashes)
	}
}

// A driver that kills its process in one kernel costs that kernel's cases
// (Crash records, with the reason) and a restart: the next child resumes
// after it, and no other record is lost or written twice. Two kernels in a
// row crash too.
func TestEngineCrashResumes(t *testing.T) {
	cfg := simConfig()
	ks := simKernels(t, cfg)
	crash := "^(" + regexp.QuoteMeta(ks[1]) + "|" + regexp.QuoteMeta(ks[2]) + ")$"
	run := runSimChild(t, cfg, simdevice.Faults{Crash: crash})
	recs, st := run.recs, run.st
	checkRecords(t, cfg, recs, map[string]string{ks[1]: results.Crash, ks[2]: results.Crash})
	if got := run.crashedJobs(t, results.Crash); !slices.Equal(got, ks[1:3]) {
		t.Errorf("children died in %v, want %v", got, ks[1:3])
	}
	if !strings.Contains(run.log.String(), "planted crash in "+ks[1]) {
		t.Errorf("the dead child's stderr did not reach the watch's log:\n%s", run.log.String())
	}
	for _, r := range recs {
		if r.Kernel == ks[1] && r.Reason == "" {
			t.Fatalf("%s: a crash record without a reason", r.Name())
		}
	}
	crashed := 0
	for _, r := range recs {
		if r.Kernel == ks[1] || r.Kernel == ks[2] {
			crashed++
		}
	}
	// With no baseline, a crash counts against the run: every crashed case is
	// in Unexpected, and nothing else is.
	if st.Unexpected != crashed {
		t.Errorf("stats count %d unexpected, %d cases crashed: %+v", st.Unexpected, crashed, st)
	}
}

// A kernel whose dispatch never returns is killed by the watchdog: its
// cases are Timeout records and the pass goes on after it.
func TestEngineHangTimesOut(t *testing.T) {
	cfg := simConfig()
	cfg.KernelTimeout = 3 * time.Second
	ks := simKernels(t, cfg)
	start := time.Now()
	run := runSimChild(t, cfg, simdevice.Faults{Hang: "^" + regexp.QuoteMeta(ks[2]) + "$"})
	checkRecords(t, cfg, run.recs, map[string]string{ks[2]: results.Timeout})
	if got := run.crashedJobs(t, results.Timeout); !slices.Equal(got, ks[2:3]) {
		t.Errorf("the watchdog killed children in %v, want %v", got, ks[2:3])
	}
	if took := time.Since(start); took > 60*time.Second {
		t.Errorf("the pass took %v with a %v watchdog", took, cfg.KernelTimeout)
	}
}

// A kernel that is wrong on its first run only is a Flake once it is run
// again (Retries), with its failure kept; one that is wrong on every run
// is a Fail with the lanes that failed. Both in this process and in a child.
func TestEngineFlakeAndFail(t *testing.T) {
	cfg := simConfig()
	cfg.Retries = 2
	ks := simKernels(t, cfg)
	f := simdevice.Faults{Flaky: "^" + regexp.QuoteMeta(ks[0]) + "$", Fail: "^" + regexp.QuoteMeta(ks[3]) + "$"}
	rig, err := simdevice.Rig(simdevice.Info("sim", simSize), cfg, f)
	if err != nil {
		t.Fatal(err)
	}
	defer rig.Close()
	recs := map[string]results.Record{}
	if _, err := rig.Run(simSize, func(r results.Record) {
		if r.Case != results.LayoutCase {
			recs[r.Name()] = r
		}
	}); err != nil {
		t.Fatal(err)
	}
	// Not every case of a kernel reads the corrupted word on an active lane:
	// count the kernel's verdicts rather than demand one for each case.
	verdicts := func(recs map[string]results.Record, kernel string) map[string]int {
		n := map[string]int{}
		for _, r := range recs {
			if r.Kernel == kernel {
				n[r.Status]++
				if r.Status == results.Fail && len(r.Failures) == 0 {
					t.Errorf("%s: a failure without lanes", r.Name())
				}
			}
		}
		return n
	}
	for name, recs := range map[string]map[string]results.Record{"in process": recs, "in a child": nil} {
		if recs == nil {
			recs = runSimChild(t, cfg, f).recs
		}
		flaky, failing := verdicts(recs, ks[0]), verdicts(recs, ks[3])
		if flaky[results.Flake] == 0 || flaky[results.Fail] != 0 {
			t.Errorf("%s: flaky kernel %s: %v, want flakes and no failure", name, ks[0], flaky)
		}
		if failing[results.Fail] == 0 || failing[results.Flake] != 0 {
			t.Errorf("%s: failing kernel %s: %v, want failures and no flake", name, ks[3], failing)
		}
		for _, r := range recs {
			if r.Kernel != ks[0] && r.Kernel != ks[3] && r.Status != results.Pass {
				t.Errorf("%s: %s: %s (%s), want pass", name, r.Name(), r.Status, r.Reason)
				break
			}
		}
	}
}

// Each API of a pass has its own layout record, and two WebGPU
// implementations are two backends: a child running Vulkan and Dawn on one
// device sends a layout for each, and the parent keeps both (it once kept one
// layout per API field, so Dawn's, a second "webgpu" layout, was lost).
func TestEngineLayoutPerBackend(t *testing.T) {
	cfg := simConfig()
	cfg.APIs = []string{pass.Vulkan, pass.Dawn}
	run := runSimChild(t, cfg, simdevice.Faults{})
	cases := map[string]int{}
	for _, r := range run.recs {
		cases[r.Backend()]++
	}
	for _, api := range cfg.APIs {
		if run.layouts[api] != 1 || cases[api] == 0 {
			t.Errorf("%s: %d layout records and %d case records, want 1 and some", api, run.layouts[api], cases[api])
		}
	}
	checkRecords(t, cfg, run.recs, nil)
}

// A size split into parts (a 2-core pool with one child unit: plan.Part) runs
// every planned case exactly once across its children, reports one layout
// record per backend and one SizeResult whose counts are the records', and a
// crash in one part costs only that kernel's cases.
func TestEnginePartsSplitASize(t *testing.T) {
	cfg := simConfig()
	ks := simKernels(t, cfg)
	if got := poolParts([]DeviceRun{{Plan: plan.Plan{Sizes: []plan.SizePlan{{Size: simSize, LPWidth: 256}}}}}, 2); got != 2 {
		t.Fatalf("a 2-core pool with one lavapipe size splits it into %d parts, want 2", got)
	}
	for _, n := range []int{1, 2, 3} {
		if got := poolParts([]DeviceRun{{Plan: plan.Plan{Sizes: make([]plan.SizePlan, n)}}}, 8); got != 1 {
			t.Errorf("an in-process size (no lavapipe width, one device) got %d parts, want 1", got)
		}
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	faults, _ := json.Marshal(simdevice.Faults{Crash: "^" + regexp.QuoteMeta(ks[1]) + "$"})
	newCmd := func(int, plan.SizePlan) *exec.Cmd {
		cmd := exec.Command(self)
		cmd.Env = append(os.Environ(), simFaultsEnv+"="+string(faults))
		return cmd
	}
	pl := simPlan()
	pl.Sizes[0].LPWidth = 256 // a child, as a lavapipe size is
	recs := map[string]results.Record{}
	layouts := map[string]int{}
	var st results.Stats
	out := RunDevices([]DeviceRun{{Plan: pl, Config: cfg}}, 2, newCmd, &ChildWatch{Log: &strings.Builder{}}, func(r results.Record) {
		st.Add(r)
		if r.Case == results.LayoutCase {
			layouts[r.Backend()]++
			return
		}
		if _, dup := recs[r.Name()]; dup {
			t.Errorf("%s: two records", r.Name())
		}
		recs[r.Name()] = r
	})
	checkRecords(t, cfg, recs, map[string]string{ks[1]: results.Crash})
	if layouts[pass.Vulkan] != 1 || len(layouts) != 1 {
		t.Errorf("layout records by backend: %v, want one for vulkan", layouts)
	}
	sr := out[0].Sizes[0]
	whole := runSimChild(t, cfg, simdevice.Faults{Crash: "^" + regexp.QuoteMeta(ks[1]) + "$"})
	if sr.Err != nil || sr.Stats.Cases != st.Cases || sr.Stats.Unexpected != st.Unexpected || sr.Stats.Kernels != whole.st.Kernels {
		t.Errorf("the size's result %+v (err %v) is not its records' %+v with the whole size's %d kernels", sr.Stats, sr.Err, st, whole.st.Kernels)
	}
	for name, r := range whole.recs {
		if p := recs[name]; p.Status != r.Status || p.Lanes != r.Lanes {
			t.Errorf("%s: %s (%d lanes) in parts, %s (%d lanes) whole", name, p.Status, p.Lanes, r.Status, r.Lanes)
		}
	}
	var parts [3]int
	for _, k := range ks {
		parts[plan.ShardOf("part\x00"+k, 2)]++
	}
	if parts[1] == 0 || parts[2] == 0 {
		t.Errorf("the split put the kernels %v into the two parts: the test proves nothing", parts)
	}
}
