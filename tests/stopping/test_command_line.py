"""`-T stop=...` from the command line: `inspect eval-set` over three benchmarks, and a refusal in one line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai.log import list_eval_logs, read_eval_log

pytestmark = pytest.mark.slow


def inspect(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "inspect_ai", *args], capture_output=True, text=True, timeout=900)


def test_eval_set_runs_the_rule_on_every_benchmark_that_supports_it(tmp_path: Path) -> None:
    tasks = ["drive_evals/surds", "drive_evals/drivelmm_o1", "drive_evals/drivebench"]
    options = ["-T", "data=demo", "-T", "stop=above:0.5", "-T", "stop_min_clusters=2", "--display", "none"]
    result = inspect(
        "eval-set", *tasks, *options, "--model", "chance/random", "--model-role", "grader=chance/random",
        "--log-dir", str(tmp_path),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    records = {}
    for info in list_eval_logs(str(tmp_path)):
        header = read_eval_log(info.name, header_only=True)
        assert header.results is not None and header.results.early_stopping is not None
        records[header.eval.task] = header.results.early_stopping.metadata
    assert sorted(records) == sorted(tasks)
    assert all(
        record["rule"] == "above:0.5" and "with probability >= 95%" in str(record["guarantee"])
        for record in records.values()
    )


def test_a_headline_without_a_bound_is_refused_before_any_call(tmp_path: Path) -> None:
    result = inspect(
        "eval", "drive_evals/vladbench", "-T", "data=demo", "-T", "stop=above:0.5", "--model", "chance/random",
        "--display", "none", "--log-dir", str(tmp_path),
    )  # fmt: skip
    assert result.returncode == 1
    assert "-T stop=above:0.5: VLADBench `total` is not a mean over units" in result.stderr
    assert not list(tmp_path.iterdir())
