"""Print what the suite computes on the demo data, so a refactor can be shown to change none of it.

    python tools/behaviour_fingerprint.py OUT_DIR

Runs every task of the registry (SURDS, DriveLMM-o1 and DriveBench with the chance judge, the judge
meta-evaluation, VLADBench) in-process on the demo data with the seeded chance model, with empty caches, then
writes to OUT_DIR: `scores.json` (every results metric, every sample's score value, answer and explanation, and a
hash of each model and judge request it sent, by task) and the `drive-evals report` of those logs
(`report/report.md` and its CSV tables). Run it before and after a change and `diff -r` the two directories: a
pure refactor leaves them byte-identical. Log timestamps, run ids and file paths are left out because they differ
between any two runs.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
import tempfile
from pathlib import Path

SEED = 0
CHANCE = {"model": "chance/random", "model_args": {"seed": SEED}, "model_roles": {"grader": "chance/random"}}
LOG_NAME = re.compile(r"\d{4}-\d\d-\d\dT[\d-]+_([\w-]+?)_[A-Za-z0-9]{22}\.eval")
"""Inspect's log file name: start time, task, run id (all differ between two runs of the same code)."""
VOLATILE_REPORT_FILES = (".html", ".png")
"""Embedded images and plot bytes depend on matplotlib's renderer, not on our numbers; the tables carry them."""


def request_hashes(sample: object) -> list[str]:
    """A hash of every model call's messages, tools and config, in order (message ids are random: left out)."""
    from inspect_ai.event import ModelEvent

    hashes = []
    for event in getattr(sample, "events", []):
        if isinstance(event, ModelEvent):
            messages = [message.model_dump(exclude={"id"}) for message in event.input]
            request = {"model": event.model, "role": event.role, "input": messages, "config": event.config.model_dump()}
            hashes.append(hashlib.sha256(json.dumps(request, sort_keys=True, default=str).encode()).hexdigest()[:16])
    return hashes


def fingerprint(out: Path) -> None:
    scratch = Path(tempfile.mkdtemp(prefix="fingerprint-"))
    os.environ["INSPECT_CACHE_DIR"] = str(scratch / "cache")
    os.environ["DRIVE_EVALS_CACHE"] = str(scratch / "derived")
    from inspect_ai import eval as inspect_eval

    from drive_evals._registry import BENCHMARKS, TASKS
    from drive_evals.report import write_report

    logs = scratch / "logs"
    result: dict[str, object] = {}
    for task in TASKS:  # every benchmark and judge meta-evaluation of the registry, on its demo data
        [log] = inspect_eval(task.qualified, task_args={"data": "demo"}, log_dir=str(logs), display="none", **CHANCE)  # type: ignore[arg-type]
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
            | {"requests": request_hashes(sample)}
            for sample in sorted(log.samples or [], key=lambda s: (str(s.id), s.epoch))
        }
        result[task.qualified] = {"version": log.eval.task_version, "metrics": metrics, "samples": samples}
    out.mkdir(parents=True, exist_ok=True)
    (out / "scores.json").write_text(json.dumps(result, indent=1, sort_keys=True, default=str) + "\n")
    report = out / "report"
    write_report(logs, report, BENCHMARKS)
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
