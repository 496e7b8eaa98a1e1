package score

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"waverig/harness"
	"waverig/harness/plan"
)

// Both scores run their jobs at one wave size in child processes of one
// binary (the test binary, whose TestMain calls ChildMain or CFChildMain): the
// parent writes a request file, the child streams one childMessage line per
// job, and when the driver kills the child (or the parent kills a child stuck
// in a dispatch) a new child resumes after the job it was running, which
// counts as a crash or a hang. This file is that loop, written once.

// childMessage is one line of a child's stdout; O is the score's outcome type.
type childMessage[O any] struct {
	Begin       *int   `json:"begin,omitempty"`
	Index       int    `json:"index"`
	Outcome     *O     `json:"outcome,omitempty"`
	Unavailable string `json:"unavailable,omitempty"`
	Error       string `json:"error,omitempty"`
}

// childSender writes a child's lines; a child whose parent went away exits.
func childSender[O any](w io.Writer) func(childMessage[O]) {
	enc := json.NewEncoder(w)
	return func(m childMessage[O]) {
		if enc.Encode(m) != nil {
			os.Exit(3)
		}
	}
}

// readRequest reads the request file the environment variable env names.
func readRequest(env string, req any) error {
	data, err := os.ReadFile(os.Getenv(env))
	if err != nil {
		return err
	}
	return json.Unmarshal(data, req)
}

// childLoop runs one size's jobs through as many children as crashes need.
type childLoop[O any] struct {
	Self, Env string // the binary and the variable naming its request file
	Prefix    string // the request files' name prefix in Dir
	Dir       string
	Size      plan.SizePlan
	// Request is the request body that runs the jobs from start on (the
	// caller's bookkeeping, updated by Note, travels in it).
	Request func(start int) any
	// Note sees every outcome in job order, the child's and the parent's own.
	Note func(i int, o O)
	// Lost is the outcome of the job a child was running when it died
	// (hung: the guard killed it).
	Lost func(hung bool, werr error) O
	// Guard, when > 0, kills a child that spends longer on one job.
	Guard       time.Duration
	MaxRestarts int
	Logf        func(string, ...any)
	Name        func(i int) string // a job's name for the log
}

// run returns the outcome of each of n jobs.
func (l childLoop[O]) run(n int) ([]O, error) {
	out := make([]O, n)
	start := 0
	for restart := 0; start < n; restart++ {
		if restart > l.MaxRestarts {
			return nil, fmt.Errorf("wave size %d: more than %d crashes and hangs", l.Size.Size, l.MaxRestarts)
		}
		path := filepath.Join(l.Dir, fmt.Sprintf("%s-%d-%d.json", l.Prefix, l.Size.Size, restart))
		data, _ := json.Marshal(l.Request(start))
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return nil, err
		}
		cmd := exec.Command(l.Self)
		cmd.Env = append(os.Environ(), l.Env+"="+path)
		if l.Size.LPWidth > 0 {
			cmd.Env = append(cmd.Env, fmt.Sprintf("LP_NATIVE_VECTOR_WIDTH=%d", l.Size.LPWidth))
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			return nil, err
		}
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		msgs := make(chan childMessage[O])
		go func() {
			defer close(msgs)
			sc := bufio.NewScanner(stdout)
			sc.Buffer(make([]byte, 1<<20), 1<<20)
			for sc.Scan() {
				var m childMessage[O]
				if json.Unmarshal(sc.Bytes(), &m) == nil {
					msgs <- m
				} // else: a driver's stray print
			}
		}()
		running, hung := -1, false
		var childErr, unavailable string
		// The guard times a job from its begin line to its outcome; it fires
		// idle outside a job (the child's start-up, opening the device, is not
		// a job, and a child that dies there is an error of the score, below).
		var guard <-chan time.Time
		var timer *time.Timer
		if l.Guard > 0 {
			timer = time.NewTimer(l.Guard)
			guard = timer.C
		}
	read:
		for {
			select {
			case m, ok := <-msgs:
				if !ok {
					break read
				}
				switch {
				case m.Begin != nil:
					running = *m.Begin
					if timer != nil {
						timer.Reset(l.Guard)
					}
				case m.Outcome != nil:
					out[m.Index] = *m.Outcome
					l.Note(m.Index, *m.Outcome)
					running = -1
					start = m.Index + 1
				case m.Unavailable != "":
					unavailable = m.Unavailable
				case m.Error != "":
					childErr = m.Error
				}
			case <-guard:
				if running < 0 {
					timer.Reset(l.Guard)
					continue
				}
				// Stuck in a dispatch: kill the child (its scanner then ends).
				hung = true
				_ = cmd.Process.Kill()
				for range msgs {
				}
				break read
			}
		}
		if timer != nil {
			timer.Stop()
		}
		werr := cmd.Wait()
		switch {
		case unavailable != "":
			return nil, &harness.SizeUnavailableError{Msg: unavailable}
		case childErr != "":
			return nil, fmt.Errorf("wave size %d: %s", l.Size.Size, childErr)
		case running >= 0:
			// The driver died (or hung) in this job: the rig reports that as a
			// failure, so a mutant that does it is caught.
			out[running] = l.Lost(hung, werr)
			l.Note(running, out[running])
			what := "crashed the driver"
			if hung {
				what = fmt.Sprintf("ran past the %s hang guard", l.Guard)
			}
			l.Logf("size %d: %s %s; resuming after it", l.Size.Size, l.Name(running), what)
			start = running + 1
		case werr != nil || start < n:
			return nil, fmt.Errorf("wave size %d: child ended early (%v): %s", l.Size.Size, werr, lastLines(stderr.String(), 5))
		}
	}
	return out, nil
}

// eachSize runs run at every size of p a score reaches, the sizes side by
// side (each child is one core's worth of pipeline builds), and returns the
// sizes that ran, in order. A size the plan skips, or that skip (may be nil)
// or the child (SizeUnavailableError) names a reason for, goes to skipped; a
// size that needs neither a child (lavapipe's LPWidth) nor the process itself
// is not a score's. store gets each size's outcomes and time, one at a time.
func eachSize[O any](p plan.Plan, skipped map[uint32]string, skip func(plan.SizePlan) string,
	run func(plan.SizePlan) ([]O, error), store func(size uint32, out []O, took time.Duration)) ([]uint32, error) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	var firstErr error
	var sizes []uint32
	for _, sp := range p.Sizes {
		if sp.SkipReason != "" {
			skipped[sp.Size] = sp.SkipReason
			continue
		}
		if !sp.InProcess && sp.LPWidth == 0 {
			continue
		}
		if skip != nil {
			if why := skip(sp); why != "" {
				skipped[sp.Size] = why
				continue
			}
		}
		sizes = append(sizes, sp.Size)
		wg.Add(1)
		go func(sp plan.SizePlan) {
			defer wg.Done()
			t0 := time.Now()
			out, err := run(sp)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				var su *harness.SizeUnavailableError
				if errors.As(err, &su) {
					skipped[sp.Size] = su.Msg
				} else if firstErr == nil {
					firstErr = err
				}
				return
			}
			store(sp.Size, out, time.Since(t0))
		}(sp)
	}
	wg.Wait()
	sort.Slice(sizes, func(i, j int) bool { return sizes[i] < sizes[j] })
	kept := sizes[:0]
	for _, s := range sizes {
		if _, gone := skipped[s]; !gone {
			kept = append(kept, s)
		}
	}
	return kept, firstErr
}
