"""The standard error a log's `*_stderr` metric holds: never more precise than the interval `drive-evals report` prints.

The report prints each score with a 95% interval built on the per-unit values (`stats.mean_interval`): Korn and
Graubard's on the CR2 clustered standard error for 0/1 values, the betting interval for scores between 0 and 1.
A metric logged beside it as `*_stderr` invites reading mean +/- 1.96 SE as an interval, so it holds the CR2
standard error, raised to half the report's interval width / 1.96 where that interval is wider (betting intervals
below some hundred frames, and Korn-Graubard's near 0 or 1, where the SE can be 0). It is absent where the report
prints no informative interval: fewer than 3 clusters ("no CI"), or an interval covering the whole range, as the
judge scores of the 3-frame DriveLMM-o1 demo do ([0.0, 100.0]).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from statistics import NormalDist

from drive_evals.stats.clustered import cr2_stderr
from drive_evals.stats.intervals import CONFIDENCE, mean_interval

Z = NormalDist().inv_cdf(1 - (1 - CONFIDENCE) / 2)
WHOLE_RANGE_TOLERANCE = 0.0005
"""An interval this close to [0, 1] at both ends prints as [0.0, 100.0] in the report: it says nothing."""


def reported_stderr(
    estimate: float, values: Sequence[float], groups: Sequence[str], clusters: Sequence[Hashable], continuous: bool
) -> float | None:
    """The `*_stderr` to log for `estimate` (the equal-weight mean over `groups` of `values`), or None for none."""
    if math.isnan(estimate):
        return None
    interval = mean_interval(estimate, values, groups, clusters, continuous)
    if interval is None or not informative(interval):  # (None twice: for mypy's narrowing below)
        return None
    return max(cr2_stderr(values, groups, clusters), (interval[1] - interval[0]) / (2 * Z))


def informative(interval: tuple[float, float] | None) -> bool:
    """Whether the report prints this interval as anything narrower than [0.0, 100.0]."""
    return interval is not None and not (
        interval[0] <= WHOLE_RANGE_TOLERANCE and interval[1] >= 1 - WHOLE_RANGE_TOLERANCE
    )
