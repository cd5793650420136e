"""Breakdown levels and outcomes of each DriveBench question, for the report's breakdowns.

Levels come from the sample metadata (task, question type, camera, setting, corruption category); outcomes from the
score's value, reason and answer (never from Score.metadata): whether the judge scored the question, and for MCQs
the official parser's verdict (`no letter read` apart from a wrong letter).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from inspect_ai.scorer import Score

from drive_evals.benchmark import finite_number
from drive_evals.drivebench.metrics import JUDGED, MCQ_CORRECT
from drive_evals.drivebench.scorer import GRADER_FAILED

JUDGE_OUTCOME, MCQ_OUTCOME = "judge outcome", "MCQ outcome (official parser)"
JUDGED_LEVEL, JUDGE_FAILED, JUDGE_OFF = "judged", "judge failed", "judge off"
CORRECT, WRONG, UNREADABLE = "correct", "wrong", "no letter read"
OUTCOME_ORDER = (JUDGED_LEVEL, JUDGE_FAILED, JUDGE_OFF, CORRECT, WRONG, UNREADABLE)
DIMENSIONS = ("task", "question type", "camera", "setting", "corruption category")


def levels(metadata: Mapping[str, Any]) -> dict[str, str]:
    """Breakdown levels of one question from its sample metadata."""
    found = {
        "task": metadata.get("task"),
        "question type": metadata.get("bucket"),
        "camera": metadata.get("camera"),
        "setting": metadata.get("setting"),
        "corruption category": metadata.get("setting_category"),
    }
    return {dimension: str(level) for dimension, level in found.items() if isinstance(level, str)}


def outcomes(score: Score, metadata: Mapping[str, Any]) -> dict[str, str]:
    """Whether the judge scored the question; for MCQs the official parser's verdict (`no letter read` apart)."""
    value = score.value if isinstance(score.value, dict) else {}
    if finite_number(value.get(JUDGED)) == 1.0:
        judge = JUDGED_LEVEL
    else:
        judge = JUDGE_FAILED if score.reason == GRADER_FAILED else JUDGE_OFF
    found = {JUDGE_OUTCOME: judge}
    correct = finite_number(value.get(MCQ_CORRECT))
    if correct is not None:
        unreadable = str(score.answer or "").startswith("-")  # the scorer shows an unread letter as `-`
        found[MCQ_OUTCOME] = CORRECT if correct == 1.0 else UNREADABLE if unreadable else WRONG
    return found
