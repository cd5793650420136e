"""Runs of different task versions are not comparable: the report flags them and never pairs them."""

from __future__ import annotations

import copy
from pathlib import Path

from inspect_ai.log import EvalLog, write_eval_log
from inspect_runs import eval_in_process

from drive_evals._registry import BENCHMARKS, benchmark_for
from drive_evals.report import write_report
from drive_evals.report.compare import build_view
from drive_evals.report.runs import load_runs
from drive_evals.surds.task import TASK_VERSION

TASK = "drive_evals/surds"
NEWER = TASK_VERSION + 1


def renamed(log: EvalLog, model: str, version: int = TASK_VERSION) -> EvalLog:
    """A copy of `log` as if another model had run it, on task version `version`."""
    copied = copy.deepcopy(log)
    copied.eval.model = model
    copied.eval.task_version = version
    return copied


def test_other_task_version_is_flagged_and_never_paired(tmp_path: Path) -> None:
    log = eval_in_process(
        TASK, tmp_path / "run", model="chance/random", task_args={"data": "demo", "subsets": "depth"}, limit=4
    )
    assert log.eval.task_version == TASK_VERSION, "the task declares its version"
    log_dir = tmp_path / "logs"
    log_dir.mkdir()
    write_eval_log(log, str(log_dir / "a.eval"))
    write_eval_log(renamed(log, "chance/same-version"), str(log_dir / "b.eval"))
    write_eval_log(renamed(log, "chance/newer-version", NEWER), str(log_dir / "c.eval"))

    runs, _ = load_runs(log_dir, BENCHMARKS)
    benchmark = benchmark_for(TASK)
    assert benchmark is not None
    view = build_view(benchmark, runs)
    assert view.flags == {"chance/newer-version": f"task version={NEWER} (main group: {TASK_VERSION})"}
    paired = {frozenset((c.a.model, c.b.model)) for c in view.comparisons}
    assert paired == {frozenset(("chance/random", "chance/same-version"))}, "same-version runs are still paired"

    report = write_report(log_dir, tmp_path / "out", BENCHMARKS).markdown.read_text(encoding="utf-8")
    assert f"no: task version={NEWER} (main group: {TASK_VERSION})" in report
