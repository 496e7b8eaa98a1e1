package gen

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"waverig/harness/casefile"
)

// FuzzConfig is one fuzzing session: programs Seed, Seed+1, … until N have
// run or Time has passed (each zero: no limit; one must be set).
type FuzzConfig struct {
	Seed uint64
	N    int
	Time time.Duration
	Mode Mode
	// Progress, if set, gets a line now and then.
	Progress io.Writer
	// ShrinkTime bounds the shrinking of a failure (default 2 minutes).
	ShrinkTime time.Duration
	// KeepGoing runs on past failures (the first is shrunk, the others
	// counted), for campaigns that measure rates.
	KeepGoing bool
}

// FuzzResult is what a session did. Failed is nil when every program passed.
type FuzzResult struct {
	Programs int
	Events   int // wave operation results checked
	Elapsed  time.Duration
	Failed   *Failed
	// FailedSeeds are the seeds that failed, with the first line of why
	// (every one with KeepGoing, else the one).
	FailedSeeds []SeedFailure
}

// SeedFailure is one failing program of a session.
type SeedFailure struct {
	Seed    uint64
	Compile bool // the compiler or spirv-val rejected it (else a wrong result)
	Why     string
}

// Failed is the first failing program, as generated and as shrunk.
type Failed struct {
	Seed            uint64
	Original        *Program
	Shrunk          *Program
	Failures        []Failure // of the shrunk program
	CompileError    string    // when the compiler (or spirv-val) rejected it
	ShrinkTries     int
	ShrinkTime      time.Duration
	OriginalSize    int
	WaveSize        uint32
	Device          string
	Mode            Mode
	Words           []uint32 // the shrunk program's log, as the device wrote it
	OriginalFailure string
}

// outcome of one program on the device: failures, a compile error, or an
// error that is the device's (not a verdict on the program).
func (d *Device) outcome(p *Program, mode Mode) (words []uint32, fails []Failure, compileErr string, err error) {
	words, err = d.Run(p)
	var ce *CompileError
	if errors.As(err, &ce) {
		return nil, nil, ce.Msg, nil
	}
	if err != nil {
		return nil, nil, "", err
	}
	return words, p.Check(words, mode), "", nil
}

// Fuzz runs generated programs on the device and stops at the first failure,
// which it shrinks. An error is the device's or the run's (exit 3), never a
// failure of a program.
func (d *Device) Fuzz(cfg FuzzConfig) (FuzzResult, error) {
	start := time.Now()
	var res FuzzResult
	lastNote := start
	for i := 0; cfg.N == 0 || i < cfg.N; i++ {
		if cfg.Time > 0 && time.Since(start) >= cfg.Time {
			break
		}
		seed := cfg.Seed + uint64(i)
		p := Generate(seed)
		words, fails, cerr, err := d.outcome(p, cfg.Mode)
		if err != nil {
			return res, fmt.Errorf("seed %d: %w", seed, err)
		}
		res.Programs++
		for f := 0; f < p.Lanes() && words != nil; f++ {
			res.Events += int(min(words[f*RecWords+wEvents], MaxEvents))
		}
		if len(fails) > 0 || cerr != "" {
			why := firstLine(cerr)
			if cerr == "" {
				why = fails[0].String()
			}
			res.FailedSeeds = append(res.FailedSeeds, SeedFailure{Seed: seed, Compile: cerr != "", Why: why})
			if res.Failed == nil {
				res.Failed = d.shrink(p, fails, cerr, cfg)
			}
			if !cfg.KeepGoing {
				break
			}
		}
		if cfg.Progress != nil && time.Since(lastNote) > 10*time.Second {
			lastNote = time.Now()
			fmt.Fprintf(cfg.Progress, "fuzz: %d programs, %.1f/s\n", res.Programs, float64(res.Programs)/time.Since(start).Seconds())
		}
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

func (d *Device) shrink(p *Program, fails []Failure, cerr string, cfg FuzzConfig) *Failed {
	fl := &Failed{Seed: p.Seed, Original: p, OriginalSize: p.Size(), WaveSize: d.WaveSize(), Device: d.Name(), Mode: cfg.Mode}
	if cerr != "" {
		fl.OriginalFailure = firstLine(cerr)
	} else {
		fl.OriginalFailure = fails[0].String()
	}
	if cfg.Progress != nil {
		fmt.Fprintf(cfg.Progress, "fuzz: seed %d fails (%s); shrinking\n", p.Seed, fl.OriginalFailure)
	}
	budget := cfg.ShrinkTime
	if budget == 0 {
		budget = 2 * time.Minute
	}
	// A candidate counts when it fails the same way: a compile error stays a
	// compile error, a wrong result a wrong result.
	still := func(q *Program) bool {
		_, f, ce, err := d.outcome(q, cfg.Mode)
		if err != nil {
			return false
		}
		if cerr != "" {
			return ce != ""
		}
		return len(f) > 0
	}
	t0 := time.Now()
	fl.Shrunk, fl.ShrinkTries = Shrink(p, still, 5000, t0.Add(budget))
	fl.ShrinkTime = time.Since(t0)
	words, f, ce, err := d.outcome(fl.Shrunk, cfg.Mode)
	if err != nil || (len(f) == 0 && ce == "") { // a flaky failure: report the original
		fl.Shrunk, words, f, ce = p, nil, fails, cerr
	}
	fl.Failures, fl.CompileError, fl.Words = f, ce, words
	return fl
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// WriteRepro writes the failure's repro into dir: program.hlsl (the shrunk
// program), original.hlsl, README.md and, for a wrong result, case.json (a
// `waverig exec` case).
func (fl *Failed) WriteRepro(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	files := map[string][]byte{
		"program.hlsl":  []byte(fl.Shrunk.HLSL()),
		"original.hlsl": []byte(fl.Original.HLSL()),
		"README.md":     []byte(fl.readme()),
	}
	if fl.CompileError == "" {
		c, err := fl.caseFile()
		if err != nil {
			return err
		}
		files["case.json"] = c
	}
	for name, data := range files {
		tmp := filepath.Join(dir, "."+name+".tmp")
		if err := os.WriteFile(tmp, data, 0o644); err != nil {
			return err
		}
		if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	return nil
}

func (fl *Failed) readme() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "# waverig fuzz: seed %d fails\n\n", fl.Seed)
	fmt.Fprintf(&sb, "Device %s, wave size %d, %s contract.\n\n", fl.Device, fl.WaveSize, fl.Mode)
	fmt.Fprintf(&sb, "The generated program (original.hlsl, %d statements) failed with: %s\n\n", fl.OriginalSize, fl.OriginalFailure)
	fmt.Fprintf(&sb, "program.hlsl is it shrunk to %d statements (%d candidates tried); it fails so:\n\n", fl.Shrunk.Size(), fl.ShrinkTries)
	if fl.CompileError != "" {
		sb.WriteString("```\n" + fl.CompileError + "\n```\n")
	} else {
		for i, f := range fl.Failures {
			if i == 20 {
				fmt.Fprintf(&sb, "- … and %d more\n", len(fl.Failures)-20)
				break
			}
			fmt.Fprintf(&sb, "- %s\n", f)
		}
	}
	fmt.Fprintf(&sb, `
Each invocation's record in u0 is %d words: flat id, wave key, lane, lane count, events logged,
input word, then (site, lo, hi) per wave operation it ran. Dispatch: %d group(s) of numthreads(%d, 1, 1).

Re-run the original: waverig fuzz -seed %d -n 1 (same device and wave size).
`, RecWords, fl.Shrunk.Groups, fl.Shrunk.Threads, fl.Seed)
	if fl.CompileError == "" {
		sb.WriteString(`
case.json runs program.hlsl with waverig exec. It expects only the failing words, at the values
a device with maximal reconvergence writes for the lane layout this device produced (null — any
value — elsewhere). Without maximal reconvergence other values may be correct too (lanes may run
an operation in smaller groups); the fuzz checker's set of allowed results is the judge.
`)
	}
	return sb.String()
}

// caseFile is the repro's case.json (the exec format, casefile.Marshal):
// program.hlsl's one buffer, its records as the program starts them, and as
// expectation the failing words (any value elsewhere).
func (fl *Failed) caseFile() ([]byte, error) {
	p := fl.Shrunk
	words := make([]uint32, p.Lanes()*RecWords)
	for i := range words {
		words[i] = 0xffffffff
	}
	for f, v := range p.Input {
		words[f*RecWords+wInput] = v
	}
	want := map[int]uint32{}
	last := -1
	for _, f := range fl.Failures {
		for i, v := range f.Want {
			want[i] = v
			last = max(last, i)
		}
	}
	expect := make([]json.RawMessage, last+1)
	for i := range expect {
		expect[i] = json.RawMessage(casefile.AnyValue)
		if v, ok := want[i]; ok {
			expect[i] = json.RawMessage(strconv.FormatUint(uint64(v), 10))
		}
	}
	record := []string{"flat", "key", "lane", "count", "events", "input"}
	for k := 0; k < MaxEvents; k++ {
		record = append(record, fmt.Sprintf("e%d.site", k), fmt.Sprintf("e%d.lo", k), fmt.Sprintf("e%d.hi", k))
	}
	c := casefile.Case{Shader: "program.hlsl", Entry: "main", Dispatch: [3]uint32{uint32(p.Groups), 1, 1}, SubgroupSize: fl.WaveSize,
		Buffers: []casefile.Buffer{{Binding: "u0", Format: "uint32", Data: casefile.Words(words), Expect: expect, Record: record}}}
	return c.Marshal()
}
