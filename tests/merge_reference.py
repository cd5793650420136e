"""The merge of shard logs as `drive-evals merge-shards` did it before it copied the sample members (2c3e92f):
every shard read in full through Inspect, the samples gathered, the metrics recomputed, the whole log written by
Inspect's `write_eval_log`. Kept as the reference the copying merge must equal (tests/test_merge_copy.py); the
shard checks are not repeated here.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from pathlib import Path

from inspect_ai.log import EvalLog, read_eval_log, recompute_metrics, write_eval_log

from drive_evals.cli.merge import MERGED_FROM_KEY, _summed
from drive_evals.shard import SHARD_KEY
from drive_evals.started_samples import missing_from_log


def reference_merge(paths: Sequence[str | Path], out: Path) -> None:
    """The shard logs, given in shard order, merged into `out` through Inspect's own reading and writing."""
    logs = [read_eval_log(str(path)) for path in paths]
    merged = logs[0].model_copy(update={"samples": None}).model_copy(deep=True)
    samples = [sample for log in logs for sample in log.samples or []]
    merged.samples = sorted(samples, key=lambda sample: (str(sample.id), sample.epoch))
    header = merged.eval
    header.eval_id = uuid.uuid4().hex
    header.task_args = {**header.task_args, SHARD_KEY: None}
    header.task_args_passed = {k: v for k, v in header.task_args_passed.items() if k != SHARD_KEY}
    header.metadata = {**(header.metadata or {}), SHARD_KEY: None, MERGED_FROM_KEY: [Path(p).name for p in paths]}
    header.dataset.samples = sum(log.eval.dataset.samples or 0 for log in logs)
    header.dataset.sample_ids = list(dict.fromkeys(sample.id for sample in merged.samples))
    merged.stats.started_at = min(log.stats.started_at for log in logs)
    merged.stats.completed_at = max(log.stats.completed_at for log in logs)
    merged.stats.model_usage = _summed([log.stats.model_usage for log in logs])
    merged.stats.role_usage = _summed([log.stats.role_usage for log in logs])
    with missing_from_log(merged):
        recompute_metrics(merged)
    if merged.results is not None:
        merged.results.total_samples = sum(log.results.total_samples for log in logs if log.results)
        logged = [log.results.logged_samples if log.results else None for log in logs]
        merged.results.logged_samples = None if None in logged else sum(n or 0 for n in logged)
    write_eval_log(merged, str(out))


def shard_order(logs: Sequence[EvalLog]) -> list[str]:
    """The logs' locations in shard order (1/n first)."""
    return [
        log.location
        for log in sorted(logs, key=lambda log: int(str((log.eval.metadata or {})[SHARD_KEY]).partition("/")[0]))
    ]
