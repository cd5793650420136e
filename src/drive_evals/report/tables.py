"""The report's tables, as plain rows of strings (for Markdown and HTML) and of numbers (for CSV).

Estimates are the logs' own metric values, with the clustered standard error the log holds (`<metric>_stderr`;
where it has none, the twelve DriveLMM-o1 criteria, the same estimator on the per-unit values, marked). Intervals
are Korn-Graubard intervals on the per-unit values (CR2 variance, t on Bell-McCaffrey df), for a metric's scores
between 0 and 1 Waudby-Smith and Ramdas's betting intervals (`stats.intervals.mean_interval`); they stay in [0, 1].
Paired rows invert a cluster sign-flip test combined with a bounded score test. Where each reaches its nominal
coverage, and the shapes where it does not: docs/statistics.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from drive_evals.benchmark import Column, TableSpec
from drive_evals.precision import informative
from drive_evals.report.compare import BenchmarkView, Comparison
from drive_evals.report.judge_note import judge_interval_note
from drive_evals.report.runs import NO_CREDITS, Run, missing_count, rebuilt_units, unit_credits, unit_value
from drive_evals.stats.clustered import clustered_stderr, equal_group_mean
from drive_evals.stats.intervals import CONFIDENCE, MIN_SCORE_CLUSTERS, credit_interval, mean_interval
from drive_evals.stats.paired import (
    CREDIT_INTERVAL_CLUSTERS,
    CSV_POWER_COLUMNS,
    CSV_TEST_COLUMNS,
    PairedDifference,
    csv_fields,
)

SCALE = 100
"""Tables print fractions as percentages, the papers' convention."""
MISSING = "—"
FROM_SAMPLES = "†"
FLAG = "⚠"
DEMO_MARK = " · demo data"
"""After the label of a run on the demo data, in the tables that put runs beside the papers' rows."""
OTHER_DATA_MARK = " · not the official data"
"""After the label of a run on a copy whose counts differ from the official set's (`Run.not_official`), there too."""
FEW_CLUSTERS = 20
"""Below this many clusters the scores table says why its intervals are wide and differ between equal scores."""
NO_INTERVAL = "no CI"
DETECTABLE = "detectable (80%)"
ALWAYS_SHOWN = ("data", "judge")
"""Settings every Runs table shows, even when all runs agree."""


@dataclass(frozen=True)
class Estimate:
    value: float
    stderr: float
    n: int
    from_samples: bool
    """The standard error was computed from per-unit values because the log has none for this metric."""
    interval: tuple[float, float] | None = None
    """The 95% interval, None where too few clusters give none."""
    no_interval: str = ""
    """Why there is no interval, where the reason is not too few clusters."""

    @property
    def low(self) -> float:
        return math.nan if self.interval is None else self.interval[0]

    @property
    def high(self) -> float:
        return math.nan if self.interval is None else self.interval[1]


@dataclass
class Table:
    title: str
    header: list[str]
    rows: list[list[str]]
    notes: list[str] = field(default_factory=list)
    csv: str = ""
    """The CSV file holding every row, for a table too long to show whole."""
    lead: str = ""
    """A sentence printed above the table: what it says in one line."""


def estimate(run: Run, metric: str) -> Estimate:
    """The log's value and clustered standard error of `metric`, with the number of units behind it. A metric that is
    not a mean over units (VLADBench's official ratios of sums) is the logged value alone, with no interval."""
    unit_metric = run.benchmark.unit_metric(metric)
    if run.stopped:
        return _stopped_estimate(run, metric)
    if run.benchmark.credit_metric(metric) is not None:
        return _credit_estimate(run, metric)
    if unit_metric is None:
        return Estimate(run.metrics.get(metric, math.nan), math.nan, len(run.units), from_samples=False)
    rows = [(v, u.cluster, u.group) for u in run.units.values() if (v := unit_value(u, unit_metric)) is not None]
    values, clusters, groups = [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows]
    if unit_metric.grouped:
        grouped = equal_group_mean(values, groups, clusters)
        mean, stderr = grouped.overall, grouped.overall_stderr
    else:
        mean = sum(values) / len(values) if values else math.nan
        stderr = clustered_stderr(values, clusters) if values else math.nan
    logged = run.metrics.get(f"{metric}_stderr")
    value = run.metrics.get(metric, mean)
    labels = groups if unit_metric.grouped else [""] * len(values)
    interval = mean_interval(value, values, labels, clusters, unit_metric.continuous)
    # The task logs no SE where this interval says nothing (drive_evals.precision): none is missing there.
    from_samples = logged is None and unit_metric.stderr_logged and informative(interval)
    return Estimate(value, stderr if logged is None else logged, len(values), from_samples, interval)


def _credit_estimate(run: Run, metric: str) -> Estimate:
    """A ratio of sums written as the mean of per-unit credits: the betting interval with the credits' bounds."""
    value = run.metrics.get(metric, math.nan)
    credits = unit_credits(run, metric)
    if credits is None:
        return Estimate(value, math.nan, len(run.units), False, no_interval=NO_CREDITS)
    clusters = [run.units[sample_id].cluster for sample_id in credits]
    values, uppers = [c[0] for c in credits.values()], [c[1] for c in credits.values()]
    return Estimate(value, math.nan, len(values), False, credit_interval(values, uppers, clusters))


def _stopped_estimate(run: Run, metric: str) -> Estimate:
    """A run a stop rule ended: its headline is the rule's last interval, valid at every look; no other interval
    holds for numbers whose sample size the rule chose (shown without one)."""
    final = (run.stopping or {}).get("final") or {}
    if metric == run.benchmark.headline and final and run.stopping and run.stopping.get("reference_headline") is None:
        return Estimate(float(final["estimate"]), math.nan, len(run.units), False, (final["low"], final["high"]))
    return Estimate(run.metrics.get(metric, math.nan), math.nan, len(run.units), from_samples=False)


def percent(value: float | None, digits: int = 1) -> str:
    return MISSING if value is None or math.isnan(value) else f"{value * SCALE:.{digits}f}"


def show_estimate(value: Estimate) -> str:
    if math.isnan(value.value):
        return MISSING
    mark = FROM_SAMPLES if value.from_samples else ""
    if value.no_interval:  # said in a note under the table
        return percent(value.value)
    if value.interval is None:
        return f"{percent(value.value)} ({NO_INTERVAL}){mark}"
    return f"{percent(value.value)} [{percent(value.low)}, {percent(value.high)}]{mark}"


def other_data_notes(view: BenchmarkView) -> list[str]:
    """One note per run on data that is not the official set: which counts differ."""
    return [
        f"{label(view, run)}{OTHER_DATA_MARK}: its data differs from the official set ({'; '.join(differs)}); "
        "its scores are not comparable with the papers' rows."
        for run in view.runs
        if (differs := run.not_official)
    ]


def label(view: BenchmarkView, run: Run) -> str:
    return f"{run.label} {FLAG}" if run.label in view.flags else run.label


def score_table(view: BenchmarkView, spec: TableSpec, with_units: bool) -> Table:
    """Models x the spec's columns, the papers' rows (where they report these metrics) at the bottom."""
    counts = ["units", "missing"] if with_units else []
    header = ["model", *(c.label for c in spec.columns), *counts]
    rows = [
        [
            label(view, run) + (DEMO_MARK if run.demo else "") + (OTHER_DATA_MARK if run.not_official else ""),
            *(_cell(run, c) for c in spec.columns),
            *([str(len(run.units)), str(missing_count(run))] if with_units else []),
        ]
        for run in view.runs
    ]
    benchmark = view.benchmark
    metrics = {c.metric for c in spec.columns}
    for reference in benchmark.references:
        if metrics & set(reference.values):
            cells = [
                percent(reference.values.get(c.metric), 2) if c.metric in reference.values else "" for c in spec.columns
            ]
            rows.append([f"paper: {reference.model}", *cells, *([""] * len(counts))])
    notes = []
    credited = [c.metric for c in spec.columns if c.kind == "estimate" and benchmark.credit_metric(c.metric)]
    if any(c.kind == "estimate" and c.metric not in credited for c in spec.columns):
        notes.append(
            f"x100. Estimate [95% CI]: Korn-Graubard interval (Clopper-Pearson on the effective sample size, CR2 "
            f"variance clustered by {benchmark.cluster_key}, t on Bell-McCaffrey degrees of freedom; stays in "
            "[0, 100] and has a width at 0 and 100); for a metric's scores between 0 and 100 (not a mean over "
            f"subsets), Waudby-Smith and Ramdas's betting interval over {benchmark.cluster_key}s, which holds "
            "whatever the scores' distribution; either is never narrower than Clopper-Pearson's on the units "
            "taken as independent. Coverage measured in docs/statistics.md."
        )
    notes.extend(_credit_notes(view, credited))
    notes.extend(_few_clusters_note(view, spec))
    if any(run.demo for run in view.runs):
        notes.append(
            f"{DEMO_MARK.strip(' ·')}: the synthetic demo data shipped with the package (`-T data=demo`), a few "
            "dozen units made to exercise the pipeline; these scores say nothing about a model and are not "
            "comparable with the papers' rows."
        )
    notes.extend(other_data_notes(view))
    if any(FROM_SAMPLES in cell for row in rows for cell in row):
        notes.append(f"{FROM_SAMPLES} standard error computed here from per-unit values (the log has none).")
    if any(metrics & set(r.values) for r in benchmark.references):
        notes.append(f"paper rows: {benchmark.reference_source}; reported numbers, not rerun here.")
    if view.flags:
        notes.append(f"{FLAG} not comparable with the other runs: see Runs.")
    if with_units and any(missing_count(run) for run in view.runs):
        counted = ", ".join(f"`{key}` {value:g}" for key, value in view.benchmark.missing_values.items())
        notes.append(
            "missing: planned units whose sample errored (no reply); they are in `units` and count as the official "
            f"scorer counts a missing reply ({counted}). `inspect eval-retry` runs them."
        )
    rebuilt = [f"{label(view, run)} {rebuilt_units(run)}" for run in view.runs if rebuilt_units(run)]
    if with_units and rebuilt:
        notes.append(
            "rebuilt: units whose reply was rebuilt from Inspect's parts, not read as the provider returned it: "
            f"{', '.join(rebuilt)}. No raw response was kept (a cache hit on an entry stored without its raw text, "
            "or a provider whose response drive_evals does not read), and a rebuilt reply can score differently "
            "from the official scorer; each sample's score metadata (`reply_rebuilt`) says why. A cache hit is "
            "read raw again when re-run without `--cache`."
        )
    if any(f"({NO_INTERVAL})" in cell for row in rows for cell in row):
        notes.append(
            f"{NO_INTERVAL}: fewer than {MIN_SCORE_CLUSTERS} distinct {benchmark.cluster_key}s; "
            "an interval that holds its coverage there reaches from 0 to 100 (docs/statistics.md)."
        )
    return Table(spec.title, header, rows, notes)


def _credit_notes(view: BenchmarkView, metrics: list[str]) -> list[str]:
    """How a credit metric's interval is made, and the runs that have none for another reason than few clusters."""
    if not metrics:
        return []
    cluster = view.benchmark.cluster_key
    names = ", ".join(f"`{metric}`" for metric in metrics)
    notes = [
        f"x100. {names} [95% CI]: the logged official value, a ratio of sums, which is the mean of each unit's "
        "credit (its part of the sum, whose largest value the data fixes); the interval is Waudby-Smith and "
        f"Ramdas's betting interval over {cluster}s with those bounds, which holds whatever the credits' "
        "distribution. Coverage measured in docs/statistics.md."
    ]
    lacking = [
        label(view, run)
        for run in view.runs
        for m in metrics
        if not run.stopped and not math.isnan(run.metrics.get(m, math.nan)) and unit_credits(run, m) is None
    ]
    if lacking:
        notes.append(f"No interval for {', '.join(dict.fromkeys(lacking))}: {NO_CREDITS}.")
    return notes


def _few_clusters_note(view: BenchmarkView, spec: TableSpec) -> list[str]:
    """Why intervals from few clusters are wide, and why equal scores can get very different ones."""
    benchmark = view.benchmark
    metrics = [m for c in spec.columns if c.kind == "estimate" and (m := benchmark.unit_metric(c.metric))]
    counts = [
        len({unit.cluster for unit in run.units.values() if unit_value(unit, metric) is not None})
        for run in view.runs
        for metric in metrics
    ]
    counts = [count for count in counts if count]
    if not counts or min(counts) >= FEW_CLUSTERS:
        return []
    cluster = benchmark.cluster_key
    shown = f"{min(counts)}" if min(counts) == max(counts) else f"{min(counts)}-{max(counts)}"
    bounded = [metric.name for metric in metrics if metric.continuous]
    which = "every column here" if len(bounded) == len(metrics) else ", ".join(bounded)
    scores = (
        f" The scores between 0 and 100 ({which}) get the betting interval, which must also allow for "
        f"poor or perfect {cluster}s the run did not show: from a few {cluster}s it can reach from 0 to 100."
        if bounded
        else ""
    )
    return [
        f"Intervals here come from {shown} {cluster}s; from fewer than {FEW_CLUSTERS} they are wide, and equal "
        f"scores can get very different ones: the spread between {cluster}s is measured from those few, so a run "
        f"whose {cluster}s scored alike gets a narrow interval and one whose {cluster}s differed a wide one.{scores} "
        f"They narrow as {cluster}s are added (docs/statistics.md)."
    ]


def _cell(run: Run, column: Column) -> str:
    if column.kind == "estimate":
        return show_estimate(estimate(run, column.metric))
    value = run.metrics.get(column.metric, math.nan)
    if column.kind == "count":
        return MISSING if math.isnan(value) else str(round(value))
    return percent(value)


def runs_table(view: BenchmarkView, log_dir: str) -> Table:
    """Per run: log file, data, judge, the settings that differ between runs, and comparability."""
    shown = [name for name in ALWAYS_SHOWN if any(name in run.settings() for run in view.runs)]
    differing = [name for name in view.differing if name not in shown]
    header = ["model", "log", *shown, *differing, "comparable", "notes"]
    rows = []
    for run in view.runs:
        settings = run.settings()
        comparable = f"{FLAG} no: {view.flags[run.label]}" if run.label in view.flags else "yes"
        rows.append(
            [
                run.label,
                relative_log(run, log_dir),
                *(settings.get(name, MISSING) for name in [*shown, *differing]),
                comparable,
                "; ".join(run.notes),
            ]
        )
    common = ", ".join(f"{name}={value}" for name, value in view.common.items() if name not in shown)
    notes = [f"Settings shared by every run: {common or 'none'}."]
    notes.extend(view.notes)
    return Table("Runs", header, rows, notes)


def comparisons_table(title: str, comparisons: list[Comparison], blind: bool = False) -> Table:
    """Differences A - B on common units: the combined test's p-value and the interval inverting it."""
    names = ("with images", "blind", "gap") if blind else ("score A", "score B", "A − B")
    header = ["A", "B", "metric", "units", "clusters", *names, "95% CI", "p", "p (Holm)", DETECTABLE]
    rows = [
        [
            c.a.label,
            c.b.label,
            c.metric,
            str(c.result.units),
            str(c.result.clusters),
            percent(c.mean_a),
            percent(c.mean_b),
            percent(c.result.estimate),
            paired_interval(c.result),
            p_text(c.result.p_value, c.result.exact_p),
            p_text(c.p_holm, c.result.exact_p),
            percent(c.result.detectable),
        ]
        for c in comparisons
    ]
    notes = [
        "x100, on the units both runs answered (matched by sample id). p: two-sided, the larger of a studentized "
        "sign-flip test flipping whole clusters (exact when every pattern is enumerated, else Monte Carlo, marked ~) "
        "and a clustered score test that knows scores lie in [0, 100]; CI: the differences the score test does not "
        "reject, reaching 0 whenever p ≥ 0.05, so it excludes 0 exactly when p < 0.05; Holm: adjusted over the pairs "
        f"of each metric. {DETECTABLE}: the difference the test finds with 80% power at these clusters (normal-theory "
        "formula on the score test's SE at no difference, checked by simulation in docs/statistics.md; — below 9 "
        "clusters, where the test is coarser than the formula); with p ≥ 0.05, read: no difference larger than that "
        "was likely to be missed. Fixed seed.",
        *paired_reasons([c.result for c in comparisons]),
        *_credit_paired_note(comparisons),
        *judge_interval_note(
            [(c.a.benchmark.unit_metric(c.metric), c.result) for c in comparisons],
            comparisons[0].a.benchmark.cluster_key if comparisons else "",
        ),
    ]
    return Table(title, header, rows, notes)


def _credit_paired_note(comparisons: list[Comparison]) -> list[str]:
    """How a credit metric is compared (`Benchmark.credit_metrics`)."""
    metrics = list(dict.fromkeys(c.metric for c in comparisons if c.a.benchmark.credit_metric(c.metric)))
    if not metrics:
        return []
    names = ", ".join(f"`{metric}`" for metric in metrics)
    return [
        f"{names}: compared on the per-unit credits divided by their largest bound (so in [0, 1]), the difference "
        f"scaled back; its interval only from {CREDIT_INTERVAL_CLUSTERS} clusters, where it covers "
        "(docs/statistics.md)."
    ]


def paired_interval(result: PairedDifference) -> str:
    if result.no_interval:
        return f"{NO_INTERVAL}*"
    return f"[{percent(result.ci_low)}, {percent(result.ci_high)}]"


def paired_reasons(results: list[PairedDifference]) -> list[str]:
    """Why some rows have no interval, once per reason."""
    reasons = list(dict.fromkeys(r.no_interval for r in results if r.no_interval))
    return [f"*{NO_INTERVAL}: {'; '.join(reasons)} (an interval there would not hold its coverage)."] if reasons else []


def p_text(value: float, exact: bool) -> str:
    """A p-value to 3 decimals (4 next to 0.05), marked ~ when it is a Monte Carlo estimate."""
    if math.isnan(value):
        return MISSING
    mark = "" if exact else "~"
    if value < 0.001:
        return f"{mark}<0.001"
    # Next to 0.05 three decimals could print 0.050 beside an interval that excludes 0: show the fourth.
    near_alpha = abs(round(value, 3) - (1 - CONFIDENCE)) < 1e-9
    return f"{mark}{value:.4f}" if near_alpha else f"{mark}{value:.3f}"


def transcripts_table(view: BenchmarkView, log_dir: str) -> Table:
    rows = [[run.label, f"inspect view --log-dir {log_dir}", relative_log(run, log_dir)] for run in view.runs]
    return Table("Transcripts", ["model", "command", "then open"], rows)


def relative_log(run: Run, log_dir: str) -> str:
    """The log's path inside the log directory, as `inspect view` lists it."""
    location = urlparse(run.log_path)
    path = Path(unquote(location.path)) if location.scheme == "file" else Path(run.log_path)
    root = Path(log_dir).resolve()
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else run.log_name


def score_csv_rows(view: BenchmarkView) -> list[dict[str, Any]]:
    """One row per run and per paper reference; fractions, not percentages; every estimate with its interval."""
    benchmark = view.benchmark
    columns = [c for spec in benchmark.tables for c in spec.columns]
    rows: list[dict[str, Any]] = []
    for run in view.runs:
        row: dict[str, Any] = {"model": run.label, "source": "log", "log": run.log_name, "units": len(run.units)}
        row["missing"] = missing_count(run)
        row["rebuilt"] = rebuilt_units(run)
        for column in columns:
            if column.kind == "estimate":
                value = estimate(run, column.metric)
                row.update(
                    {
                        column.metric: value.value,
                        f"{column.metric}_stderr": value.stderr,
                        f"{column.metric}_ci_low": value.low,
                        f"{column.metric}_ci_high": value.high,
                        f"{column.metric}_n": value.n,
                        f"{column.metric}_stderr_from_samples": value.from_samples,
                    }
                )
            else:
                row[column.metric] = run.metrics.get(column.metric, math.nan)
        row["comparable"] = run.label not in view.flags
        row["not_comparable_because"] = view.flags.get(run.label, "")
        row.update(run.settings())
        rows.append(row)
    for reference in benchmark.references:
        rows.append({"model": reference.model, "source": benchmark.reference_source, **reference.values})
    return rows


COMPARISON_CSV_COLUMNS = ("kind", "a", "b", "metric", *CSV_TEST_COLUMNS, "p_holm", *CSV_POWER_COLUMNS)
"""The columns of `comparison_csv_rows`, named so that a report with no pair still writes its header."""


def comparison_csv_rows(comparisons: list[Comparison], kind: str) -> list[dict[str, Any]]:
    return [
        {
            "kind": kind,
            "a": c.a.label,
            "b": c.b.label,
            "metric": c.metric,
            **csv_fields(c.result, c.mean_a, c.mean_b),
            "p_holm": c.p_holm,
        }
        for c in comparisons
    ]
