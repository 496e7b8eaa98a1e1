package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"waverig/devices"
	"waverig/harness/results"
)

// `waverig run -validation`: every process of the run (the run itself and each
// child) enables the Khronos validation layer on its own Vulkan instance
// (devices.ValidationDirEnv) and logs to a file of its own in a scratch
// directory; after the run the logs that say anything are moved into the run
// directory's validation/ and counted. Any message fails the run: it is about
// waverig's own use of Vulkan (wgpu-native's instance is not validated).

// startValidation makes the scratch directory and sets the variable every
// process of the run inherits. It must run before the first devices call.
func startValidation() (string, error) {
	dir, err := os.MkdirTemp("", "waverig-validation-")
	if err != nil {
		return "", err
	}
	return dir, os.Setenv(devices.ValidationDirEnv, dir)
}

// finishValidation counts the messages of every process's log, moves the
// non-empty logs to OUT/validation/ and removes the scratch directory.
func finishValidation(scratch, outDir string) (*results.ValidationSummary, error) {
	defer os.RemoveAll(scratch)
	sum := &results.ValidationSummary{Layer: devices.ValidationLayer, ByID: map[string]int{}}
	if d, err := devices.ValidationAvailable(); err == nil {
		sum.Layer = d // with its version: which of the installed layers ran
	}
	logs, err := filepath.Glob(filepath.Join(scratch, "*.log"))
	if err != nil {
		return nil, err
	}
	settings, _ := filepath.Glob(filepath.Join(scratch, "settings-*"))
	sum.Processes = len(settings)
	dest := filepath.Join(outDir, results.ValidationDir)
	for _, p := range logs {
		n, err := devices.CountValidationMessages(p, sum.ByID)
		if err != nil {
			return nil, err
		}
		sum.Messages += n
		if st, err := os.Stat(p); err != nil || st.Size() == 0 {
			continue
		}
		if err := os.MkdirAll(dest, 0o755); err != nil {
			return nil, err
		}
		if err := moveFile(p, filepath.Join(dest, "pid-"+filepath.Base(p))); err != nil {
			return nil, err
		}
	}
	return sum, nil
}

// moveFile renames, or copies across file systems (/tmp may be another one).
func moveFile(from, to string) error {
	if os.Rename(from, to) == nil {
		return nil
	}
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// printValidation is the summary's line (and the top message ids when any).
func printValidation(w io.Writer, v *results.ValidationSummary, outDir string) {
	if v.Messages == 0 {
		fmt.Fprintf(w, "validation: %s loaded in %d processes, 0 messages\n", v.Layer, v.Processes)
		return
	}
	fmt.Fprintf(w, "validation: %s loaded in %d processes, %d messages (logs in %s):\n", v.Layer, v.Processes, v.Messages, filepath.Join(outDir, results.ValidationDir))
	ids := make([]string, 0, len(v.ByID))
	for id := range v.ByID {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		if v.ByID[ids[i]] != v.ByID[ids[j]] {
			return v.ByID[ids[i]] > v.ByID[ids[j]]
		}
		return ids[i] < ids[j]
	})
	if len(ids) > 10 {
		ids = ids[:10]
	}
	for _, id := range ids {
		fmt.Fprintf(w, "  %6d  %s\n", v.ByID[id], strings.TrimSpace(id))
	}
}
