"""Small multiples for one breakdown dimension: a panel per metric, a row per level, runs side by side.

Same drawing rules as the main plots (a bare Agg `Figure`, no pyplot). Unreliable levels get hollow markers; blind
runs come right after their normal run (the view's order) and are drawn with squares, so the gap is visible.
"""

from __future__ import annotations

import io
import math
from typing import Any

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from drive_evals.report.breakdown import Breakdown, Cell
from drive_evals.report.compare import BenchmarkView
from drive_evals.report.plots import AXIS_MARGIN, BAND, DPI, ROW_INCHES, run_colour
from drive_evals.report.runs import Run
from drive_evals.report.tables import SCALE, label

PANEL_COLUMNS = 4
PANEL_WIDTH_INCHES = 3.0
PANEL_PAD_INCHES = 0.9
"""Room per panel row for its title and axis labels."""
MIN_PANEL_INCHES = 2.2
"""Room for the legend beside a panel with few levels and runs."""
LABEL_INCHES = 1.9
"""Room on the left for level names."""
LEGEND_INCHES = 2.6
"""The legend's least width: its title's longest line."""
LEGEND_CHAR_INCHES = 0.075
"""Width of one character of a legend label at the "small" font (8.3 pt), with room to spare: the legend is sized
to its longest label, so it is never cut at the figure's right edge."""
LEGEND_MARKER_INCHES = 0.5
TITLE_INCHES = 0.8
AXIS_LABEL_INCHES = 0.5
X_TICKS = (0, 25, 50, 75, 100)
"""Ticks of the score axis (x100)."""
PANEL_GAP = 0.08
"""Space between panels of a row, as a share of a panel's width (they share the level axis)."""


def breakdown_plot(view: BenchmarkView, breakdown: Breakdown, dimension: str) -> bytes | None:
    """PNG of one dimension's cells, or None when it has none."""
    metrics = breakdown.metrics(dimension)
    levels = breakdown.levels(dimension)
    if not metrics or not levels or not view.runs:
        return None
    cells: dict[tuple[str, str, str], Cell] = {
        (c.run.label, c.level, c.metric): c for c in breakdown.cells if c.dimension == dimension
    }
    columns = min(len(metrics), PANEL_COLUMNS)
    rows = math.ceil(len(metrics) / columns)
    panel_height = max(MIN_PANEL_INCHES, PANEL_PAD_INCHES + ROW_INCHES * len(view.runs) * len(levels))
    labels = [label(view, run) for run in view.runs]
    legend = max(LEGEND_INCHES, LEGEND_MARKER_INCHES + LEGEND_CHAR_INCHES * max(map(len, labels)))
    width, height = LABEL_INCHES + PANEL_WIDTH_INCHES * columns + legend, TITLE_INCHES + panel_height * rows
    figure = Figure(figsize=(width, height), dpi=DPI)
    FigureCanvasAgg(figure)
    # A fixed layout: `tight_layout` and `bbox_inches="tight"` each draw the figure again, tripling the time.
    grid = figure.subplots(
        rows, columns, squeeze=False,
        gridspec_kw={
            "left": LABEL_INCHES / width, "right": 1 - legend / width, "top": 1 - TITLE_INCHES / height,
            "bottom": AXIS_LABEL_INCHES / height, "hspace": PANEL_PAD_INCHES / panel_height, "wspace": PANEL_GAP,
        },
    )  # fmt: skip
    step = BAND / len(view.runs)
    outcome = dimension in (view.benchmark.breakdown.outcome_dimensions if view.benchmark.breakdown else ())
    for index, metric in enumerate(metrics):
        axes = grid[index // columns][index % columns]
        for lane, run in enumerate(view.runs):
            found = [(row, cells.get((run.label, level, metric))) for row, level in enumerate(levels)]
            for reliable in (True, False):
                # one errorbar call per run, panel and fill: drawing is most of the report's time
                chosen = [(row, c.estimate) for row, c in found if c is not None and c.reliable == reliable]
                chosen = [(row, e) for row, e in chosen if not math.isnan(e.value)]
                if not chosen:
                    continue
                colour = _colour(view, run)
                # a level without an interval (too few clusters) gets a bare marker
                below = [0.0 if e.interval is None else (e.value - e.low) * SCALE for _, e in chosen]
                above = [0.0 if e.interval is None else (e.high - e.value) * SCALE for _, e in chosen]
                axes.errorbar(
                    [e.value * SCALE for _, e in chosen],
                    [row - BAND / 2 + step * (lane + 0.5) for row, _ in chosen],
                    xerr=[below, above],
                    fmt=_marker(run), color=colour, mfc=colour if reliable else "white", capsize=2, markersize=5,
                )  # fmt: skip
        axes.set_title(metric, fontsize="medium")
        axes.set_xlim(-AXIS_MARGIN, SCALE + AXIS_MARGIN)
        axes.set_xticks(X_TICKS)
        # The level axis, named in the first column only: ticks are much of matplotlib's drawing time, and shared
        # axes would still build every panel's own.
        axes.set_ylim(len(levels) - 0.5, -0.5)
        if index % columns == 0:
            axes.set_yticks(range(len(levels)), levels)
        else:
            axes.set_yticks([])
        axes.grid(axis="x", alpha=0.3)
        axes.set_xlabel("share x100" if outcome else "score x100", fontsize="small")
    for index in range(len(metrics), rows * columns):
        grid[index // columns][index % columns].set_visible(False)
    figure.suptitle(f"{view.benchmark.title}: {dimension}")
    handles = [Line2D([], [], marker=_marker(run), color=_colour(view, run), linestyle="none") for run in view.runs]
    figure.legend(
        handles, labels, loc="upper left",
        bbox_to_anchor=(1 - legend / width + 0.01, 1 - TITLE_INCHES / height), fontsize="small", frameon=False,
        title="bars: 95% CI (no bar: too few\nclusters); hollow: too few\nunits or clusters (unreliable)",
        title_fontsize="small",
    )  # fmt: skip
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", metadata={"Software": None})
    return buffer.getvalue()


def _marker(run: Run) -> str:
    return "s" if run.blind else "o"


def _colour(view: BenchmarkView, run: Run) -> Any:
    """Normal runs get colours in order; a blind run shares the colour of the normal run of the same model and model
    arguments (squares tell it apart)."""
    normal = [r for r in view.runs if not r.blind]
    same = (run.model, run.model_args)
    model = next((r for r in normal if (r.model, r.model_args) == same), None) if run.blind else run
    return run_colour(normal.index(model) if model in normal else len(normal) + view.runs.index(run), len(normal))
