package harness

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync/atomic"
	"time"

	"waverig/devices/icd"
	"waverig/harness/expect"
	"waverig/harness/kernels"
	"waverig/harness/pass"
	"waverig/harness/plan"
	"waverig/harness/results"
)

// The child-process protocol, the one way the rig reaches a lavapipe wave size
// (LP_NATIVE_VECTOR_WIDTH is read once, when the driver loads) and the way a run
// of several devices keeps one device's driver crash from stopping another
// (multi.go): the parent re-executes a binary (waverig, or a suite's test
// binary) with ChildEnv holding a ChildRequest as JSON; the binary's main or
// TestMain calls ChildMain first. The child streams childMsg lines on stdout;
// before each kernel it sends the records that kernel's cases get if the driver
// kills the process, so the parent never rebuilds them from its own copy of the
// configuration.

// ChildEnv carries the ChildRequest of a child process: the JSON itself, or
// "@PATH" naming a file that holds it when it is too large for one
// environment string (Linux caps each at 128 KiB: a case list of the suites'
// CI tier or a big baseline's fails.csv does not fit; exec fails with E2BIG).
const ChildEnv = "WAVERIG_CHILD"

// maxEnvRequest is the largest request passed in the environment itself.
const maxEnvRequest = 32 << 10

// childRequestValue is ChildEnv's value for a request: the JSON, or the JSON
// written to *file (created on first use, rewritten for each restart) as "@PATH".
func childRequestValue(data []byte, file *string) (string, error) {
	if len(data) <= maxEnvRequest {
		return string(data), nil
	}
	if *file == "" {
		f, err := os.CreateTemp("", "waverig-child-*.json")
		if err != nil {
			return "", fmt.Errorf("child request: %v", err)
		}
		*file = f.Name()
		f.Close()
	}
	if err := os.WriteFile(*file, data, 0o600); err != nil {
		return "", fmt.Errorf("child request: %v", err)
	}
	return "@" + *file, nil
}

// childRequestData reads ChildEnv's value back into the request's JSON.
func childRequestData(value string) ([]byte, error) {
	if path, ok := strings.CutPrefix(value, "@"); ok {
		return os.ReadFile(path)
	}
	return []byte(value), nil
}

// ChildRequest is everything a child needs.
type ChildRequest struct {
	Device int `json:"device"`
	// Driver is DriverString of the parent's device Device: the child refuses
	// to run on another (its loader saw other drivers, so the index moved).
	Driver   string `json:"driver,omitempty"`
	WaveSize uint32 `json:"waveSize"` // the size the device must report (lavapipe); 0: no check
	// RunSize is the size the rig asks for through size control (a device with
	// several sizes run in a child because the run has several devices); 0: the
	// device's own size.
	RunSize uint32     `json:"runSize,omitempty"`
	Config  wireConfig `json:"config"`
	// ResumeAfter skips every kernel/compiler pair up to and including this one
	// (the one the previous child died in).
	ResumeAfter string `json:"resumeAfter,omitempty"`
	// Crashed are the kernel/compiler pairs that killed a child so far: a
	// restarted child runs the other targets of the kernel it resumes in, but
	// never one of these again (two targets of one kernel may both crash).
	Crashed []string `json:"crashed,omitempty"`
}

// wireConfig is Config as data.
type wireConfig struct {
	Ops            string            `json:"ops,omitempty"`
	Types          []string          `json:"types,omitempty"`
	Patterns       []kernels.Pattern `json:"patterns,omitempty"`
	Shapes         []string          `json:"shapes,omitempty"`
	Cases          map[string]bool   `json:"cases,omitempty"`
	Compilers      []string          `json:"compilers,omitempty"`
	NoExpectations bool              `json:"noExpectations,omitempty"`
	Retries        int               `json:"retries,omitempty"`
	Expectations   []wireSet         `json:"expectations,omitempty"` // nil: the built-in ones
	ReproDir       string            `json:"reproDir,omitempty"`
	APIs           []string          `json:"apis,omitempty"`
	Stages         []string          `json:"stages,omitempty"`
	Shard          plan.Shard        `json:"shard,omitzero"`
	Part           plan.Part         `json:"part,omitzero"`
	Fraction       int               `json:"fraction,omitempty"`
	GenSeeds       []uint64          `json:"genSeeds,omitempty"`
}

// wireSet is a baseline as a child gets it: its files' texts.
type wireSet struct {
	Name  string
	Files map[string]string
}

func toWire(c pass.Config) wireConfig {
	w := wireConfig{Types: c.Filter.Types, Patterns: c.Filter.Patterns, Shapes: c.Filter.Shapes, Cases: c.Filter.Cases,
		Compilers: c.Compilers, NoExpectations: c.NoExpectations, Retries: c.Retries, ReproDir: c.ReproDir, APIs: c.APIs, Stages: c.Stages, Shard: c.Shard, Part: c.Part, Fraction: c.Fraction, GenSeeds: c.GenSeeds}
	if c.Filter.Ops != nil {
		w.Ops = c.Filter.Ops.String()
	}
	for _, s := range c.Expectations {
		w.Expectations = append(w.Expectations, wireSet{s.Name, s.Files})
	}
	return w
}

func fromWire(w wireConfig) (pass.Config, error) {
	c := pass.Config{Filter: kernels.Filter{Types: w.Types, Patterns: w.Patterns, Shapes: w.Shapes, Cases: w.Cases},
		Compilers: w.Compilers, NoExpectations: w.NoExpectations, Retries: w.Retries, ReproDir: w.ReproDir, APIs: w.APIs, Stages: w.Stages, Shard: w.Shard, Part: w.Part, Fraction: w.Fraction, GenSeeds: w.GenSeeds}
	if w.Ops != "" {
		re, err := regexp.Compile(w.Ops)
		if err != nil {
			return c, err
		}
		c.Filter.Ops = re
	}
	for _, s := range w.Expectations {
		set, err := expect.Parse(s.Name, s.Files)
		if err != nil {
			return c, err
		}
		c.Expectations = append(c.Expectations, set)
	}
	return c, nil
}

// childMsg is one line a child writes to its stdout.
type childMsg struct {
	Record *results.Record `json:"record,omitempty"`
	Stats  *results.Stats  `json:"stats,omitempty"`
	// Counts are one kernel's parity counts, sent after its records (the
	// final Stats then carries none of them: a crash cannot lose them).
	Counts *results.Stats `json:"counts,omitempty"`
	Error  string         `json:"error,omitempty"`
	// SizeUnavailable: the device does not report the wave size asked for.
	SizeUnavailable string `json:"sizeUnavailable,omitempty"`
	// Begin names the kernel/compiler pair the child starts next, and Pending
	// holds the records its cases get if the driver kills the process.
	Begin   string           `json:"begin,omitempty"`
	Pending []results.Record `json:"pending,omitempty"`
}

// SizeUnavailableError says a child's device reports another wave size than the
// one its LP_NATIVE_VECTOR_WIDTH should give.
type SizeUnavailableError struct{ Msg string }

func (e *SizeUnavailableError) Error() string { return e.Msg }

// IsChild reports whether this process was started as a rig child.
func IsChild() bool { return os.Getenv(ChildEnv) != "" }

// ChildMain is the body of a child process: read the request, open the device,
// check that it reports the expected size, run the matrix and stream messages to
// w. It returns the process exit status.
func ChildMain(w io.Writer) int { return ChildMainOn(w, OpenDevice) }

// Opener opens the rig of a child process for its request.
type Opener func(req ChildRequest, cfg pass.Config) (*pass.Rig, error)

// OpenDevice opens the request's Vulkan device (and its WebGPU adapter).
func OpenDevice(req ChildRequest, cfg pass.Config) (*pass.Rig, error) {
	return pass.New(req.Device, cfg)
}

// ChildMainOn is ChildMain on the rig open gives: the engine's tests open a
// simulated device (harness/simdevice), so that crashes, hangs and resumes
// are tested without a GPU.
func ChildMainOn(w io.Writer, open Opener) int {
	enc := json.NewEncoder(w)
	send := func(m childMsg) {
		if err := enc.Encode(m); err != nil {
			// The parent is gone: nobody will read what follows.
			os.Exit(3)
		}
	}
	fail := func(err error) int {
		send(childMsg{Error: err.Error()})
		return 3
	}
	var req ChildRequest
	data, err := childRequestData(os.Getenv(ChildEnv))
	if err != nil {
		return fail(fmt.Errorf("bad %s: %v", ChildEnv, err))
	}
	if err := json.Unmarshal(data, &req); err != nil {
		return fail(fmt.Errorf("bad %s: %v", ChildEnv, err))
	}
	cfg, err := fromWire(req.Config)
	if err != nil {
		return fail(fmt.Errorf("bad %s: %v", ChildEnv, err))
	}
	rig, err := open(req, cfg)
	if err != nil {
		return fail(err)
	}
	defer rig.Close()
	if got := pass.DriverString(rig.Device()); req.Driver != "" && got != req.Driver {
		return fail(fmt.Errorf("device %d of the child process is %s (%s), the parent's is %s: the child's Vulkan loader sees other drivers (%s, %s or %s changed?)",
			req.Device, rig.Device().Name, got, req.Driver, icd.DriverFilesEnv, icd.AddDriverFilesEnv, icd.DirEnv))
	}
	if got := rig.WaveSize(); req.WaveSize != 0 && got != req.WaveSize {
		send(childMsg{SizeUnavailable: fmt.Sprintf("device %s reports subgroupSize %d with LP_NATIVE_VECTOR_WIDTH=%s, expected %d (AVX-512: %v)",
			rig.Device().Name, got, os.Getenv("LP_NATIVE_VECTOR_WIDTH"), req.WaveSize, plan.HasAVX512())})
		return 0
	}
	rig.SetChild(pass.ChildHooks{
		ResumeAfter: req.ResumeAfter,
		Crashed:     req.Crashed,
		OnBegin:     func(key string, pending []results.Record) { send(childMsg{Begin: key, Pending: pending}) },
		OnCounts:    func(st results.Stats) { send(childMsg{Counts: &st}) },
	})
	st, err := rig.Run(req.RunSize, func(r results.Record) { send(childMsg{Record: &r}) })
	if err != nil {
		return fail(err)
	}
	send(childMsg{Stats: &st})
	return 0
}

// maxRestarts bounds how many driver crashes one wave size may survive.
const maxRestarts = 64

// RunChild runs one wave size of one device in child processes made by newCmd
// (a command for a binary whose main calls ChildMain) and forwards their records,
// each marked with deviceIndex. A lavapipe size (sp.LPWidth > 0) gets its
// LP_NATIVE_VECTOR_WIDTH and the child checks the size the device reports; a
// size-control size (sp.InProcess) is asked for by the child's rig. emit is
// called from this goroutine only; RunDevices serialises it across children.
//
// A driver that crashes (lavapipe aborts inside LLVM on some pipelines) kills the
// child, not the run: the cases of the kernel it was running become the error
// records the child announced for it, with the crash and the driver's last output
// as the reason, and a new child resumes after that kernel. Records already
// received are never lost.
func RunChild(newCmd func() *exec.Cmd, deviceIndex int, sp plan.SizePlan, cfg pass.Config, emit func(results.Record)) (results.Stats, error) {
	return runChild(newCmd, deviceIndex, "", sp, cfg, nil, nil, emit)
}

// runChild is RunChild with a watch (nil: stderr as it comes, crashes told
// by their records only).
// driver, when not "", is the device's DriverString, which the child checks.
func runChild(newCmd func() *exec.Cmd, deviceIndex int, driver string, sp plan.SizePlan, cfg pass.Config, layouts *layoutOnce, watch *ChildWatch, emit func(results.Record)) (results.Stats, error) {
	start := time.Now()
	var st results.Stats
	if layouts == nil {
		layouts = &layoutOnce{sent: map[string]bool{}}
	}
	count := func(r results.Record) {
		// A restarted child, and every part of a size, checks the layouts again:
		// one layout record per API and size.
		if r.Case == results.LayoutCase && !layouts.first(r.Backend()) {
			return
		}
		r.DeviceIndex = deviceIndex
		st.Add(r)
		emit(r)
	}
	req := ChildRequest{Device: deviceIndex, Driver: driver, Config: toWire(cfg)}
	if sp.LPWidth > 0 {
		req.WaveSize = sp.Size
	} else {
		req.RunSize = sp.Size
	}
	var reqFile string // where a request too large for the environment goes
	defer func() {
		if reqFile != "" {
			os.Remove(reqFile)
		}
	}()
	for restart := 0; ; restart++ {
		data, err := json.Marshal(req)
		if err != nil {
			return st, err
		}
		value, err := childRequestValue(data, &reqFile)
		if err != nil {
			return st, err
		}
		cmd := newCmd()
		if cmd.Env == nil {
			cmd.Env = os.Environ()
		}
		cmd.Env = append(cmd.Env, ChildEnv+"="+value)
		if sp.LPWidth > 0 {
			// Only a lavapipe size sets the width: on a host with a GPU and lavapipe,
			// the GPU's child leaves lavapipe as the user configured it.
			cmd.Env = append(cmd.Env, fmt.Sprintf("LP_NATIVE_VECTOR_WIDTH=%d", sp.LPWidth))
		}
		tail := &tailWriter{max: 12}
		var errOut io.Writer = os.Stderr
		var logged *linePrefixer
		if watch != nil && watch.Log != nil {
			// The driver's own output (LLVM's "Cannot select" dumps, Mesa's
			// warnings) is for the log, not for the terminal between the
			// progress lines; the crash record keeps its tail as before.
			logged = &linePrefixer{prefix: fmt.Sprintf("device %d wave %d: ", deviceIndex, sp.Size), w: watch.Log}
			errOut = logged
		}
		cmd.Stderr = io.MultiWriter(errOut, tail)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			return st, err
		}
		if err := cmd.Start(); err != nil {
			return st, err
		}
		var childErr, unavailable, running string
		var pending []results.Record
		finished := false
		// The watchdog: a kernel that has not finished within KernelTimeout (a
		// hung dispatch, a driver spinning in its compiler) gets its child
		// killed, and its cases are Timeout records. Armed by the Begin of a
		// kernel with cases (not the layout check or the prebuild, whose windows
		// include compiling the whole pass), re-armed by every Begin.
		var timedOut atomic.Bool
		watchdog := time.AfterFunc(time.Hour, func() {
			timedOut.Store(true)
			cmd.Process.Kill()
		})
		watchdog.Stop()
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), results.MaxLine)
		for sc.Scan() {
			var m childMsg
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				continue // not ours (a driver's stray print)
			}
			switch {
			case m.Begin != "":
				running, pending = m.Begin, m.Pending
				watchdog.Stop()
				if cfg.KernelTimeout > 0 && len(pending) > 0 && pending[0].Case != results.LayoutCase {
					watchdog.Reset(cfg.KernelTimeout)
				}
			case m.Record != nil:
				count(*m.Record)
			case m.Stats != nil:
				// Pipelines and kernels come with the child's final stats (a child
				// that crashed sends none: its share of them is lost, its records
				// not); parity counts came per kernel (Counts).
				st.Pipelines += m.Stats.Pipelines
				st.Kernels += m.Stats.Kernels
				finished = true
			case m.Counts != nil:
				st.ParityCases += m.Counts.ParityCases
				st.ParityLanes += m.Counts.ParityLanes
			case m.Error != "":
				childErr = m.Error
			case m.SizeUnavailable != "":
				unavailable = m.SizeUnavailable
			}
		}
		io.Copy(io.Discard, stdout)
		werr := cmd.Wait()
		watchdog.Stop()
		if logged != nil {
			logged.flush() // Wait has copied all of stderr: a last line without its newline
		}
		st.Seconds = time.Since(start).Seconds()
		switch {
		case unavailable != "":
			return st, &SizeUnavailableError{unavailable}
		case childErr != "":
			return st, fmt.Errorf("wave size %d: %s", sp.Size, childErr)
		case finished && werr == nil:
			return st, nil
		case running == "":
			return st, fmt.Errorf("wave size %d: child process died before running a kernel (%v): %s", sp.Size, werr, tail.String())
		}
		// The driver died inside `running`: its cases become the records the child
		// announced, with the crash as the reason, and a new child goes on after it.
		why := fmt.Sprintf("the driver crashed the process (%v) while creating or running this pipeline; its last output: %s", werr, tail.String())
		status := results.Crash
		if timedOut.Load() {
			status = results.Timeout
			why = fmt.Sprintf("the kernel did not finish within %s (-kernel-timeout): its child process was killed; its last output: %s", cfg.KernelTimeout, tail.String())
		}
		crashed := make([]results.Record, 0, len(pending))
		for _, r := range pending {
			r.Status, r.Reason = status, why
			count(r)
			r.DeviceIndex = deviceIndex
			crashed = append(crashed, r)
		}
		if logged != nil {
			// Which dump belongs to which crash: the log says where each child died.
			fmt.Fprintf(logged, "== the child died in %s (%v); a new child goes on after it\n", running, werr)
		}
		if watch != nil && watch.Crashed != nil {
			watch.Crashed(ChildCrash{Device: deviceIndex, WaveSize: sp.Size, Status: status, Job: running, Exit: fmt.Sprint(werr), Records: crashed})
		}
		if restart >= maxRestarts {
			return st, fmt.Errorf("wave size %d: gave up after %d driver crashes", sp.Size, restart+1)
		}
		req.ResumeAfter = running
		req.Crashed = append(req.Crashed, running)
	}
}

// ChildLogFile is the file in a run directory that gets the stderr of the
// run's child processes (`waverig run`: ChildWatch.Log).
const ChildLogFile = results.ChildLogFile

// ChildWatch is what a run does with its child processes' stderr and deaths.
type ChildWatch struct {
	// Log gets every line a child writes to stderr, prefixed with the
	// child's device and wave size ("device 0 wave 8: "); lines of two
	// children never mix. nil: the parent's stderr, as it comes.
	Log io.Writer
	// Crashed hears of every child that died inside a kernel (a driver crash,
	// or the watchdog's kill), once, after that kernel's records were
	// emitted; never from two children at once.
	Crashed func(ChildCrash)
}

// ChildCrash is one child process that died inside a kernel.
type ChildCrash struct {
	Device   int
	WaveSize uint32
	Status   string // results.Crash or results.Timeout
	Job      string // the kernel/compiler key it died in ("vulkan/KERNEL/ours")
	Exit     string // how the process ended ("signal: aborted")
	// Records are the records its cases got (status Status, the driver's last
	// output in the reason); none for a job without cases (the prebuild).
	Records []results.Record
}

// linePrefixer writes whole lines, each with a prefix, to w (RunDevices
// serialises w's writes across children).
type linePrefixer struct {
	prefix string
	w      io.Writer
	part   []byte
}

func (l *linePrefixer) Write(p []byte) (int, error) {
	l.part = append(l.part, p...)
	var out []byte
	for {
		i := bytes.IndexByte(l.part, '\n')
		if i < 0 {
			break
		}
		out = append(append(out, l.prefix...), l.part[:i+1]...)
		l.part = l.part[i+1:]
	}
	if len(out) > 0 {
		l.w.Write(out) // a log that cannot be written loses lines, not the run
	}
	return len(p), nil
}

// flush writes a last line that had no newline.
func (l *linePrefixer) flush() {
	if len(l.part) > 0 {
		l.Write([]byte("\n"))
	}
}

// tailWriter keeps the last lines written to it.
type tailWriter struct {
	max   int
	lines []string
	part  string
}

func (t *tailWriter) Write(p []byte) (int, error) {
	t.part += string(p)
	for {
		i := strings.IndexByte(t.part, '\n')
		if i < 0 {
			break
		}
		if l := strings.TrimSpace(t.part[:i]); l != "" {
			t.lines = append(t.lines, l)
			if len(t.lines) > t.max {
				t.lines = t.lines[1:]
			}
		}
		t.part = t.part[i+1:]
	}
	return len(p), nil
}

// String is the kept lines and a last one without its newline (a process
// that aborts mid-line), joined.
func (t *tailWriter) String() string {
	lines := t.lines
	if l := strings.TrimSpace(t.part); l != "" {
		lines = append(append([]string{}, t.lines...), l)
		if len(lines) > t.max {
			lines = lines[1:]
		}
	}
	return strings.Join(lines, " | ")
}
