"""The standard plumbing of a suite task, in two calls: `@suite_task` on the task function, `make_task` for its Task.

A benchmark's `task.py` then reads as an inspect_evals task does: load the dataset, compose the solver and the
scorer, return the Task. What every task of the suite must do besides is done here, in one place:

- `@suite_task(DEFINITION, data=HF_DATASET)`: registers the function with Inspect (`@task`) and the suite
  (`drive_evals.suite.register`), adds the suite-wide parameters (`kit.parameters.SUITE_PARAMETERS`) to its
  signature and docstring, and on each call routes errors to one stderr line, rejects unknown `-T` names, checks
  the suite parameters and hands them to the function as `SuiteArgs`, and arms the end-of-run hook.
- `make_task(...)`: verifies every data file the loader fetched against the data root's manifest, logs the data
  warnings, checks the endpoints (after the data, before any paid call), records started samples (so errored ones
  count as the official scorer counts a missing reply), appends the raw-reply generation, sets the call timeout,
  the headline metric, the replicate tags, the viewer's sample list and the provenance metadata, with whether the
  data is the official set (`drive_evals.official_data`).
"""

from __future__ import annotations

import inspect
import logging
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import Dataset, Sample
from inspect_ai.log import HeadlineMetric
from inspect_ai.model import GenerateConfig, Model
from inspect_ai.scorer import Scorer
from inspect_ai.solver import Solver
from inspect_ai.util import EarlyStopping

from drive_evals.benchmark import SuiteTask
from drive_evals.data import Snapshot, open_snapshot
from drive_evals.data_warnings import DataWarnings
from drive_evals.endpoints import check_task_endpoints
from drive_evals.errors import ParameterError, route_errors_to_stderr
from drive_evals.kit.parameters import SUITE_PARAMETERS, SuiteArgs
from drive_evals.manifest import verify_manifest
from drive_evals.official_data import OFFICIAL_DATA_KEY, official_data
from drive_evals.params import reject_unknown
from drive_evals.replies import generate_raw_reply
from drive_evals.run_end import enable_end_of_run_warnings
from drive_evals.started_samples import StartedSamples, record_start
from drive_evals.stopping.attach import with_stop_rule
from drive_evals.suite import declared, register
from drive_evals.unanswered import CALL_TIMEOUT_SECONDS
from drive_evals.viewer import replicate_tags, sample_list_view

logger = logging.getLogger(__name__)
ARG_LINE = re.compile(r"    (\w+)(?: \(.*\))?:")
"""A parameter's first line in a Google-style `Args:` section (its continuation lines are indented further)."""
BENCHMARK_KEY = "benchmark"
"""Task metadata key naming the benchmark (its task name)."""
DATA_WARNINGS_KEY = "data_warnings"


def open_data(args: SuiteArgs) -> Snapshot:
    """The task's `data` snapshot (`data.open_snapshot`): every file fetched through it is checked against the data
    root's manifest (`drive-evals manifest write`) by `make_task`, so a loader cannot forget to."""
    snapshot = open_snapshot(args.data, args.task, args.revision)
    args.opened.append(snapshot)
    return snapshot


@dataclass(frozen=True)
class SampleColumns:
    """The viewer's sample list: its title, the score keys shown first, those after the error column, labels."""

    title: str
    scores: Sequence[str]
    trailing: Sequence[str] = ()
    labels: Mapping[str, str] = field(default_factory=dict)


def suite_task(
    definition: SuiteTask, *, data: str, revision: str | None = None, blind: bool = True
) -> Callable[[Callable[..., Task]], Callable[..., Task]]:
    """Make `function(args: SuiteArgs, **own)` the suite's task `definition.name`, taking the suite parameters too.

    `data` and `revision` are this benchmark's defaults; `blind=False` leaves out the no-vision control.
    """

    def decorate(function: Callable[..., Task]) -> Callable[..., Task]:
        own = list(inspect.signature(function).parameters.values())[1:]
        defaults = {"data": data, "revision": revision}
        left_out = set() if blind else {"blind"}
        taken = [p for p in SUITE_PARAMETERS if not (p.optional and p.name in left_out)]

        def suite(leading: bool) -> list[inspect.Parameter]:
            return [
                inspect.Parameter(
                    p.name,
                    inspect.Parameter.KEYWORD_ONLY,
                    default=defaults.get(p.name, p.default),
                    annotation=p.annotation,
                )
                for p in taken
                if p.leading == leading
            ]

        catch_all = inspect.Parameter("kwargs", inspect.Parameter.VAR_KEYWORD, annotation=object)
        parameters = [*suite(True), *(p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in own), *suite(False)]
        signature = inspect.Signature([*parameters, catch_all], return_annotation=Task)

        def call(**given: Any) -> Task:
            route_errors_to_stderr()
            bound = signature.bind(**given)
            bound.apply_defaults()
            values = dict(bound.arguments)
            reject_unknown(call, values.pop("kwargs"))
            args = SuiteArgs.checked(definition.name, {p.name: values.pop(p.name) for p in taken})
            enable_end_of_run_warnings()
            return function(args, **values)

        call.__name__ = call.__qualname__ = function.__name__
        call.__module__ = function.__module__
        call.__doc__ = _with_suite_docs(inspect.getdoc(function) or "", taken)
        call.__signature__ = signature  # type: ignore[attr-defined]
        # resolved in the benchmark's module (its aliases, such as a Literal of valid values), for `describe`
        hints = inspect.get_annotations(function, eval_str=True)
        call.__annotations__ = {p.name: hints.get(p.name, p.annotation) for p in parameters} | {"return": Task}
        return register(definition)(task(call))

    return decorate


def _with_suite_docs(docstring: str, parameters: Sequence[Any]) -> str:
    """The docstring with a line in its `Args:` section for each suite parameter it does not document itself."""
    lines = docstring.splitlines()
    if "Args:" not in (line.strip() for line in lines):
        lines += ["", "Args:"]
    start = next(i for i, line in enumerate(lines) if line.strip() == "Args:")
    documented = {found[1] for line in lines[start + 1 :] if (found := ARG_LINE.match(line))}
    end = next((i for i in range(start + 1, len(lines)) if lines[i] and not lines[i].startswith(" ")), len(lines))
    while end > start + 1 and not lines[end - 1].strip():
        end -= 1
    added = [f"    {p.name}: {p.doc}" for p in parameters if p.name not in documented]
    return "\n".join([*lines[:end], *added, *lines[end:]])


def make_task(
    args: SuiteArgs,
    *,
    dataset: Dataset | Sequence[Sample],
    scorer: Scorer,
    version: int,
    headline: str,
    config: GenerateConfig,
    columns: SampleColumns,
    solver: Sequence[Solver] = (),
    generate: bool = True,
    kept: Sequence[str] = (),
    metadata: Mapping[str, Any] | None = None,
    judges: Sequence[Model] = (),
    data_warnings: DataWarnings | None = None,
    early_stopping: EarlyStopping | None = None,
) -> Task:
    """The benchmark's Task with the suite's plumbing (module docstring).

    Args:
        args: The suite parameters `@suite_task` handed the task function.
        dataset: The loaded samples.
        scorer: The benchmark's scorer (the one `definition.scorer` names).
        version: The task's TASK_VERSION.
        headline: The scorer's metric that is the task's headline.
        config: The benchmark's generation settings; the suite's call timeout is added when it sets none.
        columns: The viewer's sample list.
        solver: The benchmark's steps before the model call (prompt building, a judge breaker).
        generate: Append the raw-reply generation (`replies.generate_raw_reply`); False when `solver` calls the
            model itself.
        kept: Sample metadata the metrics need of an errored sample (its group, its cluster).
        metadata: Task metadata (the loader's summary, the judge settings), after the benchmark's name.
        judges: The judge models to check with the model under test before any call.
        data_warnings: Warnings the loader collected: logged, and kept in the metadata.
        early_stopping: Inspect's early-stopping manager, passed to the Task.
    """
    for snapshot in args.opened:
        verify_manifest(snapshot.root, list(snapshot.fetched))
    warnings = {}
    if data_warnings is not None:
        data_warnings.log(logger)
        warnings = {DATA_WARNINGS_KEY: data_warnings.summary()}
    check_task_endpoints(model_under_test=True, judges=list(judges))
    name = scorer_name(scorer)
    described = {BENCHMARK_KEY: args.task, **(metadata or {}), **warnings}
    described[OFFICIAL_DATA_KEY] = official_data(declared(args.task), described)
    if config.timeout is None:
        config = config.model_copy(update={"timeout": CALL_TIMEOUT_SECONDS})
    built = Task(
        dataset=dataset,
        version=version,
        solver=[record_start(StartedSamples(kept=kept)), *solver, *([generate_raw_reply()] if generate else [])],
        scorer=scorer,
        config=config,
        metadata=described,
        headline_metric=HeadlineMetric(scorer=name, metric=headline),
        tags=replicate_tags(),
        viewer=sample_list_view(columns.title, name, columns.scores, columns.trailing, columns.labels or None),
        early_stopping=early_stopping,
    )
    return built if args.stop is None else _with_stop_rule(args, built)


def _with_stop_rule(args: SuiteArgs, built: Task) -> Task:
    """The task with its stop rule (docs/early-stopping.md), refused in one line where its headline cannot hold one."""
    benchmark = declared(args.task)
    assert args.stop is not None
    if benchmark is None:
        raise ParameterError(f"-T stop: {args.task} is not a benchmark of the suite registry (drive_evals._registry)")
    if args.shard is not None and args.shard.count > 1:  # shards would each see part of the committed order
        raise ParameterError(
            "-T stop with several shards (-T shard, drive-evals run --processes N): not supported yet; run the rule "
            "in one process (drive-evals run --processes 1)"
        )
    return with_stop_rule(built, benchmark, args.stop)


def scorer_name(scorer: object) -> str:
    """The name Inspect logs a scorer's results under: its registered name without the package (`surds_scorer`)."""
    from inspect_ai._util.registry import registry_unqualified_name

    return registry_unqualified_name(scorer)
