package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"waverig/devices"
	"waverig/harness/expect"
	"waverig/harness/pass"
	"waverig/harness/results"
)

// `waverig list`, `run -shard` and `merge` on lavapipe: what list prints is
// what a run records, shards partition it, and two shards merged are the run.

// listFlags is the plan every test here lists and runs: small enough for a
// minute, yet every API, stage, compiler, two wave sizes, skips and known
// problems, and generated programs (which -ops turns off unless asked for).
var listFlags = []string{"-ops", "^WaveActiveSum$", "-sizes", "4,8", "-gen-seeds", "1-4"}

// caseStatuses maps each case record's test name (per device) to its status:
// what a run says, without layout and parity records.
func caseStatuses(t *testing.T, dir string) map[string]string {
	t.Helper()
	recs, truncated, err := results.ReadRunDir(dir)
	if err != nil || truncated {
		t.Fatalf("%s: %v (truncated %v)", dir, err, truncated)
	}
	out := map[string]string{}
	for _, r := range recs {
		if r.Case == results.LayoutCase || r.Status == results.Differs {
			continue
		}
		k := fmt.Sprintf("%d %s", r.DeviceIndex, r.Name())
		if _, dup := out[k]; dup {
			t.Fatalf("%s: %s recorded twice", dir, k)
		}
		out[k] = r.Status
	}
	return out
}

// listNames runs `waverig list` and returns its lines; stderr must end with
// the count.
func listNames(t *testing.T, extra ...string) []string {
	t.Helper()
	code, stdout, stderr := runCLI(append(append([]string{"list"}, listFlags...), extra...)...)
	if code != exitOK {
		t.Fatalf("list %v: exit %d: %s", extra, code, stderr)
	}
	names := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if !strings.HasSuffix(stderr, fmt.Sprintf("%d cases\n", len(names))) {
		t.Errorf("list %v: stderr %q does not end with the count %d", extra, stderr, len(names))
	}
	if !slices.IsSorted(names) {
		t.Errorf("list %v: not sorted", extra)
	}
	return names
}

// runInto runs the plan (plus extra flags) into a new directory.
func runInto(t *testing.T, dir string, extra ...string) {
	t.Helper()
	code, stdout, stderr := runCLI(append(append([]string{"run"}, listFlags...), append(extra, "-out", dir)...)...)
	if code != exitOK {
		t.Fatalf("run %v: exit %d\n%s%s", extra, code, stdout, stderr)
	}
}

func TestListShardAndMerge(t *testing.T) {
	requireVulkan(t)
	tmp := t.TempDir()
	full := filepath.Join(tmp, "full")
	runInto(t, full)
	fullStatus := caseStatuses(t, full)
	whole := listNames(t)
	if len(genNames(whole)) == 0 {
		t.Fatal("the plan has no generated program: -gen-seeds is not covered")
	}

	t.Run("list is what run records", func(t *testing.T) {
		var recorded []string
		for k := range fullStatus {
			recorded = append(recorded, strings.SplitN(k, " ", 2)[1])
		}
		slices.Sort(recorded)
		if !slices.Equal(recorded, whole) {
			t.Errorf("list: %d names, run: %d records\nonly listed: %v\nonly run: %v", len(whole), len(recorded),
				minus(whole, recorded), minus(recorded, whole))
		}
	})

	t.Run("shards partition the list", func(t *testing.T) {
		one, two := listNames(t, "-shard", "1/2"), listNames(t, "-shard", "2/2")
		if len(one) == 0 || len(two) == 0 {
			t.Fatalf("an empty shard (%d, %d): the plan is too small to test", len(one), len(two))
		}
		union := slices.Sorted(slices.Values(append(slices.Clone(one), two...)))
		if !slices.Equal(union, whole) {
			t.Errorf("1/2 ∪ 2/2 has %d names, the list %d", len(union), len(whole))
		}
		if both := minus(one, minus(one, two)); len(both) > 0 {
			t.Errorf("in both shards: %v", both[:min(5, len(both))])
		}
		if same := listNames(t, "-shard", "1/1"); !slices.Equal(same, whole) {
			t.Error("-shard 1/1 is not the whole list")
		}
	})

	a, b, merged := filepath.Join(tmp, "a"), filepath.Join(tmp, "b"), filepath.Join(tmp, "merged")
	t.Run("two shards merged are one run", func(t *testing.T) {
		runInto(t, a, "-shard", "1/2")
		runInto(t, b, "-shard", "2/2")
		for dir, want := range map[string]string{a: "1/2", b: "2/2"} {
			if s, _ := readSummary(t, dir); s.Shard != want {
				t.Errorf("%s: summary shard %q, want %q", dir, s.Shard, want)
			}
		}
		code, stdout, stderr := runCLI("merge", "-out", merged, a, b)
		if code != exitOK {
			t.Fatalf("merge: exit %d\n%s%s", code, stdout, stderr)
		}
		got := caseStatuses(t, merged)
		if !maps.Equal(got, fullStatus) {
			n := 0
			for k, v := range fullStatus {
				if got[k] != v && n < 10 {
					t.Errorf("%s: merged %q, full run %q", k, got[k], v)
					n++
				}
			}
			t.Fatalf("merged %d cases, full run %d", len(got), len(fullStatus))
		}
		ms, _ := readSummary(t, merged)
		fs, _ := readSummary(t, full)
		mt, ft := ms.Total, fs.Total
		// Counted from records, or added up over the shards; pipelines and
		// seconds are not the same (every shard builds its layout pipelines).
		mt.Pipelines, ft.Pipelines, mt.Seconds, ft.Seconds = 0, 0, 0, 0
		if mt != ft {
			t.Errorf("merged total %+v\nfull run total %+v", mt, ft)
		}
		if len(ms.Merged) != 2 || ms.Shard != "" || ms.ExitStatus != exitOK || len(ms.Sizes) != 2 || len(ms.Devices) != 1 {
			t.Errorf("merged summary: merged %v, shard %q, exit %d, %d sizes, %d devices", ms.Merged, ms.Shard, ms.ExitStatus, len(ms.Sizes), len(ms.Devices))
		}
		for _, f := range []string{results.HTMLFile, results.SummaryFile, results.CSVFile, results.JUnitFile, results.FailuresFile} {
			if _, err := os.Stat(filepath.Join(merged, f)); err != nil {
				t.Errorf("merged run lacks %s", f)
			}
		}
		// A merged run merges again (a fleet of sharded hosts).
		if code, _, stderr := runCLI("merge", "-out", filepath.Join(tmp, "again"), merged); code != exitOK {
			t.Errorf("merging a merged run: exit %d: %s", code, stderr)
		}
		// A shard missing from the inputs is said.
		if _, stdout, _ := runCLI("merge", "-out", filepath.Join(tmp, "half"), a); !strings.Contains(stdout, "shard(s) 2/2 not among the inputs") {
			t.Errorf("merge of shard 1/2 alone does not say 2/2 is missing:\n%s", stdout)
		}
	})

	t.Run("two hosts' runs of one device are two devices", func(t *testing.T) {
		h1, h2 := filepath.Join(tmp, "host1"), filepath.Join(tmp, "host2")
		copyRun(t, full, h1, "alpha")
		copyRun(t, full, h2, "beta")
		out := filepath.Join(tmp, "fleet")
		code, stdout, stderr := runCLI("merge", "-out", out, h1, h2)
		if code != exitOK || !strings.Contains(stdout, "host beta: device 0") || !strings.Contains(stdout, "is device 1 in the merged run") {
			t.Fatalf("merge of two hosts: exit %d\n%s%s", code, stdout, stderr)
		}
		got := caseStatuses(t, out)
		if len(got) != 2*len(fullStatus) {
			t.Errorf("%d cases, want twice %d", len(got), len(fullStatus))
		}
		s, _ := readSummary(t, out)
		if len(s.Devices) != 2 || s.Devices[0].Index != 0 || s.Devices[1].Index != 1 || s.Host != "alpha, beta" || s.Total.Cases != 2*len(fullStatus) {
			t.Errorf("summary: host %q, devices %+v", s.Host, s.Devices)
		}
		if s.Devices[0].Name == s.Devices[1].Name {
			t.Errorf("both devices are named %q", s.Devices[0].Name)
		}
	})

	t.Run("overlap is refused", func(t *testing.T) {
		code, _, stderr := runCLI("merge", "-out", filepath.Join(tmp, "overlap"), a, full)
		if code != exitUsage || !strings.Contains(stderr, "is in both "+a+" and "+full) || !strings.Contains(stderr, "WaveActiveSum/") {
			t.Errorf("overlap: exit %d, %q", code, stderr)
		}
	})
}

// copyRun copies a run's results file (results.jsonl.gz, as the run left it)
// and summary.json, the summary saying it ran on host.
func copyRun(t *testing.T, from, to, host string) {
	t.Helper()
	os.MkdirAll(to, 0o755)
	path, err := results.FindResults(from)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(to, filepath.Base(path)), data, 0o644)
	s, _ := readSummary(t, from)
	s.Host = host
	data, _ = json.Marshal(s)
	os.WriteFile(filepath.Join(to, results.SummaryFile), data, 0o644)
}

// minus is a without b (both sorted or not; small lists).
func minus(a, b []string) []string {
	in := map[string]bool{}
	for _, s := range b {
		in[s] = true
	}
	var out []string
	for _, s := range a {
		if !in[s] {
			out = append(out, s)
		}
	}
	return out
}

// TestMergeRefusesBadInput: what is not a finished run, or would count a case
// twice, is exit 2 with the directory named, and nothing is written.
func TestMergeRefusesBadInput(t *testing.T) {
	dir := t.TempDir()
	line := func(c, status string) string {
		return `{"case":"` + c + `","op":"WaveActiveSum","waveSize":4,"api":"vulkan","stage":"compute","compiler":"ours","device":"dev","driver":"d","status":"` + status + `"}` + "\n"
	}
	mk := func(name, jsonl string, summary bool) string {
		p := filepath.Join(dir, name)
		os.MkdirAll(p, 0o755)
		if jsonl != "" {
			os.WriteFile(filepath.Join(p, results.ResultsFile), []byte(jsonl), 0o644)
		}
		if summary {
			os.WriteFile(filepath.Join(p, results.SummaryFile), []byte(`{"device":"dev","devices":[{"index":0,"device":"dev","sizes":[{"waveSize":4,"stats":{}}]}]}`), 0o644)
		}
		return p
	}
	one := mk("one", line("WaveActiveSum/uint/all/whole", "pass"), true)
	two := mk("two", line("WaveActiveSum/uint/odd/whole", "fail"), true)
	again := mk("again", line("WaveActiveSum/uint/all/whole", "pass"), true)
	empty := mk("empty", "", true)
	cut := mk("cut", line("x", "pass")+`{"case":"y","sta`, true)
	unfinished := mk("unfinished", line("z", "pass"), false)
	out := filepath.Join(dir, "out")
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"-out", out, one, again}, []string{"vulkan/compute/WaveActiveSum/uint/all/whole/size=4", one, again, "never overlap"}},
		{[]string{"-out", out, one, empty}, []string{empty, "no results.jsonl"}},
		{[]string{"-out", out, one, cut}, []string{"cut off"}},
		{[]string{"-out", out, one, unfinished}, []string{unfinished, "summary.json", "did not finish"}},
		{[]string{"-out", out, one, one}, []string{"twice"}},
		{[]string{"-out", one, one, two}, []string{"both an input and -out"}},
		{[]string{one, two}, []string{"-out DIR is required"}},
		{[]string{"-out", out}, []string{"usage"}},
	} {
		code, _, stderr := runCLI(append([]string{"merge"}, c.args...)...)
		if code != exitUsage {
			t.Errorf("merge %v: exit %d, want 2 (%s)", c.args, code, stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("merge %v: stderr %q lacks %q", c.args, stderr, w)
			}
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("merge %v: wrote %s", c.args, out)
		}
	}
	// The two good ones merge; the failure nobody expected is exit 1.
	code, stdout, stderr := runCLI("merge", "-out", out, one, two)
	if code != exitUnexpected {
		t.Fatalf("merge: exit %d, want 1\n%s%s", code, stdout, stderr)
	}
	s, _ := readSummary(t, out)
	if s.Total.Cases != 2 || s.Total.Unexpected != 1 || s.ExitStatus != exitUnexpected || len(s.Merged) != 2 {
		t.Errorf("summary %+v", s)
	}
}

// TestListRefusesBadFlags: list checks its flags as run does.
func TestListRefusesBadFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-shard", "3/2"}, "-shard"},
		{[]string{"-shard", "x"}, "K/N"},
		{[]string{"-ops", "NoSuchOp"}, "matches no operation"},
		{[]string{"-sizes", "3"}, "power of two"},
		{[]string{"-compilers", "dxc"}, "unknown compiler"},
		{[]string{"stray"}, "argument"},
	} {
		code, stdout, stderr := runCLI(append([]string{"list"}, c.args...)...)
		if code != exitUsage || !strings.Contains(stderr, c.want) || stdout != "" {
			t.Errorf("list %v: exit %d, stderr %q (want 2 and %q)", c.args, code, stderr, c.want)
		}
	}
	if code, _, _ := runCLI("run", "-shard", "0/2"); code != exitUsage {
		t.Errorf("run -shard 0/2: exit %d, want 2", code)
	}
	for _, cmd := range []string{"list", "merge"} {
		if code, stdout, _ := runCLI(cmd, "-h"); code != exitOK || !strings.Contains(stdout, "usage") {
			t.Errorf("%s -h: exit %d, stdout %q", cmd, code, stdout)
		}
	}
}

// TestFractionIsTheCITierOfTheRun: `-fraction 10` lists a strict subset of
// the whole plan that still has every operation × type family × stage at each
// wave size and every case the built-in baseline expects to crash, and a run
// with it records exactly what list said.
func TestFractionIsTheCITierOfTheRun(t *testing.T) {
	requireVulkan(t)
	const ops = "^(WaveActiveSum|WaveReadLaneFirst|WaveActiveBallot)$"
	list := func(extra ...string) []string {
		code, stdout, stderr := runCLI(append([]string{"list", "-ops", ops, "-sizes", "4,8"}, extra...)...)
		if code != exitOK {
			t.Fatalf("list %v: exit %d: %s", extra, code, stderr)
		}
		return strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	}
	all, tier := list(), list("-fraction", "10")
	if len(tier) == 0 || len(tier) >= len(all) {
		t.Fatalf("-fraction 10 lists %d of %d cases", len(tier), len(all))
	}
	in := map[string]bool{}
	for _, n := range all {
		in[n] = true
	}
	// api/stage/op.variant/type/… /size=N: the cell every tier keeps.
	cell := func(name string) string {
		f := strings.Split(name, "/")
		op, _, _ := strings.Cut(f[2], ".")
		return strings.Join([]string{f[0], f[1], op, strings.TrimRight(f[3], "234"), f[len(f)-1]}, "/")
	}
	want, have := map[string]bool{}, map[string]bool{}
	for _, n := range all {
		want[cell(strings.TrimSuffix(n, "/compiler=glslang"))] = true
	}
	for _, n := range tier {
		if !in[n] {
			t.Fatalf("-fraction 10 lists %s, which the whole plan does not", n)
		}
		have[cell(strings.TrimSuffix(n, "/compiler=glslang"))] = true
	}
	for c := range want {
		if !have[c] {
			t.Errorf("the tier has no case of %s", c)
		}
	}
	// Every case a built-in Crash line of device 0's baseline expects is kept
	// (lavapipe 22.3.6 has such lines for glslang's 16-bit WaveReadLaneFirst).
	if ds, err := devices.Enumerate(); err == nil {
		sets, err := expect.Builtin()
		if err != nil {
			t.Fatal(err)
		}
		judge := expect.For(sets, pass.DeviceString(ds[0]))
		inTier := map[string]bool{}
		for _, n := range tier {
			inTier[n] = true
		}
		crash := 0
		for _, n := range all {
			if l := judge.Expected(n); l != nil && l.Status == results.OutcomeCrash {
				crash++
				if !inTier[n] {
					t.Errorf("the tier drops %s, which %s expects to crash", n, l.Where)
				}
			}
		}
		if strings.Contains(pass.DeviceString(ds[0]), "Mesa 22.3.6") && crash == 0 {
			t.Errorf("no case of %s is a known crash on lavapipe 22.3.6: the check above proved nothing", ops)
		}
	}
	out := t.TempDir()
	code, stdout, stderr := runCLI("run", "-ops", ops, "-sizes", "4,8", "-fraction", "10", "-out", out)
	if code != exitOK {
		t.Fatalf("run -fraction 10: exit %d\n%s%s", code, stdout, stderr)
	}
	got := caseStatuses(t, out)
	if len(got) != len(tier) {
		t.Errorf("run -fraction 10 recorded %d cases, list said %d", len(got), len(tier))
	}
}
