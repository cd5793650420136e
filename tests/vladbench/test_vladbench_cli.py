"""The offline demo command of the README, as a user runs it: `inspect eval drive_evals/vladbench` through the entry
point, in a subprocess."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_runs import metrics, only_log, run_inspect

pytestmark = pytest.mark.slow  # an `inspect` subprocess


def test_demo_command(tmp_path: Path) -> None:
    run_inspect(["eval", "drive_evals/vladbench", "--model", "chance/random", "-T", "data=demo"], tmp_path / "logs")
    log = only_log(tmp_path / "logs")
    values = metrics(log, "vladbench_scorer")
    assert log.eval.task == "drive_evals/vladbench" and len(log.samples or []) == 61
    assert round(values["total"], 3) == 0.437  # docs/vladbench.md quotes 43.7 for seed 0
    assert values["missing_units"] == 0
