"""A confidence sequence for the mean of a finite population of values in [0, 1] drawn without replacement.

Waudby-Smith and Ramdas, "Confidence sequences for sampling without replacement" (NeurIPS 2020) and "Estimating
means of bounded random variables by betting" (JRSS B 2024): the population is the benchmark's N clusters, taken in
a committed, seeded random order. For a candidate mean m, the next cluster's conditional mean given those already
seen is eta_t(m) = (N m - sum of the seen values) / (clusters left); a gambler who stakes a share lambda_t (sized
only from clusters already seen) on x_t - eta_t(m) holds a nonnegative martingale under m, so by Ville's inequality
the capital ever reaches 1 / level with probability at most `level`, however often the sequence is looked at. Each
side (candidates below the truth, rejected when betting on "higher" pays; candidates above, on "lower") is its own
one-sided sequence at level alpha / 2, so the two-sided sequence misses with probability at most alpha. A candidate
the remaining clusters can no longer reach (their per-cluster bounds) is rejected outright: at the last cluster the
sequence is the exact population mean. A rejected candidate stays rejected (the guarantee holds at every time at
once). Why this bet size and what it costs against a fixed-n interval: docs/statistics.md, "Early stopping".
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

TRUNCATION = 0.75
"""The largest share of the capital staked on one cluster, as in `stats.betting`."""
PRIOR_VARIANCE = 0.25
"""The variance assumed before any cluster is seen (the largest a value in [0, 1] can have)."""
HORIZON_SHARE = 0.25
"""Bets are sized for a look after this share of the clusters (tuned by benchmarks/bench_stopping.py: the share at
which a difference of 4x the fixed-n detectable one must be decided). Any predictable size keeps the guarantee;
the choice only moves where the sequence is narrowest."""
MIN_HORIZON = 8
"""... but never for fewer clusters than this (below it bets sized for the horizon would be reckless)."""
GRID_STEPS = 4000
"""Candidate means on a grid of 1 / GRID_STEPS over [0, 1]; bounds are rounded outward to it."""

FloatArray = npt.NDArray[np.float64]


def bet_horizon(population: int) -> float:
    """The number of clusters the bets are sized for."""
    return float(max(MIN_HORIZON, HORIZON_SHARE * population))


@dataclass
class _State:
    seen: int
    total: FloatArray
    """Sum of the values seen (per stream)."""
    squares: FloatArray
    """Prior variance plus squared deviations from the running mean, for the predictable variance."""


class OneSided:
    """One side of the sequence over `candidates`: `direction` +1 rejects candidates below the mean (bets that the
    values run higher), -1 candidates above it.

    `floors` and `ceilings` are each cluster's possible range in the committed order (within [0, 1]); the candidate
    is impossible once the clusters left cannot bring the total to N m. Arrays broadcast: one value stream against
    a grid of candidates (a run), or many streams against one candidate each (a simulation).
    """

    def __init__(
        self,
        candidates: FloatArray,
        floors: FloatArray,
        ceilings: FloatArray,
        level: float,
        direction: int,
        horizon: float | None = None,
    ) -> None:
        self.candidates = np.asarray(candidates, dtype=np.float64)
        self.population = floors.shape[-1]
        # sums of the bounds over the clusters not yet seen, before each step (and 0 after the last)
        self._floor_left = np.concatenate([np.cumsum(floors[..., ::-1], axis=-1)[..., ::-1], 0 * floors[..., :1]], -1)
        self._ceiling_left = np.concatenate(
            [np.cumsum(ceilings[..., ::-1], axis=-1)[..., ::-1], 0 * ceilings[..., :1]], -1
        )
        self.threshold = math.log(1.0 / level)
        self.direction = direction
        self.horizon = bet_horizon(self.population) if horizon is None else horizon
        self._scale = math.sqrt(2.0 * math.log(1.0 / level) / self.horizon)
        shape = np.broadcast_shapes(self.candidates.shape, floors.shape[:-1])
        self.log_capital = np.zeros(shape)
        self.rejected = np.zeros(shape, dtype=np.bool_)
        self._state = _State(0, np.zeros(floors.shape[:-1]), np.full(floors.shape[:-1], PRIOR_VARIANCE))
        self._reject_impossible()

    @property
    def seen(self) -> int:
        return self._state.seen

    def update(self, values: FloatArray | float) -> None:
        """Bet on the next cluster's value(s), then reject the candidates whose capital reached 1 / level."""
        state = self._state
        if state.seen >= self.population:
            raise ValueError("every cluster of the population has been seen")
        x = np.asarray(values, dtype=np.float64)
        left = self.population - state.seen
        eta = (self.population * self.candidates - state.total) / left
        eta = np.clip(eta, 0.0, 1.0)  # outside [0, 1] the candidate is already rejected as impossible
        variance = state.squares / (state.seen + 1)
        bet = self._scale / np.sqrt(variance)
        with np.errstate(divide="ignore"):
            room = eta if self.direction > 0 else 1.0 - eta  # what one unit staked can lose
            bet = np.minimum(bet, TRUNCATION / room)
        self.log_capital = self.log_capital + np.log1p(self.direction * bet * (x - eta))
        self.rejected |= self.log_capital >= self.threshold
        mean_before = state.total / max(state.seen, 1) if state.seen else np.full_like(state.total, 0.5)
        state.squares = state.squares + (x - mean_before) ** 2
        state.total = state.total + x
        state.seen += 1
        self._reject_impossible()

    def _reject_impossible(self) -> None:
        state = self._state
        needed = self.population * self.candidates - state.total
        index = state.seen
        if self.direction > 0:  # the clusters seen already hold more than N m, even if the rest are at their floors
            impossible = needed < self._floor_left[..., index] - 1e-12
        else:  # the clusters left cannot make up N m, even at their ceilings
            impossible = needed > self._ceiling_left[..., index] + 1e-12
        self.rejected |= impossible


def candidate_grid(steps: int = GRID_STEPS) -> FloatArray:
    return np.linspace(0.0, 1.0, steps + 1)


class ConfidenceSequence:
    """The two-sided sequence for one run: a grid of candidate means against the run's clusters in order.

    `lower_values` feed the side that bounds the mean from below and `upper_values` the side that bounds it from
    above: the same values when every unit is scored; where the headline leaves a unit out (a judge that failed),
    it counts as 0 on the lower side and 1 on the upper side, so each side bounds the headline whatever the
    missing verdicts would have been (`stopping.statistic`).
    """

    def __init__(self, floors: FloatArray, ceilings: FloatArray, alpha: float, steps: int = GRID_STEPS) -> None:
        grid = candidate_grid(steps)
        self.grid = grid
        self.lower_side = OneSided(grid, floors, ceilings, alpha / 2, +1)
        self.upper_side = OneSided(grid, floors, ceilings, alpha / 2, -1)
        self.population = floors.shape[-1]

    @property
    def seen(self) -> int:
        return self.lower_side.seen

    def update(self, lower_value: float, upper_value: float) -> None:
        self.lower_side.update(lower_value)
        self.upper_side.update(upper_value)

    def bounds(self) -> tuple[float, float]:
        """Each side's bound, rounded outward to the grid: below the first candidate the lower side keeps, above
        the last one the upper side keeps (at the last cluster they bracket the exact mean)."""
        low_kept = np.flatnonzero(~self.lower_side.rejected)
        high_kept = np.flatnonzero(~self.upper_side.rejected)
        low = float(self.grid[low_kept[0] - 1]) if low_kept.size and low_kept[0] > 0 else 0.0
        high = float(self.grid[high_kept[-1] + 1]) if high_kept.size and high_kept[-1] < self.grid.size - 1 else 1.0
        if not low_kept.size:
            low = 1.0
        if not high_kept.size:
            high = 0.0
        return min(low, high), max(low, high)  # crossed only where the sequence has missed (rate <= alpha)
