package harness

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"

	"waverig/devices"
	"waverig/harness/kernels"
)

// Plan is the set of wave sizes a run covers on one device, and how each is reached.
type Plan struct {
	Device devices.Device
	Sizes  []SizePlan
}

// SizePlan is one wave size: either asked for in-process with size control, or
// reached by re-running in a child process with LP_NATIVE_VECTOR_WIDTH (lavapipe).
type SizePlan struct {
	Size       uint32
	LPWidth    int    // > 0: run in a child with LP_NATIVE_VECTOR_WIDTH=LPWidth
	SkipReason string // non-empty: not runnable here, and why
	InProcess  bool
	// Optional: the size may not exist on this machine (lavapipe's 512-bit width is
	// documented to need AVX-512); if the child finds the device reports another
	// size, the size is skipped with that observation instead of failing.
	Optional bool
}

// IsLavapipe reports whether the device is Mesa's llvmpipe Vulkan driver, whose
// one subgroup size is set by LP_NATIVE_VECTOR_WIDTH when the driver loads.
func IsLavapipe(d devices.Device) bool {
	return strings.Contains(strings.ToLower(d.Name), "llvmpipe") || strings.Contains(strings.ToLower(d.DriverName), "llvmpipe")
}

// HasAVX512 reports whether this CPU has AVX-512F (needed for lavapipe's 512-bit
// vectors, i.e. wave size 16).
func HasAVX512() bool {
	if runtime.GOARCH != "amd64" {
		return false
	}
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return false
	}
	return strings.Contains(string(data), " avx512f")
}

// lavapipeWidths maps wave sizes to LP_NATIVE_VECTOR_WIDTH values (32-bit lanes).
var lavapipeWidths = []struct {
	size  uint32
	width int
}{{4, 128}, {8, 256}, {16, 512}}

// MakePlan decides the sizes for a device; want filters them (nil = all legal).
func MakePlan(d devices.Device, want []uint32) Plan {
	p := Plan{Device: d}
	wanted := func(s uint32) bool {
		if len(want) == 0 {
			return true
		}
		for _, w := range want {
			if w == s {
				return true
			}
		}
		return false
	}
	if IsLavapipe(d) {
		avx512 := HasAVX512()
		for _, lw := range lavapipeWidths {
			if !wanted(lw.size) {
				continue
			}
			sp := SizePlan{Size: lw.size, LPWidth: lw.width}
			if lw.width == 512 {
				// Mesa gives 512-bit vectors (wave size 16) on AVX-512 machines. Without
				// AVX-512, LLVM splits them and lavapipe still reports 16, but pipelines
				// build ~25x slower, so the default plan leaves it out; asking for 16
				// explicitly attempts it, and the child checks at start-up what the
				// device really reports (an absent size becomes a skip).
				sp.Optional = true
				if !avx512 && len(want) == 0 {
					sp.SkipReason = "wave size 16 on lavapipe needs LP_NATIVE_VECTOR_WIDTH=512, native only with AVX-512 (this CPU has no avx512f); -sizes 16 forces it (emulated, slow)"
				}
			}
			p.Sizes = append(p.Sizes, sp)
		}
		return p
	}
	for _, s := range d.LegalSubgroupSizes() {
		if wanted(s) {
			p.Sizes = append(p.Sizes, SizePlan{Size: s, InProcess: true})
		}
	}
	for _, w := range want {
		found := false
		for _, s := range p.Sizes {
			found = found || s.Size == w
		}
		if !found {
			p.Sizes = append(p.Sizes, SizePlan{Size: w, SkipReason: fmt.Sprintf("wave size %d is not legal on %s (legal: %v)", w, d.Name, d.LegalSubgroupSizes())})
		}
	}
	return p
}

// ChildEnv is the environment variable that marks a child run and carries the
// expected wave size; the child checks the device really reports it.
const ChildEnv = "WAVERIG_CHILD_WAVE_SIZE"

// childMsg is one line a child writes to its stdout.
type childMsg struct {
	Record *Record `json:"record,omitempty"`
	Stats  *Stats  `json:"stats,omitempty"`
	Error  string  `json:"error,omitempty"`
	// SizeUnavailable: the device does not report the wave size asked for.
	SizeUnavailable string `json:"sizeUnavailable,omitempty"`
	// Begin names the kernel/compiler pair the child starts next, so the parent
	// knows what a crash interrupted.
	Begin string `json:"begin,omitempty"`
}

// SizeUnavailableError says a child's device reports another wave size than the
// one its LP_NATIVE_VECTOR_WIDTH should give.
type SizeUnavailableError struct{ Msg string }

func (e *SizeUnavailableError) Error() string { return e.Msg }

// RunChild is the body of a child process: open the device, check that it reports
// the expected size, run the matrix and stream records as JSON lines to w.
func RunChild(deviceIndex int, cfg Config, w io.Writer) error {
	want, _ := strconv.Atoi(os.Getenv(ChildEnv))
	enc := json.NewEncoder(w)
	rig, err := New(deviceIndex, cfg)
	if err != nil {
		enc.Encode(childMsg{Error: err.Error()})
		return err
	}
	defer rig.Close()
	if got := rig.WaveSize(); want != 0 && got != uint32(want) {
		err := fmt.Errorf("device %s reports subgroupSize %d with LP_NATIVE_VECTOR_WIDTH=%s, expected %d (AVX-512: %v)",
			rig.Device().Name, got, os.Getenv("LP_NATIVE_VECTOR_WIDTH"), want, HasAVX512())
		enc.Encode(childMsg{SizeUnavailable: err.Error()})
		return err
	}
	rig.resumeAfter = os.Getenv(ResumeEnv)
	rig.onBegin = func(key string) { enc.Encode(childMsg{Begin: key}) }
	st, err := rig.Run(0, func(r Record) { enc.Encode(childMsg{Record: &r}) })
	if err != nil {
		enc.Encode(childMsg{Error: err.Error()})
		return err
	}
	enc.Encode(childMsg{Stats: &st})
	return nil
}

// SizeResult is the outcome of one wave size.
type SizeResult struct {
	Size       uint32
	Stats      Stats
	SkipReason string
	Err        error
}

// RunPlan runs every size of the plan. Child processes are started as
// `self childArgs...` with the child environment; emit gets every record.
func RunPlan(p Plan, deviceIndex int, cfg Config, self string, childArgs []string, emit func(Record)) []SizeResult {
	var out []SizeResult
	for _, sp := range p.Sizes {
		sr := SizeResult{Size: sp.Size, SkipReason: sp.SkipReason}
		switch {
		case sp.SkipReason != "":
		case sp.LPWidth > 0:
			newCmd := func() *exec.Cmd { return exec.Command(self, childArgs...) }
			sr.Stats, sr.Err = RunChildCommand(newCmd, sp, cfg, emit)
			var su *SizeUnavailableError
			if errors.As(sr.Err, &su) && sp.Optional {
				sr.SkipReason, sr.Err = su.Msg, nil
			}
		default:
			rig, err := New(deviceIndex, cfg)
			if err != nil {
				sr.Err = err
				break
			}
			sr.Stats, sr.Err = rig.Run(sp.Size, emit)
			rig.Close()
		}
		out = append(out, sr)
	}
	return out
}

// ResumeEnv tells a restarted child to skip every kernel/compiler pair up to and
// including the one named (the one its predecessor died in).
const ResumeEnv = "WAVERIG_RESUME_AFTER"

// maxRestarts bounds how many driver crashes one wave size may survive.
const maxRestarts = 64

// RunChildCommand runs a child (a waverig or suite binary in child mode, made by
// newCmd) for one lavapipe wave size and forwards its records to emit.
//
// A driver that crashes (lavapipe aborts inside LLVM on some pipelines) kills the
// child, not the run: the cases of the kernel it was running become error records
// naming the crash and the last lines the driver printed, and a new child resumes
// after that kernel. Records already received are never lost.
func RunChildCommand(newCmd func() *exec.Cmd, sp SizePlan, cfg Config, emit func(Record)) (Stats, error) {
	start := time.Now()
	var st Stats
	count := func(r Record) {
		if r.Case != LayoutCase {
			st.Add(r)
		}
		emit(r)
	}
	resume := ""
	layoutSent := false
	for restart := 0; ; restart++ {
		cmd := newCmd()
		if cmd.Env == nil {
			cmd.Env = os.Environ()
		}
		cmd.Env = append(cmd.Env, fmt.Sprintf("LP_NATIVE_VECTOR_WIDTH=%d", sp.LPWidth), fmt.Sprintf("%s=%d", ChildEnv, sp.Size))
		if resume != "" {
			cmd.Env = append(cmd.Env, ResumeEnv+"="+resume)
		}
		tail := &tailWriter{max: 12}
		cmd.Stderr = io.MultiWriter(os.Stderr, tail)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			return st, err
		}
		if err := cmd.Start(); err != nil {
			return st, err
		}
		var childErr, unavailable, running string
		finished := false
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<26)
		for sc.Scan() {
			var m childMsg
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				continue // not ours (a driver's stray print)
			}
			switch {
			case m.Begin != "":
				running = m.Begin
			case m.Record != nil:
				if m.Record.Case == LayoutCase {
					if layoutSent {
						continue // a restarted child checks the layout again
					}
					layoutSent = true
				}
				count(*m.Record)
			case m.Stats != nil:
				st.Pipelines += m.Stats.Pipelines
				st.Kernels += m.Stats.Kernels
				finished = true
			case m.Error != "":
				childErr = m.Error
			case m.SizeUnavailable != "":
				unavailable = m.SizeUnavailable
			}
		}
		werr := cmd.Wait()
		st.Wall = time.Since(start)
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
		// The driver died inside `running`: record its cases as errors and go on.
		for _, r := range crashRecords(cfg, running, sp.Size, fmt.Sprintf("the driver crashed the process (%v) while creating or running this pipeline; its last output: %s", werr, tail.String())) {
			count(r)
		}
		if restart >= maxRestarts {
			return st, fmt.Errorf("wave size %d: gave up after %d driver crashes", sp.Size, restart+1)
		}
		resume = running
	}
}

// crashRecords makes error records for every case of the kernel/compiler pair a
// child died in (the matrix is static, so the parent knows the cases).
func crashRecords(cfg Config, key string, size uint32, why string) []Record {
	name, comp, _ := strings.Cut(key, "/")
	var out []Record
	for _, k := range kernels.Matrix(cfg.Filter) {
		if k.Name != name {
			continue
		}
		for _, c := range k.Cases {
			out = append(out, Record{Case: c.ID(), Op: c.Op.String(), Type: c.Type.HLSL(), Pattern: string(c.Pattern),
				Shape: c.Shape.Name, WaveSize: size, Compiler: comp, Status: Error, Reason: why, Kernel: k.Name})
		}
	}
	return out
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

func (t *tailWriter) String() string { return strings.Join(t.lines, " | ") }
