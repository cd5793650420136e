"""The samples a run started, so that metrics can count the ones that errored: Inspect hands metrics none of them.

("Started", not "attempted": attempts are the judge's tries at one sample, `-T judge_attempts`.)

With `--fail-on-error` below 1 or `--continue-on-fail`, a sample that errors has no score, and Inspect computes
every metric over the samples that have one. The official scorers' denominators are the planned units (a missing
SURDS reply is invalid and scores 0), so the metrics must see the errored units too. Where that count is known:

- live, the first solver step (`record_start`) notes every sample it starts, with the metadata the metrics
  group and cluster by; a sample that then errors is one this run started and did not score. Samples left out by
  `--limit` or `--sample-id` never start, so they are not counted. `inspect eval-retry` re-runs only the errored
  samples: once they succeed, nothing is missing and the headline is the full run's.
- from a finished log (`drive-evals merge-shards`, which recomputes metrics), the samples that carry an error:
  `missing_from_log` binds them for the duration of the recompute.

Started samples are kept per Task object and per model; the metric picks its run's record by the samples it was given
(several runs of one benchmark and model can share a process, e.g. an eval-set with a blind control).

Inspect also computes the metrics while the run is going, for its live progress line, over the samples finished so
far: a sample still running is then neither scored nor missing. `running` says when that is the case (a sample of
this run's eval is active), so that `missing_units` leaves running samples out and the headline metrics can stay
NaN until the run is over (docs/console.md, The live progress metric).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from inspect_ai.log import EvalLog
from inspect_ai.log._samples import active_samples, sample_active
from inspect_ai.model._model import active_model
from inspect_ai.scorer import SampleScore
from inspect_ai.solver import Generate, Solver, TaskState, solver

from drive_evals.suite import benchmark_scorers

MissingUnit = dict[str, Any]
"""A unit without a score: its `id` and the sample metadata its benchmark's metrics read of it."""


class StartedSamples:
    """The samples one Task object started, by model (`_model_key`): sample id -> kept metadata."""

    def __init__(self, kept: Sequence[str] = ()) -> None:
        self.kept = tuple(kept)
        """The sample metadata keys the task's metrics read of a missing unit (SURDS: subset and image)."""
        self.by_model: dict[str, dict[str, MissingUnit]] = {}
        self.evals: dict[str, set[str]] = {}
        """Model -> the Inspect eval ids its samples ran in (one per run; a retry of the Task object adds one)."""
        _ALL.append(self)

    def add(self, model: str, sample_id: str, metadata: Mapping[str, Any], eval_id: str | None = None) -> None:
        kept = {key: metadata[key] for key in self.kept if key in metadata}
        self.by_model.setdefault(model, {})[sample_id] = {"id": sample_id, **kept}
        if eval_id is not None:
            self.evals.setdefault(model, set()).add(eval_id)


_ALL: list[StartedSamples] = []
"""Every Task object's started samples in this process (a handful per run)."""
_FROM_LOG: ContextVar[list[MissingUnit] | None] = ContextVar("drive_evals_missing_from_log", default=None)


@solver
def record_start(started: StartedSamples) -> Solver:
    """First solver step: note the sample as started (see the module docstring); changes nothing else."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        active = sample_active()
        started.add(_model_key(), str(state.sample_id), state.metadata, active.eval_id if active else None)
        return state

    return solve


def missing_units(scores: Sequence[SampleScore]) -> list[MissingUnit]:
    """The units this run started (or its log holds with an error) that have no score among `scores` and are not
    still running."""
    bound = _FROM_LOG.get()
    scored = {str(score.sample_id) for score in scores}
    if bound is not None:
        return [unit for unit in bound if unit["id"] not in scored]
    run = _this_run(scores)
    if run is None:
        return []
    started, evals = run
    active = _running_ids(evals)
    return [unit for sample_id, unit in started.items() if sample_id not in scored and sample_id not in active]


def running(scores: Sequence[SampleScore]) -> bool:
    """Whether samples of this run are still running: the metrics are then being computed for Inspect's live
    progress line, over the samples finished so far, not for the run's results."""
    if _FROM_LOG.get() is not None:
        return False
    run = _this_run(scores)
    return run is not None and bool(_running_ids(run[1]))


def _model_key() -> str:
    """The active model, told apart from another of the same name (replicates with other seeds in one eval-set)."""
    model = active_model()
    return f"{model}#{id(model)}" if model is not None else ""


def _this_run(scores: Sequence[SampleScore]) -> tuple[dict[str, MissingUnit], set[str]] | None:
    """This run's attempted units and eval ids, for the active model; None outside a run (or before any sample)."""
    model = _model_key()
    scored = {str(score.sample_id) for score in scores}
    runs = [attempts for attempts in _ALL if model in attempts.by_model]
    if not model or not runs or (not scored and len(runs) > 1):
        return None  # no scores to tell several Task objects of this model apart (an eval-set of several tasks)
    # This run's record holds the most of the scored samples (an eval-retry's holds only those it re-ran); between
    # equals (a blind and a normal run share sample ids) the one with fewest unscored samples is this run.
    chosen = min(
        runs,
        key=lambda a: (-len(a.by_model[model].keys() & scored), len(a.by_model[model].keys() - scored)),
    )
    if scored and not chosen.by_model[model].keys() & scored:
        return None  # none of these samples: an earlier run's model is still set (metrics computed outside a run)
    return chosen.by_model[model], chosen.evals.get(model, set())


def _running_ids(evals: set[str]) -> set[str]:
    """Ids of the samples now running in these Inspect evals (a sample leaves the list before it is reported)."""
    return {str(active.sample.id) for active in active_samples() if active.eval_id in evals}


MISSING_UNITS = "missing_units"
"""The metric that counts a run's errored units, the one name every benchmark logs it under."""
MISSING_METRICS = (MISSING_UNITS, "missing_samples")
"""`missing_units`, and `missing_samples`, its name in DriveLMM-o1 and DriveBench logs written before 2026-12."""


def missing_warning(log: EvalLog) -> str | None:
    """The end-of-run warning for a log with errored units, or None: how many, what they count as, the fix."""
    for score in log.results.scores if log.results else []:
        if score.name not in benchmark_scorers():
            continue
        found = next((score.metrics[m].value for m in MISSING_METRICS if m in score.metrics), 0)
        if found:
            return (
                f"{log.eval.task} ({log.eval.model}): {found:g} of {log.results.total_samples if log.results else '?'}"
                " samples errored and have no reply; they stay in the denominators, counted as the official scorer "
                "counts a missing reply. Run them with `inspect eval-retry` on this log."
            )
    return None


@contextmanager
def missing_from_log(log: EvalLog) -> Iterator[None]:
    """While recomputing `log`'s metrics, count its errored samples (and no live run's) as missing."""
    units = [
        {"id": str(sample.id), **sample.metadata}
        for sample in log.samples or []
        if sample.error is not None and not sample.scores
    ]
    token = _FROM_LOG.set(units)
    try:
        yield
    finally:
        _FROM_LOG.reset(token)
