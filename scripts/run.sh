#!/usr/bin/env bash
# run.sh — the main job: set up, build, and run the wave-intrinsic matrix on the
# default device (the first Vulkan device; lavapipe on a machine without a GPU).
# Extra arguments go to `waverig run` (e.g. -ops WavePrefix -sizes 4,8 -out results).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
[ -x /usr/local/go/bin/go ] && export PATH=/usr/local/go/bin:$PATH
./scripts/build.sh
exec ./bin/waverig run "$@"
