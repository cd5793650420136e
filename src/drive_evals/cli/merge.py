"""`drive-evals merge-shards`: join the logs of one run's shards (`-T shard=i/n`) into one normal Inspect log.

The merged log holds every shard's samples and metrics recomputed from them by Inspect's own `recompute_metrics`,
with the metric definitions the task recorded in its log: the same numbers and clustered standard errors as an
unsharded run (shards never split a cluster, drive_evals/shard.py). Being a normal log, it is read as one run by
`drive-evals report`, `inspect view` and anything else that reads Inspect logs; no scorer or model is called.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from inspect_ai.log import EvalLog, read_eval_log, recompute_metrics, write_eval_log
from inspect_ai.model import ModelUsage

import drive_evals._registry  # noqa: F401  # registers this package's metrics, which the recompute looks up
from drive_evals.errors import DriveEvalsError
from drive_evals.shard import SHARD_KEY
from drive_evals.started_samples import missing_from_log

MERGED_FROM_KEY = "merged_shards"
"""Task metadata key of a merged log: the file names of its shards, in shard order."""


class MergeError(DriveEvalsError, ValueError):
    """The logs are not the complete, finished shards of one run; the message names the file."""


def merge_shards(paths: Sequence[str | Path], out: str | Path) -> EvalLog:
    """Read the shard logs, check they are the n finished shards of one run, and write the merged log to `out`."""
    logs = [read_eval_log(str(path)) for path in paths]
    names = [Path(path).name for path in paths]
    ordered = _check_shards(logs, names)
    merged = _merge(ordered)
    write_eval_log(merged, str(out))
    return merged


def _shard_of(log: EvalLog, name: str) -> tuple[int, int]:
    value = (log.eval.metadata or {}).get(SHARD_KEY)
    index, _, count = str(value).partition("/")
    if value is None or not index.isdigit() or not count.isdigit():
        raise MergeError(f"{name}: not a shard (run with -T shard=i/n; its task metadata has shard={value!r})")
    return int(index), int(count)


def _run_identity(log: EvalLog) -> dict[str, Any]:
    """What must be equal in all shards of one run: everything but the shard."""
    return {
        "task": log.eval.task,
        "task_version": log.eval.task_version,
        "model": log.eval.model,
        "model_roles": log.eval.model_roles,
        "task_args": {k: v for k, v in log.eval.task_args.items() if k != SHARD_KEY},
        "epochs": log.eval.config.epochs,
        "dataset": log.eval.dataset.name,
    }


def _check_shards(logs: Sequence[EvalLog], names: Sequence[str]) -> list[tuple[EvalLog, str]]:
    """The logs and their file names in shard order, after checking they are the finished shards 1..n of one run."""
    if not logs:
        raise MergeError("no logs given")
    shards = [_shard_of(log, name) for log, name in zip(logs, names, strict=True)]
    count = shards[0][1]
    for log, name, (index, shard_count) in zip(logs, names, shards, strict=True):
        if shard_count != count:
            raise MergeError(f"{name}: shard {index}/{shard_count}, but {names[0]} is one of {count} shards")
        if log.status != "success":
            raise MergeError(f"{name}: status {log.status}; finish it first with `inspect eval-retry {name}`")
        if log.samples is None:
            raise MergeError(f"{name}: holds no samples (run without --no-log-samples)")
        if _run_identity(log) != _run_identity(logs[0]):
            raise MergeError(f"{name}: not the same run as {names[0]} (task, version, model, -T or epochs differ)")
    indices = sorted(index for index, _ in shards)
    if indices != list(range(1, count + 1)):
        missing = sorted(set(range(1, count + 1)) - set(indices))
        repeated = sorted({i for i in indices if indices.count(i) > 1})
        raise MergeError(f"shards of {count}: missing {missing or 'none'}, given twice {repeated or 'none'}")
    by_index = sorted(zip(shards, logs, names, strict=True), key=lambda row: row[0][0])
    return [(log, name) for _, log, name in by_index]


def _merge(shards: Sequence[tuple[EvalLog, str]]) -> EvalLog:
    """One log with every shard's samples, summed usage and recomputed metrics; the header is shard 1's."""
    logs = [log for log, _ in shards]
    # Shard 1's header, stats and results, copied without its samples: deep-copying them too was 15% of a merge.
    merged = logs[0].model_copy(update={"samples": None}).model_copy(deep=True)
    samples = [sample for log in logs for sample in log.samples or []]
    keys = [(sample.id, sample.epoch) for sample in samples]
    if len(set(keys)) != len(keys):
        raise MergeError("a sample appears in two shards: the logs are not shards of one dataset")
    merged.samples = sorted(samples, key=lambda sample: (str(sample.id), sample.epoch))
    header = merged.eval
    header.eval_id = uuid.uuid4().hex  # a new run: the shards keep their own ids
    header.task_args = {**header.task_args, SHARD_KEY: None}  # as an unsharded run records its default
    header.task_args_passed = {k: v for k, v in header.task_args_passed.items() if k != SHARD_KEY}
    header.metadata = {**(header.metadata or {}), SHARD_KEY: None, MERGED_FROM_KEY: [name for _, name in shards]}
    header.dataset.samples = sum(log.eval.dataset.samples or 0 for log in logs)
    header.dataset.sample_ids = list(dict.fromkeys(sample.id for sample in merged.samples))
    merged.stats.started_at = min(log.stats.started_at for log in logs)
    merged.stats.completed_at = max(log.stats.completed_at for log in logs)
    merged.stats.model_usage = _summed([log.stats.model_usage for log in logs])
    merged.stats.role_usage = _summed([log.stats.role_usage for log in logs])
    with missing_from_log(merged):  # errored samples stay in the denominators, as in the shards' own metrics
        recompute_metrics(merged)
    if merged.results is not None:
        merged.results.total_samples = sum(log.results.total_samples for log in logs if log.results)
        logged = [log.results.logged_samples if log.results else None for log in logs]
        merged.results.logged_samples = None if None in logged else sum(n or 0 for n in logged)
    return merged


def _summed(usages: Sequence[dict[str, ModelUsage]]) -> dict[str, ModelUsage]:
    total: dict[str, ModelUsage] = {}
    for usage in usages:
        for model, used in usage.items():
            total[model] = total[model] + used if model in total else used
    return total
