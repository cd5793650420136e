# Sourced by every job of this example (submit.sh tells the jobs where it is): the environment the jobs run in.
#   DRIVE_EVALS_ACTIVATE  a command that activates the Python environment on a compute node, run first, e.g.
#                         "source $HOME/drive_evals/.venv/bin/activate" or "module load python/3.11 && source ..."
#                         (unset: the jobs use the PATH exported at submission, sbatch's default)
#   OFFLINE=1             compute nodes without internet: Hugging Face libraries read only their local cache, so a
#                         missing file fails at once instead of waiting on a network that is not there. Download the
#                         data first and pass it as -T data=DIR (docs/cluster.md).
if [ -n "${DRIVE_EVALS_ACTIVATE:-}" ]; then
  eval "$DRIVE_EVALS_ACTIVATE"
fi
if [ "${OFFLINE:-0}" = 1 ]; then
  export HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 TRANSFORMERS_OFFLINE=1
fi
