"""Give a built task its stop rule: refuse a rule its headline cannot support, reorder its dataset into the
committed cluster order, and set the early-stopping manager. Everything here runs before the first call."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from inspect_ai import Task, task_with
from inspect_ai.dataset import MemoryDataset, Sample

from drive_evals.benchmark import Benchmark
from drive_evals.errors import ParameterError
from drive_evals.stopping.forms import headline_form, refusal
from drive_evals.stopping.logs import read_run
from drive_evals.stopping.manager import ClusteredStopping
from drive_evals.stopping.order import committed_order, in_committed_order
from drive_evals.stopping.rule import STOP_METADATA_KEY, StopPlan
from drive_evals.stopping.statistic import HeadlineForm, Unit


def with_stop_rule(task: Task, benchmark: Benchmark, plan: StopPlan, epochs: int = 1) -> Task:
    """`task` with its samples in the committed order and the manager applying `plan`."""
    metadata: Mapping[str, Any] = task.metadata or {}
    reason = refusal(benchmark, metadata, epochs, live=True)
    form = headline_form(benchmark)
    if reason is not None or isinstance(form, str):
        raise ParameterError(f"-T stop={plan.spec}: {reason or form}")
    samples = list(task.dataset)
    cluster = _cluster_reader(form)
    order = committed_order((cluster(sample) for sample in samples), plan.seed)
    ordered = in_committed_order(samples, cluster, plan.seed)
    reference = _reference(plan, form, benchmark, task) if plan.paired else None
    dataset = MemoryDataset(ordered, name=task.dataset.name, location=task.dataset.location, shuffled=False)
    return task_with(
        task,
        dataset=dataset,
        early_stopping=ClusteredStopping(plan, form, order, reference),
        metadata={**metadata, STOP_METADATA_KEY: plan.as_metadata()},
    )


def _cluster_reader(form: HeadlineForm) -> Any:
    def cluster(sample: Sample) -> str:
        return str((sample.metadata or {}).get(form.cluster_key, sample.id))

    return cluster


def _reference(plan: StopPlan, form: HeadlineForm, benchmark: Benchmark, task: Task) -> dict[str, Unit]:
    """The finished run `vs:LOG` names: the same task and version, run in full."""
    run = read_run(str(plan.target), form)
    if run.task not in benchmark.task_names:
        raise ParameterError(f"-T stop={plan.spec}: that log is a run of {run.task}, not of {benchmark.task.qualified}")
    if run.version != task.version:
        raise ParameterError(
            f"-T stop={plan.spec}: that run is task version {run.version}, this one {task.version}; runs of "
            "different versions may score differently by design"
        )
    results = run.header.results
    if results is not None and results.early_stopping is not None and results.early_stopping.early_stops:
        raise ParameterError(f"-T stop={plan.spec}: that run stopped early, so its full-benchmark score is unknown")
    return run.units
