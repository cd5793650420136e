"""Static plots (PNG bytes): each table's estimates with their 95% intervals, one marker per run, papers' numbers.

Drawn on a bare `Figure` with the Agg canvas, never through pyplot, so no display or global backend state is needed
and plotting is safe inside any process.
"""

from __future__ import annotations

import io
import math
from typing import Any

from matplotlib import colormaps
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from drive_evals.benchmark import TableSpec
from drive_evals.report.compare import BenchmarkView
from drive_evals.report.tables import SCALE, estimate, label

DPI = 110
WIDTH_INCHES = 8.0
ROW_INCHES = 0.22
"""Height per run lane and metric: keeps markers apart however many runs there are."""
REFERENCE_ROW_INCHES = 0.12
"""Height per paper lane: each paper has a lane of its own below the runs, so close numbers never overlap."""
REFERENCE_MARKERS = ("*", "P", "X", "D", "v", "^", "<", ">")
REFERENCE_PALETTE = "Dark2"
"""Papers differ from each other by colour and shape, and from runs (circles with interval bars) by shape."""
REFERENCE_PREFIX = "paper: "
AXIS_MARGIN = 2.0
"""Room beyond 0 and 100 so that markers at the ends are drawn whole."""
BAND = 0.8
"""Share of a metric's row taken by its markers."""
MANY_RUNS_PALETTE = "tab20"
"""Matplotlib's default cycle has 10 colours; past 10 runs, 20 (paired light and dark shades), so up to 20 runs
never share a colour."""


def run_colour(index: int, runs: int) -> Any:
    """The colour of the index-th of `runs` runs: the default cycle up to 10, then tab20."""
    if runs <= 10:
        return f"C{index % 10}"
    palette = colormaps[MANY_RUNS_PALETTE]
    return palette(index % palette.N)


def score_plot(view: BenchmarkView, spec: TableSpec) -> bytes | None:
    """One row per metric of the table, runs side by side with their interval bars; None when there is nothing."""
    columns = [c for c in spec.columns if c.kind == "estimate"]
    references = [r for r in view.benchmark.references if any(c.metric in r.values for c in columns)]
    if not columns or not view.runs:
        return None
    lanes = [ROW_INCHES] * len(view.runs) + [REFERENCE_ROW_INCHES] * len(references)
    row_inches = sum(lanes)
    # each lane's centre, as a fraction of a metric's row (rows are 1 apart on the y axis, BAND of it is used)
    centres = [(sum(lanes[:i]) + lane / 2) / row_inches for i, lane in enumerate(lanes)]
    figure = Figure(figsize=(WIDTH_INCHES, 1.2 + row_inches * len(columns)), dpi=DPI)
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    for index, run in enumerate(view.runs):
        for row, column in enumerate(columns):
            value = estimate(run, column.metric)
            if math.isnan(value.value):
                continue
            y = row - BAND / 2 + BAND * centres[index]
            error = None
            if value.interval is not None:
                error = [[(value.value - value.low) * SCALE], [(value.high - value.value) * SCALE]]
            axes.errorbar(
                value.value * SCALE, y, xerr=error, fmt="o", color=run_colour(index, len(view.runs)), capsize=3,
                markersize=5, label=label(view, run) if row == 0 else None,
            )  # fmt: skip
    palette = colormaps[REFERENCE_PALETTE]
    for offset, reference in enumerate(references):
        style: dict[str, Any] = {
            "marker": REFERENCE_MARKERS[offset % len(REFERENCE_MARKERS)],
            "color": palette(offset % palette.N),
            "markersize": 6,
            "linestyle": "none",
        }
        for row, column in enumerate(columns):
            if column.metric in reference.values:
                y = row - BAND / 2 + BAND * centres[len(view.runs) + offset]
                axes.plot(reference.values[column.metric] * SCALE, y, **style)
        axes.plot([], [], label=f"{REFERENCE_PREFIX}{reference.model}", **style)
    axes.set_yticks(range(len(columns)), [c.label for c in columns])
    axes.invert_yaxis()
    axes.set_xlim(-AXIS_MARGIN, SCALE + AXIS_MARGIN)
    axes.set_xlabel("score x100 (bars: 95% CI)")
    axes.set_title(f"{view.benchmark.title}: {spec.title}")
    axes.grid(axis="x", alpha=0.3)
    handles, labels = axes.get_legend_handles_labels()
    order = sorted(range(len(labels)), key=lambda i: labels[i].startswith(REFERENCE_PREFIX))
    axes.legend(
        [handles[i] for i in order], [labels[i] for i in order],
        loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small", frameon=False,
    )  # fmt: skip
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", bbox_inches="tight", metadata={"Software": None})
    return buffer.getvalue()
