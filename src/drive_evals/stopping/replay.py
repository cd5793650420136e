"""`drive-evals replay LOG [LOG_B] --stop RULE`: where a rule would have stopped a finished run, in the order it
would have committed to, what it would have decided, and whether the full run agrees.

The replay feeds the same tracker the live manager feeds, cluster by cluster in the committed order (the log's own
seed when it ran with a rule), so on the log of a run that stopped it reproduces the live decision. A log that
stopped early ends at its first cluster with a sample not run: the replay stops there too.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from drive_evals._registry import benchmark_for
from drive_evals.benchmark import Benchmark
from drive_evals.errors import ParameterError
from drive_evals.stopping.forms import headline_form, refusal
from drive_evals.stopping.guarantee import agrees, guarantee, noun
from drive_evals.stopping.logs import FinishedRun, read_run
from drive_evals.stopping.order import committed_order
from drive_evals.stopping.rule import STOP_METADATA_KEY, StopPlan
from drive_evals.stopping.statistic import Population
from drive_evals.stopping.tracker import Look, Stop, Tracker


@dataclass(frozen=True)
class Replay:
    benchmark: Benchmark
    plan: StopPlan
    tracker: Tracker
    samples: int
    clipped: int
    """Units whose score lay outside [0, 1] and was clipped."""
    complete: bool
    """Every cluster of the run was replayed (the log is of a full run)."""

    @property
    def stop(self) -> Stop | None:
        return self.tracker.stop

    @property
    def final(self) -> Look | None:
        return self.tracker.looks[-1] if self.tracker.looks else None


def log_seed(run: FinishedRun) -> int | None:
    """The seed of the order a run committed to, when it ran with a stop rule."""
    plan = (run.header.eval.metadata or {}).get(STOP_METADATA_KEY)
    seed = plan.get("seed") if isinstance(plan, dict) else None
    return seed if isinstance(seed, int) else None


def benchmark_of(path: str | Path) -> tuple[Benchmark, FinishedRun]:
    from inspect_ai.log import read_eval_log

    header = read_eval_log(str(path), header_only=True)
    benchmark = benchmark_for(header.eval.task)
    if benchmark is None:
        raise ParameterError(f"{path}: a run of {header.eval.task}, which is not a drive_evals benchmark")
    form = headline_form(benchmark)
    if isinstance(form, str):
        raise ParameterError(f"{path}: {form}")
    return benchmark, read_run(path, form)


def replay(path: str | Path, plan: StopPlan) -> Replay:
    benchmark, run = benchmark_of(path)
    reason = refusal(benchmark, run.header.eval.metadata or {}, run.header.eval.config.epochs or 1, live=False)
    if reason is not None:
        raise ParameterError(f"{path}: {reason}")
    reference = None
    if plan.paired:
        other, reference_run = benchmark_of(str(plan.target))
        if other is not benchmark or reference_run.version != run.version:
            raise ParameterError(f"{plan.target}: not a run of the same task and task version as {path}")
        reference = reference_run.units
    units = list(run.units.values())
    clusters = {unit.cluster for unit in units}
    order = [c for c in committed_order(run.clusters.values(), plan.seed) if c in clusters]
    try:
        population = Population(units, order, reference, benchmark.cluster_key)
    except ValueError as error:
        raise ParameterError(f"{path}: {error}") from None
    tracker = Tracker(plan, population)
    samples_of: dict[str, int] = {}
    for cluster in run.clusters.values():
        samples_of[cluster] = samples_of.get(cluster, 0) + 1
    paid = 0
    for cluster in order:
        members = population.members[cluster]
        if any(member in run.skipped for member in members):
            break
        paid += samples_of[cluster]
        tracker.add({member: run.units[member].value for member in members}, samples_paid=paid)
    clipped = sum(unit.clipped for unit in units)
    return Replay(benchmark, plan, tracker, len(run.clusters), clipped, tracker.done)


def describe(result: Replay) -> list[str]:
    """What `drive-evals replay` prints for one rule."""
    plan, population = result.plan, result.tracker.population
    clusters = noun(population.cluster_key)
    what = "difference" if plan.paired else result.benchmark.headline
    lines = [f"{result.benchmark.title} · stop={plan.spec} · alpha {plan.alpha:g} · seed {plan.seed}"]
    stop, final = result.stop, result.final
    if stop is None:
        lines.append(f"  no stop in the {result.tracker.seen} {clusters} the log holds")
    else:
        lines.append(
            f"  would stop after {stop.clusters} of {population.size} {clusters} ({stop.samples_paid} of "
            f"{result.samples} samples, {stop.samples_paid / max(result.samples, 1):.0%}): {stop.decision}; "
            f"{what} {100 * stop.estimate:.1f} [{100 * stop.low:.1f}, {100 * stop.high:.1f}]"
        )
        not_run = population.size - stop.clusters
        lines.append("  " + guarantee(plan.alpha, plan.seed, population.cluster_key, not_run, population.size))
    if result.complete and final is not None:
        final_decision = plan.decide(final.low, final.high, final.clusters, population.size)
        verdict = "" if stop is None else _agreement(agrees(plan.kind, stop, final, final_decision))
        lines.append(
            f"  full run: {what} {100 * final.estimate:.1f} [{100 * final.low:.1f}, {100 * final.high:.1f}]"
            f"{'' if final_decision is None else ', ' + final_decision}{verdict}"
        )
    if result.clipped:
        lines.append(f"  {result.clipped} scores outside [0, 1] (a judge out of range) were clipped to it")
    if not result.complete:
        lines.append(f"  the log ends after {result.tracker.seen} {clusters} (the run stopped): no full-run value")
    return lines


def _agreement(agreed: bool | None) -> str:
    return {True: " (agrees)", False: " (DISAGREES)", None: " (the full run decides nothing to compare)"}[agreed]
