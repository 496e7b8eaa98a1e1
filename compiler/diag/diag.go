// Package diag is the compiler's one diagnostic type: source files, byte-offset
// positions, coded messages and their rendering (`path:line:col: error CODE: msg`
// followed by the source line and a caret).
//
// Every stage reports through a *Log; positions stay byte offsets (cheap to carry)
// and become line/column only when a message is printed.
package diag

import (
	"fmt"
	"sort"
	"strings"
)

// Source is one file as the compiler saw it, after reading from disk.
type Source struct {
	Path  string
	Text  string
	lines []int // byte offset of each line start, computed lazily
}

// NewSource wraps file contents.
func NewSource(path, text string) *Source { return &Source{Path: path, Text: text} }

// LineCol converts a byte offset to a 1-based line and a 1-based column (bytes).
func (s *Source) LineCol(off int) (line, col int) {
	if s.lines == nil {
		s.lines = []int{0}
		for i := 0; i < len(s.Text); i++ {
			if s.Text[i] == '\n' {
				s.lines = append(s.lines, i+1)
			}
		}
	}
	if off < 0 {
		off = 0
	}
	if off > len(s.Text) {
		off = len(s.Text)
	}
	i := sort.Search(len(s.lines), func(i int) bool { return s.lines[i] > off }) - 1
	return i + 1, off - s.lines[i] + 1
}

// LineText returns the text of a 1-based line without its newline.
func (s *Source) LineText(line int) string {
	s.LineCol(0)
	if line < 1 || line > len(s.lines) {
		return ""
	}
	start := s.lines[line-1]
	end := len(s.Text)
	if line < len(s.lines) {
		end = s.lines[line] - 1
	}
	return strings.TrimRight(s.Text[start:end], "\r")
}

// Pos is a position: a source and a byte offset in it. The zero Pos means "no
// position"; a negative offset means the whole file (FilePos).
type Pos struct {
	Src *Source
	Off int
}

// FilePos is the position of a whole file, for problems with no line: the file
// cannot be read, or it has no entry point. It renders as the bare path.
func FilePos(src *Source) Pos { return Pos{Src: src, Off: -1} }

// FileOnly is FilePos for a file known only by its path.
func FileOnly(path string) Pos { return FilePos(NewSource(path, "")) }

// IsValid reports whether the position points into a source.
func (p Pos) IsValid() bool { return p.Src != nil }

// IsFile reports whether the position is a whole file (FilePos).
func (p Pos) IsFile() bool { return p.Src != nil && p.Off < 0 }

// String renders path:line:col, or path for a whole file.
func (p Pos) String() string {
	if p.Src == nil {
		return "<unknown>"
	}
	if p.Off < 0 {
		return p.Src.Path
	}
	l, c := p.Src.LineCol(p.Off)
	return fmt.Sprintf("%s:%d:%d", p.Src.Path, l, c)
}

// Severity of a message.
type Severity int

const (
	Error Severity = iota
	Warning
)

func (s Severity) String() string {
	if s == Warning {
		return "warning"
	}
	return "error"
}

// Msg is one diagnostic.
type Msg struct {
	Severity Severity
	Code     Code   // stable code, e.g. "E0101"; see codes.go and docs/diagnostics.md
	Pos      Pos    // where; may be invalid for whole-module problems
	Text     string // the message
	Notes    []Note // secondary locations ("previous declaration here")
}

// Note is a secondary location attached to a message.
type Note struct {
	Pos  Pos
	Text string
}

// String renders the message as `path:line:col: error CODE: text`.
func (m Msg) String() string {
	return fmt.Sprintf("%s: %s %s: %s", m.Pos, m.Severity, m.Code, m.Text)
}

// Render returns the message with the offending source line and a caret under the column.
func (m Msg) Render() string {
	var b strings.Builder
	b.WriteString(m.String())
	b.WriteByte('\n')
	writeSnippet(&b, m.Pos)
	for _, n := range m.Notes {
		fmt.Fprintf(&b, "%s: note: %s\n", n.Pos, n.Text)
		writeSnippet(&b, n.Pos)
	}
	return b.String()
}

func writeSnippet(b *strings.Builder, p Pos) {
	if p.Src == nil || p.Off < 0 {
		return
	}
	line, col := p.Src.LineCol(p.Off)
	text := p.Src.LineText(line)
	b.WriteString("    ")
	b.WriteString(strings.ReplaceAll(text, "\t", " "))
	b.WriteString("\n    ")
	if col-1 <= len(text) {
		b.WriteString(strings.Repeat(" ", col-1))
	}
	b.WriteString("^\n")
}

// Log collects diagnostics from every stage. It is not safe for concurrent use;
// each compile has its own.
type Log struct {
	Msgs   []Msg
	errors int
	// MaxErrors stops recording after this many errors (0 = 100) so pathological input
	// cannot make the compiler quadratic.
	MaxErrors int
}

// Errorf records an error.
func (l *Log) Errorf(pos Pos, code Code, format string, args ...any) {
	max := l.MaxErrors
	if max == 0 {
		max = 100
	}
	l.errors++
	if l.errors > max {
		return
	}
	l.Msgs = append(l.Msgs, Msg{Severity: Error, Code: code, Pos: pos, Text: fmt.Sprintf(format, args...)})
}

// Warnf records a warning.
func (l *Log) Warnf(pos Pos, code Code, format string, args ...any) {
	if len(l.Msgs) > 1000 {
		return
	}
	l.Msgs = append(l.Msgs, Msg{Severity: Warning, Code: code, Pos: pos, Text: fmt.Sprintf(format, args...)})
}

// Add records a prepared message (used when a message carries notes).
func (l *Log) Add(m Msg) {
	if m.Severity == Error {
		l.errors++
	}
	l.Msgs = append(l.Msgs, m)
}

// HasErrors reports whether any error was recorded.
func (l *Log) HasErrors() bool { return l.errors > 0 }

// ErrorCount is the number of errors recorded (including those dropped past MaxErrors).
func (l *Log) ErrorCount() int { return l.errors }

// Sorted returns the messages ordered by file, then offset, keeping report order for ties.
func (l *Log) Sorted() []Msg {
	out := append([]Msg(nil), l.Msgs...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Pos, out[j].Pos
		if a.Src == nil || b.Src == nil {
			return a.Src != nil && b.Src == nil
		}
		if a.Src.Path != b.Src.Path {
			return a.Src.Path < b.Src.Path
		}
		return a.Off < b.Off
	})
	return out
}

// Errors is the error value a failed compile returns: the messages that made it
// fail. Err, when set, is the error behind them (a file that cannot be read),
// for errors.Is and errors.As.
type Errors struct {
	Msgs []Msg
	Err  error
}

func (e *Errors) Unwrap() error { return e.Err }

func (e *Errors) Error() string {
	var b strings.Builder
	for i, m := range e.Msgs {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(m.String())
	}
	return b.String()
}
