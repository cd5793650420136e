"""Units a run attempted, so that metrics can count the ones that errored: Inspect hands metrics none of them.

With `--fail-on-error` below 1 or `--continue-on-fail`, a sample that errors has no score, and Inspect computes
every metric over the samples that have one. The official scorers' denominators are the planned units (a missing
SURDS reply is invalid and scores 0), so the metrics must see the errored units too. Where that count is known:

- live, the first solver step (`record_attempt`) notes every sample it starts, with the metadata the metrics
  group and cluster by; a sample that then errors is one this run attempted and did not score. Samples left out by
  `--limit` or `--sample-id` never start, so they are not counted. `inspect eval-retry` re-runs only the errored
  samples: once they succeed, nothing is missing and the headline is the full run's.
- from a finished log (`drive-evals merge-shards`, which recomputes metrics), the samples that carry an error:
  `missing_from_log` binds them for the duration of the recompute.

Attempts are kept per Task object and per model; the metric picks its run's record by the samples it was given
(several runs of one benchmark and model can share a process, e.g. an eval-set with a blind control).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from inspect_ai.log import EvalLog
from inspect_ai.model._model import active_model
from inspect_ai.scorer import SampleScore
from inspect_ai.solver import Generate, Solver, TaskState, solver

from drive_evals.suite import BENCHMARK_SCORERS

KEPT_METADATA = ("subset", "image", "frame", "task", "row", "dindex", "question", "answer")
"""The sample metadata the metrics group (SURDS subset) and cluster (image, frame) missing units by; VLADBench
regroups a task's questions by row and dindex, and reads the question and answer."""

MissingUnit = dict[str, Any]
"""A unit without a score: its `id` and the `KEPT_METADATA` it has."""


class Attempts:
    """The samples one Task object started, by model: sample id -> kept metadata."""

    def __init__(self) -> None:
        self.by_model: dict[str, dict[str, MissingUnit]] = {}
        _ALL.append(self)

    def add(self, model: str, sample_id: str, metadata: Mapping[str, Any]) -> None:
        kept = {key: metadata[key] for key in KEPT_METADATA if key in metadata}
        self.by_model.setdefault(model, {})[sample_id] = {"id": sample_id, **kept}


_ALL: list[Attempts] = []
"""Every Task object's attempts in this process (a handful per run)."""
_FROM_LOG: ContextVar[list[MissingUnit] | None] = ContextVar("drive_evals_missing_from_log", default=None)


@solver
def record_attempt(attempts: Attempts) -> Solver:
    """First solver step: note the sample as attempted (see the module docstring); changes nothing else."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        attempts.add(str(state.model), str(state.sample_id), state.metadata)
        return state

    return solve


def missing_units(scores: Sequence[SampleScore]) -> list[MissingUnit]:
    """The units this run attempted (or its log holds with an error) that have no score among `scores`."""
    bound = _FROM_LOG.get()
    scored = {str(score.sample_id) for score in scores}
    if bound is not None:
        return [unit for unit in bound if unit["id"] not in scored]
    model = active_model()
    runs = [started for attempts in _ALL if (started := attempts.by_model.get(str(model))) is not None]
    if model is None or not runs:
        return []
    # This run's record holds the most of the scored samples (an eval-retry's holds only those it re-ran); between
    # equals (a blind and a normal run share sample ids) the one with fewest unscored samples is this run.
    started = min(runs, key=lambda units: (-len(units.keys() & scored), len(units.keys() - scored)))
    return [unit for sample_id, unit in started.items() if sample_id not in scored]


MISSING_METRICS = ("missing_units", "missing_samples")
"""The SURDS (and VLADBench) and DriveLMM-o1 metric that counts a run's errored units."""


def missing_warning(log: EvalLog) -> str | None:
    """The end-of-run warning for a log with errored units, or None: how many, what they count as, the fix."""
    for score in log.results.scores if log.results else []:
        if score.name not in BENCHMARK_SCORERS:
            continue
        found = next((score.metrics[m].value for m in MISSING_METRICS if m in score.metrics), 0)
        if found:
            return (
                f"{log.eval.task} ({log.eval.model}): {found:g} of {log.results.total_samples if log.results else '?'}"
                " samples errored and have no reply; they stay in the denominators as missing replies "
                "(SURDS: invalid, 0; DriveLMM-o1: unjudged). Run them with `inspect eval-retry` on this log."
            )
    return None


@contextmanager
def missing_from_log(log: EvalLog) -> Iterator[None]:
    """While recomputing `log`'s metrics, count its errored samples (and no live run's) as missing."""
    units = [
        {"id": str(sample.id), **{k: sample.metadata[k] for k in KEPT_METADATA if k in sample.metadata}}
        for sample in log.samples or []
        if sample.error is not None and not sample.scores
    ]
    token = _FROM_LOG.set(units)
    try:
        yield
    finally:
        _FROM_LOG.reset(token)
