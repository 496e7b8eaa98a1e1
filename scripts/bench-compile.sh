#!/usr/bin/env bash
# bench-compile.sh — whole-process compile time of every positive fixture:
# `waverig compile` (SPIR-V, and with ALL=1 SPIR-V+WGSL+MSL) versus glslangValidator
# (SPIR-V) over the same files, one process per file as a build system would run
# them. Prints both totals and the ratio (goal: waverig >= 10x faster).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /usr/local/go/bin/go ] && export PATH=/usr/local/go/bin:$PATH
./scripts/build.sh
mapfile -t files < <(find fixtures -name '*.hlsl' -not -path 'fixtures/negative/*' -not -path '*/include/*' | sort)
targets=spirv
[ "${ALL:-}" = 1 ] && targets=spirv,wgsl,msl
out=$(mktemp -d)
ROUNDS=${ROUNDS:-3}

# glslang needs one invocation per entry point and stage: list them once, outside the timing.
jobs=()
for f in "${files[@]}"; do
  while read -r name stage; do
    case "$stage" in Compute) s=comp;; Pixel) s=frag;; Vertex) s=vert;; *) continue;; esac
    jobs+=("$s $name $f")
  done < <(./bin/waverig compile -json "$f" 2>/dev/null | sed -n 's/^      "name": "\([^"]*\)".*/\1/p;s/^      "stage": "\([^"]*\)".*/\1/p' | paste - -)
done

# Per-file flags (// waverig-args:), read once outside the timing.
declare -A fargs
for f in "${files[@]}"; do fargs[$f]=$(head -1 "$f" | sed -n 's#^// waverig-args:##p'); done

ns() { date +%s%N; }
ours_best=0; theirs_best=0
for r in $(seq "$ROUNDS"); do
  t0=$(ns)
  for f in "${files[@]}"; do
    ./bin/waverig compile -target "$targets" -o "$out/ours" ${fargs[$f]} "$f" >/dev/null 2>&1 || true
  done
  t1=$(ns)
  for j in "${jobs[@]}"; do
    read -r s name f <<<"$j"
    glslangValidator -V -D --target-env vulkan1.1 -S "$s" -e "$name" -o "$out/g.spv" "$f" >/dev/null 2>&1 || true
  done
  t2=$(ns)
  o=$(( (t1-t0)/1000000 )); g=$(( (t2-t1)/1000000 ))
  if [ "$ours_best" = 0 ] || [ "$o" -lt "$ours_best" ]; then ours_best=$o; fi
  if [ "$theirs_best" = 0 ] || [ "$g" -lt "$theirs_best" ]; then theirs_best=$g; fi
done
# Batch: one waverig process for all files that need no flags (a build system's
# batch), one per file for the rest; glslang has no equivalent (one entry point
# per invocation).
plain=(); flagged=()
for f in "${files[@]}"; do if [ -z "${fargs[$f]}" ]; then plain+=("$f"); else flagged+=("$f"); fi; done
batch_best=0
for r in $(seq "$ROUNDS"); do
  t0=$(ns)
  ./bin/waverig compile -target "$targets" -o "$out/batch" "${plain[@]}" >/dev/null 2>&1 || true
  for f in "${flagged[@]}"; do
    ./bin/waverig compile -target "$targets" -o "$out/batch1" ${fargs[$f]} "$f" >/dev/null 2>&1 || true
  done
  t1=$(ns)
  b=$(( (t1-t0)/1000000 ))
  if [ "$batch_best" = 0 ] || [ "$b" -lt "$batch_best" ]; then batch_best=$b; fi
done

echo "files: ${#files[@]} (glslang invocations: ${#jobs[@]}), best of $ROUNDS rounds"
echo "waverig compile -target $targets: ${ours_best} ms"
echo "glslangValidator (SPIR-V):        ${theirs_best} ms"
awk -v a="$ours_best" -v b="$theirs_best" 'BEGIN { if (a > 0) printf "ratio, one process per file: %.1fx\n", b / a }'
echo "waverig compile, batched (${#plain[@]} files in one process, ${#flagged[@]} with own flags): ${batch_best} ms"
awk -v a="$batch_best" -v b="$theirs_best" 'BEGIN { if (a > 0) printf "ratio, batched: %.1fx\n", b / a }'
