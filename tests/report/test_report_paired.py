"""The paired statistics against cases worked by hand and against a plain, independent numpy implementation."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from drive_evals.report.paired import FEW_CLUSTERS, NO_DIFFERENCES, holm_adjust, min_clusters, paired_difference


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
    assert result.no_interval  # 3 clusters: the test can never reach p < 0.05


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
    assert (result.ci_low, result.ci_high) == pytest.approx((0.2, 0.2), abs=1e-4)


def test_identical_runs_get_no_interval() -> None:
    """Before: [0.0, 0.0], as if two runs that agree everywhere proved the true difference exactly 0."""
    values = [float(i % 2) for i in range(40)]
    result = paired_difference(values, values, [f"c{i % 20}" for i in range(40)])
    assert (result.estimate, result.p_value) == (0.0, 1.0)
    assert math.isnan(result.ci_low) and math.isnan(result.ci_high)
    assert result.no_interval == NO_DIFFERENCES


def test_too_few_clusters_give_no_interval() -> None:
    """With 5 clusters the smallest sign-flip p is 2/32 > 0.05: no interval, and the report says why."""
    assert min_clusters() == 6 and str(min_clusters()) in FEW_CLUSTERS
    rng = random.Random(2)
    clusters = [f"c{i % 5}" for i in range(40)]
    result = paired_difference([float(rng.random() < 0.9) for _ in clusters], [0.0] * 40, clusters)
    assert result.p_value == pytest.approx(2 / 32)
    assert math.isnan(result.ci_low) and result.no_interval == FEW_CLUSTERS


def test_empty_and_mismatched_inputs() -> None:
    assert math.isnan(paired_difference([], [], []).estimate)
    with pytest.raises(ValueError):
        paired_difference([1.0], [1.0, 0.0], ["a"])


def test_fixed_seed_is_repeatable() -> None:
    data = _dataset(random.Random(1), clusters=30, groups=3)
    assert paired_difference(*data) == paired_difference(*data)


def _dataset(rng: random.Random, clusters: int, groups: int) -> tuple[list[float], list[float], list[str], list[str]]:
    cluster_names = [f"img{rng.randrange(clusters)}" for _ in range(6 * clusters)]
    effects = {name: rng.gauss(0, 0.15) for name in set(cluster_names)}
    group_names = [f"g{rng.randrange(groups)}" for _ in cluster_names]
    a = [float(rng.random() < 0.5 + effects[c]) for c in cluster_names]
    b = [float(rng.random() < 0.4) for _ in cluster_names]
    return a, b, cluster_names, group_names


def studentized_p(d: np.ndarray, clusters: list[str], delta: float) -> float:
    """Independent check by enumeration: flip whole clusters of (d - delta), t = |mean| / CR1 SE, share >= observed."""
    names = sorted(set(clusters))
    index = np.array([names.index(c) for c in clusters])
    patterns = 1 - 2 * ((np.arange(2 ** len(names))[:, None] >> np.arange(len(names))) & 1)
    t = []
    for signs in patterns:
        x = (d - delta) * signs[index]
        residual_sums = np.bincount(index, weights=x - x.mean())
        se = math.sqrt((residual_sums**2).sum()) / len(x)
        t.append(abs(x.mean()) / se if se > 0 else math.inf)
    observed = t[int(np.flatnonzero((patterns == 1).all(axis=1))[0])]
    return float(np.mean(np.array(t) >= observed * (1 - 1e-9) - 1e-9))


def test_interval_ends_are_where_the_test_starts_rejecting() -> None:
    """At each end p(delta) crosses 0.05: just inside it does not reject, just outside it does."""
    rng = random.Random(4)
    clusters = [f"c{i % 9}" for i in range(54)]
    a = [rng.random() * 0.6 + (0.3 if i % 9 < 5 else 0.0) for i in range(54)]
    b = [rng.random() * 0.6 for _ in range(54)]
    result = paired_difference(a, b, clusters)
    d = np.array(a) - np.array(b)
    assert result.p_value == pytest.approx(studentized_p(d, clusters, 0.0))
    step = 1e-3
    for end, outward in ((result.ci_low, -step), (result.ci_high, step)):
        assert studentized_p(d, clusters, end - outward) > 0.05
        assert studentized_p(d, clusters, end + outward) <= 0.05


def test_interval_and_p_value_never_disagree_about_zero() -> None:
    """Before: the percentile bootstrap excluded 0 while the sign-flip test did not reject (issue 18: 16.1 [3.3,
    38.9], p = 0.125 at 9 clusters). Now the interval excludes 0 exactly when p < 0.05, on every draw."""
    rng = random.Random(8)
    for trial in range(60):
        g = rng.choice([6, 7, 9, 12, 20])
        clusters = [f"c{i % g}" for i in range(4 * g)]
        difficulty = {c: rng.random() for c in set(clusters)}
        a = [float(rng.random() < difficulty[c]) for c in clusters]
        b = [float(rng.random() < difficulty[c]) for c in clusters]
        result = paired_difference(a, b, clusters, sign_flips=2000)
        if result.no_interval:
            continue
        excludes = result.ci_low > 0 or result.ci_high < 0
        assert excludes == (result.p_value < 0.05), (trial, result)


def test_detectable_difference_is_the_power_formula() -> None:
    """(t_{G-1, .975} + t_{G-1, .80}) x clustered SE: at 9 clusters 2.306 + 0.889."""
    a, b, clusters, _ = _dataset(random.Random(3), clusters=9, groups=1)
    result = paired_difference(a, b, clusters)
    se = clustered_se_of_difference(a, b, clusters, ["g"] * len(a))
    assert result.clusters == 9
    assert result.detectable == pytest.approx((2.306004 + 0.888890) * se, rel=1e-4)


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


def test_monte_carlo_p_is_close_to_full_enumeration() -> None:
    """16 clusters (65,536 patterns) exceed the enumeration budget; enumerate them here and compare."""
    rng = random.Random(9)
    clusters = [f"c{i % 16}" for i in range(48)]
    a = [rng.random() + (0.15 if i % 16 < 10 else 0.0) for i in range(48)]
    b = [rng.random() for _ in range(48)]
    result = paired_difference(a, b, clusters)
    assert not result.exact_p
    exact = studentized_p(np.array(a) - np.array(b), clusters, 0.0)
    assert result.p_value == pytest.approx(exact, abs=4 * math.sqrt(exact * (1 - exact) / 10_000) + 1e-3)


def test_holm_by_hand() -> None:
    """Sorted 0.01, 0.03, 0.04 -> 3 x 0.01, 2 x 0.03, max(0.06, 1 x 0.04); NaN stays out of the family."""
    assert holm_adjust([0.01, 0.04, 0.03, math.nan])[:3] == pytest.approx([0.03, 0.06, 0.06])
    assert math.isnan(holm_adjust([math.nan])[0])
    assert holm_adjust([0.6, 0.7]) == pytest.approx([1.0, 1.0])
