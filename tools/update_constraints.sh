#!/usr/bin/env bash
# Regenerate constraints.txt, the exact versions `.ci/run` installs, so a clone in six months installs what passed:
#     bash tools/update_constraints.sh
# Resolves pyproject.toml's dependencies (with the dev extra) afresh in a throwaway virtual environment and writes
# every installed distribution's version. Run it after changing a dependency, then run `bash .ci/run` and commit both.
set -euo pipefail
cd "$(dirname "$0")/.."

venv="$(mktemp -d)/venv"
python3 -m venv "$venv"
# shellcheck disable=SC1091
source "$venv/bin/activate"
python -m pip install --quiet --upgrade pip
python -m pip install --quiet -e '.[dev]'
{
  echo "# Exact versions .ci/run installs (pip install -c constraints.txt). Regenerate: bash tools/update_constraints.sh"
  python -m pip freeze --exclude-editable
} > constraints.txt
echo "wrote constraints.txt ($(grep -vc '^#' constraints.txt) distributions)"
