package results

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"waverig/internal/fsutil"
)

// Files of a result directory. A run owns all of them: a new run into the same
// directory removes the previous run's before it starts, so nothing stale (a repro
// bundle of a failure that no longer happens) survives next to new results.
const (
	ResultsFile = "results.jsonl"
	SummaryFile = "summary.json"
	JUnitFile   = "results.junit.xml"
	CSVFile     = "results.csv.gz"
	HTMLFile    = "report.html"
	ReproDir    = "repro"
	// FailuresFile lists every case that did not pass (Fail, Crash, Timeout) as
	// `test,Status` lines: the fails.csv of a baseline the run would pass against,
	// committed as is.
	FailuresFile = "failures.csv"
	// ExpectationFile names the baseline, flake and skip files the run used.
	ExpectationFile = "expectation.json"
	// DevicesFile is `waverig devices -json` of the run's devices (the report's
	// capability matrix).
	DevicesFile = "devices.json"
	lockFile    = ".waverig.lock"
)

// results.jsonl is where a run appends its records while it runs (plain, one
// line per record, unbuffered: a crash loses no finished result);
// CompressedResultsFile is what a saved run leaves instead (Dir.Seal): the same
// bytes gzipped, 10-20 times smaller. FindResults finds either.
const CompressedResultsFile = ResultsFile + ".gz"

// runOwned lists what a new run clears out of its directory.
var runOwned = []string{ResultsFile, CompressedResultsFile, SummaryFile, JUnitFile, CSVFile, plainCSVFile, HTMLFile, ReproDir, FailuresFile, ExpectationFile, DevicesFile, ChildLogFile, ValidationDir}

// ValidationDir holds the Khronos validation layer's logs of a `waverig run
// -validation` (one file per process that logged a message).
const ValidationDir = "validation"

// ChildLogFile is where `waverig run` puts its child processes' stderr (the
// driver's own output when it crashes: harness.ChildLogFile names the same
// file); a new run, or a merge into the directory, clears the previous one.
const ChildLogFile = "children.log"

// plainCSVFile is where runs before results.csv.gz wrote their CSV: a run
// into such a directory removes it with the rest.
const plainCSVFile = "results.csv"

// Dir is a result directory held by one run: locked against a second run, with
// results.jsonl open for appending. Every write is checked; the first failure is
// kept and returned by Err and Close, so a full disk fails the run loudly.
type Dir struct {
	Path string
	lock *os.File
	out  *os.File
	err  error
}

// ErrBusy says another run holds the directory.
var ErrBusy = errors.New("another waverig run is writing to this directory")

// OpenDir creates (if needed) and locks dir, removes a previous run's files and
// opens results.jsonl. A directory locked by a live run is refused with ErrBusy.
func OpenDir(dir string) (*Dir, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	lock, err := os.OpenFile(filepath.Join(dir, lockFile), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	// flock is released by the kernel when the process dies, so a killed run never
	// leaves the directory locked.
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder, _ := io.ReadAll(io.LimitReader(lock, 64))
		lock.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%s: %w (pid %s)", dir, ErrBusy, strings.TrimSpace(string(holder)))
		}
		return nil, fmt.Errorf("%s: lock: %v", dir, err)
	}
	if err := lock.Truncate(0); err == nil {
		lock.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	for _, name := range runOwned {
		if err := os.RemoveAll(filepath.Join(dir, name)); err != nil {
			lock.Close()
			return nil, fmt.Errorf("clearing the previous run: %v", err)
		}
	}
	out, err := os.OpenFile(filepath.Join(dir, ResultsFile), os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o644)
	if err != nil {
		lock.Close()
		return nil, err
	}
	return &Dir{Path: dir, lock: lock, out: out}, nil
}

// Append writes one record as a line of results.jsonl, unbuffered: a crash later
// in the run never loses a finished result. A record is written whole or the
// failure is kept (a short write is an error, never a silent half line).
func (d *Dir) Append(r Record) error {
	if d.err != nil {
		return d.err
	}
	line, err := json.Marshal(r)
	if err != nil {
		d.err = err
		return err
	}
	line = append(line, '\n')
	if _, err := d.out.Write(line); err != nil {
		d.err = fmt.Errorf("writing %s: %w", filepath.Join(d.Path, ResultsFile), err)
	}
	return d.err
}

// WriteFile writes a report file atomically: into a temporary file in the same
// directory, synced, then renamed over name. A failure leaves no partial file.
func (d *Dir) WriteFile(name string, write func(io.Writer) error) error {
	err := WriteFileAtomic(filepath.Join(d.Path, name), write)
	if err != nil && d.err == nil {
		d.err = err
	}
	return err
}

// WriteFileAtomic writes path through a temporary file and a rename.
func WriteFileAtomic(path string, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	tmp := f.Name()
	w := bufio.NewWriter(f)
	err = write(w)
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// Err is the first write failure, if any.
func (d *Dir) Err() error { return d.err }

// Seal ends a saved run's results: results.jsonl is synced and closed, its
// bytes are written gzipped to results.jsonl.gz (atomically: a temporary file,
// synced, renamed), and only then is the plain file removed. A crash at any
// point leaves a complete results file: the plain one until the rename, both
// (the same records) between the rename and the removal, the compressed one
// after. No Append may follow. A failure (here or of an earlier write) keeps
// the plain file and is returned; it is kept for Close.
func (d *Dir) Seal() error {
	if d.err != nil {
		return d.err
	}
	if d.out == nil {
		return fmt.Errorf("%s: sealed twice or closed", d.Path)
	}
	plain := filepath.Join(d.Path, ResultsFile)
	err := d.out.Sync()
	if cerr := d.out.Close(); err == nil {
		err = cerr
	}
	d.out = nil
	if err == nil {
		err = gzipFile(plain, filepath.Join(d.Path, CompressedResultsFile))
	}
	if err == nil {
		err = os.Remove(plain)
	}
	if err != nil {
		d.err = fmt.Errorf("writing %s: %w", filepath.Join(d.Path, CompressedResultsFile), err)
	}
	return d.err
}

// gzipFile writes src's bytes gzipped to dst through WriteFileAtomic.
func gzipFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	return WriteFileAtomic(dst, func(w io.Writer) error {
		z := gzip.NewWriter(w)
		if _, err := io.Copy(z, in); err != nil {
			return err
		}
		return z.Close()
	})
}

// FindResults is the results file of a run directory: results.jsonl while a
// run writes it (or when one was killed before it was saved), else
// results.jsonl.gz (a saved run). When both are there — a crash between
// Seal's rename and its removal, or an older waverig's run appending into a
// directory a newer one left — the plain file is the one written last. An
// error names the directory and both names.
func FindResults(dir string) (string, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return "", err
	}
	if !st.IsDir() {
		return "", fmt.Errorf("%s is not a run directory", dir)
	}
	for _, name := range []string{ResultsFile, CompressedResultsFile} {
		p := filepath.Join(dir, name)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
	}
	return "", fmt.Errorf("%s: no %s or %s: not a run directory", dir, ResultsFile, CompressedResultsFile)
}

// ResolveResults turns what a user names as a run's results into its file: a
// run directory (FindResults), a results file as it is, or DIR/results.jsonl
// when that run was saved since and left DIR/results.jsonl.gz (so commands and
// scripts written for the plain name keep working).
func ResolveResults(path string) (string, error) {
	st, err := os.Stat(path)
	switch {
	case err == nil && st.IsDir():
		return FindResults(path)
	case err == nil:
		return path, nil
	case errors.Is(err, fs.ErrNotExist) && filepath.Base(path) == ResultsFile:
		if _, gzErr := os.Stat(path + ".gz"); gzErr == nil {
			return path + ".gz", nil
		}
	}
	return "", err
}

// ReadRunDir reads the records of a run directory (FindResults, ReadJSONL).
func ReadRunDir(dir string) (recs []Record, truncated bool, err error) {
	path, err := FindResults(dir)
	if err != nil {
		return nil, false, err
	}
	return ReadJSONL(path)
}

// Close syncs and closes results.jsonl (when Seal did not) and releases the
// lock; it returns the first failure of the whole run's writes.
func (d *Dir) Close() error {
	if d.out != nil {
		if err := d.out.Sync(); err != nil && d.err == nil {
			d.err = fmt.Errorf("writing %s: %w", filepath.Join(d.Path, ResultsFile), err)
		}
		if err := d.out.Close(); err != nil && d.err == nil {
			d.err = err
		}
		d.out = nil
	}
	if d.lock != nil {
		d.lock.Close()
		d.lock = nil
	}
	return d.err
}

// ReadError is a results file that is not a run's records.
type ReadError struct {
	Path string
	Line int
	Msg  string
}

func (e *ReadError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Path, e.Msg)
}

// MaxLine is the longest results.jsonl line accepted (a record keeps at most 64
// failing lanes, a few KiB).
const MaxLine = 16 << 20

// ReadJSONL reads a results.jsonl (gzipped when the name ends in .gz). Every
// line must be a record with a case and a known status; a truncated last line (a run killed mid-write) is reported in
// truncated, with every complete record kept. An empty file is an error: it is
// not a run.
func ReadJSONL(path string) (recs []Record, truncated bool, err error) {
	f, err := fsutil.OpenRegular(path)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	if strings.HasSuffix(path, ".gz") {
		// A saved run (Dir.Seal) and the baselines kept in the repository
		// (docs/hardware/…) are compressed.
		z, err := gzip.NewReader(f)
		if err != nil {
			return nil, false, fmt.Errorf("%s: %w", path, err)
		}
		defer z.Close()
		return ParseJSONL(path, z)
	}
	return ParseJSONL(path, f)
}

// ParseJSONL is ReadJSONL on a reader (name is used in errors).
func ParseJSONL(name string, r io.Reader) (recs []Record, truncated bool, err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	line := 0
	for {
		data, rerr := readLine(br)
		if rerr != nil && rerr != io.EOF {
			return recs, false, &ReadError{Path: name, Line: line + 1, Msg: rerr.Error()}
		}
		if len(data) == 0 && rerr == io.EOF {
			break
		}
		line++
		complete := rerr == nil // ended with a newline
		if len(bytes.TrimSpace(data)) > 0 {
			rec, perr := parseRecord(data)
			switch {
			case perr != nil && !complete:
				truncated = true
			case perr != nil:
				return recs, false, &ReadError{Path: name, Line: line, Msg: perr.Error()}
			default:
				recs = append(recs, rec)
			}
		}
		if rerr == io.EOF {
			break
		}
	}
	if len(recs) == 0 {
		return nil, truncated, &ReadError{Path: name, Msg: "no records (empty or truncated results file)"}
	}
	return recs, truncated, nil
}

func readLine(br *bufio.Reader) ([]byte, error) {
	var out []byte
	for {
		chunk, err := br.ReadSlice('\n')
		out = append(out, chunk...)
		if len(out) > MaxLine {
			return nil, fmt.Errorf("line longer than %d bytes", MaxLine)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == nil {
			return out[:len(out)-1], nil
		}
		return out, err
	}
}

func parseRecord(data []byte) (Record, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var r Record
	if err := dec.Decode(&r); err != nil {
		return r, fmt.Errorf("not a results record: %v", err)
	}
	if dec.More() {
		return r, fmt.Errorf("not a results record: more than one JSON value on the line")
	}
	if r.Case == "" {
		return r, fmt.Errorf("not a results record: no \"case\"")
	}
	switch r.Status {
	case Pass, Fail, Skip, Error, Differs, Crash, Timeout, Flake, Vacuous:
	default:
		return r, fmt.Errorf("not a results record: status %q", r.Status)
	}
	return r, nil
}
