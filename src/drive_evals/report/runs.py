"""Reading a log directory into runs: one finished eval of a known benchmark, its metrics, settings and units.

Per-unit values come from the sample summaries (scores and the small metadata fields survive there intact), so the
report never loads transcripts or images, even for full-size logs.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspect_ai.log import (
    EvalLog,
    EvalSampleSummary,
    list_eval_logs,
    read_eval_log,
    read_eval_log_sample_summaries,
)
from inspect_ai.log._file import without_merged_shards
from inspect_ai.model import ModelConfig

from drive_evals.benchmark import (
    DEFAULT_GRADER_KEY,
    GRADER_ROLE,
    JUDGE_ENABLED_KEY,
    Benchmark,
    UnitMetric,
    benchmark_of,
)
from drive_evals.chance import effective_model_args
from drive_evals.official_data import OFFICIAL_DATA_KEY, not_official, official_data
from drive_evals.replies import rebuilt_count
from drive_evals.shard import SHARD_KEY
from drive_evals.stopping.guarantee import stop_note
from drive_evals.stopping.manager import MANAGER as STOP_MANAGER

SIZE_ARGS = frozenset({"cell_size"})
"""Task arguments that are a WIDTHxHEIGHT size; the task logs them as a [width, height] list."""
SAMPLE_SET = "sample set"
TASK_VERSION = "task version"
"""A task's `version` (CHANGELOG.md): runs of different versions may score differently by design, so they are
never compared with each other."""
JUDGE_SETTING = "judge"
"""The setting of a judged benchmark's runs that names its judge (`Benchmark.judged`)."""
GENERATE_PREFIX = "gen."
DEMO_DATA = "demo"
BLIND_ARG = "blind"
SUMMARISED_ARGS = frozenset({"data", "revision", JUDGE_SETTING, BLIND_ARG, SHARD_KEY})
"""Task arguments shown another way: data provenance (the resolved commit, not the request), the judge model, and
the blind flag (part of the run's label); or not at all: the shard (the report reads only whole or merged runs)."""
OPERATIONAL_GENERATE = frozenset(
    {"max_retries", "timeout", "attempt_timeout", "stream_idle_timeout", "max_connections", "adaptive_connections"}
    | {"cache", "batch", "extra_headers"}
)
"""Generation settings that change how requests are sent, not what a model answers."""


MISSING = "missing"
"""Unit value: 1 for a planned unit whose sample errored (no reply, no score)."""
CREDIT_TOLERANCE = 1e-9
"""How far the mean of a run's credits may lie from its logged value (float summation order: 1e-12 measured)."""
NO_CREDITS = (
    "its units give no credits that reproduce the logged value (an older task version, or epochs reduced otherwise "
    "than by their mean)"
)
REBUILT = "rebuilt"
"""Unit value: the share of the unit's epochs whose reply was rebuilt from Inspect's parts (`replies.rebuilt_count`)."""


@dataclass(frozen=True)
class Unit:
    """One sample's score values (averaged over epochs) and the keys that cluster and group it."""

    cluster: str
    group: str
    values: dict[str, float]
    levels: dict[str, str] = field(default_factory=dict)
    """Breakdown dimension -> this sample's level (from its metadata)."""
    outcomes: dict[str, dict[str, float]] = field(default_factory=dict)
    """Outcome dimension -> level -> share of this sample's epochs with that outcome."""
    credits: dict[str, tuple[float, float]] = field(default_factory=dict)
    """Credit metric (`Benchmark.credit_metrics`) -> this unit's (credit, upper), where it has one."""


@dataclass
class Run:
    """One successful eval of a benchmark task on one model."""

    benchmark: Benchmark
    log_path: str
    log_name: str
    created: str
    model: str
    model_args: dict[str, Any]
    generate: dict[str, Any]
    task_args: dict[str, Any]
    metadata: dict[str, Any]
    judge: str | None
    metrics: dict[str, float]
    """The benchmark scorer's metrics by name."""
    all_metrics: list[tuple[str, str, float]]
    """(scorer, metric, value) for every metric in the log, known or not."""
    units: dict[str, Unit]
    sample_set: str
    epochs: int
    task_version: str
    notes: list[str] = field(default_factory=list)
    label: str = ""
    partial: str | None = None
    """`N of M samples` when the run evaluated part of its dataset (`--limit`, `--sample-id`); None for all of it."""
    stopping: dict[str, Any] | None = None
    """The stop rule's record (`results.early_stopping.metadata`, docs/early-stopping.md); None without a rule."""

    @property
    def stopped(self) -> bool:
        """A stop rule skipped some of its samples: not a full run, compared with none (its intervals after the
        stop are the rule's own, valid at every look)."""
        return (
            self.stopping is not None and not self.stopping.get("shadow") and bool(self.stopping.get("samples_skipped"))
        )

    @property
    def blind(self) -> bool:
        """A no-image control run (`-T blind=true`), shown beside its normal run rather than ranked with it."""
        value = self.task_args.get(BLIND_ARG, self.metadata.get(BLIND_ARG, False))
        return value is True or str(value).lower() == "true"

    @property
    def demo(self) -> bool:
        """The run read the synthetic demo data shipped with the package (`-T data=demo`)."""
        data = self.metadata.get("data")
        source = data.get("source") if isinstance(data, dict) else self.task_args.get("data")
        return source == DEMO_DATA

    @property
    def not_official(self) -> list[str] | None:
        """The counts that differ from the official set's when the run read another copy (`official_data`), as the
        task logged them; checked here for a log written before the task logged it. None: the official set, the
        demo, or data no official count is known for."""
        checked = self.metadata.get(OFFICIAL_DATA_KEY)
        if not isinstance(checked, dict):
            checked = official_data(self.benchmark, self.metadata)
        return not_official(checked)

    @property
    def data(self) -> str:
        """The data the run read: source and resolved commit (or path), as the task logged it."""
        data = self.metadata.get("data")
        if not isinstance(data, dict):
            return str(self.task_args.get("data", "?"))
        if data.get("commit"):
            return f"{data.get('source')}:{data.get('repo_id')}@{str(data['commit'])[:12]}"
        details = data.get("repo_id") or data.get("path")
        revision = f"@{data['revision']}" if data.get("revision") else ""
        return f"{data.get('source')}:{details}{revision}" if details and data.get("source") != "demo" else "demo"

    def settings(self) -> dict[str, str]:
        """Everything that can make two runs differ, as display strings (model identity excluded).

        Task arguments are shown as the task resolved them (its metadata) where it logs them, so that a default and
        the same value spelled out compare equal, and in the notation of `-T name=value` (`800x450`, `false`, `50`).
        A setting the task logs as None because it is unused (the LiDAR range with `lidar=false`) shows its argument.
        """
        settings = {
            TASK_VERSION: self.task_version,
            "data": self.data,
            SAMPLE_SET: self.sample_set,
            "epochs": str(self.epochs),
        }
        for name, value in sorted(self.task_args.items()):
            resolved = self.metadata.get(name)
            if name not in SUMMARISED_ARGS and not (value is None and resolved is None):  # unset: no `-T` spells it
                settings[name] = _show(value if resolved is None else resolved, size=name in SIZE_ARGS)
        if self.benchmark.judged:
            settings[JUDGE_SETTING] = self.judge or "off"
        settings.update({GENERATE_PREFIX + name: _show(value) for name, value in sorted(self.generate.items())})
        return settings

    def comparability_key(self) -> tuple[tuple[str, str], ...]:
        """Settings that must be equal for unit-level comparison: task version, data, sample set, task design, judge."""
        settings = self.settings()
        judge = [JUDGE_SETTING] if self.benchmark.judged else []
        names = list(dict.fromkeys([TASK_VERSION, "data", SAMPLE_SET, *self.benchmark.comparability, *judge]))
        return tuple((name, settings.get(name, "")) for name in names)


def load_runs(log_dir: str | Path, benchmarks: Sequence[Benchmark]) -> tuple[list[Run], list[str]]:
    """Every finished run of one of `benchmarks` under `log_dir` (recursively), and notes on what was skipped."""
    runs: list[Run] = []
    notes: list[str] = []
    # as `inspect view` lists them: shard logs that a finished merged log beside them covers are left out unread
    for info in without_merged_shards(list_eval_logs(str(log_dir), recursive=True)):
        header = read_eval_log(info, header_only=True)
        name = Path(info.name).name
        benchmark = benchmark_of(benchmarks, header.eval.task)
        if benchmark is None:
            notes.append(f"`{name}`: task `{header.eval.task}` is not a benchmark this report knows; ignored.")
            continue
        if header.status != "success" or header.results is None:
            notes.append(f"`{name}`: status `{header.status}`, no results; ignored.")
            continue
        shard = (header.eval.metadata or {}).get(SHARD_KEY)
        if shard is not None:
            notes.append(
                f"`{name}`: shard {shard} of a run; ignored (join the shards with `drive-evals merge-shards`)."
            )
            continue
        runs.append(_run(benchmark, header, info.name, name, read_eval_log_sample_summaries(info)))
    runs.sort(key=lambda run: (run.benchmark.key, run.created, run.log_name))
    return runs, notes


def run_of_log(location: str, benchmarks: Sequence[Benchmark]) -> Run | None:
    """The run one finished log holds, as the report reads it; None for another task or an unfinished run."""
    header = read_eval_log(location, header_only=True)
    benchmark = benchmark_of(benchmarks, header.eval.task)
    if benchmark is None or header.status != "success" or header.results is None:
        return None
    return _run(benchmark, header, location, Path(location).name, read_eval_log_sample_summaries(location))


def _run(benchmark: Benchmark, log: EvalLog, path: str, name: str, samples: list[EvalSampleSummary]) -> Run:
    spec = log.eval
    assert log.results is not None and log.plan is not None
    all_metrics = [(s.name, m.name, float(m.value)) for s in log.results.scores for m in s.metrics.values()]
    if benchmark.diagnostics is not None:
        all_metrics.extend((benchmark.scorer, name, value) for name, value in benchmark.diagnostics(samples).items())
    metrics = {name: value for scorer, name, value in all_metrics if scorer == benchmark.scorer}
    model_config = spec.model_generate_config.model_dump(exclude_none=True)
    task_config = log.plan.config.model_dump(exclude_none=True)
    generate = {k: v for k, v in {**model_config, **task_config}.items() if k not in OPERATIONAL_GENERATE}
    notes = [
        f"the model setting {key}={_show(value)} was overridden by the task's {key}={_show(task_config[key])}"
        for key, value in model_config.items()
        if key in task_config and task_config[key] != value
    ]
    if benchmark.scorer not in {s.name for s in log.results.scores}:
        notes.append(f"no `{benchmark.scorer}` scores in the log")
    ids = sorted(str(sample_id) for sample_id in (spec.dataset.sample_ids or []))
    digest = hashlib.sha256(json.dumps(ids).encode()).hexdigest()[:8]
    stopping = log.results.early_stopping
    record: dict[str, Any] | None = (
        dict(stopping.metadata) if stopping is not None and stopping.manager == STOP_MANAGER else None
    )
    run = Run(
        benchmark=benchmark,
        log_path=path,
        log_name=name,
        created=str(spec.created),
        model=spec.model,
        model_args=effective_model_args(spec.model, dict(spec.model_args)),
        generate=generate,
        task_args=dict(spec.task_args),
        metadata=dict(spec.metadata or {}),
        judge=_judge(log),
        metrics=metrics,
        all_metrics=all_metrics,
        units=_units(benchmark, samples),
        sample_set=f"{len(ids)} ids #{digest}",
        epochs=spec.config.epochs or 1,
        task_version=str(spec.task_version),
        notes=notes,
        partial=f"{len(ids)} of {spec.dataset.samples} samples" if len(ids) < (spec.dataset.samples or 0) else None,
        stopping=record,
    )
    if record is not None:
        run.notes.append(stop_note(record))
    if run.stopped and record is not None:
        at = record.get("stopped_at") or {}
        run.partial = (
            f"stopped early by {record.get('rule')} after {at.get('clusters')} of {record.get('clusters')} "
            f"{benchmark.cluster_key}s: {record.get('decision')}"
        )
        run.sample_set += " stopped early"
    return run


def _judge(log: EvalLog) -> str | None:
    """The judge model(s) bound to the grader role, the task's default judge when unbound; None when disabled or the
    benchmark has no judge."""
    metadata = log.eval.metadata or {}
    if not metadata.get(JUDGE_ENABLED_KEY):
        return None
    bound = (log.eval.model_roles or {}).get(GRADER_ROLE)
    if bound is None:
        return f"{metadata.get(DEFAULT_GRADER_KEY, '?')} (default)"
    configs: list[ModelConfig] = bound if isinstance(bound, list) else [bound]
    return " + ".join(config.model for config in configs)


def _units(benchmark: Benchmark, samples: list[EvalSampleSummary]) -> dict[str, Unit]:
    """Scored and errored samples by id; with epochs, each score value is averaged over the epochs that have it."""
    values: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    keys: dict[str, tuple[str, str]] = {}
    levels: dict[str, dict[str, str]] = {}
    outcomes: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    spec = benchmark.breakdown
    errored: dict[str, EvalSampleSummary] = {}
    metadata_of: dict[str, dict[str, Any]] = {}
    for sample in samples:
        score = (sample.scores or {}).get(benchmark.scorer)
        if score is None and sample.error is not None:
            errored[str(sample.id)] = sample
        if score is None or not isinstance(score.value, dict):
            continue
        sample_id, metadata = str(sample.id), sample.metadata or {}
        keys[sample_id], metadata_of[sample_id] = _unit_keys(benchmark, sample), metadata
        for key, value in score.value.items():
            if isinstance(value, (int, float)) and not math.isnan(value):
                values[sample_id][key].append(float(value))
        values[sample_id][REBUILT].append(float(rebuilt_count(score.metadata)))
        if spec is not None:
            levels[sample_id] = spec.levels(metadata)
            for dimension, level in spec.outcomes(score, metadata).items():
                outcomes[sample_id][dimension].append(level)
    # An errored sample in no epoch scored is a planned unit without a reply: it counts as the official scorer
    # counts a missing reply (the benchmark's `missing_values`), as the log's metrics count it.
    for sample_id, sample in errored.items():
        if sample_id not in keys:
            keys[sample_id], metadata_of[sample_id] = _unit_keys(benchmark, sample), sample.metadata or {}
            values[sample_id] = {key: [value] for key, value in {**benchmark.missing_values, MISSING: 1.0}.items()}
            if spec is not None:
                levels[sample_id] = spec.levels(sample.metadata or {})
    units = {
        sample_id: Unit(
            *keys[sample_id],
            {k: sum(v) / len(v) for k, v in values[sample_id].items()},
            levels.get(sample_id, {}),
            {
                d: {level: seen.count(level) / len(seen) for level in set(seen)}
                for d, seen in outcomes[sample_id].items()
            },
        )
        for sample_id in keys
    }
    for credit in benchmark.credit_metrics:
        found = credit.credits([(unit.values, metadata_of[sample_id]) for sample_id, unit in units.items()])
        for unit, pair in zip(units.values(), found or [], strict=False):
            if pair is not None:
                unit.credits[credit.name] = pair
    return units


def _unit_keys(benchmark: Benchmark, sample: EvalSampleSummary) -> tuple[str, str]:
    """(cluster, group) of a sample."""
    metadata = sample.metadata or {}
    group = str(metadata.get(benchmark.group_key, "")) if benchmark.group_key else ""
    return str(metadata.get(benchmark.cluster_key, sample.id)), group


def missing_count(run: Run) -> int:
    """Units planned but without a reply: their sample errored in every epoch."""
    return sum(unit.values.get(MISSING) == 1.0 for unit in run.units.values())


def rebuilt_units(run: Run) -> float:
    """Units whose reply was rebuilt, not read raw (a share of a unit where only some of its epochs were)."""
    total = sum(unit.values.get(REBUILT, 0.0) for unit in run.units.values())
    return int(total) if float(total).is_integer() else round(total, 2)


def unit_value(unit: Unit, metric: UnitMetric) -> float | None:
    """The unit's value for `metric`, or None when the unit does not count towards it."""
    if metric.subset is not None and unit.group != metric.subset:
        return None
    if metric.counted_key is not None and unit.values.get(metric.counted_key) != 1.0:
        return None
    return unit.values.get(metric.value_key)


def unit_credits(run: Run, metric: str) -> dict[str, tuple[float, float]] | None:
    """Unit id -> (credit, upper) of a credit metric, when the credits' mean is the logged value (not on a log of an
    older task version, nor where epochs were reduced otherwise than by their mean); None otherwise."""
    credits = {sample_id: unit.credits[metric] for sample_id, unit in run.units.items() if metric in unit.credits}
    logged = run.metrics.get(metric, math.nan)
    if not credits or math.isnan(logged):
        return None
    mean = sum(value for value, _ in credits.values()) / len(credits)
    return credits if abs(mean - logged) <= CREDIT_TOLERANCE else None


def _show(value: Any, size: bool = False) -> str:
    """A setting as a user types it: `false`, `50` (not `50.0`), `yaw,depth`, and sizes as `800x450`."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, (list, tuple)):
        return ("x" if size else ",").join(_show(item) for item in value)
    if isinstance(value, dict):
        return json.dumps(value, sort_keys=True)
    return str(value)
