#!/usr/bin/env bash
# nightly.sh — what a driver team runs every night and on every driver change
# (docs/nightly.md: systemd timer, cron line, CI job):
#
#   1. every Vulkan device (`waverig devices`), each with every API, stage and
#      wave size it offers (waverig run's default plan);
#   2. judged against the device's baseline: $WAVERIG_BASELINES/<device>/ when
#      that directory exists (fails.csv, flakes.txt, skips.txt — deqp-runner's
#      formats; a run's failures.csv is the next fails.csv), else the built-in
#      baselines; and compared with the previous night's run of the device;
#   3. the reports of each run (report.html, results.junit.xml, results.csv,
#      failures.csv, expectation.json) under $WAVERIG_RESULTS/<device>/<stamp>/,
#      and one line per device in $WAVERIG_RESULTS/<stamp>.txt;
#   4. exit status: the worst of the runs' (0 nothing unexpected, 1 a regression,
#      an unexpected improvement or crash, 2 bad input, 3 a run that could not
#      finish or save).
#
# Environment: WAVERIG_RESULTS (default ./nightly), WAVERIG_BASELINES (default
# ./baselines), WAVERIG_NIGHTLY_ARGS (more `waverig run` flags, e.g. "-jobs 4").
set -uo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh || exit 3
[ -x /usr/local/go/bin/go ] && export PATH=/usr/local/go/bin:$PATH
./scripts/build.sh || exit 3
root=${WAVERIG_RESULTS:-nightly}
baselines=${WAVERIG_BASELINES:-baselines}
stamp=$(date -u +%Y%m%dT%H%M%SZ)
status=0
count=$(./bin/waverig devices -json | grep -c '"deviceName"' || true)
if [ "${count:-0}" = 0 ]; then echo "nightly: no Vulkan devices" >&2; exit 3; fi
names=$(./bin/waverig devices -json | grep '"deviceName"' | sed 's/.*: "\(.*\)".*/\1/')
mkdir -p "$root"
index="$root/$stamp.txt"
: > "$index"
for ((i = 0; i < count; i++)); do
  name=$(echo "$names" | sed -n "$((i + 1))p")
  # lavapipe's name carries its vector width, which the run's child processes
  # vary: the device's folder is its name without it.
  slug=$(echo "$name" | sed 's/, [0-9]* bits)/)/' | tr -cs 'A-Za-z0-9' '-' | sed 's/-*$//')
  # Two devices of one name (two identical GPUs) keep their results apart by
  # their place in `waverig devices`, as the run's records do (deviceIndex).
  if [ "$(echo "$names" | grep -cxF "$name")" -gt 1 ]; then slug="$slug-$i"; fi
  dir="$root/$slug/$stamp"
  prev=$(ls -d "$root/$slug"/*/ 2>/dev/null | sort | tail -n 1)
  mkdir -p "$dir"
  echo "== device $i: $name -> $dir"
  args=(-device "$i" -out "$dir")
  compare=()
  [ -d "$baselines/$slug" ] && compare+=("$baselines/$slug")
  # The previous night's run directory (a saved run keeps results.jsonl.gz;
  # one cut short, results.jsonl): -baseline reads either.
  if [ -n "$prev" ] && { [ -f "$prev/results.jsonl.gz" ] || [ -f "$prev/results.jsonl" ]; }; then compare+=("${prev%/}"); fi
  if [ ${#compare[@]} -gt 0 ]; then args+=(-baseline "$(IFS=,; echo "${compare[*]}")"); fi
  # shellcheck disable=SC2086 # WAVERIG_NIGHTLY_ARGS is a list of flags
  ./bin/waverig run "${args[@]}" ${WAVERIG_NIGHTLY_ARGS:-} | tee "$dir/run.txt"
  rc=${PIPESTATUS[0]}
  echo "$slug exit $rc: $(tail -n 1 "$dir/run.txt") ($dir/report.html)" >> "$index"
  # Keep the worst status (1: unexpected results, 2: bad input, 3: incomplete).
  [ "$rc" -gt "$status" ] && status=$rc
done
echo "== nightly $stamp: exit $status"
cat "$index"
exit $status
