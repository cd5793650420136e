"""Reading and checking VLADBench.tsv: every problem in one pass, before any model call; never stricter than the
official code (what it never reads for a score is a warning); the `tasks` parameter."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest

from drive_evals.data import LocalSnapshot, demo_dir
from drive_evals.data_warnings import DataWarnings
from drive_evals.errors import DataValidationError, ParameterError
from drive_evals.vladbench.dataset import VLMEVALKIT_TSV_MD5, check_md5, load_vladbench
from drive_evals.vladbench.records import TSV_FILE, load_records, parse_list_string
from drive_evals.vladbench.taxonomy import TASKS, parse_tasks


def copy_demo(tmp_path: Path) -> Path:
    root = tmp_path / "vladbench"
    shutil.copytree(demo_dir("vladbench"), root)
    return root


def rewrite(root: Path, change: dict[int, dict[str, str]]) -> None:
    """Replace cells of data rows (1-based) of the TSV."""
    path = root / TSV_FILE
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle, delimiter="\t")
        fields, rows = list(reader.fieldnames or []), list(reader)
    for number, cells in change.items():
        rows[number - 1].update(cells)
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields, delimiter="\t", lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def row_of(root: Path, task: str, question_part: str = "") -> int:
    with (root / TSV_FILE).open(encoding="utf-8", newline="") as handle:
        for number, row in enumerate(csv.DictReader(handle, delimiter="\t"), start=1):
            if row["category3"] == task and question_part in row["question"]:
                return number
    raise AssertionError(task)


def test_demo_covers_every_task_and_keeps_frames_in_order() -> None:
    records = load_records(demo_dir("vladbench") / TSV_FILE, parse_tasks(None), DataWarnings("t"))
    assert {r.task for r in records} == {t.name for t in TASKS}
    sequence = next(r for r in records if r.task == "Longitudinal")
    assert len(sequence.images) == 3 and list(sequence.images) == sorted(sequence.images)
    shared = next(r for r in records if r.task == "Traffic_Light" and r.index == "1")
    assert shared.images == next(r for r in records if r.index == "0").images  # an index reference, followed


def test_every_problem_reported_in_one_pass(tmp_path: Path) -> None:
    root = copy_demo(tmp_path)
    box_row = row_of(root, "Vehicle_Recognition", "located in the image?")
    speed_row = row_of(root, "Lane_Speed_Relation")
    rewrite(
        root,
        {
            box_row: {"answer": "[1.5, 2, 3, 4]", "dimension": ""},
            speed_row: {"answer": "sixty"},
            row_of(root, "Weather"): {"image": "missing_image_index"},
        },
    )
    with pytest.raises(DataValidationError) as raised:
        load_vladbench(LocalSnapshot(root, "local"), parse_tasks(None))
    text = str(raised.value)
    assert "is not a box" in text and "dimension '' is not [width, height]" in text
    assert "no [X,Y] speed pair" in text and "index of another row" in text
    assert "task Weather: none of its rows can be asked" in text  # its only row has the bad image
    assert len(raised.value.problems) == 5


def test_what_no_score_reads_is_a_warning(tmp_path: Path) -> None:
    """VLMEvalKit parses `dimension` on every row and stops on an empty one; only box questions use it."""
    root = copy_demo(tmp_path)
    rewrite(root, {row_of(root, "Weather"): {"dimension": ""}, row_of(root, "Light"): {"category3": "Lights"}})
    built = load_vladbench(LocalSnapshot(root, "local"), parse_tasks("Weather"))
    warnings = built.summary["data_warnings"]
    assert warnings["dimension"]["count"] == 1 and warnings["unknown_task"]["count"] == 1


def test_missing_task_rows_and_images_are_errors(tmp_path: Path) -> None:
    root = copy_demo(tmp_path)
    for row in range(row_of(root, "Weather"), row_of(root, "Weather") + 1):
        rewrite(root, {row: {"category3": "weather"}})
    with pytest.raises(DataValidationError, match="no rows with category3 'Weather'"):
        load_vladbench(LocalSnapshot(root, "local"), parse_tasks("Weather"))
    image = next((root / "General_Element_Recognition" / "Background" / "Light").glob("*.jpg"))
    image.unlink()
    with pytest.raises(DataValidationError, match="not found"):
        load_vladbench(LocalSnapshot(root, "local"), parse_tasks("Light"))


def test_md5_is_checked_for_hub_files_only(tmp_path: Path) -> None:
    warnings = DataWarnings("t")
    tsv = demo_dir("vladbench") / TSV_FILE
    found = check_md5(tsv, "demo", warnings)
    assert found != VLMEVALKIT_TSV_MD5 and not warnings
    check_md5(tsv, "huggingface", warnings)
    assert warnings.count("tsv_md5") == 1


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("Vehicle_Behavior", ["Vehicle_Bahavior"]),
        ("Key_Obsturction_Detection, key obstruction detection", ["Key_Obsturction_Detection"]),
        (["Background", "right of way"], ["Right_Of_Way", "Light", "Weather"]),
        ("EDP", [t.name for t in TASKS if t.domain == "Ego_Decision_Planning"]),
    ],
)
def test_tasks_parameter(spec: str | list[str], expected: list[str]) -> None:
    assert parse_tasks(spec) == expected


@pytest.mark.parametrize("spec", ["Trajectory", "Traffic_Lights", ""])
def test_tasks_parameter_refuses_unknown_names(spec: str) -> None:
    with pytest.raises(ParameterError, match="tasks:"):
        parse_tasks(spec)


def test_list_cells_are_read_without_eval() -> None:
    assert parse_list_string("['a.png', 'b.png']") == ["a.png", "b.png"]
    assert parse_list_string("a.png") == ["a.png"]
    assert parse_list_string("[__import__('os')]") is None


def test_repeated_index_is_refused_and_cells_stay_text(tmp_path: Path) -> None:
    root = copy_demo(tmp_path)
    weather = row_of(root, "Weather")
    rewrite(root, {weather: {"index": "0", "answer": "NA"}})
    with pytest.raises(DataValidationError, match="index '0' appears 2 times"):
        load_records(root / TSV_FILE, parse_tasks("Weather"), DataWarnings("t"))
    rewrite(root, {weather: {"index": "9999"}})
    (record,) = load_records(root / TSV_FILE, parse_tasks("Weather"), DataWarnings("t"))
    assert record.answer == "NA"  # pandas would read NaN
