"""Krippendorff's alpha (interval) against hand-computed cases, the textbook example and Inspect's metric."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from inspect_ai.scorer import SampleScore, Score, krippendorff_alpha

from drive_evals.drivelmm_o1.agreement import krippendorff_alpha_interval

NAN = math.nan

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability": 4 observers x 12 units with gaps.
# Published: interval alpha = 0.849 (unit 12 has a single value and is unpairable).
TEXTBOOK = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
    [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
]


def test_textbook_example() -> None:
    assert krippendorff_alpha_interval(TEXTBOOK) == pytest.approx(0.849, abs=5e-4)


def test_perfect_agreement_is_one() -> None:
    assert krippendorff_alpha_interval([[1, 5, 9, 3], [1, 5, 9, 3], [1, 5, 9, 3]]) == 1.0


def test_hand_computed_disagreement() -> None:
    """Units (1, 2) and (2, 1): D_o = (2 + 2) / 4 = 1; D_e = 8 / 12; alpha = 1 - 1.5 = -0.5."""
    assert krippendorff_alpha_interval([[1, 2], [2, 1]]) == pytest.approx(-0.5)


def test_hand_computed_partial_agreement() -> None:
    """Units (1, 1), (3, 3), (1, 3): D_o = 8 / 6; pooled 1,1,3,3,1,3 gives D_e = 2*6*6 / 30 = 2.4; alpha = 4 / 9."""
    assert krippendorff_alpha_interval([[1, 3, 1], [1, 3, 3]]) == pytest.approx(1 - (8 / 6) / 2.4)


def test_single_rating_units_are_dropped() -> None:
    with_lonely_unit: list[list[float]] = [[1, 2, 3, 7], [1, 2, 4, NAN]]
    assert krippendorff_alpha_interval(with_lonely_unit) == krippendorff_alpha_interval([[1, 2, 3], [1, 2, 4]])


def test_none_marks_missing() -> None:
    as_none = [[None if math.isnan(v) else v for v in row] for row in TEXTBOOK]
    assert krippendorff_alpha_interval(as_none) == krippendorff_alpha_interval(TEXTBOOK)


@pytest.mark.parametrize(
    "ratings",
    [
        [[7, 7, 7], [7, 7, 7]],  # no variation: alpha undefined
        [[1, NAN], [NAN, 2]],  # no unit with two ratings
        [[1, 2, 3]],  # one rater
        np.empty((2, 0)),
    ],
)
def test_undefined_is_nan(ratings: object) -> None:
    assert math.isnan(krippendorff_alpha_interval(ratings))  # type: ignore[arg-type]


def test_needs_a_matrix() -> None:
    with pytest.raises(ValueError, match="raters x units"):
        krippendorff_alpha_interval([1, 2, 3])


def test_invariant_to_rater_and_unit_order() -> None:
    matrix = np.array(TEXTBOOK)
    shuffled = matrix[::-1][:, [5, 0, 11, 3, 9, 1, 2, 10, 4, 6, 8, 7]]
    assert krippendorff_alpha_interval(shuffled) == pytest.approx(krippendorff_alpha_interval(matrix))


def _inspect_alpha(matrix: np.ndarray) -> float:
    scores = [
        SampleScore(score=Score(value=[float(v) for v in column if not math.isnan(v)]), sample_id=unit)
        for unit, column in enumerate(matrix.T)
    ]
    metric = krippendorff_alpha(level="interval")
    return float(metric(scores))  # type: ignore[arg-type]


def test_matches_inspect_metric_on_textbook() -> None:
    assert krippendorff_alpha_interval(TEXTBOOK) == pytest.approx(_inspect_alpha(np.array(TEXTBOOK)))


@settings(max_examples=60, deadline=None)
@given(
    st.integers(min_value=2, max_value=4).flatmap(
        lambda raters: st.lists(
            st.lists(st.one_of(st.none(), st.integers(1, 10)), min_size=raters, max_size=raters),
            min_size=2,
            max_size=12,
        )
    )
)
def test_matches_inspect_metric(units: list[list[int | None]]) -> None:
    matrix = np.array([[NAN if v is None else v for v in unit] for unit in units], dtype=float).T
    ours = krippendorff_alpha_interval(matrix)
    pairable = (~np.isnan(matrix)).sum(axis=0) >= 2
    pooled = matrix[:, pairable][~np.isnan(matrix[:, pairable])]
    if pooled.size < 2 or np.all(pooled == pooled[0]):
        assert math.isnan(ours)
    else:
        assert ours == pytest.approx(_inspect_alpha(matrix), abs=1e-9)
