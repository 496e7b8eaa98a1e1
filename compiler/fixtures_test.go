package compiler

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"waverig/compiler/args"
	"waverig/compiler/diag"
	"waverig/compiler/ir"
	"waverig/compiler/ir/irtest"
	"waverig/internal/golden"
)

func TestMain(m *testing.M) { os.Exit(golden.Main(m, "testdata/golden/**/*.golden")) }

const fixturesDir = "../fixtures"

// fixtureFiles returns every .hlsl under fixtures/, split into positive and negative
// (fixtures/negative/**) programs, as paths relative to fixtures/.
func fixtureFiles(t testing.TB) (pos, neg []string) {
	err := filepath.WalkDir(fixturesDir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			// Include directories hold headers, not programs.
			if d.Name() == "include" || d.Name() == "inc" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".hlsl") {
			return nil
		}
		rel, _ := filepath.Rel(fixturesDir, p)
		if strings.HasPrefix(rel, "negative"+string(filepath.Separator)) {
			neg = append(neg, rel)
		} else {
			pos = append(pos, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pos, neg
}

// fixtureOptions reads the optional first-line `// waverig-args: …` of a fixture
// with the command line's own parser; -I directories are relative to the fixture.
func fixtureOptions(t testing.TB, path string, src []byte) Options {
	list, ok := args.FixtureLine(string(src))
	if !ok {
		return Options{}
	}
	a, err := args.Parse(list)
	if err != nil {
		t.Fatalf("%s: waverig-args: %v", path, err)
	}
	for i, d := range a.IncludeDirs {
		a.IncludeDirs[i] = filepath.Join(filepath.Dir(path), d)
	}
	opts, err := OptionsFromArgs(a)
	if err != nil {
		t.Fatalf("%s: waverig-args: %v", path, err)
	}
	return opts
}

// inCI is true on the CI machine, where a missing external tool is a failure, not a skip.
func inCI() bool { return os.Getenv("CI") != "" }

func needTool(t testing.TB, name string) string {
	p, err := exec.LookPath(name)
	if err != nil {
		if inCI() {
			t.Fatalf("%s is required in CI but not installed (apt-get install spirv-tools glslang-tools)", name)
		}
		golden.Skipf(t, "%s not installed: %v", name, err)
	}
	return p
}

// TestPositiveFixtures compiles every positive fixture to every target (or to the
// targets its waverig-args line names with -target, for programs a target cannot
// express, such as IsHelperLane in a pixel shader for WGSL), validates each SPIR-V
// module with spirv-val, and compares IR dumps, SPIR-V disassembly, WGSL, MSL and
// reflection with the golden files.
func TestPositiveFixtures(t *testing.T) {
	pos, _ := fixtureFiles(t)
	if len(pos) < 50 {
		t.Fatalf("only %d positive fixtures found", len(pos))
	}
	spirvVal := needTool(t, "spirv-val")
	spirvDis := needTool(t, "spirv-dis")
	for _, rel := range pos {
		rel := rel
		t.Run(filepath.ToSlash(rel), func(t *testing.T) {
			path := filepath.Join(fixturesDir, rel)
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			opts := fixtureOptions(t, path, src)
			if len(opts.Targets) == 0 {
				opts.Targets = []Target{SPIRV, WGSL, MSL}
			}
			wants := func(t Target) bool {
				for _, x := range opts.Targets {
					if x == t {
						return true
					}
				}
				return false
			}
			if !wants(SPIRV) {
				t.Fatal("a positive fixture's -target list must include spirv (every module is checked by spirv-val)")
			}
			res, err := CompileFile(path, opts)
			if err != nil {
				t.Fatalf("compile failed:\n%s", res.Render())
			}
			irtest.Valid(t, res.Module)
			if len(res.Reflection.EntryPoints) == 0 {
				t.Fatal("no entry points")
			}
			env := "vulkan1.2"
			if opts.Vulkan != "" {
				env = "vulkan" + opts.Vulkan
			}
			var out strings.Builder
			fmt.Fprintf(&out, "=== IR\n%s", irDump(res))
			for _, ep := range res.Reflection.EntryPoints {
				spv := res.Find(ep.Name, SPIRV)
				f := filepath.Join(t.TempDir(), ep.Name+".spv")
				os.WriteFile(f, spv, 0o644)
				if out, err := exec.Command(spirvVal, "--target-env", env, f).CombinedOutput(); err != nil {
					if ext, old := validatorPredates(ep.Extensions, out); old {
						// Validate the rest of the module: without the declarations and
						// execution modes of the newer extensions (all that
						// [WaveOpsIncludeHelperLanes] adds) it must be valid. A module
						// using a newer instruction (QuadAnyKHR) stays unvalidated.
						g := filepath.Join(t.TempDir(), ep.Name+".older.spv")
						os.WriteFile(g, withoutNewer(spv), 0o644)
						if out2, err := exec.Command(spirvVal, "--target-env", env, g).CombinedOutput(); err == nil {
							t.Logf("spirv-val predates %s; %s validated without its %s declarations and execution modes", ext, ep.Name, strings.Join(ep.Extensions, ", "))
						} else if strings.Contains(string(out2), "Invalid opcode") {
							t.Logf("spirv-val predates %s (%s); %s not validated", ext, strings.TrimSpace(string(out)), ep.Name)
						} else {
							dis, _ := exec.Command(spirvDis, g).CombinedOutput()
							t.Fatalf("spirv-val --target-env %s rejects %s without its newer extensions:\n%s\n%s", env, ep.Name, out2, dis)
						}
					} else {
						dis, _ := exec.Command(spirvDis, f).CombinedOutput()
						t.Fatalf("spirv-val --target-env %s rejects %s:\n%s\n%s", env, ep.Name, out, dis)
					}
				}
				var dis []byte
				if declaresNewer(ep.Extensions) {
					// spirv-dis may predate the extension: a listing that does not depend on it.
					dis = wordListing(spv)
				} else if dis, err = exec.Command(spirvDis, "--no-header", f).CombinedOutput(); err != nil {
					t.Fatalf("spirv-dis: %v\n%s", err, dis)
				}
				js, _ := json.MarshalIndent(ep, "", "  ")
				fmt.Fprintf(&out, "=== %s reflection\n%s\n%s\n", ep.Name, ep.Line(), js)
				fmt.Fprintf(&out, "=== %s spirv\n%s", ep.Name, dis)
				if wants(WGSL) {
					fmt.Fprintf(&out, "=== %s wgsl\n%s", ep.Name, res.Find(ep.Name, WGSL))
				}
				if wants(MSL) {
					fmt.Fprintf(&out, "=== %s msl\n%s", ep.Name, res.Find(ep.Name, MSL))
				}
			}
			golden.Check(t, filepath.Join("testdata", "golden", strings.TrimSuffix(rel, ".hlsl")+".golden"), []byte(out.String()))
		})
	}
}

// newerThanValidator lists extensions newer than some spirv-val builds in use
// (SPIRV-Tools 2023.1 has neither SPV_KHR_quad_control nor
// SPV_KHR_maximal_reconvergence), with the operand such a validator reports as
// unknown: QuadControlKHR 5087, or (a module declaring both, for
// [WaveOpsIncludeHelperLanes], trips on the capability first) the execution mode
// MaximallyReconvergesKHR 6023.
var newerThanValidator = map[string]string{
	"SPV_KHR_quad_control":          "Invalid capability operand: 5087",
	"SPV_KHR_maximal_reconvergence": "Invalid execution mode operand: 6023",
}

// validatorPredates reports whether spirv-val rejected a module only because it
// does not know an extension the module declares (then the module is not
// validated on this machine; a newer spirv-val validates it).
func validatorPredates(exts []string, out []byte) (string, bool) {
	for _, e := range exts {
		if msg, ok := newerThanValidator[e]; ok && strings.Contains(string(out), msg) {
			return e, true
		}
	}
	return "", false
}

func declaresNewer(exts []string) bool {
	for _, e := range exts {
		if _, ok := newerThanValidator[e]; ok {
			return true
		}
	}
	return false
}

// newerModes are the execution modes of newerThanValidator's extensions:
// RequireFullQuadsKHR 5089 and MaximallyReconvergesKHR 6023.
var newerModes = map[uint32]bool{5089: true, 6023: true}

// withoutNewer returns a copy of a module without what only a newer spirv-val
// knows: OpCapability QuadControlKHR (5087), OpExtension of newerThanValidator's
// extensions and OpExecutionMode of newerModes.
func withoutNewer(spv []byte) []byte {
	out := append([]byte(nil), spv[:min(len(spv), 20)]...)
	word := func(i int) uint32 {
		return uint32(spv[4*i]) | uint32(spv[4*i+1])<<8 | uint32(spv[4*i+2])<<16 | uint32(spv[4*i+3])<<24
	}
	n := len(spv) / 4
	for i := 5; i < n; {
		w := word(i)
		cnt := int(w >> 16)
		if cnt == 0 || i+cnt > n {
			return spv
		}
		drop := false
		switch w & 0xffff {
		case 17: // OpCapability
			drop = word(i+1) == 5087
		case 10: // OpExtension
			name := strings.TrimRight(string(spv[4*(i+1):4*(i+cnt)]), "\x00")
			_, drop = newerThanValidator[name]
		case 16: // OpExecutionMode
			drop = cnt >= 3 && newerModes[word(i+2)]
		}
		if !drop {
			out = append(out, spv[4*i:4*(i+cnt)]...)
		}
		i += cnt
	}
	return out
}

// wordListing lists a module one instruction a line (opcode, then operand words),
// for modules spirv-dis may not know.
func wordListing(spv []byte) []byte {
	var b strings.Builder
	b.WriteString("; instruction words (opcode: operands), not disassembled\n")
	w := make([]uint32, len(spv)/4)
	for i := range w {
		w[i] = uint32(spv[4*i]) | uint32(spv[4*i+1])<<8 | uint32(spv[4*i+2])<<16 | uint32(spv[4*i+3])<<24
	}
	for i := 5; i < len(w); {
		n := int(w[i] >> 16)
		if n == 0 || i+n > len(w) {
			fmt.Fprintf(&b, "; bad word count at word %d\n", i)
			break
		}
		fmt.Fprintf(&b, "%d:", w[i]&0xffff)
		for _, x := range w[i+1 : i+n] {
			fmt.Fprintf(&b, " %d", x)
		}
		b.WriteString("\n")
		i += n
	}
	return []byte(b.String())
}

func irDump(res *Result) string {
	if res.Module == nil {
		return ""
	}
	return ir.Dump(res.Module)
}

// expectation is one `/* ERROR CODE "regexp" */` comment of a negative fixture.
type expectation struct {
	file  string
	line  int // 0 for ERROR-FILE
	col   int // column of the comment
	code  string
	re    *regexp.Regexp
	found bool
}

var errorComment = regexp.MustCompile(`/\*\s*(ERROR|ERROR-FILE|WARNING)\s+([EW]\d{4})\s+"((?:[^"\\]|\\.)*)"\s*\*/`)

func parseExpectations(t *testing.T, path string, src string) []*expectation {
	var exps []*expectation
	for i, line := range strings.Split(src, "\n") {
		for _, m := range errorComment.FindAllStringSubmatchIndex(line, -1) {
			kind := line[m[2]:m[3]]
			code := line[m[4]:m[5]]
			re, err := regexp.Compile(line[m[6]:m[7]])
			if err != nil {
				t.Fatalf("%s:%d: bad regexp in expectation: %v", path, i+1, err)
			}
			e := &expectation{file: path, line: i + 1, col: m[0] + 1, code: code, re: re}
			if kind == "ERROR-FILE" {
				e.line = 0
			}
			exps = append(exps, e)
		}
	}
	return exps
}

// TestNegativeFixtures checks, go/types style, that every expected diagnostic
// written next to the offending token is reported (same line, a column before the
// comment, same code, matching message) and that no unexpected error appears.
func TestNegativeFixtures(t *testing.T) {
	_, neg := fixtureFiles(t)
	if len(neg) < 50 {
		t.Errorf("only %d negative fixtures (want at least 50)", len(neg))
	}
	for _, rel := range neg {
		rel := rel
		t.Run(filepath.ToSlash(rel), func(t *testing.T) {
			path := filepath.Join(fixturesDir, rel)
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			exps := parseExpectations(t, path, string(src))
			if len(exps) == 0 {
				t.Fatal("negative fixture without an ERROR expectation")
			}
			opts := fixtureOptions(t, path, src)
			res, _ := CompileFile(path, opts)
			abs, _ := filepath.Abs(path)
			var unexpected []string
			for _, m := range res.Diagnostics {
				matched := false
				for _, e := range exps {
					if string(m.Code) != e.code || !e.re.MatchString(m.Text) {
						continue
					}
					if e.line == 0 {
						e.found, matched = true, true
						break
					}
					if m.Pos.Src == nil {
						continue
					}
					mp, _ := filepath.Abs(m.Pos.Src.Path)
					line, col := m.Pos.Src.LineCol(m.Pos.Off)
					if mp == abs && line == e.line && col < e.col {
						e.found, matched = true, true
						break
					}
				}
				if !matched && m.Severity == diag.Error {
					unexpected = append(unexpected, m.String())
				}
			}
			for _, e := range exps {
				if !e.found {
					t.Errorf("%s:%d: expected %s matching %q, got:\n%s", rel, e.line, e.code, e.re, res.Render())
				}
			}
			if len(unexpected) > 0 {
				t.Errorf("unexpected errors:\n%s", strings.Join(unexpected, "\n"))
			}
		})
	}
}

// TestDiagnosticsDoc keeps docs/diagnostics.md equal to the code registry.
func TestDiagnosticsDoc(t *testing.T) {
	golden.Check(t, filepath.Join("..", "docs", "diagnostics.md"), []byte(DiagnosticsMarkdown()))
	for _, c := range diag.All() {
		if c.Title == "" {
			t.Errorf("code %s has no title", c.Code)
		}
	}
}
