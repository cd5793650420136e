"""The outcome of each scored SURDS unit, read from the score's value and reason (never from Score.metadata).

`correct` (score > 0: both prompts right for a pair, the point inside the box for xy2d), `wrong` (valid but not
correct), or the score's reason (`invalid format`, `no response`, `truncated`, and any reason a newer scorer adds,
shown under its own name).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from inspect_ai.scorer import Score

from drive_evals.benchmark import finite_number
from drive_evals.surds.metrics import SCORE_KEY, VALID_KEY
from drive_evals.surds.scorer import INVALID_REASON, NO_RESPONSE_REASON

OUTCOME = "outcome"
CORRECT, WRONG = "correct", "wrong"
REASON_LABELS = {INVALID_REASON: "invalid format", NO_RESPONSE_REASON: "no response"}
"""Reasons shown under a shorter name; any other reason (`truncated`, ...) shows as itself, underscores as spaces."""
SURDS_OUTCOMES = (CORRECT, WRONG, "invalid format", "truncated", "no response")
"""Report order; other reasons follow by name."""


def reason_label(reason: str) -> str:
    return REASON_LABELS.get(reason, reason.replace("_", " "))


def surds_outcomes(score: Score, metadata: Mapping[str, Any]) -> dict[str, str]:
    value = score.value if isinstance(score.value, dict) else {}
    points = finite_number(value.get(SCORE_KEY))
    if points is not None and points > 0:
        return {OUTCOME: CORRECT}
    if score.reason:
        return {OUTCOME: reason_label(str(score.reason))}
    return {OUTCOME: WRONG if finite_number(value.get(VALID_KEY)) == 1.0 else reason_label(INVALID_REASON)}
