package wgsl

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"waverig/compiler/diag"
	"waverig/compiler/ir"
	. "waverig/compiler/ir/irtest"
	"waverig/devices/icd"
	"waverig/harness/dawn"
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
	// Every golden source's standard-dialect WGSL goes through Tint (Dawn),
	// the compiler browsers use, whichever dialect the golden file keeps.
	std := out
	if dialect != Standard {
		if std, err = EmitEntry(m, ep, Options{Dialect: Standard}); err != nil {
			// What only the naga dialect can say (push constants: E0603) is
			// a coded error of the standard one, not a module to check.
			for _, c := range codes(err) {
				if strings.HasPrefix(string(c), "E06") && c != diag.ErrWGSLInternal {
					return out
				}
			}
			t.Fatalf("EmitEntry (standard): %v", err)
		}
	}
	if d := tint(t); d != nil {
		if err := d.Validate(std.Source); err != nil {
			t.Errorf("Tint rejects the standard dialect: %v\n%s", err, numbered(std.Source))
		}
	}
	return out
}

var tintDevice = sync.OnceValues(func() (*dawn.Device, error) {
	icd.Configure()
	if why := dawn.Available(); why != "" {
		return nil, errors.New(why)
	}
	// Tint validates without running anything, but a module that enables f16
	// needs a device with shader-f16: the first adapter that has it.
	adapters, err := dawn.Adapters()
	if err != nil {
		return nil, err
	}
	name := ""
	for _, a := range adapters {
		if slices.Contains(a.Features, "shader-f16") {
			name = a.Name
			break
		}
	}
	return dawn.Open(name, io.Discard)
})

// tint returns a shared Dawn device for Tint's verdicts on the standard
// dialect, or nil (the check skipped, said once per test) where Dawn is not
// installed — except under WAVERIG_REQUIRE_DRIVERS (CI), where that fails.
func tint(t testing.TB) *dawn.Device {
	t.Helper()
	d, err := tintDevice()
	if err != nil {
		if os.Getenv(icd.RequireEnv) != "" {
			t.Fatalf("Tint (Dawn) is required here: %v", err)
		}
		t.Logf("no Tint check of the standard dialect: %v", err)
		return nil
	}
	return d
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
