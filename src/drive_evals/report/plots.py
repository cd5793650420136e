"""Static plots (PNG bytes): each table's estimates with their 95% intervals, one marker per run, papers' numbers.

Drawn on a bare `Figure` with the Agg canvas, never through pyplot, so no display or global backend state is needed
and plotting is safe inside any process.
"""

from __future__ import annotations

import io
import math

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from drive_evals.report.benchmarks import TableSpec
from drive_evals.report.compare import BenchmarkView
from drive_evals.report.tables import SCALE, estimate, label

DPI = 110
WIDTH_INCHES = 8.0
ROW_INCHES = 0.22
"""Height per lane (a run, or the papers) and metric: keeps markers apart however many runs there are."""
REFERENCE_MARKERS = ("*", "P", "X", "D", "v", "^", "<", ">")
REFERENCE_COLOUR = "0.35"
REFERENCE_PREFIX = "paper: "
"""The papers' numbers share the last lane of each row, told apart by marker shape."""
AXIS_MARGIN = 2.0
"""Room beyond 0 and 100 so that markers at the ends are drawn whole."""
BAND = 0.8
"""Share of a metric's row taken by its markers."""


def score_plot(view: BenchmarkView, spec: TableSpec) -> bytes | None:
    """One row per metric of the table, runs side by side with their interval bars; None when there is nothing."""
    columns = [c for c in spec.columns if c.kind == "estimate"]
    references = [r for r in view.benchmark.references if any(c.metric in r.values for c in columns)]
    series = len(view.runs) + (1 if references else 0)
    if not columns or not view.runs:
        return None
    figure = Figure(figsize=(WIDTH_INCHES, 1.2 + ROW_INCHES * series * len(columns)), dpi=DPI)
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    step = BAND / max(series, 1)
    for index, run in enumerate(view.runs):
        for row, column in enumerate(columns):
            value = estimate(run, column.metric)
            if math.isnan(value.value):
                continue
            y = row - BAND / 2 + step * (index + 0.5)
            error = None
            if not math.isnan(value.stderr):
                error = [[(value.value - value.low) * SCALE], [(value.high - value.value) * SCALE]]
            axes.errorbar(
                value.value * SCALE, y, xerr=error, fmt="o", color=f"C{index % 10}", capsize=3, markersize=5,
                label=label(view, run) if row == 0 else None,
            )  # fmt: skip
    for offset, reference in enumerate(references):
        marker = REFERENCE_MARKERS[offset % len(REFERENCE_MARKERS)]
        for row, column in enumerate(columns):
            if column.metric in reference.values:
                y = row - BAND / 2 + step * (len(view.runs) + 0.5)
                axes.plot(reference.values[column.metric] * SCALE, y, marker, color=REFERENCE_COLOUR, markersize=7)
        axes.plot([], [], marker, color=REFERENCE_COLOUR, label=f"{REFERENCE_PREFIX}{reference.model}")
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
