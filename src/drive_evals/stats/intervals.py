"""The report's 95% intervals for a mean of values in [0, 1]: Korn-Graubard's score interval, or the betting
interval for scores between 0 and 1 (`mean_interval` chooses); why, and the coverage measured: docs/statistics.md.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Sequence
from fractions import Fraction
from statistics import NormalDist

from drive_evals.stats.betting import betting_interval
from drive_evals.stats.clustered import bell_mccaffrey_df, cr2_stderr
from drive_evals.stats.distributions import beta_quantile, t_quantile

CONFIDENCE = 0.95
MIN_SCORE_CLUSTERS = 3
"""Fewer clusters than this and no score interval is printed: 1 cluster gives no variance estimate, 2 a t quantile
on 1 degree of freedom (12.7). `benchmarks/bench_coverage.py` measures the interval from 3 clusters up."""
ZERO_STDERR = 1e-12
MAX_EFFECTIVE = 1e6
"""An effective sample size beyond any data set here (a near-zero SE): kept finite for the beta functions."""


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
    give its SE their binomial spread (docs/statistics.md). None without units, with fewer than MIN_SCORE_CLUSTERS
    clusters, or with a value outside [0, 1] (a judge's out-of-scale rating counted as given): no method here holds.
    """
    if not values or len(set(clusters)) < MIN_SCORE_CLUSTERS or not all(0.0 <= value <= 1.0 for value in values):
        return None
    scores = continuous or any(value not in (0.0, 1.0) for value in values)
    if scores and len(set(groups)) == 1:
        return betting_interval(values, clusters, CONFIDENCE)
    stderr, df = cr2_stderr(values, groups, clusters), bell_mccaffrey_df(groups, clusters)
    return score_interval(estimate, stderr, kish_units(groups), len(set(clusters)), df=df)
