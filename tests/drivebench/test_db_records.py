"""DriveBench records: the official routing, the official camera selection, and every problem in one pass."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from drive_evals.data import demo_dir
from drive_evals.drivebench.records import (
    TEST_FILE,
    Bucket,
    DBRecord,
    load_records,
    parse_record,
    parse_records,
    route,
    select_images,
)
from drive_evals.errors import DataValidationError

SIX = {
    camera: f"data/nuscenes/samples/{camera}/n008-2018-08-30-15-52-26-0400__{camera}__1535658934012637.jpg"
    for camera in ("CAM_FRONT", "CAM_FRONT_LEFT", "CAM_FRONT_RIGHT", "CAM_BACK", "CAM_BACK_LEFT", "CAM_BACK_RIGHT")
}


def raw(**changes: Any) -> dict[str, Any]:
    record = {
        "scene_token": "da41ecbc644b4915b84bb732e35ebf8c",
        "frame_token": "7e4c3282bc2a4402b5d1d6705f9eb844",
        "question_type": "perception",
        "tag": [0],
        "question": "What is the moving status of object <c1,CAM_BACK,0.5073,0.5778>? Please select the correct "
        "answer from the following options: A. Going ahead. B. Turn left. C. Turn right.",
        "answer": "A",
        "image_path": dict(SIX),
    }
    record.update(changes)
    return record


@pytest.mark.parametrize(
    ("question_type", "tag", "expected"),
    [
        ("perception", [2], Bucket("perception", "VQA")),
        ("perception", [0, 2], Bucket("perception", "VQA")),  # tag 2 is tested first, as officially
        ("perception", [0], Bucket("perception", "MCQ")),
        ("prediction", [3], Bucket("prediction", "VQA")),
        ("prediction", [0], Bucket("prediction", "yes/no")),
        ("planning", [1], Bucket("planning", "VQA")),
        ("behavior", [0], Bucket("behavior", "MCQ")),
        ("planning", [0], None),
        ("robust_qas", [0], None),
        ("perception", [], None),
    ],
)
def test_route_follows_the_official_order(question_type: str, tag: list[int], expected: Bucket | None) -> None:
    assert route(question_type, list(tag)) == expected


def test_only_prediction_yes_no_is_left_out_officially() -> None:
    left_out = [b.name for t in ("perception", "prediction", "planning", "behavior") for b in [
        Bucket(t, k) for k in ("MCQ", "VQA", "yes/no")] if not b.officially_scored]  # fmt: skip
    assert left_out == ["prediction yes/no"]


def test_select_images_keeps_the_named_cameras_in_record_order() -> None:
    question = "What about <c2,CAM_BACK_RIGHT,0.7,0.6> and <c1,CAM_FRONT_LEFT,0.2,0.5>?"
    assert list(select_images(question, SIX)) == ["CAM_FRONT_LEFT", "CAM_BACK_RIGHT"]
    assert select_images("In this scenario, what are safe actions to take for the ego vehicle?", SIX) == SIX


def test_a_camera_named_twice_gives_one_image() -> None:
    question = "Is <c1,CAM_BACK,0.1,0.2> closer than <c3,CAM_BACK,0.5,0.5>?"
    assert list(select_images(question, SIX)) == ["CAM_BACK"]


def test_parse_record_gives_the_selection_and_its_cameras() -> None:
    record = parse_record(raw(), 0)
    assert isinstance(record, DBRecord)
    assert [camera for camera, _ in record.images] == ["CAM_BACK"] and record.cameras == ("CAM_BACK",)
    assert record.bucket == Bucket("perception", "MCQ")


def test_cameras_are_read_from_the_paths_in_the_official_order() -> None:
    shuffled = dict(reversed(list(SIX.items())))
    record = parse_record(raw(question="Predict the behavior of the ego vehicle.", question_type="behavior",
                              image_path=shuffled), 0)  # fmt: skip
    assert isinstance(record, DBRecord)
    assert record.images[0][0] == "CAM_BACK_RIGHT", "images keep the record's order"
    assert record.cameras[0] == "CAM_FRONT", "the camera sentence uses the official order"


def test_every_problem_is_reported_at_once() -> None:
    bad = [
        raw(question_type="robust_qas"),
        raw(tag="0"),
        raw(answer=None),
        raw(image_path={"CAM_BACK": "./BitError/CAM_BACK/x.jpg"}),
        raw(question="Where is <c1,CAM_FRONT,0.5,0.5>?", image_path={"CAM_BACK": SIX["CAM_BACK"]}),
        "not a record",
    ]
    with pytest.raises(DataValidationError) as caught:
        parse_records(bad, "test.json")
    problems = caught.value.problems
    assert len(problems) == 6, problems
    assert "robust_qas corruption files" in problems[0]
    assert "'tag'" in problems[1] and "'answer'" in problems[2]
    assert "no samples/<camera>/ folder" in problems[3]
    assert "no image left" in problems[4]
    assert problems[5].startswith("record 5: expected a JSON object")


def test_extra_fields_are_accepted() -> None:
    """Never stricter than the official code: it ignores fields it does not read."""
    assert isinstance(parse_record(raw(pred=" A.", extra={"x": 1}), 0), DBRecord)


def test_preprocessed_file_loads_the_same(tmp_path: Path) -> None:
    """`tools/preprocess.py` output (the `-final` file) is a fixed point of the selection."""
    original = json.loads((demo_dir("drivebench") / TEST_FILE).read_text())
    final = [dict(r, image_path=select_images(r["question"], r["image_path"])) for r in original]
    (tmp_path / "final.json").write_text(json.dumps(final))
    assert load_records(tmp_path / "final.json") == load_records(demo_dir("drivebench") / TEST_FILE)


def test_load_records_names_a_broken_file(tmp_path: Path) -> None:
    (tmp_path / "x.json").write_text("{")
    with pytest.raises(DataValidationError, match="not valid JSON"):
        load_records(tmp_path / "x.json")
    with pytest.raises(DataValidationError, match="expected a JSON array"):
        parse_records({}, "x.json")
