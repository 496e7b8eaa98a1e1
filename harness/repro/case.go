package repro

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strings"

	"waverig/harness/casefile"
	"waverig/harness/kernels"
	"waverig/harness/plan"
	"waverig/harness/results"
)

// CaseFile is the name of a repro bundle's `waverig exec` case file.
const CaseFile = "case.json"

// reproExec is the exec part of a repro bundle: the case file, or why there is
// none, and what README.txt says about it.
type reproExec struct {
	caseJSON []byte // nil when there is no case file
	why      string // why not, when caseJSON is nil
	command  string // the exec command line
	lanes    []string
	layout   bool // some wave's layout was broken (its outputs are "any value")
}

// maxReproLanes is how many failing lanes README.txt maps to their records.
const maxReproLanes = 16

// execCase builds the case file that re-runs a failing compute kernel's one
// dispatch with `waverig exec`: kernel.hlsl, every buffer the module binds with
// its initial data, the run's wave size, and as expectation of the record
// buffer what a correct device writes for the lane layout this run observed
// (kernels.ExpectedRecords: layout words as observed, outputs the models'
// values, null where any value is right). On the device that failed, exec then
// fails on the words of the lanes that failed; on a correct device with that
// layout it passes.
func execCase(b Bundle) reproExec {
	k, size, out, failed := b.Kernel, b.Size, b.Out, b.Failed
	var x reproExec
	if k.Draw != nil || k.Stage != "" && string(k.Stage) != results.Compute {
		x.why = fmt.Sprintf("waverig exec runs compute kernels only; this is a %s kernel: use the Re-run line", k.Stage)
		return x
	}
	if out == nil || b.Binds == nil {
		x.why = "the kernel's buffers did not come back: use the Re-run line"
		return x
	}
	e, err := kernels.ExpectedRecords(k, out, size)
	if err != nil {
		x.why = "no expectation for this kernel's records (" + err.Error() + "): use the Re-run line"
		return x
	}
	x.command = execCommand(b)
	data, err := caseJSON(k, size, b.Binds, e)
	switch {
	case err != nil:
		x.why = "case.json could not be made (" + err.Error() + "): use the Re-run line"
		return x
	case len(data) > casefile.MaxFileBytes:
		x.why = fmt.Sprintf("case.json would be %.1f MiB, over exec's %d MiB case-file cap: use the Re-run line", float64(len(data))/(1<<20), casefile.MaxFileBytes>>20)
		return x
	}
	// Not parsed again here: a kernel's case file takes exec a second or two
	// to read, too long for every failing kernel of a run; the tests load
	// what caseJSON writes.
	x.caseJSON = data
	x.layout = e.BrokenWaves > 0
	n := 0
	for _, f := range failed {
		for _, lf := range f.Failures {
			if n == maxReproLanes {
				x.lanes = append(x.lanes, "… more in failures.jsonl")
				return x
			}
			n++
			at := "no record of this lane in the run's layout"
			if i := e.Find(lf.WaveKey, lf.Lane); i >= 0 {
				at = fmt.Sprintf("record %d = %s[%d..%d]", i, e.Register, i*e.Stride, (i+1)*e.Stride-1)
			}
			x.lanes = append(x.lanes, fmt.Sprintf("%s: %s, wave key %#x lane %d (expected %s, actual %s)", at, f.Case, lf.WaveKey, lf.Lane, lf.Expected, lf.Actual))
		}
	}
	return x
}

// execCommand is the exec line of a bundle: on lavapipe with the width
// that gives the run's wave size (its one size is fixed when the driver loads).
func execCommand(bd Bundle) string {
	var b strings.Builder
	if plan.IsLavapipe(bd.Device) {
		for _, w := range plan.LavapipeWidths {
			if w.Size == bd.Size {
				fmt.Fprintf(&b, "LP_NATIVE_VECTOR_WIDTH=%d ", w.Width)
			}
		}
	}
	b.WriteString("waverig exec " + CaseFile)
	if bd.API != results.Vulkan {
		b.WriteString(" -api " + bd.API)
	}
	if bd.Compiler != results.Ours {
		b.WriteString(" -compiler " + bd.CompilerSpec)
	}
	return b.String()
}

// caseJSON writes the case file (casefile.Marshal: one record per line,
// so a person can read it); casefile.Load reads it like any other case file.
func caseJSON(k kernels.Kernel, size uint32, binds func(string) bool, e kernels.RecordExpectation) ([]byte, error) {
	c := casefile.Case{Shader: "kernel.hlsl", Entry: k.Entry, Dispatch: k.Groups, SubgroupSize: size, Extensions: k.Extensions}
	for _, buf := range k.Buffers {
		if !binds(buf.Register) {
			continue // the module does not bind it, and exec refuses a buffer the shader lacks
		}
		if len(buf.Data)%4 != 0 {
			return nil, fmt.Errorf("buffer %s is %d bytes, not whole words", buf.Register, len(buf.Data))
		}
		words := make([]uint32, len(buf.Data)/4)
		for i := range words {
			words[i] = binary.LittleEndian.Uint32(buf.Data[4*i:])
		}
		// count zero-fills: trailing zero words need no data.
		last := len(words)
		for last > 0 && words[last-1] == 0 {
			last--
		}
		b := casefile.Buffer{Binding: buf.Register, Format: "uint32", Count: len(words), Data: casefile.Words(words[:last])}
		if buf.Register == e.Register {
			if len(e.Words) != len(words) {
				return nil, fmt.Errorf("record expectation of %d words for a buffer of %d", len(e.Words), len(words))
			}
			if names := kernels.RecordWordNames(); len(names) == e.Stride {
				b.Record = names
			} else {
				return nil, fmt.Errorf("records of %d words, but %d word names", e.Stride, len(names))
			}
			// expect compares its first len(expect) words: trailing "any
			// value"s are left out.
			last := len(e.Words)
			for last > 0 && !e.Defined[last-1] {
				last--
			}
			b.Expect = casefile.Words(e.Words[:last])
			for i := range b.Expect {
				if !e.Defined[i] {
					b.Expect[i] = json.RawMessage(casefile.AnyValue)
				}
			}
		}
		c.Buffers = append(c.Buffers, b)
	}
	if len(c.Buffers) == 0 {
		return nil, fmt.Errorf("the module binds none of the kernel's buffers")
	}
	return c.Marshal()
}
