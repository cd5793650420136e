"""DriveLMM-o1 metrics over per-sample score dicts whose NaN entries mean 'not applicable' (not judged, not MCQ).

Every sample reaches these metrics, judged or not, so `judge_coverage` is honest. Means skip NaN; standard errors
are clustered by frame (a frame's questions share the same scene).

The log holds what a user reads at a glance (the official numbers, their standard errors, coverage, the lenient
MCQ diagnostic; with a panel, agreement). The twelve criteria and per-question breakdowns are per-sample values
that `drive-evals report` aggregates; ~50 metric columns made the viewer's metrics window unreadable.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

from inspect_ai.scorer import Metric, SampleScore, Value, metric

from drive_evals.drivelmm_o1.agreement import krippendorff_alpha_interval
from drive_evals.drivelmm_o1.prompts import CRITERIA
from drive_evals.stats import clustered_stderr

REASONING = "reasoning_score"
JUDGE_OVERALL = "judge_overall"
JUDGED = "judged"
MCQ_COUNTED = "mcq_counted"
MCQ_CORRECT = "mcq_correct"
MCQ_LENIENT = "mcq_correct_lenient"
NONE_QUIRK = "mcq_none_quirk"
MCQ_GOLD_UNREADABLE = "mcq_gold_unreadable"
"""Sample metadata flag: an MCQ gold answer without an option letter (see dataset.gold_unreadable)."""
PANEL_KEY = "panel"
"""Score.metadata key holding each judge's twelve criteria (for agreement statistics)."""


def criterion_metric_name(criterion: str) -> str:
    """`Scene Awareness & Object Understanding` -> `scene_awareness_object_understanding`."""
    return re.sub(r"[^a-z0-9]+", "_", criterion.lower()).strip("_")


CRITERION_NAMES = {criterion: criterion_metric_name(criterion) for criterion in CRITERIA}


def _value(score: SampleScore, key: str) -> float:
    value = score.score.value
    if not isinstance(value, dict):
        return math.nan
    item = value.get(key)
    return float(item) if isinstance(item, (int, float)) else math.nan


def _frame(score: SampleScore) -> str:
    return str((score.sample_metadata or {}).get("frame", score.sample_id))


def _mean(scores: list[SampleScore], key: str, where: Callable[[SampleScore], bool] | None = None) -> float:
    values = [_value(s, key) for s in scores if where is None or where(s)]
    present = [v for v in values if not math.isnan(v)]
    return sum(present) / len(present) if present else math.nan


def _stderr(scores: list[SampleScore], key: str, where: Callable[[SampleScore], bool] | None = None) -> float:
    rows = [(_value(s, key), _frame(s)) for s in scores if where is None or where(s)]
    rows = [(v, f) for v, f in rows if not math.isnan(v)]
    return clustered_stderr([v for v, _ in rows], [f for _, f in rows]) if rows else math.nan


def _counted(score: SampleScore) -> bool:
    """An MCQ item that counts (judged, or the judge is off): its correctness is a number, not NaN."""
    return not math.isnan(_value(score, MCQ_CORRECT))


def _coverage(scores: list[SampleScore]) -> float:
    """Mean of `judged` (a fraction per sample once epochs are reduced)."""
    return sum(_value(s, JUDGED) for s in scores) / len(scores) if scores else 0.0


@metric
def reasoning_metrics() -> Metric:
    """`reasoning_score` (mean of the 12 criteria / 10, the headline), `judge_overall` (the judge's own Overall /
    10, the paper's computation) and `judge_coverage` (judged / all samples). The report shows each criterion."""

    def compute(scores: list[SampleScore]) -> Value:
        return {
            REASONING: _mean(scores, REASONING),
            JUDGE_OVERALL: _mean(scores, JUDGE_OVERALL),
            "judge_coverage": _coverage(scores),
        }

    return compute


@metric
def mcq_metrics() -> Metric:
    """`mcq_accuracy` by the official rules and denominator (MCQ items that were judged), the lenient diagnostic
    on the same items, how many items count, how often the official `none == none` quirk counted as correct, and
    how many counted items have a gold answer without an option letter (where that quirk can fire)."""

    def compute(scores: list[SampleScore]) -> Value:
        return {
            "mcq_accuracy": _mean(scores, MCQ_CORRECT, _counted),
            "mcq_accuracy_lenient": _mean(scores, MCQ_LENIENT, _counted),
            "mcq_items": float(sum(_counted(s) for s in scores)),
            "mcq_none_quirk_count": float(sum(_value(s, NONE_QUIRK) for s in scores if _counted(s))),
            "mcq_gold_unreadable_count": float(sum(_gold_unreadable(s) for s in scores if _counted(s))),
        }

    return compute


def _gold_unreadable(score: SampleScore) -> bool:
    """The item's gold answer has no option letter (flagged at load): any unreadable reply counts as correct."""
    return bool((score.sample_metadata or {}).get(MCQ_GOLD_UNREADABLE))


@metric
def o1_stderr() -> Metric:
    """Standard errors clustered by frame for the headline numbers."""

    def compute(scores: list[SampleScore]) -> Value:
        return {
            f"{REASONING}_stderr": _stderr(scores, REASONING),
            f"{JUDGE_OVERALL}_stderr": _stderr(scores, JUDGE_OVERALL),
            "mcq_accuracy_stderr": _stderr(scores, MCQ_CORRECT, _counted),
        }

    return compute


@metric
def panel_agreement() -> Metric:
    """With several judges: each judge's reasoning score and Krippendorff's alpha (interval) per criterion.

    Empty with a single judge. Judge i is the i-th model bound to the `grader` role (names in Score.metadata).
    """

    def compute(scores: list[SampleScore]) -> Value:
        panels = [(s.score.metadata or {}).get(PANEL_KEY) or [] for s in scores]
        judges = max((len(p) for p in panels), default=0)
        if judges < 2:
            return {}
        result: dict[str, float] = {}
        for index in range(judges):
            values = [_judge_reasoning(p, index) for p in panels]
            present = [v for v in values if not math.isnan(v)]
            result[f"judge{index}_{REASONING}"] = sum(present) / len(present) if present else math.nan
        for criterion, name in CRITERION_NAMES.items():
            ratings = [[_judge_criterion(p, j, criterion) for p in panels] for j in range(judges)]
            result[f"alpha_{name}"] = krippendorff_alpha_interval(ratings)
        return result

    return compute


def _judge_scores(panel: list[dict[str, object]], index: int) -> dict[str, float] | None:
    if index >= len(panel):
        return None
    scores = panel[index].get("scores")
    return scores if isinstance(scores, dict) and scores else None


def _judge_reasoning(panel: list[dict[str, object]], index: int) -> float:
    scores = _judge_scores(panel, index)
    return sum(scores[c] for c in CRITERIA) / len(CRITERIA) / 10 if scores else math.nan


def _judge_criterion(panel: list[dict[str, object]], index: int, criterion: str) -> float:
    scores = _judge_scores(panel, index)
    return float(scores[criterion]) if scores else math.nan
