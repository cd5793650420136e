"""What the report knows about each benchmark: its tasks, table columns, per-unit values and the papers' numbers.

Metric names come from the tasks' own modules, so a renamed metric breaks here loudly instead of leaving an empty
column. Everything a table shows is a fraction in [0, 1] in the logs; tables print it x100, as the papers do.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from inspect_ai.log import EvalSampleSummary
from inspect_ai.scorer import Score

from drive_evals.drivelmm_o1 import breakdown as o1_breakdown
from drive_evals.drivelmm_o1.metrics import CRITERION_NAMES, JUDGE_OVERALL, JUDGED, MCQ_CORRECT, MCQ_COUNTED, REASONING
from drive_evals.drivelmm_o1.prompts import CRITERIA
from drive_evals.report.outcomes import (
    JUDGE_OUTCOME,
    MCQ_OUTCOME,
    O1_OUTCOMES,
    OUTCOME,
    SURDS_OUTCOMES,
    o1_outcomes,
    surds_outcomes,
)
from drive_evals.suite import DRIVELMM_O1 as O1_TASK
from drive_evals.suite import PACKAGE
from drive_evals.suite import SURDS as SURDS_TASK
from drive_evals.suite import VLADBENCH as VLADBENCH_TASK
from drive_evals.surds import breakdown as surds_breakdown
from drive_evals.surds.metrics import OVERALL, SCORE_KEY, VALID_KEY, diagnostics
from drive_evals.surds.units import CENTERNESS_SUBSET, SUBSETS
from drive_evals.vladbench import report as vlad
from drive_evals.vladbench.dataset import SCENE_KEY as VLADBENCH_SCENE

MCQ_ACCURACY = "mcq_accuracy"
JUDGE_COVERAGE = "judge_coverage"
MCQ_ITEMS = "mcq_items"


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
    betting interval, which holds whatever their distribution (`stats.mean_interval`; a mean over subsets keeps
    Korn-Graubard's)."""


def judge_score(name: str) -> UnitMetric:
    """A judge's score in [0, 1], logged under its own name."""
    return UnitMetric(name, name, continuous=True)


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


@dataclass(frozen=True)
class BreakdownSpec:
    """How the report breaks a benchmark's results down: levels from sample metadata, outcomes from scores."""

    levels: Callable[[Mapping[str, Any]], dict[str, str]]
    """Sample metadata -> dimension -> level (computed once per sample)."""
    outcomes: Callable[[Score, Mapping[str, Any]], dict[str, str]]
    """One epoch's score and the sample metadata -> outcome dimension -> level."""
    dimensions: tuple[str, ...]
    """Dimensions read from metadata, in report order."""
    outcome_dimensions: tuple[str, ...]
    metrics: tuple[str, ...]
    """Unit metrics estimated per level of every metadata dimension."""
    paired: tuple[str, ...]
    """Unit metrics compared between two comparable models per level."""
    level_order: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Natural level order per dimension (bins, cameras); levels not listed follow, sorted by name."""


@dataclass(frozen=True)
class Benchmark:
    key: str
    title: str
    scorer: str
    cluster_key: str
    """Sample metadata key that clusters units (shared image or frame)."""
    group_key: str | None
    headline: str
    unit_metrics: tuple[UnitMetric, ...]
    tables: tuple[TableSpec, ...]
    paired: tuple[str, ...]
    """Metrics compared between every two comparable models."""
    comparability: tuple[str, ...]
    """Task arguments that must be equal for two runs to be compared."""
    reference_source: str
    references: tuple[Reference, ...] = field(default=())
    plots: tuple[str, ...] = field(default=())
    """Titles of the tables to plot (estimate columns only)."""
    breakdown: BreakdownSpec | None = None
    missing_values: Mapping[str, float] = field(default_factory=dict)
    """A unit whose sample errored, as the official scorer counts a missing reply (SURDS: invalid, 0)."""
    diagnostics: Callable[[list[EvalSampleSummary]], dict[str, float]] | None = None
    """Metrics the report computes from the samples because the task does not log them (SURDS per subset)."""

    @property
    def task_names(self) -> frozenset[str]:
        """Registry names, with and without the package prefix (an uninstalled tree registers them bare)."""
        return frozenset({self.key, f"{PACKAGE}/{self.key}"})

    def unit_metric(self, name: str) -> UnitMetric | None:
        return next((m for m in self.unit_metrics if m.name == name), None)


def _pct(value: float) -> float:
    """Paper numbers are printed x100; the logs hold fractions."""
    return round(value / 100, 6)


def surds_diagnostics(samples: list[EvalSampleSummary]) -> dict[str, float]:
    """`surds.metrics.diagnostics` over every unit-epoch: scored ones, and errored ones as invalid and 0."""
    rows: list[tuple[str, dict[str, float], dict[str, object]]] = []
    for sample in samples:
        subset = str((sample.metadata or {}).get("subset"))
        score = (sample.scores or {}).get(SURDS_TASK.scorer)
        if score is not None and isinstance(score.value, dict):
            values = {k: float(v) for k, v in score.value.items() if isinstance(v, (int, float))}
            rows.append((subset, values, score.metadata or {}))
        elif sample.error is not None:
            rows.append((subset, {SCORE_KEY: 0.0, VALID_KEY: 0.0}, {}))
    return diagnostics(rows)


SURDS_SCORES = "Scores"
SURDS = Benchmark(
    key=SURDS_TASK.name,
    title="SURDS",
    scorer=SURDS_TASK.scorer,
    cluster_key="image",
    group_key="subset",
    headline=OVERALL,
    unit_metrics=(
        UnitMetric(OVERALL, SCORE_KEY, grouped=True),
        *(
            UnitMetric(subset, SCORE_KEY, subset=subset, stderr_logged=False, continuous=subset == CENTERNESS_SUBSET)
            for subset in SUBSETS
        ),
    ),
    tables=(
        TableSpec(SURDS_SCORES, (Column(OVERALL, OVERALL), *(Column(subset, subset) for subset in SUBSETS))),
        TableSpec("Valid-response rate", tuple(Column(f"{s}_valid_rate", s, "rate") for s in SUBSETS)),
    ),
    paired=(OVERALL, *SUBSETS),
    comparability=("record_order", "subsets"),
    missing_values={SCORE_KEY: 0.0, VALID_KEY: 0.0},
    diagnostics=surds_diagnostics,
    reference_source="paper abstract (arXiv 2411.13112), overall x100",
    references=(
        Reference("GPT-4o", {OVERALL: _pct(13.30)}),
        Reference("Gemini-2.0-flash", {OVERALL: _pct(35.71)}),
        Reference("SURDS authors' GRPO model", {OVERALL: _pct(40.80)}),
    ),
    plots=(SURDS_SCORES,),
    breakdown=BreakdownSpec(
        levels=surds_breakdown.sample_levels,
        outcomes=surds_outcomes,
        dimensions=surds_breakdown.DIMENSIONS,
        outcome_dimensions=(OUTCOME,),
        metrics=(OVERALL, *SUBSETS),
        paired=(OVERALL,),
        level_order={
            **{d: surds_breakdown.level_order(d) for d in surds_breakdown.DIMENSIONS},
            OUTCOME: SURDS_OUTCOMES,
        },
    ),
)

SHORT_CRITERIA = {
    "Faithfulness-Step": "Faithfulness",
    "Informativeness-Step": "Informativeness",
    "Risk Assessment Accuracy": "Risk",
    "Traffic Rule Adherence": "Rule",
    "Scene Awareness & Object Understanding": "Scene",
    "Repetition-Token": "Repetition",
    "Hallucination": "Hallucination",
    "Semantic Coverage-Step": "Coverage",
    "Commonsense": "Commonsense",
    "Missing Step": "Missing step",
    "Relevance": "Relevance",
    "Missing Details": "Missing details",
}
"""Short column labels; Risk, Rule, Scene, Relevance and Missing details are the paper's Table 1 headers."""
CRITERION_LABELS = {CRITERION_NAMES[criterion]: SHORT_CRITERIA[criterion] for criterion in CRITERIA}
"""Metric name -> label, in rubric order (a KeyError here means the rubric changed)."""

O1_HEADLINE = "Headline"
O1_CRITERIA = "Rubric criteria"


TABLE1_COLUMNS = (
    "risk_assessment_accuracy",
    "traffic_rule_adherence",
    "scene_awareness_object_understanding",
    "relevance",
    "missing_details",
    JUDGE_OVERALL,
    MCQ_ACCURACY,
)
"""Our metrics for the paper's Table 1 columns: Risk, Rule, Scene, Relevance, Missing Details, Overall, MCQ."""


def _table1(model: str, *percent: float) -> Reference:
    return Reference(model, dict(zip(TABLE1_COLUMNS, map(_pct, percent), strict=True)))


DRIVELMM_O1 = Benchmark(
    key=O1_TASK.name,
    title="DriveLMM-o1",
    scorer=O1_TASK.scorer,
    cluster_key="frame",
    group_key=None,
    headline=REASONING,
    unit_metrics=(
        judge_score(REASONING),
        judge_score(JUDGE_OVERALL),
        UnitMetric(MCQ_ACCURACY, MCQ_CORRECT, counted_key=MCQ_COUNTED),
        *(judge_score(name) for name in CRITERION_LABELS),
    ),
    tables=(
        TableSpec(
            O1_HEADLINE,
            (
                Column(REASONING, REASONING),
                Column(JUDGE_OVERALL, JUDGE_OVERALL),
                Column(MCQ_ACCURACY, MCQ_ACCURACY),
                Column(JUDGE_COVERAGE, JUDGE_COVERAGE, "rate"),
                Column(MCQ_ITEMS, MCQ_ITEMS, "count"),
            ),
        ),
        TableSpec(O1_CRITERIA, tuple(Column(name, label) for name, label in CRITERION_LABELS.items())),
    ),
    paired=(REASONING, MCQ_ACCURACY),
    missing_values={JUDGED: 0.0},
    comparability=("image_mode", "cell_size", "lidar", "lidar_range_m", "lidar_resolution_m", "judge"),
    reference_source="paper Table 1 (arXiv 2503.10621); its Overall Reasoning is the judge's own overall",
    references=(
        _table1("GPT-4o", 71.32, 80.72, 72.96, 76.65, 71.43, 72.52, 57.84),
        _table1("Qwen-2.5-VL-7B", 46.44, 60.45, 51.02, 50.15, 52.19, 51.77, 37.81),
        _table1("Ovis1.5-Gemma2-9B", 51.34, 66.36, 54.74, 55.72, 55.74, 55.62, 48.85),
        _table1("Mulberry-7B", 51.89, 63.66, 56.68, 57.27, 57.45, 57.65, 52.86),
        _table1("LLaVA-CoT", 57.62, 69.01, 60.84, 62.72, 60.67, 61.41, 49.27),
        _table1("LlamaV-o1", 60.20, 73.52, 62.67, 64.66, 63.41, 63.13, 50.02),
        _table1("InternVL2.5-8B", 69.02, 78.43, 71.52, 75.80, 70.54, 71.62, 54.87),
        _table1("DriveLMM-o1 (InternVL2.5-8B + LoRA)", 73.01, 81.56, 75.39, 79.42, 74.49, 75.24, 62.36),
    ),
    plots=(O1_HEADLINE, O1_CRITERIA),
    breakdown=BreakdownSpec(
        levels=o1_breakdown.item_levels,
        outcomes=o1_outcomes,
        dimensions=o1_breakdown.DIMENSIONS,
        outcome_dimensions=(JUDGE_OUTCOME, MCQ_OUTCOME),
        metrics=(REASONING, MCQ_ACCURACY),
        paired=(REASONING, MCQ_ACCURACY),
        level_order={JUDGE_OUTCOME: O1_OUTCOMES, MCQ_OUTCOME: O1_OUTCOMES},
    ),
)


VLADBENCH = Benchmark(
    key=VLADBENCH_TASK.name,
    title="VLADBench",
    scorer=VLADBENCH_TASK.scorer,
    cluster_key=VLADBENCH_SCENE,
    group_key=None,
    headline=vlad.TOTAL,
    unit_metrics=(UnitMetric(vlad.OBEY_RATE, vlad.OBEY_KEY),),
    tables=tuple(TableSpec(t, tuple(Column(m, m, "rate") for m in columns)) for t, columns in vlad.TABLES.items()),
    paired=(vlad.OBEY_RATE,),
    comparability=vlad.COMPARABILITY,
    missing_values=vlad.MISSING_VALUES,
    reference_source=vlad.REFERENCE_SOURCE,
    references=tuple(Reference(model, values) for model, values in vlad.PAPER_ROWS),
    breakdown=BreakdownSpec(
        levels=vlad.levels,
        outcomes=vlad.outcomes,
        dimensions=vlad.DIMENSIONS,
        outcome_dimensions=(OUTCOME,),
        metrics=(vlad.OBEY_RATE,),
        paired=(vlad.OBEY_RATE,),
        level_order=vlad.LEVEL_ORDER,
    ),
)
"""Built from the facts VLADBench's package declares (`drive_evals.vladbench.report`)."""

BENCHMARKS: tuple[Benchmark, ...] = (SURDS, DRIVELMM_O1, VLADBENCH)


def benchmark_for(task: str) -> Benchmark | None:
    """The benchmark a log's task name belongs to; None for other tasks (judge meta-evaluations, ...)."""
    return next((b for b in BENCHMARKS if task in b.task_names), None)
