"""Means and cluster-robust standard errors shared by both benchmarks' metrics and the comparison report.

Units that share an image (SURDS) or a frame (DriveLMM-o1) are not independent, so standard errors are clustered:
the variance is estimated from per-cluster sums of weighted deviations, with the finite-cluster correction
G / (G - 1) that Inspect's own `stderr(cluster=...)` applies. For a single group the result equals Inspect's.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Hashable, Sequence
from dataclasses import dataclass


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
