"""Means and cluster-robust standard errors shared by the benchmarks' metrics and the report.

Units that share an image (SURDS) or a frame (DriveLMM-o1) are not independent, so standard errors are clustered:
the variance is estimated from per-cluster sums of weighted deviations, with the finite-cluster correction
G / (G - 1) that Inspect's own `stderr(cluster=...)` applies (CR1; for a single group it equals Inspect's, and it is
what the logs hold). The report's intervals (`stats.intervals`) use the small-sample CR2 variance below and
Student's t instead; why, and the coverage measured: docs/statistics.md.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np


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
