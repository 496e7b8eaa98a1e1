package msl

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"waverig/internal/golden"
)

func TestMain(m *testing.M) { os.Exit(golden.Main(m, "testdata/*.metal")) }

// checkGolden compares src with testdata/<name>.metal (-update rewrites it).
func checkGolden(t *testing.T, name, src string) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name+".metal"), []byte(src))
}

// requireTool finds a tool or skips the test; with CI set a missing tool fails it.
func requireTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s not found and CI is set: this check must run in CI", name)
		}
		t.Skipf("%s not found: skipping (set up %s to run this check)", name, name)
	}
	return p
}

var clangLoc = regexp.MustCompile(`^[^:]*combined\.cpp:(\d+):(\d+): (error|warning): (.*)$`)

// TestGoldensParseAsCxx runs every golden through clang++ -fsyntax-only with
// testdata/metal_stub.h. This is a syntax and name check (every MSL name we emit
// is declared, every expression is well-formed C++ over those declarations), NOT
// Metal validation: only Apple's Metal compiler can say whether Metal accepts it.
//
// All goldens go through one clang run: each file is wrapped in its own namespace
// (its #include <metal_stdlib> line dropped), and error lines map back to files.
func TestGoldensParseAsCxx(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.metal"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no goldens found: %v", err)
	}
	sort.Strings(files)
	srcs := map[string]string{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		srcs[f] = string(data)
	}
	clangCheck(t, srcs)
}

// clangCheck runs named MSL sources through one clang++ -fsyntax-only run over
// testdata/metal_stub.h and reports each error against the source it came from.
func clangCheck(t *testing.T, srcs map[string]string) {
	t.Helper()
	clang := requireTool(t, "clang++")
	var names []string
	for n := range srcs {
		names = append(names, n)
	}
	sort.Strings(names)
	var src bytes.Buffer
	type span struct {
		name  string
		start int // first line of the source in the combined file
	}
	var spans []span
	line := 1
	for i, n := range names {
		fmt.Fprintf(&src, "namespace wr_golden_%d {\n", i)
		line++
		spans = append(spans, span{n, line})
		for _, l := range strings.Split(srcs[n], "\n") {
			if strings.HasPrefix(l, "#include <metal_stdlib>") {
				l = "// " + l
			}
			src.WriteString(l)
			src.WriteByte('\n')
			line++
		}
		src.WriteString("}\n")
		line++
	}
	dir := t.TempDir()
	combined := filepath.Join(dir, "combined.cpp")
	if err := os.WriteFile(combined, src.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	stub, err := filepath.Abs(stubPath())
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(clang, "-std=c++17", "-fsyntax-only", "-Wno-unknown-attributes", "-ferror-limit=0",
		"-include", stub, "-x", "c++", combined)
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Logf("clang++ accepted %d MSL sources", len(names))
		return
	}
	// Map "combined.cpp:LINE:COL: error: …" back to the source it came from.
	n := 0
	for _, l := range strings.Split(string(out), "\n") {
		m := clangLoc.FindStringSubmatch(l)
		if m == nil || m[3] != "error" {
			continue
		}
		ln, _ := strconv.Atoi(m[1])
		where := "?"
		for _, s := range spans {
			if ln >= s.start {
				where = fmt.Sprintf("%s:%d:%s", s.name, ln-s.start+1, m[2])
			}
		}
		t.Errorf("%s: %s", where, m[4])
		if n++; n > 40 {
			break
		}
	}
	if n == 0 {
		t.Errorf("clang++ failed: %v\n%s", err, out)
	}
}

// stubPath finds testdata/metal_stub.h from this package or the msl_test fixture test.
func stubPath() string {
	return filepath.Join("testdata", "metal_stub.h")
}

// TestStubCheckIsNotVacuous makes sure the clang check can fail: a misspelled
// simd function, a wrong argument count and an undeclared type are rejected.
func TestStubCheckIsNotVacuous(t *testing.T) {
	clang := requireTool(t, "clang++")
	stub, _ := filepath.Abs(filepath.Join("testdata", "metal_stub.h"))
	good := "using namespace metal;\nkernel void k(device uint* o [[buffer(0)]], uint i [[thread_index_in_simdgroup]]) { o[i] = simd_sum(i); }\n"
	for _, c := range []struct {
		src string
		ok  bool
	}{
		{good, true},
		{strings.Replace(good, "simd_sum", "simd_summ", 1), false},
		{strings.Replace(good, "simd_sum(i)", "simd_shuffle(i)", 1), false},
		{strings.Replace(good, "device uint*", "device uint5*", 1), false},
		// The Metal 3 names: a void primitive type has no set_primitive, the grid's setter is spelled exactly.
		{"using namespace metal;\nstruct V { float4 p [[position]]; };\n[[mesh]] void m(metal::mesh<V, void, 3, 1, metal::topology::triangle> o) { o.set_primitive_count(1); o.set_vertex(0, V{}); o.set_index(0, 0); }\n", true},
		{"using namespace metal;\nstruct V { float4 p [[position]]; };\n[[mesh]] void m(metal::mesh<V, void, 3, 1, metal::topology::triangle> o) { o.set_primitive(0, 1); }\n", false},
		{"using namespace metal;\n[[object]] void o(mesh_grid_properties g) { g.set_threadgroups_per_grid(uint3(1u, 1u, 1u)); }\n", true},
		{"using namespace metal;\n[[object]] void o(mesh_grid_properties g) { g.set_threadgroups(uint3(1u, 1u, 1u)); }\n", false},
	} {
		path := filepath.Join(t.TempDir(), "x.cpp")
		if err := os.WriteFile(path, []byte(c.src), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(clang, "-std=c++17", "-fsyntax-only", "-Wno-unknown-attributes", "-include", stub, "-x", "c++", path).CombinedOutput()
		if (err == nil) != c.ok {
			t.Errorf("clang accepted=%v, want %v for:\n%s\n%s", err == nil, c.ok, c.src, out)
		}
	}
}
