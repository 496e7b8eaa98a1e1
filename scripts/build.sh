#!/usr/bin/env bash
# build.sh — builds bin/waverig as it is shipped: without the symbol table and
# DWARF (-s -w), which makes the binary 30% smaller and each process start ~0.5 ms
# faster (it matters to `waverig compile`, run once per file by build systems).
# Stack traces of a panic still carry function names and lines (pclntab stays).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /usr/local/go/bin/go ] && export PATH=/usr/local/go/bin:$PATH
# gold links the ~25 cgo binaries (glslang and SPIRV-Tools are static
# libraries of ~30 MB) in a third of ld.bfd's CPU; cgo's allowlist refuses
# -fuse-ld in #cgo lines, so the scripts pass it.
if command -v ld.gold >/dev/null 2>&1 && [[ "${CGO_LDFLAGS:-}" != *-fuse-ld=* ]]; then export CGO_LDFLAGS="${CGO_LDFLAGS:--O2 -g} -fuse-ld=gold"; fi
# The version summary.json records (GOFLAGS=-buildvcs=false builds carry none).
version=$(git describe --always --dirty 2>/dev/null || echo devel)
# glslang and SPIRV-Tools are linked in (harness/glslang, harness/vulkan): their
# static libraries come from Debian's glslang-dev and spirv-tools.
for lib in libglslang.a libSPIRV-Tools-opt.a; do
  if [ "$(gcc -print-file-name=$lib)" = "$lib" ]; then
    echo "build: $lib not found: install glslang-dev and spirv-tools (./scripts/setup.sh does)" >&2; exit 1
  fi
done
go build -ldflags="-s -w -X main.buildVersion=$version" -o bin/waverig ./cmd/waverig
