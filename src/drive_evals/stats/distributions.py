"""Student's t and beta distribution functions (numpy has neither), for the score intervals and paired tests."""

from __future__ import annotations

import math
from collections.abc import Callable

_BETA_ITERATIONS = 300
_BETA_EPSILON = 3e-16
_QUANTILE_STEPS = 200
_NEWTON_TOLERANCE = 1e-15
"""Relative step at which Newton's iterate has converged (a few units in the last place)."""
_MAX_LOG_DENSITY = 700.0
"""Caps a density near a pole (a or b below 1) below float overflow: the Newton step is then tiny, not infinite."""


def t_cdf(x: float, df: float) -> float:
    """P(T <= x) for Student's t with `df` degrees of freedom, through the regularized incomplete beta function."""
    tail = 0.5 * _regularized_beta(df / (df + x * x), df / 2, 0.5)
    return 1.0 - tail if x > 0 else tail


def t_quantile(probability: float, df: float) -> float:
    """The `probability` quantile of Student's t (numpy has no t distribution): `_bracketed_newton` on `t_cdf`."""
    if not 0.0 < probability < 1.0:
        raise ValueError(f"probability must be in (0, 1), got {probability}")
    if probability < 0.5:
        return -t_quantile(1.0 - probability, df)
    low, high = 0.0, 1.0
    while t_cdf(high, df) < probability:
        low, high = high, 2 * high
    log_norm = math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)

    def log_density(x: float) -> float:
        return log_norm - (df + 1) / 2 * math.log1p(x * x / df)

    return _bracketed_newton(lambda x: t_cdf(x, df) - probability, log_density, (low + high) / 2, low, high)


def _bracketed_newton(
    gap_of: Callable[[float], float], log_density: Callable[[float], float], x: float, low: float, high: float
) -> float:
    """The root in [low, high] of `gap_of` (a CDF minus a probability, so increasing; `log_density` its log slope).

    Newton's method kept inside the bracket that bisection would keep (a step that leaves it bisects instead): as
    sure as bisection, in a handful of evaluations instead of some sixty. Quantiles are most of the cost of a
    score interval, and the coverage simulation computes many thousands of intervals.
    """
    for _ in range(_QUANTILE_STEPS):
        gap = gap_of(x)
        low, high = (x, high) if gap < 0 else (low, x)
        density = math.exp(min(log_density(x), _MAX_LOG_DENSITY))
        step = x - gap / density if density > 0.0 else math.nan
        if not low < step < high:
            step = (low + high) / 2
        if step in (low, high):
            return step
        if abs(step - x) <= _NEWTON_TOLERANCE * abs(x):
            # Converged only if the root lies within the tolerance: the gap changes sign just past the step. Near
            # a pole (a CDF that is almost a step, as with a success count a rounding error below n) Newton crawls
            # instead: go on from past the probe, or bisect where the probe leaves the bracket.
            beyond = step + math.copysign(_NEWTON_TOLERANCE * abs(x), step - x)
            if not low < beyond < high:
                step = (low + high) / 2  # the root is within the tolerance of the bracket's end: bisect to it
            elif (gap_of(beyond) < 0) != (gap < 0):
                return step
            else:
                step = beyond
        x = step
    return x


def _regularized_beta(x: float, a: float, b: float) -> float:
    """I_x(a, b) by its continued fraction (modified Lentz), using the symmetry I_x(a, b) = 1 - I_{1-x}(b, a)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    if x > (a + 1) / (a + b + 2):
        return 1.0 - _regularized_beta(1.0 - x, b, a)
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    fraction = d
    for m in range(1, _BETA_ITERATIONS):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            fraction *= c * d
        if abs(c * d - 1.0) < _BETA_EPSILON:
            break
    return math.exp(log_front) * fraction / a


def beta_quantile(probability: float, a: float, b: float) -> float:
    """The `probability` quantile of the Beta(a, b) distribution: `_bracketed_newton` on the incomplete beta."""
    log_norm = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)

    def log_density(x: float) -> float:
        return log_norm + (a - 1) * math.log(x) + (b - 1) * math.log1p(-x)

    return _bracketed_newton(lambda x: _regularized_beta(x, a, b) - probability, log_density, 0.5, 0.0, 1.0)
