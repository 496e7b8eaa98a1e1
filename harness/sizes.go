package harness

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"

	"waverig/devices"
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
		avx := HasAVX512()
		for _, lw := range lavapipeWidths {
			if !wanted(lw.size) {
				continue
			}
			sp := SizePlan{Size: lw.size, LPWidth: lw.width}
			if lw.width == 512 && !avx {
				sp.SkipReason = "wave size 16 on lavapipe needs LP_NATIVE_VECTOR_WIDTH=512, which needs AVX-512 (this CPU has no avx512f)"
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
}

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
		err := fmt.Errorf("device %s reports subgroupSize %d with LP_NATIVE_VECTOR_WIDTH=%s, expected %d",
			rig.Device().Name, got, os.Getenv("LP_NATIVE_VECTOR_WIDTH"), want)
		enc.Encode(childMsg{Error: err.Error()})
		return err
	}
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
			sr.Stats, sr.Err = RunChildCommand(exec.Command(self, childArgs...), sp, emit)
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

// RunChildCommand runs cmd (a waverig or suite binary in child mode) for one
// lavapipe wave size and forwards its records to emit. Records already received
// are kept even if the child dies.
func RunChildCommand(cmd *exec.Cmd, sp SizePlan, emit func(Record)) (Stats, error) {
	start := time.Now()
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = append(cmd.Env, fmt.Sprintf("LP_NATIVE_VECTOR_WIDTH=%d", sp.LPWidth), fmt.Sprintf("%s=%d", ChildEnv, sp.Size))
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return Stats{}, err
	}
	if err := cmd.Start(); err != nil {
		return Stats{}, err
	}
	var st Stats
	var childErr string
	got := false
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var m childMsg
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			continue // not ours (a driver's stray print)
		}
		switch {
		case m.Record != nil:
			emit(*m.Record)
		case m.Stats != nil:
			st, got = *m.Stats, true
		case m.Error != "":
			childErr = m.Error
		}
	}
	werr := cmd.Wait()
	st.Wall = time.Since(start)
	if childErr != "" {
		return st, fmt.Errorf("wave size %d: %s", sp.Size, childErr)
	}
	if werr != nil || !got {
		// Records already emitted are kept; the crash itself is reported.
		return st, fmt.Errorf("wave size %d: child process failed before finishing (%v); results so far are kept", sp.Size, werr)
	}
	return st, nil
}
