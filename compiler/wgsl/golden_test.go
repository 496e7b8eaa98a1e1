package wgsl

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"waverig/compiler/diag"
	"waverig/compiler/ir"
	"waverig/harness/webgpu"
)

// update rewrites the golden files: go test ./compiler/wgsl -update
var update = flag.Bool("update", false, "rewrite testdata/*.wgsl golden files")

// checkGolden compares src with testdata/<name>.wgsl (or rewrites it with -update).
func checkGolden(t *testing.T, name, src string) {
	t.Helper()
	path := filepath.Join("testdata", name+".wgsl")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./compiler/wgsl -update to create it)", err)
	}
	if string(want) != src {
		t.Errorf("%s differs from the emitted WGSL (go test ./compiler/wgsl -update refreshes it):\n%s", path, diffLines(string(want), src))
	}
}

// diffLines shows the first differing lines.
func diffLines(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			b.WriteString("line " + itoa(i+1) + ":\n  want: " + wl + "\n  got:  " + gl + "\n")
			if shown++; shown == 5 {
				break
			}
		}
	}
	return b.String()
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var d []byte
	for ; i > 0; i /= 10 {
		d = append([]byte{byte('0' + i%10)}, d...)
	}
	return string(d)
}

// device returns the shared wgpu-native device, skipping the test when there
// is none locally and failing under CI (where lavapipe must be installed).
func device(t testing.TB) *webgpu.Device {
	t.Helper()
	d, err := webgpu.Shared()
	if err != nil {
		if errors.Is(err, webgpu.ErrNoAdapter) && os.Getenv("CI") == "" {
			t.Skipf("wgpu-native cannot start here: %v", err)
		}
		t.Fatalf("wgpu-native: %v", err)
	}
	return d
}

func stageName(s ir.Stage) string {
	switch s {
	case ir.Pixel:
		return "pixel"
	case ir.Vertex:
		return "vertex"
	}
	return "compute"
}

// emitValid emits the entry in a dialect, checks it against its golden file
// and validates it with wgpu-native (naga dialect only: that is what it parses).
func emitValid(t *testing.T, name string, m *ir.Module, dialect Dialect) *Output {
	t.Helper()
	ep := m.EntryPoints[0]
	out, err := EmitEntry(m, ep, Options{Dialect: dialect})
	if err != nil {
		t.Fatalf("EmitEntry: %v\nIR:\n%s", err, ir.Dump(m))
	}
	checkGolden(t, name, out.Source)
	if dialect == Naga {
		d := device(t)
		if err := d.Validate(out.Source, stageName(ep.Stage), ep.Name); err != nil {
			t.Fatalf("wgpu-native rejects the output: %v\n%s", err, numbered(out.Source))
		}
	}
	return out
}

func numbered(src string) string {
	var b strings.Builder
	for i, l := range strings.Split(src, "\n") {
		b.WriteString(itoa(i+1) + "\t" + l + "\n")
	}
	return b.String()
}

// codes returns the diagnostic codes of an error.
func codes(err error) []diag.Code {
	var de *diag.Errors
	if !errors.As(err, &de) {
		return nil
	}
	var out []diag.Code
	for _, m := range de.Msgs {
		out = append(out, m.Code)
	}
	return out
}

func hasCode(err error, c diag.Code) bool {
	for _, got := range codes(err) {
		if got == c {
			return true
		}
	}
	return false
}
