"""Clustered standard errors: equal to Inspect's for one group, and right for the equal mean over groups."""

from __future__ import annotations

import math
import random
from collections.abc import Hashable

import numpy as np
import pytest
from inspect_ai.scorer import SampleScore, Score, stderr

from drive_evals.stats.betting import betting_interval
from drive_evals.stats.clustered import bell_mccaffrey_df, clustered_stderr, cr2_stderr, equal_group_mean
from drive_evals.stats.distributions import beta_quantile, t_quantile
from drive_evals.stats.intervals import (
    CONFIDENCE,
    MIN_SCORE_CLUSTERS,
    binomial_interval,
    kish_units,
    mean_interval,
    score_interval,
    stratified_stderr,
)


def inspect_clustered_stderr(values: list[float], clusters: list[str]) -> float:
    metric = stderr(cluster="image")
    scores = [
        SampleScore(score=Score(value=v), sample_id=i, sample_metadata={"image": c})
        for i, (v, c) in enumerate(zip(values, clusters, strict=True))
    ]
    return float(metric(scores))  # type: ignore[arg-type]


def matrix_stderr(values: list[float], groups: list[str], clusters: list[str]) -> float:
    """The same estimator in matrix form: G/(G-1) * || C (w * e) ||^2 with C the cluster indicator matrix."""
    x, names = np.array(values), sorted(set(groups))
    g = np.array([names.index(k) for k in groups])
    counts = np.bincount(g)
    means = np.bincount(g, weights=x) / counts
    w = 1.0 / (len(names) * counts[g])
    cluster_names = sorted(set(clusters))
    indicator = np.zeros((len(cluster_names), len(x)))
    for column, cluster in enumerate(clusters):
        indicator[cluster_names.index(cluster), column] = 1.0
    totals = indicator @ (w * (x - means[g]))
    return float(math.sqrt(totals @ totals * len(cluster_names) / (len(cluster_names) - 1)))


def test_single_group_matches_inspect() -> None:
    rng = random.Random(3)
    values = [float(rng.random() < 0.3) for _ in range(200)]
    clusters = [f"img{rng.randrange(60)}" for _ in values]
    assert math.isclose(clustered_stderr(values, clusters), inspect_clustered_stderr(values, clusters), rel_tol=1e-12)


def test_grouped_matches_matrix_form_with_shared_clusters() -> None:
    rng = random.Random(7)
    groups = [rng.choice(["yaw", "xy2d", "depth"]) for _ in range(300)]
    clusters = [f"img{rng.randrange(40)}" for _ in groups]
    values = [rng.random() for _ in groups]
    estimate = equal_group_mean(values, groups, clusters)
    assert math.isclose(estimate.overall_stderr, matrix_stderr(values, groups, clusters), rel_tol=1e-12)
    assert math.isclose(estimate.overall, sum(estimate.means.values()) / 3)
    for name in ("yaw", "xy2d", "depth"):
        members = [i for i, g in enumerate(groups) if g == name]
        expected = inspect_clustered_stderr([values[i] for i in members], [clusters[i] for i in members])
        assert math.isclose(estimate.stderrs[name], expected, rel_tol=1e-12)


def test_clustering_widens_the_interval() -> None:
    base = [float(i % 2) for i in range(100)]
    values = [v for v in base for _ in range(3)]
    independent = clustered_stderr(values, [str(i) for i in range(len(values))])
    clustered = clustered_stderr(values, [str(i // 3) for i in range(len(values))])
    assert clustered > 1.5 * independent


def test_degenerate_inputs() -> None:
    assert clustered_stderr([1.0, 0.0], ["a", "a"]) == 0.0
    assert math.isnan(equal_group_mean([], [], []).overall)


def test_t_and_beta_quantiles_match_tables() -> None:
    for probability, df, expected in [(0.975, 1, 12.706205), (0.975, 4, 2.776445), (0.8, 8, 0.888890)]:
        assert math.isclose(t_quantile(probability, df), expected, rel_tol=1e-6)
    # Beta(1, n) has the closed form 1 - (1 - q)^(1/n)
    assert math.isclose(beta_quantile(0.975, 1, 16), 1 - 0.025 ** (1 / 16), rel_tol=1e-9)


def test_quantiles_near_a_pole_reach_it() -> None:
    """Beta(a, b) with b a rounding error above 0 is all but a step at 1: its 97.5% quantile is 1 to the last bit.

    The xy2d centerness of an oracle averages to 0.9999999999999996 with an SE of 2e-16; a Newton stop on a small
    step once put that interval's top at 0.9999999999999991, below the estimate (the report's plot then failed).
    """
    assert beta_quantile(0.975, 14.5, 5.3e-15) >= 1 - 2**-52
    low, high = score_interval(0.9999999999999996, 1.8e-16, 16, 16) or (math.nan, math.nan)
    assert low < 0.9999999999999996 <= high
    assert math.isclose(beta_quantile(0.975, 0.004163254364648083, 3.8580698786047702), 0.000382192310860, rel_tol=1e-9)


def test_zero_of_sixteen_has_a_width() -> None:
    """Before: 0 of 16 correct printed [0.0, 0.0] (SE 0); the same at 16 of 16."""
    low, high = score_interval(0.0, 0.0, 16, 5) or (math.nan, math.nan)
    assert low == 0.0 and 0.3 < high < 0.4
    low, high = score_interval(1.0, 0.0, 16, 5) or (math.nan, math.nan)
    assert high == 1.0 and 0.6 < low < 0.7
    assert score_interval(0.5, 0.1, 16, 2) is None


def test_cr2_equals_cr1_for_equal_clusters_and_exceeds_it_otherwise() -> None:
    rng = random.Random(11)
    values = [rng.random() for _ in range(40)]
    equal = [f"c{i % 8}" for i in range(40)]
    assert math.isclose(cr2_stderr(values, [""] * 40, equal), clustered_stderr(values, equal), rel_tol=1e-12)
    unequal = ["big"] * 20 + [f"c{i}" for i in range(20)]
    assert cr2_stderr(values, [""] * 40, unequal) > clustered_stderr(values, unequal)


def dense_bell_mccaffrey(groups: list[str], clusters: list[str]) -> float:
    """df = (tr M)^2 / tr(M^2), M = sum_c g_c g_c', g_c = (I - H) times cluster c's CR2 weights, all matrices dense."""
    names, cluster_names = sorted(set(groups)), sorted(set(clusters))
    x = np.array([[float(g == n) for n in names] for g in groups])
    hat = x @ np.linalg.inv(x.T @ x) @ x.T
    contrast = np.full(len(names), 1 / len(names)) @ np.linalg.inv(x.T @ x) @ x.T
    columns = []
    for cluster in cluster_names:
        rows = [i for i, c in enumerate(clusters) if c == cluster]
        eigenvalues, vectors = np.linalg.eigh(np.eye(len(rows)) - hat[np.ix_(rows, rows)])
        root = vectors @ np.diag([1 / math.sqrt(e) if e > 1e-12 else 0.0 for e in eigenvalues]) @ vectors.T
        weights = np.zeros(len(groups))
        weights[rows] = root @ contrast[rows]
        columns.append((np.eye(len(groups)) - hat) @ weights)
    m = np.sum([np.outer(c, c) for c in columns], axis=0)
    return float(np.trace(m) ** 2 / np.trace(m @ m))


def test_bell_mccaffrey_df_matches_the_dense_formula() -> None:
    """G - 1 for equal clusters in one group; fewer, as the dense formula says, for unequal clusters and groups."""
    assert math.isclose(bell_mccaffrey_df([""] * 40, [f"c{i % 8}" for i in range(40)]), 7.0, rel_tol=1e-9)
    rng = random.Random(5)
    groups = [rng.choice(["yaw", "depth", "xy2d"]) for _ in range(45)]
    clusters = [f"c{min(rng.randrange(12), rng.randrange(12))}" for _ in groups]
    df = bell_mccaffrey_df(groups, clusters)
    assert math.isclose(df, dense_bell_mccaffrey(groups, clusters), rel_tol=1e-9)
    assert df < len(set(clusters)) - 1


def test_bell_mccaffrey_df_keys_clusters_as_the_variance_does() -> None:
    """Cluster 1 and cluster "1" are two clusters in `cr2_stderr`; they were one in the df (keyed by `str`)."""
    clusters: list[Hashable] = [1, 1, "1", "1", 2, 2, 3, 3]
    assert math.isclose(bell_mccaffrey_df([""] * 8, clusters), 3.0, rel_tol=1e-9)


def test_scores_take_the_betting_interval_and_0_1_values_korn_graubards() -> None:
    """Nine frames of judge scores near 1 without a poor frame: the SE is tiny and Korn-Graubard's n_eff =
    p(1 - p) / SE^2 is 2,565 for 25 scores, an interval of [0.974, 0.987] that says nothing of the poor frames such a
    draw can miss. Scores get the betting interval; 0/1 values keep Korn-Graubard's exactly."""
    frames = [[0.98, 0.99, 0.97], [0.99, 1.0, 0.98], [0.97, 0.99], [1.0, 0.98, 0.99], [0.97, 0.96, 0.99],
              [0.99, 0.97, 0.98], [0.96, 0.99], [0.98, 1.0, 0.99], [0.97, 0.98, 0.96]]  # fmt: skip
    values = [v for frame in frames for v in frame]
    clusters = [f"f{i}" for i, frame in enumerate(frames) for _ in frame]
    groups = [""] * len(values)
    mean = sum(values) / len(values)
    stderr, df = cr2_stderr(values, groups, clusters), bell_mccaffrey_df(groups, clusters)
    plain = score_interval(mean, stderr, len(values), len(frames), df=df)
    betting = betting_interval(values, clusters, CONFIDENCE)
    assert plain is not None and mean_interval(mean, values, groups, clusters, continuous=True) == betting
    assert betting[0] < 0.8 < 0.97 < plain[0]
    # a value strictly between 0 and 1 makes a metric declared binary continuous: never the narrower method
    assert mean_interval(mean, values, groups, clusters, continuous=False) == betting
    binary = [float(v > 0.975) for v in values]
    binary_mean = sum(binary) / len(binary)
    expected = score_interval(binary_mean, cr2_stderr(binary, groups, clusters), len(binary), len(frames), df=df)
    assert expected is not None
    assert mean_interval(binary_mean, binary, groups, clusters, continuous=False) == expected
    # declared continuous, the same 0/1 values: the betting interval too
    assert mean_interval(binary_mean, binary, groups, clusters, continuous=True) == betting_interval(
        binary, clusters, CONFIDENCE
    )
    assert mean_interval(math.nan, [], [], [], continuous=True) is None


def test_all_at_zero_over_unequal_groups_takes_kish_n() -> None:
    """SURDS `overall` is the equal mean of its subsets: with every unit at 0 (SE 0) Korn-Graubard's interval takes
    the design effect as 1, and 200 units of one subset beside 4 of another weigh 1/400 and 1/8 each, the
    information of Kish's n = 1 / sum w^2 = 15.7 units, not of 204."""
    groups = ["depth"] * 200 + ["xy2d"] * 4
    clusters = [f"i{i % 40}" for i in range(200)] + ["i0", "i1", "i2", "i3"]
    kish = kish_units(groups)
    assert math.isclose(kish, 4 / (1 / 200 + 1 / 4)) and kish_units([""] * 7) == 7.0
    df = bell_mccaffrey_df(groups, clusters)
    interval = mean_interval(0.0, [0.0] * 204, groups, clusters, continuous=False)
    by_count = score_interval(0.0, 0.0, 204, 40, df=df)
    assert interval == score_interval(0.0, 0.0, kish, 40, df=df)
    assert interval is not None and by_count is not None and interval[1] > 2 * by_count[1]


def test_a_score_above_zero_never_narrows_the_interval() -> None:
    """30 zeros in 10 clusters give [0, 0.151]; one of them at 0.1 instead gave [0, 0.025] (its tiny SE taken as
    the binomial one of a mean of 0.003): more evidence of a positive score, a far smaller upper bound."""
    clusters, groups = [f"c{i % 10}" for i in range(30)], [""] * 30
    zeros = mean_interval(0.0, [0.0] * 30, groups, clusters, continuous=False)
    one_above = [0.0] * 29 + [0.1]
    above = mean_interval(sum(one_above) / 30, one_above, groups, clusters, continuous=False)
    assert zeros is not None and above is not None
    assert 0.15 < zeros[1] <= above[1]


def test_scores_get_an_interval_from_as_few_clusters_as_0_1_values() -> None:
    """A judge metric, as the report declares it, gets an interval from MIN_SCORE_CLUSTERS frames (before: none
    below 9, `UnitMetric.min_clusters`), none below, as 0/1 values."""
    from drive_evals.benchmark import judge_score
    from drive_evals.report.breakdown import level_estimate

    scores = [0.9, 0.95, 1.0, 0.7, 0.85, 1.0, 0.8, 0.95, 0.9, 0.6]
    for frames, shown in ((MIN_SCORE_CLUSTERS - 1, False), (MIN_SCORE_CLUSTERS, True)):
        clusters = [f"f{i % frames}" for i in range(len(scores))]
        judged = level_estimate(scores, clusters, None, judge_score("reasoning_score")).interval
        assert (judged is not None) is shown, frames


def test_a_mean_over_subsets_with_centerness_keeps_korn_graubards() -> None:
    """SURDS `overall` with a centerness in its xy2d subset: betting on whole images would carry the differences
    between subsets (an image of xy2d units against one of depth units), so the mean over subsets keeps the
    Korn-Graubard interval its 0/1 subsets give; the xy2d subset alone gets the betting interval."""
    depth = [float(i % 3 != 0) for i in range(40)]
    xy2d = [0.0, 0.0, 0.62, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    values, groups = depth + xy2d, ["depth"] * 40 + ["xy2d"] * 10
    clusters = [f"i{i % 20}" for i in range(40)] + [f"i{i}" for i in range(20, 30)]
    mean = equal_group_mean(values, groups, clusters).overall
    df = bell_mccaffrey_df(groups, clusters)
    korn_graubard = score_interval(mean, cr2_stderr(values, groups, clusters), kish_units(groups), 30, df=df)
    floor = binomial_interval(mean, kish_units(groups), stratified_stderr(values, groups))
    assert korn_graubard is not None
    # the depth units alternate within images, so images differ less than independent units would: the floor binds
    assert floor[0] < korn_graubard[0]
    expected = (min(korn_graubard[0], floor[0]), max(korn_graubard[1], floor[1]))
    assert mean_interval(mean, values, groups, clusters, continuous=False) == expected
    assert mean_interval(0.062, xy2d, ["xy2d"] * 10, clusters[40:], continuous=True) == betting_interval(
        xy2d, clusters[40:], CONFIDENCE
    )


def test_three_frames_that_agree_get_no_narrower_than_the_binomial_interval() -> None:
    """Issue 48: a chance run on the DriveLMM-o1 demo got 3 of 13 MCQ right from 3 frames that happened to agree
    (1 of 4, 1 of 4, 1 of 5). Korn-Graubard on their tiny spread printed [15.6, 32.1]; the 13 answers taken as
    independent give Clopper-Pearson's [5.0, 53.8], and the report's interval is never narrower than that."""
    values = [1.0, 0, 0, 0, 1.0, 0, 0, 0, 1.0, 0, 0, 0, 0]
    clusters = ["a"] * 4 + ["b"] * 4 + ["c"] * 5
    groups = [""] * 13
    before = score_interval(3 / 13, cr2_stderr(values, groups, clusters), 13, 3, df=bell_mccaffrey_df(groups, clusters))
    assert before is not None and (round(before[0], 3), round(before[1], 3)) == (0.156, 0.321)
    interval = mean_interval(3 / 13, values, groups, clusters, continuous=False)
    assert interval is not None and (round(interval[0], 3), round(interval[1], 3)) == (0.050, 0.538)


@pytest.mark.parametrize("continuous", [False, True])
def test_no_interval_is_narrower_than_clopper_pearson(continuous: bool) -> None:
    """Random runs of 3-12 clusters, 0/1 values and scores: the interval always holds Clopper-Pearson's on the same
    units taken as independent, and for a mean over subsets the stratified binomial one."""
    rng = random.Random(48)
    for _ in range(60):
        clusters = [f"c{rng.randrange(rng.randint(3, 12))}" for _ in range(rng.randint(6, 40))]
        if len(set(clusters)) < MIN_SCORE_CLUSTERS:
            continue
        rate = rng.random()
        values = [round(rng.random(), 2) if continuous else float(rng.random() < rate) for _ in clusters]
        for groups in ([""] * len(values), [rng.choice("ab") for _ in values]):
            means = {g: [v for v, h in zip(values, groups, strict=True) if h == g] for g in set(groups)}
            mean = sum(sum(m) / len(m) for m in means.values()) / len(means)
            interval = mean_interval(mean, values, groups, clusters, continuous)
            assert interval is not None
            single = len(set(groups)) == 1
            floor = binomial_interval(mean, kish_units(groups), None if single else stratified_stderr(values, groups))
            assert interval[0] <= floor[0] and floor[1] <= interval[1], (values, groups, clusters)


def test_the_stratified_binomial_se_of_one_group_is_the_binomial_one() -> None:
    values = [1.0, 0.0, 0.0, 1.0, 1.0]
    assert math.isclose(stratified_stderr(values, [""] * 5), math.sqrt(0.6 * 0.4 / 5))
    by_count, by_stderr = binomial_interval(0.6, 5), binomial_interval(0.6, 5, math.sqrt(0.6 * 0.4 / 5))
    assert all(math.isclose(a, b, rel_tol=1e-9) for a, b in zip(by_count, by_stderr, strict=True))
