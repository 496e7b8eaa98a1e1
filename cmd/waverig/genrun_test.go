package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"waverig/harness/gen"
	"waverig/harness/pass"
	"waverig/harness/results"
)

// Generated programs in `waverig run` (harness/pass/genrun.go) on lavapipe.

// genNames are the gen test names among names.
func genNames(names []string) []string {
	var out []string
	for _, n := range names {
		if strings.Contains(n, "/gen/seed=") {
			out = append(out, n)
		}
	}
	return out
}

// wantGenNames are the names seeds get at sizes.
func wantGenNames(seeds []uint64, sizes ...uint32) []string {
	var out []string
	for _, s := range seeds {
		for _, size := range sizes {
			out = append(out, results.TestName(results.Vulkan, results.Compute, pass.GenCase(s), results.Ours, size))
		}
	}
	slices.Sort(out)
	return out
}

// TestGenSeedsInThePlan: an unfiltered plan has the default seeds at every
// size; -ops turns them off unless -gen-seeds asks; none is none.
func TestGenSeedsInThePlan(t *testing.T) {
	requireVulkan(t)
	list := func(args ...string) []string {
		t.Helper()
		code, stdout, stderr := runCLI(append([]string{"list", "-sizes", "4,8"}, args...)...)
		if code != exitOK {
			t.Fatalf("list %v: exit %d: %s", args, code, stderr)
		}
		return genNames(strings.Split(strings.TrimSpace(stdout), "\n"))
	}
	if got, want := list("-stages", "compute", "-api", "vulkan"), wantGenNames(pass.DefaultGenSeeds(), 4, 8); !slices.Equal(got, want) {
		t.Errorf("default plan: %d gen names, want %d (seeds %v at 4 and 8)", len(got), len(want), pass.DefaultGenSeeds())
	}
	if got := list("-ops", "^WaveActiveSum$"); len(got) != 0 {
		t.Errorf("-ops: %d gen names, want none", len(got))
	}
	if got := list("-stages", "compute", "-gen-seeds", "none"); len(got) != 0 {
		t.Errorf("-gen-seeds none: %d gen names", len(got))
	}
	if got, want := list("-ops", "^WaveActiveSum$", "-gen-seeds", "3,1-2,9"), wantGenNames([]uint64{1, 2, 3, 9}, 4, 8); !slices.Equal(got, want) {
		t.Errorf("-gen-seeds 3,1-2,9: %v, want %v", got, want)
	}
	for _, bad := range []string{"x", "5-2", "1-", "-3", "1-100000"} {
		for _, args := range [][]string{{"list"}, {"run", "-out", t.TempDir()}} {
			if code, _, stderr := runCLI(append(args, "-gen-seeds", bad)...); code != exitUsage || !strings.Contains(stderr, "-gen-seeds") {
				t.Errorf("%s -gen-seeds %q: exit %d, %q", args[0], bad, code, stderr)
			}
		}
	}
}

// genRun runs (with cli: runCLI, or the fault build's faultyCLI) the matrix's
// WaveActiveSum kernels at size 4 on Vulkan compute with -gen-seeds seeds (plus extra flags) and returns the exit status, the
// output, the gen records by seed and the run's directory; no case may be
// recorded twice.
func genRun(t *testing.T, cli func(args ...string) (int, string, string), seeds string, extra ...string) (int, string, map[uint64]results.Record, string) {
	t.Helper()
	out := t.TempDir()
	args := append([]string{"run", "-ops", "^WaveActiveSum$", "-sizes", "4", "-api", "vulkan", "-stages", "compute", "-compilers", "ours",
		"-gen-seeds", seeds, "-out", out}, extra...)
	code, stdout, stderr := cli(args...)
	caseStatuses(t, out) // no case recorded twice
	recs := map[uint64]results.Record{}
	for name, r := range readRecords(t, out) {
		if r.Op != pass.GenOp {
			continue
		}
		var seed uint64
		if _, err := fmt.Sscanf(r.Case, "gen/seed=%d", &seed); err != nil || r.Case != pass.GenCase(seed) || r.WaveSize != 4 {
			t.Errorf("%s: case %q, size %d", name, r.Case, r.WaveSize)
		}
		recs[seed] = r
	}
	return code, stdout + stderr, recs, out
}

// TestRunGenSeeds: the seeds run at the pass's size and pass under the
// device's contract; none runs none.
func TestRunGenSeeds(t *testing.T) {
	requireVulkan(t)
	code, out, recs, _ := genRun(t, runCLI, "1-20")
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if head := fmt.Sprintf("generated programs: %d seeds", len(pass.DefaultGenSeeds())); !strings.Contains(out, head) {
		t.Errorf("the run does not say %q:\n%s", head, out)
	}
	for _, s := range pass.DefaultGenSeeds() {
		r, ok := recs[s]
		if !ok || r.Status != results.Pass || r.Lanes != gen.Generate(s).Lanes() || !strings.HasSuffix(r.Reason, "contract") {
			t.Errorf("seed %d: recorded %v, %s %q, %d lanes", s, ok, r.Status, r.Reason, r.Lanes)
		}
	}
	if len(recs) != len(pass.DefaultGenSeeds()) {
		t.Errorf("%d gen records, want %d", len(recs), len(pass.DefaultGenSeeds()))
	}
	if code, out, recs, _ := genRun(t, runCLI, "none"); code != exitOK || len(recs) != 0 {
		t.Errorf("-gen-seeds none: exit %d, %d gen records\n%s", code, len(recs), out)
	}
}

// TestRunGenPlantedBug: an inclusive WavePrefixSum planted in the logs
// (WAVERIG_TEST_GEN_BUG, in the fault build) fails exactly the seeds whose
// lanes take a WavePrefixSum with their condition true — the same plant on
// the Go model of a device at 4 lanes says which — with the failing lanes and
// the command that reproduces it, and a repro bundle; the run exits 1.
func TestRunGenPlantedBug(t *testing.T) {
	requireVulkan(t)
	t.Setenv("WAVERIG_TEST_GEN_BUG", "inclusive-prefix")
	code, out, recs, dir := genRun(t, faultyCLI(t), "1-20", "-retries", "0")
	if code != exitUnexpected {
		t.Fatalf("exit %d, want 1\n%s", code, out)
	}
	failing := 0
	for _, s := range pass.DefaultGenSeeds() {
		p := gen.Generate(s)
		words := gen.Emulated{Size: 4}.Run(p)
		gen.PlantInclusivePrefix(p, words)
		want := results.Pass
		if len(p.Check(words, gen.Subset)) > 0 {
			want = results.Fail
			failing++
		}
		r := recs[s]
		if r.Status != want {
			t.Errorf("seed %d: %s, want %s (%s)", s, r.Status, want, r.Reason)
			continue
		}
		if want != results.Fail {
			continue
		}
		repro := fmt.Sprintf("waverig fuzz -device 0 -seed %d -n 1 -sizes 4", s)
		if !strings.Contains(r.Reason, repro) || len(r.Failures) == 0 || !strings.Contains(r.Failures[0].Actual, "WavePrefixSum") || r.Failures[0].Expected == "" {
			t.Errorf("seed %d: reason %q, %d failing lanes (first %+v)", s, r.Reason, len(r.Failures), r.Failures)
		}
		// The bundle: the program and the README naming the seed to re-run.
		bundle := filepath.Join(dir, results.ReproDir, fmt.Sprintf("gen-seed%d.vulkan.ours.wave4", s))
		if readme := fileText(t, filepath.Join(bundle, "README.md")); !strings.Contains(readme, fmt.Sprintf("waverig fuzz -seed %d -n 1", s)) {
			t.Errorf("seed %d: README.md:\n%s", s, readme)
		}
		if prog := fileText(t, filepath.Join(bundle, "program.hlsl")); prog != gen.Generate(s).HLSL() {
			t.Errorf("seed %d: program.hlsl is not the seed's program", s)
		}
	}
	if failing == 0 {
		t.Fatal("the plant fails no seed of 1-20 on the model: the test tests nothing")
	}
}

// TestRunGenSeedResumes: a child that hangs in a seed (WAVERIG_TEST_HANG, in
// the fault build) is killed by the
// watchdog; the seed is a Timeout record and a new child goes on with the
// next seed, no kernel or seed recorded twice (genRun checks).
func TestRunGenSeedResumes(t *testing.T) {
	requireVulkan(t)
	t.Setenv("WAVERIG_TEST_HANG", "^gen/seed=2$")
	code, out, recs, _ := genRun(t, faultyCLI(t), "1-4", "-kernel-timeout", "3s")
	if code != exitUnexpected {
		t.Fatalf("exit %d, want 1\n%s", code, out)
	}
	for _, s := range []uint64{1, 2, 3, 4} {
		want := results.Pass
		if s == 2 {
			want = results.Timeout
		}
		if r := recs[s]; r.Status != want {
			t.Errorf("seed %d: %s, want %s (%s)", s, r.Status, want, r.Reason)
		}
	}
	if r := recs[2]; !strings.Contains(r.Reason, "did not finish within 3s") {
		t.Errorf("seed 2: %q", r.Reason)
	}
}
