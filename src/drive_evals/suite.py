"""The tasks loaded in this process, for the run-time modules that benchmarks themselves import.

The parameter checks (`params.py`), the truncation warning and the missing-units count sit below the benchmarks
(their tasks and scorers import them), so they cannot read `drive_evals._registry`, which imports the benchmarks.
They read this instead: each task module registers its `@task` function and its `SuiteTask` with `@register(...)`
when it is imported. `drive_evals._registry` (Inspect's entry point) imports every benchmark, so under `inspect
eval` and the `drive-evals` commands every task is present. Shared code that needs the list of benchmarks itself
reads `drive_evals._registry.BENCHMARKS`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from drive_evals.benchmark import Benchmark, SuiteTask

_loaded: dict[str, tuple[SuiteTask, Callable[..., Any]]] = {}
_benchmarks: dict[str, Benchmark] = {}
"""The registry's benchmarks by task name (`declare`), for the task kit, which the benchmarks import."""
TaskFunction = TypeVar("TaskFunction", bound=Callable[..., Any])


def register(task: SuiteTask) -> Callable[[TaskFunction], TaskFunction]:
    """Record a `@task` function as `task` (applied above `@task`); its name must be the task's."""

    def record(function: TaskFunction) -> TaskFunction:
        if function.__name__ != task.name:  # a programming error, caught at import
            raise ValueError(f"@register({task.name!r}) on a function named {function.__name__!r}")
        _loaded[task.name] = (task, function)
        return function

    return record


def task_functions() -> dict[str, Callable[..., Any]]:
    """Task name -> function, for every task whose module is loaded, in the order they were loaded."""
    return {name: function for name, (_, function) in _loaded.items()}


def benchmark_scorers() -> frozenset[str]:
    """The loaded benchmarks' scorers (not a judge meta-evaluation's): their logs carry truncation and missing
    units. A run's own task is always loaded by the time its log is checked."""
    return frozenset(task.scorer_name for task, _ in _loaded.values() if task.benchmark)


def declare(benchmarks: Sequence[Benchmark]) -> None:
    """The suite's benchmarks (`drive_evals._registry` calls it once)."""
    _benchmarks.update({benchmark.key: benchmark for benchmark in benchmarks})


def declared(name: str) -> Benchmark | None:
    """The benchmark of task `name`, once the registry has been imported (it always is under `inspect eval`)."""
    return _benchmarks.get(name)
