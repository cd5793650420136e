"""Clustered standard errors: equal to Inspect's for one group, and right for the equal mean over groups."""

from __future__ import annotations

import math
import random

import numpy as np
from inspect_ai.scorer import SampleScore, Score, stderr

from drive_evals.stats import clustered_stderr, equal_group_mean


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
