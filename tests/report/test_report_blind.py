"""Robustness: a blind (no-image) control run beside its normal run, unknown extra metrics, unknown tasks.

The tasks do not have a `blind` argument yet, so the blind log is an edited copy of a real chance run: flagged
`blind=true` and every unit scored 0, so the gap to the normal run is exactly the normal run's score.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import EvalLog, EvalMetric, recompute_metrics, write_eval_log

from drive_evals._registry import BENCHMARKS
from drive_evals.report import write_report

pytestmark = pytest.mark.slow  # reads the session's `inspect` subprocess runs (report_run)

EXTRA_METRIC = "xy2d_conv_rate"
UNKNOWN_TASK = "drive_evals/judge_meta_eval"


def _first(logs: dict[str, EvalLog], task: str, seed: int) -> EvalLog:
    return next(log for log in logs.values() if log.eval.task == task and log.eval.model_args.get("seed") == seed)


def blind_copy(log: EvalLog) -> EvalLog:
    blind = copy.deepcopy(log)
    blind.eval.task_args["blind"] = True
    assert blind.samples is not None
    for sample in blind.samples:
        assert sample.scores is not None
        sample.scores["surds_scorer"].value["score"] = 0.0  # type: ignore[index]
    recompute_metrics(blind)
    assert blind.results is not None
    metrics = blind.results.scores[0].metrics
    metrics[EXTRA_METRIC] = EvalMetric(name=EXTRA_METRIC, value=0.5)
    return blind


def test_blind_run_beside_its_normal_run(tmp_path: Path, logs: dict[str, EvalLog]) -> None:
    normal = _first(logs, "drive_evals/surds", seed=1)
    unknown = copy.deepcopy(_first(logs, "drive_evals/drivelmm_o1", seed=1))
    unknown.eval.task = UNKNOWN_TASK
    log_dir = tmp_path / "logs"
    log_dir.mkdir()
    write_eval_log(normal, str(log_dir / "normal.eval"))
    write_eval_log(blind_copy(normal), str(log_dir / "blind.eval"))
    write_eval_log(unknown, str(log_dir / "meta.eval"))
    files = write_report(log_dir, tmp_path / "out", BENCHMARKS)
    report = files.markdown.read_text(encoding="utf-8")

    scores = report.split("### Scores", 1)[1].split("###", 1)[0]
    rows = [line for line in scores.splitlines() if line.startswith("| chance/random")]
    demo = " · demo data"
    assert [row.split(" | ")[0] for row in rows] == [f"| chance/random{demo}", f"| chance/random [blind]{demo}"]
    # every blind unit scores 0: the interval starts at 0 and still has a width (Korn-Graubard, docs/statistics.md)
    blind_overall = re.search(r"\| chance/random \[blind\] · demo data \| 0\.0 \[0\.0, ([0-9.]+)\] \|", scores)
    assert blind_overall is not None and float(blind_overall.group(1)) > 0, scores
    assert "### Blind controls (with images − without)" in report
    assert f"`meta.eval`: task `{UNKNOWN_TASK}` is not a benchmark this report knows; ignored." in report
    main = report.split("\n## SURDS: where models fail\n", 1)[0]
    assert "⚠ Not comparable" not in main and " ⚠ |" not in main, "no run is flagged as not comparable"

    paired = _csv(tmp_path / "out" / "surds-paired.csv")
    assert {row["kind"] for row in paired} == {"blind"}
    overall = next(row for row in paired if row["metric"] == "overall")
    assert (overall["a"], overall["b"]) == ("chance/random", "chance/random [blind]")
    assert normal.results is not None
    assert float(overall["difference"]) == pytest.approx(normal.results.scores[0].metrics["overall"].value)
    assert float(overall["mean_b"]) == 0.0 and int(overall["units"]) == len(normal.samples or [])

    extra = [row for row in _csv(tmp_path / "out" / "all-metrics.csv") if row["metric"] == EXTRA_METRIC]
    assert [(row["model"], float(row["value"])) for row in extra] == [("chance/random [blind]", 0.5)]


def _csv(path: Path) -> list[dict[str, Any]]:
    import csv

    with path.open(encoding="utf-8") as handle:
        return list(csv.DictReader(handle))
