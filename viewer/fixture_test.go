package viewer

import (
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"waverig/harness/results"
)

// The fixture's run: three operations on Vulkan compute at sizes 4 and 8,
// WebGPU compute (observed size) and Vulkan pixel at 8, with one planted
// unexpected failure (WavePrefixSum, Vulkan compute, wave 8), a known one, an
// improvement, a flake, a parity difference, skips, and a known failing pixel case
// whose repro bundle holds two PNGs.
const (
	plantedOp   = "WavePrefixSum"
	pixelKernel = "ps_WaveActiveSum"
)

var (
	plantedCol = Column{results.Vulkan, results.Compute, 8}
	// The bundle's pictures: flat colours, so a test can find them in a frame.
	bundleExpected = color.RGBA{0x10, 0x80, 0xf0, 0xff}
	bundleActual   = color.RGBA{0xf0, 0x40, 0x90, 0xff}
)

func fixtureRecords() []results.Record {
	rec := func(op string, col Column, status string) results.Record {
		return results.Record{Case: op + "/uint/all/8x1", Op: op, Type: "uint", Pattern: "all", Shape: "8x1",
			WaveSize: col.Size, API: col.API, Stage: col.Stage, Compiler: results.Ours,
			Device: "llvmpipe (LLVM 15.0.6, 256 bits)", Driver: "Mesa 22.3.6", Status: status, Kernel: "k_" + op}
	}
	var recs []results.Record
	cols := []Column{{results.Vulkan, results.Compute, 4}, plantedCol, {results.WebGPU, results.Compute, 0}, {results.Vulkan, results.Pixel, 8}}
	for _, op := range []string{"WaveActiveSum", "WaveReadLaneFirst", plantedOp} {
		for _, c := range cols {
			recs = append(recs, rec(op, c, results.Pass))
		}
	}
	planted := rec(plantedOp, plantedCol, results.Fail)
	planted.Case = plantedOp + "/uint/odd/8x1"
	planted.Failures = []results.LaneFailure{
		{WaveKey: 0, Lane: 3, ActiveMask: "0xff", Input: "3", Expected: "6", Actual: "7"},
		{WaveKey: 0, Lane: 5, ActiveMask: "0xff", Input: "5", Expected: "15", Actual: "16"},
		{WaveKey: 8, Lane: 2, ActiveMask: "0x0f", Input: "2", Expected: "1", Actual: "9"},
	}
	known := rec("WaveReadLaneFirst", Column{results.Vulkan, results.Compute, 4}, results.Fail)
	known.Case = "WaveReadLaneFirst/uint/odd/8x1"
	known.Known = "lavapipe.txt:3: known"
	known.Expected = results.OutcomeFail
	known.Failures = []results.LaneFailure{{WaveKey: 4, Lane: 1, ActiveMask: "0xa", Input: "1", Expected: "2", Actual: "3"}}
	// A flake (amber, selectable) and a parity difference (amber, not).
	flake := rec(plantedOp, Column{results.WebGPU, results.Compute, 0}, results.Flake)
	flake.Case = plantedOp + "/uint/odd/8x1"
	flake.Attempts = 2
	flake.Failures = []results.LaneFailure{{WaveKey: 0, Lane: 7, ActiveMask: "0xff", Input: "7", Expected: "28", Actual: "0"}}
	differs := rec("WaveActiveSum", Column{results.WebGPU, results.Compute, 0}, results.Differs)
	differs.Case = "WaveActiveSum/uint/odd/8x1"
	// A pass where the baseline names the case: improved (purple), selectable.
	improved := rec("WaveReadLaneFirst", plantedCol, results.Pass)
	improved.Case = "WaveReadLaneFirst/uint/odd/8x1"
	improved.Expected, improved.ExpectedExact = results.OutcomeFail, true
	skip := rec("WaveActiveSum", Column{results.Vulkan, results.Compute, 4}, results.Skip)
	skip.Case = "WaveActiveSum/half/all/8x1"
	skip.Reason = "shaderFloat16"
	pixel := rec("WaveActiveSum", Column{results.Vulkan, results.Pixel, 8}, results.Fail)
	pixel.Case = "WaveActiveSum/uint/tri/8x8"
	pixel.Kernel = pixelKernel
	pixel.Known = "lavapipe.txt:9: pixel"
	pixel.Expected = results.OutcomeFail
	pixel.Failures = []results.LaneFailure{{WaveKey: 0x40, Lane: 0, ActiveMask: "0x7", Input: "1", Expected: "3", Actual: "2"}}
	// A skip-only cell: a column of its own.
	onlySkip := rec("WaveReadLaneFirst", Column{results.Vulkan, results.Vertex, 8}, results.Skip)
	return append(recs, planted, known, flake, differs, improved, skip, pixel, onlySkip)
}

// writeFixture writes the fixture run into a new directory: results.jsonl and
// the pixel case's repro bundle with expected.png and actual.png.
func writeFixture(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, results.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	enc := json.NewEncoder(f)
	for _, r := range fixtureRecords() {
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	bundle := filepath.Join(dir, results.ReproDir, pixelKernel+".vulkan.ours.wave8")
	if err := os.MkdirAll(bundle, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]color.RGBA{"expected": bundleExpected, "actual": bundleActual} {
		img := image.NewRGBA(image.Rect(0, 0, 16, 16))
		fillRect(img, img.Rect, c)
		out, err := os.Create(filepath.Join(bundle, name+".png"))
		if err != nil {
			t.Fatal(err)
		}
		if err := png.Encode(out, img); err != nil {
			t.Fatal(err)
		}
		if err := out.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// loadFixture writes and loads the fixture run.
func loadFixture(t testing.TB) *Run {
	t.Helper()
	r, err := Load(writeFixture(t))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// position finds an operation's row and a column's index in a run's grid.
func position(t testing.TB, r *Run, op string, col Column) (int, int) {
	t.Helper()
	oi, ci := -1, -1
	for i, o := range r.Ops {
		if o == op {
			oi = i
		}
	}
	for i, c := range r.Cols {
		if c == col {
			ci = i
		}
	}
	if oi < 0 || ci < 0 {
		t.Fatalf("no cell %s / %v in the grid (ops %v, columns %v)", op, col, r.Ops, r.Cols)
	}
	return oi, ci
}
