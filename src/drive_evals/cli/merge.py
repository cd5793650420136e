"""`drive-evals merge-shards`: join the logs of one run's shards (`-T shard=i/n`) into one normal Inspect log.

The merged log holds every shard's samples and metrics recomputed from them by Inspect's own `recompute_metrics`,
with the metric definitions the task recorded in its log: the same numbers and clustered standard errors as an
unsharded run (shards never split a cluster, drive_evals/shard.py). Being a normal log, it is read as one run by
`drive-evals report`, `inspect view` and anything else that reads Inspect logs; no scorer or model is called.

The samples are not parsed into Inspect's models nor written again: each sample member of the shard logs is copied
as stored (drive_evals/cli/eval_zip.py), and only what the metrics read of it (id, epoch, scores, metadata, error)
is taken from its JSON. Only the members describing the whole run are written anew: the header, the start record,
the summaries and the reductions.
"""

from __future__ import annotations

import uuid
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlparse
from urllib.request import url2pathname

from inspect_ai.log import EvalLog, EvalSample, read_eval_log, recompute_metrics
from inspect_ai.model import ModelUsage

import drive_evals._registry  # noqa: F401  # registers this package's metrics, which the recompute looks up
from drive_evals.cli import eval_zip
from drive_evals.errors import DriveEvalsError
from drive_evals.shard import SHARD_KEY
from drive_evals.started_samples import missing_from_log

MERGED_FROM_KEY = "merged_shards"
"""Task metadata key of a merged log: the file names of its shards, in shard order."""
FILE_SCHEME = "file://"
METRIC_FIELDS = ("id", "epoch", "scores", "metadata", "error")
"""What `recompute_metrics` (and `missing_from_log`) read of a sample."""

SampleKey = tuple[str, int]
"""A sample record's (id as text, epoch): the merged log's order."""


class MergeError(DriveEvalsError, ValueError):
    """The logs are not the complete, finished shards of one run; the message names the file."""


@dataclass(frozen=True)
class MergedLog:
    """What `merge_shards` wrote: the merged log's header (no samples) and its number of sample records."""

    header: EvalLog
    samples: int


@dataclass
class _Shard:
    """One shard log: its header, its open archive and its sample members by (id, epoch)."""

    log: EvalLog
    name: str
    archive: zipfile.ZipFile
    members: dict[SampleKey, zipfile.ZipInfo]


def merge_shards(paths: Sequence[str | Path], out: str | Path) -> MergedLog:
    """Check the logs are the n finished shards of one run, and write the merged log to `out`."""
    archives: list[zipfile.ZipFile] = []
    try:
        shards = []
        for location in paths:
            path = _local_path(location)
            archive = zipfile.ZipFile(path)
            archives.append(archive)
            log = read_eval_log(str(path), header_only=True)
            shards.append(_Shard(log, path.name, archive, _members_by_key(archive)))
        ordered = _check_shards(shards)
        samples = sorted((sample for shard in ordered for sample in _metric_samples(shard)), key=_sort_key)
        merged = _merge(ordered, samples)
        _write(_local_path(out), merged, ordered)
    finally:
        for archive in archives:
            archive.close()
    return MergedLog(merged.model_copy(update={"samples": None}), len(samples))


def _local_path(location: str | Path) -> Path:
    """A path or `file://` URI (Inspect's log locations) as a path; the zip members are copied on this machine."""
    text = str(location)
    if text.startswith(FILE_SCHEME):
        return Path(url2pathname(urlparse(text).path))
    if "://" in text:
        raise MergeError(f"{text}: not a local file (copy the shard logs to this machine to merge them)")
    return Path(text)


def _sort_key(sample: EvalSample) -> SampleKey:
    return str(sample.id), sample.epoch


def _members_by_key(archive: zipfile.ZipFile) -> dict[SampleKey, zipfile.ZipInfo]:
    """The sample members, by the (id, epoch) their name records (`samples/<id>_epoch_<n>.json`)."""
    found: dict[SampleKey, zipfile.ZipInfo] = {}
    for name, info in eval_zip.sample_members(archive).items():
        stem, _, epoch = name.removeprefix(eval_zip.SAMPLES_PREFIX).removesuffix(".json").rpartition("_epoch_")
        found[(stem, int(epoch))] = info
    return found


def _metric_samples(shard: _Shard) -> list[EvalSample]:
    """The shard's samples holding only what the metrics read: no messages, events or attachments are validated."""
    samples = []
    for key, info in shard.members.items():
        data = eval_zip.read_json(shard.archive, info)
        kept = {field: data[field] for field in METRIC_FIELDS if field in data}
        sample = EvalSample.model_validate({"input": "", "target": "", **kept})
        if _sort_key(sample) != key:
            raise MergeError(f"{shard.name}: member {info.filename} holds sample {sample.id}, epoch {sample.epoch}")
        samples.append(sample)
    return samples


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


def _check_shards(shards: Sequence[_Shard]) -> list[_Shard]:
    """The shards in shard order, after checking they are the finished shards 1..n of one run."""
    if not shards:
        raise MergeError("no logs given")
    positions = [_shard_of(shard.log, shard.name) for shard in shards]
    count, first = positions[0][1], shards[0]
    for shard, (index, shard_count) in zip(shards, positions, strict=True):
        name = shard.name
        if shard_count != count:
            raise MergeError(f"{name}: shard {index}/{shard_count}, but {first.name} is one of {count} shards")
        if shard.log.status != "success":
            raise MergeError(f"{name}: status {shard.log.status}; finish it first with `inspect eval-retry {name}`")
        if not shard.members:
            raise MergeError(f"{name}: holds no samples (run without --no-log-samples)")
        if _run_identity(shard.log) != _run_identity(first.log):
            raise MergeError(f"{name}: not the same run as {first.name} (task, version, model, -T or epochs differ)")
    indices = sorted(index for index, _ in positions)
    if indices != list(range(1, count + 1)):
        missing = sorted(set(range(1, count + 1)) - set(indices))
        repeated = sorted({i for i in indices if indices.count(i) > 1})
        raise MergeError(f"shards of {count}: missing {missing or 'none'}, given twice {repeated or 'none'}")
    keys = [key for shard in shards for key in shard.members]
    if len(set(keys)) != len(keys):
        raise MergeError("a sample appears in two shards: the logs are not shards of one dataset")
    return [shard for _, shard in sorted(zip(positions, shards, strict=True), key=lambda row: row[0][0])]


def _merge(shards: Sequence[_Shard], samples: list[EvalSample]) -> EvalLog:
    """The merged log's header, stats, results and reductions: shard 1's header, summed usage, recomputed metrics.

    `samples` are every shard's, in the merged order; the returned log holds them (as the recompute needs).
    """
    logs = [shard.log for shard in shards]
    merged = logs[0].model_copy(deep=True)  # read without samples: only the header, stats, results, reductions
    merged.samples = samples
    header = merged.eval
    header.eval_id = uuid.uuid4().hex  # a new run: the shards keep their own ids
    header.task_args = {**header.task_args, SHARD_KEY: None}  # as an unsharded run records its default
    header.task_args_passed = {k: v for k, v in header.task_args_passed.items() if k != SHARD_KEY}
    header.metadata = {**(header.metadata or {}), SHARD_KEY: None, MERGED_FROM_KEY: [shard.name for shard in shards]}
    header.dataset.samples = sum(log.eval.dataset.samples or 0 for log in logs)
    header.dataset.sample_ids = list(dict.fromkeys(sample.id for sample in samples))
    merged.recompute_tags_and_metadata()  # the log-level metadata is derived from the eval spec's
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


def _write(out: Path, merged: EvalLog, shards: Sequence[_Shard]) -> None:
    """The merged `.eval` file, in the order Inspect writes one: start record, samples, summaries, reductions,
    header. The sample members are the shards' own bytes; the summaries are the shards' own, in the same order."""
    order = [_sort_key(sample) for sample in merged.samples or []]
    source = {key: shard for shard in shards for key in shard.members}
    summaries = {key: summary for shard in shards for key, summary in _summaries(shard).items()}
    if summaries.keys() != source.keys():
        unmatched = sorted(summaries.keys() ^ source.keys())[0]
        raise MergeError(f"{source.get(unmatched, shards[0]).name}: sample {unmatched} has no summary, or no record")
    start = {"version": merged.version, "eval": merged.eval, "plan": merged.plan}
    listed = [summaries[key] for key in order]
    with eval_zip.new_archive(out) as writer:
        writer.write_json(eval_zip.START_MEMBER, start)
        for key in order:
            writer.copy(source[key].archive, source[key].members[key])
        writer.write_json(eval_zip.JOURNAL_SUMMARIES_MEMBER, listed)
        writer.write_json(eval_zip.SUMMARIES_MEMBER, listed)
        writer.write_json(eval_zip.REDUCTIONS_MEMBER, merged.reductions or [])
        writer.write_json(eval_zip.HEADER_MEMBER, eval_zip.header_member(merged))


def _summaries(shard: _Shard) -> dict[SampleKey, dict[str, Any]]:
    """The shard's sample summaries by (id, epoch), as JSON (a later summary of a sample replaces an earlier)."""
    if eval_zip.SUMMARIES_MEMBER not in shard.archive.NameToInfo:
        raise MergeError(f"{shard.name}: has no {eval_zip.SUMMARIES_MEMBER} (not a finished .eval log)")
    return {(str(s["id"]), int(s["epoch"])): s for s in eval_zip.read_json(shard.archive, eval_zip.SUMMARIES_MEMBER)}


def _summed(usages: Sequence[dict[str, ModelUsage]]) -> dict[str, ModelUsage]:
    total: dict[str, ModelUsage] = {}
    for usage in usages:
        for model, used in usage.items():
            total[model] = total[model] + used if model in total else used
    return total
