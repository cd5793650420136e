"""The confidence sequence of one run, fed cluster by cluster in the committed order, and the rule's decision.

The live manager (`manager.py`) and `drive-evals replay` (`replay.py`) both feed this, so a replay of a finished
run reproduces its live decision exactly: the same units, the same order, the same arithmetic.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass

from drive_evals.stats.sequence import ConfidenceSequence
from drive_evals.stopping.rule import StopPlan
from drive_evals.stopping.statistic import Population

DIGITS = 6


@dataclass(frozen=True)
class Look:
    """The sequence after one more cluster: the headline's (or the difference's) estimate and anytime-valid
    interval, and the samples started so far (what was paid for)."""

    cluster: str
    clusters: int
    samples_paid: int
    estimate: float
    low: float
    high: float


@dataclass(frozen=True)
class Stop:
    """Where the rule stopped (or, in shadow mode, would have): the look and the decision."""

    clusters: int
    samples_paid: int
    decision: str
    estimate: float
    low: float
    high: float


class Tracker:
    def __init__(self, plan: StopPlan, population: Population) -> None:
        self.plan = plan
        self.population = population
        self.sequence = ConfidenceSequence(population.floors(), population.ceilings(), plan.alpha)
        self.looks: list[Look] = []
        self.stop: Stop | None = None
        self._sums = [0.0, 0.0, 0.0]  # lower and upper contributions, cluster weights seen

    @property
    def seen(self) -> int:
        return self.sequence.seen

    @property
    def done(self) -> bool:
        return self.seen >= self.population.size

    def add(self, values: Mapping[str, float | None], samples_paid: int) -> Stop | None:
        """Count the next cluster of the order (every unit's value; None for one the headline leaves out). Returns
        the stop when this look is the first to support a decision."""
        index = self.seen
        lower, upper = self.population.contribution(index, values)
        self.sequence.update(self.population.to_unit(lower), self.population.to_unit(upper))
        self._sums[0] += lower
        self._sums[1] += upper
        self._sums[2] += float(self.population.cluster_weight[index])
        low_x, high_x = self.sequence.bounds()
        low, high = self.population.headline(low_x), self.population.headline(high_x)
        # the seen clusters' own mean, scaled to the whole run (the reference part is already subtracted)
        estimate = min(max((self._sums[0] + self._sums[1]) / 2 / self._sums[2], low), high)
        look = Look(
            self.population.order[index], self.seen, samples_paid, *(round(v, DIGITS) for v in (estimate, low, high))
        )
        self.looks.append(look)
        if self.stop is None:
            decision = self.plan.decide(low, high, self.seen, self.population.size)
            if decision is not None:
                self.stop = Stop(look.clusters, samples_paid, decision, look.estimate, look.low, look.high)
                return self.stop
        return None

    def trajectory(self) -> list[dict[str, float | int | str]]:
        return [asdict(look) for look in self.looks]
