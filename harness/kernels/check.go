package kernels

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"math/big"
	"math/bits"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"waverig/compiler/intrinsics"
	"waverig/harness/models"
	"waverig/harness/results"
)

// CaseResult is the verdict of one case. Lanes counts the lane values compared
// (undefined ones are not); Failures keeps the first MaxFailures failing lanes.
type CaseResult struct {
	Case     Case
	Passed   bool
	Lanes    int
	Failures []results.LaneFailure
	Note     string
	// Helpers (pixel cases): which helper-lane set the device's wave operations
	// included in the waves that could tell: HelpersExcluded, HelpersIncluded,
	// HelpersMixed (waves of the case differ), or "" (no helper lanes, a quad-only
	// operation, or no wave could tell).
	Helpers string
	// Repeats (vertex cases): the invocations the driver ran that own no record
	// (a vertex shaded again, in its wave or another) and the records two
	// invocations wrote, as the roster showed them; "" when there were none.
	Repeats string
}

// String is a one-line verdict followed by up to four failing lanes, one per line.
func (r CaseResult) String() string {
	verdict := "PASS"
	if !r.Passed {
		verdict = "FAIL"
	}
	s := fmt.Sprintf("%s %s: %s", verdict, r.Case.ID(), r.Note)
	for i, f := range r.Failures {
		if i == 4 {
			s += fmt.Sprintf("\n    … %d more failing lanes", len(r.Failures)-i)
			break
		}
		s += "\n    " + f.String()
	}
	return s
}

// MaxFailures is how many failing lanes a CaseResult keeps.
const MaxFailures = 64

// hdr is the part of a record that describes where the invocation ran.
type hdr struct {
	idx              int // record index
	flat, key, lane  uint32
	count            uint32
	group, gi        int
	branch, laneArg  uint32
	pattern, mode    int
	variant, caseIdx int
	coin             uint32
	// phantom (vertex kernels): a lane the roster lists that owns no record, a
	// repeat of vertex idx (vertexroster.go). Its header words are not its own:
	// its arm and lane argument are the kernel's for it, and it is not compared.
	phantom bool
}

func readHdr(out, init []uint32, i, threads int) hdr {
	r := out[i*recWords:][:recWords]
	p, m, v, c := unctl(init[i*recWords+wCtl])
	return hdr{
		idx: i, flat: r[wFlat], key: r[wKey], lane: r[wLane], count: r[wCount],
		group: i / threads, gi: i % threads, branch: r[wBranch], laneArg: r[wLaneArg],
		pattern: p, mode: m, variant: v, caseIdx: c, coin: init[i*recWords+wRnd],
	}
}

// waveProblems checks one wave's recorded layout: every member in one workgroup, lane
// indices unique and below the lane count, one lane count (a power of two, equal to
// the expected wave size when known), and the key equal to the flat id of the lowest
// lane (every lane was active when the key was taken).
func waveProblems(ws []hdr, waveSize uint32) []string {
	var p []string
	var seen laneSet
	low := ws[0]
	for _, h := range ws {
		if h.flat != uint32(h.idx) {
			p = append(p, fmt.Sprintf("record %d holds flat id %d", h.idx, h.flat))
		}
		if h.group != ws[0].group {
			p = append(p, fmt.Sprintf("key %d spans workgroups %d and %d", h.key, ws[0].group, h.group))
		}
		if seen.add(h.lane) {
			p = append(p, fmt.Sprintf("key %d: lane %d recorded twice", h.key, h.lane))
		}
		if h.count != ws[0].count {
			p = append(p, fmt.Sprintf("key %d: lane counts %d and %d", h.key, ws[0].count, h.count))
		}
		if h.lane >= h.count {
			p = append(p, fmt.Sprintf("key %d: lane %d >= count %d", h.key, h.lane, h.count))
		}
		if h.lane < low.lane {
			low = h
		}
	}
	c := ws[0].count
	if c == 0 || c&(c-1) != 0 || c > 128 {
		p = append(p, fmt.Sprintf("lane count %d is not a power of two in 1..128", c))
	}
	if waveSize != 0 && c != waveSize {
		p = append(p, fmt.Sprintf("lane count %d, expected wave size %d", c, waveSize))
	}
	if len(ws) > int(c) && c != 0 {
		p = append(p, fmt.Sprintf("key %d: %d lanes in a wave of %d", ws[0].key, len(ws), c))
	}
	if low.flat != ws[0].key {
		p = append(p, fmt.Sprintf("key %d is not the flat id of the lowest lane (%d, flat %d)", ws[0].key, low.lane, low.flat))
	}
	return p
}

// laneSet is a set of lane indices: a bitset for the legal ones (< 128), a
// map for what a broken device may record beyond them.
type laneSet struct {
	bits [2]uint64
	more map[uint32]bool
}

// add adds lane l and says whether it was in the set already.
func (s *laneSet) add(l uint32) (had bool) {
	if l < 128 {
		w, b := l/64, uint64(1)<<(l%64)
		had = s.bits[w]&b != 0
		s.bits[w] |= b
		return had
	}
	if s.more == nil {
		s.more = map[uint32]bool{}
	}
	had = s.more[l]
	s.more[l] = true
	return had
}

// groupWaves splits records into waves by key, each sorted by lane, waves in key order
// (records of one key and lane stay in record order). A GPU run groups ~150,000
// records per size this way on every check. A key is a flat id, so below the
// record count on a device that records it right: the records go into one
// bucket per key in record order (a counting sort, stable), and each wave is
// then put in lane order (usually it is already). A key beyond the records
// (a broken device) takes one stable sort of all by (key, lane).
func groupWaves(hs []hdr) [][]hdr {
	n := len(hs)
	for i := range hs {
		if int(hs[i].key) >= n {
			return groupWavesSorted(hs)
		}
	}
	start := make([]int32, n+1) // start[key+1] counts, then start[key] is the bucket's first place
	for i := range hs {
		start[hs[i].key+1]++
	}
	waves := 0
	for k := 1; k <= n; k++ {
		if start[k] != 0 {
			waves++
		}
		start[k] += start[k-1]
	}
	s := make([]hdr, n)
	next := start[:n]
	for i := range hs {
		k := hs[i].key
		s[next[k]] = hs[i]
		next[k]++
	}
	// next[k] is now the end of key k's bucket.
	out := make([][]hdr, 0, waves)
	var order []uint64
	var tmp []hdr
	for i := 0; i < n; {
		j := int(next[s[i].key])
		wv := s[i:j:j]
		for x := 1; x < len(wv); x++ {
			if wv[x].lane < wv[x-1].lane {
				// (lane, place) packed in one word: a plain sort of them
				// is the stable sort by lane.
				order, tmp = order[:0], append(tmp[:0], wv...)
				for y, h := range wv {
					order = append(order, uint64(h.lane)<<32|uint64(y))
				}
				slices.Sort(order)
				for y, o := range order {
					wv[y] = tmp[uint32(o)]
				}
				break
			}
		}
		out = append(out, wv)
		i = j
	}
	return out
}

// groupWavesSorted is groupWaves by one stable sort of a copy by (key, lane).
func groupWavesSorted(hs []hdr) [][]hdr {
	// Sort positions, not the records: a record is ~90 bytes. The position
	// breaks ties, so the order is the stable one.
	order := make([]int32, len(hs))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		ha, hb := &hs[a], &hs[b]
		if c := cmp.Compare(ha.key, hb.key); c != 0 {
			return c
		}
		if c := cmp.Compare(ha.lane, hb.lane); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	s := make([]hdr, len(hs))
	for i, o := range order {
		s[i] = hs[o]
	}
	var out [][]hdr
	for i := 0; i < len(s); {
		j := i + 1
		for j < len(s) && s[j].key == s[i].key {
			j++
		}
		out = append(out, s[i:j:j])
		i = j
	}
	return out
}

// maskHex renders a set of lane indices as hex (bit i = lane i).
func maskHex(lanes []uint32) string {
	m := new(big.Int)
	for _, l := range lanes {
		m.SetBit(m, int(l), 1)
	}
	return "0x" + m.Text(16)
}

type caseState struct {
	res      *CaseResult
	waves    int
	arms     int
	undef    int
	problems []string
	// Pixel cases: the helper choice of each deciding wave, the helper lanes seen,
	// extra notes; noWaves: the case writes no records (PSSlope).
	choices     map[string]int
	helperLanes int
	extra       []string
	noWaves     bool
}

func (s *caseState) fail(f results.LaneFailure) {
	s.res.Passed = false
	if len(s.res.Failures) < MaxFailures {
		s.res.Failures = append(s.res.Failures, f)
	}
}

func (s *caseState) problem(p string) {
	s.res.Passed = false
	if len(s.problems) < 8 {
		s.problems = append(s.problems, p)
	}
}

// Check compares the buffers a device returned for k (register -> contents) with the
// reference models and returns one result per case. waveSize is the wave size the
// pipeline was created for; 0 means "not required" (WebGPU cannot require one): the
// checker takes the lane count the waves report, which must be a power of two and the
// same for every wave of the kernel. Pixel kernels go to the pixel checker
// (check_pixel.go); vertex kernels share the compute record and checker (a draw is a
// workgroup, SV_VertexID the group index). Check is Memo.Check with a memo of its
// own: the rig, which checks a kernel on several targets and compares two of
// them, shares one memo between those calls.
func Check(k Kernel, out map[string][]byte, waveSize uint32) []CaseResult {
	m := NewMemo(k)
	m.keepPixel, m.oneShot = false, true
	return m.Check(out, waveSize)
}

// Memo keeps what the models said about one kernel's waves, so that the checks
// of the kernel on every target (Vulkan with each compiler, WebGPU) and the
// parity comparison run each model once per distinct wave instead of once per
// call. An entry's key is everything the model reads of the wave, one lane at a
// time: the record (or pixel) each lane is, whose input the kernel wrote before
// the dispatch and which is the same on every target, its recorded lane index,
// lane argument and whether it ran the arm, plus the lane count and the case; a
// target that lays out a wave differently gets its own entry. A memo's values
// are shared between calls and never changed. The pixel checker also leaves the
// values it defined per returned u0 buffer, which Compare takes instead of
// checking both sides again. A Memo is safe for concurrent use.
type Memo struct {
	k Kernel
	// cases[i] holds case i's entries: the checks of one kernel's cases run on
	// every core, each case on one at a time.
	cases []memoCase
	// keepPixel: pixel checks leave their defined values (Compare needs them).
	keepPixel bool
	mu        sync.Mutex
	init      []uint32 // u0 as written before the dispatch, decoded once
	initErr   error
	initDone  bool
	// pixel: per returned u0 buffer (its first byte: the key keeps the
	// buffer alive, so no other buffer can take its address while the memo
	// lives), what the pixel check of it defined. The rig does not change a
	// buffer between its check and the comparison.
	pixel map[*byte]pixelDefined
	// runs: the buffers checked through the memo (copies) with their wave
	// size and verdicts. A check is a function of the kernel, the buffers and
	// the wave size alone, and two targets of one device usually return the
	// same bits (Vulkan with either compiler, WebGPU): such a check takes
	// the verdicts of the first. oneShot (Check's own memo): none kept.
	runs    []checkedRun
	oneShot bool
}

// checkedRun is one Check through a memo: copies of its buffers, its wave
// size, its verdicts and what it left for Compare (pixel kernels).
type checkedRun struct {
	out      map[string][]byte
	waveSize uint32
	res      []CaseResult
	pixel    *pixelDefined
}

type memoCase struct {
	mu sync.Mutex
	m  map[string]memoVal
}

// memoVal is one model call's answer: a, b the values (b: the helper-included
// set of a pixel wave), err its error.
type memoVal struct {
	a, b []models.Value
	err  error
}

// pixelDefined is what a pixel check defined for one returned u0 buffer, kept
// where it is what Compare's own check of that buffer (at no required size)
// would define.
type pixelDefined struct {
	defined [][]models.Value
}

// The kinds of memo entries: a compute check's model (expectedOf over the
// inputs partitionInput gives), the model parity uses where that differs
// (models.Expected over the pre-written inputs: WaveMatch and the native quad
// votes), and a pixel wave's helper sets.
const (
	memoCheck byte = iota + 1
	memoParity
	memoPixel
)

// NewMemo is an empty memo for kernel k.
func NewMemo(k Kernel) *Memo {
	return &Memo{k: k, cases: make([]memoCase, len(k.Cases)), keepPixel: true}
}

// get returns case ci's entry for key, computing it with f when there is none
// (two goroutines may both compute one; either answer is the same).
func (m *Memo) get(ci int, key []byte, f func() memoVal) memoVal {
	if ci < 0 || ci >= len(m.cases) {
		return f()
	}
	c := &m.cases[ci]
	c.mu.Lock()
	v, ok := c.m[string(key)]
	c.mu.Unlock()
	if ok {
		return v
	}
	v = f()
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string]memoVal{}
	}
	c.m[string(key)] = v
	c.mu.Unlock()
	return v
}

// words returns the kernel's u0 before the dispatch and the returned one.
func (m *Memo) words(out map[string][]byte) (init, got []uint32, err error) {
	m.mu.Lock()
	if !m.initDone {
		m.initDone = true
		var initB []byte
		for _, b := range m.k.Buffers {
			if b.Register == "u0" {
				initB = b.Data
			}
		}
		if initB == nil {
			m.initErr = fmt.Errorf("kernel %s has no u0 buffer", m.k.Name)
		} else {
			// The kernel's own buffer, which nothing changes while it is checked.
			m.init, m.initErr = wordsView(initB)
		}
	}
	init, err = m.init, m.initErr
	m.mu.Unlock()
	if err != nil {
		return nil, nil, err
	}
	gotB, ok := out["u0"]
	if !ok {
		return nil, nil, fmt.Errorf("no u0 buffer came back")
	}
	if len(gotB) != 4*len(init) {
		return nil, nil, fmt.Errorf("u0 came back with %d bytes, expected %d", len(gotB), 4*len(init))
	}
	got, err = wordsView(gotB)
	return init, got, err
}

// hostLittleEndian: the host stores a uint32 as Vulkan's buffers do.
var hostLittleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// wordsView is words without the copy where it can: on a little-endian host a
// 4-aligned buffer already holds its words, and a check only reads a returned
// buffer while it runs (no checker writes to one). Decoding every returned u0
// anew was a tenth of a check.
func wordsView(b []byte) ([]uint32, error) {
	if len(b) == 0 || len(b)%4 != 0 || !hostLittleEndian || uintptr(unsafe.Pointer(&b[0]))%4 != 0 {
		return words(b)
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(&b[0])), len(b)/4), nil
}

// keyBuf builds a memo key.
type keyBuf []byte

func (b keyBuf) u32(v uint32) keyBuf { return append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24)) }

// waveKey is the key of one arm of a compute wave: what armLanes gives the models.
func waveKey(buf keyBuf, kind byte, wv []hdr, arm, count uint32) keyBuf {
	buf = append(buf[:0], kind)
	buf = buf.u32(count).u32(arm)
	for _, h := range wv {
		a := uint32(0)
		if h.branch == arm {
			a = 1
		}
		buf = buf.u32(uint32(h.idx)).u32(h.lane).u32(h.laneArg).u32(a)
	}
	return buf
}

// Check is Check through the memo.
func (m *Memo) Check(out map[string][]byte, waveSize uint32) []CaseResult {
	if m.oneShot {
		return m.check(out, waveSize)
	}
	if res, ok := m.checkedBefore(out, waveSize); ok {
		return res
	}
	res := m.check(out, waveSize)
	run := checkedRun{out: make(map[string][]byte, len(out)), waveSize: waveSize, res: cloneResults(res)}
	for r, b := range out {
		run.out[r] = bytes.Clone(b)
	}
	m.mu.Lock()
	if u0 := out["u0"]; len(u0) > 0 {
		if p, ok := m.pixel[&u0[0]]; ok {
			run.pixel = &p
		}
	}
	m.runs = append(m.runs, run)
	m.mu.Unlock()
	return res
}

// checkedBefore returns the verdicts of an earlier check through the memo of
// the same bits at the same wave size (and leaves for Compare what that check
// left for its buffers).
func (m *Memo) checkedBefore(out map[string][]byte, waveSize uint32) ([]CaseResult, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, run := range m.runs {
		if run.waveSize != waveSize || !sameBuffers(run.out, out) {
			continue
		}
		if u0 := out["u0"]; run.pixel != nil && len(u0) > 0 {
			if m.pixel == nil {
				m.pixel = map[*byte]pixelDefined{}
			}
			m.pixel[&u0[0]] = *run.pixel
		}
		return cloneResults(run.res), true
	}
	return nil, false
}

// sameBuffers says whether two sets of buffers hold the same registers and bytes.
func sameBuffers(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for r, x := range a {
		y, ok := b[r]
		if !ok || !bytes.Equal(x, y) {
			return false
		}
	}
	return true
}

// cloneResults copies verdicts so that no two callers share a failure list.
func cloneResults(rs []CaseResult) []CaseResult {
	c := slices.Clone(rs)
	for i := range c {
		c[i].Failures = slices.Clone(c[i].Failures)
	}
	return c
}

// check is Check through the memo's model answers.
func (m *Memo) check(out map[string][]byte, waveSize uint32) []CaseResult {
	k := m.k
	res := make([]CaseResult, len(k.Cases))
	states := make([]*caseState, len(k.Cases))
	for i, c := range k.Cases {
		res[i] = CaseResult{Case: c, Passed: true}
		states[i] = &caseState{res: &res[i], choices: map[string]int{}}
	}
	if k.Stage == Pixel && len(k.Cases) > 0 {
		return checkPixel(k, out, waveSize, res, states, m)
	}
	if len(k.Cases) > 0 && k.Cases[0].Name == Compaction {
		return checkCompaction(k, out, waveSize, res, states)
	}
	if isSum(k) {
		return checkSum(k, out, res, states[0])
	}
	failAll := func(note string) []CaseResult {
		for i := range res {
			res[i].Passed = false
			res[i].Note = note
		}
		return res
	}
	if len(k.Cases) == 0 {
		return res
	}
	init, got, err := m.words(out)
	if err != nil {
		return failAll(err.Error())
	}
	op := k.Cases[0].Op
	threads := k.Cases[0].Shape.Threads()
	if threads <= 0 || len(init)%(threads*recWords) != 0 {
		return failAll(fmt.Sprintf("buffer of %d words is not whole workgroups of %d records", len(init), threads))
	}
	n := len(init) / recWords
	hs := make([]hdr, n)
	for i := range hs {
		hs[i] = readHdr(got, init, i, threads)
		if hs[i].caseIdx >= len(k.Cases) {
			return failAll(fmt.Sprintf("record %d names case %d of %d: buffer does not belong to this kernel", i, hs[i].caseIdx, len(k.Cases)))
		}
		// The pre-written words must come back unchanged.
		for w := wCtl; w < wOut; w++ {
			if got[i*recWords+w] != init[i*recWords+w] {
				states[hs[i].caseIdx].problem(fmt.Sprintf("record %d: pre-written word %d changed from %#x to %#x", i, w, init[i*recWords+w], got[i*recWords+w]))
				break
			}
		}
	}
	kernelCount := waveSize
	waves := groupWaves(hs)
	var repeats [][]string
	if k.Stage == Vertex {
		// A vertex wave may hold repeats of a vertex that own no record: the
		// roster names them (vertexroster.go).
		ros, err := readRoster(out, n)
		if err != nil {
			return failAll(err.Error())
		}
		var problems [][]string
		waves, repeats, problems = vertexWaves(waves, hs, init, ros, threads, len(k.Cases))
		for c, ps := range problems {
			for _, p := range ps {
				states[c].problem(p)
			}
		}
	}
	// The layout of every wave is checked here, in order; the waves that pass
	// are then checked against the models case by case on every core (a case's
	// state is its own, and its waves keep their order, so the result is the
	// same as checking one wave after another).
	perCase := make([][][]hdr, len(k.Cases))
	for _, wv := range waves {
		st := states[wv[0].caseIdx]
		st.waves++
		ps := waveProblems(wv, waveSize)
		if waveSize == 0 && len(ps) == 0 {
			// No required size: every wave must report the size the first did.
			if kernelCount == 0 {
				kernelCount = wv[0].count
			} else if wv[0].count != kernelCount {
				ps = append(ps, fmt.Sprintf("key %d: lane count %d, other waves of the kernel have %d", wv[0].key, wv[0].count, kernelCount))
			}
		}
		if len(ps) > 0 {
			for _, p := range ps {
				st.problem("layout: " + p)
			}
			continue
		}
		perCase[wv[0].caseIdx] = append(perCase[wv[0].caseIdx], wv)
	}
	eachParallel(len(k.Cases), func(i int) {
		var key keyBuf
		for _, wv := range perCase[i] {
			key = m.checkWave(op, i, wv, init, got, threads, waveSize, states[i], key)
		}
	})
	for i, st := range states {
		notes := []string{fmt.Sprintf("%d waves, %d arms, %d lanes compared, %d undefined", st.waves, st.arms, res[i].Lanes, st.undef)}
		if repeats != nil && len(repeats[i]) > 0 {
			res[i].Repeats = repeatSummary(repeats[i])
			notes = append(notes, res[i].Repeats)
		}
		notes = append(notes, st.problems...)
		if st.waves == 0 {
			res[i].Passed = false
			notes = append(notes, "no records for this case")
		}
		res[i].Note = strings.Join(notes, "; ")
	}
	return res
}

// eachParallel calls f(0..n-1) on up to GOMAXPROCS goroutines and returns when
// all calls have: the checks of one kernel's cases are independent, and on a
// GPU the checks are a large share of a warm run.
func eachParallel(n int, f func(i int)) {
	workers := runtime.GOMAXPROCS(0)
	if workers > n {
		workers = n
	}
	if workers <= 1 {
		for i := 0; i < n; i++ {
			f(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				f(i)
			}
		}()
	}
	wg.Wait()
}

// kernelWords returns the initial and returned u0 words of an operation kernel.
func kernelWords(k Kernel, out map[string][]byte) (init, got []uint32, err error) {
	var initB []byte
	for _, b := range k.Buffers {
		if b.Register == "u0" {
			initB = b.Data
		}
	}
	if initB == nil {
		return nil, nil, fmt.Errorf("kernel %s has no u0 buffer", k.Name)
	}
	gotB, ok := out["u0"]
	if !ok {
		return nil, nil, fmt.Errorf("no u0 buffer came back")
	}
	if len(gotB) != len(initB) {
		return nil, nil, fmt.Errorf("u0 came back with %d bytes, expected %d", len(gotB), len(initB))
	}
	if init, err = words(initB); err != nil {
		return nil, nil, err
	}
	got, err = words(gotB)
	return init, got, err
}

// waveInputs is what Check and ExpectedRecords both need of a wave before its
// arms: the case's model type, the operation's result type, the lane count the
// models see (the required wave size, else the one the wave recorded) and each
// lane's input as written before the dispatch.
func waveInputs(op intrinsics.Op, c Case, wv []hdr, init []uint32, waveSize uint32) (mt, rt models.Type, count uint32, inputs [][]uint64, err error) {
	if mt, err = c.Type.Model(); err != nil {
		return mt, rt, 0, nil, err
	}
	rt = models.ResultType(op, mt)
	count = wv[0].count
	if waveSize != 0 {
		count = waveSize
	}
	inputs = make([][]uint64, len(wv))
	for j, h := range wv {
		inputs[j] = readComps(init[h.idx*recWords:][:recWords], wIn, mt.Scalar, mt.N)
	}
	return mt, rt, count, inputs, nil
}

// armLanes are a wave's lanes as the models see one arm of the kernel's
// branch: the lanes that took it active, the others inactive; active counts
// them. Check and ExpectedRecords walk the arms alike through it.
func armLanes(wv []hdr, inputs [][]uint64, arm uint32) (lanes []models.Lane, active int) {
	lanes = make([]models.Lane, len(wv))
	for j, h := range wv {
		lanes[j] = models.Lane{Index: h.lane, Active: h.branch == arm, Input: inputs[j], LaneArg: h.laneArg}
		if h.branch == arm {
			active++
		}
	}
	return lanes, active
}

// checkWave checks one wave of case ci: the arm each lane ran in, the lane
// argument, and, per arm, every active lane's output against the model (asked
// through the memo; the lanes' inputs are decoded only when it has no answer or
// a failure names them). key is scratch space for the memo's keys, returned for
// the next wave.
func (m *Memo) checkWave(op intrinsics.Op, ci int, wv []hdr, init, got []uint32, threads int, waveSize uint32, st *caseState, key keyBuf) keyBuf {
	c := m.k.Cases[ci]
	mt, err := c.Type.Model()
	if err != nil {
		st.problem(err.Error())
		return key
	}
	rt := models.ResultType(op, mt)
	count := wv[0].count
	if waveSize != 0 {
		count = waveSize
	}
	partitioned := models.IsPartitioned(op)
	phantoms := "" // a failing lane's note of the wave's repeats
	var inputs [][]uint64
	lanesInput := func() [][]uint64 {
		if inputs == nil {
			inputs = make([][]uint64, len(wv))
			flat := make([]uint64, len(wv)*mt.N) // one allocation for the wave
			for j, h := range wv {
				inputs[j] = readCompsInto(flat[j*mt.N:(j+1)*mt.N:(j+1)*mt.N], init[h.idx*recWords:][:recWords], wIn, mt.Scalar, mt.N)
			}
		}
		return inputs
	}
	describe := func(j int) string {
		h := wv[j]
		s := "x=" + models.FormatComps(mt.Scalar, lanesInput()[j])
		if hasLaneArg(op) {
			s += fmt.Sprintf(" lane=%d", h.laneArg)
		}
		if partitioned {
			s += fmt.Sprintf(" key=%d", h.laneArg)
		}
		return s + phantoms
	}
	if partitioned {
		// It checks the recorded keys and turns the inputs into the models' (a
		// WaveMatch lane's value comes from its key).
		partitionLanes(op, c, mt, wv, init, lanesInput(), st)
	}
	arms, args := waveArms(c, wv, threads)
	for j := range wv {
		if wv[j].phantom {
			// A repeat runs what the kernel computes for it; it owns no record.
			wv[j].branch, wv[j].laneArg = arms[j], 0
			if arms[j] != 0 && hasLaneArg(op) {
				wv[j].laneArg = args[j]
			}
			phantoms = phantomLanes(wv, threads)
		}
	}
	for j, h := range wv {
		if h.phantom {
			continue
		}
		if want := arms[j]; h.branch != want {
			st.fail(results.LaneFailure{WaveKey: h.key, Lane: h.lane, ActiveMask: armMask(wv, h.branch),
				Input: describe(j) + " (control flow)", Expected: fmt.Sprintf("arm %d", want), Actual: fmt.Sprintf("arm %d", h.branch)})
		}
		if h.branch != 0 && hasLaneArg(op) {
			if wantArg := args[j]; h.laneArg != wantArg {
				st.fail(results.LaneFailure{WaveKey: h.key, Lane: h.lane, ActiveMask: armMask(wv, h.branch),
					Input: describe(j) + " (lane argument)", Expected: fmt.Sprint(wantArg), Actual: fmt.Sprint(h.laneArg)})
			}
		}
	}
	nw := rt.N * wordsPer(rt.Scalar)
	checkSentinels(wv, arms, got, nw, describe, st)
	var actual []uint64
	for arm := uint32(1); arm <= 2; arm++ {
		active := 0
		for _, h := range wv {
			if h.branch == arm {
				active++
			}
		}
		if active == 0 {
			continue
		}
		st.arms++
		key = waveKey(key, memoCheck, wv, arm, count)
		v := m.get(ci, key, func() memoVal {
			lanes, _ := armLanes(wv, lanesInput(), arm)
			want, err := expectedOf(c, op, mt, lanes, count)
			return memoVal{a: want, err: err}
		})
		if v.err != nil {
			st.problem(v.err.Error())
			return key
		}
		want := v.a
		mask := ""
		maskOf := func() string { // only a failure needs it
			if mask == "" {
				mask = armMask(wv, arm)
			}
			return mask
		}
		for j, h := range wv {
			if h.branch != arm || h.phantom {
				continue
			}
			if want[j].Undefined {
				st.undef++
				continue
			}
			st.res.Lanes++
			rec := got[h.idx*recWords:][:recWords]
			if unwritten(rec, rt, want[j]) {
				st.fail(results.LaneFailure{WaveKey: h.key, Lane: h.lane, ActiveMask: maskOf(), Input: describe(j),
					Expected: formatWant(op, rt, want[j]), Actual: fmt.Sprintf("not written (the sentinel %#x is still there)", outSentinel)})
				continue
			}
			actual = readCompsInto(actual, rec, wOut, rt.Scalar, rt.N)
			if !want[j].AcceptsAll(rt.Scalar, actual) {
				st.fail(results.LaneFailure{WaveKey: h.key, Lane: h.lane, ActiveMask: maskOf(), Input: describe(j),
					Expected: formatWant(op, rt, want[j]), Actual: formatResult(op, rt, actual)})
			}
		}
	}
	return key
}

// checkSentinels checks the output words no lane should have stored (outSentinel):
// all eight of a lane that ran no arm, and those past the result's nw words of a
// lane that did. A lane in the wrong arm was reported as control flow already.
func checkSentinels(wv []hdr, arms []uint32, got []uint32, nw int, describe func(int) string, st *caseState) {
	for j, h := range wv {
		if h.branch != arms[j] || h.phantom {
			continue
		}
		from, why := nw, " (store past the result's words)"
		if h.branch == 0 {
			from, why = 0, " (store by a lane that did not run the operation)"
		}
		out := got[h.idx*recWords+wOut:][:recWords-wOut]
		for w := from; w < len(out); w++ {
			if out[w] != outSentinel {
				st.fail(results.LaneFailure{WaveKey: h.key, Lane: h.lane, ActiveMask: ranMask(wv), Input: describe(j) + why,
					Expected: fmt.Sprintf("out word %d untouched (%#x)", w, outSentinel), Actual: fmt.Sprintf("%#x", out[w])})
				break
			}
		}
	}
}

// unwritten says whether a lane that ran the operation left every one of its
// result's output words at the sentinel although the expected value is not the
// sentinel itself: the store never happened. Checked on the raw words because a
// float rule may accept any value (a NaN among the inputs frees a minimum).
func unwritten(rec []uint32, rt models.Type, want models.Value) bool {
	nw := rt.N * wordsPer(rt.Scalar)
	for w := 0; w < nw; w++ {
		if rec[wOut+w] != outSentinel {
			return false
		}
	}
	words := make([]uint32, recWords)
	writeComps(words, wOut, rt.Scalar, want.Comps)
	for w := 0; w < nw; w++ {
		if words[wOut+w] != outSentinel {
			return true
		}
	}
	return false
}

// readCompsInto is readComps into dst's storage (grown when short).
func readCompsInto(dst []uint64, rec []uint32, off int, s models.Scalar, n int) []uint64 {
	if cap(dst) < n {
		dst = make([]uint64, n)
	}
	dst = dst[:n]
	wp := wordsPer(s)
	for k := 0; k < n; k++ {
		dst[k] = decodeComp(s, rec[off+k*wp:off+k*wp+wp])
	}
	return dst
}

// ranMask is the hex mask of the lanes of a wave that ran the operation in either arm.
func ranMask(wv []hdr) string {
	var ls []uint32
	for _, h := range wv {
		if h.branch != 0 {
			ls = append(ls, h.lane)
		}
	}
	return maskHex(ls)
}

// armMask is the hex mask of the lanes of a wave that ran in arm.
func armMask(wv []hdr, arm uint32) string {
	var ls []uint32
	for _, h := range wv {
		if h.branch == arm {
			ls = append(ls, h.lane)
		}
	}
	return maskHex(ls)
}

// formatResult renders a result; ballots as a hex mask (bit i = lane i) with the word
// count, so a stray high word shows.
func formatResult(op intrinsics.Op, rt models.Type, comps []uint64) string {
	if op == intrinsics.WaveActiveBallot || op == intrinsics.WaveMatch {
		m := new(big.Int)
		for w := 3; w >= 0; w-- {
			m.Lsh(m, 32)
			m.Or(m, new(big.Int).SetUint64(comps[w]&0xffffffff))
		}
		n := 0
		for _, c := range comps {
			n += bits.OnesCount32(uint32(c))
		}
		return fmt.Sprintf("0x%s (%d bits)", m.Text(16), n)
	}
	return models.FormatComps(rt.Scalar, comps)
}

// formatWant renders an expected value: formatResult's form, with the set of
// results the models accept for each component that has one (an interval, the
// special values a rule allows).
func formatWant(op intrinsics.Op, rt models.Type, v models.Value) string {
	if len(v.Accept) == 0 {
		return formatResult(op, rt, v.Comps)
	}
	return models.FormatWant(rt.Scalar, v)
}

// entries counts the memo's model answers (tests).
func (m *Memo) entries() int {
	n := 0
	for i := range m.cases {
		c := &m.cases[i]
		c.mu.Lock()
		n += len(c.m)
		c.mu.Unlock()
	}
	return n
}
