"""Each unit's outcome from its score value, reason and answer, including reasons the scorers may add later."""

from __future__ import annotations

import math

import pytest
from inspect_ai.scorer import Score

from drive_evals.drivelmm_o1.outcomes import JUDGE_OUTCOME, MCQ_OUTCOME, drivelmm_o1_outcomes
from drive_evals.surds.outcomes import OUTCOME, surds_outcomes

NAN = math.nan


@pytest.mark.parametrize(
    ("value", "reason", "outcome"),
    [
        ({"score": 1.0, "valid": 1.0}, None, "correct"),
        ({"score": 0.31, "valid": 1.0}, None, "correct"),  # xy2d: a point inside the box
        ({"score": 0.0, "valid": 1.0}, None, "wrong"),
        ({"score": 0.0, "valid": 0.0}, "invalid_response_format", "invalid format"),
        ({"score": 0.0, "valid": 0.0}, "no_response", "no response"),
        ({"score": 0.0, "valid": 0.0}, "truncated", "truncated"),
        ({"score": 0.0, "valid": 0.0}, "some_new_reason", "some new reason"),
        ({"score": 0.0, "valid": 0.0}, None, "invalid format"),
    ],
)
def test_surds_outcomes(value: dict[str, float], reason: str | None, outcome: str) -> None:
    assert surds_outcomes(Score(value=value, reason=reason), {}) == {OUTCOME: outcome}


def _drivelmm_o1(judged: float, counted: float, correct: float, answer: str | None, reason: str | None = None) -> Score:
    value = {"judged": judged, "mcq_counted": counted, "mcq_correct": correct, "reasoning_score": 0.5}
    return Score(value=value, answer=answer, reason=reason)


def test_drivelmm_o1_outcomes() -> None:
    mcq = {"mcq": True}
    assert drivelmm_o1_outcomes(_drivelmm_o1(1.0, 1.0, 1.0, "A) Slow down."), mcq) == {
        JUDGE_OUTCOME: "judged",
        MCQ_OUTCOME: "correct",
    }
    assert drivelmm_o1_outcomes(_drivelmm_o1(1.0, 1.0, 0.0, "B) Brake."), mcq)[MCQ_OUTCOME] == "wrong"
    # the official letter rule reads no letter from `B` or `(B)` at the very end
    assert drivelmm_o1_outcomes(_drivelmm_o1(1.0, 1.0, 0.0, "B"), mcq)[MCQ_OUTCOME] == "unreadable answer"
    assert drivelmm_o1_outcomes(_drivelmm_o1(1.0, 1.0, 0.0, None), mcq)[MCQ_OUTCOME] == "unreadable answer"
    failed = drivelmm_o1_outcomes(_drivelmm_o1(0.0, 0.0, NAN, "A) x", reason="grader_failed"), mcq)
    assert failed == {JUDGE_OUTCOME: "judge failed", MCQ_OUTCOME: "not counted (not judged)"}
    assert drivelmm_o1_outcomes(_drivelmm_o1(0.0, 1.0, 1.0, "A) x"), mcq) == {
        JUDGE_OUTCOME: "judge off",
        MCQ_OUTCOME: "correct",
    }
    assert drivelmm_o1_outcomes(_drivelmm_o1(1.0, 0.0, NAN, "text"), {"mcq": False}) == {JUDGE_OUTCOME: "judged"}
