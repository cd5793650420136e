"""Means, cluster-robust standard errors and intervals shared by both benchmarks' metrics and the report.

Units that share an image (SURDS) or a frame (DriveLMM-o1) are not independent, so standard errors are clustered:
the variance is estimated from per-cluster sums of weighted deviations, with the finite-cluster correction
G / (G - 1) that Inspect's own `stderr(cluster=...)` applies (CR1; for a single group it equals Inspect's, and it is
what the logs hold). The report's intervals use the small-sample CR2 variance and Student's t instead, through
`mean_interval` (for scores between 0 and 1, the betting interval of `betting.py`); why, and the coverage measured:
docs/statistics.md.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from statistics import NormalDist

import numpy as np

from drive_evals.betting import betting_interval


@dataclass(frozen=True)
class GroupedEstimate:
    """Per-group means, the equal-weight mean over groups, and their clustered standard errors."""

    means: dict[str, float]
    stderrs: dict[str, float]
    counts: dict[str, int]
    overall: float
    overall_stderr: float


def clustered_stderr(values: Sequence[float], clusters: Sequence[Hashable]) -> float:
    """Cluster-robust standard error of the plain mean of `values`."""
    return equal_group_mean(values, ["all"] * len(values), clusters).overall_stderr


def equal_group_mean(values: Sequence[float], groups: Sequence[str], clusters: Sequence[Hashable]) -> GroupedEstimate:
    """Mean per group, their unweighted mean, and cluster-robust standard errors of each.

    The overall mean is a linear combination sum_i w_i x_i with w_i = 1 / (K n_g(i)), so its clustered variance is
    G / (G - 1) * sum_c (sum_{i in c} w_i (x_i - mean_g(i)))^2, which covers clusters that span groups.
    """
    if not (len(values) == len(groups) == len(clusters)):
        raise ValueError("values, groups and clusters must have the same length")
    by_group: dict[str, list[int]] = defaultdict(list)
    for index, group in enumerate(groups):
        by_group[group].append(index)
    if not by_group:
        return GroupedEstimate({}, {}, {}, math.nan, math.nan)
    means = {g: sum(values[i] for i in idx) / len(idx) for g, idx in by_group.items()}
    counts = {g: len(idx) for g, idx in by_group.items()}
    stderrs = {
        g: _linear_stderr([values[i] - means[g] for i in idx], [1.0 / len(idx)] * len(idx), [clusters[i] for i in idx])
        for g, idx in by_group.items()
    }
    group_count = len(by_group)
    deviations = [values[i] - means[groups[i]] for i in range(len(values))]
    weights = [1.0 / (group_count * counts[groups[i]]) for i in range(len(values))]
    overall = sum(means.values()) / group_count
    return GroupedEstimate(means, stderrs, counts, overall, _linear_stderr(deviations, weights, clusters))


def cr2_stderr(values: Sequence[float], groups: Sequence[str], clusters: Sequence[Hashable]) -> float:
    """Bell and McCaffrey's CR2 standard error of the equal-weight mean over groups (one group: the plain mean).

    The model is one mean per group; cluster c's leverage in group g is n_gc / n_g, so CR2 scales that block's
    residual sum by (1 - n_gc / n_g)^(-1/2) instead of scaling the whole variance by G / (G - 1) as CR1 does. It is
    unbiased for independent clusters of equal variance and, unlike CR1, does not shrink when clusters are unequal.
    A group held by a single cluster has residual sum 0 there and adds nothing. NaN without units; 0 with 1 cluster.
    """
    if not values:
        return math.nan
    return math.sqrt(sum(total * total for total in _cr2_residual_sums(values, groups, clusters).values()))


def _cr2_residual_sums(
    values: Sequence[float], groups: Sequence[str], clusters: Sequence[Hashable]
) -> dict[Hashable, float]:
    """Each cluster's CR2-scaled residual sum of the equal-weight mean over groups (`cr2_stderr` says how)."""
    if not (len(values) == len(groups) == len(clusters)):
        raise ValueError("values, groups and clusters must have the same length")
    by_group: dict[str, list[int]] = defaultdict(list)
    for index, group in enumerate(groups):
        by_group[group].append(index)
    scaled: dict[Hashable, float] = defaultdict(float)
    for members in by_group.values():
        mean = sum(values[i] for i in members) / len(members)
        residuals: dict[Hashable, float] = defaultdict(float)
        sizes: dict[Hashable, int] = defaultdict(int)
        for i in members:
            residuals[clusters[i]] += values[i] - mean
            sizes[clusters[i]] += 1
        weight = 1.0 / (len(by_group) * len(members))
        for cluster, residual in residuals.items():
            share = 1.0 - sizes[cluster] / len(members)
            scaled[cluster] += 0.0 if share <= 0.0 else weight * residual / math.sqrt(share)
    return scaled


def bell_mccaffrey_df(groups: Sequence[str], clusters: Sequence[Hashable]) -> float:
    """Bell and McCaffrey's degrees of freedom for the CR2 variance of the equal-weight mean over groups.

    Under independent errors of equal variance the CR2 variance is e' M e with M = sum_c g_c g_c', g_c the
    residual-maker applied to cluster c's CR2 weights; a Satterthwaite match gives df = (tr M)^2 / tr(M^2) =
    (sum_c |g_c|^2)^2 / |G'G|_F^2. It is G - 1 for equal clusters in one group and smaller when clusters are
    unequal, which is where t on G - 1 over-covers (Imbens and Kolesar 2016).
    """
    group_index = np.unique(np.asarray(groups), return_inverse=True)[1]
    # codes by first appearance, on the labels themselves as `cr2_stderr` keys them (1 and "1" stay apart)
    codes: dict[Hashable, int] = {}
    cluster_index = np.array([codes.setdefault(c, len(codes)) for c in clusters], dtype=np.int64)
    group_count, cluster_count = int(group_index.max()) + 1, int(cluster_index.max()) + 1
    if cluster_count < 2:
        return math.nan
    n_g = np.bincount(group_index, minlength=group_count).astype(np.float64)
    n_gc = np.zeros((group_count, cluster_count))
    np.add.at(n_gc, (group_index, cluster_index), 1.0)
    share = 1.0 - n_gc / n_g[:, None]
    unit_weight = np.where(
        (n_gc > 0) & (share > 0), 1.0 / (group_count * n_g[:, None] * np.sqrt(np.maximum(share, 1e-300))), 0.0
    )
    # G'G = D - S' N^-1 S with D_c = sum of cluster c's squared weights and S_gc their sum in group g (the residual
    # maker subtracts group means), so no units x clusters matrix is ever formed
    sums = n_gc * unit_weight
    diagonal = (n_gc * unit_weight**2).sum(axis=0)
    scaled = sums / np.sqrt(n_g)[:, None]
    projected_diagonal = (scaled**2).sum(axis=0)
    total = float(diagonal.sum() - projected_diagonal.sum())
    small = scaled @ scaled.T
    squares = float((diagonal**2).sum() - 2 * (diagonal * projected_diagonal).sum() + (small * small).sum())
    return total * total / squares if squares > 1e-300 else float(cluster_count - 1)


def _linear_stderr(deviations: Sequence[float], weights: Sequence[float], clusters: Sequence[Hashable]) -> float:
    """Clustered standard error of sum_i w_i x_i given the deviations x_i - E[x_i]; 0 with fewer than 2 clusters."""
    sums: dict[Hashable, float] = defaultdict(float)
    for deviation, weight, cluster in zip(deviations, weights, clusters, strict=True):
        sums[cluster] += weight * deviation
    cluster_count = len(sums)
    if cluster_count < 2:
        return 0.0
    variance = sum(total * total for total in sums.values()) * cluster_count / (cluster_count - 1)
    return math.sqrt(variance)


CONFIDENCE = 0.95
MIN_SCORE_CLUSTERS = 3
"""Fewer clusters than this and no score interval is printed: 1 cluster gives no variance estimate, 2 a t quantile
on 1 degree of freedom (12.7). `benchmarks/bench_coverage.py` measures the interval from 3 clusters up."""
ZERO_STDERR = 1e-12
MAX_EFFECTIVE = 1e6
"""An effective sample size beyond any data set here (a near-zero SE): kept finite for the beta functions."""
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


def score_interval(
    estimate: float,
    stderr: float,
    units: float,
    clusters: int,
    confidence: float = CONFIDENCE,
    df: float | None = None,
) -> tuple[float, float] | None:
    """Korn and Graubard's (1998) interval for a mean of values in [0, 1]: Clopper-Pearson on an effective n.

    Under clustering the data hold the information of n_eff = p(1 - p) / SE^2 independent units (n over the design
    effect); with SE 0 (every unit at 0 or 1, or every cluster alike) the design effect is taken as 1, n_eff = n.
    n_eff is then shrunk by (z / t_df)^2 so that the interval carries the uncertainty of a variance estimated
    from G clusters (`df`: Bell-McCaffrey's, see `bell_mccaffrey_df`; at most G - 1). Unlike estimate +/- 1.96 SE
    it stays in [0, 1], is asymmetric near the ends, and has a width
    at 0 (0/16 with t on 4 df: [0, 0.37]). None with fewer than MIN_SCORE_CLUSTERS clusters. Pass the CR2 SE
    (`cr2_stderr`); the coverage this reaches is measured in docs/statistics.md.
    """
    if math.isnan(estimate) or math.isnan(stderr) or units < 1 or clusters < MIN_SCORE_CLUSTERS:
        return None
    p = min(1.0, max(0.0, estimate))
    variance = stderr * stderr
    # an SE of rounding noise (every value equal) is an SE of 0, whichever order the sums ran in
    exact_zero = stderr <= ZERO_STDERR or p * (1 - p) <= 0.0
    effective = units if exact_zero else p * (1 - p) / variance
    tail = (1 - confidence) / 2
    degrees = clusters - 1 if df is None or math.isnan(df) else min(df, clusters - 1)
    shrink = (NormalDist().inv_cdf(1 - tail) / t_quantile(1 - tail, degrees)) ** 2
    effective = min(effective, MAX_EFFECTIVE) * shrink
    successes = p * effective
    low = 0.0 if successes <= 0 else beta_quantile(tail, successes, effective - successes + 1)
    high = 1.0 if successes >= effective else beta_quantile(1 - tail, successes + 1, effective - successes)
    return low, high


def kish_units(groups: Sequence[str]) -> float:
    """Kish's effective n of the equal-weight mean over groups, 1 / sum of squared unit weights (each 1 / (K n_g)):
    the n whose binomial variance p(1 - p) / n bounds that mean's variance when the units are independent. K^2 over
    the sum of 1 / n_g; n itself for one group or equal groups."""
    sizes = Counter(groups)
    # exact rationals: one group (or equal groups) gives n itself, not n to the last bit
    return float(len(sizes) ** 2 / sum(Fraction(1, size) for size in sizes.values()))


def mean_interval(
    estimate: float,
    values: Sequence[float],
    groups: Sequence[str],
    clusters: Sequence[Hashable],
    continuous: bool,
) -> tuple[float, float] | None:
    """The report's 95% interval for `estimate`, the equal-weight mean over groups of `values` in [0, 1].

    For 0/1 values, Korn and Graubard's interval (`score_interval`) on the CR2 SE with Bell-McCaffrey df. For scores
    between 0 and 1 (`continuous`, as the metric declares, or whenever some value lies strictly between them, as
    epoch means do), the betting interval (`betting.betting_interval`), which holds whatever the scores'
    distribution: a run of few frames that shows nothing of a rare tail of poor ones has a small SE that says
    nothing about that tail. A mean over several groups (SURDS `overall` with centerness in its xy2d subset) keeps
    Korn-Graubard's: betting on whole images would carry the differences between subsets, and the five 0/1 subsets
    give its SE their binomial spread (docs/statistics.md). None without units or with fewer than
    MIN_SCORE_CLUSTERS clusters.
    """
    if not values or len(set(clusters)) < MIN_SCORE_CLUSTERS:
        return None
    scores = continuous or any(value not in (0.0, 1.0) for value in values)
    if scores and len(set(groups)) == 1:
        return betting_interval(values, clusters, CONFIDENCE)
    stderr, df = cr2_stderr(values, groups, clusters), bell_mccaffrey_df(groups, clusters)
    return score_interval(estimate, stderr, kish_units(groups), len(set(clusters)), df=df)
