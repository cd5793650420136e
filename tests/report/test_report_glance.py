"""The report's first screen (`report.glance`) on runs built in memory: the best run, which runs the paired test
tells apart from it, and the warnings; breakdown legends that fit their figure whatever the labels' length; long
tables folded below it."""

from __future__ import annotations

import io
from dataclasses import replace

from PIL import Image

from drive_evals.drivelmm_o1.benchmark import DRIVELMM_O1
from drive_evals.report.breakdown import build_breakdown
from drive_evals.report.breakdown_plot import breakdown_plot
from drive_evals.report.compare import build_view
from drive_evals.report.glance import BEST, LOWER, SAME, UNCOMPARED, glance_table
from drive_evals.report.render import FOLD_ROWS, MAX_ROWS, Section, html_page, markdown
from drive_evals.report.runs import MISSING, Run
from drive_evals.report.tables import Table
from drive_evals.surds.benchmark import SURDS
from report.synthetic import synthetic_run

CLUSTERS = 30


def _scaled(run: Run, factor: float) -> Run:
    """The run with every 0/1 SURDS score kept only where `factor` of the images allow (a worse model)."""
    units = {}
    for index, (sample_id, unit) in enumerate(sorted(run.units.items())):
        keep = (index % 10) < factor * 10
        units[sample_id] = replace(unit, values={**unit.values, "score": unit.values["score"] if keep else 0.0})
    return replace(run, units=units)


def _with_headline(run: Run) -> Run:
    scores = [unit.values["score"] for unit in run.units.values()]
    return replace(run, metrics={"overall": sum(scores) / len(scores)})


def test_best_first_then_what_the_paired_test_can_tell_apart() -> None:
    strong = _with_headline(synthetic_run(SURDS, 1, CLUSTERS, model="strong"))
    twin = _with_headline(synthetic_run(SURDS, 2, CLUSTERS, model="twin"))
    weak = _with_headline(_scaled(synthetic_run(SURDS, 1, CLUSTERS, model="weak"), 0.1))
    table = glance_table(build_view(SURDS, [weak, twin, strong]))
    verdicts = {row[0]: row[-1] for row in table.rows}
    best = next(row[0] for row in table.rows if row[-1] == BEST)
    assert table.rows[0][-1] == BEST and best in {"strong", "twin"}
    assert verdicts["weak"] == LOWER
    assert SAME in verdicts.values() or LOWER in verdicts.values()
    assert table.lead.startswith(f"Best: {best}.") and "Lower: weak." in table.lead
    assert not any(note.startswith("⚠") for note in table.notes), "real data, enough images, nothing missing"


def test_warnings_name_demo_data_few_frames_missing_units_and_incomparable_runs() -> None:
    demo = {"data": {"source": "demo"}}
    a = replace(synthetic_run(DRIVELMM_O1, 1, 4), metadata=demo, metrics={"reasoning_score": 0.6})
    b = replace(synthetic_run(DRIVELMM_O1, 2, 4), metadata=demo, metrics={"reasoning_score": 0.5})
    lost = next(iter(b.units))
    b.units[lost] = replace(b.units[lost], values={"judged": 0.0, MISSING: 1.0})
    other = replace(synthetic_run(DRIVELMM_O1, 3, 4), judge="another/judge", metrics={"reasoning_score": 0.9})
    table = glance_table(build_view(DRIVELMM_O1, [a, b, other]))
    warnings = [note for note in table.notes if note.startswith("⚠")]
    starts = ["⚠ Demo data", "⚠ Too few frames", "⚠ Missing units", "⚠ Not comparable"]
    assert len(warnings) == len(starts) and all(w.startswith(start) for w, start in zip(warnings, starts, strict=True))
    assert "2 of 3 runs" in warnings[0] and "only 4 frame(s)" in warnings[1]
    by_model = {row[0].removesuffix(" ⚠"): row for row in table.rows}
    assert by_model["chance/random (seed=3)"][-1].startswith(UNCOMPARED), (
        "the higher score is not ranked: another judge"
    )
    assert by_model["chance/random (seed=1)"][-1] == BEST


def test_breakdown_legend_fits_the_figure_for_long_labels() -> None:
    """The rightmost columns of the PNG stay blank: no legend text runs into the figure's edge."""
    long = "openai-api/vllm/Qwen/Qwen2.5-VL-72B-Instruct-AWQ"
    runs = [synthetic_run(DRIVELMM_O1, seed, 20, model=f"{long}-{seed}") for seed in (1, 2)]
    view = build_view(DRIVELMM_O1, runs)
    png = breakdown_plot(view, build_breakdown(view), "question number")
    assert png is not None
    with Image.open(io.BytesIO(png)) as image:
        edge = image.convert("L").crop((image.width - 8, 0, image.width, image.height))
        darkest, _ = edge.getextrema()  # one band ("L"): (min, max)
        assert isinstance(darkest, int) and darkest > 200, "something dark touches the right edge: the legend is cut"


def test_long_tables_fold_and_the_longest_point_at_their_csv() -> None:
    """Past 12 rows a table is folded (<details>) in both renderings, except on the first screen; past 200 rows a
    table that names its CSV shows the first 200 and says where the rest are."""
    short = Table("Short", ["a"], [[str(i)] for i in range(FOLD_ROWS)])
    long = Table("Long", ["a"], [[str(i)] for i in range(MAX_ROWS + 50)], ["a note"], csv="x-paired.csv")
    detail = Section("Detail", [short, long], [])
    glance = Section("At a glance", [Table("Glance", ["a"], [[str(i)] for i in range(20)])], [], folds=False)
    text = markdown("t", [], [glance, detail], "images")
    page = html_page("t", [], [glance, detail])
    for rendered in (text, page):
        assert rendered.count("<details>") == 1, "only the long detail table folds"
        assert f"The first {MAX_ROWS} of {MAX_ROWS + 50} rows; all of them in `x-paired.csv`" in rendered.replace(
            "<code>", "`"
        ).replace("</code>", "`")
    assert f"| {MAX_ROWS - 1} |" in text and f"| {MAX_ROWS} |" not in text
    assert "| 19 |" in text.split("### Short", 1)[0], "the first screen shows all its rows"
