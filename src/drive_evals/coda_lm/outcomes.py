"""The outcome of each scored CODA-LM item, read from the score's value and reason (never Score.metadata): what
the official rule did with the judge's reply."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from inspect_ai.scorer import Score

from drive_evals.benchmark import finite_number
from drive_evals.coda_lm.metrics import COUNTED, JUDGED, OUT_OF_RANGE, RATING

JUDGE_OUTCOME = "judge outcome"
RATED, OUT_OF_SCALE, UNMAPPED_RATED = "rated", "rated outside 1-10", "rated, unmapped category"
UNPARSED, JUDGE_FAILED = "rating unreadable", "judge failed"
OUTCOMES = (RATED, OUT_OF_SCALE, UNMAPPED_RATED, UNPARSED, JUDGE_FAILED)
"""Report order: the first two count in the official mean, the others are the items it drops."""


def outcome(value: Mapping[str, Any]) -> str:
    if finite_number(value.get(JUDGED)) != 1.0:
        return JUDGE_FAILED
    if finite_number(value.get(RATING)) is None:
        return UNPARSED
    if finite_number(value.get(COUNTED)) != 1.0:
        return UNMAPPED_RATED
    return OUT_OF_SCALE if finite_number(value.get(OUT_OF_RANGE)) == 1.0 else RATED


def coda_lm_outcomes(score: Score, metadata: Mapping[str, Any]) -> dict[str, str]:
    return {JUDGE_OUTCOME: outcome(score.value if isinstance(score.value, dict) else {})}
