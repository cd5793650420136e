#!/usr/bin/env bash
# Compare models on every benchmark with one resumable `inspect eval-set`, then write the comparison report.
#
#   bash examples/compare/run.sh                # models.txt, tasks.yaml (API keys in the environment)
#   OFFLINE=1 bash examples/compare/run.sh      # models-offline.txt, tasks-offline.yaml: chance, demo data
#
# Re-run the same command to resume: finished tasks are kept, failed or missing ones run again, and nothing
# is paid twice. An eval-set owns its log directory, so runs with other settings (another --temperature,
# -T blind=true) go to a sibling directory under the same parent; `drive-evals report` reads the parent.
# The report goes to report/compare (REPORT_DIR), outside the log directory (logs/, which `inspect view` lists).
# Replicates of one model (models-offline.txt: three seeds) are told apart in `inspect view`'s log list by the
# tags each task gives its log (`seed=1`, ...: the model's number and boolean args and generate seed).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
suffix=""
[[ "${OFFLINE:-0}" == 1 ]] && suffix="-offline"
models="${MODELS:-$here/models$suffix.txt}"
tasks="${TASKS:-$here/tasks$suffix.yaml}"
log_root="${LOG_ROOT:-logs/compare$suffix}"
grader="${GRADER:-$([[ -n "$suffix" ]] && echo chance/random || echo openai/gpt-4o-mini-2024-07-18)}"
# GRADER may be a YAML mapping ('{model: openai-api/judge/M, base_url: URL}'); Inspect reads base_url and api_key
# only under model_args, so they are moved there.
grader="$(python -m drive_evals.model_names "$grader")"

specs=()
while IFS= read -r line; do
  [[ -z "${line// }" || "$line" == \#* ]] || specs+=(--model-spec "$line")
done <"$models"

# One grader role serves every judged benchmark (DriveLMM-o1's official judge is gpt-4o-mini, DriveBench's is
# gpt-3.5-turbo: docs/drivebench.md); to judge each with its own, run them as eval-sets with their own GRADER.
# Every benchmark of the registry, as `drive-evals run` lists them (BENCHMARKS="drive_evals/surds ..." picks some).
read -r -a benchmarks <<<"${BENCHMARKS:-$(python -c 'from drive_evals._registry import benchmark_tasks as b
print(" ".join(t.qualified for t in b()))')}"
inspect eval-set "${benchmarks[@]}" "${specs[@]}" \
  --model-role "grader=$grader" --task-config "$tasks" --log-dir "$log_root/main" "$@"
drive-evals report "$log_root" --out "${REPORT_DIR:-report/compare$suffix}"
