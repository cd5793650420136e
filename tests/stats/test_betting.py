"""The betting interval: its bounds against a plain re-statement of the paper's capital, and its guarantee."""

from __future__ import annotations

import random
from collections.abc import Hashable

import numpy as np
import pytest
from betting_reference import ALPHA, reference_capital

from drive_evals.stats.betting import COARSE_STEPS, FINE_STEPS, betting_interval
from drive_evals.stats.intervals import mean_interval

STEP = 1.0 / (COARSE_STEPS * FINE_STEPS)
"""The fine grid's spacing: a reported bound is rejected, the candidate one step inside it is kept."""


def frames_of(rng: random.Random, count: int, questions: tuple[int, int]) -> tuple[list[float], list[Hashable]]:
    values: list[float] = []
    clusters: list[Hashable] = []
    for frame in range(count):
        quality = rng.betavariate(4, 1.5)
        for _ in range(rng.randint(*questions)):
            values.append(round(min(1.0, max(0.0, rng.gauss(quality, 0.1))), 2))
            clusters.append(f"f{frame}")
    return values, clusters


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_bounds_are_where_the_papers_capital_crosses_one_over_alpha(seed: int) -> None:
    """Each bound is a mean the gambler's capital rejects (it reaches 1 / alpha = 20), and one fine step inside it
    is kept: checked against the paper's procedure written out one cluster at a time, with unequal frames."""
    values, clusters = frames_of(random.Random(seed), 12 + 10 * seed, (1, 9))
    low, high = betting_interval(values, clusters, 1 - ALPHA)
    estimate = sum(values) / len(values)
    assert 0.0 < low < estimate < high < 1.0
    assert reference_capital(values, clusters, low) >= 1 / ALPHA
    assert reference_capital(values, clusters, low + STEP) < 1 / ALPHA
    assert reference_capital(values, clusters, high) >= 1 / ALPHA
    assert reference_capital(values, clusters, high - STEP) < 1 / ALPHA


def test_a_run_that_shows_none_of_a_rare_tail_still_reaches_it() -> None:
    """Fifty frames of 8-9 judge scores near 0.95 and no poor frame. A population whose frames are poor (0.3) one
    time in twenty has mean 0.9175 and gives such a run 0.95^50 = 7.7% of the time, more than the 2.5% a 95% interval
    may miss on one side: an interval that holds whatever the scores' distribution must reach below 0.9175. The
    interval printed before (a design effect of at least 1, widened to hold Hall's) began at 0.928."""
    rng = random.Random(7)
    values = [round(rng.betavariate(19, 1), 2) for _ in range(425)]
    clusters: list[Hashable] = [f"f{i % 50}" for i in range(425)]
    mean = sum(values) / len(values)
    interval = mean_interval(mean, values, [""] * len(values), clusters, continuous=True)
    assert interval is not None
    assert interval[0] < 0.95 * 0.95 + 0.05 * 0.3 < mean <= interval[1]


def test_every_score_at_one_reaches_one_and_takes_width_below() -> None:
    """No spread at all is no evidence that a poor frame cannot occur: the bound below still has a width."""
    low, high = betting_interval([1.0] * 30, [f"f{i % 10}" for i in range(30)], 1 - ALPHA)
    assert high == 1.0 and 0.5 < low < 0.9
    low, high = betting_interval([0.0] * 30, [f"f{i % 10}" for i in range(30)], 1 - ALPHA)
    assert low == 0.0 and 0.1 < high < 0.5


def test_the_interval_holds_the_estimate_and_stays_in_zero_one() -> None:
    rng = random.Random(11)
    for _ in range(200):
        count = rng.randint(3, 15)
        values = [rng.choice([0.0, 1.0, rng.random()]) for _ in range(count * 2)]
        clusters: list[Hashable] = [rng.randrange(count) for _ in values]
        low, high = betting_interval(values, clusters, 1 - ALPHA)
        estimate = sum(values) / len(values)
        assert 0.0 <= low <= estimate + 1e-12 and estimate - 1e-12 <= high <= 1.0


def test_the_order_of_the_samples_changes_nothing() -> None:
    """Bets follow the clusters in the order of their names, fixed before any score is seen: a log that holds the
    same samples in another order (a retried or merged run) gives the same interval."""
    values, clusters = frames_of(random.Random(5), 20, (2, 6))
    shuffled = list(range(len(values)))
    random.Random(6).shuffle(shuffled)
    assert betting_interval(values, clusters, 1 - ALPHA) == betting_interval(
        [values[i] for i in shuffled], [clusters[i] for i in shuffled], 1 - ALPHA
    )


def test_bounds_of_one_per_unit_leave_the_interval_as_it_was() -> None:
    """`uppers` of 1 are the values' own range: the same interval, bit for bit."""
    rng = np.random.default_rng(5)
    values = np.round(rng.random(40), 2).tolist()
    clusters = [f"f{i % 9}" for i in range(40)]
    assert betting_interval(values, clusters, 1 - ALPHA, [1.0] * 40) == betting_interval(values, clusters, 1 - ALPHA)


def test_credits_above_one_widen_the_interval_and_keep_the_estimate() -> None:
    """Credits of a ratio of sums: a box question weighs 4 units (upper 4). The mean is in [0, 1]; the interval
    holds it, and is wider than one that took every credit for a value in [0, 1]."""
    values = [0.2, 0.8, 0.0, 3.0, 0.6, 0.0, 0.8, 1.0, 0.2, 2.0, 0.8, 0.0] * 3
    uppers = [1.0, 1.0, 1.0, 4.0, 1.0, 1.0, 1.0, 1.0, 1.0, 4.0, 1.0, 1.0] * 3
    clusters = [f"s{i // 3}" for i in range(36)]
    mean = sum(values) / len(values)
    low, high = betting_interval(values, clusters, 1 - ALPHA, uppers)
    assert low < mean < high
    clipped = [min(v, 1.0) for v in values]
    narrow = betting_interval(clipped, clusters, 1 - ALPHA)
    assert high - low > narrow[1] - narrow[0]
