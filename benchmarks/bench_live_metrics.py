"""What Inspect's live metrics cost a shard process: one recomputation of every metric over the scores so far.

While samples finish, Inspect recomputes all of a task's metrics over every score so far for its display, then waits
max(0.9 s, 10 x the time it took) before the next: up to 1/11 of the process's time at the end of a long run. A
shard of `drive-evals run` shows no one those metrics (its output goes to a file), so the command passes
`--no-score-display`. This measures one recomputation on the scores of a real log, at several sample counts, with
Inspect's own `eval_results` and the metric definitions the log recorded, and the share of a core it implies.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from bench_merge import shard_logs
from common import report, table
from inspect_ai._eval.score import metrics_from_log_header, reducers_from_log_header, resolve_scorers_info
from inspect_ai._eval.task.results import eval_results
from inspect_ai.log import read_eval_log
from inspect_ai.scorer import SampleScore

import drive_evals._registry  # noqa: F401  # registers the metrics the log names

MIN_WAIT_S = 0.9
WAIT_FACTOR = 10
"""Inspect 0.3.285's throttle (inspect_ai/_eval/task/run.py, update_metrics_display_fn)."""


def share_of_core(seconds: float) -> float:
    """The share of time spent recomputing, in the steady state of the throttle."""
    return seconds / (seconds + max(MIN_WAIT_S, WAIT_FACTOR * seconds))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--log", type=Path, help="a SURDS log (default: shard 1 of bench_merge.py's run)")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    log = read_eval_log(str(args.log or shard_logs()[0]))
    scores = [
        {name: SampleScore(score=score, sample_id=s.id, sample_metadata=s.metadata) for name, score in s.scores.items()}
        for s in log.samples or []
        if s.scores
    ]
    rows = []
    for count in sorted({len(scores) // 4, len(scores) // 2, len(scores)}):
        times = []
        for _ in range(args.repeats):
            started = time.process_time()
            eval_results(
                samples=count,
                scores=scores[:count],
                reducers=reducers_from_log_header(log),
                scorers=resolve_scorers_info(log),
                metrics=metrics_from_log_header(log),
            )
            times.append(time.process_time() - started)
        median = statistics.median(times)
        rows.append(
            [
                f"{count:,}",
                f"{1000 * median:.0f} ms ({1000 * min(times):.0f}-{1000 * max(times):.0f})",
                f"{100 * share_of_core(median):.1f}%",
            ]
        )
    body = table(["scores so far", "one recomputation (CPU, median of repeats)", "share of the process's time"], rows)
    notes = [
        f"- {log.eval.task} log {Path(log.location).name}: {len(scores):,} scored samples, "
        f"{sum(len(s.metrics) for s in (log.results.scores if log.results else []))} metrics."
    ]
    report("Inspect's live metrics in a shard process", " ".join(["python", *sys.argv]), body, notes)


if __name__ == "__main__":
    main()
