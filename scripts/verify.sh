#!/usr/bin/env bash
# The main job: check the RFC model (Hypothesis, the exhaustive search at the small scopes, then Z3),
# re-run every built-in amendment through the gate and rewrite the counterexamples, regenerate the
# diagrams, write the report. Every step runs; the exit code is the worst one (1 refuted or drift,
# 2 undetermined, 3 usage, 4 a fault). The three checks count as one answer, per requirement id
# (verifier.cli.combine): an id is undetermined only when no engine judged it.
set -uo pipefail
cd "$(dirname "$0")/.."
export PYTHONHASHSEED=0     # verdicts and traces must not depend on string hashing
# the check's exploration of the baseline and the gate's are the same work: the gate reads the
# check's result back (verifier.runtime.reuse), as it would any other run's of the same code
export TASKMODEL_RESULT_CACHE="${TASKMODEL_RESULT_CACHE:-$PWD/out/cache/results}"
tm=.venv/bin/taskmodel
worst=0
step() {
  echo "== $*"
  "$@"
  local code=$?
  [ "$code" -gt "$worst" ] && worst=$code
  return 0
}
rm -f out/check-baseline.json out/bfs/check-baseline.json out/z3/check-baseline.json
# The random check and then Z3 run beside the exhaustive search: each check is one process but bfs,
# whose graph builds are the longest part. Budgets count work (examples, states, depth; the step
# watchdog counts CPU time) and no wall-clock cap is set, so sharing the cores, or a loaded machine,
# changes no verdict, only when it comes. Each check's table is printed when it ends, in this order;
# their progress lines come as they are made (through a pipe: lines, never a terminal's bar).
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
echo "== checks: $tm check (random, then z3) beside $tm check --engine bfs --jobs ${JOBS:-2}"
(
  "$tm" check --examples "${EXAMPLES:-6000}" --counterexamples out/counterexamples >"$logs/random" 2> >(cat >&2)
  "$tm" check --engine z3 --depth "${DEPTH:-8}" --out out/z3 >"$logs/z3" 2> >(cat >&2)
) &
lane=$!
"$tm" check --engine bfs --jobs "${JOBS:-2}" --out out/bfs --counterexamples out/bfs/counterexamples >"$logs/bfs" \
  2> >(cat >&2)
wait "$lane"
for name in random bfs z3; do
  echo "-- $name"
  cat "$logs/$name"
done
step .venv/bin/python -m verifier.cli.combine out/check-baseline.json out/bfs/check-baseline.json out/z3/check-baseline.json
step "$tm" gate --write --jobs "${JOBS:-2}"
step "$tm" diagrams
step "$tm" report --check out/latest-check.json --counterexamples counterexamples --out out/report/index.html
echo "verify: exit $worst (report: out/report/index.html)"
exit "$worst"
