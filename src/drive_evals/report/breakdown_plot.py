"""Small multiples for one breakdown dimension: a panel per metric, a row per level, runs side by side.

Same drawing rules as the main plots (a bare Agg `Figure`, no pyplot). Unreliable levels get hollow markers; blind
runs come right after their normal run (the view's order) and are drawn with squares, so the gap is visible.
"""

from __future__ import annotations

import io
import math

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from drive_evals.report.breakdown import Breakdown, Cell
from drive_evals.report.compare import BenchmarkView
from drive_evals.report.plots import AXIS_MARGIN, BAND, DPI, ROW_INCHES
from drive_evals.report.runs import Run
from drive_evals.report.tables import SCALE, label

PANEL_COLUMNS = 4
PANEL_WIDTH_INCHES = 3.0
PANEL_PAD_INCHES = 0.9
"""Room per panel row for its title and axis labels."""
MIN_PANEL_INCHES = 2.2
"""Room for the legend beside a panel with few levels and runs."""
LABEL_INCHES = 1.6
"""Room on the left for level names."""


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
    figure = Figure(figsize=(LABEL_INCHES + PANEL_WIDTH_INCHES * columns, panel_height * rows), dpi=DPI)
    FigureCanvasAgg(figure)
    grid = figure.subplots(rows, columns, sharey=True, squeeze=False)
    step = BAND / len(view.runs)
    outcome = dimension in (view.benchmark.breakdown.outcome_dimensions if view.benchmark.breakdown else ())
    for index, metric in enumerate(metrics):
        axes = grid[index // columns][index % columns]
        for lane, run in enumerate(view.runs):
            for row, level in enumerate(levels):
                cell = cells.get((run.label, level, metric))
                if cell is None or math.isnan(cell.estimate.value):
                    continue
                value = cell.estimate
                error = [[(value.value - value.low) * SCALE], [(value.high - value.value) * SCALE]]
                colour = f"C{_colour(view, run)}"
                axes.errorbar(
                    value.value * SCALE, row - BAND / 2 + step * (lane + 0.5), xerr=error,
                    fmt="s" if run.blind else "o", color=colour, mfc=colour if cell.reliable else "white",
                    capsize=2, markersize=5, label=label(view, run) if index == 0 and row == 0 else None,
                )  # fmt: skip
        axes.set_title(metric, fontsize="medium")
        axes.set_xlim(-AXIS_MARGIN, SCALE + AXIS_MARGIN)
        axes.grid(axis="x", alpha=0.3)
        axes.set_xlabel("share x100" if outcome else "score x100", fontsize="small")
    for index in range(len(metrics), rows * columns):
        grid[index // columns][index % columns].set_visible(False)
    first = grid[0][0]
    first.set_yticks(range(len(levels)), levels)
    first.invert_yaxis()
    figure.suptitle(f"{view.benchmark.title}: {dimension}")
    handles, labels = first.get_legend_handles_labels()
    figure.legend(
        handles, labels, loc="upper left", bbox_to_anchor=(1.0, 0.95), fontsize="small", frameon=False,
        title="bars: 95% CI; hollow: too few\nunits or clusters (unreliable)", title_fontsize="small",
    )  # fmt: skip
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", bbox_inches="tight", metadata={"Software": None})
    return buffer.getvalue()


def _colour(view: BenchmarkView, run: Run) -> int:
    """Normal runs get colours in order; a blind run shares the colour of the normal run of the same model and model
    arguments (squares tell it apart)."""
    normal = [r for r in view.runs if not r.blind]
    same = (run.model, run.model_args)
    model = next((r for r in normal if (r.model, r.model_args) == same), None) if run.blind else run
    return (normal.index(model) if model in normal else len(normal) + view.runs.index(run)) % 10
