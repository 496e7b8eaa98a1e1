// Package score measures the rig's mutation score on a real device: every
// planted bug of harness/mutate is applied to waverig's SPIR-V of the kernels
// of the operations it names, validated with spirv-val, run at every wave size
// the device offers and checked with kernels.Check. A mutant is caught when one
// case of one kernel fails at one size; the same kernels run unmutated at every
// size must not fail at all (false failures).
//
// On lavapipe a wave size is fixed when the driver loads, so each size runs in
// a child process (the same reason harness/child.go exists): the parent
// compiles, mutates and validates every module once, writes them to a
// directory, and each child runs the list of jobs at its size and streams one
// line per job. A driver crash kills the child, not the score: the job it was
// running is a crash (the rig reports crashes as failures, so a crashing
// mutant is caught) and a new child resumes after it.
package score

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"waverig/harness/kernels"
	"waverig/harness/mutate"
	"waverig/harness/pass"
	"waverig/harness/plan"
	"waverig/harness/vulkan"
)

// Shapes are the workgroup shapes of the kernels each mutant runs against
// (a whole number of waves, and a partial last wave); the kernels are the
// operations' "base" type group (32-bit int, uint, float and their vectors,
// or bool), the types every device runs.
var Shapes = []string{"whole", "partial"}

// RoundTrip is the Mutant of a kernel's round-trip job.
const RoundTrip = "(round trip)"

// Job is one module run at every size: a mutant of a kernel, the kernel
// unmutated (Mutant ""), or the kernel disassembled and reassembled unchanged
// (Mutant RoundTrip: the control that shows a mutant's failure is its edit's,
// not spirv-dis/spirv-as's).
type Job struct {
	Mutant string `json:"mutant,omitempty"`
	Kernel string `json:"kernel"`
	// File holds the mutated module ("" for the unmutated kernel, which the
	// child compiles itself).
	File string `json:"file,omitempty"`
}

// Outcome is a job's result at one wave size.
type Outcome struct {
	Cases  int    `json:"cases"`
	Failed int    `json:"failed"`
	Err    string `json:"err,omitempty"`
	Crash  bool   `json:"crash,omitempty"`
	// Skipped: the mutant was already caught at this size in an earlier
	// kernel, so this one was not run (the score needs one catch per size;
	// running the rest would double the score's time).
	Skipped bool `json:"skipped,omitempty"`
}

// counts says whether an outcome shows the mutant: a failing case, a crash or
// a module the driver refused.
func (o Outcome) counts() bool { return o.Failed > 0 || o.Crash || o.Err != "" }

// Options choose the device and the sizes.
type Options struct {
	Device int
	// Sizes are the wave sizes to try (nil: every size the device's plan runs
	// by default; lavapipe without AVX-512 leaves 16 out).
	Sizes []uint32
	// Self is the binary whose main or TestMain calls ChildMain first when
	// ChildEnv is set (default: this executable).
	Self string
	// Log receives progress lines (nil: none).
	Log io.Writer
}

// Result is the score of one run.
type Result struct {
	Device string
	Sizes  []uint32
	// Skipped are the sizes of the device's plan that did not run, with why.
	Skipped map[uint32]string
	Jobs    []Job
	// Outcomes[i][size] is job i at a size.
	Outcomes []map[uint32]Outcome
	// Rejected maps a mutant to spirv-val's message for each kernel it made
	// invalid.
	Rejected map[string]map[string]string
}

// Run computes the score.
func Run(opt Options) (*Result, error) {
	logf := func(format string, a ...any) {
		if opt.Log != nil {
			fmt.Fprintf(opt.Log, format+"\n", a...)
		}
	}
	if opt.Self == "" {
		self, err := os.Executable()
		if err != nil {
			return nil, err
		}
		opt.Self = self
	}
	start := time.Now()
	rig, err := pass.New(opt.Device, pass.Config{Compilers: []string{pass.Ours}, NoExpectations: true})
	if err != nil {
		return nil, err
	}
	dev := rig.Device()
	p := plan.Make(dev, opt.Sizes)
	dir, err := os.MkdirTemp("", "waverig-score")
	if err != nil {
		rig.Close()
		return nil, err
	}
	defer os.RemoveAll(dir)
	res := &Result{Device: pass.DeviceString(dev), Skipped: map[uint32]string{}, Rejected: map[string]map[string]string{}}
	ks := Kernels()
	res.Jobs, err = prepare(rig, ks, dir, res.Rejected)
	rig.Close()
	if err != nil {
		return nil, err
	}
	logf("score: %d kernels, %d mutant modules (round trips included), %d rejected by spirv-val; prepared in %s", len(ks), len(res.Jobs)-len(ks), countRejected(res.Rejected), time.Since(start).Round(time.Second))
	res.Outcomes = make([]map[uint32]Outcome, len(res.Jobs))
	for i := range res.Outcomes {
		res.Outcomes[i] = map[uint32]Outcome{}
	}
	res.Sizes, err = eachSize(p, res.Skipped,
		func(sp plan.SizePlan) string {
			if sp.InProcess && sp.Size != dev.SubgroupSize {
				// RunWithSPIRV runs at the device's own size; a device with size
				// control is scored at that size only.
				return "RunWithSPIRV runs at the device's own wave size only"
			}
			return ""
		},
		func(sp plan.SizePlan) ([]Outcome, error) { return runSize(opt, sp, res.Jobs, dir, logf) },
		func(size uint32, out []Outcome, _ time.Duration) {
			for i, o := range out {
				res.Outcomes[i][size] = o
			}
		})
	return res, err
}

func countRejected(r map[string]map[string]string) int {
	n := 0
	for _, m := range r {
		n += len(m)
	}
	return n
}

// Kernels are the compute kernels the mutants run against: the base type
// group of every operation some mutant names, in Shapes. Built once (the
// matrix takes a while to generate); callers must not modify them.
var Kernels = sync.OnceValue(kernelsOfMutants)

func kernelsOfMutants() []kernels.Kernel {
	ops := map[string]bool{}
	for _, m := range mutate.All {
		for _, op := range m.Ops {
			ops[op] = true
		}
	}
	var names []string
	for op := range ops {
		names = append(names, regexp.QuoteMeta(op))
	}
	sort.Strings(names)
	all := kernels.Matrix(kernels.Filter{Ops: regexp.MustCompile("^(" + strings.Join(names, "|") + ")$"), Shapes: Shapes})
	var out []kernels.Kernel
	for _, k := range all {
		if (k.Stage == "" || k.Stage == kernels.Compute) && strings.Contains(k.Name, "_base_") {
			out = append(out, k)
		}
	}
	return out
}

// opOf is the operation a kernel tests.
func opOf(k kernels.Kernel) string { return k.Cases[0].OpName() }

// prepare compiles every kernel, applies every mutant that names its
// operation and matches its module, validates the result and writes it to
// dir. The unmutated kernels come first. Invalid mutants go to rejected.
func prepare(rig *pass.Rig, ks []kernels.Kernel, dir string, rejected map[string]map[string]string) ([]Job, error) {
	var jobs []Job
	type work struct {
		m     mutate.Mutation
		k     kernels.Kernel
		words []uint32
		text  string
	}
	var todo []work
	for _, k := range ks {
		jobs = append(jobs, Job{Kernel: k.Name})
		words, err := rig.CompiledSPIRV(k)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", k.Name, err)
		}
		text, err := mutate.Disassemble(words)
		if err != nil {
			return nil, err
		}
		todo = append(todo, work{mutate.Mutation{Name: RoundTrip, Apply: func(t string) (string, error) { return t, nil }}, k, words, text})
		for _, m := range mutate.All {
			if names(m.Ops, opOf(k)) && m.Applies(text) {
				todo = append(todo, work{m, k, words, text})
			}
		}
	}
	// Assembling and validating are processes: two at a time, one per core.
	type done struct {
		job    Job
		reject string
		err    error
	}
	results := make([]done, len(todo))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				t := todo[i]
				d := done{job: Job{Mutant: t.m.Name, Kernel: t.k.Name, File: filepath.Join(dir, fmt.Sprintf("m%d.spv", i))}}
				text, err := t.m.Apply(t.text)
				var words []uint32
				if err == nil {
					words, err = mutate.Assemble(text, mutate.Env(t.words))
				}
				if err == nil {
					if verr := vulkan.Validate(words); verr != nil {
						d.reject = firstLine(verr.Error())
					}
				}
				if err == nil && d.reject == "" {
					err = os.WriteFile(d.job.File, wordsToBytes(words), 0o644)
				}
				d.err = err
				results[i] = d
			}
		}()
	}
	for i := range todo {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, d := range results {
		switch {
		case d.err != nil:
			return nil, fmt.Errorf("mutant %q of %s: %v", d.job.Mutant, d.job.Kernel, d.err)
		case d.reject != "":
			if rejected[d.job.Mutant] == nil {
				rejected[d.job.Mutant] = map[string]string{}
			}
			rejected[d.job.Mutant][d.job.Kernel] = d.reject
		default:
			jobs = append(jobs, d.job)
		}
	}
	return jobs, nil
}

func names(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

var lineRE = regexp.MustCompile(`^line \d+: `)

// firstLine is spirv-val's first error line, the one that names the rule,
// without its line number (which moves whenever the compiler's output does).
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if i := strings.Index(l, "error:"); i >= 0 {
			return lineRE.ReplaceAllString(strings.TrimSpace(l[i+len("error:"):]), "")
		}
	}
	return strings.TrimSpace(strings.SplitN(s, "\n", 2)[0])
}

func wordsToBytes(w []uint32) []byte {
	b := make([]byte, 4*len(w))
	for i, x := range w {
		b[4*i], b[4*i+1], b[4*i+2], b[4*i+3] = byte(x), byte(x>>8), byte(x>>16), byte(x>>24)
	}
	return b
}

func bytesToWords(b []byte) []uint32 {
	w := make([]uint32, len(b)/4)
	for i := range w {
		w[i] = uint32(b[4*i]) | uint32(b[4*i+1])<<8 | uint32(b[4*i+2])<<16 | uint32(b[4*i+3])<<24
	}
	return w
}

// ChildEnv names the request file of a score child process.
const ChildEnv = "WAVERIG_SCORE_CHILD"

// request is what a child runs: Jobs from Start on, at the size its
// LP_NATIVE_VECTOR_WIDTH gives (WaveSize checks it).
type request struct {
	Device   int    `json:"device"`
	WaveSize uint32 `json:"waveSize"`
	Jobs     []Job  `json:"jobs"`
	Start    int    `json:"start"`
	// Broken are kernels whose unmutated module failed to run at this size
	// (a predecessor found out): their mutants are not run.
	Broken map[string]string `json:"broken,omitempty"`
	// Caught are the mutants caught at this size so far (by a predecessor):
	// their later jobs are skipped.
	Caught map[string]bool `json:"caught,omitempty"`
}

// IsChild reports whether this process is a score child.
func IsChild() bool { return os.Getenv(ChildEnv) != "" }

// ChildMain runs a child's request and returns its exit status.
func ChildMain(w io.Writer) int {
	send := childSender[Outcome](w)
	var req request
	if err := readRequest(ChildEnv, &req); err != nil {
		send(childMessage[Outcome]{Error: err.Error()})
		return 3
	}
	rig, err := pass.New(req.Device, pass.Config{Compilers: []string{pass.Ours}, NoExpectations: true})
	if err != nil {
		send(childMessage[Outcome]{Error: err.Error()})
		return 3
	}
	defer rig.Close()
	if req.WaveSize != 0 && rig.WaveSize() != req.WaveSize {
		send(childMessage[Outcome]{Unavailable: fmt.Sprintf("the device reports wave size %d with LP_NATIVE_VECTOR_WIDTH=%s, not %d", rig.WaveSize(), os.Getenv("LP_NATIVE_VECTOR_WIDTH"), req.WaveSize)})
		return 0
	}
	byName := map[string]kernels.Kernel{}
	for _, k := range Kernels() {
		byName[k.Name] = k
	}
	broken, caught := req.Broken, req.Caught
	if broken == nil {
		broken = map[string]string{}
	}
	if caught == nil {
		caught = map[string]bool{}
	}
	for i := req.Start; i < len(req.Jobs); i++ {
		j := req.Jobs[i]
		i := i
		if caught[j.Mutant] {
			send(childMessage[Outcome]{Index: i, Outcome: &Outcome{Skipped: true}})
			continue
		}
		send(childMessage[Outcome]{Begin: &i})
		o := runJob(rig, byName, j, broken)
		note(j, o, broken, caught)
		send(childMessage[Outcome]{Index: i, Outcome: &o})
	}
	return 0
}

// note records what an outcome tells the jobs after it: an unmutated kernel
// (or its round trip) that does not pass makes its mutants meaningless at this
// size; a mutant that shows is caught, and its other kernels are skipped.
func note(j Job, o Outcome, broken map[string]string, caught map[string]bool) {
	switch {
	case j.Mutant == "" || j.Mutant == RoundTrip:
		if o.counts() {
			broken[j.Kernel] = o.Err
		}
	case o.counts():
		if _, bad := broken[j.Kernel]; !bad {
			caught[j.Mutant] = true
		}
	}
}

func runJob(rig *pass.Rig, byName map[string]kernels.Kernel, j Job, broken map[string]string) Outcome {
	k, ok := byName[j.Kernel]
	if !ok {
		return Outcome{Err: "no kernel " + j.Kernel}
	}
	if _, bad := broken[j.Kernel]; bad && j.Mutant != "" && j.Mutant != RoundTrip {
		return Outcome{Err: "the unmutated kernel does not pass at this size"}
	}
	var words []uint32
	var err error
	if j.File == "" {
		words, err = rig.CompiledSPIRV(k)
	} else {
		var data []byte
		data, err = os.ReadFile(j.File)
		words = bytesToWords(data)
	}
	if err != nil {
		return Outcome{Err: err.Error()}
	}
	crs, err := rig.RunWithSPIRV(k, words)
	if err != nil {
		return Outcome{Err: firstLine(err.Error())}
	}
	o := Outcome{Cases: len(crs)}
	for _, cr := range crs {
		if !cr.Passed {
			o.Failed++
		}
	}
	return o
}

// runSize runs every job at one lavapipe size in child processes, restarting
// after a crash (childLoop).
func runSize(opt Options, sp plan.SizePlan, jobs []Job, dir string, logf func(string, ...any)) ([]Outcome, error) {
	start := time.Now()
	req := request{Device: opt.Device, Jobs: jobs, Broken: map[string]string{}, Caught: map[string]bool{}}
	if sp.LPWidth > 0 {
		req.WaveSize = sp.Size
	}
	out, err := childLoop[Outcome]{
		Self: opt.Self, Env: ChildEnv, Prefix: "request", Dir: dir, Size: sp,
		Request: func(from int) any { req.Start = from; return req },
		Note:    func(i int, o Outcome) { note(jobs[i], o, req.Broken, req.Caught) },
		Lost: func(_ bool, werr error) Outcome {
			return Outcome{Crash: true, Err: fmt.Sprintf("the driver crashed the process (%v)", werr)}
		},
		MaxRestarts: 64,
		Logf:        func(f string, a ...any) { logf("score: "+f, a...) },
		Name:        func(i int) string { return name(jobs[i]) },
	}.run(len(jobs))
	if err != nil {
		return nil, err
	}
	ran := 0
	for _, o := range out {
		if !o.Skipped && (o.Cases > 0 || o.Err != "") {
			ran++
		}
	}
	logf("score: size %d done (%d jobs, %d run) in %s", sp.Size, len(jobs), ran, time.Since(start).Round(time.Second))
	return out, nil
}

func name(j Job) string {
	if j.Mutant == "" {
		return j.Kernel + " (unmutated)"
	}
	return fmt.Sprintf("%q in %s", j.Mutant, j.Kernel)
}

func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, " | ")
}
