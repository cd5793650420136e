"""DriveLMM-o1 breakdown levels: question number from the metadata, city from the nuScenes log name."""

from __future__ import annotations

import json

from drive_evals.data import demo_dir
from drive_evals.drivelmm_o1.breakdown import CITY, QUESTION, city_of, item_levels, record_facts

BOSTON = "samples/CAM_FRONT/n008-2018-08-01-15-16-36-0400__CAM_FRONT__1533151603512099.jpg"
SINGAPORE = "samples/CAM_BACK/n015-2018-07-24-11-22-45+0800__CAM_BACK__1532402927637402.jpg"


def test_city_from_the_utc_offset_of_the_log_name() -> None:
    assert city_of([BOSTON, BOSTON.replace("CAM_FRONT", "CAM_BACK")]) == "Boston"
    assert city_of([SINGAPORE]) == "Singapore"
    assert city_of([BOSTON, SINGAPORE]) == "unknown", "views of two logs cannot be one frame"
    assert city_of(["samples/CAM_FRONT/picture.jpg"]) == "unknown"
    assert city_of(["samples/CAM_FRONT/n008-2018-08-01-15-16-36+0100__CAM_FRONT__1.jpg"]) == "unknown"


def test_levels_from_metadata_and_old_logs() -> None:
    metadata = {"question_number": 10, "breakdown": record_facts([SINGAPORE])}
    assert item_levels(metadata) == {QUESTION: "Q10", CITY: "Singapore"}
    assert item_levels({"question_number": 3}) == {QUESTION: "Q3"}, "an old log still gives the question number"


def test_demo_frames_name_both_cities() -> None:
    records = json.loads((demo_dir("drivelmm_o1") / "DriveLMMo1_TEST.json").read_text(encoding="utf-8"))
    cities = {city_of(r["image"]) for r in records}
    assert cities == {"Boston", "Singapore"}
