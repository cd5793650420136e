"""Breakdown levels and outcomes of each VLADBench question, for the report's breakdowns.

Levels come from the sample metadata (domain, aspect, task); the outcome from the score's value and reason (never
from Score.metadata): full, partial or no accuracy credit, or the score's reason.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from inspect_ai.scorer import Score

from drive_evals.vladbench.dataset import TASK_KEY
from drive_evals.vladbench.metrics import CORRECT_KEY

OBEY_RATE = "obey_rate"
"""Per question, the official obey check (1 or 0); its mean is the obey term of a task's score."""
DOMAIN, ASPECT, TASK = "domain", "aspect", "task"
DIMENSIONS = (DOMAIN, ASPECT, TASK)
OUTCOME = "outcome"
FULL, PARTIAL, NONE = "full credit", "partial credit", "no credit"
OUTCOMES = (FULL, PARTIAL, NONE, "truncated", "no response")
"""Accuracy credit of a question: 1 or more (relation answers can earn more than 1), between 0 and 1 (a lane speed
bound, some relation ids), or 0; or the score's reason."""


def levels(metadata: Mapping[str, Any]) -> dict[str, str]:
    return {DOMAIN: str(metadata["domain"]), ASPECT: str(metadata["aspect"]), TASK: str(metadata[TASK_KEY])}


def outcomes(score: Score, metadata: Mapping[str, Any]) -> dict[str, str]:
    if score.reason:
        return {OUTCOME: str(score.reason).replace("_", " ")}
    value = score.value if isinstance(score.value, dict) else {}
    credit = value.get(CORRECT_KEY)
    if not isinstance(credit, (int, float)) or math.isnan(credit) or credit <= 0:
        return {OUTCOME: NONE}
    return {OUTCOME: FULL if credit >= 1 else PARTIAL}
