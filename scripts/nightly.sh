#!/usr/bin/env bash
# nightly.sh — what a driver team runs every night and on every driver change:
# the whole matrix on every Vulkan device, results kept per device and driver
# version under $WAVERIG_RESULTS (default ./nightly), each run diffed against the
# previous run on the same device. Exit status: the worst of the runs' (see README).
set -uo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh || exit 1
[ -x /usr/local/go/bin/go ] && export PATH=/usr/local/go/bin:$PATH
./scripts/build.sh || exit 1
root=${WAVERIG_RESULTS:-nightly}
stamp=$(date -u +%Y%m%dT%H%M%SZ)
status=0
count=$(./bin/waverig devices -json | grep -c '"deviceName"' || true)
if [ "${count:-0}" = 0 ]; then echo "nightly: no Vulkan devices" >&2; exit 1; fi
names=$(./bin/waverig devices -json | grep '"deviceName"' | sed 's/.*: "\(.*\)".*/\1/')
for ((i = 0; i < count; i++)); do
  name=$(echo "$names" | sed -n "$((i + 1))p")
  slug=$(echo "$name" | tr -cs 'A-Za-z0-9' '-' | sed 's/-*$//')
  # Two devices of one name (two identical GPUs) keep their results apart by
  # their place in `waverig devices`, as the run's records do (deviceIndex).
  if [ "$(echo "$names" | grep -cxF "$name")" -gt 1 ]; then slug="$slug-$i"; fi
  dir="$root/$slug/$stamp"
  prev=$(ls -d "$root/$slug"/*/ 2>/dev/null | sort | tail -n 1)
  mkdir -p "$dir"
  echo "== device $i: $name -> $dir"
  args=(-device "$i" -out "$dir")
  if [ -n "$prev" ] && [ -f "$prev/results.jsonl" ]; then args+=(-baseline "$prev/results.jsonl"); fi
  ./bin/waverig run "${args[@]}" | tee "$dir/run.txt"
  rc=${PIPESTATUS[0]}
  # Keep the worst status (1: unexpected wrong results, 2: bad input, 3: incomplete).
  [ "$rc" -gt "$status" ] && status=$rc
done
exit $status
