package wgsl

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"waverig/compiler/diag"
	"waverig/compiler/ir"
	. "waverig/compiler/ir/irtest"
	"waverig/harness/webgpu"
	"waverig/internal/golden"
)

func TestMain(m *testing.M) { os.Exit(golden.Main(m, "testdata/*.wgsl")) }

// checkGolden compares src with testdata/<name>.wgsl (-update rewrites it).
func checkGolden(t *testing.T, name, src string) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name+".wgsl"), []byte(src))
}

// device returns the shared wgpu-native device, skipping the test when there
// is none locally and failing under CI (where lavapipe must be installed).
func device(t testing.TB) *webgpu.Device {
	t.Helper()
	d, err := webgpu.Shared()
	if err != nil {
		if errors.Is(err, webgpu.ErrNoAdapter) && os.Getenv("CI") == "" {
			golden.Skipf(t, "wgpu-native cannot start here: %v", err)
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

// emitValid checks the module against ir's invariants, emits the entry in a
// dialect, checks it against its golden file and validates it with wgpu-native
// (naga dialect only: that is what it parses).
func emitValid(t *testing.T, name string, m *ir.Module, dialect Dialect) *Output {
	t.Helper()
	Valid(t, m)
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
		b.WriteString(strconv.Itoa(i+1) + "\t" + l + "\n")
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
