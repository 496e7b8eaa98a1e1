package mutate

import (
	"os/exec"
	"testing"

	"waverig/harness/gen"
	"waverig/harness/vulkan"
)

// TestControlFlowMutantsPlant plants every control-flow mutant at every site of
// a few generated programs: each mutant finds sites, each edit changes the
// module and reassembles, and spirv-val's verdict on each is logged (a rejected
// mutant is counted as rejected by the score, never as caught).
func TestControlFlowMutantsPlant(t *testing.T) {
	for _, tool := range []string{"spirv-dis", "spirv-as", "spirv-val"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip(tool + " not installed")
		}
	}
	sites := map[string]int{}
	for seed := uint64(1); seed <= 10; seed++ {
		p := gen.Generate(seed)
		words, err := gen.Compile(p.HLSL())
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		text, err := Disassemble(words)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ControlFlow {
			for i, site := range m.Sites(text) {
				mt, err := m.Apply(text, i)
				if err != nil {
					t.Fatalf("seed %d %s site %s: %v", seed, m.Name, site, err)
				}
				if mt == text {
					t.Errorf("seed %d %s site %s: the module did not change", seed, m.Name, site)
					continue
				}
				mw, err := Assemble(mt, Env(words))
				if err != nil {
					t.Errorf("seed %d %s site %s: %v", seed, m.Name, site, err)
					continue
				}
				sites[m.Name]++
				if verr := vulkan.Validate(mw); verr != nil {
					t.Logf("seed %d %s site %s: rejected: %.200s", seed, m.Name, site, verr)
				}
			}
		}
	}
	for _, m := range ControlFlow {
		t.Logf("%s: %d sites", m.Name, sites[m.Name])
		if sites[m.Name] == 0 {
			t.Errorf("%s: no site in seeds 1-10", m.Name)
		}
	}
	if _, ok := FindCF(ControlFlow[0].Name); !ok {
		t.Errorf("FindCF does not find %q", ControlFlow[0].Name)
	}
}
