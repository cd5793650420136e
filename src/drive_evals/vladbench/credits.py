"""VLADBench's official `total` as a mean of per-question credits, for its interval and paired test.

`total` is a ratio of sums (`aggregate`): N * total = sum over tasks of w2 * (obey count) + w1 * A_t + w0 * O_t, with
A_t the accuracy sum (a Judge task's descriptive accuracy times n_t) and O_t the third metric times n_t (a Grounding
task's mean IoU over its box questions, a Judge task's yes/no accuracy, twice the tip-consistency pairs). Given the
questions a run holds, every denominator is fixed, so each question's part of the sum is a credit of its own:

- obey: w2 * obey;
- accuracy: w1 * correct, scaled by n_t / (descriptive questions) for a descriptive Judge question (0 for a yes/no);
- third metric: w0 * iou * n_t / (box questions) for a box question, w0 * correct * n_t / (yes/no questions) for a
  yes/no Judge question, w0 * (its pair's count, 0 or 1) for each question of a tip-consistency pair.

So `total` is the plain mean of the credits over the questions, up to the order of float sums, and its clustered
interval is a mean's. Each credit has a known largest value (its `upper`: the credit with every part right), which
is what a bounded interval needs (`stats.betting.betting_interval`'s `uppers`). A relation question's `correct` can
exceed 1 (repeated ids are not de-duplicated, as officially): its upper is then its own value. Why, and the
coverage measured: docs/statistics.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from drive_evals.benchmark import UnitRow
from drive_evals.vladbench.aggregate import compare_and_count
from drive_evals.vladbench.dataset import TASK_KEY
from drive_evals.vladbench.metrics import has_question_flags, verdict_of
from drive_evals.vladbench.rules import Verdict
from drive_evals.vladbench.taxonomy import BY_NAME, TaskInfo

PAIRED_SCORERS = ("relation", "road_speed", "road_change")


@dataclass(frozen=True)
class Credit:
    """One question's part of N * total, and the largest it could be."""

    value: float
    upper: float


def question_credits(rows: Sequence[tuple[Mapping[str, Any], Mapping[str, Any]]]) -> list[Credit | None]:
    """(score value, sample metadata) per question -> its credit, in the order given. The mean of the credits that
    are not None is the official `total` of these questions; None for the questions of a task whose official score is
    undefined on the questions present (a Grounding task without a box question, a Judge task without a yes/no
    question), which `total` leaves out (partial runs only)."""
    by_task: dict[str, list[tuple[int, str, int, Verdict]]] = {}
    for index, (value, metadata) in enumerate(rows):
        entry = (int(metadata["row"]), str(metadata["dindex"]), index, verdict_of(value, metadata))
        by_task.setdefault(str(metadata[TASK_KEY]), []).append(entry)
    credits: list[Credit | None] = [None] * len(rows)
    for name, entries in by_task.items():
        ordered = sorted(entries, key=lambda entry: entry[0])
        verdicts = [verdict for *_, verdict in ordered]
        task_credits = _task_credits(BY_NAME[name], verdicts, _pair_credits(BY_NAME[name], ordered))
        if task_credits is None:
            continue  # the task's score is undefined here: its questions stay None
        for (_, _, index, _), credit in zip(ordered, task_credits, strict=True):
            credits[index] = credit
    return credits


def unit_credits(rows: Sequence[UnitRow]) -> list[tuple[float, float] | None] | None:
    """`question_credits` as the report asks for them (`Benchmark.credit_metrics`): (credit, upper) per question;
    None for a log written before the samples stored their question flags (task version 2), whose summaries may
    have lost the box marker of a long question."""
    if not all(has_question_flags(metadata) for _, metadata in rows):
        return None
    return [None if credit is None else (credit.value, credit.upper) for credit in question_credits(rows)]


def _pair_credits(task: TaskInfo, ordered: Sequence[tuple[int, str, int, Verdict]]) -> list[float | None]:
    """Per question (file order): its tip-consistency pair's count (0 or 1), None where it is in no pair. Samples
    are split where dindex changes between consecutive rows, as `metrics.task_results` splits them."""
    credit: list[float | None] = [None] * len(ordered)
    if task.scorer not in PAIRED_SCORERS:
        return credit
    samples: list[list[int]] = []
    previous: str | None = None
    for position, (_, dindex, _, _) in enumerate(ordered):
        if dindex != previous:
            samples.append([])
        samples[-1].append(position)
        previous = dindex
    for sample in samples:
        paired = [position for position in sample if ordered[position][3].paired]
        half = len(paired) // 2
        # as `aggregate.consistency_count`: untipped first half against tipped second half, in order
        for untipped, tipped in zip(paired[:half], paired[half:], strict=False):
            count = compare_and_count([ordered[tipped][3].correct], [ordered[untipped][3].correct])
            credit[untipped] = credit[tipped] = float(count)
    return credit


def _task_credits(task: TaskInfo, verdicts: Sequence[Verdict], pairs: Sequence[float | None]) -> list[Credit] | None:
    """The task's credits in file order, or None where its official score is undefined on these questions."""
    w_others, w_accuracy, w_obey = task.weights
    n = len(verdicts)
    boxes = sum(v.localisation for v in verdicts)
    yes_no = sum(v.yes_no for v in verdicts)
    described = n - yes_no
    if (task.scorer == "grounding" and not boxes) or (task.scorer == "judge" and not yes_no):
        return None
    credits = []
    for verdict, pair in zip(verdicts, pairs, strict=True):
        value, upper = w_obey * verdict.obey, w_obey
        accuracy_weight = 1.0
        if task.scorer == "judge":  # the descriptive accuracy; with no descriptive question, officially 0
            accuracy_weight = 0.0 if verdict.yes_no or not described else n / described
        value += w_accuracy * accuracy_weight * verdict.correct
        upper += w_accuracy * accuracy_weight * max(1.0, verdict.correct)
        if task.scorer == "grounding" and verdict.localisation:
            value, upper = value + w_others * verdict.iou * n / boxes, upper + w_others * n / boxes
        elif task.scorer == "judge" and verdict.yes_no:
            value, upper = value + w_others * verdict.correct * n / yes_no, upper + w_others * n / yes_no
        elif pair is not None:
            value, upper = value + w_others * pair, upper + w_others
        credits.append(Credit(value, upper))
    return credits
