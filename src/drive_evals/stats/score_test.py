"""A clustered score test of a paired difference of bounded values: the test the report's paired interval inverts.

The sign-flip test of D = delta treats the differences minus delta as symmetric. Differences of values in [0, 1]
are not, once delta is away from 0 and most units agree (rare outcomes): two runs that agree on every unit would
reject every delta but 0. This test knows the bound. Under D = delta it takes the variance of a unit's difference
from the three-cell multinomial (A higher, B higher, tie) fitted under that constraint (Tango 1998, the score
interval for paired proportions), so a difference of delta implies at least |delta| discordance even where none was
seen; it scales that variance by the design effect the CR2 clustered variance shows at the estimate (as Korn and
Graubard 1998 do for one proportion) and refers the statistic to t on Bell and McCaffrey's degrees of freedom.
For non-binary differences the multinomial variance is an upper bound and the design effect takes it back to the
CR2 variance, so the test is then a CR2 t-test whose variance still grows towards the bounds.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from drive_evals.stats.clustered import bell_mccaffrey_df, cr2_stderr
from drive_evals.stats.distributions import t_cdf
from drive_evals.stats.intervals import ZERO_STDERR

FloatArray = npt.NDArray[np.float64]


def null_variance(higher_a: float, higher_b: float, delta: float) -> float:
    """Variance of one unit's difference under D = delta: the restricted multinomial fit of (A higher, B higher).

    Maximizing the likelihood of the observed shares (`higher_a`, `higher_b`) subject to p_a - p_b = delta gives
    p_b as the non-negative root of 2 p^2 + B p + C = 0 with B = -(a + b) + (2 - a + b) delta, C = -b delta (1 - delta)
    (Tango 1998, divided through by n); the variance is p_a + p_b - delta^2. Negative delta by symmetry.
    """
    if delta < 0:
        higher_a, higher_b, delta = higher_b, higher_a, -delta
    linear = -(higher_a + higher_b) + (2 - higher_a + higher_b) * delta
    root = (-linear + math.sqrt(max(linear * linear + 8 * higher_b * delta * (1 - delta), 0.0))) / 4
    return max(2 * root + delta - delta * delta, 0.0)


@dataclass(frozen=True)
class PairedScoreTest:
    """The weighted shares of A's and B's excess, the variance scale and the t degrees of freedom of one comparison."""

    higher_a: float
    """sum_i w_i max(d_i, 0): A's weighted excess (the share of units A got right and B wrong, for binary values)."""
    higher_b: float
    scale: float
    """Variance of the estimate per unit of a unit's multinomial variance: the design effect over Kish's n."""
    df: float

    @property
    def estimate(self) -> float:
        return self.higher_a - self.higher_b

    def stderr(self, delta: float) -> float:
        """The estimate's standard error if D were `delta`: the CR2 one at the estimate (or the multinomial one where
        the design effect is taken as 1), grown or shrunk with the null variance towards `delta`."""
        return math.sqrt(self.scale * null_variance(self.higher_a, self.higher_b, delta))

    @classmethod
    def of(
        cls,
        differences: FloatArray,
        unit_weights: FloatArray,
        clusters: Sequence[Hashable],
        groups: Sequence[str],
    ) -> PairedScoreTest:
        """From per-unit differences a_i - b_i in [-1, 1] and weights summing to 1 (1 / (K n_group) each)."""
        higher_a = float(unit_weights @ np.maximum(differences, 0.0))
        higher_b = float(unit_weights @ np.maximum(-differences, 0.0))
        independent = float(unit_weights @ unit_weights)  # the variance of a weighted mean of iid units, per unit
        stderr = cr2_stderr(differences.tolist(), groups, clusters)
        observed = higher_a + higher_b - (higher_a - higher_b) ** 2
        # No discordance (or no spread between clusters) says nothing about the design effect: take it as 1.
        exact_zero = stderr <= ZERO_STDERR or observed <= ZERO_STDERR
        scale = independent if exact_zero else stderr * stderr / observed
        # CR2 gives a group held by one cluster no variance at all: never let that shrink the multinomial variance.
        if _some_group_in_one_cluster(clusters, groups):
            scale = max(scale, independent)
        cluster_count = len(set(clusters))
        df = bell_mccaffrey_df(groups, clusters) if cluster_count > 1 else math.nan
        return cls(higher_a, higher_b, scale, min(df, cluster_count - 1) if not math.isnan(df) else math.nan)

    def p_value(self, delta: float) -> float:
        """Two-sided p of D = delta: |estimate - delta| / `stderr(delta)` against t on `df`."""
        if math.isnan(self.df):
            return 1.0
        stderr, distance = self.stderr(delta), abs(self.estimate - delta)
        if stderr <= 0.0:
            return 1.0 if distance <= ZERO_STDERR else 0.0
        return 2.0 * t_cdf(-distance / stderr, self.df)


def _some_group_in_one_cluster(clusters: Sequence[Hashable], groups: Sequence[str]) -> bool:
    seen: dict[str, set[Hashable]] = {}
    for cluster, group in zip(clusters, groups, strict=True):
        seen.setdefault(group, set()).add(cluster)
    return any(len(members) == 1 for members in seen.values())
