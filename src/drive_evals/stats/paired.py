"""Paired comparison of two models on the units both answered: one p-value, and an interval that agrees with it.

Units that share an image (SURDS) or a frame (DriveLMM-o1) are not independent. The estimator is the equal-weight
mean over groups of the per-group mean difference (one group: the plain mean difference), so SURDS `overall` is
compared the way it is defined. Two tests look at the data. A studentized sign-flip test that flips whole clusters
is exact for "no difference" (the labels A and B are then exchangeable); a clustered score test that knows the
values are bounded (`score_test`) holds its coverage at every other difference too, where the sign-flip test's
symmetry fails for rare outcomes. The p-value of no difference is the larger of the two (valid whenever either is);
the 95% interval inverts the score test and reaches 0 whenever that p-value is above 0.05, so the interval excludes
0 exactly when p < 0.05. Pure functions of their inputs and a fixed seed: the same logs always give the same
report. Why this method, its measured coverage and power: docs/statistics.md.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from drive_evals.stats.distributions import t_quantile
from drive_evals.stats.intervals import CONFIDENCE, ZERO_STDERR
from drive_evals.stats.score_test import PairedScoreTest

SIGN_FLIPS = 10_000
"""Monte Carlo sign-flip draws; with at most log2(SIGN_FLIPS) clusters every sign pattern is enumerated instead."""
SEED = 20_250_601
POWER = 0.80
"""The power at which the minimum detectable difference is stated."""
MIN_DETECTABLE_CLUSTERS = 9
"""Fewest clusters at which the detectable difference is stated: from 9 up benchmarks/bench_coverage.py's power
check finds the test at 80% power where it says so; at 6-8 the sign-flip test, with 64-256 sign patterns, rejects
too rarely for the formula (docs/statistics.md)."""
PATTERN_CACHE_SIZE = 16
"""Cluster counts whose sign patterns are kept (at most SIGN_FLIPS x clusters bytes each: 2 MB at 200 clusters)."""
CHUNK_ROWS = 1000
"""Sign patterns per matrix product, which bounds memory at CHUNK_ROWS x clusters numbers."""
TIE_TOLERANCE = 1e-9
"""Relative slack when comparing |t*| with |t|, so that floating-point ties count as ties."""
BISECTION_TOLERANCE = 1e-5
"""Precision of the interval's ends (a thousandth of a percentage point)."""
DIFFERENCE_BOUNDS = (-1.0, 1.0)
"""Values lie in [0, 1], so a difference of means lies in [-1, 1]; the interval never leaves that range."""
FEW_CLUSTERS = "fewer than 6 clusters (the smallest sign-flip p-value, 2 / 2^G, is then above 0.05)"

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class PairedDifference:
    """A - B on the common units: estimate, 95% interval, two-sided p-value of no difference, detectable difference.

    `ci_low`/`ci_high` are NaN where no interval is given, and `no_interval` then says why.
    """

    estimate: float
    ci_low: float
    ci_high: float
    p_value: float
    units: int
    clusters: int
    exact_p: bool
    """True when the sign-flip p-value enumerates every sign pattern (few clusters), False for a Monte Carlo one."""
    detectable: float = math.nan
    """Smallest |A - B| found with 80% power at these clusters, by formula (NaN where it cannot be stated)."""
    no_interval: str = ""


def min_clusters(confidence: float = CONFIDENCE) -> int:
    """Fewest clusters at which the sign-flip test can reject at all: its smallest p-value is 2 / 2^G."""
    clusters = 1
    while 2.0 / 2**clusters > 1 - confidence:
        clusters += 1
    return clusters


@dataclass(frozen=True)
class _FlipSums:
    """For every sign pattern s: s.v, s.w, s.(v*w) and s.(w*w), from which the studentized statistic at any shift
    delta follows in O(patterns) (u = v - delta * w is linear in delta). The report tests delta = 0 only."""

    v: FloatArray
    w: FloatArray
    vw: FloatArray
    ww: FloatArray
    sum_vv: float
    sum_vw: float
    sum_ww: float

    def p_value(self, delta: float) -> float:
        """Share of sign patterns whose |t*| reaches the observed |t| when testing D = delta."""
        totals = self.v - delta * self.w
        cross = self.vw - delta * self.ww
        squares = self.sum_vv - 2 * delta * self.sum_vw + delta * delta * self.sum_ww
        # CR1 variance of the flipped estimate, up to the constant G / (G - 1): sum_c (s_c u_c - w_c T*)^2
        variances = np.maximum(squares - 2 * totals * cross + totals * totals * self.sum_ww, 0.0)
        scale = max(squares, self.sum_ww * delta * delta, 1e-300)
        degenerate = variances <= 1e-12 * scale
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.where(degenerate, np.where(np.abs(totals) > 1e-9 * math.sqrt(scale), np.inf, 0.0), totals)
            t = np.where(degenerate, t, np.abs(totals) / np.sqrt(np.where(degenerate, 1.0, variances)))
        observed = t[0]  # row 0 is the identity pattern
        if math.isinf(observed):
            return float(np.mean(np.isinf(t)))
        return float(np.mean(t >= observed * (1 - TIE_TOLERANCE) - TIE_TOLERANCE))


def paired_difference(
    a: Sequence[float],
    b: Sequence[float],
    clusters: Sequence[Hashable],
    groups: Sequence[Hashable] | None = None,
    *,
    sign_flips: int = SIGN_FLIPS,
    seed: int = SEED,
    bounds: tuple[float, float] = DIFFERENCE_BOUNDS,
) -> PairedDifference:
    """Compare paired per-unit values `a` and `b` in [0, 1] (same units, same order) clustered by `clusters`.

    Estimate: D = (1/K) sum_k mean_{i in k}(a_i - b_i) over the K groups (K = 1 without `groups`). p: the larger of
    the sign-flip and the score test's p-values of D = 0 (`PairedTests`). Interval: `PairedTests.interval`. No
    interval with fewer than `min_clusters()` clusters, where the sign-flip test cannot reject at 5%, so neither
    can p. `detectable`: `PairedTests.detectable`.
    Raises ValueError on inputs of unequal length, or on a value that is not a number in [0, 1].
    """
    if not (len(a) == len(b) == len(clusters)) or (groups is not None and len(groups) != len(a)):
        raise ValueError("a, b, clusters (and groups) must have the same length")
    if not a:
        return PairedDifference(math.nan, math.nan, math.nan, math.nan, 0, 0, True, no_interval="no common units")
    tests = paired_tests(a, b, clusters, groups, sign_flips=sign_flips, seed=seed)
    untested = PairedDifference(tests.estimate, math.nan, math.nan, tests.p_value, len(a), tests.clusters, tests.exact)
    if tests.clusters < min_clusters():
        return dataclasses.replace(untested, no_interval=FEW_CLUSTERS)
    low, high = tests.interval(bounds)
    return dataclasses.replace(untested, ci_low=low, ci_high=high, detectable=tests.detectable())


CREDIT_INTERVAL_CLUSTERS = 20
"""Fewest clusters at which `scaled_paired_difference` gives an interval: on the bench's VLADBench shape the
interval covered 0.897 at 6 scenes and 0.938 at 9, 0.948-0.955 from 20 (docs/statistics.md); the p-value of no
difference keeps the sign-flip test's exactness from 6."""
FEW_CREDIT_CLUSTERS = f"fewer than {CREDIT_INTERVAL_CLUSTERS} clusters (a paired interval on credits covers 0.90 at 6)"


def scaled_paired_difference(
    a: Sequence[float], b: Sequence[float], clusters: Sequence[Hashable], scale: float
) -> PairedDifference:
    """`paired_difference` of values in [0, `scale`] (per-unit credits of a ratio of sums, VLADBench's `total`):
    run on the values over `scale`, which lie in [0, 1], with the estimate, interval and detectable difference
    scaled back (the p-value does not depend on the scale) and the interval kept in [-1, 1], where a difference of
    two means in [0, 1] lies. No interval below CREDIT_INTERVAL_CLUSTERS clusters."""
    result = paired_difference([v / scale for v in a], [v / scale for v in b], clusters)
    if not result.no_interval and result.clusters < CREDIT_INTERVAL_CLUSTERS:
        result = dataclasses.replace(
            result, ci_low=math.nan, ci_high=math.nan, detectable=math.nan, no_interval=FEW_CREDIT_CLUSTERS
        )
    low, high = DIFFERENCE_BOUNDS
    return dataclasses.replace(
        result,
        estimate=result.estimate * scale,
        ci_low=result.ci_low if math.isnan(result.ci_low) else max(low, result.ci_low * scale),
        ci_high=result.ci_high if math.isnan(result.ci_high) else min(high, result.ci_high * scale),
        detectable=result.detectable * scale,
    )


@dataclass(frozen=True)
class PairedTests:
    """The two tests of one comparison: the cluster sign-flip test and the bounded score test."""

    estimate: float
    clusters: int
    exact: bool
    """True when the sign-flip test enumerates every sign pattern."""
    flips: _FlipSums
    score: PairedScoreTest

    @functools.cached_property
    def p_value(self) -> float:
        """Two-sided p of no difference: the larger of the two tests' p-values, so valid whenever either test is."""
        return max(self.flips.p_value(0.0), self.score.p_value(0.0))

    def interval(self, bounds: tuple[float, float] = DIFFERENCE_BOUNDS) -> tuple[float, float]:
        """The score test's interval; where p > 5% only because the sign-flip test keeps 0, it is widened to reach 0
        (0 is then accepted), so the interval contains 0 exactly when p > 5%."""
        low, high = inverted_interval(self.score.p_value, self.estimate, bounds)
        if self.p_value > 1 - CONFIDENCE:
            low, high = min(low, 0.0), max(high, 0.0)
        return low, high

    def detectable(self) -> float:
        """The smallest |D| the test finds with 80% power: (t_{df, 97.5%} + t_{df, 80%}) x the score test's SE at
        D = 0, where it decides (no difference means more discordance than a difference does: a larger SE there)."""
        stderr = self.score.stderr(0.0)
        if self.clusters < MIN_DETECTABLE_CLUSTERS or stderr <= ZERO_STDERR:
            return math.nan
        return (t_quantile(1 - (1 - CONFIDENCE) / 2, self.score.df) + t_quantile(POWER, self.score.df)) * stderr


def paired_tests(
    a: Sequence[float],
    b: Sequence[float],
    clusters: Sequence[Hashable],
    groups: Sequence[Hashable] | None = None,
    *,
    sign_flips: int = SIGN_FLIPS,
    seed: int = SEED,
) -> PairedTests:
    """The two tests of `paired_difference` (non-empty inputs of equal length, values in [0, 1])."""
    values = np.asarray([a, b], dtype=np.float64)
    if not np.all((values >= 0.0) & (values <= 1.0)):  # NaN fails both comparisons
        raise ValueError("paired values must be numbers in [0, 1]")
    differences = values[0] - values[1]
    cluster_index = _codes(clusters)
    group_index = _codes(groups) if groups is not None else np.zeros(len(a), dtype=np.int64)
    unit_weights = _unit_weights(group_index)
    shares = np.bincount(cluster_index, weights=unit_weights * differences).astype(np.float64)
    weights = np.bincount(cluster_index, weights=unit_weights).astype(np.float64)
    signs, exact = _sign_patterns(shares.size, sign_flips, seed)
    group_labels = [str(g) for g in groups] if groups is not None else [""] * len(a)
    score = PairedScoreTest.of(differences, unit_weights, list(clusters), group_labels)
    return PairedTests(float(shares.sum()), shares.size, exact, _flip_sums(signs, shares, weights), score)


def inverted_interval(
    p_value: Callable[[float], float],
    estimate: float,
    bounds: tuple[float, float] = DIFFERENCE_BOUNDS,
    alpha: float = 1 - CONFIDENCE,
) -> tuple[float, float]:
    """The deltas in `bounds` that a test keeps (p(delta) > `alpha`), as [low, high] around the estimate.

    Each end by bisection from the estimate, so exact for a test whose kept deltas form an interval (the score
    test's); the studentized sign-flip test's need not (it is inverted only in benchmarks/bench_coverage.py, as the
    method the report used before).
    """
    return _boundary(p_value, estimate, bounds[0], alpha), _boundary(p_value, estimate, bounds[1], alpha)


CSV_TEST_COLUMNS = ("units", "clusters", "mean_a", "mean_b", "difference", "ci_low", "ci_high", "p_value", "p_exact")
CSV_POWER_COLUMNS = ("detectable_80", "no_interval")
"""The columns `csv_fields` fills, in the order every paired CSV shows them (a file's own columns around them)."""


def csv_fields(result: PairedDifference, mean_a: float, mean_b: float) -> dict[str, Any]:
    """A comparison's columns in the report's paired CSVs (models, blind gap, paired by level)."""
    return {
        "units": result.units,
        "clusters": result.clusters,
        "mean_a": mean_a,
        "mean_b": mean_b,
        "difference": result.estimate,
        "ci_low": result.ci_low,
        "ci_high": result.ci_high,
        "p_value": result.p_value,
        "p_exact": result.exact_p,
        "detectable_80": result.detectable,
        "no_interval": result.no_interval,
    }


def holm_adjust(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment (family-wise error control over the given tests); NaN entries stay NaN."""
    present = sorted((p, i) for i, p in enumerate(p_values) if not math.isnan(p))
    adjusted = [math.nan] * len(p_values)
    running = 0.0
    for rank, (p, index) in enumerate(present):
        running = max(running, min(1.0, (len(present) - rank) * p))
        adjusted[index] = running
    return adjusted


def _codes(labels: Sequence[Hashable]) -> npt.NDArray[np.int64]:
    positions: dict[Hashable, int] = {}
    return np.array([positions.setdefault(label, len(positions)) for label in labels], dtype=np.int64)


def _unit_weights(groups: npt.NDArray[np.int64]) -> FloatArray:
    """Unit i weighs 1 / (K n_group(i)), so that the weighted sum of differences is D and the weights sum to 1."""
    group_count = int(groups.max()) + 1
    units_per_group = np.bincount(groups, minlength=group_count).astype(np.float64)
    return np.asarray(1.0 / (group_count * units_per_group[groups]), dtype=np.float64)


@functools.lru_cache(maxsize=PATTERN_CACHE_SIZE)
def _sign_patterns(cluster_count: int, sign_flips: int, seed: int) -> tuple[npt.NDArray[np.int8], bool]:
    """All 2^G patterns when they fit in `sign_flips`, else the identity plus `sign_flips` random ones.

    A pure function of its arguments (a fresh generator from `seed`), so it is kept: a report's rows, and a
    coverage simulation's thousands of draws, share the patterns of each cluster count. Read-only.
    """
    if 2**cluster_count <= sign_flips:
        bits = (np.arange(2**cluster_count)[:, None] >> np.arange(cluster_count)) & 1
        signs = (1 - 2 * bits).astype(np.int8)
        exact = True
    else:
        drawn = np.random.default_rng(seed).choice(np.array([-1, 1], dtype=np.int8), size=(sign_flips, cluster_count))
        signs, exact = np.vstack([np.ones((1, cluster_count), dtype=np.int8), drawn]), False
    signs.flags.writeable = False
    return signs, exact


def _flip_sums(signs: npt.NDArray[np.int8], v: FloatArray, w: FloatArray) -> _FlipSums:
    vectors = np.stack([v, w, v * w, w * w], axis=1)
    products = np.concatenate(
        [signs[start : start + CHUNK_ROWS].astype(np.float64) @ vectors for start in range(0, len(signs), CHUNK_ROWS)]
    )
    return _FlipSums(
        products[:, 0], products[:, 1], products[:, 2], products[:, 3], float(v @ v), float(v @ w), float(w @ w)
    )


def _boundary(p_value: Callable[[float], float], estimate: float, bound: float, alpha: float) -> float:
    """The interval's end between the estimate (p = 1) and `bound`: where p(delta) falls to alpha.

    When 0 lies on this side, the search is confined to the side of 0 the test's own verdict puts the end on, so
    the interval contains 0 exactly when p(0) > alpha.
    """
    inside, outside = estimate, bound
    if min(estimate, bound) <= 0.0 <= max(estimate, bound) and estimate != 0.0:
        if p_value(0.0) > alpha:
            inside = 0.0
        else:
            outside = 0.0
    if outside == bound and p_value(bound) > alpha:
        return bound
    while abs(outside - inside) > BISECTION_TOLERANCE:
        middle = (inside + outside) / 2
        inside, outside = (middle, outside) if p_value(middle) > alpha else (inside, middle)
    return inside
