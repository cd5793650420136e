"""The paired statistics against cases worked by hand and against a plain, independent numpy implementation."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from drive_evals.stats.clustered import bell_mccaffrey_df
from drive_evals.stats.distributions import t_cdf, t_quantile
from drive_evals.stats.paired import (
    FEW_CLUSTERS,
    FEW_CREDIT_CLUSTERS,
    holm_adjust,
    inverted_interval,
    min_clusters,
    paired_difference,
    paired_tests,
    scaled_paired_difference,
)
from drive_evals.stats.score_test import null_variance


def test_estimate_and_exact_p_by_hand() -> None:
    """Differences 1, 1 | 2 | 3 (in eighths) in clusters c1 | c2 | c3: D = 7/32; cluster shares 2/32, 2/32, 3/32.

    Of the 8 sign patterns only +++ and --- reach |D*| >= 7/32 (the next largest is 3/32), so the sign-flip p is
    2/8; the reported p is the combined test's, never below it.
    """
    a = [0.125, 0.125, 0.25, 0.375]
    b = [0.0, 0.0, 0.0, 0.0]
    clusters = ["c1", "c1", "c2", "c3"]
    result = paired_difference(a, b, clusters)
    tests = paired_tests(a, b, clusters)
    assert result.estimate == pytest.approx(7 / 32)
    assert tests.flips.p_value(0.0) == pytest.approx(2 / 8)
    assert result.p_value == max(tests.flips.p_value(0.0), tests.score.p_value(0.0)) >= 2 / 8
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
    tests = paired_tests(a, b, clusters, groups)
    assert tests.estimate == pytest.approx(5 / 12)
    assert tests.flips.p_value(0.0) == pytest.approx(4 / 8)


def test_constant_difference_is_not_proof_of_zero_variance() -> None:
    """Before: [0.2, 0.2], the sign-flip test's point (no spread seen, so every other delta was rejected).

    Values in [0, 1] that happen to differ by the same 0.2 everywhere still have a variance the data did not show:
    the score test takes the multinomial bound with a design effect of 1, and the interval is its interval.
    """
    clusters = [f"c{i % 12}" for i in range(30)]
    a, b = [0.7] * 30, [0.5] * 30
    result = paired_difference(a, b, clusters)
    tests = paired_tests(a, b, clusters)
    assert result.estimate == pytest.approx(0.2)
    assert (result.ci_low, result.ci_high) == pytest.approx(inverted_interval(tests.score.p_value, 0.2), abs=1e-4)
    assert -0.05 < result.ci_low < 0.15 and 0.25 < result.ci_high < 0.45
    assert result.detectable > 0.1  # from the multinomial SE, not from the 0 spread the data happen to show


def test_identical_runs_get_the_discordance_bound() -> None:
    """Before: [0.0, 0.0], as if two runs that agree everywhere proved the true difference exactly 0; then no
    interval. Now: with no discordance seen, a difference of delta is still possible while n delta / (1 - delta)
    stays below t^2 (the score statistic at design effect 1), so the ends are +/- t^2 / (n + t^2): 40 units in 20
    equal clusters, t_{19, 0.975} = 2.093024.
    """
    values = [float(i % 2) for i in range(40)]
    result = paired_difference(values, values, [f"c{i % 20}" for i in range(40)])
    assert (result.estimate, result.p_value) == (0.0, 1.0)
    t_squared = 2.093024**2
    bound = t_squared / (40 + t_squared)
    assert (result.ci_low, result.ci_high) == pytest.approx((-bound, bound), abs=1e-4)
    assert not result.no_interval


def test_too_few_clusters_give_no_interval() -> None:
    """With 5 clusters the smallest sign-flip p is 2/32 > 0.05: no interval, and the report says why."""
    assert min_clusters() == 6 and str(min_clusters()) in FEW_CLUSTERS
    rng = random.Random(2)
    clusters = [f"c{i % 5}" for i in range(40)]
    a = [float(rng.random() < 0.9) for _ in clusters]
    result = paired_difference(a, [0.0] * 40, clusters)
    assert paired_tests(a, [0.0] * 40, clusters).flips.p_value(0.0) == pytest.approx(2 / 32)
    assert result.p_value >= 2 / 32
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


def restricted_variance(higher_a: float, higher_b: float, delta: float) -> float:
    """Independent check of the score test's null variance: maximize the three-cell multinomial log-likelihood
    a log p_a + b log p_b + (1 - a - b) log(1 - p_a - p_b) over p_b with p_a = p_b + delta, by ternary search."""

    def log_likelihood(p_b: float) -> float:
        p_a, tie = p_b + delta, 1 - 2 * p_b - delta
        cells = ((higher_a, p_a), (higher_b, p_b), (1 - higher_a - higher_b, tie))
        return sum(share * math.log(max(p, 1e-300)) for share, p in cells if share > 0)

    low, high = max(0.0, -delta), (1 - delta) / 2
    for _ in range(200):
        left, right = low + (high - low) / 3, high - (high - low) / 3
        low, high = (left, high) if log_likelihood(left) < log_likelihood(right) else (low, right)
    p_b = (low + high) / 2
    return 2 * p_b + delta - delta * delta


def score_p(d: np.ndarray, clusters: list[str], delta: float) -> float:
    """Independent check of the score test for one group of equal clusters: CR2 variance at the estimate, scaled by
    the ratio of the null's multinomial variance to the estimate's, against t on G - 1 degrees of freedom."""
    n, names = len(d), sorted(set(clusters))
    index = np.array([names.index(c) for c in clusters])
    estimate = d.mean()
    higher_a, higher_b = np.maximum(d, 0).mean(), np.maximum(-d, 0).mean()
    sizes = np.bincount(index)
    residual_sums = np.bincount(index, weights=d - estimate)
    cr2_variance = float((residual_sums**2 / (n * n * (1 - sizes / n))).sum())
    variance = cr2_variance * restricted_variance(higher_a, higher_b, delta) / (higher_a + higher_b - estimate**2)
    return 2 * t_cdf(-abs(estimate - delta) / math.sqrt(variance), len(names) - 1)


def test_p_is_the_larger_test_and_the_interval_ends_are_where_the_score_test_starts_rejecting() -> None:
    """p = max(sign-flip p, score p) at 0; at each end of the interval the score test's p crosses 0.05 (just inside
    it keeps the difference, just outside it rejects it); both tests checked against independent implementations
    (enumeration; a numeric restricted fit)."""
    rng = random.Random(4)
    clusters = [f"c{i % 9}" for i in range(54)]
    a = [rng.random() * 0.6 + (0.3 if i % 9 < 5 else 0.0) for i in range(54)]
    b = [rng.random() * 0.6 for _ in range(54)]
    result = paired_difference(a, b, clusters)
    d = np.array(a) - np.array(b)
    tests = paired_tests(a, b, clusters)
    for delta in (-0.1, 0.0, 0.05, 0.15, 0.3):
        assert tests.score.p_value(delta) == pytest.approx(score_p(d, clusters, delta), rel=1e-6, abs=1e-12)
    assert result.p_value == pytest.approx(max(studentized_p(d, clusters, 0.0), score_p(d, clusters, 0.0)))
    assert result.p_value < 0.05 and result.ci_low > 0
    step = 1e-3
    for end, outward in ((result.ci_low, -step), (result.ci_high, step)):
        assert score_p(d, clusters, end - outward) > 0.05
        assert score_p(d, clusters, end + outward) <= 0.05


def test_interval_reaches_zero_where_only_the_sign_flip_test_keeps_it() -> None:
    """Six clusters of four units: in five A is better on two units, in one the runs agree. The score test rejects
    0, but the agreeing cluster ties under flipping, so the exact sign-flip p is 4/64 and p = 0.0625. The interval
    then reaches 0 (never a p above 0.05 beside an interval that excludes 0), and is the score test's above it."""
    clusters = [f"c{i // 4}" for i in range(24)]
    a = [1.0 if i % 4 < 2 and i < 20 else 0.0 for i in range(24)]
    b = [0.0] * 24
    result = paired_difference(a, b, clusters)
    tests = paired_tests(a, b, clusters)
    assert tests.score.p_value(0.0) < 0.05
    assert result.p_value == pytest.approx(4 / 64)
    assert result.ci_low == 0.0
    assert result.ci_high == pytest.approx(inverted_interval(tests.score.p_value, result.estimate)[1])


@pytest.mark.parametrize("bad", [math.nan, 1.5, -0.1])
def test_values_outside_zero_one_are_refused(bad: float) -> None:
    """Before: NaN gave p = 0 (printed <0.001) and 2.0 an interval [0.98, 1.0] that missed its own estimate."""
    clusters = [f"c{i}" for i in range(10)]
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        paired_difference([bad] + [1.0] * 9, [0.0] * 10, clusters)


def test_a_group_held_by_one_cluster_does_not_shrink_the_score_variance() -> None:
    """CR2 gives the one-unit group `solo` no variance; its unit still weighs half the estimate. Before, the score
    test alone gave about [0.50, 0.55] around 0.525; the design effect is now kept at 1 or more."""
    a = [1.0] + [1.0, 1.0, 1.0] + [0.0] * 56
    b = [0.0] * 60
    groups = ["solo"] + ["x"] * 59
    clusters = ["s"] + [f"c{i % 12}" for i in range(59)]
    score = paired_tests(a, b, clusters, groups).score
    low, high = inverted_interval(score.p_value, score.estimate)
    assert score.estimate == pytest.approx(0.5 + 1.5 / 59)
    assert high - low > 0.3


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
        assert not result.no_interval
        excludes = result.ci_low > 0 or result.ci_high < 0
        assert excludes == (result.p_value < 0.05), (trial, result)


def test_detectable_difference_is_the_power_formula() -> None:
    """(t_{df, .975} + t_{df, .80}) x the SE at D = 0: the CR2 SE of the difference scaled by the null variance there,
    sqrt((a + b) / (a + b - D^2)) with a, b the shares of A's and B's excess; df Bell-McCaffrey's (at most G - 1)."""
    a, b, clusters, _ = _dataset(random.Random(3), clusters=9, groups=1)
    result = paired_difference(a, b, clusters)
    d = np.array(a) - np.array(b)
    names = sorted(set(clusters))
    index = np.array([names.index(c) for c in clusters])
    residual_sums = np.bincount(index, weights=d - d.mean())
    cr2 = math.sqrt(float((residual_sums**2 / (len(d) ** 2 * (1 - np.bincount(index) / len(d)))).sum()))
    discordance = float(np.abs(d).mean())
    se_at_zero = cr2 * math.sqrt(discordance / (discordance - d.mean() ** 2))
    df = min(bell_mccaffrey_df([""] * len(d), clusters), 8)
    assert result.clusters == 9
    assert result.detectable == pytest.approx((t_quantile(0.975, df) + t_quantile(0.8, df)) * se_at_zero, rel=1e-6)


def test_monte_carlo_p_is_close_to_full_enumeration() -> None:
    """16 clusters (65,536 patterns) exceed the enumeration budget; enumerate them here and compare."""
    rng = random.Random(9)
    clusters = [f"c{i % 16}" for i in range(48)]
    a = [0.85 * rng.random() + (0.15 if i % 16 < 10 else 0.0) for i in range(48)]
    b = [0.85 * rng.random() for _ in range(48)]
    tests = paired_tests(a, b, clusters)
    assert not tests.exact
    exact = studentized_p(np.array(a) - np.array(b), clusters, 0.0)
    assert tests.flips.p_value(0.0) == pytest.approx(exact, abs=4 * math.sqrt(exact * (1 - exact) / 10_000) + 1e-3)


def test_holm_by_hand() -> None:
    """Sorted 0.01, 0.03, 0.04 -> 3 x 0.01, 2 x 0.03, max(0.06, 1 x 0.04); NaN stays out of the family."""
    assert holm_adjust([0.01, 0.04, 0.03, math.nan])[:3] == pytest.approx([0.03, 0.06, 0.06])
    assert math.isnan(holm_adjust([math.nan])[0])
    assert holm_adjust([0.6, 0.7]) == pytest.approx([1.0, 1.0])


@pytest.mark.parametrize("higher_a, higher_b", [(0.2, 0.05), (0.0, 0.0), (0.3, 0.3), (0.05, 0.4), (0.6, 0.1)])
@pytest.mark.parametrize("delta", [-0.5, -0.1, 0.0, 0.1, 0.35])
def test_null_variance_is_the_restricted_multinomial_fit(higher_a: float, higher_b: float, delta: float) -> None:
    assert null_variance(higher_a, higher_b, delta) == pytest.approx(
        restricted_variance(higher_a, higher_b, delta),
        abs=1e-7,  # a flat maximum: the search finds it to ~1e-8
    )


def test_score_test_on_independent_units_is_tangos() -> None:
    """Binary outcomes, every unit its own cluster: the CR2 design effect is n / (n - 1), so the statistic is Tango's
    (1998) score statistic z = (b - c - n delta) / sqrt(n (2 p21 + delta (1 - delta))) times sqrt((n - 1) / n),
    with p21 from the paper's closed form in counts, against t on n - 1 degrees of freedom."""
    n, b, c = 30, 7, 2
    a_values = [1.0] * b + [0.0] * c + [1.0] * 5 + [0.0] * (n - b - c - 5)
    b_values = [0.0] * b + [1.0] * c + [1.0] * 5 + [0.0] * (n - b - c - 5)
    score = paired_tests(a_values, b_values, [f"u{i}" for i in range(n)]).score
    for delta in (-0.1, 0.05, 0.2, 0.4):
        quadratic_b = -b - c + (2 * n - b + c) * delta
        p21 = (math.sqrt(quadratic_b**2 + 8 * n * c * delta * (1 - delta)) - quadratic_b) / (4 * n)
        z = (b - c - n * delta) / math.sqrt(n * (2 * p21 + delta * (1 - delta)))
        expected = 2 * t_cdf(-abs(z) * math.sqrt((n - 1) / n), n - 1)
        assert score.p_value(delta) == pytest.approx(expected, rel=1e-9), delta


def test_credits_are_compared_on_their_scale_and_read_back() -> None:
    """VLADBench's `total` credits lie in [0, 3] here: the test runs on them over 3, and reads the difference back
    on the credits' scale; the p-value is the one on the scaled values."""
    rng = np.random.default_rng(48)
    clusters = [f"s{i // 4}" for i in range(80)]
    a = (rng.random(80) * 3).round(2).tolist()
    b = [max(0.0, v - 0.3 * rng.random()) for v in a]
    scaled = scaled_paired_difference(a, b, clusters, 3.0)
    plain = paired_difference([v / 3 for v in a], [v / 3 for v in b], clusters)
    assert math.isclose(scaled.estimate, sum(a) / 80 - sum(b) / 80)
    assert scaled.p_value == plain.p_value and math.isclose(scaled.ci_low, 3 * plain.ci_low)
    assert -1.0 <= scaled.ci_low < scaled.estimate < scaled.ci_high <= 1.0
    few = scaled_paired_difference(a[:8], b[:8], clusters[:8], 3.0)
    assert math.isnan(few.ci_low) and few.no_interval, "2 clusters: no interval, as unscaled"
    # 10 scenes: a p-value, but no interval (it covered 0.90 at 6 scenes, 0.94 at 9 on the bench's shape)
    ten = scaled_paired_difference(a[:40], b[:40], clusters[:40], 3.0)
    assert ten.clusters == 10 and not math.isnan(ten.p_value)
    assert math.isnan(ten.ci_low) and ten.no_interval == FEW_CREDIT_CLUSTERS
