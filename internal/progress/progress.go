// Package progress shows how far a long job is and when it will end.
//
// On a terminal it keeps one line redrawn in place,
//
//	[=====>    ] 41% 12,345/30,000 cases  312/s  ETA 0:57
//
// at most ten times a second, as wide as the terminal; Note prints a line
// above it without breaking it. Anywhere else (a file, a pipe, CI logs) it
// writes whole plain lines only — every ten seconds or every 10%, whichever
// comes first —
//
//	progress: 12345/30000 cases (41%), 312/s, ETA 57s
//
// because a log must never hold a half-drawn bar. The rate, and so the ETA,
// is the recent one (the last ten seconds or so), not the average since the
// start: a run whose first part was slow (cold caches, pipeline builds)
// would otherwise promise an end long after the real one.
//
// A Bar is safe for concurrent use: several goroutines may Add at once.
// Writes to the underlying writer are best effort; an error (a closed pipe)
// never stops the job that is being measured.
package progress

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Defaults; see the options.
const (
	defaultUnit     = "cases"
	defaultWidth    = 80
	defaultInterval = 10 * time.Second       // plain lines at most this far apart
	redrawEvery     = 100 * time.Millisecond // a terminal bar at most ~10 times a second
	rateWindow      = 10 * time.Second       // the "recent" of the recent rate
	sampleEvery     = 250 * time.Millisecond // how often the rate window takes a sample
)

// Bar is a progress display; make one with New.
type Bar struct {
	mu       sync.Mutex
	w        io.Writer
	total    int
	done     int
	unit     string
	term     bool
	width    int
	interval time.Duration
	now      func() time.Time

	start    time.Time
	samples  []sample // (time, done) at least sampleEvery apart, the last rateWindow or so
	lastDraw time.Time
	drawn    bool // terminal: the bar is on screen (and the cursor after it)
	lastLine time.Time
	nextPct  int // plain: the next 10% step that prints a line
	finished bool
}

type sample struct {
	t    time.Time
	done int
}

// Option changes a Bar made by New.
type Option func(*Bar)

// Unit names what is counted ("cases" by default).
func Unit(name string) Option { return func(b *Bar) { b.unit = name } }

// Terminal forces the terminal (true) or plain (false) mode instead of asking
// the writer.
func Terminal(on bool) Option { return func(b *Bar) { b.term = on } }

// Width sets the terminal line's width in columns instead of asking the
// terminal (80 when it cannot say).
func Width(cols int) Option {
	return func(b *Bar) {
		if cols > 0 {
			b.width = cols
		}
	}
}

// Interval is the longest time between two plain lines (10 s by default);
// a line is also printed at every 10%.
func Interval(d time.Duration) Option {
	return func(b *Bar) {
		if d > 0 {
			b.interval = d
		}
	}
}

// Clock replaces time.Now (tests).
func Clock(now func() time.Time) Option { return func(b *Bar) { b.now = now } }

// New starts a display of total units on w (total <= 0: unknown, shown
// without percentage or ETA). The mode is the writer's: a terminal when w is
// an *os.File on one, else plain lines.
func New(w io.Writer, total int, opts ...Option) *Bar {
	b := &Bar{w: w, total: total, unit: defaultUnit, interval: defaultInterval, now: time.Now, nextPct: 10}
	if f, ok := w.(*os.File); ok {
		if cols, tty := terminalWidth(f); tty {
			b.term = true
			b.width = cols
		}
	}
	for _, o := range opts {
		o(b)
	}
	if b.width <= 0 {
		b.width = defaultWidth
	}
	b.start = b.now()
	b.lastLine = b.start
	b.samples = []sample{{b.start, 0}}
	return b
}

// SetTotal sets the number of units once it is known (a job may start
// before it has counted them); until then the display has no percentage.
func (b *Bar) SetTotal(total int) {
	b.mu.Lock()
	b.total = total
	b.mu.Unlock()
}

// IsTerminal reports whether the bar redraws in place (its writer is a
// terminal) rather than writing plain lines.
func (b *Bar) IsTerminal() bool { return b.term }

// Add counts n more units done and redraws when it is time to.
func (b *Bar) Add(n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.finished {
		return
	}
	b.done += n
	now := b.now()
	b.sample(now)
	if b.term {
		if !b.drawn || now.Sub(b.lastDraw) >= redrawEvery {
			b.drawBar(now)
		}
		return
	}
	pct := b.percent()
	if b.total > 0 && pct >= b.nextPct || now.Sub(b.lastLine) >= b.interval {
		b.plainLine(now)
	}
}

// Note prints a whole line; on a terminal above the bar, which is redrawn
// under it.
func (b *Bar) Note(line string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	line = strings.TrimRight(line, "\n")
	if !b.term || b.finished {
		io.WriteString(b.w, line+"\n")
		return
	}
	// One write: erase the bar, the note, the bar again.
	now := b.now()
	io.WriteString(b.w, "\r\x1b[K"+line+"\n"+b.barText(now))
	b.drawn, b.lastDraw = true, now
}

// Done ends the display: on a terminal the bar is drawn a last time and the
// line ended; in plain mode a last line says where it ended. Further calls
// do nothing.
func (b *Bar) Done() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.finished {
		return
	}
	now := b.now()
	if b.term {
		io.WriteString(b.w, "\r"+b.barText(now)+"\x1b[K\n")
	} else {
		b.plainLine(now)
	}
	b.finished = true
}

// sample keeps the (time, done) points the recent rate is taken from: one
// every sampleEvery, back to the last one at or before the window's start, so
// the rate spans the whole window (or everything since the start, before the
// window has passed).
func (b *Bar) sample(now time.Time) {
	if now.Sub(b.samples[len(b.samples)-1].t) < sampleEvery {
		return
	}
	b.samples = append(b.samples, sample{now, b.done})
	cut := 0
	for cut+1 < len(b.samples) && now.Sub(b.samples[cut+1].t) >= rateWindow {
		cut++
	}
	b.samples = b.samples[cut:]
}

// rate is units per second over the recent window (0 when unknown yet).
func (b *Bar) rate(now time.Time) float64 {
	first := b.samples[0]
	dt := now.Sub(first.t).Seconds()
	if dt <= 0 {
		return 0
	}
	return float64(b.done-first.done) / dt
}

// eta is the time left at the recent rate; ok is false when it cannot be known.
func (b *Bar) eta(now time.Time) (time.Duration, bool) {
	r := b.rate(now)
	if b.total <= 0 || r <= 0 {
		return 0, false
	}
	left := b.total - b.done
	if left < 0 {
		left = 0
	}
	return time.Duration(float64(left) / r * float64(time.Second)), true
}

func (b *Bar) percent() int {
	if b.total <= 0 {
		return 0
	}
	p := int(int64(b.done) * 100 / int64(b.total))
	return min(max(p, 0), 100)
}

func (b *Bar) drawBar(now time.Time) {
	io.WriteString(b.w, "\r"+b.barText(now)+"\x1b[K")
	b.drawn, b.lastDraw = true, now
}

// barText is the terminal line (no "\r", no newline), at most width-1 columns
// so that the cursor never wraps.
func (b *Bar) barText(now time.Time) string {
	var info strings.Builder
	if b.total > 0 {
		fmt.Fprintf(&info, "%3d%% %s/%s %s", b.percent(), commas(b.done), commas(b.total), b.unit)
	} else {
		fmt.Fprintf(&info, "%s %s", commas(b.done), b.unit)
	}
	if r := b.rate(now); r > 0 {
		fmt.Fprintf(&info, "  %s/s", commas(int(r+0.5)))
	}
	if b.finished || b.total > 0 && b.done >= b.total {
		fmt.Fprintf(&info, "  in %s", clock(now.Sub(b.start)))
	} else if d, ok := b.eta(now); ok {
		fmt.Fprintf(&info, "  ETA %s", clock(d))
	}
	text := info.String()
	if b.total <= 0 {
		return truncate(text, b.width-1)
	}
	// "[" + cells + "] " + text within width-1 columns; no bar when too narrow.
	cells := b.width - 1 - len(text) - 3
	if cells > 50 {
		cells = 50
	}
	if cells < 10 {
		return truncate(text, b.width-1)
	}
	full := cells * b.percent() / 100
	bar := strings.Repeat("=", full)
	if full < cells {
		bar += ">" + strings.Repeat(" ", cells-full-1)
	}
	return "[" + bar + "] " + text
}

// plainLine writes one whole line: "progress: 12345/30000 cases (41%), 312/s,
// ETA 57s".
func (b *Bar) plainLine(now time.Time) {
	var s strings.Builder
	if b.total > 0 {
		fmt.Fprintf(&s, "progress: %d/%d %s (%d%%)", b.done, b.total, b.unit, b.percent())
	} else {
		fmt.Fprintf(&s, "progress: %d %s", b.done, b.unit)
	}
	if r := b.rate(now); r > 0 {
		fmt.Fprintf(&s, ", %d/s", int(r+0.5))
	}
	if b.total > 0 && b.done >= b.total {
		fmt.Fprintf(&s, ", done in %s", short(now.Sub(b.start)))
	} else if d, ok := b.eta(now); ok {
		fmt.Fprintf(&s, ", ETA %s", short(d))
	}
	s.WriteString("\n")
	io.WriteString(b.w, s.String())
	b.lastLine = now
	for b.nextPct <= b.percent() {
		b.nextPct += 10
	}
}

// commas writes n with thousands separators: 12,345.
func commas(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var out []byte
	for i := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}

// clock is a duration as a terminal shows it: 0:57, 12:03, 1:02:03.
func clock(d time.Duration) string {
	s := int(d.Round(time.Second) / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

// short is a duration as a log line says it: 57s, 4m12s, 1h2m3s.
func short(d time.Duration) string {
	return d.Round(time.Second).String()
}

func truncate(s string, n int) string {
	if n < 0 {
		n = 0
	}
	if len(s) > n {
		return s[:n]
	}
	return s
}
