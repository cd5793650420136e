"""`drive-evals report`: read a log directory, compare every model on each benchmark, write the report files."""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from drive_evals.benchmark import Benchmark
from drive_evals.errors import DriveEvalsError
from drive_evals.report.breakdown import (
    CSV_COLUMNS,
    PAIRED_CSV_COLUMNS,
    Breakdown,
    build_breakdown,
    levels_table,
    paired_csv_rows,
    paired_table,
)
from drive_evals.report.breakdown import csv_rows as breakdown_csv_rows
from drive_evals.report.breakdown_plot import breakdown_plot
from drive_evals.report.compare import BenchmarkView, build_view
from drive_evals.report.glance import HOW_TO_READ, demo_warning, glance_table
from drive_evals.report.parallel import PlotJob, draw_all
from drive_evals.report.plots import score_plot
from drive_evals.report.render import Plot, Section, html_page, markdown, write_csv
from drive_evals.report.runs import Run, load_runs
from drive_evals.report.tables import (
    COMPARISON_CSV_COLUMNS,
    comparison_csv_rows,
    comparisons_table,
    runs_table,
    score_csv_rows,
    score_table,
    transcripts_table,
)

TITLE = "drive_evals model comparison"
GLANCE_TITLE = "At a glance"
IMAGE_DIR = "images"
MARKDOWN_NAME = "report.md"
HTML_NAME = "report.html"
ALL_METRICS_NAME = "all-metrics.csv"


class NoRunsError(DriveEvalsError, ValueError):
    """The log directory holds no finished run of a benchmark this report knows."""


@dataclass(frozen=True)
class ReportFiles:
    markdown: Path
    html: Path
    csv: list[Path]
    images: list[Path]


def write_report(log_dir: str | Path, out_dir: str | Path, benchmarks: Sequence[Benchmark]) -> ReportFiles:
    """Write report.md, report.html (self-contained), per-benchmark CSVs and PNG plots of the runs of `benchmarks`
    (`drive_evals._registry.BENCHMARKS`, in their order) into `out_dir`."""
    shown_dir = str(log_dir)
    if not Path(log_dir).is_dir():
        raise NoRunsError(f"{shown_dir} is not a directory")
    runs, notes = load_runs(log_dir, benchmarks)
    if not runs:
        titles = ", ".join(benchmark.title for benchmark in benchmarks)
        raise NoRunsError(f"no finished logs of {titles} under {shown_dir}" + "".join(f"\n{n}" for n in notes))
    out = Path(out_dir)
    (out / IMAGE_DIR).mkdir(parents=True, exist_ok=True)
    by_benchmark: dict[str, list[Run]] = defaultdict(list)
    for run in runs:
        by_benchmark[run.benchmark.key].append(run)
    views = [build_view(b, by_benchmark[b.key]) for b in benchmarks if by_benchmark[b.key]]
    breakdowns = {view.benchmark.key: build_breakdown(view) for view in views}
    every_demo = demo_warning(runs) if all(run.demo for run in runs) else None
    glance = [glance_table(view, demo_said=every_demo is not None) for view in views]
    plots = _plots(views, breakdowns)
    sections = [Section(GLANCE_TITLE, glance, [], folds=False)]
    for view in views:
        key = view.benchmark.key
        sections.append(_section(view, shown_dir, plots[key]))
        sections.append(_breakdown_section(breakdowns[key], plots[key, BREAKDOWN]))
    preamble = [
        f"Logs: `{shown_dir}` ({len(runs)} runs). Numbers x100. "
        f"Regenerate with `drive-evals report {shown_dir} --out {out_dir}`.",
        *notes,
        *([every_demo] if every_demo else []),
        HOW_TO_READ,
    ]
    csv_files = []
    for view in views:
        key = view.benchmark.key
        csv_files.append(out / f"{key}-scores.csv")
        write_csv(csv_files[-1], score_csv_rows(view))
        csv_files.append(out / f"{key}-paired.csv")
        paired = comparison_csv_rows(view.comparisons, "models") + comparison_csv_rows(view.blind_gaps, "blind")
        write_csv(csv_files[-1], paired, COMPARISON_CSV_COLUMNS)
        csv_files.append(out / f"{key}-breakdown.csv")
        write_csv(csv_files[-1], breakdown_csv_rows(breakdowns[key]), CSV_COLUMNS)
        csv_files.append(out / f"{key}-breakdown-paired.csv")
        write_csv(csv_files[-1], paired_csv_rows(breakdowns[key]), PAIRED_CSV_COLUMNS)
    csv_files.append(out / ALL_METRICS_NAME)
    write_csv(csv_files[-1], _all_metrics(views))
    images = []
    for section in sections:
        for plot in section.plots:
            images.append(out / IMAGE_DIR / plot.file_name)
            images[-1].write_bytes(plot.png)
    markdown_path, html_path = out / MARKDOWN_NAME, out / HTML_NAME
    markdown_path.write_text(markdown(TITLE, preamble, sections, IMAGE_DIR), encoding="utf-8")
    html_path.write_text(html_page(TITLE, preamble, sections), encoding="utf-8")
    return ReportFiles(markdown_path, html_path, csv_files, images)


def _section(view: BenchmarkView, log_dir: str, figures: list[Plot]) -> Section:
    benchmark = view.benchmark
    tables = [score_table(view, spec, with_units=index == 0) for index, spec in enumerate(benchmark.tables)]
    tables.append(runs_table(view, log_dir))
    tables.append(comparisons_table("Paired comparisons", view.comparisons))
    tables[-1].csv = f"{benchmark.key}-paired.csv"
    if view.blind_gaps:
        tables.append(comparisons_table("Blind controls (with images − without)", view.blind_gaps, blind=True))
    tables.append(transcripts_table(view, log_dir))
    return Section(benchmark.title, tables, figures)


def _slug(title: str) -> str:
    """A title as a file name a Markdown link keeps (no parentheses, spaces or punctuation)."""
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")


BREAKDOWN = "breakdown"
"""Key of a benchmark's breakdown plots in `_plots`, beside its score plots (keyed by the benchmark alone)."""


def _plots(views: list[BenchmarkView], breakdowns: dict[str, Breakdown]) -> dict[Any, list[Plot]]:
    """Every plot of the report, drawn at once (in parallel: report.parallel): per benchmark key, its score plots;
    per (key, BREAKDOWN), one plot per breakdown dimension."""
    named: list[tuple[Any, str, str]] = []  # (where, title, file name), beside each job
    jobs: list[PlotJob] = []
    for view in views:
        benchmark, breakdown = view.benchmark, breakdowns[view.benchmark.key]
        for spec in benchmark.tables:
            if spec.title in benchmark.plots:
                file_name = f"{benchmark.key}-{_slug(spec.title)}.png"
                named.append((benchmark.key, f"{benchmark.title}: {spec.title}", file_name))
                jobs.append(partial(score_plot, view, spec))
        for dimension in breakdown.dimensions():
            file_name = f"{benchmark.key}-breakdown-{_slug(dimension)}.png"
            named.append(((benchmark.key, BREAKDOWN), f"{benchmark.title}: {dimension}", file_name))
            jobs.append(partial(breakdown_plot, view, breakdown, dimension))
    plots: dict[Any, list[Plot]] = defaultdict(list)
    for view in views:
        plots[view.benchmark.key], plots[view.benchmark.key, BREAKDOWN] = [], []
    for (where, title, file_name), png in zip(named, draw_all(jobs), strict=True):
        if png is not None:
            plots[where].append(Plot(title, file_name, png))
    return plots


def _breakdown_section(breakdown: Breakdown, figures: list[Plot]) -> Section:
    """Where the models fail: a levels table with how to read it, per-level paired differences, one plot per
    dimension."""
    benchmark = breakdown.benchmark
    tables = [levels_table(breakdown), paired_table(breakdown)]
    tables[-1].csv = f"{benchmark.key}-breakdown-paired.csv"
    return Section(f"{benchmark.title}: where models fail", tables, figures)


def _all_metrics(views: list[BenchmarkView]) -> list[dict[str, Any]]:
    """Every metric of every run, known or not (diagnostics such as `xy2d_conv_*`, other scorers)."""
    rows: list[dict[str, Any]] = []
    for view in views:
        for run in view.runs:
            for scorer, metric, value in run.all_metrics:
                rows.append(
                    {
                        "benchmark": view.benchmark.key,
                        "model": run.label,
                        "log": run.log_name,
                        "scorer": scorer,
                        "metric": metric,
                        "value": "" if math.isnan(value) else value,
                    }
                )
    return rows
