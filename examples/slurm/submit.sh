#!/usr/bin/env bash
# Submit a drive_evals run to Slurm: a job array of N shards and a merge job that waits for all of them.
# Usage: examples/slurm/submit.sh N LOG_DIR TASK [inspect eval-set options...]
# e.g.   examples/slurm/submit.sh 16 runs/surds-qwen drive_evals/surds --model openai-api/vllm/qwen \
#          --max-connections 16 --no-log-realtime --no-log-images
# Extra sbatch options (partition, account, time) go in SBATCH_OPTIONS, e.g. SBATCH_OPTIONS="-p cpu -t 2:00:00".
# Resume: re-submit the failed array tasks alone with ARRAY, e.g. ARRAY=3 or ARRAY=3,5 (same arguments); the merge
# job then waits for them. Or run the same command again: finished shards end at once. Failed shards send only the
# samples their logs do not hold.
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: $0 N LOG_DIR TASK [inspect eval-set options...]" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
n=$1 log_dir=$2 task=$3
shift 3
mkdir -p "$log_dir"
# shellcheck disable=SC2086  # SBATCH_OPTIONS is a list of options
array=$(sbatch --parsable ${SBATCH_OPTIONS:-} --array="${ARRAY:-1-$n}" --output="$log_dir/slurm-%A_%a.out" \
  "$here/shards.sbatch" "$task" "$n" "$log_dir" "$@")
# shellcheck disable=SC2086
merge=$(sbatch --parsable ${SBATCH_OPTIONS:-} --dependency="afterok:$array" --kill-on-invalid-dep=yes \
  --output="$log_dir/slurm-merge-%j.out" "$here/merge.sbatch" "$task" "$n" "$log_dir")
echo "shards: job $array (array ${ARRAY:-1-$n} of $n); merge: job $merge, once they have succeeded"
