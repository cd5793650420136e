"""The stopping rule a run commits to before its first call: `-T stop=...` and the `stop_*` parameters.

A rule reads the confidence sequence's interval for the headline after each cluster (in the committed order):

- `precision:W`: stop once the interval's half-width is at most W (a fraction, as the logs hold scores);
- `above:X` / `below:X`: a pass/fail gate at X; stop once the interval lies wholly above or wholly below X (the
  two rules differ only in which side is the pass);
- `vs:LOG`: paired against the finished run LOG of the same task, version and settings: stop once the interval of
  the difference (this run minus LOG) excludes 0 (better, worse) or lies inside `+-stop_margin` (equivalent).

Without a decision by `stop_budget` clusters, the run stops there undecided; it never stops before
`stop_min_clusters`. `stop_shadow=true` runs every cluster and records where the rule would have stopped.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from drive_evals.errors import ParameterError

Kind = Literal["precision", "above", "below", "vs"]
KINDS: tuple[Kind, ...] = ("precision", "above", "below", "vs")
DEFAULT_ALPHA = 0.05
DEFAULT_SEED = 0
DEFAULT_MIN_CLUSTERS = 10
"""No stop before this many clusters: the first bets are sized on a guessed variance."""

STOP_METADATA_KEY = "stop"
"""Task metadata key: the committed plan (the rule, alpha, seed), so the log says it before any result."""

UNDECIDED = "undecided at the budget"
FULL = "no decision before the last cluster"


@dataclass(frozen=True)
class StopPlan:
    """Everything the run commits to: the rule, its target, the error level and the order's seed."""

    kind: Kind
    target: float | str
    """W for precision, X for above/below, the reference log's path for vs."""
    alpha: float = DEFAULT_ALPHA
    seed: int = DEFAULT_SEED
    min_clusters: int = DEFAULT_MIN_CLUSTERS
    budget: int | float | None = None
    """Clusters (a whole number) or a share of them (below 1); None: all."""
    margin: float = 0.0
    shadow: bool = False

    @property
    def paired(self) -> bool:
        return self.kind == "vs"

    @property
    def spec(self) -> str:
        return f"{self.kind}:{self.target}"

    def budget_clusters(self, population: int) -> int:
        if self.budget is None:
            return population
        if isinstance(self.budget, float):
            return max(1, math.ceil(self.budget * population))
        return min(self.budget, population)

    def decide(self, low: float, high: float, seen: int, population: int) -> str | None:
        """The decision this interval supports after `seen` clusters, or None to go on."""
        if seen < min(self.min_clusters, population):
            return None
        decision = self._decision(low, high)
        if decision is None and seen >= self.budget_clusters(population):
            return UNDECIDED if seen < population else FULL
        return decision

    def _decision(self, low: float, high: float) -> str | None:
        if self.kind == "precision":
            width = float(self.target)
            return f"half-width at most {width:g}" if (high - low) / 2 <= width else None
        if self.kind in ("above", "below"):
            gate = float(self.target)
            if low > gate:
                return f"above {gate:g}"
            if high < gate:
                return f"below {gate:g}"
            return None
        if low > 0:
            return "better"
        if high < 0:
            return "worse"
        if self.margin > 0 and -self.margin <= low and high <= self.margin:
            return f"equivalent within +-{self.margin:g}"
        return None

    def as_metadata(self) -> dict[str, str | float | int | bool | None]:
        return {
            "rule": self.spec,
            "alpha": self.alpha,
            "seed": self.seed,
            "min_clusters": self.min_clusters,
            "budget": self.budget,
            "margin": self.margin,
            "shadow": self.shadow,
        }


def parse_plan(
    stop: object,
    alpha: object = DEFAULT_ALPHA,
    seed: object = DEFAULT_SEED,
    min_clusters: object = DEFAULT_MIN_CLUSTERS,
    budget: object = None,
    margin: object = 0.0,
    shadow: object = False,
) -> StopPlan | None:
    """The plan from the task parameters; None without `stop`. Each bad value is an error naming its parameter."""
    if stop is None:
        for name, value, default in (
            ("stop_budget", budget, None),
            ("stop_margin", margin, 0.0),
            ("stop_shadow", shadow, False),
        ):
            if value != default:
                raise ParameterError(f"{name}={value!r} needs a rule: -T stop=precision:W, above:X, below:X or vs:LOG")
        return None
    kind, target = _rule(stop)
    if not isinstance(shadow, bool):
        raise ParameterError(f"stop_shadow={shadow!r}: valid values are true, false")
    plan = StopPlan(
        kind=kind,
        target=target,
        alpha=_open_fraction("stop_alpha", alpha, upper=0.5),
        seed=_whole("stop_seed", seed, 0),
        min_clusters=_whole("stop_min_clusters", min_clusters, 1),
        budget=_budget(budget),
        margin=_margin(margin),
        shadow=shadow,
    )
    if plan.margin and not plan.paired:
        raise ParameterError(f"stop_margin={margin!r} applies to -T stop=vs:LOG only")
    return plan


def _rule(stop: object) -> tuple[Kind, float | str]:
    usage = "expected precision:W, above:X, below:X (W and X fractions, as the logs hold scores) or vs:LOG"
    if not isinstance(stop, str) or ":" not in stop:
        raise ParameterError(f"stop={stop!r}: {usage}")
    name, _, value = stop.partition(":")
    kind = next((k for k in KINDS if k == name.strip()), None)
    if kind is None:
        raise ParameterError(f"stop={stop!r}: unknown rule {name!r}; {usage}")
    if kind == "vs":
        if not value.strip():
            raise ParameterError(f"stop={stop!r}: name the finished log to compare with (vs:LOG)")
        return kind, value.strip()
    try:
        number = float(value)
    except ValueError:
        raise ParameterError(f"stop={stop!r}: {value!r} is not a number; {usage}") from None
    return kind, _open_fraction("stop", number, upper=1.0)


def _open_fraction(name: str, value: object, upper: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < upper:
        raise ParameterError(f"{name}={value!r}: expected a number strictly between 0 and {upper:g}")
    return float(value)


def _whole(name: str, value: object, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ParameterError(f"{name}={value!r}: expected a whole number of at least {minimum}")
    return value


def _budget(value: object) -> int | float | None:
    if value is None:
        return None
    if isinstance(value, str) and value.strip().endswith("%"):
        try:
            share = float(value.strip()[:-1]) / 100
        except ValueError:
            share = math.nan
        if not 0 < share <= 1:
            raise ParameterError(f"stop_budget={value!r}: expected a share between 0% and 100%")
        return share
    return _whole("stop_budget", value, 1)


def _margin(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < 1:
        raise ParameterError(f"stop_margin={value!r}: expected a number from 0 up to 1")
    return float(value)
