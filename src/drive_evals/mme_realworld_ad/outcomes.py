"""Breakdown levels and outcomes of each MME-RealWorld AD question, for the report.

Levels come from the sample metadata (task, sub-category). Two outcome dimensions come from the score's value and
reason: `outcome` (the official reading: right, a wrong letter, no letter, an empty reply taken as A, or the
score's reason such as truncated) and `readings` (where the official and the corrected reading agree or not).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from inspect_ai.scorer import Score

from drive_evals.mme_realworld_ad.dataset import L2_KEY, TASK_KEY
from drive_evals.mme_realworld_ad.metrics import CORRECTED_KEY, EMPTY_KEY, OFFICIAL_KEY, UNPARSED_KEY

OUTCOME, READINGS = "outcome", "readings"
RIGHT, WRONG, NO_LETTER, EMPTY_AS_A = "right", "wrong letter", "no letter read", "empty reply read as A"
OUTCOMES = (RIGHT, WRONG, NO_LETTER, EMPTY_AS_A, "truncated")
BOTH, OFFICIAL_ONLY, CORRECTED_ONLY, NEITHER = "both right", "official only", "corrected only", "neither"
READING_LEVELS = (BOTH, OFFICIAL_ONLY, CORRECTED_ONLY, NEITHER)
SUBCATEGORY = "subcategory"
DIMENSIONS = (TASK_KEY, SUBCATEGORY)


def levels(metadata: Mapping[str, Any]) -> dict[str, str]:
    return {TASK_KEY: str(metadata[TASK_KEY]), SUBCATEGORY: str(metadata[L2_KEY])}


def _flag(value: Mapping[str, Any], key: str) -> bool:
    number = value.get(key)
    return isinstance(number, (int, float)) and number >= 0.5


def outcomes(score: Score, metadata: Mapping[str, Any]) -> dict[str, str]:
    value = score.value if isinstance(score.value, dict) else {}
    official, corrected = _flag(value, OFFICIAL_KEY), _flag(value, CORRECTED_KEY)
    if _flag(value, EMPTY_KEY):
        outcome = EMPTY_AS_A
    elif score.reason:
        outcome = str(score.reason).replace("_", " ")
    elif official:
        outcome = RIGHT
    else:
        outcome = NO_LETTER if _flag(value, UNPARSED_KEY) else WRONG
    both = {(True, True): BOTH, (True, False): OFFICIAL_ONLY, (False, True): CORRECTED_ONLY, (False, False): NEITHER}
    return {OUTCOME: outcome, READINGS: both[(official, corrected)]}
