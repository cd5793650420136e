#!/usr/bin/env bash
# Submit a drive_evals run to Slurm: a job array of N shards and a merge job that waits for all of them; with
# SERVER_MODEL, first a GPU job serving that model with vLLM, whose URL the shards send their requests to.
# Usage: examples/slurm/submit.sh N LOG_DIR TASK [inspect eval-set options...]
# e.g.   examples/slurm/submit.sh 16 runs/surds-qwen drive_evals/surds --model openai-api/vllm/qwen \
#          --max-connections 16 --no-log-realtime --no-log-images
#        SERVER_MODEL=/shared/models/Qwen2.5-VL-7B-Instruct SERVER_ARGS="--served-model-name qwen" \
#          examples/slurm/submit.sh 16 runs/surds-qwen drive_evals/surds --model openai-api/vllm/qwen ...
# Extra sbatch options for every job (partition, account) go in SBATCH_OPTIONS, e.g. SBATCH_OPTIONS="-p cpu -A lab";
# for the server job alone in SERVER_SBATCH_OPTIONS, e.g. "-p gpu --gres=gpu:a100:1". Time and memory: the
# #SBATCH defaults of each .sbatch file; override them with -t/--mem in those variables. The job environment:
# env.sh (DRIVE_EVALS_ACTIVATE, OFFLINE=1 on compute nodes without internet).
# Resume: re-submit the failed array tasks alone with ARRAY, e.g. ARRAY=3 or ARRAY=3,5 (same arguments); the merge
# job then waits for them. Or run the same command again: finished shards end at once. Failed shards send only the
# samples their logs do not hold.
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: $0 N LOG_DIR TASK [inspect eval-set options...]" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
export DRIVE_EVALS_SLURM_DIR=$here # Slurm runs a copy of each script: the jobs find env.sh through this
n=$1 log_dir=$2 task=$3
shift 3
mkdir -p "$log_dir"
log_dir=$(cd "$log_dir" && pwd) # the server and shard jobs meet at LOG_DIR/server-url, whatever their directory
wait_for_server=()
if [ -n "${SERVER_MODEL:-}" ]; then
  # shellcheck disable=SC2086  # option lists
  SERVER_JOB=$(sbatch --parsable ${SBATCH_OPTIONS:-} ${SERVER_SBATCH_OPTIONS:-} \
    --output="$log_dir/slurm-server-%j.out" "$here/server.sbatch" "$log_dir" "$SERVER_MODEL" ${SERVER_ARGS:-})
  export SERVER_JOB
  wait_for_server=(--dependency="after:$SERVER_JOB")
fi
# shellcheck disable=SC2086  # SBATCH_OPTIONS is a list of options
array=$(sbatch --parsable ${SBATCH_OPTIONS:-} "${wait_for_server[@]}" --array="${ARRAY:-1-$n}" \
  --output="$log_dir/slurm-%A_%a.out" "$here/shards.sbatch" "$task" "$n" "$log_dir" "$@")
# shellcheck disable=SC2086
merge=$(sbatch --parsable ${SBATCH_OPTIONS:-} --dependency="afterok:$array" --kill-on-invalid-dep=yes \
  --output="$log_dir/slurm-merge-%j.out" "$here/merge.sbatch" "$task" "$n" "$log_dir")
echo "shards: job $array (array ${ARRAY:-1-$n} of $n); merge: job $merge, once they have succeeded"
if [ -n "${SERVER_MODEL:-}" ]; then
  echo "model server: job $SERVER_JOB (URL in $log_dir/server-url once it answers; the merge job stops it)"
fi
