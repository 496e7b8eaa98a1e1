#!/usr/bin/env bash
# drivers.sh — provisions the extra CPU Vulkan drivers waverig tests beside the
# system's (called by setup.sh; idempotent: a second run reads a few files and
# touches no network). Each driver is unpacked into a private folder, never over
# the system's packages, and gets an ICD manifest with an absolute library_path:
#
#   $WAVERIG_DRIVERS (default ${XDG_DATA_HOME:-$HOME/.local/share}/waverig/drivers)
#     icd.d/<name>.json        the manifests the rig adds to the Vulkan loader's
#                              (devices/drivers.go, through VK_ADD_DRIVER_FILES)
#     <name>/identity.txt      what the driver reports (vulkaninfo --summary),
#                              how the rig tells its devices from the system's
#     lavapipe-mesa-25.0.7/    apt lists, .debs and the unpacked root
#
# lavapipe from Mesa 25.0.7: Debian bookworm-backports' mesa-vulkan-drivers,
# downloaded with a private sources list whose archive address is read from the
# machine's own apt sources (no host name is written here). It runs on
# bookworm's libdrm 2.4.114: every libdrm symbol it imports is there (setup
# checks it by loading the driver with LD_BIND_NOW=1), so the backports libdrm
# 2.4.123 it declares as a dependency is not needed and not installed.
#
# SwiftShader: the one Debian's chromium package ships (chromium-common), whose
# own manifest names its library relatively.
#
# The Khronos validation layer chromium-common ships (a 2026 build) gets a layer
# manifest in layers/, which `waverig run -validation` puts first through
# VK_ADD_LAYER_PATH: Debian's vulkan-validationlayers 1.3.239 predates
# extensions lavapipe 25.0.7 offers (VK_KHR_shader_subgroup_rotate) and reports
# their structures as unknown ("not supported by this layer").
#
# Dawn: npm's `webgpu` package (Dawn's Node binding, a prebuilt dawn.node for
# linux-x64 inside), installed into dawn/node_modules with npm; harness/dawn
# runs it through Node. Without node and npm it is left out, and the rig's
# Dawn cases skip with the reason.
set -euo pipefail

DAWN_VERSION=0.6.2
LVP_NAME=lavapipe-mesa-25.0.7
LVP_VERSION=25.0.7-2~bpo12+1
SUITE=bookworm-backports

root=${WAVERIG_DRIVERS:-${XDG_DATA_HOME:-$HOME/.local/share}/waverig/drivers}
icd_dir=$root/icd.d

die() { echo "setup: drivers: $*" >&2; exit 1; }

# identify ICD NAME: loads the driver alone, with every symbol bound at load
# (a library it links against that lacks a symbol fails here, not mid-run), and
# keeps what it reports.
identify() {
  local icd=$1 name=$2 out
  command -v vulkaninfo >/dev/null || die "vulkaninfo (vulkan-tools) is missing"
  out=$(VK_DRIVER_FILES=$icd VK_ICD_FILENAMES= VK_ADD_DRIVER_FILES= LD_BIND_NOW=1 vulkaninfo --summary 2>&1) ||
    die "$name does not load ($icd):
$(printf '%s\n' "$out" | tail -5)"
  printf '%s\n' "$out" | sed -n '/^GPU0:/,/^GPU1:/p' |
    grep -E '^\s+(deviceName|driverID|driverName|driverInfo|driverVersion|apiVersion)\s+=' |
    sed -E 's/^\s+([A-Za-z]+)\s+= ?/\1=/' >"$root/$name/identity.txt.new"
  grep -q '^driverName=.' "$root/$name/identity.txt.new" || die "$name: vulkaninfo reported no device:
$(printf '%s\n' "$out" | tail -5)"
  mv "$root/$name/identity.txt.new" "$root/$name/identity.txt"
}

# manifest FILE LIBRARY API: an ICD manifest naming LIBRARY by its absolute path
# (written beside the driver first: the loader reads only *.json, and icd.d/
# must never hold a manifest that was not checked).
manifest() {
  printf '{\n    "file_format_version": "1.0.0",\n    "ICD": {\n        "library_path": "%s",\n        "api_version": "%s"\n    }\n}\n' "$2" "$3" >"$1.new"
  mv "$1.new" "$1"
}

# debian_archive: the Debian archive this machine's apt already uses (the
# deb822 URIs: of a stanza whose Suites: has bookworm, or a one-line deb entry).
debian_archive() {
  local f uri
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -r "$f" ] || continue
    uri=$(awk 'BEGIN{RS=""} /(^|\n)Suites:[^\n]*bookworm([ \n]|$)/ && /(^|\n)Types:[^\n]*deb([ \n]|$)/ {
            if (match($0, /(^|\n)URIs:[ \t]*[^ \t\n]+/)) { s = substr($0, RSTART, RLENGTH); sub(/^\n?URIs:[ \t]*/, "", s); print s; exit } }' "$f")
    [ -n "$uri" ] && { echo "$uri"; return; }
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -r "$f" ] || continue
    uri=$(awk '$1 == "deb" { i = 2; if ($2 ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ } if ($(i+1) == "bookworm") { print $i; exit } }' "$f")
    [ -n "$uri" ] && { echo "$uri"; return; }
  done
}

provision_lavapipe() {
  local dir=$root/$LVP_NAME icd=$icd_dir/$LVP_NAME.json
  local lib=$dir/root/usr/lib/x86_64-linux-gnu/libvulkan_lvp.so
  if [ -f "$icd" ] && [ -f "$lib" ] && [ -f "$dir/identity.txt" ]; then return; fi
  [ "$(dpkg --print-architecture)" = amd64 ] || die "$LVP_NAME is provisioned for amd64 only (this is $(dpkg --print-architecture))"
  local uri
  uri=$(debian_archive)
  [ -n "$uri" ] || die "no Debian bookworm archive in this machine's apt sources (/etc/apt/sources.list.d/*.sources, /etc/apt/sources.list): cannot fetch $LVP_NAME"
  echo "setup: provisioning $LVP_NAME from $SUITE into $dir" >&2
  mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial" "$dir/debs" "$icd_dir"
  echo "deb $uri $SUITE main" >"$dir/sources.list"
  local apt=(-qq -o "Dir::Etc::SourceList=$dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
    -o "Dir::State::Lists=$dir/lists" -o "Dir::Cache=$dir/cache" -o Debug::NoLocking=1 -o APT::Sandbox::User=root)
  apt-get "${apt[@]}" update || die "apt-get update of $SUITE ($uri) failed"
  local have
  have=$(apt-cache "${apt[@]}" madison mesa-vulkan-drivers 2>/dev/null | awk -F'|' -v s="$SUITE" '$3 ~ s {gsub(/ /, "", $2); print $2}' | sort -u | tr '\n' ' ')
  case " $have " in
    *" $LVP_VERSION "*) ;;
    *) die "$SUITE no longer has mesa-vulkan-drivers $LVP_VERSION (it has: ${have:-none}); update LVP_VERSION in scripts/drivers.sh and the docs that name it" ;;
  esac
  rm -f "$dir"/debs/*.deb
  (cd "$dir/debs" && apt-get "${apt[@]}" download "mesa-vulkan-drivers=$LVP_VERSION") ||
    die "apt-get download mesa-vulkan-drivers=$LVP_VERSION failed"
  rm -rf "$dir/root.new"
  for deb in "$dir"/debs/*.deb; do dpkg -x "$deb" "$dir/root.new"; done
  rm -rf "$dir/root" && mv "$dir/root.new" "$dir/root"
  [ -f "$lib" ] || die "the $LVP_NAME package holds no $lib"
  manifest "$dir/candidate.json" "$lib" 1.4.305
  identify "$dir/candidate.json" "$LVP_NAME"
  grep -q "^driverInfo=Mesa ${LVP_VERSION}" "$dir/identity.txt" ||
    die "$LVP_NAME reports $(grep '^driverInfo=' "$dir/identity.txt"), not Mesa $LVP_VERSION"
  mv "$dir/candidate.json" "$icd"
}

provision_swiftshader() {
  local name=swiftshader dir=$root/swiftshader icd=$icd_dir/swiftshader.json src lib
  src=$(dpkg -L chromium-common 2>/dev/null | grep '/vk_swiftshader_icd\.json$' | head -1) || true
  if [ -z "$src" ]; then
    echo "setup: drivers: chromium-common has no vk_swiftshader_icd.json: SwiftShader not provisioned" >&2
    rm -f "$icd"
    return
  fi
  lib=$(sed -nE 's/.*"library_path"[[:space:]]*:[[:space:]]*"([^"]+)".*/\1/p' "$src")
  case $lib in /*) ;; *) lib=$(cd "$(dirname "$src")" && realpath -m "$lib") ;; esac
  [ -f "$lib" ] || die "SwiftShader's manifest $src names $lib, which is missing"
  if [ -f "$icd" ] && [ -f "$dir/identity.txt" ] && grep -q "\"$lib\"" "$icd" && [ "$dir/identity.txt" -nt "$lib" ]; then return; fi
  mkdir -p "$dir" "$icd_dir"
  local api
  api=$(sed -nE 's/.*"api_version"[[:space:]]*:[[:space:]]*"([^"]+)".*/\1/p' "$src")
  manifest "$dir/candidate.json" "$lib" "${api:-1.0.0}"
  identify "$dir/candidate.json" "$name"
  mv "$dir/candidate.json" "$icd"
  echo "setup: SwiftShader $(sed -n 's/^driverVersion=//p' "$dir/identity.txt") ($lib) in $icd" >&2
}

provision_validation_layer() {
  local dir=$root/layers json=$root/layers/VkLayer_khronos_validation.json lib
  lib=$(dpkg -L chromium-common 2>/dev/null | grep '/libVkLayer_khronos_validation\.so$' | head -1) || true
  if [ -z "$lib" ] || [ ! -f "$lib" ]; then
    rm -f "$json"
    return # -validation then uses the system's layer (vulkan-validationlayers)
  fi
  local version
  version=$(dpkg-query -W -f='${Version}' chromium-common 2>/dev/null || echo unknown)
  if [ -f "$json" ] && grep -q "\"$lib\"" "$json" && grep -q "chromium-common $version\"" "$json"; then return; fi
  mkdir -p "$dir"
  printf '{\n    "file_format_version": "1.2.0",\n    "layer": {\n        "name": "VK_LAYER_KHRONOS_validation",\n        "type": "GLOBAL",\n        "library_path": "%s",\n        "api_version": "1.4.300",\n        "implementation_version": "1",\n        "description": "Khronos validation layer, chromium-common %s"\n    }\n}\n' "$lib" "$version" >"$json.new"
  mv "$json.new" "$json"
  echo "setup: the Khronos validation layer of chromium-common ($lib) in $json" >&2
}

# provision_dawn: the npm package, pinned, unless it is there at that version.
provision_dawn() {
  local dir=$root/dawn
  if [ -f "$dir/node_modules/webgpu/package.json" ] && grep -q "\"version\": \"$DAWN_VERSION\"" "$dir/node_modules/webgpu/package.json"; then return; fi
  if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    echo "setup: drivers: no node/npm: Dawn (npm webgpu@$DAWN_VERSION) not provisioned" >&2
    return
  fi
  mkdir -p "$dir"
  npm install --silent --no-audit --no-fund --ignore-scripts --prefix "$dir" "webgpu@$DAWN_VERSION" >&2 ||
    { echo "setup: drivers: npm install webgpu@$DAWN_VERSION failed: Dawn not provisioned" >&2; return; }
  echo "setup: Dawn (npm webgpu@$DAWN_VERSION) in $dir/node_modules/webgpu" >&2
}

provision_lavapipe
provision_swiftshader
provision_validation_layer
provision_dawn
