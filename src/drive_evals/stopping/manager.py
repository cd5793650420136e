"""The Inspect early-stopping manager (`Task(early_stopping=...)`) that applies a stop rule cluster by cluster.

Inspect asks `schedule_sample` once a sample holds its slot of `max_samples`, so when the rule says stop, up to
`max_samples` samples are already running. The rule is applied in the committed order only: a cluster counts once
every one of its units is scored, and the clusters after the first incomplete one wait, whatever order the
samples finish in. Once the rule stops, every sample not yet started is skipped; the samples already running
finish and are logged like any other, listed as in flight, and none of them enters the sequence (so how they are
treated cannot depend on their scores). A unit that never gets a score (its sample errored) holds the sequence at
its cluster: the run then goes on to the end, as a run without a rule would.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextvars import ContextVar
from typing import TYPE_CHECKING

from inspect_ai.util import EarlyStop
from pydantic import JsonValue

from drive_evals.errors import ParameterError
from drive_evals.stopping.guarantee import summary
from drive_evals.stopping.rule import StopPlan
from drive_evals.stopping.statistic import HeadlineForm, Population, Unit, planned_unit, unit_of
from drive_evals.stopping.tracker import Tracker

if TYPE_CHECKING:
    from inspect_ai.dataset import Sample
    from inspect_ai.log import EvalSpec
    from inspect_ai.scorer import SampleScore

MANAGER = "drive_evals/confidence-sequence"
EarlyStopReason = "stop rule decided"


class ClusteredStopping:
    """`EarlyStopping` for a task. `reference` holds the finished run's units for `vs:LOG`; `order` is the committed
    cluster order the task's dataset is already in.

    Inspect uses one Task, so one manager, for every model of `--model a,b`, and its hooks do not say which run a
    sample belongs to. Each run's state is therefore kept in a context variable set by `start_task`: the run's
    samples are started from the task's own context, so they see that run's state and no other."""

    def __init__(
        self, plan: StopPlan, form: HeadlineForm, order: list[str], reference: Mapping[str, Unit] | None = None
    ) -> None:
        self.plan, self.form, self.order, self.reference = plan, form, order, reference
        self._current: ContextVar[_Run | None] = ContextVar(f"drive_evals_stop_{id(self)}", default=None)
        self._runs: list[_Run] = []

    @property
    def tracker(self) -> Tracker | None:
        return self._run().tracker

    def _run(self) -> _Run:
        run = self._current.get()
        if run is None:  # called from outside the run's context (a test calling the hooks one by one)
            if len(self._runs) != 1:
                raise RuntimeError("a stop rule's hook was called outside the run it belongs to")
            run = self._runs[0]
        return run

    async def start_task(self, task: EvalSpec, samples: list[Sample], epochs: int) -> str:
        run = _Run(self.plan, self.form, self.order, self.reference)
        run.start(samples, epochs)
        self._runs.append(run)
        self._current.set(run)
        return MANAGER

    async def schedule_sample(self, id: str | int, epoch: int) -> EarlyStop | None:
        return self._run().schedule(id, epoch)

    async def complete_sample(self, id: str | int, epoch: int, scores: dict[str, SampleScore]) -> None:
        self._run().complete(id, scores)

    async def complete_task(self) -> dict[str, JsonValue]:
        return self._run().record()


class _Run:
    """One run's state: the sequence, the samples started and finished, the values seen."""

    def __init__(
        self, plan: StopPlan, form: HeadlineForm, order: list[str], reference: Mapping[str, Unit] | None
    ) -> None:
        self.plan, self.form, self.order, self.reference = plan, form, order, reference
        self.tracker: Tracker | None = None
        self._cluster_of: dict[str, str] = {}
        self._planned: dict[str, dict[str, JsonValue]] = {}
        """A skipped unit's group, logged so that a replay knows the whole run's weights."""
        self._counted: set[str] = set()
        """Sample ids that enter the headline (the others are run and logged, but not waited for)."""
        self._values: dict[str, float | None] = {}
        self._started: list[str] = []
        self._finished: set[str] = set()
        self._in_flight: list[str] = []
        self._skipped = 0
        self._clipped = 0

    def start(self, samples: list[Sample], epochs: int) -> None:
        if epochs > 1:
            raise ParameterError(
                f"-T stop needs --epochs 1 (this run has {epochs}): Inspect runs epoch 2 of every sample after "
                "epoch 1 of all, so no cluster would be complete before every cluster had started"
            )
        units = []
        for sample in samples:
            unit = planned_unit(self.form, str(sample.id), sample.metadata or {})
            self._cluster_of[str(sample.id)] = str((sample.metadata or {}).get(self.form.cluster_key, sample.id))
            if unit is not None:
                units.append(unit)
                self._planned[unit.id] = {"group": unit.group, "counted": True}
                self._counted.add(unit.id)
        present = {unit.cluster for unit in units}
        order = [cluster for cluster in self.order if cluster in present]
        self._check_dataset_order(samples)
        try:
            population = Population(units, order, self.reference, self.form.cluster_key)
        except ValueError as error:
            raise ParameterError(f"-T stop={self.plan.spec}: {error}") from None
        self.tracker = Tracker(self.plan, population)

    def _check_dataset_order(self, samples: list[Sample]) -> None:
        """The dataset must run cluster by cluster in the committed order (the task reorders it)."""
        seen = list(dict.fromkeys(self._cluster_of[str(s.id)] for s in samples))
        expected = [cluster for cluster in self.order if cluster in set(seen)]
        if seen != expected:
            raise ParameterError("-T stop: the dataset is not in the committed cluster order (a task must reorder it)")

    def schedule(self, id: str | int, epoch: int) -> EarlyStop | None:
        tracker = self.tracker
        if tracker is not None and tracker.stop is not None and not self.plan.shadow:
            self._skipped += 1
            return EarlyStop(
                id=id,
                epoch=epoch,
                reason=EarlyStopReason,
                metadata={"cluster": self._cluster_of.get(str(id), ""), **self._planned.get(str(id), {})},
            )
        self._started.append(str(id))
        return None

    def complete(self, id: str | int, scores: dict[str, SampleScore]) -> None:
        key = str(id)
        self._finished.add(key)
        score = scores.get(self.form.scorer)
        if key not in self._counted:
            return
        value = score.score.value if score is not None and isinstance(score.score.value, dict) else None
        unit = unit_of(self.form, key, score.sample_metadata or {} if score else {}, value)
        self._values[key] = unit.value if unit is not None else None
        self._clipped += unit is not None and unit.clipped
        self._advance()

    def _advance(self) -> None:
        tracker = self.tracker
        assert tracker is not None
        population = tracker.population
        while not tracker.done and (tracker.stop is None or self.plan.shadow):
            members = population.members[population.order[tracker.seen]]
            if any(member not in self._values for member in members):
                return
            stop = tracker.add({m: self._values[m] for m in members}, samples_paid=len(self._started))
            if stop is not None:  # in shadow mode: what would have been in flight
                self._in_flight = [s for s in self._started if s not in self._finished]

    def record(self) -> dict[str, JsonValue]:
        tracker = self.tracker
        if tracker is None:
            return {}
        return summary(
            tracker,
            samples=len(self._cluster_of),
            started=len(self._started),
            skipped=self._skipped,
            in_flight=self._in_flight,
            waiting_for=self._waiting_for(),
            clipped=self._clipped,
            started_clusters=len({self._cluster_of[s] for s in self._started} & set(tracker.population.order)),
        )

    def _waiting_for(self) -> list[str]:
        """The units the sequence still waits for when the run ends (samples that errored or were never run)."""
        tracker = self.tracker
        assert tracker is not None
        if tracker.done or tracker.stop is not None:
            return []
        members = tracker.population.members[tracker.population.order[tracker.seen]]
        return [member for member in members if member not in self._values]
