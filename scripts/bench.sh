#!/usr/bin/env bash
# bench.sh — every speed number of the project in one run, as markdown tables on
# stdout (docs/performance.md keeps them with the machine they were taken on):
#   1. compile throughput in-process (go test -bench over the compiler),
#   2. whole-process compile against glslangValidator (scripts/bench-compile.sh:
#      one process per file, and batched),
#   3. the rig on the default device: for each API and each wave size of the
#      plan, cases, wall time with cold caches (a fresh XDG_CACHE_HOME: glslang's
#      outputs, Mesa's shader cache) and warm (the same again), cases per second
#      and pipelines created; the default run cold and warm with the size of its
#      output directory,
#   4. the test suite next to it: scripts/test.sh (the pre-merge tier CI runs)
#      with each step's time (SKIP_TESTS=1 leaves it out).
# Extra arguments go to every `waverig run` (e.g. -ops WaveActiveSum for a quick
# look). Nothing here is a pass/fail check: it measures.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /usr/local/go/bin/go ] && export PATH=/usr/local/go/bin:$PATH
./scripts/setup.sh >/dev/null
./scripts/build.sh

echo "## Machine"
echo
echo "- $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB"
grep -q ' avx512f' /proc/cpuinfo && echo "- AVX-512: yes (lavapipe wave size 16 is native)" || echo "- AVX-512: no"
echo "- $(./bin/waverig devices 2>/dev/null | sed -n 's/^  *vulkan  *//p' | head -1)"
echo "- $(date -u +%Y-%m-%d), waverig $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
echo

echo "## Compile, in process (go test -bench ./compiler)"
echo
echo '```'
go test ./compiler -run '^$' -bench . -benchtime 2s 2>/dev/null | grep -E '^Benchmark'
echo '```'
echo

echo "## Compile, whole process (scripts/bench-compile.sh)"
echo
echo '```'
./scripts/bench-compile.sh 2>/dev/null | tail -n 6
echo '```'
echo

echo "## The rig on the default device"
echo
# The plan's wave sizes, from the run's own header ("wave sizes 4, 8, 16").
sizes=$(./bin/waverig run -api vulkan -ops '^WaveGetLaneCount$' -out "$(mktemp -d)" 2>/dev/null | sed -n 's/.*wave sizes \(.*\)$/\1/p' | tr -d ' ')
echo "| API | wave size | cases | cold s | warm s | cases/s (warm) | pipelines |"
echo "|---|---|---|---|---|---|---|"
# run API SIZE: prints "cases seconds pipelines" of one run (from its summary line).
run() {
  local out line
  out=$(mktemp -d)
  line=$(./bin/waverig run -api "$1" -sizes "$2" -out "$out" "${@:3}" 2>/dev/null | awk '$1=="total"{print $2, $9, $8}')
  rm -rf "$out"
  echo "$line"
}
for api in vulkan webgpu; do
  for s in ${sizes//,/ }; do
    cold_home=$(mktemp -d)
    read -r cases cold pipes < <(XDG_CACHE_HOME=$cold_home run "$api" "$s" "$@")
    read -r _ warm _ < <(XDG_CACHE_HOME=$cold_home run "$api" "$s" "$@")
    rm -rf "$cold_home"
    rate=$(awk -v c="$cases" -v t="$warm" 'BEGIN{ if (t > 0) printf "%.0f", c/t; else print "-" }')
    echo "| $api | $s | $cases | $cold | $warm | $rate | $pipes |"
  done
done
echo
echo "Everything at once (the default run: every API, every size, both compilers):"
echo
cold_home=$(mktemp -d)
cold_out=$(mktemp -d)
start=$(date +%s%N)
XDG_CACHE_HOME=$cold_home ./bin/waverig run -out "$cold_out" "$@" >/dev/null 2>&1 || true
mid=$(date +%s%N)
XDG_CACHE_HOME=$cold_home ./bin/waverig run -out "$(mktemp -d)" "$@" >/dev/null 2>&1 || true
end=$(date +%s%N)
rm -rf "$cold_home"
echo "- cold: $(( (mid - start) / 1000000 )) ms, warm: $(( (end - mid) / 1000000 )) ms"
echo "- output directory: $(du -sb "$cold_out" | awk '{printf "%.1f MB", $1/1e6}') ($(cd "$cold_out" && ls | tr '\n' ' '))"
rm -rf "$cold_out"

if [ "${SKIP_TESTS:-}" != 1 ]; then
  echo
  echo "## The test suite (scripts/test.sh: the pre-merge tier CI runs)"
  echo
  echo '```'
  start=$(date +%s)
  ./scripts/test.sh > /tmp/bench-test.$$ 2>&1 || true
  end=$(date +%s)
  grep -E '^== |passed, .* failed' /tmp/bench-test.$$ || true
  rm -f /tmp/bench-test.$$
  echo "total: $(( end - start )) s"
  echo '```'
fi
