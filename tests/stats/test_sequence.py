"""The without-replacement confidence sequence: exact at the last cluster, predictable, valid at every look."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from drive_evals.stats.sequence import ConfidenceSequence, OneSided


def run(values: np.ndarray, alpha: float = 0.05) -> list[tuple[float, float]]:
    sequence = ConfidenceSequence(np.zeros(values.size), np.ones(values.size), alpha)
    bounds = []
    for value in values:
        sequence.update(float(value), float(value))
        bounds.append(sequence.bounds())
    return bounds


def test_the_last_cluster_gives_the_population_mean() -> None:
    values = np.random.default_rng(0).random(40)
    low, high = run(values)[-1]
    assert low <= values.mean() <= high
    assert high - low <= 2.5 / 4000  # one grid step each side


def test_bounds_never_widen_and_use_only_the_clusters_seen() -> None:
    rng = np.random.default_rng(1)
    values = rng.random(60)
    changed = values.copy()
    changed[30:] = 1 - changed[30:]  # a different future
    first, second = run(values), run(changed)
    assert first[:30] == second[:30]
    lows, highs = zip(*first, strict=True)
    assert all(b >= a for a, b in itertools.pairwise(lows))
    assert all(b <= a for a, b in itertools.pairwise(highs))


def test_what_is_seen_bounds_the_total_at_once() -> None:
    """Values in [0, 1]: one cluster at 1 out of 10 already proves a mean of at least 0.1."""
    low, _ = run(np.array([1.0] + [0.0] * 9))[0]
    assert 0.0997 <= low <= 0.1  # rounded outward to the grid


@pytest.mark.parametrize("count", [20, 100])
def test_the_sequence_rarely_ever_misses(count: int) -> None:
    """Over 600 random orders of skewed populations, the truth is ever rejected in at most alpha of them (a
    sequence that re-used a fixed-n interval at every look misses far more often: the second assertion)."""
    rng = np.random.default_rng(count)
    runs = 600
    x = np.where(rng.random((runs, count)) < 0.1, rng.random((runs, count)), 0.95)
    truth = x.mean(axis=1)
    floors, ceilings = np.zeros((runs, count)), np.ones((runs, count))
    low = OneSided(truth, floors, ceilings, 0.025, +1)
    high = OneSided(truth, floors, ceilings, 0.025, -1)
    naive_misses = np.zeros(runs, dtype=bool)
    for step in range(count):
        low.update(x[:, step])
        high.update(x[:, step])
        if step >= 4:
            seen = x[:, : step + 1]
            half = 1.96 * seen.std(axis=1, ddof=1) / np.sqrt(step + 1) * np.sqrt(1 - (step + 1) / count)
            naive_misses |= np.abs(seen.mean(axis=1) - truth) > half
    assert (low.rejected | high.rejected).mean() <= 0.06
    assert naive_misses.mean() > 0.1
