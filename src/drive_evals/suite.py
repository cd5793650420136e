"""The suite's tasks, stated once: their names, the scorer each reports under, and their task functions.

Every consumer reads this module: the parameter checks (`params.py`), `drive-evals describe` and `estimate`, the
report and the truncation warning. It imports nothing of the suite, so anything may import it. Each task module
registers its `@task` function with `@register` when it is imported; `drive_evals._registry` (Inspect's entry
point) imports all of them, so under `inspect eval` and the `drive-evals` commands every task is present.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from drive_evals.errors import ParameterError

PACKAGE = "drive_evals"
"""The prefix Inspect gives the tasks it loads through the entry point: `drive_evals/surds`."""


@dataclass(frozen=True)
class SuiteTask:
    """One task of the suite: what it is called, which scorer's results hold its headline, and whether it evaluates
    a model (a benchmark) rather than a judge."""

    name: str
    scorer: str
    benchmark: bool = True

    @property
    def qualified(self) -> str:
        """The name Inspect knows it by, with the package prefix."""
        return f"{PACKAGE}/{self.name}"


SURDS = SuiteTask("surds", scorer="surds_scorer")
DRIVELMM_O1 = SuiteTask("drivelmm_o1", scorer="drivelmm_o1_scorer")
DRIVELMM_O1_JUDGE = SuiteTask("drivelmm_o1_judge", scorer="judge_meta_scorer", benchmark=False)
VLADBENCH = SuiteTask("vladbench", scorer="vladbench_scorer")
TASKS: tuple[SuiteTask, ...] = (SURDS, DRIVELMM_O1, DRIVELMM_O1_JUDGE, VLADBENCH)
"""In the order help and listings show them."""


def benchmarks() -> tuple[SuiteTask, ...]:
    """The tasks that evaluate a model (not the judge meta-evaluation): what `drive-evals estimate` and `run` take."""
    return tuple(task for task in TASKS if task.benchmark)


BENCHMARK_SCORERS = tuple(task.scorer for task in benchmarks())
"""The benchmarks' scorers (not the judge meta-evaluation's): their logs carry truncation and missing units."""

_functions: dict[str, Callable[..., Any]] = {}
TaskFunction = TypeVar("TaskFunction", bound=Callable[..., Any])


def register(function: TaskFunction) -> TaskFunction:
    """Record a `@task` function as the suite task of the same name (applied above `@task`)."""
    find(function.__name__)  # a task the suite does not declare is a programming error, caught at import
    _functions[function.__name__] = function
    return function


def task_functions() -> dict[str, Callable[..., Any]]:
    """Task name -> function, for every task whose module is loaded, in `TASKS` order."""
    return {task.name: _functions[task.name] for task in TASKS if task.name in _functions}


def find(name: str) -> SuiteTask:
    """The task named `surds` or `drive_evals/surds`; an unknown name is an error listing the tasks."""
    short = name.removeprefix(f"{PACKAGE}/")
    for task in TASKS:
        if task.name == short:
            return task
    raise ParameterError(f"unknown task {name!r}; the tasks are: {', '.join(t.qualified for t in TASKS)}")
