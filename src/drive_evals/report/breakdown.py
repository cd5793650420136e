"""Where models fail: each run's metrics per level of each breakdown dimension, with the main tables' intervals.

A level's estimate is the same estimator as the main table's (SURDS `overall`: the equal mean over the subsets that
have units at that level; a subset or DriveLMM-o1 metric: the plain mean), with the main tables' interval
(`stats.intervals.mean_interval`, clustered by image or frame). Outcome dimensions give the share of units with
each outcome. Levels with few units or clusters are kept and flagged. Two comparable models are compared per level
with the main report's paired test (cluster sign-flip and bounded score test) and the interval inverting it where
a level has enough units.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from drive_evals.benchmark import Benchmark, BreakdownSpec, UnitMetric
from drive_evals.report.compare import BenchmarkView, paired_units
from drive_evals.report.judge_note import judge_interval_note
from drive_evals.report.runs import Run, Unit, unit_value
from drive_evals.report.tables import (
    DETECTABLE,
    Estimate,
    Table,
    p_text,
    paired_interval,
    paired_reasons,
    percent,
)
from drive_evals.stats.clustered import clustered_stderr, equal_group_mean
from drive_evals.stats.intervals import mean_interval
from drive_evals.stats.paired import (
    CSV_POWER_COLUMNS,
    CSV_TEST_COLUMNS,
    PairedDifference,
    csv_fields,
    paired_difference,
)

MIN_UNITS = 20
MIN_CLUSTERS = 5
"""Below either, a level is shown but flagged unreliable, and no paired comparison is made on it."""
SHARE = "share"
"""Outcome dimensions: the metric is the share of units with that outcome (`share: yaw` within one subset)."""
RELIABLE = "reliable"
CSV_COLUMNS = ("model", "dimension", "level", "metric", "estimate", "ci_low", "ci_high", "units", "clusters", RELIABLE)


@dataclass(frozen=True)
class Cell:
    """One run's estimate of one metric on the units of one level."""

    run: Run
    dimension: str
    level: str
    metric: str
    estimate: Estimate
    clusters: int

    @property
    def reliable(self) -> bool:
        return self.estimate.n >= MIN_UNITS and self.clusters >= MIN_CLUSTERS


@dataclass(frozen=True)
class LevelComparison:
    a: Run
    b: Run
    dimension: str
    level: str
    metric: str
    mean_a: float
    mean_b: float
    result: PairedDifference


@dataclass
class Breakdown:
    benchmark: Benchmark
    cells: list[Cell]
    comparisons: list[LevelComparison]
    too_small: int
    """Level comparisons not made because the common units fell below the thresholds."""
    notes: list[str] = field(default_factory=list)

    def dimensions(self) -> list[str]:
        present = {cell.dimension for cell in self.cells}
        spec = _spec(self.benchmark)
        return [d for d in (*spec.dimensions, *spec.outcome_dimensions) if d in present]

    def levels(self, dimension: str) -> list[str]:
        return ordered_levels(
            _spec(self.benchmark), dimension, {c.level for c in self.cells if c.dimension == dimension}
        )

    def metrics(self, dimension: str) -> list[str]:
        return list(dict.fromkeys(c.metric for c in self.cells if c.dimension == dimension))


def _spec(benchmark: Benchmark) -> BreakdownSpec:
    assert benchmark.breakdown is not None, benchmark.key
    return benchmark.breakdown


def _natural(text: str) -> list[Any]:
    """`Q10` after `Q9`: digits compare as numbers."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text)]


def ordered_levels(spec: BreakdownSpec, dimension: str, present: set[str]) -> list[str]:
    known = [level for level in spec.level_order.get(dimension, ()) if level in present]
    return known + sorted(present - set(known), key=_natural)


def level_mean(values: Sequence[float], clusters: Sequence[str], groups: Sequence[str] | None) -> float:
    """The estimate alone (a paired level's two sides need no interval): plain mean, or equal mean over `groups`."""
    return sum(values) / len(values) if groups is None else equal_group_mean(values, groups, clusters).overall


def level_estimate(
    values: Sequence[float], clusters: Sequence[str], groups: Sequence[str] | None, metric: UnitMetric | None
) -> Estimate:
    """The main tables' estimator on a subset of units: plain mean, or equal mean over `groups`; its interval as
    `metric` declares (None: an outcome share, 0/1)."""
    labels = list(groups) if groups is not None else [""] * len(values)
    if groups is not None:
        grouped = equal_group_mean(values, groups, clusters)
        mean, stderr = grouped.overall, grouped.overall_stderr
    else:
        mean, stderr = sum(values) / len(values), clustered_stderr(values, clusters)
    interval = mean_interval(mean, list(values), labels, list(clusters), metric is not None and metric.continuous)
    return Estimate(mean, stderr, len(values), True, interval)


def build_breakdown(view: BenchmarkView) -> Breakdown:
    """Every run's cells, then the per-level paired comparisons between the pairs the main report compares."""
    spec = _spec(view.benchmark)
    breakdown = Breakdown(view.benchmark, [], [], 0)
    outcome_levels = {
        dimension: sorted(
            {level for run in view.runs for u in run.units.values() for level in u.outcomes.get(dimension, {})}
        )
        for dimension in spec.outcome_dimensions
    }
    for run in view.runs:
        breakdown.cells.extend(_metadata_cells(run, spec))
        breakdown.cells.extend(_outcome_cells(run, spec, outcome_levels))
    breakdown.notes.extend(_missing_notes(view.runs, spec))
    pairs = list(dict.fromkeys((c.a.label, c.b.label) for c in view.comparisons))
    by_label = {run.label: run for run in view.runs}
    for label_a, label_b in pairs:
        _compare_levels(breakdown, by_label[label_a], by_label[label_b], spec)
    return breakdown


def _sorted_units(run: Run) -> list[Unit]:
    """By sample id, so that sums run in one order and the CSV is the same to the last digit on every run."""
    return [run.units[sample_id] for sample_id in sorted(run.units)]


def _metadata_cells(run: Run, spec: BreakdownSpec) -> list[Cell]:
    cells = []
    for dimension in spec.dimensions:
        for level in sorted({u.levels[dimension] for u in run.units.values() if dimension in u.levels}):
            units = [u for u in _sorted_units(run) if u.levels.get(dimension) == level]
            for name in spec.metrics:
                metric = run.benchmark.unit_metric(name)
                assert metric is not None, name
                rows = [(v, u) for u in units if (v := unit_value(u, metric)) is not None]
                if rows:
                    cells.append(_cell(run, dimension, level, name, rows, metric))
    return cells


def _outcome_cells(run: Run, spec: BreakdownSpec, levels: dict[str, list[str]]) -> list[Cell]:
    """Shares of every outcome any run had (0 where this run never had it), over all units and per group."""
    cells = []
    for dimension in spec.outcome_dimensions:
        units = [u for u in _sorted_units(run) if dimension in u.outcomes]
        groups = sorted({u.group for u in units if u.group}, key=lambda g: _rank(spec.metrics, g))
        for level in levels[dimension]:
            for group in [None, *groups]:
                chosen = [u for u in units if group is None or u.group == group]
                rows = [(u.outcomes[dimension].get(level, 0.0), u) for u in chosen]
                if rows:
                    metric = SHARE if group is None else f"{SHARE}: {group}"
                    cells.append(_cell(run, dimension, level, metric, rows, None))
    return cells


def _rank(order: Sequence[str], name: str) -> tuple[int, str]:
    return (order.index(name) if name in order else len(order), name)


def _cell(
    run: Run, dimension: str, level: str, metric: str, rows: list[tuple[float, Unit]], unit_metric: UnitMetric | None
) -> Cell:
    """One level's estimate of a unit metric, or (`unit_metric` None) of an outcome share."""
    values, clusters = [v for v, _ in rows], [u.cluster for _, u in rows]
    groups = [u.group for _, u in rows] if unit_metric is not None and unit_metric.grouped else None
    estimate = level_estimate(values, clusters, groups, unit_metric)
    return Cell(run, dimension, level, metric, estimate, len(set(clusters)))


def _missing_notes(runs: list[Run], spec: BreakdownSpec) -> list[str]:
    """Runs without units in a dimension other runs have: their subsets do not cover it, or the log predates the
    breakdown facts (then only the camera, box area and outcomes can be recovered)."""
    have = {run.label: {d for u in run.units.values() for d in u.levels} for run in runs}
    anywhere = set().union(*have.values()) if have else set()
    notes = []
    for run in runs:
        missing = [d for d in spec.dimensions if d in anywhere and d not in have[run.label]]
        if missing:
            notes.append(
                f"{run.label}: no units with {', '.join(f'`{d}`' for d in missing)} (its subsets do not cover them, "
                "or its log was written before these facts were stored); skipped for this run."
            )
    return notes


def _compare_levels(breakdown: Breakdown, a: Run, b: Run, spec: BreakdownSpec) -> None:
    for dimension in spec.dimensions:
        levels = {u.levels[dimension] for u in a.units.values() if dimension in u.levels}
        for level in ordered_levels(spec, dimension, levels):
            for name in spec.paired:
                metric = a.benchmark.unit_metric(name)
                assert metric is not None, name
                comparison = _compare_level(a, b, dimension, level, metric)
                if comparison is None:
                    breakdown.too_small += 1
                else:
                    breakdown.comparisons.append(comparison)


def _compare_level(a: Run, b: Run, dimension: str, level: str, metric: UnitMetric) -> LevelComparison | None:
    def at_level(unit: Unit) -> bool:
        return unit.levels.get(dimension) == level

    values_a, values_b, clusters, groups, _ = paired_units(a, b, metric, at_level)
    if len(values_a) < MIN_UNITS or len(set(clusters)) < MIN_CLUSTERS:
        return None
    if not all(0.0 <= value <= 1.0 for value in values_a + values_b):  # an out-of-scale judge rating: no test holds
        return None
    chosen = groups if metric.grouped else None
    result = paired_difference(values_a, values_b, clusters, chosen)
    mean_a, mean_b = level_mean(values_a, clusters, chosen), level_mean(values_b, clusters, chosen)
    return LevelComparison(a, b, dimension, level, metric.name, mean_a, mean_b, result)


def csv_rows(breakdown: Breakdown) -> list[dict[str, Any]]:
    """One row per cell: fractions, not percentages; `reliable` is False below the unit or cluster threshold."""
    order = {d: i for i, d in enumerate(breakdown.dimensions())}
    level_rank = {(d, level): i for d in order for i, level in enumerate(breakdown.levels(d))}
    cells = sorted(breakdown.cells, key=lambda c: (order[c.dimension], level_rank[(c.dimension, c.level)]))
    return [
        {
            "model": cell.run.label,
            "dimension": cell.dimension,
            "level": cell.level,
            "metric": cell.metric,
            "estimate": cell.estimate.value,
            "ci_low": cell.estimate.low,
            "ci_high": cell.estimate.high,
            "units": cell.estimate.n,
            "clusters": cell.clusters,
            RELIABLE: cell.reliable,
        }
        for cell in cells
    ]


PAIRED_CSV_COLUMNS = ("a", "b", "dimension", "level", "metric", *CSV_TEST_COLUMNS, *CSV_POWER_COLUMNS)
"""The columns of `paired_csv_rows`, named so that a report with one model still writes its header."""


def paired_csv_rows(breakdown: Breakdown) -> list[dict[str, Any]]:
    return [
        {
            "a": c.a.label,
            "b": c.b.label,
            "dimension": c.dimension,
            "level": c.level,
            "metric": c.metric,
            **csv_fields(c.result, c.mean_a, c.mean_b),
        }
        for c in breakdown.comparisons
    ]


def paired_table(breakdown: Breakdown) -> Table:
    header = [
        "A",
        "B",
        "dimension",
        "level",
        "metric",
        "units",
        "clusters",
        "score A",
        "score B",
        "A − B",
        "95% CI",
        "p",
        DETECTABLE,
    ]
    rows = [
        [
            c.a.label,
            c.b.label,
            c.dimension,
            c.level,
            c.metric,
            str(c.result.units),
            str(c.result.clusters),
            percent(c.mean_a),
            percent(c.mean_b),
            percent(c.result.estimate),
            paired_interval(c.result),
            p_text(c.result.p_value, c.result.exact_p),
            percent(c.result.detectable),
        ]
        for c in breakdown.comparisons
    ]
    notes = [
        f"x100, on the units of the level both runs answered, compared only where that is at least {MIN_UNITS} units "
        f"in at least {MIN_CLUSTERS} clusters ({breakdown.too_small} level comparisons fell short and are not shown). "
        "p and CI: the paired test of Paired comparisons and the differences it does not reject (the CI excludes 0 "
        "exactly when p < 0.05); "
        f"{DETECTABLE}: as in Paired comparisons. Not adjusted over levels: with many levels some small p-values "
        "are expected by chance; read them as leads, not findings.",
        *paired_reasons([c.result for c in breakdown.comparisons]),
        *judge_interval_note(
            [(c.a.benchmark.unit_metric(c.metric), c.result) for c in breakdown.comparisons],
            breakdown.benchmark.cluster_key,
        ),
    ]
    return Table("Paired differences by level", header, rows, notes)


def levels_table(breakdown: Breakdown) -> Table:
    """Per dimension: its levels with their units and clusters (in the first run that has the dimension)."""
    rows = []
    spec = _spec(breakdown.benchmark)
    for dimension in breakdown.dimensions():
        cells = [c for c in breakdown.cells if c.dimension == dimension]
        if dimension in spec.outcome_dimensions:
            rows.append([dimension, "(per run: see the plot)", "; ".join(breakdown.levels(dimension)), SHARE])
            continue
        first, metric = cells[0].run, cells[0].metric
        shown = {c.level: c for c in cells if c.run is first and c.metric == metric}
        levels = [
            f"{level} ({shown[level].estimate.n}/{shown[level].clusters}{'' if shown[level].reliable else ' ⚠'})"
            for level in breakdown.levels(dimension)
            if level in shown
        ]
        rows.append([dimension, first.label, "; ".join(levels), ", ".join(breakdown.metrics(dimension))])
    header = ["dimension", "counted in", "levels (units/clusters)", "metrics"]
    return Table("Breakdown dimensions", header, rows, reading_notes(breakdown))


def reading_notes(breakdown: Breakdown) -> list[str]:
    """How to read the plots and the CSV."""
    files = f"`{breakdown.benchmark.key}-breakdown.csv`"
    return [
        f"⚠ fewer than {MIN_UNITS} units or {MIN_CLUSTERS} clusters at that level: shown, but unreliable.",
        f"Each plot is one dimension; each panel one metric; rows are levels, one marker per run with its 95% "
        f"interval (clustered, as in the main tables). Hollow markers: fewer than {MIN_UNITS} units or "
        f"{MIN_CLUSTERS} clusters at that level (unreliable, shown anyway; {files} marks them `reliable=False`).",
        "Outcome plots show the share of units with each outcome (all units, then within each subset).",
        *breakdown.notes,
    ]
