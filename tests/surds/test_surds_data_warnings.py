"""Load what the official construction loads: anomalies in values it reads stop the run, the rest are warnings.

Each test breaks generated metadata in one way, in a value the construction never reads (the units must be the
same as on the clean data, plus a counted warning) or in one it reads (one error naming line, field and object).
"""

from __future__ import annotations

import json
import logging
import math
import shutil
from pathlib import Path
from typing import Any

import pytest
from surds_fixtures import record

from drive_evals.data import demo_dir, open_snapshot
from drive_evals.data_warnings import MAX_EXAMPLES, DataWarnings
from drive_evals.errors import DataValidationError
from drive_evals.surds.dataset import RECORD_ORDERS, load_surds, resolve_repeated_images
from drive_evals.surds.records import METADATA_FILE, parse_metadata_lines
from drive_evals.surds.rules import centerness
from drive_evals.surds.scorer import score_unit
from drive_evals.surds.task import surds
from drive_evals.surds.units import SUBSETS, Unit, build_units

SOURCE = "meta.jsonl"


def base() -> list[dict[str, Any]]:
    """One two-object record (one pair, so one single-object record is drawn) and three single-object ones."""
    return [
        record("multi", ["white car", "red bus"], [0, 1]),
        record("single-a", ["grey van"], [0]),
        record("single-b", ["blue truck"], [1]),
        record("single-c", ["green car"], [2]),
    ]


def build(records: list[dict[str, Any]], empty_in_pool: bool = False) -> tuple[dict[str, list[Unit]], DataWarnings]:
    warnings = DataWarnings("SURDS")
    lines = [json.dumps(r) for r in records]
    return build_units(parse_metadata_lines(lines, SOURCE), empty_in_pool, warnings), warnings


def errors(records: list[dict[str, Any]], empty_in_pool: bool = False) -> str:
    with pytest.raises(DataValidationError) as caught:
        build(records, empty_in_pool)
    return str(caught.value)


def content(units: dict[str, list[Unit]]) -> dict[str, list[tuple[object, ...]]]:
    """What the model is asked and what counts as correct, without ids (which carry record positions)."""
    return {s: [(u.image, u.prompts, u.targets, u.options, u.bbox) for u in us] for s, us in units.items()}


CLEAN, _ = build(base())
DRAWN = CLEAN["yaw"][0].record_index
UNDRAWN = next(i for i in (1, 2, 3) if i != DRAWN)


def test_clean_data_has_no_warnings() -> None:
    _, warnings = build(base())
    assert not warnings and warnings.summary() == {}


@pytest.mark.parametrize(
    ("index", "field", "value", "kind"),
    [
        # the multi-object record: fields the pair units never read
        (0, "bboxes2D", [[1, 2, 3, 4], None], "unread_value"),
        (0, "yaw_descs", ["North", "Up"], "unknown_yaw_label"),
        (0, "xy2Ds", [[400, "y?"], [700, math.nan]], "unread_value"),  # pairs read x only
        (0, "xyz3Ds", [[0.0, 0.0, math.inf], "far"], "unread_value"),
        (0, "categories", [None, 3], "unread_value"),
        (0, "yaws", [0.0, 0.0, 1.0], "list_length_mismatch"),
        (0, "bboxes2D", [[1, 2, 3, 4]], "list_length_mismatch"),
        # a single-object record the draw never picks: nothing of it is read but its object count
        ("undrawn", "yaw_descs", ["Up"], "unknown_yaw_label"),
        ("undrawn", "depths", [math.nan], "unread_value"),
        ("undrawn", "bboxes2D", [[1, 2]], "unread_value"),
        ("undrawn", "descs", [None], "unread_value"),
        ("undrawn", "distances", [], "list_length_mismatch"),
        # the drawn record: distances and the unused fields are never read
        ("drawn", "distances", ["n/a"], "unread_value"),
        ("drawn", "xyz3Ds", [[math.nan, 0, 0]], "unread_value"),
        ("drawn", "yaws", [0.0, 1.0], "list_length_mismatch"),
    ],
)
def test_unread_anomalies_are_warnings(index: int | str, field: str, value: object, kind: str) -> None:
    records = base()
    position = {"drawn": DRAWN, "undrawn": UNDRAWN}.get(str(index), index)
    assert isinstance(position, int)
    records[position][field] = value
    units, warnings = build(records)
    assert content(units) == content(CLEAN), "the run is the one the clean data gives"
    summary = warnings.summary()
    assert list(summary) == [kind], summary
    assert f"{SOURCE}:{position + 1}: field '{field}'" in summary[kind]["examples"][0]


@pytest.mark.parametrize(
    ("index", "field", "value", "expected"),
    [
        (0, "depths", [5.0], "field 'depths': object 1: no value: the list has 1 entries but 'descs' has 2"),
        (0, "distances", [5.0, math.nan], "field 'distances': object 1: expected a finite number, got nan"),
        (0, "xy2Ds", [[400, 450], ["x", 450]], "field 'xy2Ds': object 1: expected a list of 2 finite numbers"),
        (0, "descs", ["white car", 7], "field 'descs': object 1: expected a string, got 7"),
        ("drawn", "yaw_descs", ["Up"], "field 'yaw_descs': object 0: unknown label 'Up'"),
        ("drawn", "bboxes2D", [None], "field 'bboxes2D': object 0: expected a list of 4 finite numbers"),
        ("drawn", "xy2Ds", [[400, None]], "field 'xy2Ds': object 0: expected a list of 2 finite numbers"),
        ("drawn", "depths", [math.inf], "field 'depths': object 0: expected a finite number, got inf"),
    ],
)
def test_read_anomalies_are_errors(index: int | str, field: str, value: object, expected: str) -> None:
    records = base()
    position = DRAWN if index == "drawn" else index
    assert isinstance(position, int)
    records[position][field] = value
    message = errors(records)
    assert f"{SOURCE}:{position + 1}: {expected}" in message
    assert "(read by the official construction)" in message and message.startswith("1 problem(s)")


def test_warnings_are_counted_per_kind_with_the_first_examples() -> None:
    records = base() + [record(f"extra-{n}", ["car"], [0]) for n in range(MAX_EXAMPLES + 2)]
    for extra in records[4:]:
        extra["xyz3Ds"] = [[math.nan, 0, 0]]
    _, warnings = build(records)
    entry = warnings.summary()["unread_value"]
    assert entry["count"] == MAX_EXAMPLES + 2
    assert len(entry["examples"]) == MAX_EXAMPLES


def test_empty_description_is_asked_as_officially() -> None:
    records = base()
    records[0]["descs"] = ["white car", " "]
    units, warnings = build(records)
    assert warnings.count("empty_description") == 1
    assert "Which object, the white car or the  , is closer" in units["distance"][0].prompts[0]


def test_record_without_objects_evalscope_rule() -> None:
    """record_order=metadata follows evalscope: a record with no objects is not in the pool; a warning."""
    records = base()
    records.insert(1, record("empty", [], []))
    units, warnings = build(records)
    assert content(units) == content(CLEAN)
    assert warnings.count("record_without_objects") == 1


def test_record_without_objects_official_rule() -> None:
    """record_order=sorted follows the official script: the record is in the pool. Not drawn, it only shifts the
    draw (a warning); drawn, the official script fails on its object 0, and so do we, naming the line."""
    empty_first = [record("multi", ["car", "bus"], [0, 1]), record("empty", [], []), record("single", ["van"], [0])]
    empty_last = [empty_first[0], empty_first[2], empty_first[1]]
    outcomes = []
    for records in (empty_first, empty_last):
        try:
            units, warnings = build(records, empty_in_pool=True)
            outcomes.append(("built", units["yaw"][0].image, warnings.count("record_without_objects")))
        except DataValidationError as error:
            outcomes.append(("error", str(error), 0))
    assert sorted(o[0] for o in outcomes) == ["built", "error"], "one of the two orders draws the empty record"
    built = next(o for o in outcomes if o[0] == "built")
    failed = next(o for o in outcomes if o[0] == "error")
    assert built[1] == "image/CAM_FRONT/single.webp" and built[2] == 1
    assert "field 'descs': the record has no objects, and the official script draws it" in str(failed[1])


def test_inverted_box_scores_zero_like_the_official_centerness() -> None:
    records = base()
    records[DRAWN]["bboxes2D"] = [[450 + 300 * (DRAWN - 1), 500, 350 + 300 * (DRAWN - 1), 400]]
    units, warnings = build(records)
    assert warnings.count("inverted_box") == 1
    xy2d = units["xy2d"][0]
    assert xy2d.bbox is not None and xy2d.bbox[0] > xy2d.bbox[2]
    x1, y1, x2, y2 = xy2d.bbox
    centre = [(x1 + x2) // 2, (y1 + y2) // 2]
    value, (verdict,) = score_unit("xy2d", xy2d.targets, (), xy2d.bbox, [f"<answer>{centre}</answer>"])
    assert verdict.valid and value == 0.0, "a valid answer, and the official formula can only give 0"
    grid = [(x, y) for x in range(300, 1000, 10) for y in range(350, 550, 10)]
    assert all(centerness(point, xy2d.bbox) == 0.0 for point in grid)


def test_repeated_file_name_follows_each_reference() -> None:
    first = record("same", ["white car"], [0])
    second = record("same", ["red bus"], [1])
    records = parse_metadata_lines([json.dumps(r) for r in (first, record("other", ["van"], [2]), second)], SOURCE)
    metadata_warnings, sorted_warnings = DataWarnings("SURDS"), DataWarnings("SURDS")
    kept = resolve_repeated_images(records, "metadata", metadata_warnings)
    assert [r.line for r in kept] == [1, 2, 3], "evalscope reads every line as a record"
    kept = resolve_repeated_images(records, "sorted", sorted_warnings)
    assert [r.line for r in kept] == [2, 3], "the official datasets<=3.3.2 loader keeps the image's last line"
    for warnings in (metadata_warnings, sorted_warnings):
        entry = warnings.summary()["repeated_file_name"]
        assert entry["count"] == 1 and f"{SOURCE}:3: file_name" in str(entry["examples"])


@pytest.mark.parametrize("record_order", RECORD_ORDERS)
def test_demo_loads_without_warnings(record_order: str) -> None:
    built = load_surds(open_snapshot("demo", "surds"), list(SUBSETS), record_order)
    assert built.summary["data_warnings"] == {}


def test_task_records_warnings_in_its_metadata(tmp_path: Path) -> None:
    """Through the task: a repeated line and an unread NaN load, and the log's task metadata counts them."""
    # the first line gets a NaN in a field never read, and a clean copy of it is appended
    root = tmp_path / "surds"
    shutil.copytree(demo_dir("surds"), root)
    metadata = root / METADATA_FILE
    lines = metadata.read_text().splitlines()
    first = json.loads(lines[0])
    first["xyz3Ds"] = [[math.nan, 0.0, 0.0]] * len(first["descs"])
    metadata.write_text("\n".join([json.dumps(first), *lines[1:], lines[0]]) + "\n")
    for record_order in RECORD_ORDERS:
        task = surds(data=str(root), record_order=record_order)
        assert task.metadata is not None
        warnings = task.metadata["data_warnings"]
        assert warnings["repeated_file_name"]["count"] == 1
        if record_order == "metadata":  # both lines are records
            assert warnings["unread_value"]["count"] == len(first["descs"])
            assert task.metadata["records"] == len(lines) + 1
        else:  # the image's last line, the clean copy, replaces the first
            assert "unread_value" not in warnings
            assert task.metadata["records"] == len(lines)


def test_warnings_print_one_short_line_once_per_process(caplog: pytest.LogCaptureFixture) -> None:
    """An eval-set builds each task once per model (and again on a resume): the same line is printed once."""
    logger = logging.getLogger("drive_evals.test_once")
    for _ in range(3):
        warnings = DataWarnings("SURDS-once-test")
        warnings.add("kind_a", "a long meaning that stays in the log metadata", "record 1")
        warnings.add("kind_a", "a long meaning that stays in the log metadata", "record 2")
        warnings.add("kind_b", "another meaning", "record 3")
        with caplog.at_level(logging.WARNING, logger="drive_evals.test_once"):
            warnings.log(logger)
    lines = [r.getMessage() for r in caplog.records if r.name == "drive_evals.test_once"]
    assert len(lines) == 1 and lines[0].startswith("SURDS-once-test data: 2 x kind_a, 1 x kind_b.")
    assert "long meaning" not in lines[0]
