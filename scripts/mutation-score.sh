#!/usr/bin/env bash
# The rig's mutation score (issue 11): every planted bug of harness/mutate runs
# against the kernels of the operations it names, at every wave size the first
# Vulkan device offers (lavapipe: 4, 8 and 16 with AVX-512), and the same
# kernels run unmutated. Prints caught/planted, the survivors with their
# reasons, the mutants spirv-val rejects, and the false failures per size.
# Then the control-flow score (TestCFScore -cfall): every site of every
# control-flow mutant planted in the generated programs of seeds
# 1-score.CFLastSeed, per size: caught/planted mutants, caught sites, sites
# rejected by spirv-val, false failures of the unmutated programs.
#
#   scripts/mutation-score.sh           # check against docs/detection.md
#   scripts/mutation-score.sh -update   # rewrite docs/detection.md from this run
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
args=(-args -cfall)
if [[ "${1:-}" == "-update" ]]; then
	args+=(-update)
fi
start=$(date +%s)
set +e
go test -count=1 -timeout 20m -run '^(TestMutationScore|TestCFScore)$' -v ./harness/mutate/score "${args[@]}" |
	grep -v '^=== RUN' | sed 's/^    score_test\.go:[0-9]*: \{0,1\}//; s/^        //'
status=${PIPESTATUS[0]}
echo "mutation-score.sh: $(( $(date +%s) - start )) s"
exit "$status"
