package viewer

import (
	"fmt"
	"sort"
	"strconv"

	"waverig/harness/results"
)

// Run is one result directory as the viewer sees it: its records, the grid's
// rows and columns, each cell's worst verdict, and the failing cases the
// selection walks over.
type Run struct {
	Dir     string
	Records []results.Record
	// Truncated: results.jsonl's last line was cut off (a run still writing, or
	// killed); the records before it are shown.
	Truncated bool
	// Ops are the grid's rows (operations, sorted), Cols its columns.
	Ops  []string
	Cols []Column
	// cells[op][col] is the worst verdict of the cell's records and the
	// records themselves (indices into Records, in file order).
	cells [][]cell
	// Failing lists the selectable cases (indices into Records): every record
	// that did not pass, skip or only differ, worst verdict first, then in grid
	// order, so the first selection is the case most worth looking at.
	Failing []int
	// rowOf and colOf place a record in the grid.
	rowOf, colOf []int
	bundles      imageCache
}

// Column is one grid column: an API, a stage and a wave size.
type Column struct {
	API, Stage string
	Size       uint32
}

type cell struct {
	worst   results.Verdict
	records []int
}

// Load reads a run directory's results: results.jsonl while the run writes
// it, results.jsonl.gz once it was saved (results.ReadRunDir).
func Load(dir string) (*Run, error) {
	recs, truncated, err := results.ReadRunDir(dir)
	if err != nil {
		return nil, err
	}
	r := NewRun(dir, recs)
	r.Truncated = truncated
	return r, nil
}

// NewRun builds the grid of records read elsewhere (tests, a run in memory).
func NewRun(dir string, recs []results.Record) *Run {
	r := &Run{Dir: dir, Records: recs, bundles: imageCache{}}
	ops := map[string]bool{}
	cols := map[Column]bool{}
	for _, rec := range recs {
		ops[opOf(rec)] = true
		cols[columnOf(rec)] = true
	}
	for op := range ops {
		r.Ops = append(r.Ops, op)
	}
	sort.Strings(r.Ops)
	for c := range cols {
		r.Cols = append(r.Cols, c)
	}
	sort.Slice(r.Cols, func(i, j int) bool { return r.Cols[i].less(r.Cols[j]) })
	row := make(map[string]int, len(r.Ops))
	for i, op := range r.Ops {
		row[op] = i
	}
	col := make(map[Column]int, len(r.Cols))
	for i, c := range r.Cols {
		col[c] = i
	}
	r.cells = make([][]cell, len(r.Ops))
	for i := range r.cells {
		r.cells[i] = make([]cell, len(r.Cols))
	}
	r.rowOf = make([]int, len(recs))
	r.colOf = make([]int, len(recs))
	for i, rec := range recs {
		ri, ci := row[opOf(rec)], col[columnOf(rec)]
		r.rowOf[i], r.colOf[i] = ri, ci
		c := &r.cells[ri][ci]
		v := rec.Verdict()
		if len(c.records) == 0 || rank(v) > rank(c.worst) {
			c.worst = v
		}
		c.records = append(c.records, i)
		if selectable(v) {
			r.Failing = append(r.Failing, i)
		}
	}
	sort.SliceStable(r.Failing, func(a, b int) bool {
		i, j := r.Failing[a], r.Failing[b]
		if vi, vj := rank(recs[i].Verdict()), rank(recs[j].Verdict()); vi != vj {
			return vi > vj
		}
		if r.rowOf[i] != r.rowOf[j] {
			return r.rowOf[i] < r.rowOf[j]
		}
		return r.colOf[i] < r.colOf[j]
	})
	return r
}

// Cell returns the worst verdict of a grid cell and how many records it holds
// (0: none ran there, and the verdict means nothing).
func (r *Run) Cell(op, col int) (results.Verdict, int) {
	c := r.cells[op][col]
	return c.worst, len(c.records)
}

// Selected is the record of selection sel (an index into Failing), or false
// when sel selects nothing.
func (r *Run) Selected(sel int) (results.Record, bool) {
	if sel < 0 || sel >= len(r.Failing) {
		return results.Record{}, false
	}
	return r.Records[r.Failing[sel]], true
}

// Step moves a selection by d over the failing cases, wrapping at either end
// (the arrow keys); with nothing to select it stays -1.
func (r *Run) Step(sel, d int) int {
	n := len(r.Failing)
	if n == 0 {
		return -1
	}
	if sel < 0 {
		sel = 0
		if d < 0 {
			sel = n - 1
		}
		return sel
	}
	return ((sel+d)%n + n) % n
}

// StepCell moves a selection by d cells: to the first case (in selection
// order) of the next group of cases that lie in another grid cell, wrapping
// (Up and Down). A run's thousands of failures are mostly whole cells failing
// together; this walks the cells, the arrows of Step walk the cases.
func (r *Run) StepCell(sel, d int) int {
	n := len(r.Failing)
	if n == 0 || sel < 0 || sel >= n {
		return r.Step(sel, d)
	}
	cellOf := func(s int) [2]int { i := r.Failing[s]; return [2]int{r.rowOf[i], r.colOf[i]} }
	here := cellOf(sel)
	s, found := sel, false
	for range n - 1 {
		s = ((s+d)%n + n) % n
		if cellOf(s) != here {
			found = true
			break
		}
	}
	if !found {
		return sel // every case is in this one cell
	}
	if d < 0 {
		// Back to the first case of the group landed in, where going
		// forward lands too.
		c := cellOf(s)
		for range n {
			p := (s - 1 + n) % n
			if cellOf(p) != c {
				break
			}
			s = p
		}
	}
	return s
}

// CellCounts is how many records a selection's grid cell holds and how many of
// them are selectable.
func (r *Run) CellCounts(sel int) (records, failing int) {
	if _, ok := r.Selected(sel); !ok {
		return 0, 0
	}
	i := r.Failing[sel]
	c := r.cells[r.rowOf[i]][r.colOf[i]]
	for _, j := range c.records {
		if selectable(r.Records[j].Verdict()) {
			failing++
		}
	}
	return len(c.records), failing
}

// InCell is the first selection (in selection order) whose record lies in a
// grid cell, or -1 when none of the cell's records failed.
func (r *Run) InCell(op, col int) int {
	for s, i := range r.Failing {
		if r.rowOf[i] == op && r.colOf[i] == col {
			return s
		}
	}
	return -1
}

// opOf is a record's row: its operation, or its case for records without one
// (the lane-layout check).
func opOf(rec results.Record) string {
	if rec.Op != "" {
		return rec.Op
	}
	if rec.Case != "" {
		return rec.Case
	}
	return "?"
}

// columnOf is a record's column. Records written before APIs and stages
// existed are Vulkan compute ones (as results.TestName reads them).
func columnOf(rec results.Record) Column {
	c := Column{API: rec.API, Stage: rec.Stage, Size: rec.WaveSize}
	if c.API == "" {
		c.API = results.Vulkan
	}
	if c.Stage == "" {
		c.Stage = results.Compute
	}
	return c
}

// less orders columns by API (Vulkan first), stage (compute, pixel, vertex)
// and wave size.
func (c Column) less(o Column) bool {
	if a, b := order(c.API, results.Vulkan, results.WebGPU), order(o.API, results.Vulkan, results.WebGPU); a != b {
		return a < b
	}
	if c.API != o.API {
		return c.API < o.API
	}
	if a, b := order(c.Stage, results.Compute, results.Pixel, results.Vertex), order(o.Stage, results.Compute, results.Pixel, results.Vertex); a != b {
		return a < b
	}
	if c.Stage != o.Stage {
		return c.Stage < o.Stage
	}
	return c.Size < o.Size
}

func order(s string, known ...string) int {
	for i, k := range known {
		if s == k {
			return i
		}
	}
	return len(known)
}

// Label is the column's three header lines: API, stage, wave size, short
// enough for a 3-character column ("vk", "cs", "8").
func (c Column) Label() [3]string {
	api := map[string]string{results.Vulkan: "vk", results.WebGPU: "wg"}[c.API]
	if api == "" {
		api = clip(c.API, 3)
	}
	stage := map[string]string{results.Compute: "cs", results.Pixel: "ps", results.Vertex: "vs"}[c.Stage]
	if stage == "" {
		stage = clip(c.Stage, 3)
	}
	size := strconv.FormatUint(uint64(c.Size), 10)
	if c.Size == 0 {
		size = "obs" // WebGPU: the wave size is observed, not chosen
	}
	return [3]string{api, stage, size}
}

func (c Column) String() string { return fmt.Sprintf("%s %s wave %d", c.API, c.Stage, c.Size) }

// rank orders verdicts from harmless to worst; a cell shows its worst.
// Differs sits with flake: both are reported and neither fails a run.
func rank(v results.Verdict) int {
	switch v {
	case results.VerdictSkip, results.VerdictVacuous:
		return 0
	case results.VerdictPass:
		return 1
	case results.VerdictKnown:
		return 2
	case results.VerdictDiffers:
		return 3
	case results.VerdictFlake:
		return 4
	case results.VerdictImproved:
		return 5
	}
	return 6 // unexpected, and anything newer than this viewer: show it loudly
}

// selectable: the verdicts of cases that did not plainly work, the ones a
// person opens the viewer for. Parity records are left out: they have no lanes
// of their own (their sides have records), and they never fail a run.
func selectable(v results.Verdict) bool {
	switch v {
	case results.VerdictPass, results.VerdictSkip, results.VerdictDiffers, results.VerdictVacuous:
		return false
	}
	return true
}
