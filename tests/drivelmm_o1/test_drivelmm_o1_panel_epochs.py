"""`panel_agreement` and `judge_overall_count` under Inspect's epoch reducers, on scores the real scorer builds.

Inspect keeps only the first epoch's `Score.metadata`, and `majority` writes its own `panel` key there: the
per-judge values must come from `Score.value`, reduced like the headline.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence

import pytest
from inspect_ai.scorer import (
    Metric,
    SampleScore,
    Score,
    ScoreReducer,
    majority_score,
    max_score,
    mean_score,
    median_score,
    mode_score,
)

from drive_evals.drivelmm_o1.agreement import krippendorff_alpha_interval
from drive_evals.drivelmm_o1.judge import Judgement
from drive_evals.drivelmm_o1.metrics import panel_agreement, reasoning_metrics
from drive_evals.drivelmm_o1.prompts import CRITERIA
from drive_evals.drivelmm_o1.rubric import RubricParse
from drive_evals.drivelmm_o1.scorer import rubric_values

# Two judges' uniform criterion scores (1-10) for three samples over three epochs; None = no valid judgement.
JUDGE_A: list[list[int | None]] = [[6, 6, 8], [3, 5, 5], [9, 9, 9]]
JUDGE_B: list[list[int | None]] = [[7, 5, 7], [2, 2, 4], [None, 8, 8]]
STATISTICS: dict[str, Callable[[list[float]], float]] = {
    "mean": statistics.mean,
    "median": statistics.median,
    "max": max,
}

REDUCERS: dict[str, Callable[[], ScoreReducer]] = {
    "mean": mean_score,
    "median": median_score,
    "mode": mode_score,
    "max": max_score,
    "majority": majority_score,
}


def by_hand_one(name: str, epochs: Sequence[int | None]) -> float:
    """What reducer `name` makes of one judge's epochs: NaN epochs are skipped, except that `majority` counts
    them among the votes (a strict majority of all epochs)."""
    present = [s / 10 for s in epochs if s is not None]
    top = max(present, key=present.count)
    if name == "majority":
        return top if present.count(top) * 2 > len(epochs) else math.nan
    statistic = STATISTICS.get(name)
    return statistic(present) if statistic else top


def judgement(name: str, score: int | None, overall: float | None = None) -> Judgement:
    if score is None:
        return Judgement(judge=name, failure="invalid judge reply: invalid_json")
    parse = RubricParse(scores=dict.fromkeys(CRITERIA, float(score)), reported_overall=overall or float(score))
    return Judgement(judge=name, parse=parse)


def epoch_score(a: int | None, b: int | None) -> Score:
    """What the scorer returns for one epoch, with the panel in metadata as the scorer keeps it for the viewer."""
    return Score(value=rubric_values([judgement("a", a), judgement("b", b)]), metadata={"panel": [a, b]})


def reduced(reducer: ScoreReducer) -> list[SampleScore]:
    return [
        SampleScore(score=reducer([epoch_score(a, b) for a, b in zip(ea, eb, strict=True)]), sample_id=str(n))
        for n, (ea, eb) in enumerate(zip(JUDGE_A, JUDGE_B, strict=True))
    ]


def by_hand(judge: Sequence[Sequence[int | None]], name: str) -> list[float]:
    return [by_hand_one(name, epochs) for epochs in judge]


def compute(metric: Metric, scores: list[SampleScore]) -> dict[str, float]:
    value = metric(scores)  # type: ignore[arg-type]
    assert isinstance(value, dict)
    return value


def nanmean(values: list[float]) -> float:
    present = [v for v in values if not math.isnan(v)]
    return sum(present) / len(present)


@pytest.mark.parametrize("name", list(REDUCERS))
def test_panel_agreement_follows_the_reducer(name: str) -> None:
    value = compute(panel_agreement(), reduced(REDUCERS[name]()))
    a, b = by_hand(JUDGE_A, name), by_hand(JUDGE_B, name)
    assert value["judge0_reasoning_score"] == pytest.approx(nanmean(a))
    assert value["judge1_reasoning_score"] == pytest.approx(nanmean(b))
    expected_alpha = krippendorff_alpha_interval([a, b])
    for criterion in ("alpha_relevance", "alpha_hallucination", "alpha_missing_details"):
        assert value[criterion] == pytest.approx(expected_alpha, nan_ok=True)


def test_first_epoch_alone_would_differ() -> None:
    """The test data can tell a metric that reads only epoch 1 from one that reads every epoch."""
    first = [epochs[0] / 10 for epochs in JUDGE_A if epochs[0] is not None]
    assert nanmean(first) != pytest.approx(nanmean(by_hand(JUDGE_A, "mean")))


def test_single_judge_has_no_panel_values() -> None:
    score = Score(value=rubric_values([judgement("a", 7)]))
    assert isinstance(score.value, dict) and not any(key.startswith("judge0_") for key in score.value)
    assert compute(panel_agreement(), [SampleScore(score=score, sample_id="s")]) == {}


def test_judge_overall_count_is_its_denominator() -> None:
    """Judgements without an Overall are left out of `judge_overall`; the count says so. An Overall outside 1-10
    is averaged as given, as the official script averages it."""
    scores = [
        Score(value=rubric_values([judgement("a", 6, overall=6.0)])),
        Score(value=rubric_values([judgement("a", 6, overall=11.0)])),  # out of range: averaged as given
        Score(value=rubric_values([judgement("a", None)])),
        Score(value=rubric_values([judgement("a", 8, overall=8.0)])),
    ]
    samples = [SampleScore(score=s, sample_id=str(n)) for n, s in enumerate(scores)]
    value = compute(reasoning_metrics(), samples)
    assert "judge_overall_count" not in value, "the judgement without an Overall has no criteria either"
    assert value["judge_overall"] == pytest.approx((0.6 + 1.1 + 0.8) / 3)
    no_overall = Score(value={**rubric_values([judgement("a", 7)]), "judge_overall": math.nan})
    value = compute(reasoning_metrics(), [*samples, SampleScore(score=no_overall, sample_id="4")])
    assert value["judge_overall_count"] == 3.0, "criteria without an Overall: judge_overall averages fewer samples"
