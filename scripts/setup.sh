#!/usr/bin/env bash
# setup.sh — installs what waverig needs on a Debian 12 machine, idempotently:
# a second run finds everything present and returns in well under a second
# (plus `go mod download`, which is a no-op with a warm module cache).
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages: spirv-val/spirv-dis (spirv-tools, whose libSPIRV-Tools.a waverig
# links as its validator), glslang's static libraries (glslang-dev: waverig links
# glslang as the second SPIR-V producer for differential tests) and
# glslangValidator (glslang-tools: the tests hold the library to it), spirv-cross (MSL second opinion),
# clang (MSL syntax check), the Vulkan loader + headers (libvulkan-dev: vulkan-go
# dlopens libvulkan.so and the cgo shim includes vulkan.h), lavapipe
# (mesa-vulkan-drivers), vulkaninfo (vulkan-tools), the Khronos validation layer
# (vulkan-validationlayers: `waverig run -validation`), chromium (headless: the
# tests open report.html in it and check the rendered page), and for `waverig view`
# (-tags viewer only; the default build needs none of them): GLFW's build deps
# (libx11-dev libxrandr-dev libxinerama-dev libxcursor-dev libxi-dev libxxf86vm-dev
# libgl-dev: go-gl/glfw compiles GLFW's C sources), Xvfb (xvfb), xwd (x11-apps) and
# xdotool for the window's tests (screenshots; keys and clicks sent through X).
# Node.js and npm (nodejs, npm) run Dawn (drivers.sh installs its npm package); a
# machine whose Node came from elsewhere (with its own npm) keeps it.
PACKAGES=(spirv-tools glslang-tools glslang-dev spirv-cross clang libvulkan-dev mesa-vulkan-drivers vulkan-tools vulkan-validationlayers gcc chromium
  libx11-dev libxrandr-dev libxinerama-dev libxcursor-dev libxi-dev libxxf86vm-dev libgl-dev xvfb x11-apps xdotool)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if ! command -v node >/dev/null 2>&1; then
  missing+=(nodejs npm)
elif ! command -v npm >/dev/null 2>&1; then
  missing+=(npm)
fi
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The extra CPU Vulkan drivers (lavapipe from Mesa 25.0.7, SwiftShader), each
# in a private folder with its own ICD manifest: scripts/drivers.sh says where.
scripts/drivers.sh

if ! command -v go >/dev/null 2>&1; then
  if [ -x /usr/local/go/bin/go ]; then export PATH=/usr/local/go/bin:$PATH; else
    echo "setup: Go 1.26 is required (https://go.dev/dl/); not found on PATH or in /usr/local/go" >&2; exit 1
  fi
fi
go mod download
