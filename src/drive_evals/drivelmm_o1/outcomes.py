"""The outcomes of each scored DriveLMM-o1 item, read from the score's value, reason and answer (never from
Score.metadata): whether the judge scored the item, and for multiple-choice items the official MCQ verdict, with
`unreadable answer` when the official rules read no option letter.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from inspect_ai.scorer import Score

from drive_evals.benchmark import finite_number
from drive_evals.drivelmm_o1.mcq import NO_LETTER, official_letter
from drive_evals.drivelmm_o1.metrics import JUDGED, MCQ_CORRECT, MCQ_COUNTED
from drive_evals.drivelmm_o1.scorer import GRADER_FAILED

JUDGE_OUTCOME = "judge outcome"
MCQ_OUTCOME = "MCQ outcome"
CORRECT, WRONG = "correct", "wrong"
JUDGED_LEVEL, JUDGE_FAILED, JUDGE_OFF = "judged", "judge failed", "judge off"
UNREADABLE, NOT_COUNTED = "unreadable answer", "not counted (not judged)"
DRIVELMM_O1_OUTCOMES = (JUDGED_LEVEL, JUDGE_FAILED, JUDGE_OFF, CORRECT, WRONG, UNREADABLE, NOT_COUNTED)
"""Report order."""


def drivelmm_o1_outcomes(score: Score, metadata: Mapping[str, Any]) -> dict[str, str]:
    value = score.value if isinstance(score.value, dict) else {}
    if finite_number(value.get(JUDGED)) == 1.0:
        judge = JUDGED_LEVEL
    else:
        judge = JUDGE_FAILED if score.reason == GRADER_FAILED else JUDGE_OFF
    outcomes = {JUDGE_OUTCOME: judge}
    if metadata.get("mcq") is True:
        if finite_number(value.get(MCQ_COUNTED)) != 1.0:
            outcomes[MCQ_OUTCOME] = NOT_COUNTED
        elif finite_number(value.get(MCQ_CORRECT)) == 1.0:
            outcomes[MCQ_OUTCOME] = CORRECT
        else:
            # The answer is the official final-answer text, so the official letter rule reads it again here.
            readable = official_letter(score.answer or "") != NO_LETTER
            outcomes[MCQ_OUTCOME] = WRONG if readable else UNREADABLE
    return outcomes
