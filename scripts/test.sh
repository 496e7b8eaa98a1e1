#!/usr/bin/env bash
# test.sh — the test suite: unit and golden tests (go test), short fuzz runs,
# and the ginkgo suites on every Vulkan device of the machine (without a GPU:
# lavapipe 22.3.6 and 25.0.7 and SwiftShader), each driver's passes at its own
# wave size under the Vulkan validation layer.
# Ends with one plain line: "N passed, N failed".
#
# Two tiers, as Mesa's CI runs dEQP (a deterministic fraction pre-merge, all of it
# nightly):
#   scripts/test.sh                the pre-merge tier (CI, .ci/run): go test -short
#                                  (each slow test keeps a short form that still
#                                  proves its property) and the suites' CI tier
#                                  (harness/kernels/tier.go: every operation × type family ×
#                                  stage × API × wave size at least once, every
#                                  known crash, a 1/FRACTION share of the rest)
#   scripts/test.sh --full         everything: go test without -short, the whole matrix,
#                                  a minute of fuzzing per target (10 s pre-merge)
#   scripts/test.sh --fraction N   the pre-merge tier with another fraction (1 = all)
set -uo pipefail
cd "$(dirname "$0")/.."
FRACTION=10
SHORT=-short
FUZZ_DEFAULT=10s
while (($#)); do
  case "$1" in
    --full) FRACTION=1; SHORT=; FUZZ_DEFAULT=60s; shift ;;
    --fraction) FRACTION="${2:?--fraction needs a number}"; shift 2 ;;
    *) echo "usage: scripts/test.sh [--full | --fraction N]" >&2; exit 2 ;;
  esac
done
export WAVERIG_FRACTION="$FRACTION"
# gold links the ~25 cgo binaries (glslang and SPIRV-Tools are static
# libraries of ~30 MB) in a third of ld.bfd's CPU; cgo's allowlist refuses
# -fuse-ld in #cgo lines, so the scripts pass it.
if command -v ld.gold >/dev/null 2>&1 && [[ "${CGO_LDFLAGS:-}" != *-fuse-ld=* ]]; then export CGO_LDFLAGS="${CGO_LDFLAGS:--O2 -g} -fuse-ld=gold"; fi
t0=$(date +%s)
step() { echo "== $1 ($(( $(date +%s) - t0 )) s)"; }
./scripts/setup.sh || exit 1
[ -x /usr/local/go/bin/go ] && export PATH=/usr/local/go/bin:$PATH
export CI="${CI:-}"
# setup.sh just provisioned lavapipe 25 and SwiftShader: their tests fail, not skip, without them.
export WAVERIG_REQUIRE_DRIVERS=1
# Pre-merge fuzzes each target 10 s past its seed corpus (every crasher ever
# found stays in testdata/fuzz and runs first); --full fuzzes each a minute.
FUZZTIME="${FUZZTIME:-$FUZZ_DEFAULT}"
out=$(mktemp -d)
status=0

step setup-done
./scripts/build.sh || status=1
step build-done

# 1. go test over every package but the ginkgo suites (step 3 runs those through
#    the ginkgo CLI), as a JSON stream the summariser counts.
#    The two longest packages are listed first: go test starts packages in the
#    order given (two at a time on two cores), and listed alphabetically
#    harness/kernels (~210 s) began ~110 s in and ran its last minute alone.
pkgs=$(go list ./... | grep -v '/suites$')
first="waverig/harness/kernels waverig/cmd/waverig"
go test $SHORT -json -count=1 -timeout 30m $first $(printf '%s\n' $pkgs | grep -v -x -F -e waverig/harness/kernels -e waverig/cmd/waverig) > "$out/gotest.json" 2>"$out/gotest.err"
cat "$out/gotest.err" >&2
step go-test-done

# 1b. While the fuzzers run (step 2), in the background: the viewer window's
#     checks (-tags viewer: GLFW built from its C sources against the X11
#     headers setup.sh installs; vet of the tagged packages, then the tagged
#     tests: the window in a private Xvfb, its screenshot compared with the
#     frame; the view command's refusals), and the builds step 3 needs (the
#     ginkgo CLI, the suites' test binary). Fuzzing is time-boxed, so work
#     beside it costs the fuzzers executions more than wall time. Measured:
#     the ginkgo step lost ~70 s, the fuzz step gained ~55 s (the fuzzers'
#     instrumented builds share the cores), ~20 s less in all.
#     The tagged tests go to a JSON stream of their own that the summary
#     counts. Only the tagged tests run there: the package's pure-Go tests ran
#     in step 1, and one test name counted twice would let one run's pass hide
#     the other's failure.
(
  if ! go vet -tags viewer ./viewer/ ./cmd/waverig/ > "$out/viewer-vet.txt" 2>&1; then
    echo "FAIL go vet -tags viewer ./viewer/ ./cmd/waverig/" >> "$out/viewer-vet.txt"; exit 1
  fi
  go test $SHORT -json -count=1 -timeout 10m -tags viewer -run '^(TestXvfb|TestViewTagged)' ./viewer/... ./cmd/waverig/ > "$out/gotest-viewer.json" 2>"$out/gotest-viewer.err"
  exit 0
) &
viewer=$!
(
  go build -o "$out/ginkgo" github.com/onsi/ginkgo/v2/ginkgo && go test -c -o suites/suites.test ./suites
) > "$out/prebuild.txt" 2>&1 &
prebuild=$!

# 2. Short fuzz runs: the preprocessor/parser and the whole compile must not panic;
#    nor may reading a case file (exec) or a results file (report, diff, -baseline).
# fuzzonce runs one target; a run that ends only with Go's "context deadline
# exceeded" and wrote no failing input is the fuzzer stopping mid-minimisation
# when -fuzztime ran out (a known Go fuzzing quirk), not a finding: it is run once
# more. A crasher (testdata/fuzz/… written) always fails.
fuzzonce() {
  go test "$1" -run '^$' -fuzz "^$2\$" -fuzztime "$FUZZTIME" -fuzzminimizetime 5s > "$out/fuzz-$2.txt" 2>&1 && return 0
  if grep -q 'context deadline exceeded' "$out/fuzz-$2.txt" && ! grep -q 'Failing input written' "$out/fuzz-$2.txt"; then
    echo "note fuzz $2: stopped mid-minimisation at the deadline, run again"
    go test "$1" -run '^$' -fuzz "^$2\$" -fuzztime "$FUZZTIME" -fuzzminimizetime 5s > "$out/fuzz-$2.txt" 2>&1 && return 0
  fi
  return 1
}
for target in "./compiler/syntax FuzzParse" "./compiler FuzzCompile" "./harness/casefile FuzzLoadCaseFile" "./harness/results FuzzParseJSONL" "./compiler/args FuzzParse"; do
  set -- $target
  if fuzzonce "$1" "$2"; then
    echo "ok   fuzz $2 ($FUZZTIME)"; echo "PASS fuzz $2" >> "$out/fuzz.txt"
  else
    cat "$out/fuzz-$2.txt"; echo "FAIL fuzz $2" >> "$out/fuzz.txt"; status=1
  fi
done

step fuzz-done
if ! wait $viewer; then
  cat "$out/viewer-vet.txt"; status=1
fi
cat "$out/gotest-viewer.err" >&2
cat "$out/gotest-viewer.json" >> "$out/gotest.json"
if ! wait $prebuild; then
  cat "$out/prebuild.txt"; echo "FAIL building the ginkgo CLI or the suites"; status=1
fi
step prebuild-done

# 3. The ginkgo suites (real drivers: every device of the machine at every wave size
#    it offers; each family's pass at a device's own size under the validation layer).
#    Two ginkgo processes: a family's pass is one child compiling with lavapipe's
#    single-threaded LLVM at a time, so one process leaves a core idle.
#    The suite writes the summary testsummary counts ($WAVERIG_SUITE_REPORT,
#    suites/report_test.go: each spec's state, a failure's texts): ginkgo's
#    --json-report of the same specs is ~450 MB that process 1 encodes and the
#    CLI decodes and encodes again to merge.
WAVERIG_SUITE_REPORT="$out/ginkgo.json" "$out/ginkgo" --procs="${GINKGO_PROCS:-2}" suites/suites.test > "$out/ginkgo.txt" 2>&1 || status=1
rm -f suites/suites.test
tail -n 30 "$out/ginkgo.txt"
step ginkgo-done


go run ./scripts/testsummary -go "$out/gotest.json" -fuzz "$out/fuzz.txt" -ginkgo "$out/ginkgo.json" || status=1
exit $status
