// Package expect reads expectation files: the known problems of one driver
// version (cases that crash it, cases it gets wrong), so a nightly run reports
// what changed instead of the same known bugs every night. Files are embedded from
// data/ and more can be given on the command line.
package expect

import (
	"bufio"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strconv"
	"strings"

	"waverig/harness/results"
)

//go:embed data/*.txt
var builtin embed.FS

// Kind of a known problem.
type Kind string

const (
	Crash Kind = "crash" // the driver kills the process
	Fail  Kind = "fail"  // the driver computes a wrong result
	// Invalid: the compiler emits a module spirv-val rejects (it never reaches
	// the driver); the cases are errors, known.
	Invalid Kind = "invalid"
)

// Entry is one known problem.
type Entry struct {
	Kind     Kind
	Op       string // exact intrinsic name, or "*"
	Type     string // glob on the HLSL type ("double*")
	Sizes    []uint32
	Compiler string // ours, glslang, or "*"
	// API, Stage ("" = any) and Shape (glob; "*" = any) narrow an entry to one
	// API (vulkan, webgpu), one stage (compute, pixel, vertex) or some scenes.
	API, Stage string
	Shape      string
	Reason     string // the comment block above the entry
	Where      string // file:line
}

// Set is one file: the entries for drivers its pattern matches.
type Set struct {
	Name    string
	Driver  *regexp.Regexp
	Entries []Entry
	// Text is the file as read: a child process gets the sets as text and parses
	// them again, so parent and child apply the same entries.
	Text string
}

// Builtin returns the embedded expectation files.
func Builtin() ([]*Set, error) {
	var sets []*Set
	err := fs.WalkDir(builtin, "data", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := builtin.ReadFile(p)
		if err != nil {
			return err
		}
		s, err := Parse(path.Base(p), string(data))
		if err != nil {
			return err
		}
		sets = append(sets, s)
		return nil
	})
	return sets, err
}

// Parse reads one expectation file.
func Parse(name, text string) (*Set, error) {
	s := &Set{Name: name, Text: text}
	var comment []string
	afterEntry := false
	sc := bufio.NewScanner(strings.NewReader(text))
	line := 0
	for sc.Scan() {
		line++
		l := strings.TrimSpace(sc.Text())
		switch {
		case l == "":
			comment = nil
			continue
		case strings.HasPrefix(l, "#"):
			if afterEntry {
				comment, afterEntry = nil, false
			}
			comment = append(comment, strings.TrimSpace(strings.TrimPrefix(l, "#")))
			continue
		case strings.HasPrefix(l, "driver:"):
			re, err := regexp.Compile(strings.TrimSpace(strings.TrimPrefix(l, "driver:")))
			if err != nil {
				return nil, fmt.Errorf("%s:%d: driver pattern: %v", name, line, err)
			}
			s.Driver = re
			comment = nil
			continue
		}
		f := strings.Fields(l)
		e := Entry{Kind: Kind(f[0]), Op: "*", Type: "*", Compiler: "*", Shape: "*", Reason: strings.Join(comment, " "), Where: fmt.Sprintf("%s:%d", name, line)}
		if e.Kind != Crash && e.Kind != Fail && e.Kind != Invalid {
			return nil, fmt.Errorf("%s:%d: unknown kind %q (use crash, fail or invalid)", name, line, f[0])
		}
		for _, kv := range f[1:] {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				return nil, fmt.Errorf("%s:%d: %q is not key=value", name, line, kv)
			}
			switch k {
			case "op":
				e.Op = v
			case "type":
				e.Type = v
			case "compiler":
				e.Compiler = v
			case "api":
				e.API = v
			case "stage":
				e.Stage = v
			case "shape":
				e.Shape = v
			case "size":
				for _, n := range strings.Split(v, ",") {
					x, err := strconv.Atoi(n)
					if err != nil {
						return nil, fmt.Errorf("%s:%d: size %q: %v", name, line, n, err)
					}
					e.Sizes = append(e.Sizes, uint32(x))
				}
			default:
				return nil, fmt.Errorf("%s:%d: unknown field %q (op, type, size, compiler, api, stage, shape)", name, line, k)
			}
		}
		if _, err := path.Match(e.Type, ""); err != nil {
			return nil, fmt.Errorf("%s:%d: type glob %q: %v", name, line, e.Type, err)
		}
		if _, err := path.Match(e.Shape, ""); err != nil {
			return nil, fmt.Errorf("%s:%d: shape glob %q: %v", name, line, e.Shape, err)
		}
		s.Entries = append(s.Entries, e)
		// Entries that follow each other share the comment block above them.
		afterEntry = true
	}
	if s.Driver == nil {
		return nil, fmt.Errorf("%s: no `driver:` line", name)
	}
	return s, sc.Err()
}

// Applies reports whether a set's driver pattern matches the device description
// ("name | driver name | driver info").
func (s *Set) Applies(device string) bool { return s.Driver.MatchString(device) }

// For returns the entries of every set whose driver pattern matches the device
// description ("name | driver name | driver info").
func For(sets []*Set, device string) []Entry {
	var out []Entry
	for _, s := range sets {
		if s.Applies(device) {
			out = append(out, s.Entries...)
		}
	}
	return out
}

// Matches reports whether an entry covers a case.
func (e Entry) Matches(op, typ, compiler string, size uint32) bool {
	if e.Op != "*" && e.Op != op {
		return false
	}
	if ok, _ := path.Match(e.Type, typ); !ok {
		return false
	}
	return e.Covers(compiler, size)
}

// Covers reports whether an entry names a compiler and a wave size (whatever
// the operation and type).
func (e Entry) Covers(compiler string, size uint32) bool {
	if e.Compiler != "*" && e.Compiler != compiler {
		return false
	}
	if len(e.Sizes) == 0 {
		return true
	}
	for _, s := range e.Sizes {
		if s == size {
			return true
		}
	}
	return false
}

// APIs are the APIs an entry names (nil: every API).
func (e Entry) APIs() []string {
	if e.API == "" {
		return nil
	}
	return []string{e.API}
}

// MatchesRecord reports whether an entry covers a record's case: Matches, and
// the entry's API, stage and shape (a record without API or stage is a Vulkan
// compute record, as every record was before the graphics stages).
func (e Entry) MatchesRecord(r results.Record) bool {
	api, stage := r.API, r.Stage
	if api == "" {
		api = results.Vulkan
	}
	if stage == "" {
		stage = results.Compute
	}
	if (e.API != "" && e.API != api) || (e.Stage != "" && e.Stage != stage) {
		return false
	}
	if ok, _ := path.Match(e.Shape, r.Shape); !ok {
		return false
	}
	return e.Matches(r.Op, r.Type, r.Compiler, r.WaveSize)
}

// FindRecord returns the first entry of kind k that covers a record's case, or nil.
func FindRecord(entries []Entry, k Kind, r results.Record) *Entry {
	for i := range entries {
		if entries[i].Kind == k && entries[i].MatchesRecord(r) {
			return &entries[i]
		}
	}
	return nil
}

// Find returns the first entry of kind k matching the case, or nil.
func Find(entries []Entry, k Kind, op, typ, compiler string, size uint32) *Entry {
	for i := range entries {
		if entries[i].Kind == k && entries[i].Matches(op, typ, compiler, size) {
			return &entries[i]
		}
	}
	return nil
}

// Stale returns the `fail` entries that matched cases of a run none of which
// failed: the bug is gone on this device, or the entry is wider than it.
func Stale(entries []Entry, recs []results.Record) []Entry {
	var out []Entry
	for _, e := range entries {
		if e.Kind != Fail {
			continue
		}
		matched, failed := false, false
		for _, r := range recs {
			if r.Case == results.LayoutCase || r.Status == results.Skip || r.Status == results.Differs || !e.MatchesRecord(r) {
				continue
			}
			matched = true
			failed = failed || r.Status == results.Fail
		}
		if matched && !failed {
			out = append(out, e)
		}
	}
	return out
}
