"""Paired comparison of two models on the units both answered: a cluster bootstrap interval and a sign-flip test.

Units that share an image (SURDS) or a frame (DriveLMM-o1) are not independent, so both procedures resample or
flip whole clusters. The estimator is the equal-weight mean over groups of the per-group mean difference (one group:
the plain mean difference), so SURDS `overall` is compared the way it is defined. Pure functions of their inputs and
a fixed seed: the same logs always give the same report.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

BOOTSTRAP_REPLICATES = 4000
SIGN_FLIPS = 10_000
"""Monte Carlo sign-flip draws; with at most log2(SIGN_FLIPS) clusters every sign pattern is enumerated instead."""
SEED = 20_250_601
CONFIDENCE = 0.95
CHUNK_ROWS = 1000
"""Replicates per matrix product, which bounds memory at CHUNK_ROWS x clusters numbers."""
TIE_TOLERANCE = 1e-12
"""Relative slack when comparing |T*| with |T|, so that floating-point ties count as ties."""

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class PairedDifference:
    """A - B on the common units: estimate, percentile bootstrap interval, two-sided sign-flip p-value."""

    estimate: float
    ci_low: float
    ci_high: float
    p_value: float
    units: int
    clusters: int
    exact_p: bool
    """True when the p-value enumerates every sign pattern (few clusters), False for a Monte Carlo estimate."""


@dataclass(frozen=True)
class _Design:
    """Per-cluster sums of differences and unit counts for each group (groups x clusters)."""

    sums: FloatArray
    counts: FloatArray

    def estimate(self, cluster_weights: FloatArray) -> FloatArray:
        """Equal mean over groups of the weighted group means, one value per row of `cluster_weights`."""
        totals = cluster_weights @ self.sums.T
        units = cluster_weights @ self.counts.T
        with np.errstate(invalid="ignore", divide="ignore"):
            means = np.where(units > 0, totals / units, np.nan)
        return np.asarray(means.mean(axis=1), dtype=np.float64)


def paired_difference(
    a: Sequence[float],
    b: Sequence[float],
    clusters: Sequence[Hashable],
    groups: Sequence[Hashable] | None = None,
    *,
    replicates: int = BOOTSTRAP_REPLICATES,
    sign_flips: int = SIGN_FLIPS,
    seed: int = SEED,
) -> PairedDifference:
    """Compare paired per-unit values `a` and `b` (same units, same order) clustered by `clusters`.

    Estimate: D = (1/K) sum_k mean_{i in k}(a_i - b_i) over the K groups (K = 1 without `groups`).
    Interval: percentile bootstrap of D, resampling whole clusters with replacement (replicates in which a group
    draws no unit are dropped). p-value: under H0 the labels A and B are exchangeable within a unit, so the sign of
    every difference in a cluster can flip together; p = share of sign patterns with |D*| >= |D|, exact when all
    2^G patterns fit in `sign_flips`, else (1 + hits) / (1 + draws).
    """
    if not (len(a) == len(b) == len(clusters)) or (groups is not None and len(groups) != len(a)):
        raise ValueError("a, b, clusters (and groups) must have the same length")
    if not a:
        return PairedDifference(math.nan, math.nan, math.nan, math.nan, 0, 0, True)
    differences = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    cluster_index = _codes(clusters)
    group_index = _codes(groups) if groups is not None else np.zeros(len(a), dtype=np.int64)
    design = _design(differences, cluster_index, group_index)
    cluster_count = design.sums.shape[1]
    estimate = float(design.estimate(np.ones((1, cluster_count)))[0])
    bootstrap_seed, flip_seed = np.random.SeedSequence(seed).spawn(2)
    low, high = _bootstrap_interval(design, replicates, np.random.default_rng(bootstrap_seed))
    p_value, exact = _sign_flip_p(design, estimate, sign_flips, np.random.default_rng(flip_seed))
    return PairedDifference(estimate, low, high, p_value, len(a), cluster_count, exact)


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


def _design(differences: FloatArray, clusters: npt.NDArray[np.int64], groups: npt.NDArray[np.int64]) -> _Design:
    shape = (int(groups.max()) + 1, int(clusters.max()) + 1)
    sums = np.zeros(shape)
    counts = np.zeros(shape)
    np.add.at(sums, (groups, clusters), differences)
    np.add.at(counts, (groups, clusters), 1.0)
    return _Design(sums, counts)


def _bootstrap_interval(design: _Design, replicates: int, rng: np.random.Generator) -> tuple[float, float]:
    cluster_count = design.sums.shape[1]
    uniform = np.full(cluster_count, 1.0 / cluster_count)
    values: list[FloatArray] = []
    for start in range(0, replicates, CHUNK_ROWS):
        draws = rng.multinomial(cluster_count, uniform, size=min(CHUNK_ROWS, replicates - start))
        values.append(design.estimate(draws.astype(np.float64)))
    estimates = np.concatenate(values)
    estimates = estimates[~np.isnan(estimates)]
    if estimates.size == 0:
        return math.nan, math.nan
    tail = (1.0 - CONFIDENCE) / 2 * 100
    low, high = np.percentile(estimates, [tail, 100 - tail])
    return float(low), float(high)


def _sign_flip_p(design: _Design, estimate: float, sign_flips: int, rng: np.random.Generator) -> tuple[float, bool]:
    """Flipping a cluster's signs keeps every group's unit count, so D* = s . v with v_g = D's share of cluster g."""
    group_count = design.sums.shape[0]
    units_per_group = design.counts.sum(axis=1)
    contributions = (design.sums / units_per_group[:, None]).sum(axis=0) / group_count
    threshold = abs(estimate) * (1 - TIE_TOLERANCE) - TIE_TOLERANCE
    cluster_count = contributions.size
    if 2**cluster_count <= sign_flips:
        patterns = (np.arange(2**cluster_count)[:, None] >> np.arange(cluster_count)) & 1
        flipped = (1 - 2 * patterns) @ contributions
        return float(np.mean(np.abs(flipped) >= threshold)), True
    hits = 0
    for start in range(0, sign_flips, CHUNK_ROWS):
        signs = rng.choice([-1.0, 1.0], size=(min(CHUNK_ROWS, sign_flips - start), cluster_count))
        hits += int(np.sum(np.abs(signs @ contributions) >= threshold))
    return (1 + hits) / (1 + sign_flips), False
