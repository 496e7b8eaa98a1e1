// Package results is the rig's result vocabulary and nothing else: one case's
// Record (a line of results.jsonl), the statistics of a wave size and of a run,
// the Summary written to summary.json, the single Verdict that says whether a
// record counts against the run, and the one rendering of a failing lane.
//
// It is a leaf (the standard library and internal/fsutil only) so that the reports, the CLI, the suites
// and `waverig diff` share it without linking the compiler or the Vulkan shim.
package results

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// Status is what happened to one case on the device.
const (
	Pass  = "pass"  // every lane matched the model
	Fail  = "fail"  // at least one lane did not
	Skip  = "skip"  // not run; Reason names the missing feature or tool
	Error = "error" // did not produce lanes to check: a crash, a compile or layout error
	// Differs is a cross-API parity record: one case run on two APIs on one
	// physical device gave different outputs for the same lane (beyond the model's
	// tolerance), even if both sides passed their models.
	Differs = "differs"
	// Crash: the driver killed the process while the case's kernel ran (the
	// record was announced before the kernel and sent by the parent).
	Crash = "crash"
	// Timeout: the kernel did not finish in time; the child running it was killed.
	Timeout = "timeout"
	// Flake: the case failed, and passed when its kernel was run again
	// (Attempts says how many runs it took; Failures keeps the first failure).
	Flake = "flake"
	// Vacuous: the case ran and nothing disagreed, but the model defined no
	// lane to compare (every lane a quad read or WaveReadLaneAt reads from was
	// inactive): it could not have failed, so it is not a pass.
	Vacuous = "vacuous"
)

// The APIs and stages a record can name.
const (
	Vulkan = "vulkan"
	WebGPU = "webgpu"

	// Dawn names WebGPU through Dawn (Tint compiles the standard WGSL
	// dialect) wherever the rig picks or groups by API (-api, a run's APIs,
	// planned cases, summaries): its records say API WebGPU, Impl Dawn, and
	// their test names end in /impl=dawn. WebGPU alone is wgpu-native (Impl
	// Wgpu).
	Dawn = "dawn"
	Wgpu = "wgpu"

	Compute = "compute"
	Pixel   = "pixel"
	Vertex  = "vertex"
	Task    = "task" // D3D's amplification stage (VK_EXT_mesh_shader)
	Mesh    = "mesh"
)

// Compiler names used in records.
const (
	Ours    = "ours"
	Glslang = "glslang"
)

// LayoutCase is the case name of the lane-layout check record.
const LayoutCase = "layout"

// Record is one case's result: the line streamed to results.jsonl.
type Record struct {
	Case     string `json:"case"`
	Op       string `json:"op"`
	Type     string `json:"type"`
	Pattern  string `json:"pattern"`
	Shape    string `json:"shape"`
	WaveSize uint32 `json:"waveSize"`
	API      string `json:"api"` // Vulkan or WebGPU
	// Impl is the WebGPU implementation (Wgpu or Dawn); "" on Vulkan.
	Impl     string `json:"impl,omitempty"`
	Stage    string `json:"stage"` // Compute, Pixel, Vertex, Task or Mesh
	Compiler string `json:"compiler"`
	Device   string `json:"device"`
	// DeviceIndex is the device's index in the Vulkan enumeration (`waverig
	// devices`, -device N): what tells apart two devices of one run with the same
	// name (two lavapipes, two identical GPUs). Omitted for device 0, so a run of
	// the first device writes what it always did; files without it read as 0.
	DeviceIndex int           `json:"deviceIndex,omitempty"`
	Driver      string        `json:"driver"`
	Status      string        `json:"status"` // Pass, Fail, Skip, Error, Differs
	Reason      string        `json:"reason,omitempty"`
	Lanes       int           `json:"lanes,omitempty"`
	Failures    []LaneFailure `json:"failures,omitempty"`
	Kernel      string        `json:"kernel"`
	// Known names the expectation entry (file:line: reason) of a known problem this
	// case hits (set only when the problem happened, or on a known crash not run).
	Known string `json:"known,omitempty"`
	// Blame is set on a second-opinion compiler's failure when the same case passed
	// on the same device with waverig's compiler ("compiler:glslang"): it says whom
	// the failure implicates, not whether it counts (Verdict decides that).
	Blame string `json:"blame,omitempty"`
	// Helpers (pixel cases) says which lanes the driver's wave operations took in:
	// "excluded" (only covered pixels), "included" (their quads' helper lanes too) or
	// "mixed"; both are legal unless the shader asks for [WaveOpsIncludeHelperLanes].
	Helpers string `json:"helpers,omitempty"`
	// Repeats (vertex cases) names the invocations the driver ran that own no
	// record (a vertex shaded again, as the kernel's roster showed) and the records
	// two invocations wrote; legal (the Vulkan spec leaves how many times a vertex
	// is shaded to the implementation) and checked with them in their waves.
	Repeats string `json:"repeats,omitempty"`
	// Parity (Differs records) holds the lanes whose outputs differ between APIs.
	Parity []ParityLane `json:"parity,omitempty"`
	// Expected is the outcome the baseline expects of this case (Fail, Crash,
	// Timeout, from fails.csv; Flake, from flakes.txt), set whenever a baseline
	// line matches the case, whatever happened. Known then names the line.
	Expected string `json:"expected,omitempty"`
	// ExpectedExact: the baseline line names this very case (not a pattern), so
	// a pass is an UnexpectedImprovement(Pass): the line must go.
	ExpectedExact bool `json:"expectedExact,omitempty"`
	// Duration is the case's run time in seconds: its share of its kernel's
	// device and check time (a kernel's cases run in one dispatch).
	Duration float64 `json:"duration,omitempty"`
	// Attempts is how many times the kernel ran for this case when it was re-run
	// after a new failure (0 or 1: once).
	Attempts int `json:"attempts,omitempty"`
}

// Name is the case's stable test name, the one key of baselines (fails.csv,
// flakes.txt, skips.txt), `waverig list` and results.csv:
// api/stage/case/size=N, plus /compiler=NAME for a compiler other than
// waverig's own, and /impl=dawn for WebGPU through Dawn
// ("vulkan/compute/WaveActiveSum/uint/odd/partial/size=8").
// Records written before APIs and stages existed are Vulkan compute ones.
func (r Record) Name() string {
	return TestName(r.Backend(), r.Stage, r.Case, r.Compiler, r.WaveSize)
}

// Backend is the record's API as the rig picks and groups by it: Dawn for
// WebGPU records of Dawn, the API otherwise.
func (r Record) Backend() string {
	if r.API == WebGPU && r.Impl == Dawn {
		return Dawn
	}
	return r.API
}

// SplitBackend is the record fields of a backend: its API and WebGPU
// implementation.
func SplitBackend(backend string) (api, impl string) {
	switch backend {
	case Dawn:
		return WebGPU, Dawn
	case WebGPU:
		return WebGPU, Wgpu
	}
	return backend, ""
}

// TestName builds a Name from its parts (what `waverig list` prints before
// anything ran).
func TestName(backend, stage, caseID, compiler string, size uint32) string {
	api, impl := SplitBackend(backend)
	if api == "" {
		api = Vulkan
	}
	if stage == "" {
		stage = Compute
	}
	var b strings.Builder
	b.Grow(len(api) + len(stage) + len(caseID) + 32)
	b.WriteString(api)
	b.WriteByte('/')
	b.WriteString(stage)
	b.WriteByte('/')
	b.WriteString(caseID)
	b.WriteString("/size=")
	b.WriteString(strconv.FormatUint(uint64(size), 10))
	if compiler != "" && compiler != Ours {
		b.WriteString("/compiler=")
		b.WriteString(compiler)
	}
	if impl == Dawn {
		b.WriteString("/impl=dawn")
	}
	return b.String()
}

// The outcome words of baselines and results.csv: deqp-runner's, so that a
// driver team's tools (and eyes) read waverig's files as they read its.
const (
	OutcomePass         = "Pass"
	OutcomeFail         = "Fail"
	OutcomeCrash        = "Crash"
	OutcomeTimeout      = "Timeout"
	OutcomeSkip         = "Skip"
	OutcomeFlake        = "Flake"        // a new failure that passed on a re-run
	OutcomeKnownFlake   = "KnownFlake"   // failed, and flakes.txt names it
	OutcomeExpectedFail = "ExpectedFail" // failed (or crashed) as the baseline says
	OutcomeDiffers      = "Differs"      // a cross-API parity record
	OutcomeVacuous      = "Vacuous"      // ran, but compared no lane: it could not fail
)

// UnexpectedImprovement is the outcome of a case that did better than its
// baseline line says, named by what it did: UnexpectedImprovement(Pass) is a
// fix, UnexpectedImprovement(Fail) a crash that became a wrong result.
func UnexpectedImprovement(outcome string) string { return "UnexpectedImprovement(" + outcome + ")" }

// Outcome is what happened to the case in deqp-runner's words, before any
// baseline: Pass, Fail (a wrong result, or an error that stopped the case:
// compile, validation, layout), Crash, Timeout, Skip, Flake, Differs.
func (r Record) Outcome() string {
	switch r.Status {
	case Pass:
		return OutcomePass
	case Skip:
		return OutcomeSkip
	case Crash:
		return OutcomeCrash
	case Timeout:
		return OutcomeTimeout
	case Flake:
		return OutcomeFlake
	case Differs:
		return OutcomeDiffers
	case Vacuous:
		return OutcomeVacuous
	}
	return OutcomeFail
}

// Severity orders outcomes as piglit does (pass < fail < crash < timeout):
// a move up is a regression, a move down an improvement. Other outcomes are 0.
func Severity(outcome string) int {
	switch outcome {
	case OutcomeFail:
		return 1
	case OutcomeCrash:
		return 2
	case OutcomeTimeout:
		return 3
	}
	return 0
}

// Status is the record's status against its baseline, as results.csv and the
// reports show it: Pass, Skip, Flake, Differs; ExpectedFail and KnownFlake for
// what the baseline knows; Fail, Crash or Timeout when it is new (or worse than
// the baseline says); UnexpectedImprovement(X) when it is better.
func (r Record) RunStatus() string {
	switch v := r.Verdict(); v {
	case VerdictKnown:
		if r.Expected == OutcomeFlake {
			return OutcomeKnownFlake
		}
		return OutcomeExpectedFail
	case VerdictImproved:
		return UnexpectedImprovement(r.Outcome())
	}
	return r.Outcome()
}

// ParityLane is one lane whose output differs between two APIs: where it ran
// (flat id, and the wave key and lane index both sides recorded) and both values.
type ParityLane struct {
	Flat    uint32 `json:"flat"`
	WaveKey uint32 `json:"waveKey"`
	Lane    uint32 `json:"lane"`
	Input   string `json:"input"`
	// Values maps the API to its output ("vulkan": "3", "webgpu": "4").
	Values map[string]string `json:"values"`
}

// String is the one-line form of a parity lane.
func (p ParityLane) String() string {
	apis := make([]string, 0, len(p.Values))
	for a := range p.Values {
		apis = append(apis, a)
	}
	sort.Strings(apis)
	var vs []string
	for _, a := range apis {
		vs = append(vs, a+" "+p.Values[a])
	}
	return fmt.Sprintf("flat %d wave %#x lane %d input %s: %s", p.Flat, p.WaveKey, p.Lane, p.Input, strings.Join(vs, ", "))
}

// LaneFailure is one wrong lane: its wave (the first flat id of the wave, as the
// kernel recorded it), lane index, the lanes active with it (hex, bit i = lane i),
// its input, and the expected and actual values.
type LaneFailure struct {
	WaveKey    uint32 `json:"waveKey"`
	Lane       uint32 `json:"lane"`
	ActiveMask string `json:"activeMask"`
	Input      string `json:"input"`
	Expected   string `json:"expected"`
	Actual     string `json:"actual"`
}

// String is the one-line form of a failing lane, used by every printout.
func (f LaneFailure) String() string {
	return fmt.Sprintf("wave %#x lane %d active %s input %s expected %s actual %s",
		f.WaveKey, f.Lane, f.ActiveMask, f.Input, f.Expected, f.Actual)
}

// WriteLaneTable writes failing lanes as an aligned table, one lane a line, each
// line starting with indent.
func WriteLaneTable(w io.Writer, indent string, fs []LaneFailure) {
	if len(fs) == 0 {
		return
	}
	fmt.Fprintf(w, "%s%-10s %-5s %-18s %-24s %-24s %s\n", indent, "wave key", "lane", "active mask", "input", "expected", "actual")
	for _, f := range fs {
		fmt.Fprintf(w, "%s%-10s %-5d %-18s %-24s %-24s %s\n", indent, fmt.Sprintf("%#x", f.WaveKey), f.Lane, f.ActiveMask, f.Input, f.Expected, f.Actual)
	}
}

// Verdict is what a record means for the run.
type Verdict string

const (
	// VerdictPass: the case ran and matched the model.
	VerdictPass Verdict = "pass"
	// VerdictSkip: not run (missing feature or tool, or a known crash not re-run).
	VerdictSkip Verdict = "skip"
	// VerdictKnown: failed or crashed as an expectation entry says it does.
	VerdictKnown Verdict = "known"
	// VerdictUnexpected: a wrong result (or crash, or error) that nobody knew about.
	// It is the only verdict that fails a run.
	VerdictUnexpected Verdict = "unexpected"
	// VerdictDiffers: a cross-API parity difference. Both outputs may be legal
	// (each side has its own record and verdict), so it is reported, not failed.
	VerdictDiffers Verdict = "differs"
	// VerdictFlake: a new failure that passed when re-run. Reported (flakes.txt
	// is where a known one goes), not failed.
	VerdictFlake Verdict = "flake"
	// VerdictImproved: better than the baseline says (a pass where fails.csv
	// names the case, a wrong result where it expects a crash). It fails the
	// run, as in deqp-runner, until the baseline line is changed: a stale line
	// would hide the bug coming back.
	VerdictImproved Verdict = "improved"
	// VerdictVacuous: the case compared no lane (status vacuous). Reported as
	// what it is — a case that cannot fail as designed — never counted as a pass.
	VerdictVacuous Verdict = "vacuous"
)

// Verdict decides what the record means. Every consumer (the run's exit status,
// the statistics, JUnit, HTML, the suites, diff) asks this and nothing else.
//
// Against the baseline (Expected): a pass is a pass unless the baseline named
// this very case (then improved); a failure matching a flakes.txt line is
// known; otherwise the outcome is compared with the expected one by severity
// (pass < fail < crash < timeout): equal is known, worse is unexpected (a
// Fail that became a Crash is a regression), better is improved (a Crash that
// became a Fail is not a fix). Records of files written before baselines, with
// Known and no Expected, are known.
func (r Record) Verdict() Verdict {
	switch r.Status {
	case Pass, Vacuous:
		if r.ExpectedExact && r.Expected != "" && r.Expected != OutcomeFlake {
			return VerdictImproved
		}
		if r.Status == Vacuous {
			return VerdictVacuous
		}
		return VerdictPass
	case Skip:
		return VerdictSkip
	case Differs:
		return VerdictDiffers
	case Flake:
		return VerdictFlake
	}
	switch {
	case r.Expected == OutcomeFlake:
		return VerdictKnown
	case r.Expected != "":
		got, want := Severity(r.Outcome()), Severity(r.Expected)
		switch {
		case got == want:
			return VerdictKnown
		case got < want:
			return VerdictImproved
		}
		return VerdictUnexpected
	case r.Known != "":
		return VerdictKnown
	}
	return VerdictUnexpected
}

// Counts reports whether the verdict fails the run.
func (v Verdict) Counts() bool { return v == VerdictUnexpected || v == VerdictImproved }

// Headline is a one-line account of a record: the first failing lane (and how
// many more), or the reason.
func (r Record) Headline() string {
	if len(r.Failures) == 0 {
		return r.Reason
	}
	s := r.Failures[0].String()
	if n := len(r.Failures) - 1; n > 0 {
		s += fmt.Sprintf(" (+%d more lanes)", n)
	}
	return s
}

// Title names a record in one line: case, API, stage, compiler and wave size.
func (r Record) Title() string {
	return fmt.Sprintf("%s [%s, wave %d]", r.Case, r.Where(), r.WaveSize)
}

// Where is "api stage compiler" with what the record names ("vulkan compute
// ours", "dawn pixel ours"); records written before APIs and stages existed
// say only the compiler.
func (r Record) Where() string {
	var parts []string
	for _, p := range []string{r.Backend(), r.Stage, r.Compiler} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, " ")
}

// Describe renders a record for people: where it ran, its status and verdict,
// the reason, the expectation or blame, and the per-lane table.
func (r Record) Describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s on %s (%s): %s (%s)\n", r.Title(), r.Device, r.Driver, r.Status, r.Verdict())
	if r.Reason != "" {
		fmt.Fprintf(&b, "  %s\n", r.Reason)
	}
	if r.Known != "" {
		fmt.Fprintf(&b, "  known: %s\n", r.Known)
	}
	if r.Blame != "" {
		fmt.Fprintf(&b, "  blamed on %s: waverig's compiler passed the same case on this device\n", r.Blame)
	}
	WriteLaneTable(&b, "  ", r.Failures)
	for _, p := range r.Parity {
		fmt.Fprintf(&b, "  %s\n", p)
	}
	return b.String()
}

// Stats counts records. The JSON names match results.jsonl's style.
type Stats struct {
	Cases      int `json:"cases"`
	Passed     int `json:"passed"`
	Failed     int `json:"failed"`
	Errors     int `json:"errors"`
	Skipped    int `json:"skipped"`
	Known      int `json:"known"`      // failed or crashed as expected
	Unexpected int `json:"unexpected"` // what fails the run (improvements included)
	Differs    int `json:"differs"`    // cross-API parity records (not cases)
	Flakes     int `json:"flakes"`     // failed, then passed on a re-run
	Vacuous    int `json:"vacuous"`    // ran, but compared no lane
	// Improved counts the UnexpectedImprovement(…) cases; they are in
	// Unexpected too (everything that fails the run is).
	Improved int `json:"improved"`
	// ParityCases and ParityLanes count what the cross-API comparison compared:
	// cases run on both APIs, and their lanes with a defined value on both.
	ParityCases int `json:"parityCases"`
	ParityLanes int `json:"parityLanes"`
	Pipelines   int `json:"pipelines"`
	Kernels     int `json:"kernels"`
	// Seconds is wall time.
	Seconds float64 `json:"seconds"`
}

// Add counts one record (the layout check is not a case and is not counted).
func (s *Stats) Add(r Record) {
	if r.Case == LayoutCase {
		if r.Verdict().Counts() {
			s.Unexpected++
		}
		return
	}
	if r.Status == Differs {
		s.Differs++
		return
	}
	s.Cases++
	switch r.Status {
	case Pass:
		s.Passed++
	case Fail:
		s.Failed++
	case Skip:
		s.Skipped++
	case Flake:
		s.Flakes++
	case Vacuous:
		s.Vacuous++
	default:
		s.Errors++
	}
	switch r.Verdict() {
	case VerdictKnown:
		s.Known++
	case VerdictUnexpected:
		s.Unexpected++
	case VerdictImproved:
		s.Unexpected++
		s.Improved++
	}
}

// Merge adds another count (e.g. a wave size's into the run's total). Seconds
// are not added: a total's wall time is measured, not summed.
func (s *Stats) Merge(o Stats) {
	s.Cases += o.Cases
	s.Passed += o.Passed
	s.Failed += o.Failed
	s.Errors += o.Errors
	s.Skipped += o.Skipped
	s.Known += o.Known
	s.Unexpected += o.Unexpected
	s.Differs += o.Differs
	s.Flakes += o.Flakes
	s.Vacuous += o.Vacuous
	s.Improved += o.Improved
	s.ParityCases += o.ParityCases
	s.ParityLanes += o.ParityLanes
	s.Pipelines += o.Pipelines
	s.Kernels += o.Kernels
}

// SizeSummary is one wave size of a run.
type SizeSummary struct {
	WaveSize   uint32 `json:"waveSize"`
	Stats      Stats  `json:"stats"`
	SkipReason string `json:"skipReason,omitempty"`
	Error      string `json:"error,omitempty"`
}

// DeviceSummary is one device of a run: summary.json's "devices" rows.
type DeviceSummary struct {
	Index  int    `json:"index"` // in the Vulkan enumeration (-device N)
	Device string `json:"device"`
	// Name is how the reports name the device: Device, with " #index" where two
	// devices of the run share a name.
	Name         string        `json:"name"`
	Driver       string        `json:"driver"`
	Expectations []string      `json:"expectations,omitempty"`
	Stale        []string      `json:"staleExpectations,omitempty"`
	Sizes        []SizeSummary `json:"sizes"`
	Total        Stats         `json:"total"`
}

// Summary is summary.json. With one device, Device, Driver, Expectations,
// Stale and Sizes are that device's; with several, Device and Driver list them
// ("; "), Sizes adds each wave size up over the devices, and Devices holds each
// device's own rows. Devices is written for one device too.
type Summary struct {
	Device       string   `json:"device"`
	Driver       string   `json:"driver"`
	Expectations []string `json:"expectations,omitempty"` // files applied
	// Stale lists expectation entries that matched cases of this run none of
	// which failed: the problem is gone (or the entry is too wide) here.
	Stale   []string        `json:"staleExpectations,omitempty"`
	Sizes   []SizeSummary   `json:"sizes"`
	Devices []DeviceSummary `json:"devices,omitempty"`
	Total   Stats           `json:"total"`
	// ExitStatus is the run's exit status and Verdict says it in words.
	ExitStatus int    `json:"exitStatus"`
	Verdict    string `json:"verdict"`
	// Run metadata for the reports and for `waverig merge`: the host the run was
	// on, when it started (RFC 3339), the command line, waverig's version (VCS
	// revision), and the shard ("K/N") when it ran a share of the plan. A merged
	// run lists what it merged in Merged.
	Host    string   `json:"host,omitempty"`
	Started string   `json:"started,omitempty"`
	Command []string `json:"command,omitempty"`
	Version string   `json:"version,omitempty"`
	Shard   string   `json:"shard,omitempty"`
	Merged  []string `json:"merged,omitempty"`
	// Validation is what the Khronos validation layer said of a run made with
	// -validation (nil: the layer was not loaded).
	Validation *ValidationSummary `json:"validation,omitempty"`
}

// ValidationSummary counts the validation layer's messages over every process
// of a run (errors and warnings: the layer's default report flags). Any
// message fails the run: it is about waverig's own use of Vulkan.
type ValidationSummary struct {
	Layer     string         `json:"layer"`
	Processes int            `json:"processes"` // processes that created a Vulkan instance with the layer
	Messages  int            `json:"messages"`
	ByID      map[string]int `json:"byID,omitempty"` // VUID (or UNASSIGNED-… name) -> messages
}

// Expectation is expectation.json: the baseline files a run judged its
// records against, per device (deqp-runner writes the same file).
type Expectation struct {
	Devices []DeviceExpectation `json:"devices"`
}

// DeviceExpectation is the baseline one device's records were judged against:
// the directories and the files read from them (fails.csv, flakes.txt,
// skips.txt), with how many lines each had.
type DeviceExpectation struct {
	Index  int    `json:"index"`
	Device string `json:"device"`
	Driver string `json:"driver"`
	// Baselines are the directories applied, in order (built-in ones as
	// "builtin:NAME"); Files each file read, with its line count.
	Baselines []string       `json:"baselines"`
	Files     map[string]int `json:"files"`
	// Retries is how many times a new failure was re-run before it was reported.
	Retries int `json:"retries"`
}
