"""Print what the suite computes on the demo data, so a refactor can be shown to change none of it.

    python tools/behaviour_fingerprint.py OUT_DIR

Runs SURDS, DriveLMM-o1 (chance judge), the judge meta-evaluation and DriveBench (chance judge) in-process on
the demo data with the seeded chance model, with empty caches, then writes to OUT_DIR: `scores.json` (every
results metric and every sample's score value, answer and explanation, by task) and the `drive-evals report` of
those logs (`report/report.md` and its CSV tables). Run it before and after a change and `diff -r` the two
directories: a pure refactor leaves them byte-identical. Log timestamps, run ids and file paths are left out
because they differ between any two runs.
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
from pathlib import Path

SEED = 0
CHANCE = {"model": "chance/random", "model_args": {"seed": SEED}, "model_roles": {"grader": "chance/random"}}
TASKS = (
    ("drive_evals/surds", {"data": "demo"}),
    ("drive_evals/drivelmm_o1", {"data": "demo"}),
    ("drive_evals/drivelmm_o1_judge", {"data": "demo"}),
    ("drive_evals/drivebench", {"data": "demo"}),
)
LOG_NAME = re.compile(r"\d{4}-\d\d-\d\dT[\d-]+_([\w-]+?)_[A-Za-z0-9]{22}\.eval")
"""Inspect's log file name: start time, task, run id (all differ between two runs of the same code)."""
VOLATILE_REPORT_FILES = (".html", ".png")
"""Embedded images and plot bytes depend on matplotlib's renderer, not on our numbers; the tables carry them."""


def fingerprint(out: Path) -> None:
    scratch = Path(tempfile.mkdtemp(prefix="fingerprint-"))
    os.environ["INSPECT_CACHE_DIR"] = str(scratch / "cache")
    os.environ["DRIVE_EVALS_CACHE"] = str(scratch / "derived")
    from inspect_ai import eval as inspect_eval

    from drive_evals.report import write_report

    logs = scratch / "logs"
    result: dict[str, object] = {}
    for task, args in TASKS:
        [log] = inspect_eval(task, task_args=args, log_dir=str(logs), display="none", **CHANCE)  # type: ignore[arg-type]
        assert log.status == "success" and log.results is not None, log.error
        metrics = {
            f"{score.name}/{name}": metric.value
            for score in log.results.scores
            for name, metric in score.metrics.items()
        }
        samples = {
            f"{sample.id}/{sample.epoch}": {
                name: {"value": s.value, "answer": s.answer, "explanation": s.explanation}
                for name, s in sorted((sample.scores or {}).items())
            }
            for sample in sorted(log.samples or [], key=lambda s: (str(s.id), s.epoch))
        }
        result[task] = {"version": log.eval.task_version, "metrics": metrics, "samples": samples}
    out.mkdir(parents=True, exist_ok=True)
    (out / "scores.json").write_text(json.dumps(result, indent=1, sort_keys=True, default=str) + "\n")
    report = out / "report"
    write_report(logs, report)
    for path in sorted(report.rglob("*")):
        if path.suffix in VOLATILE_REPORT_FILES:
            path.unlink()
        elif path.is_file():
            text = LOG_NAME.sub(
                r"LOG_\1.eval", path.read_text().replace(str(logs), "LOGS").replace(str(report), "REPORT")
            )
            path.write_text(text)


if __name__ == "__main__":
    fingerprint(Path(sys.argv[1]))
