"""DriveLMM-o1 metrics stay exact when epochs are reduced: unjudged epochs neither count nor vanish an item."""

from __future__ import annotations

import math

import pytest
from inspect_ai.scorer import Metric, SampleScore, Score, mean_score

from drive_evals.drivelmm_o1.mcq import official_correct
from drive_evals.drivelmm_o1.metrics import mcq_metrics, reasoning_metrics
from drive_evals.drivelmm_o1.scorer import mcq_values

RIGHT = "Reasoning Steps: 1. Look. Final Answer: A) Stop."
WRONG = "Reasoning Steps: 1. Look. Final Answer: B) Go."
GOLD = "A) Stop."


def epoch(judged: bool, response: str, reasoning: float) -> Score:
    result = official_correct(response, GOLD)
    values = {"judged": float(judged), "reasoning_score": reasoning if judged else math.nan}
    values.update(mcq_values(judged, result, result))
    return Score(value=values)


def reduced(epochs: list[Score], sample_id: str) -> SampleScore:
    return SampleScore(
        score=mean_score()(epochs), sample_id=sample_id, sample_metadata={"frame": sample_id, "question_number": 2}
    )


def compute(metric: Metric, scores: list[SampleScore]) -> dict[str, float]:
    value = metric(scores)  # type: ignore[arg-type]
    assert isinstance(value, dict)
    return value


def test_an_item_judged_in_one_epoch_of_two_still_counts() -> None:
    scores = [
        reduced([epoch(True, RIGHT, 0.8), epoch(False, WRONG, 0.0)], "a"),
        reduced([epoch(True, WRONG, 0.4), epoch(True, WRONG, 0.6)], "b"),
    ]
    mcq = compute(mcq_metrics(), scores)
    assert mcq["mcq_items"] == 2.0
    assert mcq["mcq_accuracy"] == pytest.approx(0.5), "the unjudged (wrong) epoch of item a is not averaged in"
    reasoning = compute(reasoning_metrics(), scores)
    assert reasoning["judge_coverage"] == pytest.approx(0.75)
    assert reasoning["reasoning_score"] == pytest.approx((0.8 + 0.5) / 2)


def test_never_judged_item_is_left_out_of_official_accuracy() -> None:
    scores = [reduced([epoch(False, RIGHT, 0.0)], "a"), reduced([epoch(True, WRONG, 0.5)], "b")]
    mcq = compute(mcq_metrics(), scores)
    assert (mcq["mcq_items"], mcq["mcq_accuracy"]) == (1.0, 0.0)
