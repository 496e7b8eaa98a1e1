package progress

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// writes keeps every Write call apart, so a test can see what one write held.
type writes struct {
	mu    sync.Mutex
	calls []string
}

func (w *writes) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.calls = append(w.calls, string(p))
	return len(p), nil
}

func (w *writes) all() string { return strings.Join(w.calls, "") }

// fakeClock is a clock the test moves.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time       { return c.t }
func (c *fakeClock) step(d time.Duration) { c.t = c.t.Add(d) }
func newClock() *fakeClock                { return &fakeClock{time.Date(2026, 12, 1, 20, 0, 0, 0, time.UTC)} }
func plainBar(w *writes, c *fakeClock, total int, opts ...Option) *Bar {
	return New(w, total, append([]Option{Terminal(false), Clock(c.now)}, opts...)...)
}

// Plain mode: whole lines only, one per write — at every 10% and at most
// Interval apart otherwise — with the recent rate and the ETA it gives.
func TestPlainLines(t *testing.T) {
	w, c := &writes{}, newClock()
	b := plainBar(w, c, 30000)
	for i := 0; i < 9; i++ { // 300/s for 9 s: 9%, nothing yet
		c.step(time.Second)
		b.Add(300)
	}
	if len(w.calls) != 0 {
		t.Fatalf("a line before 10%% or 10 s: %q", w.calls)
	}
	c.step(time.Second)
	b.Add(300)
	if want := "progress: 3000/30000 cases (10%), 300/s, ETA 1m30s\n"; len(w.calls) != 1 || w.calls[0] != want {
		t.Fatalf("at 10%%: %q, want %q", w.calls, want)
	}
	// Slow: 1 a second. No 10% step for a long time, so a line every 10 s.
	for i := 0; i < 25; i++ {
		c.step(time.Second)
		b.Add(1)
	}
	if len(w.calls) != 3 {
		t.Fatalf("%d lines after 25 slow seconds, want 3 (one every 10 s): %q", len(w.calls), w.calls)
	}
	// The ETA comes from the recent rate (about 1/s), not the average since
	// the start (about 87/s).
	if last := w.calls[2]; !strings.HasPrefix(last, "progress: 3020/30000 cases (10%), 1/s, ETA 7h") {
		t.Errorf("slow line %q: want the recent rate of 1/s", last)
	}
	c.step(time.Second)
	b.Add(30000 - 3025)
	b.Done()
	b.Done()
	b.Add(5)
	if last := w.calls[len(w.calls)-1]; !strings.HasPrefix(last, "progress: 30000/30000 cases (100%), ") || !strings.Contains(last, "done in 36s") {
		t.Errorf("last line %q", last)
	}
	for _, call := range w.calls {
		if strings.Count(call, "\n") != 1 || !strings.HasSuffix(call, "\n") || strings.ContainsAny(call, "\r\x1b") {
			t.Errorf("not one whole plain line: %q", call)
		}
	}
}

// Plain mode with an unknown total: count and rate, no percentage or ETA.
func TestPlainUnknownTotal(t *testing.T) {
	w, c := &writes{}, newClock()
	b := plainBar(w, c, 0, Unit("records"), Interval(2*time.Second))
	c.step(2 * time.Second)
	b.Add(10)
	b.Note("a note")
	b.Done()
	want := "progress: 10 records, 5/s\na note\nprogress: 10 records, 5/s\n"
	if got := w.all(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

var barRE = regexp.MustCompile(`^\[(=*)(>?)( *)\] +(.*)$`)

// Terminal mode: one line redrawn in place at most every 100 ms, as wide as
// the terminal allows; a note goes above the bar in one write; Done ends the
// line.
func TestTerminalBar(t *testing.T) {
	w, c := &writes{}, newClock()
	b := New(w, 30000, Terminal(true), Width(72), Clock(c.now))
	c.step(10 * time.Second)
	b.Add(3120)
	c.step(50 * time.Millisecond)
	b.Add(9225) // within 100 ms of the last draw: counted, not drawn
	if len(w.calls) != 1 {
		t.Fatalf("%d draws, want 1: %q", len(w.calls), w.calls)
	}
	c.step(50 * time.Millisecond)
	b.Add(0)
	if len(w.calls) != 2 {
		t.Fatalf("no redraw 100 ms later: %q", w.calls)
	}
	line := w.calls[1]
	if !strings.HasPrefix(line, "\r") || !strings.HasSuffix(line, "\x1b[K") || strings.Contains(line, "\n") {
		t.Fatalf("draw %q: want \\r, the bar, erase to the end of the line", line)
	}
	text := strings.TrimSuffix(strings.TrimPrefix(line, "\r"), "\x1b[K")
	if len(text) > 71 {
		t.Errorf("bar of %d columns on a terminal of 72: %q", len(text), text)
	}
	m := barRE.FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("bar %q", text)
	}
	// 41% of the cells are '='; the rate is 12,345 cases in 10.1 s.
	if cells := len(m[1]) + len(m[2]) + len(m[3]); len(m[1]) != cells*41/100 || m[2] != ">" {
		t.Errorf("bar cells %q", text)
	}
	if want := " 41% 12,345/30,000 cases  1,222/s  ETA 0:14"; m[4] != strings.TrimSpace(want) && " "+m[4] != want {
		t.Errorf("bar text %q, want %q", m[4], want)
	}
	b.Note("size 8: 1,024 cases passed")
	note := w.calls[len(w.calls)-1]
	if !strings.HasPrefix(note, "\r\x1b[Ksize 8: 1,024 cases passed\n[") || strings.Count(note, "\n") != 1 {
		t.Errorf("note %q: want erase, the line, then the bar again, in one write", note)
	}
	c.step(time.Second)
	b.Add(30000 - 12345)
	b.Done()
	if end := w.calls[len(w.calls)-1]; !strings.HasPrefix(end, "\r[") || !strings.Contains(end, "100% 30,000/30,000 cases") || !strings.Contains(end, "in 0:11") || !strings.HasSuffix(end, "\n") {
		t.Errorf("last draw %q", end)
	}
}

// A terminal too narrow for a bar still gets the numbers, cut to fit.
func TestTerminalNarrow(t *testing.T) {
	w, c := &writes{}, newClock()
	b := New(w, 100, Terminal(true), Width(20), Clock(c.now))
	b.Add(50)
	text := strings.TrimSuffix(strings.TrimPrefix(w.calls[0], "\r"), "\x1b[K")
	if text != " 50% 50/100 cases" {
		t.Errorf("narrow line %q", text)
	}
}

// The rate is the recent one: after a fast minute and a slow one it is the
// slow rate, and the ETA follows it.
func TestRecentRate(t *testing.T) {
	w, c := &writes{}, newClock()
	b := plainBar(w, c, 1_000_000)
	for i := 0; i < 60; i++ {
		c.step(time.Second)
		b.Add(1000)
	}
	for i := 0; i < 60; i++ {
		c.step(time.Second)
		b.Add(10)
	}
	if r := b.rate(c.now()); r < 9.9 || r > 10.1 {
		t.Errorf("recent rate %.2f/s, want 10/s (the average is %.0f/s)", r, float64(b.done)/120)
	}
	if d, ok := b.eta(c.now()); !ok || d < 90000*time.Second {
		t.Errorf("ETA %v at 10/s for 939,400 more", d)
	}
	if len(b.samples) > int(rateWindow/sampleEvery)+2 {
		t.Errorf("%d rate samples kept", len(b.samples))
	}
}

// Add from many goroutines at once: every unit is counted and every write is
// whole (run with -race).
func TestConcurrentAdd(t *testing.T) {
	for _, term := range []bool{false, true} {
		w := &writes{}
		b := New(w, 8000, Terminal(term), Interval(time.Millisecond))
		var wg sync.WaitGroup
		for g := 0; g < 8; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 1000; i++ {
					b.Add(1)
					if i%250 == 0 {
						b.Note("note")
					}
				}
			}()
		}
		wg.Wait()
		b.Done()
		if b.done != 8000 {
			t.Errorf("terminal %v: counted %d, want 8000", term, b.done)
		}
		last := w.calls[len(w.calls)-1]
		if !strings.Contains(last, "8000/8000") && !strings.Contains(last, "8,000/8,000") {
			t.Errorf("terminal %v: last write %q", term, last)
		}
		if !term {
			for _, call := range w.calls {
				if !strings.HasSuffix(call, "\n") || strings.Count(call, "\n") != 1 {
					t.Fatalf("partial or merged line %q", call)
				}
			}
		}
	}
}

// Only a terminal gets the bar: a buffer and a pipe get plain lines.
func TestModeFromWriter(t *testing.T) {
	if New(&bytes.Buffer{}, 1).term {
		t.Error("a bytes.Buffer is not a terminal")
	}
	r, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer pw.Close()
	if New(pw, 1).term {
		t.Error("a pipe is not a terminal")
	}
	if !New(pw, 1, Terminal(true)).term {
		t.Error("Terminal(true) is not honoured")
	}
}

func TestFormats(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 12345: "12,345", 1234567: "1,234,567", -1234: "-1,234"} {
		if got := commas(n); got != want {
			t.Errorf("commas(%d) = %q, want %q", n, got, want)
		}
	}
	for d, want := range map[time.Duration]string{57 * time.Second: "0:57", 12*time.Minute + 3*time.Second: "12:03", 3723 * time.Second: "1:02:03"} {
		if got := clock(d); got != want {
			t.Errorf("clock(%v) = %q, want %q", d, got, want)
		}
	}
	if got := short(57*time.Second + 300*time.Millisecond); got != "57s" {
		t.Errorf("short = %q", got)
	}
}

// A total set after the start (run counts its plan beside the run) brings the
// percentage and ETA from then on; IsTerminal says which mode was chosen.
func TestSetTotalLate(t *testing.T) {
	w, c := &writes{}, newClock()
	b := plainBar(w, c, 0, Interval(5*time.Second))
	if b.IsTerminal() {
		t.Error("plain bar says it is a terminal")
	}
	c.step(5 * time.Second)
	b.Add(50)
	b.SetTotal(200)
	c.step(time.Second)
	b.Add(10) // 30%: past the 10% and 20% steps at once, one line
	want := []string{"progress: 50 cases, 10/s\n", "progress: 60/200 cases (30%), 10/s, ETA 14s\n"}
	if len(w.calls) != 2 || w.calls[0] != want[0] || w.calls[1] != want[1] {
		t.Errorf("lines %q, want %q", w.calls, want)
	}
	c.step(time.Second)
	b.Add(10) // 35%: no step, and within the interval
	if len(w.calls) != 2 {
		t.Errorf("a line at 35%%: %q", w.calls[2:])
	}
	tb := New(&writes{}, 0, Terminal(true), Clock(c.now))
	tb.SetTotal(10)
	tb.Add(5)
	if !tb.IsTerminal() || !strings.Contains(tb.barText(c.now()), " 50% 5/10 cases") {
		t.Errorf("terminal bar after SetTotal: %q", tb.barText(c.now()))
	}
}
