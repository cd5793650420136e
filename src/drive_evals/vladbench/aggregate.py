"""From question verdicts to the official task, aspect and total scores (pure functions).

A task's questions come grouped in samples (consecutive rows with one `dindex`, file order), as VLMEvalKit's
`get_scores` groups them. Each official scorer returns `(n, accuracy, obey, others)`; the task score is
`100 * (w0 * others + w1 * accuracy + w2 * obey)`. Aspect rows and the total are question-weighted means of task
scores (`weighted_row_sum`, `weighted_total`), which is what reproduces the paper's Table 10 (not the task-count
weighting its text describes). There is no official domain score (the report breaks the per-question numbers
down by domain instead).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from drive_evals.vladbench.rules import Verdict
from drive_evals.vladbench.taxonomy import TASKS, TaskInfo

PERCENT = 100.0


@dataclass(frozen=True)
class TaskResult:
    """One task's official counts and composite score (0-100)."""

    task: str
    n: int
    accuracy: float
    """Judge tasks: the accuracy on descriptive questions (the official `des_acc`)."""
    obey: float
    others: float
    """The third metric: mean IoU (grounding), tip consistency (relation, lane speed, lane change), yes/no accuracy
    (judge), 0 (general)."""
    score: float


def compare_and_count(tipped: Sequence[float], untipped: Sequence[float]) -> int:
    """Pairs where both answers are fully right, or the tipped one scored higher (official `compare_and_count`)."""
    count = 0
    for a, b in zip(tipped, untipped, strict=False):
        if a == 1 and b == 1:
            count += 1
        if a > b:
            count += 1
    return count


def consistency_count(sample: Sequence[Verdict]) -> int:
    """The sample's pairs of (untipped first half, tipped second half) counted by `compare_and_count`."""
    scores = [verdict.correct for verdict in sample if verdict.paired]
    half = len(scores) // 2
    return compare_and_count(scores[half:], scores[:half])


def task_result(task: TaskInfo, samples: Sequence[Sequence[Verdict]]) -> TaskResult:
    """The official scorer's tuple and the weighted score for one task.

    Raises ValueError where the official function divides by zero (no question; no box question in a grounding
    task; no yes/no question in a judge task): the data checks refuse such a selection before any model call.
    """
    verdicts = [verdict for sample in samples for verdict in sample]
    n = len(verdicts)
    if n == 0:
        raise ValueError(f"{task.name}: no questions")
    obey = sum(1 for v in verdicts if v.obey) / n
    if task.scorer == "judge":
        judged = [v for v in verdicts if v.yes_no]
        described = [v for v in verdicts if not v.yes_no]
        if not judged:
            raise ValueError(f"{task.name}: no yes/no question")
        others = sum(v.correct for v in judged) / len(judged)
        described_right = sum(v.correct for v in described)
        accuracy = described_right / len(described) if described else described_right  # official fallback
    else:
        accuracy = _running_sum(v.correct for v in verdicts) / n
        if task.scorer == "grounding":
            boxes = [v.iou for v in verdicts if v.localisation]
            if not boxes:
                raise ValueError(f"{task.name}: no localisation question")
            others = sum(boxes) / len(boxes)
        elif task.scorer in ("relation", "road_speed", "road_change"):
            others = sum(consistency_count(sample) for sample in samples) * 2 / n
        else:
            others = 0.0
    w_others, w_accuracy, w_obey = task.weights
    score = PERCENT * others * w_others + PERCENT * accuracy * w_accuracy + PERCENT * obey * w_obey
    return TaskResult(task.name, n, accuracy, obey, others, score)


def _running_sum(values: Iterable[float]) -> float:
    """Summed in question order, as the official loop adds (relation credits are fractions: order moves the last
    bits)."""
    total = 0.0
    for value in values:
        total += value
    return total


def weighted_mean(results: Sequence[TaskResult]) -> float:
    """Σ n_t * score_t / Σ n_t: the official aspect `Mean` row and `Total` row."""
    questions = sum(result.n for result in results)
    return sum(result.n * result.score for result in results) / questions


def aspect_scores(results: Mapping[str, TaskResult]) -> dict[str, float]:
    """Each aspect with a scored task: the question-weighted mean of its task scores, in official order."""
    return _grouped(results, lambda task: task.aspect)


def _grouped(results: Mapping[str, TaskResult], key: Callable[[TaskInfo], str]) -> dict[str, float]:
    groups: dict[str, list[TaskResult]] = {}
    for task in TASKS:
        if task.name in results:
            groups.setdefault(key(task), []).append(results[task.name])
    return {name: weighted_mean(members) for name, members in groups.items()}


def total_score(results: Mapping[str, TaskResult]) -> float:
    """The official `Total`: question-weighted over every task row (not a mean of aspects)."""
    return weighted_mean([results[task.name] for task in TASKS if task.name in results])
