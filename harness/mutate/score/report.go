package score

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"waverig/harness/mutate"
)

// Mutant statuses.
const (
	Caught        = "caught"
	Survived      = "survived"
	Rejected      = "rejected by the validator"
	NotApplicable = "not applicable"
)

// MutantScore is one mutant's verdict over its kernels and sizes.
type MutantScore struct {
	Mutation mutate.Mutation
	Status   string
	// CaughtAt are the sizes at which some case failed.
	CaughtAt []uint32
	// Kernels are the kernels it ran in (valid, and passing unmutated);
	// CaughtIn those where a case failed at some size. Once caught at a size,
	// a mutant's later kernels are not run there: CaughtIn is where it was
	// caught first.
	Kernels, CaughtIn []string
	// Crashed: the driver crashed on it somewhere (counted as caught: the rig
	// reports a crash as a failure).
	Crashed bool
	// ErrorOnly is set when no case failed a check and the mutant was caught
	// only because its module could not run (a pipeline the driver refused):
	// the first such error.
	ErrorOnly string
	// Reason: the validator's message (rejected), or the survivor's
	// explanation from mutate.Survivors ("" when unexplained).
	Reason string
}

// Summary is the score of a Result.
type Summary struct {
	Device  string
	Sizes   []uint32
	Skipped map[uint32]string
	Mutants []MutantScore
	// Caught + Survived = planted.
	Caught, Survived, Rejected, NotApplicable int
	// FalseFailures counts, per size, the unmutated kernels with a failing case.
	FalseFailures map[uint32]int
	// NotRunnable are unmutated kernels that could not run, per size (not
	// counted as false failures: their mutants are not counted either).
	NotRunnable map[uint32]map[string]string
	Kernels     int
}

// Planted is the number of mutants that ran: caught or survived.
func (s Summary) Planted() int { return s.Caught + s.Survived }

// Percent is the score in percent, rounded down to one decimal.
func (s Summary) Percent() float64 {
	if s.Planted() == 0 {
		return 0
	}
	return float64(s.Caught*1000/s.Planted()) / 10
}

// Unexplained are the survivors without a reason in mutate.Survivors.
func (s Summary) Unexplained() []string {
	var out []string
	for _, m := range s.Mutants {
		if m.Status == Survived && m.Reason == "" {
			out = append(out, m.Mutation.Name)
		}
	}
	return out
}

// TotalFalseFailures adds up the false failures of every size.
func (s Summary) TotalFalseFailures() int {
	n := 0
	for _, v := range s.FalseFailures {
		n += v
	}
	return n
}

// Summarize turns the outcomes into verdicts.
func (r *Result) Summarize() Summary {
	s := Summary{Device: r.Device, Sizes: r.Sizes, Skipped: r.Skipped, FalseFailures: map[uint32]int{}, NotRunnable: map[uint32]map[string]string{}}
	// good[kernel][size]: the unmutated kernel passed there, so a failure of
	// its mutant is the mutant's doing.
	good := map[string]map[uint32]bool{}
	for _, size := range r.Sizes {
		s.FalseFailures[size] = 0
	}
	// The unmutated kernels come first, each followed (later) by its round
	// trip: a kernel is good at a size when both pass there.
	for i, j := range r.Jobs {
		if j.Mutant != "" && j.Mutant != RoundTrip {
			continue
		}
		if j.Mutant == "" {
			s.Kernels++
			good[j.Kernel] = map[uint32]bool{}
		}
		for _, size := range r.Sizes {
			o := r.Outcomes[i][size]
			switch {
			case o.Crash || o.Err != "":
				if s.NotRunnable[size] == nil {
					s.NotRunnable[size] = map[string]string{}
				}
				if _, seen := s.NotRunnable[size][j.Kernel]; !seen {
					s.NotRunnable[size][j.Kernel] = o.Err
				}
				good[j.Kernel][size] = false
			case o.Failed > 0:
				s.FalseFailures[size]++
				good[j.Kernel][size] = false
			case j.Mutant == "":
				good[j.Kernel][size] = true
			}
		}
	}
	for _, m := range mutate.All {
		ms := MutantScore{Mutation: m}
		caughtAt := map[uint32]bool{}
		ran, caughtIn := map[string]bool{}, map[string]bool{}
		byCheck, firstErr := false, ""
		for i, j := range r.Jobs {
			if j.Mutant != m.Name {
				continue
			}
			for _, size := range r.Sizes {
				o := r.Outcomes[i][size]
				if !good[j.Kernel][size] || o.Skipped {
					continue
				}
				ran[j.Kernel] = true
				if o.counts() {
					caughtAt[size] = true
					caughtIn[j.Kernel] = true
					ms.Crashed = ms.Crashed || o.Crash
					byCheck = byCheck || o.Failed > 0
					if o.Err != "" && firstErr == "" {
						firstErr = o.Err
					}
				}
			}
		}
		ms.Kernels, ms.CaughtIn = sortedKeys(ran), sortedKeys(caughtIn)
		for size := range caughtAt {
			ms.CaughtAt = append(ms.CaughtAt, size)
		}
		sort.Slice(ms.CaughtAt, func(a, b int) bool { return ms.CaughtAt[a] < ms.CaughtAt[b] })
		switch {
		case len(caughtIn) > 0:
			ms.Status = Caught
			if !byCheck {
				ms.ErrorOnly = firstErr
			}
			s.Caught++
		case len(ran) > 0:
			ms.Status = Survived
			ms.Reason = mutate.Survivors[m.Name]
			s.Survived++
		case len(r.Rejected[m.Name]) > 0:
			ms.Status = Rejected
			ks := sortedKeys(r.Rejected[m.Name])
			ms.Reason = r.Rejected[m.Name][ks[0]]
			ms.Kernels = ks
			s.Rejected++
		default:
			ms.Status = NotApplicable
			s.NotApplicable++
		}
		s.Mutants = append(s.Mutants, ms)
	}
	return s
}

func sortedKeys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// compact writes kernel names (op_base_shape) as "op (shape, shape)".
func compact(ks []string) string {
	shapes := map[string][]string{}
	var order []string
	for _, k := range ks {
		op, shape := k, ""
		if i := strings.LastIndex(k, "_base_"); i >= 0 {
			op, shape = k[:i], k[i+len("_base_"):]
		}
		if _, ok := shapes[op]; !ok {
			order = append(order, op)
		}
		if shape != "" {
			shapes[op] = append(shapes[op], shape)
		} else {
			shapes[op] = shapes[op][:0:0]
		}
	}
	var out []string
	for _, op := range order {
		if len(shapes[op]) == 0 {
			out = append(out, op)
			continue
		}
		out = append(out, op+" ("+strings.Join(shapes[op], ", ")+")")
	}
	return strings.Join(out, ", ")
}

func sizesString(sizes []uint32) string {
	var p []string
	for _, s := range sizes {
		p = append(p, strconv.Itoa(int(s)))
	}
	return strings.Join(p, ", ")
}

// ScoreLine is the line the script prints and docs/detection.md records:
// "caught/planted (P%)".
func (s Summary) ScoreLine() string {
	return fmt.Sprintf("%d/%d (%.1f%%)", s.Caught, s.Planted(), s.Percent())
}

// ops lists a mutant's operations compactly.
func ops(m mutate.Mutation) string { return strings.Join(m.Ops, ", ") }

// Text is the script's report.
func (s Summary) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "device: %s\nwave sizes: %s\n", s.Device, sizesString(s.Sizes))
	for _, size := range sortedSizes(s.Skipped) {
		fmt.Fprintf(&b, "  size %d skipped: %s\n", size, s.Skipped[size])
	}
	fmt.Fprintf(&b, "mutation score: %s\n", s.ScoreLine())
	fmt.Fprintf(&b, "rejected by the validator: %d, not applicable: %d\n", s.Rejected, s.NotApplicable)
	for _, size := range s.Sizes {
		fmt.Fprintf(&b, "false failures at size %d: %d (of %d unmutated kernels; %d could not run)\n", size, s.FalseFailures[size], s.Kernels, len(s.NotRunnable[size]))
	}
	for _, m := range s.Mutants {
		switch m.Status {
		case Survived:
			reason := m.Reason
			if reason == "" {
				reason = "UNEXPLAINED: add a reason to mutate.Survivors or a test that catches it"
			}
			fmt.Fprintf(&b, "SURVIVOR %q (%s): %s\n", m.Mutation.Name, strings.Join(m.Kernels, ", "), reason)
		case Rejected:
			fmt.Fprintf(&b, "rejected %q: %s\n", m.Mutation.Name, m.Reason)
		case NotApplicable:
			fmt.Fprintf(&b, "not applicable %q: no kernel of %s that runs here has what it changes\n", m.Mutation.Name, ops(m.Mutation))
		}
	}
	return b.String()
}

func sortedSizes[V any](m map[uint32]V) []uint32 {
	var out []uint32
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// Markdown is docs/detection.md.
func (s Summary) Markdown() string {
	var b strings.Builder
	b.WriteString("# Detection: the mutation score\n\n")
	b.WriteString("Generated by `scripts/mutation-score.sh -update` (`go test ./harness/mutate/score -run TestMutationScore -update`);\n")
	b.WriteString("`TestMutationScore` fails when a run's score is below the one recorded here, when a survivor has no\n")
	b.WriteString("reason in `mutate.Survivors`, when an unmutated kernel fails, or (on the device recorded here) when\n")
	b.WriteString("this page differs from the run. Do not edit by hand.\n\n")
	b.WriteString("Each mutant of `harness/mutate` is planted in waverig's SPIR-V of the `base` kernels (32-bit types)\n")
	b.WriteString("of the operations it names, in the `whole` and `partial` workgroup shapes, validated with spirv-val,\n")
	b.WriteString("run at every wave size below and checked with `kernels.Check`. It is caught when one case fails.\n\n")
	fmt.Fprintf(&b, "- Device: `%s`\n", s.Device)
	fmt.Fprintf(&b, "- Wave sizes: %s\n", sizesString(s.Sizes))
	for _, size := range sortedSizes(s.Skipped) {
		fmt.Fprintf(&b, "- Size %d not run: %s\n", size, s.Skipped[size])
	}
	fmt.Fprintf(&b, "- **Score: %s** caught/planted\n", s.ScoreLine())
	fmt.Fprintf(&b, "- Rejected by the validator (not planted): %d; not applicable on this device: %d; catalogue: %d mutants\n", s.Rejected, s.NotApplicable, len(s.Mutants))
	var ff []string
	for _, size := range s.Sizes {
		ff = append(ff, fmt.Sprintf("size %d: %d", size, s.FalseFailures[size]))
	}
	fmt.Fprintf(&b, "- False failures of the %d unmutated kernels: %s\n", s.Kernels, strings.Join(ff, ", "))
	// Kernels that cannot run unmutated, grouped by error and sizes: their
	// mutants are not counted there.
	type nr struct{ kernels, sizes map[string]bool }
	byErr := map[string]*nr{}
	for size, ks := range s.NotRunnable {
		for k, e := range ks {
			if byErr[e] == nil {
				byErr[e] = &nr{map[string]bool{}, map[string]bool{}}
			}
			byErr[e].kernels[k] = true
			byErr[e].sizes[fmt.Sprintf("%3d", size)] = true
		}
	}
	for _, e := range sortedKeys(byErr) {
		var sizes []string
		for _, sz := range sortedKeys(byErr[e].sizes) {
			sizes = append(sizes, strings.TrimSpace(sz))
		}
		fmt.Fprintf(&b, "- Not runnable unmutated at sizes %s (their mutants are not counted): %s: `%s`\n",
			strings.Join(sizes, ", "), compact(sortedKeys(byErr[e].kernels)), e)
	}
	b.WriteString("\n## Per family\n\n| family | caught | planted | rejected | not applicable |\n|---|---|---|---|---|\n")
	fams := map[string]*[4]int{}
	var order []string
	for _, m := range s.Mutants {
		f := fams[m.Mutation.Family]
		if f == nil {
			f = &[4]int{}
			fams[m.Mutation.Family] = f
			order = append(order, m.Mutation.Family)
		}
		switch m.Status {
		case Caught:
			f[0]++
			f[1]++
		case Survived:
			f[1]++
		case Rejected:
			f[2]++
		default:
			f[3]++
		}
	}
	for _, name := range order {
		f := fams[name]
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d |\n", name, f[0], f[1], f[2], f[3])
	}
	b.WriteString("\n## Mutants\n\n| mutant | family | plants | status | caught at sizes | caught first in |\n|---|---|---|---|---|---|\n")
	for _, m := range s.Mutants {
		where := compact(m.CaughtIn)
		if m.Crashed {
			where += " (a driver crash)"
		}
		if m.ErrorOnly != "" {
			where += " (only by an error: " + m.ErrorOnly + ")"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s |\n", m.Mutation.Name, m.Mutation.Family, m.Mutation.Plants, m.Status, sizesString(m.CaughtAt), where)
	}
	b.WriteString("\n## Survivors\n\n")
	n := 0
	for _, m := range s.Mutants {
		if m.Status == Survived {
			reason := m.Reason
			if reason == "" {
				reason = "**unexplained**"
			}
			fmt.Fprintf(&b, "- `%s` (ran in %s): %s\n", m.Mutation.Name, compact(m.Kernels), reason)
			n++
		}
	}
	if n == 0 {
		b.WriteString("None.\n")
	}
	b.WriteString("\n## Rejected by the validator\n\n")
	n = 0
	for _, m := range s.Mutants {
		if m.Status == Rejected {
			fmt.Fprintf(&b, "- `%s`: %s\n", m.Mutation.Name, m.Reason)
			n++
		}
	}
	if n == 0 {
		b.WriteString("None.\n")
	}
	b.WriteString("\n## Not applicable here\n\n")
	n = 0
	for _, m := range s.Mutants {
		if m.Status == NotApplicable {
			fmt.Fprintf(&b, "- `%s` (%s): no kernel of these operations that runs on this device has what it changes\n", m.Mutation.Name, ops(m.Mutation))
			n++
		}
	}
	if n == 0 {
		b.WriteString("None.\n")
	}
	b.WriteString("\n## Not planted yet\n\n")
	for _, l := range mutate.NotPlanted {
		fmt.Fprintf(&b, "- %s\n", l)
	}
	return b.String()
}

var recordedRE = regexp.MustCompile(`\*\*Score: (\d+)/(\d+) \(`)

// Recorded reads caught and planted from a docs/detection.md text.
func Recorded(doc string) (caught, planted int, ok bool) {
	m := recordedRE.FindStringSubmatch(doc)
	if m == nil {
		return 0, 0, false
	}
	caught, _ = strconv.Atoi(m[1])
	planted, _ = strconv.Atoi(m[2])
	return caught, planted, true
}
