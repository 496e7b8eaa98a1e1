#!/usr/bin/env bash
# run.sh — the main job: set up, build, and run the wave-intrinsic matrix on every
# Vulkan device of the machine (-device all: on a machine without a GPU lavapipe
# 22.3.6 and 25.0.7 and SwiftShader, which setup provisions), unless the
# arguments name devices. Extra arguments go to `waverig run` (e.g. -ops
# WavePrefix -sizes 4,8 -out results, or -device 0 for the first device only).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
[ -x /usr/local/go/bin/go ] && export PATH=/usr/local/go/bin:$PATH
./scripts/build.sh
for a in "$@"; do
  case $a in -device|-device=*|--device|--device=*) exec ./bin/waverig run "$@" ;; esac
done
exec ./bin/waverig run -device all "$@"
