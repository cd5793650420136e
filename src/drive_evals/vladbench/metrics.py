"""VLADBench metrics: the official task scores, aspect means and total, from the per-question verdicts.

A sample is one question, but a task's score is not a mean over its questions: the grounding mean IoU counts box
questions only, the judge tasks split yes/no from descriptive questions, and the tip-consistency term pairs two
questions of one sample. So the metric regroups the questions as VLMEvalKit does (per task, consecutive rows with
one `dindex`, file order) and applies `aggregate`. Values are fractions (the official numbers / 100): `total`
first (the headline), then each aspect's mean, then each task's score.

A task whose official score is undefined on the questions present (a grounding task without its box question, a
judge task without a yes/no question) is left out: that happens only while a run is in progress or under
`--limit`/`--sample-id`, since the data checks refuse a selection where it would happen in a full run.

No standard error is logged: the total is a ratio of sums with pair terms. `credits` writes it as the mean of
per-question credits with known bounds, on which a betting interval and the paired test cover (docs/statistics.md).
A question whose sample errored (`--fail-on-error` below 1, `--continue-on-fail`; `drive_evals.attempts`
finds them) counts as VLMEvalKit counts a failed call, whose error text it scores: no credit, no obey, 0 in the
pairs; `missing_units` counts them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from inspect_ai.scorer import Metric, SampleScore, Value, metric

from drive_evals.started_samples import missing_units, running
from drive_evals.vladbench.aggregate import TaskResult, aspect_scores, task_result, total_score
from drive_evals.vladbench.dataset import (
    LOCALISATION_KEY,
    PLANNED_TASK_COUNT_KEY,
    TASK_KEY,
    YES_NO_KEY,
    question_flags,
)
from drive_evals.vladbench.rules import Verdict
from drive_evals.vladbench.taxonomy import TASKS

TOTAL = "total"
CORRECT_KEY = "correct"
OBEY_KEY = "obey"
IOU_KEY = "iou"
PAIRED_KEY = "paired"
PERCENT = 100.0
MISSING_UNITS = "missing_units"
MISSING_UNIT_KEYS = (TASK_KEY, "row", "dindex", "question", "answer")
"""The sample metadata `task_results` reads of a question without a score (`started_samples.StartedSamples`)."""
MISSING_VALUE = {CORRECT_KEY: 0.0, OBEY_KEY: 0.0, IOU_KEY: 0.0, PAIRED_KEY: 1.0}
"""A question without a reply: VLMEvalKit scores the failure text (`Failed to obtain answer ...`), which earns
nothing and, in the relation and lane tasks, enters the pairs as 0."""


def verdict_of(value: Mapping[str, Any], metadata: Mapping[str, Any]) -> Verdict:
    """A question's verdict from its score value and its sample metadata (what is fixed by the data): the question
    flags as the sample stores them, or read from its text in a log written before they were (task version 2)."""
    flags = metadata
    if not has_question_flags(metadata):
        flags = question_flags(str(metadata[TASK_KEY]), str(metadata["question"]), str(metadata["answer"]))
    return Verdict(
        correct=float(value.get(CORRECT_KEY, 0.0)),
        obey=float(value.get(OBEY_KEY, 0.0)) >= 0.5,
        localisation=bool(flags[LOCALISATION_KEY]),
        iou=float(value.get(IOU_KEY, 0.0)),
        yes_no=bool(flags[YES_NO_KEY]),
        paired=float(value.get(PAIRED_KEY, 0.0)) >= 0.5,
    )


def has_question_flags(metadata: Mapping[str, Any]) -> bool:
    """The sample stores its question flags (task version 3 on), which survive Inspect's sample summaries."""
    return isinstance(metadata.get(LOCALISATION_KEY), bool) and isinstance(metadata.get(YES_NO_KEY), bool)


def task_results(rows: Sequence[tuple[Mapping[str, Any], Mapping[str, Any]]]) -> dict[str, TaskResult]:
    """(score value, sample metadata) per question -> official result per task present, in official order."""
    by_task: dict[str, list[tuple[int, str, Verdict]]] = {}
    for value, metadata in rows:
        entry = (int(metadata["row"]), str(metadata["dindex"]), verdict_of(value, metadata))
        by_task.setdefault(str(metadata[TASK_KEY]), []).append(entry)
    results: dict[str, TaskResult] = {}
    for task in TASKS:
        if task.name not in by_task:
            continue
        samples: list[list[Verdict]] = []
        previous: str | None = None
        for _, dindex, verdict in sorted(by_task[task.name], key=lambda entry: entry[0]):
            if dindex != previous:  # a new sample wherever dindex changes between consecutive rows, as officially
                samples.append([])
            samples[-1].append(verdict)
            previous = dindex
        try:
            results[task.name] = task_result(task, samples)
        except ValueError:
            continue  # undefined on the questions present: only in a partial run (see the module docstring)
    return results


def official_scores(results: Mapping[str, TaskResult]) -> dict[str, float]:
    """`total`, the aspects and the tasks as fractions."""
    if not results:
        return {TOTAL: math.nan}  # the headline is always logged (Inspect warns when it is missing)
    return {
        TOTAL: total_score(results) / PERCENT,
        **{aspect: score / PERCENT for aspect, score in aspect_scores(results).items()},
        **{name: result.score / PERCENT for name, result in results.items()},
    }


@metric
def vladbench_scores() -> Metric:
    """`total` (question-weighted over the tasks: the headline; NaN when a planned task has no question, as in a
    `--limit` run), each aspect, each task, and
    `missing_units`, the planned questions without a score (counted as failed calls)."""

    def compute(scores: list[SampleScore]) -> Value:
        rows: list[tuple[Mapping[str, Any], Mapping[str, Any]]] = [
            (score.score.value, score.sample_metadata or {}) for score in scores if isinstance(score.score.value, dict)
        ]
        missing = missing_units(scores)
        rows.extend((MISSING_VALUE, unit) for unit in missing)
        numbers = {**official_scores(task_results(rows)), MISSING_UNITS: len(missing)}
        planned = max((int(meta.get(PLANNED_TASK_COUNT_KEY, 0)) for _, meta in rows), default=0)
        if len({meta.get(TASK_KEY) for _, meta in rows}) < planned:
            numbers[TOTAL] = math.nan  # a `--limit` run without questions of some planned task has no total
        if running(scores):  # Inspect's live progress line: no headline that the final one would contradict
            numbers[TOTAL] = math.nan
        return numbers

    return compute
