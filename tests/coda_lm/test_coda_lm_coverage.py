"""The report's interval for a CODA-LM task score covers at its nominal level, by simulation of CODA-LM's shape:
ratings 1-10 (steps of 0.1 as logged), regions 1-8 an image in Test's proportions (198, 141, 72, 43, 20, 16, 5, 3
images), each image with a difficulty of its own. Checked at the cluster counts the report shows: 6 (the demo),
20, 100 and 500 images (Test)."""

from __future__ import annotations

import numpy as np
import pytest

from drive_evals.stats.clustered import equal_group_mean
from drive_evals.stats.intervals import mean_interval

REGIONS_PER_IMAGE = np.repeat(np.arange(1, 9), [198, 141, 72, 43, 20, 16, 5, 3])
REPLICATIONS = 400
TRUTH_DRAWS = 200_000


def draw(rng: np.random.Generator, images: int, mean: float) -> tuple[list[float], list[int]]:
    sizes = rng.choice(REGIONS_PER_IMAGE, images)
    quality = rng.beta(4 * mean, 4 * (1 - mean), images)  # each image's expected rating on [0, 1]
    index = np.repeat(np.arange(images), sizes)
    ratings = 1 + rng.binomial(9, quality[index])  # 1-10
    return list(ratings / 10), list(index)


def truth(mean: float) -> float:
    """E[rating / 10] of the item mean, size-weighted (the micro-mean's target)."""
    rng = np.random.default_rng(0)
    sizes = rng.choice(REGIONS_PER_IMAGE, TRUTH_DRAWS)
    quality = rng.beta(4 * mean, 4 * (1 - mean), TRUTH_DRAWS)
    return float(((1 + 9 * quality) * sizes).sum() / sizes.sum() / 10)


@pytest.mark.slow
@pytest.mark.parametrize("images", [6, 20, 100, 500])
def test_region_score_interval_covers(images: int) -> None:
    rng = np.random.default_rng(images)
    target = truth(0.55)
    covered = shown = 0
    for _ in range(REPLICATIONS):
        values, clusters = draw(rng, images, 0.55)
        estimate = sum(values) / len(values)
        interval = mean_interval(estimate, values, [""] * len(values), clusters, continuous=True)
        if interval is None:
            continue
        shown += 1
        covered += interval[0] <= target <= interval[1]
    assert shown == REPLICATIONS
    assert covered / shown >= 0.93  # 0.95 less 2 Monte Carlo standard errors at 400 draws


def draw_run(rng: np.random.Generator, images: int, mean: float) -> tuple[list[float], list[str], list[int]]:
    """One run of the three tasks on the same images: one general and one suggestion item each, 1-8 regions."""
    quality = rng.beta(4 * mean, 4 * (1 - mean), images)
    sizes = rng.choice(REGIONS_PER_IMAGE, images)
    values: list[float] = []
    groups: list[str] = []
    clusters: list[int] = []
    for task, counts in (("gp", np.ones(images, dtype=int)), ("ds", np.ones(images, dtype=int)), ("rp", sizes)):
        index = np.repeat(np.arange(images), counts)
        values += list((1 + rng.binomial(9, quality[index])) / 10)
        groups += [task] * index.size
        clusters += list(index)
    return values, groups, clusters


def final_truth(mean: float) -> float:
    rng = np.random.default_rng(0)
    sizes = rng.choice(REGIONS_PER_IMAGE, TRUTH_DRAWS)
    quality = 1 + 9 * rng.beta(4 * mean, 4 * (1 - mean), TRUTH_DRAWS)
    return float((2 * quality.mean() + (quality * sizes).sum() / sizes.sum()) / 3 / 10)


@pytest.mark.slow
@pytest.mark.parametrize("images", [20, 100, 500])
def test_final_score_interval_covers(images: int) -> None:
    """The final score, the equal mean of the three task means (the report's Korn-Graubard interval)."""
    rng = np.random.default_rng(images)
    target = final_truth(0.55)
    covered = 0
    for _ in range(REPLICATIONS):
        values, groups, clusters = draw_run(rng, images, 0.55)
        estimate = equal_group_mean(values, groups, clusters).overall
        interval = mean_interval(estimate, values, groups, clusters, continuous=True)
        assert interval is not None
        covered += interval[0] <= target <= interval[1]
    assert covered / REPLICATIONS >= 0.93
