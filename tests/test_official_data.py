"""The "not the official data" flag: each benchmark's official counts, the check `make_task` logs, and where the
report and the end-of-run headline say it."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from report.synthetic import synthetic_run

from drive_evals._registry import BENCHMARKS
from drive_evals.benchmark import Benchmark
from drive_evals.coda_lm.benchmark import CODA_LM
from drive_evals.data import demo_dir
from drive_evals.drivebench.benchmark import DRIVEBENCH
from drive_evals.drivelmm_o1.benchmark import DRIVELMM_O1
from drive_evals.headline import headline_lines
from drive_evals.mme_realworld_ad.benchmark import MME_REALWORLD_AD
from drive_evals.mme_realworld_ad.taxonomy import SUBCATEGORIES, expected_counts
from drive_evals.official_data import OFFICIAL_DATA_KEY, official_data
from drive_evals.report.compare import build_view
from drive_evals.report.glance import glance_table
from drive_evals.report.tables import OTHER_DATA_MARK, score_table
from drive_evals.surds.benchmark import SURDS
from drive_evals.surds.task import surds
from drive_evals.surds.units import SUBSETS
from drive_evals.vladbench.benchmark import OFFICIAL_QUESTIONS, VLADBENCH
from drive_evals.vladbench.taxonomy import TASKS as VLAD_TASKS

LOCAL = {"data": {"source": "local", "path": "/data/copy"}}

OFFICIAL: list[tuple[Benchmark, dict[str, Any]]] = [
    (SURDS, {"records": 5_919, "units": dict.fromkeys(SUBSETS, 925), "subsets": list(SUBSETS)}),
    (DRIVELMM_O1, {"records": 4_633, "frames": 539}),
    (DRIVEBENCH, {"frames": 200, "records": 1_461}),  # its question count is not verified: not checked
    (VLADBENCH, {"questions": dict(OFFICIAL_QUESTIONS)}),
    (
        CODA_LM,
        {
            "items": {"general_perception": 500, "region_perception": 1_123, "driving_suggestion": 500},
            "split": "Test",
            "tasks": ["general_perception", "region_perception", "driving_suggestion"],
        },
    ),
    (
        MME_REALWORLD_AD,
        {"items": expected_counts("en"), "edition": "en", "subsets": [sub.name for sub in SUBCATEGORIES["en"]]},
    ),
]
"""Each benchmark's loader summary of its official data, at the official counts (keys as the loaders log them),
the first a count the check reads."""


def test_every_benchmark_of_the_registry_declares_its_official_counts() -> None:
    assert {b.key for b in BENCHMARKS if b.official is not None} >= {b.key for b, _ in OFFICIAL}


@pytest.mark.parametrize(("benchmark", "summary"), OFFICIAL, ids=[b.key for b, _ in OFFICIAL])
def test_official_counts_pass_and_one_count_off_is_flagged(benchmark: Benchmark, summary: dict[str, Any]) -> None:
    assert official_data(benchmark, {**LOCAL, **summary}) == {"status": "official", "differences": []}
    key, value = next(iter(summary.items()))
    off = {k: v + 1 for k, v in value.items()} if isinstance(value, dict) else value - 1
    checked = official_data(benchmark, {**LOCAL, **summary, key: off})
    assert checked["status"] == "not official" and checked["differences"]
    assert official_data(benchmark, {**summary, "data": {"source": "demo"}})["status"] == "demo"


def test_a_126_unit_surds_copy_names_each_count_that_differs() -> None:
    units = dict.fromkeys(SUBSETS, 21)  # the 126 units
    checked = official_data(SURDS, {**LOCAL, "records": 40, "units": units})
    assert checked["status"] == "not official"
    assert checked["differences"][:2] == ["40 records (official 5,919)", "21 yaw units (official 925)"]


def test_a_selection_of_the_official_data_is_the_official_data() -> None:
    """`subsets=` / `tasks=` select part of the official set: the headline says "partial", this flag does not."""
    yaw = {**LOCAL, "records": 5_919, "units": {"yaw": 925}, "subsets": ["yaw"]}
    assert official_data(SURDS, yaw)["status"] == "official"
    lights = {**LOCAL, "questions": {"Traffic_Light": 795}}
    assert official_data(VLADBENCH, lights)["status"] == "official"
    regions = {**LOCAL, "split": "Test", "tasks": ["region_perception"], "items": {"region_perception": 1_123}}
    assert official_data(CODA_LM, regions)["status"] == "official"


def test_an_mme_realworld_selection_inside_one_task_is_not_checked_by_task_counts() -> None:
    """Items are counted per task (3,660 perception, 1,344 reasoning in EN): only a task selected whole is checked."""
    one = SUBCATEGORIES["en"][0]
    summary = {**LOCAL, "edition": "en", "subsets": [one.name], "items": {one.task: one.expected}}
    assert official_data(MME_REALWORLD_AD, summary)["status"] == "unchecked"


def test_either_count_of_the_drivelmm_test_file_is_official() -> None:
    for records in (4_633, 4_634):
        assert official_data(DRIVELMM_O1, {**LOCAL, "records": records, "frames": 539})["status"] == "official"


def test_a_coda_lm_task_missing_from_the_copy_is_flagged() -> None:
    summary = {**LOCAL, "split": "Test", "tasks": ["general_perception"], "items": {}}
    assert official_data(CODA_LM, summary)["differences"] == ["0 general_perception items (official 500)"]


def test_no_summary_or_no_known_count_is_unchecked_not_flagged() -> None:
    assert official_data(SURDS, LOCAL)["status"] == "unchecked"
    assert (
        official_data(CODA_LM, {**LOCAL, "split": "Val", "tasks": ["region_perception"], "items": {}})["status"]
        == "unchecked"
    )


def test_the_vladbench_table_covers_the_28_tasks_and_the_papers_total() -> None:
    assert list(OFFICIAL_QUESTIONS) == [task.name for task in VLAD_TASKS]
    assert sum(OFFICIAL_QUESTIONS.values()) == 11_193


def test_the_task_logs_demo_for_the_demo_and_not_official_for_a_local_copy(tmp_path: Path) -> None:
    assert (surds(data="demo").metadata or {})[OFFICIAL_DATA_KEY]["status"] == "demo"
    copy = tmp_path / "surds"
    shutil.copytree(demo_dir("surds"), copy)
    checked = (surds(data=str(copy)).metadata or {})[OFFICIAL_DATA_KEY]
    assert checked["status"] == "not official" and "16 yaw units (official 925)" in checked["differences"]


def _other_data(run: Any) -> Any:
    return replace(run, metadata={**LOCAL, "records": 40, "units": {"depth": 21}})


def test_the_report_and_the_headline_say_it_beside_the_papers_rows() -> None:
    official = synthetic_run(SURDS, 1, 12, model="a")
    other = replace(_other_data(synthetic_run(SURDS, 2, 12, model="b")), label="b")
    view = build_view(SURDS, [replace(official, label="a"), other])
    table = score_table(view, SURDS.tables[0], with_units=True)
    labels = [row[0] for row in table.rows]
    assert labels[:2] == ["a", f"b ⚠{OTHER_DATA_MARK}"]  # ⚠: other data, so not compared with `a` either
    assert any(
        note.startswith(f"b ⚠{OTHER_DATA_MARK}: its data differs") and "21 depth units (official 925)" in note
        for note in table.notes
    )
    warnings = [note for note in glance_table(view).notes if "Not the official data" in note]
    assert len(warnings) == 1 and "b read a copy" in warnings[0] and " a," not in warnings[0]
    assert headline_lines(other)[-1] == "  not the official data: 40 records (official 5,919) and 1 more count"
    assert not any("official data" in line for line in headline_lines(official))
