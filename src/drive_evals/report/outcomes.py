"""The outcome of each scored unit, read from the score's value, reason and answer (never from Score.metadata).

SURDS: `correct` (score > 0: both prompts right for a pair, the point inside the box for xy2d), `wrong` (valid but
not correct), or the score's reason (`invalid format`, `no response`, `truncated`, and any reason a newer scorer
adds, shown under its own name). DriveLMM-o1 has two: whether the judge scored the item, and for multiple-choice
items the official MCQ verdict, with `unreadable answer` when the official rules read no option letter.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from inspect_ai.scorer import Score

from drive_evals.drivelmm_o1.mcq import NO_LETTER, official_letter
from drive_evals.drivelmm_o1.metrics import JUDGED, MCQ_CORRECT, MCQ_COUNTED
from drive_evals.drivelmm_o1.scorer import GRADER_FAILED
from drive_evals.surds.metrics import SCORE_KEY, VALID_KEY
from drive_evals.surds.scorer import INVALID_REASON, NO_RESPONSE_REASON

OUTCOME = "outcome"
JUDGE_OUTCOME = "judge outcome"
MCQ_OUTCOME = "MCQ outcome"
CORRECT, WRONG = "correct", "wrong"
REASON_LABELS = {INVALID_REASON: "invalid format", NO_RESPONSE_REASON: "no response"}
"""Reasons shown under a shorter name; any other reason (`truncated`, ...) shows as itself, underscores as spaces."""
SURDS_OUTCOMES = (CORRECT, WRONG, "invalid format", "truncated", "no response")
"""Report order; other reasons follow by name."""
JUDGED_LEVEL, JUDGE_FAILED, JUDGE_OFF = "judged", "judge failed", "judge off"
UNREADABLE, NOT_COUNTED = "unreadable answer", "not counted (not judged)"
O1_OUTCOMES = (JUDGED_LEVEL, JUDGE_FAILED, JUDGE_OFF, CORRECT, WRONG, UNREADABLE, NOT_COUNTED)


def reason_label(reason: str) -> str:
    return REASON_LABELS.get(reason, reason.replace("_", " "))


def surds_outcomes(score: Score, metadata: Mapping[str, Any]) -> dict[str, str]:
    value = score.value if isinstance(score.value, dict) else {}
    points = _number(value.get(SCORE_KEY))
    if points is not None and points > 0:
        return {OUTCOME: CORRECT}
    if score.reason:
        return {OUTCOME: reason_label(str(score.reason))}
    return {OUTCOME: WRONG if _number(value.get(VALID_KEY)) == 1.0 else reason_label(INVALID_REASON)}


def o1_outcomes(score: Score, metadata: Mapping[str, Any]) -> dict[str, str]:
    value = score.value if isinstance(score.value, dict) else {}
    if _number(value.get(JUDGED)) == 1.0:
        judge = JUDGED_LEVEL
    else:
        judge = JUDGE_FAILED if score.reason == GRADER_FAILED else JUDGE_OFF
    outcomes = {JUDGE_OUTCOME: judge}
    if metadata.get("mcq") is True:
        if _number(value.get(MCQ_COUNTED)) != 1.0:
            outcomes[MCQ_OUTCOME] = NOT_COUNTED
        elif _number(value.get(MCQ_CORRECT)) == 1.0:
            outcomes[MCQ_OUTCOME] = CORRECT
        else:
            # The answer is the official final-answer text, so the official letter rule reads it again here.
            readable = official_letter(score.answer or "") != NO_LETTER
            outcomes[MCQ_OUTCOME] = WRONG if readable else UNREADABLE
    return outcomes


def _number(value: object) -> float | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and not math.isnan(value):
        return float(value)
    return None
