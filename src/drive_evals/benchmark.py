"""What shared code needs of a benchmark, declared by each benchmark package as one `Benchmark` value.

A benchmark package (`drive_evals/surds/`, `drive_evals/drivelmm_o1/`, ...) holds everything it knows: data
format, prompts, scoring rules, metrics. Shared code (the report, the `drive-evals` commands, the chance provider)
never imports it: it reads the `Benchmark` the package declares in its own `benchmark.py`, listed once in
`drive_evals._registry.BENCHMARKS`. This module imports no benchmark, so every package may import it.
docs/adding-a-benchmark.md walks through each field with SURDS as the example.

Everything a table shows is a fraction in [0, 1] in the logs; tables print it x100, as the papers do.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from inspect_ai._util.registry import registry_unqualified_name
from inspect_ai.dataset import Sample
from inspect_ai.log import EvalSampleSummary
from inspect_ai.model import ChatMessage
from inspect_ai.scorer import Score, Scorer

PACKAGE = "drive_evals"
"""The prefix Inspect gives the tasks it loads through the entry point: `drive_evals/surds`."""

GRADER_ROLE = "grader"
"""The Inspect model role a benchmark's judge is bound to (`--model-role grader=...`)."""
JUDGE_ENABLED_KEY = "judge_enabled"
"""Task metadata key of a judged benchmark: whether this run calls its judge (`-T judge=false` turns it off). A
benchmark without a judge leaves it out."""
DEFAULT_GRADER_KEY = "default_grader"
"""Task metadata key: the judge the task calls when no model is bound to the grader role."""


@dataclass(frozen=True)
class SuiteTask:
    """One `@task` of the suite: its function's name, the scorer whose results hold its headline (the `@scorer`
    function itself, so its name cannot be misspelt), and whether it evaluates a model (a benchmark) rather than a
    judge."""

    name: str
    scorer: Callable[..., Scorer]
    benchmark: bool = True

    @property
    def scorer_name(self) -> str:
        """The name Inspect logs the scorer's results under (`surds_scorer`)."""
        return registry_unqualified_name(self.scorer)

    @property
    def qualified(self) -> str:
        """The name Inspect knows it by, with the package prefix."""
        return f"{PACKAGE}/{self.name}"


# --- the report adapter: what the report tables, compares and breaks down ---


@dataclass(frozen=True)
class UnitMetric:
    """How one metric is computed from per-unit score values, for unit counts, fallback errors and pairing."""

    name: str
    value_key: str
    subset: str | None = None
    """Only units of this group (SURDS subset) count."""
    grouped: bool = False
    """The metric is the equal mean over groups of the group means (SURDS `overall`)."""
    counted_key: str | None = None
    """Only units whose value under this key is 1 count (DriveLMM-o1's official MCQ denominator)."""
    stderr_logged: bool = True
    """The task logs this metric's standard error (SURDS logs only `overall_stderr`; the report computes the
    subsets' from the units, and does not flag them as missing from the log)."""
    continuous: bool = False
    """Unit values can lie between 0 and 1 (judge scores, xy2d centerness), not only at 0 or 1: the interval is the
    betting interval, which holds whatever their distribution (`stats.intervals.mean_interval`; a mean over subsets
    keeps Korn-Graubard's)."""
    demo: Callable[[Path], None] | None = None
    """Writes the benchmark's demo data, in the official formats, into a folder (`tools/make_demo.py` calls it for
    `src/drive_evals/demo/<key>/`). None for the four first benchmarks, whose makers live in `tools/`."""
    judged: bool = False
    """A judge model's score: its paired intervals carry the judge-score note (`report.judge_note`)."""


def judge_score(name: str) -> UnitMetric:
    """A judge's score in [0, 1], logged under its own name."""
    return UnitMetric(name, name, continuous=True, judged=True)


UnitRow = tuple[Mapping[str, float], Mapping[str, Any]]
"""One unit's score values (averaged over epochs) and its sample metadata, as the report reads them."""


@dataclass(frozen=True)
class CreditMetric:
    """A logged metric that is not a mean over units but equals the mean of per-unit credits, computed from all of
    a run's units at once (a ratio of sums whose denominators the data fixes: VLADBench's `total`). Each credit lies
    in [0, an upper bound known before any reply], so the report gives it the betting interval with those bounds
    and the paired test on the credits over their largest bound (`stats.intervals.credit_interval`,
    `stats.paired.scaled_paired_difference`; coverage in docs/statistics.md)."""

    name: str
    credits: Callable[[Sequence[UnitRow]], list[tuple[float, float] | None] | None]
    """Every unit of a run (errored ones as `missing_values`) -> (credit, upper) per unit in the order given, None
    for a unit the metric leaves out; None when these units cannot give credits (a log of an older task version)."""


ColumnKind = Literal["estimate", "rate", "count"]


@dataclass(frozen=True)
class Column:
    """One table column: a log metric shown with its 95% interval (`estimate`), as a percentage, or as a count."""

    metric: str
    label: str
    kind: ColumnKind = "estimate"


@dataclass(frozen=True)
class TableSpec:
    title: str
    columns: tuple[Column, ...]


@dataclass(frozen=True)
class Reference:
    """A published result: the model as the paper names it and its numbers as fractions, keyed by our metric."""

    model: str
    values: dict[str, float]


def paper_percent(value: float) -> float:
    """A paper's number printed x100, as the fraction the logs hold."""
    return round(value / 100, 6)


OutcomeRule = Callable[[Score, Mapping[str, Any]], dict[str, str]]
"""One epoch's score and the sample metadata -> outcome dimension -> level (read from the score's value, reason and
answer, never from Score.metadata)."""


@dataclass(frozen=True)
class BreakdownSpec:
    """How the report breaks a benchmark's results down: levels from sample metadata, outcomes from scores."""

    levels: Callable[[Mapping[str, Any]], dict[str, str]]
    """Sample metadata -> dimension -> level (computed once per sample)."""
    outcomes: OutcomeRule
    dimensions: tuple[str, ...]
    """Dimensions read from metadata, in report order."""
    outcome_dimensions: tuple[str, ...]
    metrics: tuple[str, ...]
    """Unit metrics estimated per level of every metadata dimension."""
    paired: tuple[str, ...]
    """Unit metrics compared between two comparable models per level."""
    level_order: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Natural level order per dimension (bins, cameras); levels not listed follow, sorted by name."""


def finite_number(value: object) -> float | None:
    """A score value as a float when it is a finite number (not a boolean, not NaN): for outcome rules."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and not math.isnan(value):
        return float(value)
    return None


# --- the end-of-run headline `inspect eval` and `drive-evals run` print (`drive_evals.headline`) ---


@dataclass(frozen=True)
class ConsoleLine:
    """One line of the end-of-run headline: a metric, printed as the report prints it, and what it is."""

    metric: str
    meaning: str | Callable[[Mapping[str, float], Mapping[str, Any]], str]
    """What the number is, or a function of the log's metrics and the task's metadata that says it (an item count,
    a lenient reading, the planned subsets)."""
    demo: Callable[[Path], None] | None = None
    """Writes the benchmark's demo data, in the official formats, into a folder (`tools/make_demo.py` calls it for
    `src/drive_evals/demo/<key>/`). None for the four first benchmarks, whose makers live in `tools/`."""
    judged: bool = False
    """Printed only when the run had a judge."""


# --- what the chance provider, `drive-evals estimate` and `drive-evals manifest` ask of a benchmark ---

ChanceAnswer = Callable[[str, random.Random], str | None]
"""The text of a request's user messages and a seeded generator -> a uniformly random answer in the benchmark's
official output format, or None when the prompt is not one of this benchmark's (the provider asks the next)."""

ChanceJudge = Callable[[Mapping[str, Any], random.Random], str | None]
"""A judge request's JSON schema and a seeded generator -> a random in-range judge reply, or None when the schema
is not this benchmark's judge's."""


@dataclass(frozen=True)
class EstimateInputs:
    """The requests one sample makes, so `drive-evals estimate` counts tokens without calling a model."""

    requests: Callable[[Sample], list[list[ChatMessage]]]
    """Sample (as the task builds it) -> the messages of each model call its solver sends."""
    judge_request: Callable[[Sample], list[ChatMessage]] | None = None
    """Sample -> the judge call's messages without the model's response (None: the benchmark has no judge)."""
    judge_max_tokens: int = 0
    """The judge's output token limit, the upper bound of its output."""


@dataclass(frozen=True)
class ManifestWalk:
    """The data files of a benchmark whose data root holds far more than a run reads (a nuScenes root)."""

    option: str
    """`drive-evals manifest write` option naming the file that lists them (`--drivelmm-o1`)."""
    metavar: str
    help: str
    files: Callable[[Path], list[str]]
    """That file -> the data files it names, relative to the data root, in order, without repeats."""


# --- whether a run read the official data (`drive_evals.official_data`) ---


@dataclass(frozen=True)
class OfficialCount:
    """One count the official data fixes, for one run: what is counted, how many the run's data held, and the
    official number (several where sources disagree, e.g. a paper's count and the released file's)."""

    what: str
    read: int
    official: tuple[int, ...]


OfficialRule = Callable[[Mapping[str, Any]], list[OfficialCount]]
"""The task's metadata (its loader's summary, which counts the whole data before any `--limit` or shard) -> the
counts the official data fixes for this run's configuration and selection (`subsets=`, a split); empty where no
official count is known."""


@dataclass(frozen=True)
class Benchmark:
    """One benchmark as shared code sees it. Fields are grouped by their reader."""

    task: SuiteTask
    """Its `@task` (registered with `drive_evals.suite.register`)."""
    title: str
    """The name the report prints."""
    # the report
    cluster_key: str
    """Sample metadata key that clusters units (shared image or frame)."""
    group_key: str | None
    """Sample metadata key of the groups a `grouped` metric averages over (None: no groups)."""
    headline: str
    unit_metrics: tuple[UnitMetric, ...]
    tables: tuple[TableSpec, ...]
    paired: tuple[str, ...]
    """Metrics compared between every two comparable models."""
    comparability: tuple[str, ...]
    """Task arguments that must be equal for two runs to be compared."""
    reference_source: str
    # the chance provider and `drive-evals estimate`
    chance: ChanceAnswer
    estimate: EstimateInputs
    references: tuple[Reference, ...] = field(default=())
    """The paper's rows."""
    plots: tuple[str, ...] = field(default=())
    """Titles of the tables to plot (estimate columns only)."""
    breakdown: BreakdownSpec | None = None
    missing_values: Mapping[str, float] = field(default_factory=dict)
    """A unit whose sample errored, as the official scorer counts a missing reply (SURDS: invalid, 0)."""
    diagnostics: Callable[[list[EvalSampleSummary]], dict[str, float]] | None = None
    """Metrics the report computes from the samples because the task does not log them (SURDS per subset)."""
    chance_judge: ChanceJudge | None = None
    manifest: ManifestWalk | None = None
    """`drive-evals manifest write`'s file list (None: every file under the data root)."""
    console: tuple[ConsoleLine, ...] = field(default=())
    """The end-of-run headline's lines (empty: the headline metric alone)."""
    planned_groups_key: str | None = None
    """Task metadata key listing the groups the run planned: a `grouped` headline that lacks units of one of them is
    not reported (SURDS `overall` over a `--limit` run with only yaw units)."""
    demo: Callable[[Path], None] | None = None
    """Writes the benchmark's demo data, in the official formats, into a folder (`tools/make_demo.py` calls it for
    `src/drive_evals/demo/<key>/`). None for the four first benchmarks, whose makers live in `tools/`."""
    judged: bool = False
    """Its scores come from a judge model in the grader role: runs with different judges are not comparable (the
    report adds the judge to `comparability` and to the settings it shows)."""
    meta_tasks: tuple[SuiteTask, ...] = field(default=())
    """Other tasks of the package that evaluate a judge, not a model (DriveLMM-o1's judge meta-evaluation)."""
    credit_metrics: tuple[CreditMetric, ...] = field(default=())
    """Metrics that are means of per-unit credits, not of one score value (`CreditMetric`); they may be `paired`."""
    official: OfficialRule | None = None
    """The counts that make a run's data the official set (None: not checked); a copy that differs is flagged
    beside the paper's rows (`drive_evals.official_data`)."""
    stop_eligible: Callable[[Mapping[str, Any]], bool] | None = None
    """For a headline that counts a unit by a score value (`UnitMetric.counted_key`): whether a sample counts, from
    its metadata alone, so a run with a stop rule fixes the headline's weights before its first call
    (docs/early-stopping.md). None: every unit counts, or a live stop rule is refused."""

    @property
    def key(self) -> str:
        return self.task.name

    @property
    def scorer(self) -> str:
        """The name of the scorer whose results the report reads."""
        return self.task.scorer_name

    @property
    def task_names(self) -> frozenset[str]:
        """Registry names, with and without the package prefix (an uninstalled tree registers them bare)."""
        return frozenset({self.key, f"{PACKAGE}/{self.key}"})

    def unit_metric(self, name: str) -> UnitMetric | None:
        return next((m for m in self.unit_metrics if m.name == name), None)

    def credit_metric(self, name: str) -> CreditMetric | None:
        return next((m for m in self.credit_metrics if m.name == name), None)


def all_tasks(benchmarks: Sequence[Benchmark]) -> tuple[SuiteTask, ...]:
    """Every task of the benchmarks, each benchmark's own first, then its meta-evaluations."""
    return tuple(task for benchmark in benchmarks for task in (benchmark.task, *benchmark.meta_tasks))


def benchmark_of(benchmarks: Sequence[Benchmark], task: str) -> Benchmark | None:
    """The benchmark a log's task name belongs to; None for other tasks (judge meta-evaluations, ...)."""
    return next((benchmark for benchmark in benchmarks if task in benchmark.task_names), None)
