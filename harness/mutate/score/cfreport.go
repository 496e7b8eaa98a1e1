package score

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"waverig/harness/mutate"
)

// CFSite names one planted module.
type CFSite struct {
	Seed uint64
	Site string
	Why  string // what told it apart (a failure, an error, a hang)
}

func (s CFSite) String() string { return fmt.Sprintf("seed %d site %s", s.Seed, s.Site) }

// CFMutantScore is one mutant at one size.
type CFMutantScore struct {
	// Planted counts the sites that ran (valid, in a program that passes
	// unmutated); Caught those that showed; Hangs and Crashes are among them.
	Planted, Caught, Hangs, Crashes int
	// First is the first caught site in seed order (nil: survived).
	First *CFSite
}

// CFSizeScore is the score at one size.
type CFSizeScore struct {
	Size uint32
	// Mutants are caught when one site is; planted when one site ran.
	Caught, Planted    int
	Sites, SitesCaught int
	// FalseFailures are the unmutated programs that do not pass (their
	// mutants are not counted); FalseWhy the first reason of each, by seed.
	FalseFailures int
	FalseWhy      map[uint64]string
	PerMutant     map[string]CFMutantScore
	Elapsed       time.Duration
}

// CFSummary is the control-flow score of a CFResult.
type CFSummary struct {
	Device  string
	Seeds   []uint64
	Sizes   []CFSizeScore
	Skipped map[uint32]string
	// Rejected are the sites spirv-val rejects, by mutant.
	Rejected map[string][]CFReject
	// SitesPerMutant counts the valid sites of each mutant (all sizes plant
	// the same modules).
	SitesPerMutant map[string]int
}

// Summarize computes the per-size score.
func (r *CFResult) Summarize() CFSummary {
	s := CFSummary{Device: r.Device, Seeds: r.Seeds, Skipped: r.Skipped, Rejected: map[string][]CFReject{}, SitesPerMutant: map[string]int{}}
	for _, rj := range r.Rejected {
		s.Rejected[rj.Mutant] = append(s.Rejected[rj.Mutant], rj)
	}
	for _, j := range r.Jobs {
		if j.Mutant != "" {
			s.SitesPerMutant[j.Mutant]++
		}
	}
	for _, size := range r.Sizes {
		ss := CFSizeScore{Size: size, PerMutant: map[string]CFMutantScore{}, FalseWhy: map[uint64]string{}, Elapsed: r.Elapsed[size]}
		for i, j := range r.Jobs {
			o, ok := r.Outcomes[i][size]
			if !ok {
				continue
			}
			if j.Mutant == "" {
				if o.Shows() {
					ss.FalseFailures++
					ss.FalseWhy[j.Seed] = o.Why()
				}
				continue
			}
			if o.NotCounted {
				continue
			}
			m := ss.PerMutant[j.Mutant]
			m.Planted++
			if o.Shows() {
				m.Caught++
				if o.Hang {
					m.Hangs++
				}
				if o.Crash {
					m.Crashes++
				}
				if m.First == nil {
					m.First = &CFSite{Seed: j.Seed, Site: j.Site, Why: o.Why()}
				}
			}
			ss.PerMutant[j.Mutant] = m
		}
		for _, m := range ss.PerMutant {
			ss.Sites += m.Planted
			ss.SitesCaught += m.Caught
			if m.Planted > 0 {
				ss.Planted++
			}
			if m.Caught > 0 {
				ss.Caught++
			}
		}
		s.Sizes = append(s.Sizes, ss)
	}
	return s
}

// Survivors lists "mutant at size N" for every planted mutant no site caught.
func (s CFSummary) Survivors() []string {
	var out []string
	for _, ss := range s.Sizes {
		for _, m := range mutate.ControlFlow {
			if ms := ss.PerMutant[m.Name]; ms.Planted > 0 && ms.Caught == 0 {
				out = append(out, fmt.Sprintf("%s at size %d", m.Name, ss.Size))
			}
		}
	}
	return out
}

// Unexplained are the survivors' mutants without a reason in
// mutate.CFSurvivors.
func (s CFSummary) Unexplained() []string {
	var out []string
	for _, ss := range s.Sizes {
		for _, m := range mutate.ControlFlow {
			if ms := ss.PerMutant[m.Name]; ms.Planted > 0 && ms.Caught == 0 && mutate.CFSurvivors[m.Name] == "" {
				out = append(out, fmt.Sprintf("%s at size %d", m.Name, ss.Size))
			}
		}
	}
	return out
}

func seedRange(seeds []uint64) string {
	if len(seeds) == 0 {
		return "none"
	}
	contiguous := true
	for i := range seeds {
		if seeds[i] != seeds[0]+uint64(i) {
			contiguous = false
		}
	}
	if contiguous {
		return fmt.Sprintf("%d-%d", seeds[0], seeds[len(seeds)-1])
	}
	var parts []string
	for _, x := range seeds {
		parts = append(parts, strconv.FormatUint(x, 10))
	}
	return strings.Join(parts, ", ")
}

func (s CFSummary) rejectedCount() int {
	n := 0
	for _, r := range s.Rejected {
		n += len(r)
	}
	return n
}

// sizeLine is the recorded line of one size (Recorded reads it back).
func (s CFSummary) sizeLine(ss CFSizeScore) string {
	return fmt.Sprintf("- Size %d: **%d/%d mutants caught**, %d/%d sites caught, %d rejected by spirv-val, %d/%d false failures",
		ss.Size, ss.Caught, ss.Planted, ss.SitesCaught, ss.Sites, s.rejectedCount(), ss.FalseFailures, len(s.Seeds))
}

// Text is the score for a terminal: one line per size, with its time, and
// the survivors.
func (s CFSummary) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "control-flow score on %s, seeds %s:\n", s.Device, seedRange(s.Seeds))
	for _, ss := range s.Sizes {
		fmt.Fprintf(&b, "%s (%s)\n", strings.ReplaceAll(s.sizeLine(ss), "**", ""), ss.Elapsed.Round(time.Second))
		for _, m := range mutate.ControlFlow {
			ms := ss.PerMutant[m.Name]
			first := "survived"
			if ms.First != nil {
				first = "first " + ms.First.String() + ": " + ms.First.Why
			}
			fmt.Fprintf(&b, "    %-24s %d/%d sites, %s\n", m.Name, ms.Caught, ms.Planted, first)
		}
	}
	for _, size := range sortedSizes(s.Skipped) {
		fmt.Fprintf(&b, "- size %d not run: %s\n", size, s.Skipped[size])
	}
	for _, sv := range s.Survivors() {
		fmt.Fprintf(&b, "survivor: %s\n", sv)
	}
	return b.String()
}

// CFHeading starts the control-flow section of docs/detection.md; the static
// score's page is everything before it.
const CFHeading = "## Control-flow mutants of generated programs\n"

// Markdown is the control-flow section of docs/detection.md.
func (s CFSummary) Markdown() string {
	var b strings.Builder
	b.WriteString(CFHeading + "\n")
	b.WriteString("Generated by `scripts/mutation-score.sh -update` (`go test ./harness/mutate/score -run TestCFScore -args -cfall -update`);\n")
	b.WriteString("`TestCFScore` runs at the device's default wave size in every `go test` and fails when a size's caught\n")
	b.WriteString("mutants or sites drop below this page, when a survivor has no reason in `mutate.CFSurvivors`, or when\n")
	b.WriteString("an unmutated program fails. Do not edit by hand.\n\n")
	fmt.Fprintf(&b, "Every site of each of the %d mutants of `mutate.ControlFlow` is planted, one site per module, in the\n", len(mutate.ControlFlow))
	fmt.Fprintf(&b, "SPIR-V of the generated programs of seeds %s (`score.CFLastSeed`), validated with spirv-val (a rejected\n", seedRange(s.Seeds))
	b.WriteString("site is not planted), run on the device and checked with the program's simulator (`gen.Program.Check`,\n")
	fmt.Fprintf(&b, "the device's contract). A site is caught when a check fails, the module does not run, the driver crashes\n")
	fmt.Fprintf(&b, "or the program runs past the %s hang guard; a mutant is caught at a size when one of its sites is.\n\n", CFTimeout)
	fmt.Fprintf(&b, "- Device: `%s`\n", s.Device)
	var sizes []uint32
	for _, ss := range s.Sizes {
		sizes = append(sizes, ss.Size)
	}
	fmt.Fprintf(&b, "- Wave sizes: %s\n", sizesString(sizes))
	for _, size := range sortedSizes(s.Skipped) {
		fmt.Fprintf(&b, "- Size %d not run: %s\n", size, s.Skipped[size])
	}
	for _, ss := range s.Sizes {
		b.WriteString(s.sizeLine(ss) + "\n")
		for _, seed := range sortedSeeds(ss.FalseWhy) {
			fmt.Fprintf(&b, "  - seed %d fails unmutated (its mutants are not counted): %s\n", seed, ss.FalseWhy[seed])
		}
	}
	b.WriteString("\n| mutant | plants | valid sites | rejected |")
	for _, ss := range s.Sizes {
		fmt.Fprintf(&b, " size %d: caught sites, first |", ss.Size)
	}
	b.WriteString("\n|---|---|---|---|")
	for range s.Sizes {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, m := range mutate.ControlFlow {
		fmt.Fprintf(&b, "| `%s` | %s | %d | %d |", m.Name, m.Plants, s.SitesPerMutant[m.Name], len(s.Rejected[m.Name]))
		for _, ss := range s.Sizes {
			ms := ss.PerMutant[m.Name]
			switch {
			case ms.Planted == 0:
				b.WriteString(" not planted |")
			case ms.First == nil:
				fmt.Fprintf(&b, " **survived** 0/%d |", ms.Planted)
			default:
				extra := ""
				if ms.Hangs > 0 {
					extra += fmt.Sprintf(", %d hangs", ms.Hangs)
				}
				if ms.Crashes > 0 {
					extra += fmt.Sprintf(", %d crashes", ms.Crashes)
				}
				fmt.Fprintf(&b, " %d/%d%s, %s |", ms.Caught, ms.Planted, extra, ms.First)
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("\n### Control-flow survivors\n\n")
	surv := map[string][]string{}
	for _, ss := range s.Sizes {
		for _, m := range mutate.ControlFlow {
			if ms := ss.PerMutant[m.Name]; ms.Planted > 0 && ms.Caught == 0 {
				surv[m.Name] = append(surv[m.Name], strconv.Itoa(int(ss.Size)))
			}
		}
	}
	n := 0
	for _, m := range mutate.ControlFlow {
		if sz := surv[m.Name]; len(sz) > 0 {
			reason := mutate.CFSurvivors[m.Name]
			if reason == "" {
				reason = "**unexplained**"
			}
			fmt.Fprintf(&b, "- `%s` at sizes %s: %s\n", m.Name, strings.Join(sz, ", "), reason)
			n++
		}
	}
	if n == 0 {
		b.WriteString("None.\n")
	}
	b.WriteString("\n### Control-flow sites rejected by the validator\n\n")
	n = 0
	for _, m := range mutate.ControlFlow {
		for _, rj := range s.Rejected[m.Name] {
			fmt.Fprintf(&b, "- `%s`, seed %d site %s: %s\n", m.Name, rj.Seed, rj.Site, rj.Msg)
			n++
		}
	}
	if n == 0 {
		b.WriteString("None.\n")
	}
	return b.String()
}

func sortedSeeds[V any](m map[uint64]V) []uint64 {
	var out []uint64
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

var cfRecordedRE = regexp.MustCompile(`(?m)^- Size (\d+): \*\*(\d+)/(\d+) mutants caught\*\*, (\d+)/(\d+) sites caught`)

// CFRecorded is what a docs/detection.md text records per size.
type CFRecorded struct{ Caught, Planted, SitesCaught, Sites int }

// RecordedCF reads the control-flow score per size from a docs/detection.md
// text (only its control-flow section).
func RecordedCF(doc string) map[uint32]CFRecorded {
	i := strings.Index(doc, CFHeading)
	if i < 0 {
		return nil
	}
	out := map[uint32]CFRecorded{}
	for _, m := range cfRecordedRE.FindAllStringSubmatch(doc[i:], -1) {
		var v [5]int
		for k := range v {
			v[k], _ = strconv.Atoi(m[k+1])
		}
		out[uint32(v[0])] = CFRecorded{v[1], v[2], v[3], v[4]}
	}
	return out
}

// SplitDoc cuts docs/detection.md into the static score's page and the
// control-flow section ("" when it has none yet).
func SplitDoc(doc string) (static, cf string) {
	if i := strings.Index(doc, "\n"+CFHeading); i >= 0 {
		return doc[:i], doc[i+1:]
	}
	return doc, ""
}
