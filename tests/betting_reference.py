"""The betting interval stated again from the paper, one cluster at a time, to check the vectorised one against."""

from __future__ import annotations

import math
from collections.abc import Hashable

from drive_evals.stats.betting import PRIOR_VARIANCE, TRUNCATION

ALPHA = 0.05
BISECTIONS = 40
"""Halvings of [0, estimate] or [estimate, 1]: a bound to 1e-12, far below the report's display precision."""


def reference_capital(values: list[float], clusters: list[Hashable], mean: float) -> float:
    """The hedged gambler's highest capital against `mean`, one cluster at a time, from Waudby-Smith and Ramdas
    (2024): predictable plug-in bets sqrt(2 log(2 / alpha) / (n sigma^2)) truncated at c / m and
    c / (1 - m), half the capital on each side; each cluster's outcome is its share of the score sum less `mean`
    times its share of the units, over the largest cluster's share."""
    weight: dict[Hashable, float] = {}
    score: dict[Hashable, float] = {}
    for value, cluster in zip(values, clusters, strict=True):
        weight[cluster] = weight.get(cluster, 0.0) + 1 / len(values)
        score[cluster] = score.get(cluster, 0.0) + value / len(values)
    largest = max(weight.values())
    outcomes = [(score[c] - mean * weight[c]) / largest for c in sorted(weight, key=str)]
    n = len(outcomes)
    up = down = 1.0
    peak = 1.0
    total, squares, predicted = 0.0, PRIOR_VARIANCE, 0.0
    for t, outcome in enumerate(outcomes, start=1):
        variance = squares / t  # sigma^2_{t-1} = (1/4 + sum_{i<t} (x_i - mu_{i-1})^2) / t
        bet = math.sqrt(2 * math.log(2 / ALPHA) / (n * variance))
        bet_up = min(bet, TRUNCATION / mean) if mean > 0 else bet
        bet_down = min(bet, TRUNCATION / (1 - mean)) if mean < 1 else bet
        up *= 1 + bet_up * outcome
        down *= 1 - bet_down * outcome
        peak = max(peak, 0.5 * up + 0.5 * down)
        squares += (outcome - predicted) ** 2
        total += outcome
        predicted = total / (t + 1)
    return peak


def reference_bounds(values: list[float], clusters: list[Hashable]) -> tuple[float, float]:
    """Where the capital reaches 1 / alpha on each side of the estimate, by bisection (the capital grows as the
    candidate mean moves away from the estimate)."""
    estimate = sum(values) / len(values)

    def crossing(inside: float, outside: float) -> float:
        if reference_capital(values, clusters, outside) < 1 / ALPHA:
            return outside
        for _ in range(BISECTIONS):
            middle = (inside + outside) / 2
            inside, outside = (
                (middle, outside) if reference_capital(values, clusters, middle) < 1 / ALPHA else (inside, middle)
            )
        return outside

    return crossing(estimate, 0.0), crossing(estimate, 1.0)
