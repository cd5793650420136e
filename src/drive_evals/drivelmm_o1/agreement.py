"""Krippendorff's alpha for interval data: agreement between judges (or judge and human) on rubric scores.

Inspect ships `krippendorff_alpha` only as a `@metric` over `SampleScore` lists; its pure core is private
(`inspect_ai.scorer._metrics.krippendorff._alpha`) and may change without notice. A judge meta-evaluation needs
a plain function over a raters x units matrix with gaps (a judge call that failed, a criterion a human skipped),
so this module implements the interval form directly; the tests check it against Inspect's metric.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

Ratings = ArrayLike | Sequence[Sequence[float | None]]
"""A raters x units matrix; NaN or None marks a missing rating."""

_MIN_PAIRABLE_PER_UNIT = 2


def krippendorff_alpha_interval(ratings: Ratings) -> float:
    """Krippendorff's alpha with the interval metric (squared differences), 1 = perfect agreement.

    `ratings` has one row per rater and one column per unit; NaN or None marks a missing rating. Units with fewer
    than two ratings carry no pairing information and are dropped (Krippendorff 2011). Returns NaN when fewer
    than two pairable values remain or when every pairable value is equal: alpha is undefined without variation
    (Inspect's metric returns 1.0 in that case).

    alpha = 1 - D_o / D_e, where D_o averages squared differences within units (each unit's pairs weighted by
    1 / (m_u - 1)) and D_e averages them over all pairable values.
    """
    values = np.asarray(ratings, dtype=float)
    if values.ndim != 2:
        raise ValueError(f"ratings must be a raters x units matrix, got shape {values.shape}")
    present = ~np.isnan(values)
    per_unit = present.sum(axis=0)
    pairable = per_unit >= _MIN_PAIRABLE_PER_UNIT
    values, present, per_unit = values[:, pairable], present[:, pairable], per_unit[pairable]
    total = int(per_unit.sum())
    if total < _MIN_PAIRABLE_PER_UNIT:
        return float("nan")

    filled = np.where(present, values, 0.0)
    unit_means = filled.sum(axis=0) / per_unit
    unit_squares = np.where(present, (values - unit_means) ** 2, 0.0).sum(axis=0)
    # sum over ordered pairs i != j of (x_i - x_j)^2 equals 2 m sum (x - mean)^2
    observed = float(np.sum(2 * per_unit * unit_squares / (per_unit - 1))) / total

    pooled = values[present]
    expected = 2 * total * float(np.sum((pooled - pooled.mean()) ** 2)) / (total * (total - 1))
    if expected == 0:
        return float("nan")
    return 1.0 - observed / expected
