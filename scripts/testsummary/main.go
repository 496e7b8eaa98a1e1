// Command testsummary reads `go test -json` output, fuzz results and a ginkgo JSON
// report and prints what failed plus one plain closing line, "N passed, N failed",
// which CI recognises (the ginkgo CLI's own summary is not recognised).
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
)

type goEvent struct {
	Action  string
	Package string
	Test    string
	Output  string
	Elapsed float64
}

type counts struct{ passed, failed, skipped int }

func main() {
	goFile := flag.String("go", "", "go test -json output")
	fuzzFile := flag.String("fuzz", "", "fuzz and other step results (lines 'PASS name' / 'FAIL name')")
	ginkgoFile := flag.String("ginkgo", "", "ginkgo --json-report file, or the suites' CI summary ($WAVERIG_SUITE_REPORT) in its format")
	flag.Parse()

	var total counts
	ok := true
	if *goFile != "" {
		c, err := readGo(*goFile, true)
		if err != nil {
			fmt.Fprintln(os.Stderr, "testsummary:", err)
			ok = false
		}
		add(&total, c)
	}
	if *fuzzFile != "" {
		c, err := readFuzz(*fuzzFile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "testsummary:", err)
			ok = false
		}
		add(&total, c)
	}
	if *ginkgoFile != "" {
		c, err := readGinkgo(*ginkgoFile, true)
		if err != nil {
			fmt.Fprintln(os.Stderr, "testsummary:", err)
			total.failed++ // a missing ginkgo report means the suites did not run
		}
		add(&total, c)
	}
	if total.skipped > 0 {
		fmt.Printf("(%d skipped, each with its reason in the output above)\n", total.skipped)
	}
	// The closing line CI reads: keep it last and plain.
	fmt.Printf("%d passed, %d failed\n", total.passed, total.failed)
	if total.failed > 0 || !ok {
		os.Exit(1)
	}
}

func add(t *counts, c counts) {
	t.passed += c.passed
	t.failed += c.failed
	t.skipped += c.skipped
}

// readGo counts leaf tests (subtests count; a parent whose subtests ran is not
// counted again) and prints the output of failed tests and the package lines.
func readGo(path string, verbose bool) (counts, error) {
	var c counts
	f, err := os.Open(path)
	if err != nil {
		return c, err
	}
	defer f.Close()
	type key struct{ pkg, test string }
	outputs := map[key][]string{}
	result := map[key]string{}
	var order []key
	pkgResult := map[string]string{}
	var pkgs []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var ev goEvent
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		k := key{ev.Package, ev.Test}
		switch ev.Action {
		case "output":
			if len(outputs[k]) < 400 {
				outputs[k] = append(outputs[k], ev.Output)
			}
		case "pass", "fail", "skip":
			if ev.Test == "" {
				if _, seen := pkgResult[ev.Package]; !seen {
					pkgs = append(pkgs, ev.Package)
				}
				pkgResult[ev.Package] = ev.Action
				continue
			}
			if _, seen := result[k]; !seen {
				order = append(order, k)
			}
			result[k] = ev.Action
		}
	}
	// A test with subtests is a parent: count only leaves.
	parent := map[key]bool{}
	for k := range result {
		if i := strings.LastIndex(k.test, "/"); i > 0 {
			parent[key{k.pkg, k.test[:i]}] = true
		}
	}
	for _, k := range order {
		if parent[k] {
			continue
		}
		switch result[k] {
		case "pass":
			c.passed++
		case "fail":
			c.failed++
			if verbose {
				fmt.Printf("--- FAIL %s %s\n%s", k.pkg, k.test, strings.Join(outputs[k], ""))
			}
		case "skip":
			c.skipped++
		}
	}
	sort.Strings(pkgs)
	for _, p := range pkgs {
		if pkgResult[p] == "fail" {
			// A package that failed to build or panicked outside a test has no failed leaf.
			hasLeafFail := false
			for k, r := range result {
				if k.pkg == p && r == "fail" {
					hasLeafFail = true
					break
				}
			}
			if !hasLeafFail {
				c.failed++
				if verbose {
					fmt.Printf("--- FAIL %s (package)\n%s", p, strings.Join(outputs[key{p, ""}], ""))
				}
			}
		}
		if verbose {
			fmt.Printf("%-4s %s\n", strings.ToUpper(pkgResult[p]), p)
		}
	}
	return c, sc.Err()
}

func readFuzz(path string) (counts, error) {
	var c counts
	data, err := os.ReadFile(path)
	if err != nil {
		return c, err
	}
	for _, l := range strings.Split(string(data), "\n") {
		switch {
		case strings.HasPrefix(l, "PASS "):
			c.passed++
		case strings.HasPrefix(l, "FAIL "):
			c.failed++
		}
	}
	return c, nil
}

// ginkgo's JSON report: a list of suites, each with SpecReports carrying State.
type ginkgoSuite struct {
	SuiteDescription string
	SuiteSucceeded   bool
	SpecReports      []struct {
		State                   string
		LeafNodeType            string
		LeafNodeText            string
		ContainerHierarchyTexts []string
		Failure                 *struct{ Message string }
	}
}

func readGinkgo(path string, verbose bool) (counts, error) {
	var c counts
	data, err := os.ReadFile(path)
	if err != nil {
		return c, err
	}
	var suites []ginkgoSuite
	if err := json.Unmarshal(data, &suites); err != nil {
		return c, err
	}
	for _, s := range suites {
		for _, r := range s.SpecReports {
			if r.LeafNodeType != "It" {
				if r.State != "passed" && r.State != "skipped" && r.State != "pending" {
					c.failed++ // a failed BeforeSuite/AfterSuite fails the run
				}
				continue
			}
			switch r.State {
			case "passed":
				c.passed++
			case "skipped", "pending":
				c.skipped++
			default:
				c.failed++
				if verbose && r.Failure != nil {
					fmt.Printf("--- FAIL [ginkgo] %s %s\n%s\n", strings.Join(r.ContainerHierarchyTexts, " "), r.LeafNodeText, r.Failure.Message)
				}
			}
		}
	}
	if verbose {
		fmt.Printf("ginkgo: %d passed, %d failed, %d skipped\n", c.passed, c.failed, c.skipped)
	}
	return c, nil
}
