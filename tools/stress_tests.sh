#!/usr/bin/env bash
# Run the whole suite (both tiers) several times in a row while two other processes keep both cores busy, to show
# that no test depends on how fast the machine is. Exits non-zero if any run fails.
#
#   bash tools/stress_tests.sh              # 3 runs, with the `python` on PATH (activate the venv) or $PYTHON
#   STRESS_RUNS=1 bash tools/stress_tests.sh -- --cov=drive_evals --cov-report=term   # extra pytest arguments
#
# Bounded: each run is stopped after STRESS_RUN_TIMEOUT seconds (default 3600), and the load processes, which also
# stop on their own after STRESS_LOAD_SECONDS (default 4 h), are ended when the script exits for any reason.
set -euo pipefail
cd "$(dirname "$0")/.."

runs="${STRESS_RUNS:-3}"
run_timeout="${STRESS_RUN_TIMEOUT:-3600}"
load_seconds="${STRESS_LOAD_SECONDS:-14400}"
[ "${1:-}" = "--" ] && shift
python="${PYTHON:-python}"

load_pids=()
suite_pid=""
stop_all() {
  local pid
  for pid in $suite_pid "${load_pids[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  wait 2>/dev/null || true
}
trap stop_all EXIT
trap 'exit 130' INT TERM

for _ in 1 2; do
  # A busy loop that ends by itself after load_seconds, in case this script is killed without running its trap.
  timeout "$load_seconds" "$python" -c "while True: pass" &
  load_pids+=("$!")
done
echo "load: busy loops ${load_pids[*]} on $(nproc) cores"

failed=0
for run in $(seq 1 "$runs"); do
  started=$(date +%s)
  status=0
  # -m "": every test, the slow tier included. In the background, so that a signal ends it at once (bash runs
  # traps only between foreground commands).
  timeout "$run_timeout" "$python" -m pytest -q -m "" -p no:cacheprovider "$@" &
  suite_pid=$!
  wait "$suite_pid" || status=$?
  suite_pid=""
  echo "run $run/$runs: exit $status after $(($(date +%s) - started)) s (load average: $(cut -d' ' -f1-3 /proc/loadavg))"
  [ "$status" -eq 0 ] || failed=$((failed + 1))
done
echo "stress: $((runs - failed))/$runs runs passed"
[ "$failed" -eq 0 ]
