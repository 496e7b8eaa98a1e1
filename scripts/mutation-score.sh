#!/usr/bin/env bash
# The rig's mutation score (issue 11): every planted bug of harness/mutate runs
# against the kernels of the operations it names, at every wave size the first
# Vulkan device offers (lavapipe: 4, 8 and 16 with AVX-512), and the same
# kernels run unmutated. Prints caught/planted, the survivors with their
# reasons, the mutants spirv-val rejects, and the false failures per size.
#
#   scripts/mutation-score.sh           # check against docs/detection.md
#   scripts/mutation-score.sh -update   # rewrite docs/detection.md from this run
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
args=()
if [[ "${1:-}" == "-update" ]]; then
	args+=(-args -update)
fi
start=$(date +%s)
set +e
go test -count=1 -timeout 20m -run '^TestMutationScore$' -v ./harness/mutate/score "${args[@]}" |
	grep -v '^=== RUN' | sed 's/^    score_test\.go:[0-9]*: \{0,1\}//; s/^        //'
status=${PIPESTATUS[0]}
echo "mutation-score.sh: $(( $(date +%s) - start )) s"
exit "$status"
