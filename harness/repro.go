package harness

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"waverig/harness/kernels"
	"waverig/harness/results"
)

// writeRepro writes a bundle someone can take to a driver team: the kernel, the
// module that ran, the failing records and how to run it again. Each file is
// written atomically; the first failure is returned (the run reports it).
func (r *Rig) writeRepro(k kernels.Kernel, t target, size uint32, failed []results.Record) error {
	comp := t.comp
	dir := filepath.Join(r.cfg.ReproDir, fmt.Sprintf("%s.%s.%s.wave%d", k.Name, t.api, comp, size))
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
	m := r.compile(k, t)
	if m.spirv != nil {
		if err := put("kernel.spv", wordsToBytes(m.spirv)); err != nil {
			return err
		}
	}
	inspect := "spirv-dis kernel.spv"
	if m.wgsl != "" {
		if err := put("kernel.wgsl", []byte(m.wgsl)); err != nil {
			return err
		}
		inspect = "kernel.wgsl (run by wgpu-native, which translates it with naga)"
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	ops := map[string]bool{}
	for _, f := range failed {
		enc.Encode(f)
		ops[f.Op] = true
	}
	if err := put("failures.jsonl", b.Bytes()); err != nil {
		return err
	}
	var names []string
	for op := range ops {
		names = append(names, op)
	}
	sort.Strings(names)
	var text strings.Builder
	fmt.Fprintf(&text, "Repro bundle: kernel %s compiled by %s, run through %s, wave size %d, on %s (%s).\n"+
		"%d case(s) failed; per-lane records in failures.jsonl.\n\n"+
		"Re-run:   waverig run -device %q -api %s -ops '^(%s)$' -sizes %d -compilers %s\n"+
		"Inspect:  %s\n\n",
		k.Name, comp, t.api, size, r.dev.Name, DriverString(r.dev), len(failed), r.dev.Name, t.api, strings.Join(names, "|"), size, comp, inspect)
	for i, f := range failed {
		if i == 8 {
			fmt.Fprintf(&text, "… %d more in failures.jsonl\n", len(failed)-i)
			break
		}
		text.WriteString(f.Describe())
	}
	return put("README.txt", []byte(text.String()))
}
