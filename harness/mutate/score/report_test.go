package score

import (
	"strings"
	"testing"

	"waverig/harness/mutate"
)

// TestSummarize: a caught mutant, a survivor (explained or not), one the
// validator rejects, one not applicable, a mutant whose kernel fails
// unmutated (not counted), and a round trip that fails (a false failure).
func TestSummarize(t *testing.T) {
	m := func(name string) mutate.Mutation {
		mm, ok := mutate.Find(name)
		if !ok {
			t.Fatalf("no mutant %q", name)
		}
		return mm
	}
	caught, survivor, unexplained := m("IAdd->IMul"), m("FAdd->FMul"), m("IMul->IAdd")
	saved := mutate.Survivors
	mutate.Survivors = map[string]string{survivor.Name: "equivalent on these inputs"}
	defer func() { mutate.Survivors = saved }()
	r := &Result{
		Device: "dev",
		Sizes:  []uint32{4, 8},
		Jobs: []Job{
			{Kernel: "WaveActiveSum_base_whole"},
			{Kernel: "WaveActiveProduct_base_whole"},
			{Kernel: "WavePrefixSum_base_whole"},
			{Mutant: RoundTrip, Kernel: "WaveActiveSum_base_whole"},
			{Mutant: RoundTrip, Kernel: "WaveActiveProduct_base_whole"},
			{Mutant: RoundTrip, Kernel: "WavePrefixSum_base_whole"},
			{Mutant: caught.Name, Kernel: "WaveActiveSum_base_whole"},
			{Mutant: survivor.Name, Kernel: "WaveActiveSum_base_whole"},
			{Mutant: unexplained.Name, Kernel: "WaveActiveProduct_base_whole"},
			// Fails, but its kernel fails unmutated at 8 and its round trip at 4.
			{Mutant: "FMul->FAdd", Kernel: "WavePrefixSum_base_whole"},
		},
		Rejected: map[string]map[string]string{"scope Subgroup->Workgroup": {"WaveActiveSum_base_whole": "scope is limited to Subgroup"}},
	}
	pass := Outcome{Cases: 10}
	fail := Outcome{Cases: 10, Failed: 3}
	r.Outcomes = []map[uint32]Outcome{
		{4: pass, 8: pass}, {4: pass, 8: pass}, {4: pass, 8: fail},
		{4: pass, 8: pass}, {4: pass, 8: pass}, {4: fail, 8: pass},
		{4: pass, 8: fail}, {4: pass, 8: pass}, {4: pass, 8: pass}, {4: fail, 8: fail},
	}
	s := r.Summarize()
	if s.Caught != 1 || s.Survived != 2 || s.Rejected != 1 {
		t.Errorf("caught %d survived %d rejected %d, want 1 2 1", s.Caught, s.Survived, s.Rejected)
	}
	if s.FalseFailures[4] != 1 || s.FalseFailures[8] != 1 {
		t.Errorf("false failures %v, want one at each size", s.FalseFailures)
	}
	if u := s.Unexplained(); len(u) != 1 || u[0] != unexplained.Name {
		t.Errorf("unexplained %v", u)
	}
	for _, ms := range s.Mutants {
		switch ms.Mutation.Name {
		case caught.Name:
			if ms.Status != Caught || len(ms.CaughtAt) != 1 || ms.CaughtAt[0] != 8 {
				t.Errorf("%+v", ms)
			}
		case "FMul->FAdd":
			if ms.Status != NotApplicable {
				t.Errorf("a mutant of a kernel that fails unmutated counted: %s", ms.Status)
			}
		}
	}
	if got := s.ScoreLine(); got != "1/3 (33.3%)" {
		t.Errorf("score line %q", got)
	}
	doc := s.Markdown()
	c, p, ok := Recorded(doc)
	if !ok || c != 1 || p != 3 {
		t.Errorf("Recorded: %d/%d %v", c, p, ok)
	}
	for _, want := range []string{"equivalent on these inputs", "**unexplained**", "scope is limited to Subgroup"} {
		if !strings.Contains(doc, want) {
			t.Errorf("doc lacks %q", want)
		}
	}
}
