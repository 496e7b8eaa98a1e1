package main

import (
	"fmt"
	"io"
	"path/filepath"

	"waverig/harness/report"
)

// runReport is `waverig report DIR`: rewrite the JUnit/CSV/HTML reports of a run
// from its results.jsonl (e.g. one copied back from a device machine).
func runReport(args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintln(stderr, "usage: waverig report DIR   (DIR holds results.jsonl)")
		return 2
	}
	recs, err := report.ReadJSONL(filepath.Join(args[0], "results.jsonl"))
	if err != nil {
		fmt.Fprintf(stderr, "waverig report: %v\n", err)
		return 1
	}
	if err := writeReports(args[0], args[0], recs); err != nil {
		fmt.Fprintf(stderr, "waverig report: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "%d records: wrote results.junit.xml, results.csv, report.html in %s\n", len(recs), args[0])
	return 0
}

// runDiff is `waverig diff BASELINE.jsonl NEW.jsonl`: regressions, fixes and
// changes between two runs (e.g. two driver versions). Exit 1 on regressions.
func runDiff(args []string, stdout, stderr io.Writer) int {
	if len(args) != 2 {
		fmt.Fprintln(stderr, "usage: waverig diff BASELINE.jsonl NEW.jsonl")
		return 2
	}
	before, err := report.ReadJSONL(args[0])
	if err != nil {
		fmt.Fprintf(stderr, "waverig diff: %v\n", err)
		return 2
	}
	after, err := report.ReadJSONL(args[1])
	if err != nil {
		fmt.Fprintf(stderr, "waverig diff: %v\n", err)
		return 2
	}
	d := report.Compare(before, after)
	d.WriteText(stdout, args[0], args[1])
	if len(d.Regressions) > 0 {
		return 1
	}
	return 0
}
