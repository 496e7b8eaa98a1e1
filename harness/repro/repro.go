// Package repro writes repro bundles, its one job: for a failing kernel, a
// directory a person can take to a driver team — the HLSL, the module that
// ran, the failing records, the command lines that re-run it and, for a
// compute kernel, a `waverig exec` case file that fails on the lanes that
// failed (case.go) — and, for failures a baseline already knows, at most one
// bundle per baseline line across goroutines, child processes and restarts
// (Gate). Generated programs' bundles are harness/gen's (Failed.WriteRepro);
// they pass the same Gate.
package repro

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"waverig/devices"
	"waverig/harness/kernels"
	"waverig/harness/results"
)

// Bundle is one failing kernel on one target, as the pass that ran it knows
// it.
type Bundle struct {
	Kernel kernels.Kernel
	API    string
	// Compiler is the compiler's name in records; CompilerSpec is how
	// -compilers names it (a command compiler: its command line).
	Compiler, CompilerSpec string
	Size                   uint32
	Device                 devices.Device
	Driver                 string // the records' driver (pass.DriverString)
	// The module that ran: SPIR-V (Vulkan) or WGSL (WebGPU). Binds says
	// whether it binds a register; nil when there is no module (the kernel
	// did not compile).
	SPIRV  []uint32
	WGSL   string
	Binds  func(register string) bool
	Failed []results.Record
	// Out are the buffers the dispatch gave back, by register.
	Out map[string][]byte
}

// Write writes b's bundle under dir: the kernel, the module that ran, the
// failing records, how to run it again and, for a compute kernel, case.json,
// which `waverig exec` re-runs as one dispatch that fails on the lanes that
// failed (case.go). Each file is written atomically; the first failure is
// returned (the run reports it).
//
// Only failures someone must look at get one (Gate): a kernel with an
// unexpected failure always; one whose failures a baseline knows only when it
// is the first of its baseline line.
func Write(dir string, b Bundle) error {
	k, failed, size := b.Kernel, b.Failed, b.Size
	comp := b.Compiler
	name := fmt.Sprintf("%s.%s.%s.wave%d", k.Name, b.API, comp, size)
	want, firstOf, gateErr := Gate(dir, failed, name)
	if !want {
		return nil
	}
	reproDir := dir
	dir = filepath.Join(reproDir, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("repro bundle: %w", err)
	}
	put := func(name string, data []byte) error {
		return results.WriteFileAtomic(filepath.Join(dir, name), func(w io.Writer) error {
			_, err := w.Write(data)
			return err
		})
	}
	if err := put("kernel.hlsl", []byte(k.HLSL)); err != nil {
		return err
	}
	if b.SPIRV != nil {
		if err := put("kernel.spv", wordsToBytes(b.SPIRV)); err != nil {
			return err
		}
	}
	inspect := "spirv-dis kernel.spv"
	if b.WGSL != "" {
		if err := put("kernel.wgsl", []byte(b.WGSL)); err != nil {
			return err
		}
		inspect = "kernel.wgsl (run by wgpu-native, which translates it with naga)"
	}
	var jl bytes.Buffer
	enc := json.NewEncoder(&jl)
	ops := map[string]bool{}
	for _, f := range failed {
		enc.Encode(f)
		ops[f.Op] = true
	}
	if err := put("failures.jsonl", jl.Bytes()); err != nil {
		return err
	}
	// A pixel kernel's picture: what the draw left in its colour target (the
	// viewer shows it next to the failing case).
	if k.Draw != nil && k.Draw.PixelEntry != "" {
		if img := colorPNG(b.Out[kernels.ColorTarget], k.Draw); img != nil {
			if err := put("color.png", img); err != nil {
				return err
			}
		}
	}
	var names []string
	for op := range ops {
		names = append(names, op)
	}
	sort.Strings(names)
	x := execCase(b)
	if x.caseJSON != nil {
		if err := put(CaseFile, x.caseJSON); err != nil {
			return err
		}
	}
	var text strings.Builder
	fmt.Fprintf(&text, "Repro bundle: kernel %s compiled by %s, run through %s, wave size %d, on %s (%s).\n"+
		"%d case(s) failed; per-lane records in failures.jsonl.\n\n"+
		"Re-run:   waverig run -device %q -api %s -ops '^(%s)$' -sizes %d -compilers %s\n",
		k.Name, comp, b.API, size, b.Device.Name, b.Driver, len(failed), b.Device.Name, b.API, strings.Join(names, "|"), size, b.CompilerSpec)
	if x.caseJSON != nil {
		fmt.Fprintf(&text, "Exec:     %s\n", x.command)
	} else {
		fmt.Fprintf(&text, "Exec:     none: %s\n", x.why)
	}
	fmt.Fprintf(&text, "Inspect:  %s\n\n", inspect)
	for _, known := range firstOf {
		fmt.Fprintf(&text, "Known problem: %s\nThis is the run's one bundle for that baseline line: other kernels whose failures only it\nexplains got none (results.jsonl.gz has every record).\n\n", known)
	}
	if x.caseJSON != nil {
		writeReproExecNotes(&text, x)
	}
	for i, f := range failed {
		if i == 8 {
			fmt.Fprintf(&text, "… %d more in failures.jsonl\n", len(failed)-i)
			break
		}
		text.WriteString(f.Describe())
	}
	if err := put("README.txt", []byte(text.String())); err != nil {
		return err
	}
	return gateErr
}

// writeReproExecNotes explains case.json in README.txt: what it expects, which
// records are the failing lanes, and what a mismatch in a layout word means.
func writeReproExecNotes(text *strings.Builder, x reproExec) {
	text.WriteString("case.json is this kernel's one dispatch for `waverig exec` (shader kernel.hlsl, every buffer\n" +
		"it binds with its initial data, this run's wave size). Each invocation owns a record of 24\n" +
		"words in u0 (flat, key, lane, count, arm, lanearg, ctl, coin, in0-7, out0-7); the expected\n" +
		"words are what a correct device writes for the lane layout this run observed: key, lane and\n" +
		"count as observed, the arm and outputs the models' values for it, null (any value) where\n" +
		"the models leave a lane undefined or nothing is compared (inactive lanes' outputs).\n" +
		"exec exits 1 and names each failing word, e.g. \"u0[1240] (record 51 out0): expected 7,\n" +
		"actual 9\"; on a correct device it prints ok and exits 0.\n")
	if len(x.lanes) > 0 {
		text.WriteString("The failing lanes' records:\n")
		for _, l := range x.lanes {
			text.WriteString("  " + l + "\n")
		}
	}
	text.WriteString("Mismatches in key, lane or count mean the device laid the lanes out differently from this\n" +
		"run (another device, driver or wave size): the expected outputs hold for this run's layout\n" +
		"only, so there use the Re-run line, which checks against the models afresh.\n")
	if x.layout {
		text.WriteString("Some waves' layout was already wrong in this run: only their flat ids, keys and counts are\n" +
			"expected (see the layout notes in failures.jsonl).\n")
	}
	text.WriteString("\n")
}

// KnownMarkDir (under the repro directory) holds one marker file per baseline
// line that already has its bundle (Gate).
const KnownMarkDir = ".known"

// Gate decides whether a kernel's failing records get a repro bundle
// (named bundle): yes when one of them is a failure no baseline expects
// (Verdict unexpected or improved: what a person must look at, and what a
// known line cannot explain). A failure a baseline knows already has its
// reason in the line, and a run that hits a known line hits it in hundreds of
// kernels (glslang's prefix scans: every WavePrefixSum kernel): such a kernel
// gets a bundle only if it is the first of one of its lines (firstOf lists
// those lines, for README.txt). "First" is an atomic create (O_EXCL) of the
// line's marker file in the repro directory, so it holds across the
// finisher's goroutines, across the child processes of a run (one per wave
// size, each writing into the same directory) and across a child's restarts
// after a crash. A marker that cannot be made (not because it exists) gives
// the bundle anyway, with the error: better a bundle too many than none.
func Gate(reproDir string, failed []results.Record, bundle string) (want bool, firstOf []string, err error) {
	lines := map[string]bool{}
	var order []string
	for _, f := range failed {
		switch f.Verdict() {
		case results.VerdictUnexpected, results.VerdictImproved:
			want = true
		}
		if f.Known == "" {
			// A failure no line names is never a known one.
			want = true
		} else if !lines[f.Known] {
			lines[f.Known] = true
			order = append(order, f.Known)
		}
	}
	for _, known := range order {
		first, cerr := claimKnownLine(reproDir, known, bundle)
		if cerr != nil {
			first = true
			err = errors.Join(err, cerr)
		}
		if first {
			want = true
			firstOf = append(firstOf, known)
		}
	}
	return want, firstOf, err
}

// claimKnownLine creates the marker of a baseline line (known: a record's
// Known, "file:line: reason") and says whether this call made it. The marker
// holds the line and the bundle that claimed it, for a person who looks.
func claimKnownLine(reproDir, known, bundle string) (bool, error) {
	dir := filepath.Join(reproDir, KnownMarkDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, fmt.Errorf("repro bundle: %w", err)
	}
	sum := sha256.Sum256([]byte(known))
	f, err := os.OpenFile(filepath.Join(dir, hex.EncodeToString(sum[:8])), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("repro bundle: %w", err)
	}
	_, err = fmt.Fprintf(f, "%s\nbundle: %s\n", known, bundle)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		// The line is claimed whatever the marker says.
		return true, fmt.Errorf("repro bundle: %w", err)
	}
	return true, nil
}

// wordsToBytes is a module's words as the little-endian bytes of a .spv file.
func wordsToBytes(w []uint32) []byte {
	b := make([]byte, 4*len(w))
	for i, x := range w {
		b[4*i], b[4*i+1], b[4*i+2], b[4*i+3] = byte(x), byte(x>>8), byte(x>>16), byte(x>>24)
	}
	return b
}
