"""The suite's one list of benchmarks, and what Inspect loads through the `inspect_ai` entry point.

Shared code (the report, the `drive-evals` commands, the chance provider) reaches a benchmark only through
`BENCHMARKS` and the fields of `drive_evals.benchmark.Benchmark`; this is the one module outside a benchmark
package that imports one. Adding a benchmark adds its line to `BENCHMARKS` (docs/adding-a-benchmark.md).
"""

import drive_evals.model_names  # noqa: F401  (one line, not a traceback, for an unknown provider)
from drive_evals import run_end, suite
from drive_evals.benchmark import Benchmark, SuiteTask, all_tasks, benchmark_of
from drive_evals.chance import chance_model
from drive_evals.coda_lm.benchmark import CODA_LM
from drive_evals.coda_lm.scorer import coda_lm_scorer
from drive_evals.coda_lm.task import coda_lm
from drive_evals.drivebench.benchmark import DRIVEBENCH
from drive_evals.drivebench.scorer import drivebench_scorer
from drive_evals.drivebench.task import drivebench
from drive_evals.drivelmm_o1.benchmark import DRIVELMM_O1
from drive_evals.drivelmm_o1.judge_meta import drivelmm_o1_judge
from drive_evals.drivelmm_o1.scorer import drivelmm_o1_scorer
from drive_evals.drivelmm_o1.task import drivelmm_o1
from drive_evals.errors import ParameterError, route_errors_to_stderr
from drive_evals.mme_realworld_ad.benchmark import MME_REALWORLD_AD
from drive_evals.mme_realworld_ad.scorer import mme_realworld_ad_scorer
from drive_evals.mme_realworld_ad.task import mme_realworld_ad
from drive_evals.surds.benchmark import SURDS
from drive_evals.surds.scorer import surds_scorer
from drive_evals.surds.task import surds
from drive_evals.vladbench.benchmark import VLADBENCH
from drive_evals.vladbench.scorer import vladbench_scorer
from drive_evals.vladbench.task import vladbench

BENCHMARKS: tuple[Benchmark, ...] = (SURDS, DRIVELMM_O1, DRIVEBENCH, VLADBENCH, CODA_LM, MME_REALWORLD_AD)
"""In the order help, listings and the report show them."""

TASKS: tuple[SuiteTask, ...] = all_tasks(BENCHMARKS)
"""Every task, benchmarks and judge meta-evaluations."""

ChanceModel = chance_model(BENCHMARKS)
"""`--model chance/random`: answers each benchmark's prompts as its `chance` answerer does."""

run_end.report_on(BENCHMARKS)  # `inspect eval` ends on the headline of each benchmark log
suite.declare(BENCHMARKS)  # the task kit finds a task's benchmark here (a stop rule reads its headline)

route_errors_to_stderr()  # Inspect has installed its exception hook by now; its console misses `--display none`

__all__ = [
    "ChanceModel",
    "coda_lm",
    "coda_lm_scorer",
    "drivebench",
    "drivebench_scorer",
    "drivelmm_o1",
    "drivelmm_o1_judge",
    "drivelmm_o1_scorer",
    "mme_realworld_ad",
    "mme_realworld_ad_scorer",
    "surds",
    "surds_scorer",
    "vladbench",
    "vladbench_scorer",
]


def benchmark_tasks() -> tuple[SuiteTask, ...]:
    """The tasks that evaluate a model (not a judge meta-evaluation): what `drive-evals estimate` and `run` take."""
    return tuple(task for task in TASKS if task.benchmark)


def find_task(name: str) -> SuiteTask:
    """The task named `surds` or `drive_evals/surds`; an unknown name is an error listing the tasks."""
    for task in TASKS:
        if name in (task.name, task.qualified):
            return task
    raise ParameterError(f"unknown task {name!r}; the tasks are: {', '.join(t.qualified for t in TASKS)}")


def benchmark_for(task: str) -> Benchmark | None:
    """The benchmark a log's task name belongs to; None for other tasks (judge meta-evaluations, ...)."""
    return benchmark_of(BENCHMARKS, task)
