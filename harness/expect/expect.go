// Package expect reads baselines: what a driver (or a compiler) is known to get
// wrong, in deqp-runner's formats, so that a nightly run fails only on what
// changed and a driver team's tooling reads waverig's files as it reads
// deqp-runner's. It is the one mechanism for known problems: the built-in
// baselines (data/, embedded) and the directories given with `-baseline` are
// the same kind of thing, and a run's failures.csv is the next fails.csv.
//
// A baseline is a directory of up to four files:
//
//	fails.csv    test,Status        cases expected to end in Fail, Crash or Timeout
//	flakes.txt   one regex a line   cases whose failures are ignored (still run)
//	skips.txt    one regex a line   cases not run at all
//	driver.txt   one regex          the devices it is for ("name | driver name |
//	                                driver info"); optional for a directory given
//	                                on the command line, where a mismatch is an error
//
// Lines starting with # are comments; the comment block above a line is its
// reason (a skips.txt reason starting "Crash:" says the skip hides a crash, and
// the suites re-check that it still crashes). The test column of fails.csv is a
// test name (results.Record.Name) or, beyond deqp-runner, an anchored Go
// regular expression: a name matches itself, and a line such as
// `vulkan/pixel/QuadReadAcrossX/.*,Fail` covers a known bug over many cases.
// An exact line is a promise about that case (a pass is an
// UnexpectedImprovement(Pass)); a pattern line says its cases may end so (a
// pass is a pass, and a line none of whose cases ended so is stale).
package expect

import (
	"bufio"
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"waverig/harness/results"
	"waverig/internal/fsutil"
)

//go:embed data
var builtin embed.FS

// The files of a baseline directory.
const (
	FailsFile  = "fails.csv"
	FlakesFile = "flakes.txt"
	SkipsFile  = "skips.txt"
	DriverFile = "driver.txt"
)

var baselineFiles = []string{DriverFile, FailsFile, FlakesFile, SkipsFile}

// maxFileBytes caps each baseline file (a fails.csv of every case of a run of
// 300,000 is ~25 MB; more is not a baseline).
const maxFileBytes = 64 << 20

// Line is one line of a baseline file.
type Line struct {
	// Test is the name or pattern as written.
	Test string
	// Status: Fail, Crash or Timeout (fails.csv), Flake (flakes.txt), Skip (skips.txt).
	Status string
	// Exact: Test is a plain name, matched by equality.
	Exact bool
	// Reason is the comment block above the line; Where is "file:line".
	Reason, Where string

	re *regexp.Regexp
	// must is a literal every name the pattern matches contains: most names are
	// rejected by a substring search before the regular expression runs.
	must string
}

// Known is how a record names the line that matched it ("where: reason").
func (l *Line) Known() string {
	if l.Reason == "" {
		return l.Where
	}
	return l.Where + ": " + l.Reason
}

// HidesCrash reports whether a skips.txt line exists because its cases crash
// the driver (its reason starts with "Crash:").
func (l *Line) HidesCrash() bool { return strings.HasPrefix(l.Reason, "Crash:") }

// Matches reports whether the line covers a test name.
func (l *Line) Matches(name string) bool {
	if l.Exact {
		return l.Test == name
	}
	return strings.Contains(name, l.must) && l.re.MatchString(name)
}

// Set is one baseline directory.
type Set struct {
	// Name is the directory, or "builtin:NAME" for an embedded one.
	Name string
	// Driver selects the devices a built-in baseline is for; nil: every device.
	Driver *regexp.Regexp
	Fails  []*Line
	Flakes []*Line
	Skips  []*Line
	// Files are the files as read, by name: a child process gets them as text
	// and parses them again, so parent and child apply the same lines.
	Files map[string]string

	exact    map[string]*Line // fails.csv's exact lines by name
	patterns []*Line          // fails.csv's pattern lines
}

// Lines counts a set's lines per file (expectation.json).
func (s *Set) Lines() map[string]int {
	out := map[string]int{}
	if s.Driver != nil {
		out[DriverFile] = 1
	}
	for name, ls := range map[string][]*Line{FailsFile: s.Fails, FlakesFile: s.Flakes, SkipsFile: s.Skips} {
		if _, ok := s.Files[name]; ok {
			out[name] = len(ls)
		}
	}
	return out
}

// Builtin returns the embedded baselines (data/NAME/), sorted by name.
func Builtin() ([]*Set, error) {
	dirs, err := fs.ReadDir(builtin, "data")
	if err != nil {
		return nil, err
	}
	var sets []*Set
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		files := map[string]string{}
		for _, f := range baselineFiles {
			data, err := builtin.ReadFile(path.Join("data", d.Name(), f))
			if err == nil {
				files[f] = string(data)
			}
		}
		s, err := Parse("builtin:"+d.Name(), files)
		if err != nil {
			return nil, err
		}
		if s.Driver == nil {
			return nil, fmt.Errorf("builtin:%s: no %s (a built-in baseline must say which drivers it is for)", d.Name(), DriverFile)
		}
		sets = append(sets, s)
	}
	return sets, nil
}

// LoadDir reads a baseline directory. It must hold at least one baseline file;
// a missing one is empty.
func LoadDir(dir string) (*Set, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s: not a directory (a baseline is a directory with %s)", dir, strings.Join(baselineFiles[1:], ", "))
	}
	files := map[string]string{}
	for _, f := range baselineFiles {
		data, err := fsutil.ReadRegular(filepath.Join(dir, f), maxFileBytes)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		files[f] = string(data)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no %s, %s or %s: not a baseline directory", dir, FailsFile, FlakesFile, SkipsFile)
	}
	return Parse(dir, files)
}

// IsDir reports whether path is a baseline directory (it has one of the
// baseline files), as opposed to a previous run's results to compare with.
func IsDir(dir string) bool {
	for _, f := range baselineFiles[1:] {
		if st, err := os.Stat(filepath.Join(dir, f)); err == nil && st.Mode().IsRegular() {
			return true
		}
	}
	return false
}

// Parse reads a baseline from its files' texts (by file name).
func Parse(name string, files map[string]string) (*Set, error) {
	s := &Set{Name: name, Files: files, exact: map[string]*Line{}}
	if text, ok := files[DriverFile]; ok {
		for i, l := range strings.Split(text, "\n") {
			l = strings.TrimSpace(l)
			if l == "" || strings.HasPrefix(l, "#") {
				continue
			}
			if s.Driver != nil {
				return nil, fmt.Errorf("%s/%s:%d: one driver pattern only", name, DriverFile, i+1)
			}
			re, err := regexp.Compile(l)
			if err != nil {
				return nil, fmt.Errorf("%s/%s:%d: %v", name, DriverFile, i+1, err)
			}
			s.Driver = re
		}
	}
	var err error
	if s.Fails, err = parseLines(name, FailsFile, files[FailsFile], true); err != nil {
		return nil, err
	}
	if s.Flakes, err = parseLines(name, FlakesFile, files[FlakesFile], false); err != nil {
		return nil, err
	}
	if s.Skips, err = parseLines(name, SkipsFile, files[SkipsFile], false); err != nil {
		return nil, err
	}
	for _, l := range s.Flakes {
		l.Status = results.OutcomeFlake
	}
	for _, l := range s.Skips {
		l.Status = results.OutcomeSkip
	}
	for _, l := range s.Fails {
		if !l.Exact {
			s.patterns = append(s.patterns, l)
			continue
		}
		if prev := s.exact[l.Test]; prev != nil {
			return nil, fmt.Errorf("%s: %s is listed twice (also at %s)", l.Where, l.Test, prev.Where)
		}
		s.exact[l.Test] = l
	}
	return s, nil
}

// nameChars are the characters of test names; a test column made of them only
// (a '.' matches itself as a pattern too) is an exact name.
func isName(t string) bool {
	for _, c := range t {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.ContainsRune("/=_#-", c):
		default:
			return false
		}
	}
	return true
}

// parseLines reads one file: comment blocks, and lines of a test (name or
// pattern), with ",Status" in fails.csv.
func parseLines(set, file, text string, withStatus bool) ([]*Line, error) {
	var out []*Line
	var comment []string
	afterLine := false
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		l := strings.TrimSpace(sc.Text())
		where := fmt.Sprintf("%s:%d", file, n)
		if !strings.HasPrefix(set, "builtin:") {
			where = filepath.Join(set, file) + fmt.Sprintf(":%d", n)
		} else {
			where = strings.TrimPrefix(set, "builtin:") + "/" + where
		}
		switch {
		case l == "":
			comment, afterLine = nil, false
			continue
		case strings.HasPrefix(l, "#"):
			if afterLine {
				comment, afterLine = nil, false
			}
			comment = append(comment, strings.TrimSpace(strings.TrimPrefix(l, "#")))
			continue
		}
		line := &Line{Test: l, Reason: strings.Join(comment, " "), Where: where}
		if withStatus {
			i := strings.LastIndexByte(l, ',')
			if i < 0 {
				return nil, fmt.Errorf("%s: %q is not test,Status", where, l)
			}
			line.Test, line.Status = strings.TrimSpace(l[:i]), strings.TrimSpace(l[i+1:])
			switch line.Status {
			case results.OutcomeFail, results.OutcomeCrash, results.OutcomeTimeout:
			default:
				return nil, fmt.Errorf("%s: status %q (a baseline expects Fail, Crash or Timeout)", where, line.Status)
			}
		}
		if line.Test == "" {
			return nil, fmt.Errorf("%s: no test name", where)
		}
		if line.Exact = isName(line.Test); !line.Exact {
			re, err := regexp.Compile("^(?:" + line.Test + ")$")
			if err != nil {
				return nil, fmt.Errorf("%s: %v", where, err)
			}
			line.re = re
			line.must = requiredLiteral(line.Test)
		}
		out = append(out, line)
		// Lines that follow each other share the comment block above them.
		afterLine = true
	}
	return out, sc.Err()
}

// requiredLiteral is the longest run of literal characters that every match
// of a pattern contains: outside groups and classes, not made optional by a
// quantifier; "" when the pattern has a top-level alternation.
func requiredLiteral(p string) string {
	best, cur := "", []byte{}
	flush := func() {
		if len(cur) > len(best) {
			best = string(cur)
		}
		cur = cur[:0]
	}
	depth := 0
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\':
			flush()
			i++
		case c == '[':
			flush()
			for i++; i < len(p) && p[i] != ']'; i++ {
				if p[i] == '\\' {
					i++
				}
			}
		case c == '(':
			flush()
			depth++
		case c == ')':
			depth--
		case c == '|':
			if depth == 0 {
				return ""
			}
		case strings.IndexByte(".^$", c) >= 0:
			flush()
		case strings.IndexByte("?*{", c) >= 0:
			// The character before is optional: it is not required.
			if len(cur) > 0 {
				cur = cur[:len(cur)-1]
			}
			flush()
			if c == '{' {
				for i < len(p) && p[i] != '}' {
					i++
				}
			}
		case c == '+':
			flush()
		default:
			if depth == 0 {
				cur = append(cur, c)
			} else {
				flush()
			}
		}
	}
	flush()
	return best
}

// Applies reports whether a set is for a device ("name | driver name | driver
// info"): its driver pattern matches, or it has none.
func (s *Set) Applies(device string) bool { return s.Driver == nil || s.Driver.MatchString(device) }

// Judge is the baselines that apply to one device, in order: the first line
// that matches a case decides.
type Judge struct {
	Sets []*Set
}

// For returns the judge of a device: the sets whose driver pattern matches.
func For(sets []*Set, device string) *Judge {
	j := &Judge{}
	for _, s := range sets {
		if s.Applies(device) {
			j.Sets = append(j.Sets, s)
		}
	}
	return j
}

// Expected is the fails.csv line naming a test (exact lines first), or nil.
func (j *Judge) Expected(name string) *Line {
	if j == nil {
		return nil
	}
	for _, s := range j.Sets {
		if l := s.exact[name]; l != nil {
			return l
		}
		for _, l := range s.patterns {
			if l.Matches(name) {
				return l
			}
		}
	}
	return nil
}

// Flake is the flakes.txt line naming a test, or nil.
func (j *Judge) Flake(name string) *Line {
	return j.first(name, func(s *Set) []*Line { return s.Flakes })
}

// Skip is the skips.txt line naming a test, or nil.
func (j *Judge) Skip(name string) *Line {
	return j.first(name, func(s *Set) []*Line { return s.Skips })
}

func (j *Judge) first(name string, lines func(*Set) []*Line) *Line {
	if j == nil {
		return nil
	}
	for _, s := range j.Sets {
		for _, l := range lines(s) {
			if l.Matches(name) {
				return l
			}
		}
	}
	return nil
}

// Apply marks a record with what its baseline expects: the fails.csv line
// (or else the flakes.txt line) that names it. Layout and parity records are
// not cases and are left alone.
func (j *Judge) Apply(r *results.Record) {
	if j == nil || r.Case == results.LayoutCase || r.Status == results.Differs {
		return
	}
	name := r.Name()
	l := j.Expected(name)
	if l == nil {
		l = j.Flake(name)
	}
	if l == nil {
		return
	}
	r.Expected, r.ExpectedExact, r.Known = l.Status, l.Exact, l.Known()
}

// Stale returns the pattern lines of fails.csv that matched cases of a run
// none of which ended as the line says: the bug is gone on this device, or the
// line is wider than it. (An exact line that passes is an
// UnexpectedImprovement, reported per case.)
func (j *Judge) Stale(recs []results.Record) []*Line {
	if j == nil {
		return nil
	}
	matched, hit := map[*Line]bool{}, map[*Line]bool{}
	for _, r := range recs {
		if r.Case == results.LayoutCase || r.Status == results.Skip || r.Status == results.Differs || r.Expected == "" || r.Expected == results.OutcomeFlake {
			continue
		}
		l := j.Expected(r.Name())
		if l == nil || l.Exact {
			continue
		}
		matched[l] = true
		if r.Outcome() == l.Status {
			hit[l] = true
		}
	}
	var out []*Line
	for l := range matched {
		if !hit[l] {
			out = append(out, l)
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Where < out[b].Where })
	return out
}

// FailuresCSV writes a run's failures.csv: every case whose outcome is Fail,
// Crash or Timeout, as `test,Status`, sorted, under the reason of the baseline
// line that knew it (as a comment) — the fails.csv of a baseline this run passes
// against, to be committed as is. Flakes and skips are not in it: flakes.txt
// and skips.txt are kept by hand.
func FailuresCSV(recs []results.Record) string {
	groups := map[string][]string{}
	for _, r := range recs {
		if r.Case == results.LayoutCase {
			continue
		}
		switch o := r.Outcome(); o {
		case results.OutcomeFail, results.OutcomeCrash, results.OutcomeTimeout:
			why := ""
			if r.Known != "" {
				// Known is "file:line: reason": the reason goes on, the place
				// was the old file's.
				why = r.Known
				if _, reason, ok := strings.Cut(r.Known, ": "); ok {
					why = reason
				}
			}
			groups[why] = append(groups[why], r.Name()+","+o)
		}
	}
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Strings(keys) // "" (new failures) first
	var b strings.Builder
	b.WriteString("# failures.csv written by waverig: every case that did not pass, as test,Status.\n" +
		"# Committed as a baseline's fails.csv, the next run fails only on what changed.\n")
	for _, k := range keys {
		b.WriteString("\n")
		if k == "" {
			b.WriteString("# New: no baseline knew these when this file was written; put the reason (a bug link) here.\n")
		} else {
			writeComment(&b, k)
		}
		lines := groups[k]
		sort.Strings(lines)
		for _, l := range lines {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// writeComment writes a reason as # lines of at most ~100 columns.
func writeComment(b *strings.Builder, text string) {
	line := "#"
	for _, w := range strings.Fields(text) {
		if len(line)+1+len(w) > 100 && line != "#" {
			b.WriteString(line + "\n")
			line = "#"
		}
		line += " " + w
	}
	b.WriteString(line + "\n")
}
