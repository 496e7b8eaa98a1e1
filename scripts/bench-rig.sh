#!/usr/bin/env bash
# bench-rig.sh — the full Vulkan matrix on the default device at every wave size
# the plan covers, both compilers: prints cases, wall time, cases per second and
# pipelines created (from `waverig run`'s summary). COLD=1 starts from empty caches
# (glslang outputs and Mesa's shader cache), as a fresh CI machine would.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /usr/local/go/bin/go ] && export PATH=/usr/local/go/bin:$PATH
./scripts/build.sh
if [ "${COLD:-}" = 1 ]; then
  # Go's own caches stay where they were: only the rig's and the driver's are cold.
  export GOCACHE=$(go env GOCACHE) GOMODCACHE=$(go env GOMODCACHE)
  export XDG_CACHE_HOME=$(mktemp -d)
fi
out=$(mktemp -d)
start=$(date +%s%N)
./bin/waverig run -out "$out" "$@" | sed -n '/^size/,/cases\/s/p'
end=$(date +%s%N)
echo "wall: $(( (end - start) / 1000000 )) ms (results in $out)"
