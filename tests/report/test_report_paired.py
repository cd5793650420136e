"""The paired statistics against cases worked by hand and against a plain, independent numpy implementation."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from drive_evals.report.paired import holm_adjust, paired_difference

Z95 = 1.959963984540054


def test_estimate_and_exact_p_by_hand() -> None:
    """Differences 1, 1 | 2 | 3 in clusters c1 | c2 | c3: D = 7/4; cluster shares 2/4, 2/4, 3/4.

    Of the 8 sign patterns only +++ and --- reach |D*| >= 7/4 (the next largest is 3/4), so p = 2/8.
    """
    a = [1.0, 1.0, 2.0, 3.0]
    b = [0.0, 0.0, 0.0, 0.0]
    result = paired_difference(a, b, ["c1", "c1", "c2", "c3"])
    assert result.estimate == pytest.approx(7 / 4)
    assert result.p_value == pytest.approx(2 / 8)
    assert result.exact_p
    assert (result.units, result.clusters) == (4, 3)
    assert result.ci_low <= result.estimate <= result.ci_high


def test_equal_mean_over_groups_by_hand() -> None:
    """yaw differences 1, 0, 0, 1 (mean 1/2), depth 1, 0, 0 (mean 1/3): D = (1/2 + 1/3) / 2 = 5/12.

    Cluster shares (unit weight 1/(2 n_group)): i1 = 1/8 + 1/6 = 7/24, i2 = 0, i3 = 1/8 = 3/24. |±7/24 ± 3/24| is
    10/24 = D when the two signs agree and 4/24 otherwise; i2 flips freely, so p = 4/8.
    """
    a = [1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 0.0]
    b = [0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0]
    groups = ["yaw", "yaw", "yaw", "yaw", "depth", "depth", "depth"]
    clusters = ["i1", "i2", "i2", "i3", "i1", "i2", "i2"]
    result = paired_difference(a, b, clusters, groups)
    assert result.estimate == pytest.approx(5 / 12)
    assert result.p_value == pytest.approx(4 / 8)


def test_constant_difference_gives_a_point_interval() -> None:
    clusters = [f"c{i % 7}" for i in range(30)]
    result = paired_difference([0.7] * 30, [0.5] * 30, clusters)
    assert result.estimate == pytest.approx(0.2)
    assert (result.ci_low, result.ci_high) == pytest.approx((0.2, 0.2))


def test_identical_runs() -> None:
    values = [float(i % 2) for i in range(40)]
    result = paired_difference(values, values, [f"c{i % 20}" for i in range(40)])
    assert (result.estimate, result.ci_low, result.ci_high, result.p_value) == (0.0, 0.0, 0.0, 1.0)
    assert not result.exact_p


def test_empty_and_mismatched_inputs() -> None:
    assert math.isnan(paired_difference([], [], []).estimate)
    with pytest.raises(ValueError):
        paired_difference([1.0], [1.0, 0.0], ["a"])


def test_fixed_seed_is_repeatable() -> None:
    data = _dataset(random.Random(1), clusters=30, groups=3)
    assert paired_difference(*data) == paired_difference(*data)


def independent_bootstrap(
    a: list[float], b: list[float], clusters: list[str], groups: list[str], replicates: int, seed: int
) -> tuple[float, float]:
    """Resample cluster names with replacement, gather their units, take the equal mean of group mean differences."""
    rng = np.random.default_rng(seed)
    names = sorted(set(clusters))
    members = {name: [i for i, c in enumerate(clusters) if c == name] for name in names}
    group_names = sorted(set(groups))
    estimates = []
    for _ in range(replicates):
        drawn = [i for name in rng.choice(names, size=len(names)) for i in members[name]]
        means: list[float] = []
        for group in group_names:
            diffs = [a[i] - b[i] for i in drawn if groups[i] == group]
            means.append(sum(diffs) / len(diffs) if diffs else math.nan)
        if not any(math.isnan(m) for m in means):
            estimates.append(sum(means) / len(means))
    low, high = np.percentile(estimates, [2.5, 97.5])
    return float(low), float(high)


def clustered_se_of_difference(a: list[float], b: list[float], clusters: list[str], groups: list[str]) -> float:
    d = np.array(a) - np.array(b)
    group_names = sorted(set(groups))
    weights = np.zeros(len(d))
    residuals = np.zeros(len(d))
    for group in group_names:
        mask = np.array([g == group for g in groups])
        weights[mask] = 1 / (len(group_names) * mask.sum())
        residuals[mask] = d[mask] - d[mask].mean()
    totals: dict[str, float] = {}
    for weight, residual, cluster in zip(weights, residuals, clusters, strict=True):
        totals[cluster] = totals.get(cluster, 0.0) + weight * residual
    g = len(totals)
    return math.sqrt(sum(t * t for t in totals.values()) * g / (g - 1))


def _dataset(rng: random.Random, clusters: int, groups: int) -> tuple[list[float], list[float], list[str], list[str]]:
    cluster_names = [f"img{rng.randrange(clusters)}" for _ in range(6 * clusters)]
    effects = {name: rng.gauss(0, 0.15) for name in set(cluster_names)}
    group_names = [f"g{rng.randrange(groups)}" for _ in cluster_names]
    a = [float(rng.random() < 0.5 + effects[c]) for c in cluster_names]
    b = [float(rng.random() < 0.4) for _ in cluster_names]
    return a, b, cluster_names, group_names


def test_bootstrap_interval_matches_an_independent_implementation() -> None:
    a, b, clusters, groups = _dataset(random.Random(5), clusters=40, groups=3)
    result = paired_difference(a, b, clusters, groups)
    low, high = independent_bootstrap(a, b, clusters, groups, replicates=4000, seed=11)
    width = high - low
    assert result.ci_low == pytest.approx(low, abs=0.08 * width)
    assert result.ci_high == pytest.approx(high, abs=0.08 * width)
    # and with the normal approximation built on the clustered standard error of the difference
    se = clustered_se_of_difference(a, b, clusters, groups)
    assert (result.ci_high - result.ci_low) / 2 == pytest.approx(Z95 * se, rel=0.15)


def test_monte_carlo_p_matches_full_enumeration() -> None:
    """20 clusters (2^20 patterns) exceed the enumeration budget; enumerate them here and compare."""
    rng = random.Random(9)
    clusters = [f"c{i % 20}" for i in range(60)]
    a = [rng.random() + (0.15 if i % 20 < 12 else 0.0) for i in range(60)]
    b = [rng.random() for _ in range(60)]
    result = paired_difference(a, b, clusters)
    assert not result.exact_p
    d = np.array(a) - np.array(b)
    shares = np.array([d[[i for i, c in enumerate(clusters) if c == f"c{g}"]].sum() / len(d) for g in range(20)])
    patterns = ((np.arange(2**20)[:, None] >> np.arange(20)) & 1).astype(np.int8)
    flipped = (1 - 2 * patterns) @ shares
    exact = float(np.mean(np.abs(flipped) >= abs(d.mean()) - 1e-12))
    assert result.p_value == pytest.approx(exact, abs=4 * math.sqrt(exact * (1 - exact) / 10_000) + 1e-3)


def test_holm_by_hand() -> None:
    """Sorted 0.01, 0.03, 0.04 -> 3 x 0.01, 2 x 0.03, max(0.06, 1 x 0.04); NaN stays out of the family."""
    assert holm_adjust([0.01, 0.04, 0.03, math.nan])[:3] == pytest.approx([0.03, 0.06, 0.06])
    assert math.isnan(holm_adjust([math.nan])[0])
    assert holm_adjust([0.6, 0.7]) == pytest.approx([1.0, 1.0])
