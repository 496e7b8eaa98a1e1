package score

// The control-flow score: every site of every control-flow mutant
// (mutate.ControlFlow) planted in the SPIR-V of the generated programs of a
// fixed seed set (harness/gen), run on the device and checked with the
// program's per-lane simulator (gen.Program.Check). It isolates the device the
// way the static score does (one child process per wave size, a new child
// after a crash) and adds a hang guard: an inverted loop condition can turn a
// trip count of 0 into 2^32, which lavapipe runs on the CPU for minutes, so a
// job that runs past CFOptions.Timeout has its child killed and counts as
// caught (a device that hangs on a program is a failure the rig reports).

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"waverig/harness/gen"
	"waverig/harness/mutate"
	"waverig/harness/pass"
	"waverig/harness/plan"
	"waverig/harness/vulkan"
)

// CFLastSeed bounds the generated programs the control-flow score plants its
// mutants in: seeds 1 to CFLastSeed. Constant so the score is a number that
// can be compared from run to run (gen.Generate is stable per seed). 40 is the
// smallest set that catches every mutant at every lavapipe size (4, 8, 16),
// measured: at wave size 4, "break dropped" and "break to continue" survive
// seeds 1-39 (their first catching site is seed 40's); seeds 1-40 take about
// 10 s per size on lavapipe (pipeline builds), 6 s to prepare.
const CFLastSeed = 40

// CFSeeds returns the seed set of the score.
func CFSeeds() []uint64 {
	s := make([]uint64, CFLastSeed)
	for i := range s {
		s[i] = uint64(i + 1)
	}
	return s
}

// CFTimeout is the default hang guard of one program run: the unmutated
// programs run in well under a second on lavapipe (pipeline build included).
const CFTimeout = 10 * time.Second

// CFJob is one module run at every size: a program unmutated (Mutant "") or
// one site of one mutant planted in it.
type CFJob struct {
	Seed   uint64 `json:"seed"`
	Mutant string `json:"mutant,omitempty"`
	Site   string `json:"site,omitempty"` // the SPIR-V id the mutant edits
	File   string `json:"file"`
}

// CFOutcome is a job's result at one size.
type CFOutcome struct {
	// Failures is the number of failures Program.Check reports; First is the
	// first of them.
	Failures int    `json:"failures,omitempty"`
	First    string `json:"first,omitempty"`
	// Err: the module did not run (the driver refused it, a dispatch error).
	Err   string `json:"err,omitempty"`
	Crash bool   `json:"crash,omitempty"`
	Hang  bool   `json:"hang,omitempty"`
	// NotCounted: the program fails unmutated at this size, so its mutants
	// tell nothing there.
	NotCounted bool `json:"notCounted,omitempty"`
	Millis     int  `json:"ms,omitempty"`
}

// Shows says whether an outcome tells a mutant apart: a failing check, a
// module that does not run, a crash or a hang.
func (o CFOutcome) Shows() bool { return o.Failures > 0 || o.Err != "" || o.Crash || o.Hang }

// Why is the outcome in a few words.
func (o CFOutcome) Why() string {
	switch {
	case o.Hang:
		return "hang"
	case o.Crash:
		return "crash"
	case o.Err != "":
		return "error: " + o.Err
	case o.Failures > 0:
		return o.First
	}
	return "passed"
}

// CFReject is a mutant site spirv-val rejects (not planted: an invalid module
// is no bug a compiler may emit).
type CFReject struct {
	Seed   uint64
	Mutant string
	Site   string
	Msg    string
}

// CFOptions choose the device, the sizes and the seeds.
type CFOptions struct {
	Device int
	Sizes  []uint32 // nil: every size the device's plan runs by default
	Seeds  []uint64 // nil: CFSeeds()
	// Timeout is the hang guard per job (0: CFTimeout).
	Timeout time.Duration
	Self    string // as Options.Self
	Log     io.Writer
}

// CFResult is one run of the control-flow score.
type CFResult struct {
	Device   string
	Sizes    []uint32
	Skipped  map[uint32]string
	Seeds    []uint64
	Jobs     []CFJob
	Outcomes []map[uint32]CFOutcome
	Rejected []CFReject
	// Elapsed is the time each size took (its child processes).
	Elapsed map[uint32]time.Duration
}

// RunCF computes the control-flow score.
func RunCF(opt CFOptions) (*CFResult, error) {
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
	if opt.Seeds == nil {
		opt.Seeds = CFSeeds()
	}
	if opt.Timeout == 0 {
		opt.Timeout = CFTimeout
	}
	start := time.Now()
	rig, err := pass.New(opt.Device, pass.Config{Compilers: []string{pass.Ours}, NoExpectations: true})
	if err != nil {
		return nil, err
	}
	dev := rig.Device()
	rig.Close()
	p := plan.Make(dev, opt.Sizes)
	dir, err := os.MkdirTemp("", "waverig-cfscore")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	res := &CFResult{Device: pass.DeviceString(dev), Skipped: map[uint32]string{}, Seeds: opt.Seeds, Elapsed: map[uint32]time.Duration{}}
	if res.Jobs, res.Rejected, err = prepareCF(opt.Seeds, dir); err != nil {
		return nil, err
	}
	logf("cfscore: %d programs, %d mutant modules, %d rejected by spirv-val; prepared in %s",
		len(opt.Seeds), len(res.Jobs)-len(opt.Seeds), len(res.Rejected), time.Since(start).Round(time.Second))
	res.Outcomes = make([]map[uint32]CFOutcome, len(res.Jobs))
	for i := range res.Outcomes {
		res.Outcomes[i] = map[uint32]CFOutcome{}
	}
	res.Sizes, err = eachSize(p, res.Skipped, nil,
		func(sp plan.SizePlan) ([]CFOutcome, error) { return runCFSize(opt, sp, res.Jobs, dir, logf) },
		func(size uint32, out []CFOutcome, took time.Duration) {
			res.Elapsed[size] = took
			for i, o := range out {
				res.Outcomes[i][size] = o
			}
		})
	return res, err
}

// prepareCF generates and compiles every program, plants every site of every
// mutant, validates each module and writes the valid ones to dir: per seed the
// unmutated program first, then its mutants in mutate.ControlFlow's order.
func prepareCF(seeds []uint64, dir string) ([]CFJob, []CFReject, error) {
	type work struct {
		job   CFJob
		text  string
		words []uint32
		index int // the site's index (-1: unmutated)
	}
	var todo []work
	for _, seed := range seeds {
		p := gen.Generate(seed)
		words, err := gen.Compile(p.HLSL())
		if err != nil {
			return nil, nil, fmt.Errorf("seed %d: %v", seed, err)
		}
		text, err := mutate.Disassemble(words)
		if err != nil {
			return nil, nil, fmt.Errorf("seed %d: %v", seed, err)
		}
		todo = append(todo, work{CFJob{Seed: seed}, text, words, -1})
		for _, m := range mutate.ControlFlow {
			for i, site := range m.Sites(text) {
				todo = append(todo, work{CFJob{Seed: seed, Mutant: m.Name, Site: site}, text, words, i})
			}
		}
	}
	type done struct {
		reject string
		err    error
	}
	results := make([]done, len(todo))
	var wg sync.WaitGroup
	next := make(chan int)
	// Assembling and validating are processes: two at a time, as prepare.
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				t := &todo[i]
				t.job.File = filepath.Join(dir, fmt.Sprintf("cf%d.spv", i))
				words := t.words
				var err error
				if t.index >= 0 {
					m, _ := mutate.FindCF(t.job.Mutant)
					var text string
					if text, err = m.Apply(t.text, t.index); err == nil {
						words, err = mutate.Assemble(text, mutate.Env(t.words))
					}
					if err == nil {
						if verr := vulkan.Validate(words); verr != nil {
							results[i].reject = firstLine(verr.Error())
							continue
						}
					}
				}
				if err == nil {
					err = os.WriteFile(t.job.File, wordsToBytes(words), 0o644)
				}
				results[i].err = err
			}
		}()
	}
	for i := range todo {
		next <- i
	}
	close(next)
	wg.Wait()
	var jobs []CFJob
	var rejected []CFReject
	for i, d := range results {
		j := todo[i].job
		switch {
		case d.err != nil:
			return nil, nil, fmt.Errorf("seed %d mutant %q site %s: %v", j.Seed, j.Mutant, j.Site, d.err)
		case d.reject != "":
			rejected = append(rejected, CFReject{Seed: j.Seed, Mutant: j.Mutant, Site: j.Site, Msg: d.reject})
		default:
			jobs = append(jobs, j)
		}
	}
	return jobs, rejected, nil
}

// CFChildEnv names the request file of a control-flow score child.
const CFChildEnv = "WAVERIG_CFSCORE_CHILD"

// cfRequest is what a child runs: Jobs from Start on, at WaveSize.
type cfRequest struct {
	Device   int     `json:"device"`
	WaveSize uint32  `json:"waveSize"`
	Lavapipe bool    `json:"lavapipe"` // the size comes from LP_NATIVE_VECTOR_WIDTH
	Jobs     []CFJob `json:"jobs"`
	Start    int     `json:"start"`
	// Broken are the seeds whose unmutated program does not pass at this size.
	Broken map[uint64]bool `json:"broken,omitempty"`
}

// IsCFChild reports whether this process is a control-flow score child.
func IsCFChild() bool { return os.Getenv(CFChildEnv) != "" }

// CFChildMain runs a child's request and returns its exit status.
func CFChildMain(w io.Writer) int {
	send := childSender[CFOutcome](w)
	var req cfRequest
	if err := readRequest(CFChildEnv, &req); err != nil {
		send(childMessage[CFOutcome]{Error: err.Error()})
		return 3
	}
	d, err := gen.OpenDevice(req.Device)
	if err != nil {
		send(childMessage[CFOutcome]{Error: err.Error()})
		return 3
	}
	defer d.Close()
	// The parent validated every module before it was planted.
	d.Validate = false
	if req.Lavapipe {
		if d.WaveSize() != req.WaveSize {
			send(childMessage[CFOutcome]{Unavailable: fmt.Sprintf("the device reports wave size %d with LP_NATIVE_VECTOR_WIDTH=%s, not %d", d.WaveSize(), os.Getenv("LP_NATIVE_VECTOR_WIDTH"), req.WaveSize)})
			return 0
		}
	} else if err := d.SetWaveSize(req.WaveSize); err != nil {
		send(childMessage[CFOutcome]{Unavailable: err.Error()})
		return 0
	}
	broken := req.Broken
	if broken == nil {
		broken = map[uint64]bool{}
	}
	progs := map[uint64]*gen.Program{}
	for i := req.Start; i < len(req.Jobs); i++ {
		j := req.Jobs[i]
		i := i
		if j.Mutant != "" && broken[j.Seed] {
			// Not run, so no begin line: the hang guard times only dispatches.
			send(childMessage[CFOutcome]{Index: i, Outcome: &CFOutcome{NotCounted: true}})
			continue
		}
		send(childMessage[CFOutcome]{Begin: &i})
		o := runCFJob(d, progs, j)
		noteCF(j, o, broken)
		send(childMessage[CFOutcome]{Index: i, Outcome: &o})
	}
	return 0
}

// noteCF: an unmutated program that does not pass makes its mutants
// meaningless at this size.
func noteCF(j CFJob, o CFOutcome, broken map[uint64]bool) {
	if j.Mutant == "" && o.Shows() {
		broken[j.Seed] = true
	}
}

func runCFJob(d *gen.Device, progs map[uint64]*gen.Program, j CFJob) CFOutcome {
	p := progs[j.Seed]
	if p == nil {
		p = gen.Generate(j.Seed)
		progs[j.Seed] = p
	}
	data, err := os.ReadFile(j.File)
	if err != nil {
		return CFOutcome{Err: err.Error()}
	}
	start := time.Now()
	words, err := d.RunModule(p, bytesToWords(data))
	o := CFOutcome{Millis: int(time.Since(start).Milliseconds())}
	if err != nil {
		o.Err = firstLine(err.Error())
		return o
	}
	fails := p.Check(words, d.Contract())
	o.Failures = len(fails)
	if len(fails) > 0 {
		o.First = fails[0].String()
	}
	return o
}

// runCFSize runs every job at one size in child processes: a new child
// resumes after a crash or after a hang the guard killed (childLoop).
func runCFSize(opt CFOptions, sp plan.SizePlan, jobs []CFJob, dir string, logf func(string, ...any)) ([]CFOutcome, error) {
	start := time.Now()
	req := cfRequest{Device: opt.Device, WaveSize: sp.Size, Lavapipe: sp.LPWidth > 0, Jobs: jobs, Broken: map[uint64]bool{}}
	out, err := childLoop[CFOutcome]{
		Self: opt.Self, Env: CFChildEnv, Prefix: "cfrequest", Dir: dir, Size: sp,
		Request: func(from int) any { req.Start = from; return req },
		Note: func(i int, o CFOutcome) {
			noteCF(jobs[i], o, req.Broken)
			if d := time.Duration(o.Millis) * time.Millisecond; d > opt.Timeout/4 {
				logf("cfscore: size %d: %s took %s (%s)", sp.Size, cfName(jobs[i]), d.Round(time.Millisecond), o.Why())
			}
		},
		Lost: func(hung bool, werr error) CFOutcome {
			if hung {
				return CFOutcome{Hang: true, Err: fmt.Sprintf("ran past the %s hang guard (killed)", opt.Timeout)}
			}
			return CFOutcome{Crash: true, Err: fmt.Sprintf("the driver crashed the process (%v)", werr)}
		},
		Guard:       opt.Timeout,
		MaxRestarts: 256,
		Logf:        func(f string, a ...any) { logf("cfscore: "+f, a...) },
		Name:        func(i int) string { return cfName(jobs[i]) },
	}.run(len(jobs))
	if err != nil {
		return nil, err
	}
	logf("cfscore: size %d done (%d jobs) in %s", sp.Size, len(jobs), time.Since(start).Round(time.Second))
	return out, nil
}

func cfName(j CFJob) string {
	if j.Mutant == "" {
		return fmt.Sprintf("seed %d (unmutated)", j.Seed)
	}
	return fmt.Sprintf("seed %d %q site %s", j.Seed, j.Mutant, j.Site)
}
