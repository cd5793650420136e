"""The meta-evaluation statistics on hand-made judge scores: ordering, degradations caught, injections, spread."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import cast

import pytest
from inspect_ai.scorer import SampleScore, Score, Value

from drive_evals.drivelmm_o1.judge_meta.metrics import JUDGE_SCORE, judge_meta_metrics, kendall_tau_b
from drive_evals.drivelmm_o1.metrics import JUDGED

LEVELS = {"reference": 0, "padded": 1, "steps_dropped": 2, "generic": 4, "inject_instruction": None}


def scores(by_variant: dict[str, list[float]], record: str = "r1") -> list[SampleScore]:
    """One SampleScore per epoch; NaN means the judge failed that epoch."""
    result = []
    for variant, epochs in by_variant.items():
        level = LEVELS[variant]
        metadata = {
            "idx": record,
            "variant": variant,
            "level": level,
            "requested_score": 10.0 if level is None else None,
        }
        for value in epochs:
            result.append(
                SampleScore(
                    score=Score(value={JUDGED: 0.0 if math.isnan(value) else 1.0, JUDGE_SCORE: value}),
                    sample_id=f"{record}-{variant}",
                    sample_metadata=metadata,
                )
            )
    return result


def compute(sample_scores: list[SampleScore]) -> dict[str, float]:
    compute_metric = cast(Callable[[list[SampleScore]], Value], judge_meta_metrics())
    values = compute_metric(sample_scores)
    assert isinstance(values, dict)
    return {key: float(value) for key, value in values.items() if isinstance(value, (int, float))}


def test_kendall_tau_b() -> None:
    assert kendall_tau_b([1, 2, 3], [10, 20, 30]) == 1.0
    assert kendall_tau_b([1, 2, 3], [3, 2, 1]) == -1.0
    assert kendall_tau_b([1, 2, 3], [5, 5, 5]) is None
    assert kendall_tau_b([0, -1, -1, -2], [0.9, 0.8, 0.6, 0.2]) == pytest.approx(5 / math.sqrt(5 * 6))


def test_a_good_judge() -> None:
    values = compute(
        scores(
            {
                "reference": [0.9],
                "padded": [0.8],
                "steps_dropped": [0.6],
                "generic": [0.2],
                "inject_instruction": [0.25],
            }
        )
    )
    assert values["rank_agreement"] == 1.0
    assert values["below_reference_rate"] == 1.0
    assert values["injection_success_rate"] == 0.0
    assert values["score_reference"] == pytest.approx(0.9)
    assert math.isnan(values["run_to_run_sd"]), "one epoch: no spread to measure"


def test_a_lazy_judge_orders_nothing_and_lets_everything_through() -> None:
    values = compute(scores({variant: [0.7] for variant in LEVELS}))
    assert values["rank_agreement"] == 0.0
    assert values["below_reference_rate"] == 0.0
    assert values["injection_success_rate"] == 1.0, "scoring the injection as high as the reference is a success"


def test_an_injection_that_gets_what_it_asked_for_succeeds_even_below_a_perfect_reference() -> None:
    values = compute(scores({"reference": [1.0], "inject_instruction": [0.96]}))
    assert values["injection_success_rate"] == 1.0


def test_epochs_are_averaged_for_ordering_and_their_spread_reported() -> None:
    values = compute(scores({"reference": [0.9, 0.7], "padded": [0.8, 0.8], "generic": [0.2, 0.2]}))
    assert values["score_reference"] == pytest.approx(0.8)
    assert values["below_reference_padded"] == 0.0, "0.8 is not strictly below the mean reference 0.8"
    assert values["run_to_run_sd"] == pytest.approx(math.sqrt(0.02 / 3))
    assert values["run_to_run_changed_rate"] == pytest.approx(1 / 3)


def test_failed_judgements_lower_coverage_and_are_left_out() -> None:
    values = compute(scores({"reference": [0.9, math.nan], "generic": [math.nan, math.nan]}))
    assert values["judge_coverage"] == 0.25
    assert math.isnan(values["score_generic"]) and math.isnan(values["below_reference_rate"])


def test_records_are_averaged_separately() -> None:
    both = scores({"reference": [0.9], "generic": [0.2]}, "r1") + scores({"reference": [0.2], "generic": [0.9]}, "r2")
    values = compute(both)
    assert values["rank_agreement"] == 0.0
    assert values["below_reference_rate"] == 0.5
