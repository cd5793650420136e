"""The judge's object descriptions: the official lookup, its aborts raised before any call, the D11 fill-in."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from drive_evals.data import demo_dir
from drive_evals.data_warnings import DataWarnings
from drive_evals.drivebench.context import FILLED_IN, judge_descriptions, load_descriptions, lookup
from drive_evals.drivebench.prompts import NO_DESCRIPTION
from drive_evals.drivebench.records import Bucket, DBRecord, load_records
from drive_evals.errors import DataValidationError

DEMO = demo_dir("drivebench")


@pytest.fixture(scope="module")
def descriptions() -> dict[str, Any]:
    return load_descriptions(DEMO / "visual_description.json")


@pytest.fixture(scope="module")
def records() -> list[DBRecord]:
    return load_records(DEMO / "drivebench-test.json")


def test_lookup_follows_the_official_rules(descriptions: dict[str, Any], records: list[DBRecord]) -> None:
    by_question = {r.question: r for r in records}
    mcq = next(r for r in records if r.bucket == Bucket("perception", "MCQ"))
    assert lookup(descriptions, mcq) == "gray sedan.", "lower-cased Visual_description of <c1,CAM_BACK"
    safe = by_question["In this scenario, what are safe actions to take for the ego vehicle?"]
    assert lookup(descriptions, safe) == NO_DESCRIPTION
    behavior = next(r for r in records if r.bucket.task == "behavior")
    assert lookup(descriptions, behavior) is None, "no <...> in the question"
    two = next(r for r in records if " and <c2," in r.question)
    assert lookup(descriptions, two) == "man in a red jacket.", "greedy <(.*)>: the first object's id and camera"


def test_unknown_scene_and_object_raise(descriptions: dict[str, Any], records: list[DBRecord]) -> None:
    mcq = next(r for r in records if r.bucket == Bucket("perception", "MCQ"))
    with pytest.raises(LookupError, match="not described"):
        lookup(descriptions, replace(mcq, scene_token="0" * 32))
    with pytest.raises(LookupError, match="no key object"):
        lookup(descriptions, replace(mcq, question=mcq.question.replace("c1,CAM_BACK", "c9,CAM_BACK")))


def test_descriptions_only_where_the_rubric_quotes_them(descriptions: dict[str, Any], records: list[DBRecord]) -> None:
    found = judge_descriptions(records, descriptions, "vd.json", DataWarnings("t"))
    for record, desc in zip(records, found, strict=True):
        needs = record.bucket.name in ("perception MCQ", "planning VQA")
        assert (desc is not None) == needs, record.question


def test_every_abort_is_named_at_once(descriptions: dict[str, Any], records: list[DBRecord]) -> None:
    broken = json.loads(json.dumps(descriptions))
    del broken[records[0].scene_token]
    with pytest.raises(DataValidationError) as caught:
        judge_descriptions(records, broken, "vd.json", DataWarnings("t"))
    first_frame = [r for r in records if r.scene_token == records[0].scene_token]
    wanted = [r for r in first_frame if r.bucket.name in ("perception MCQ", "planning VQA")]
    # the safe-actions question gets its fixed sentence before any lookup, as officially
    assert len(caught.value.problems) == len(wanted) - 1 == 3


def test_rubric_slot_without_an_object_is_filled_and_warned(descriptions: dict[str, Any]) -> None:
    record = DBRecord(0, "s", "f", "planning", (1,), "What should the ego vehicle do next?", "Stop.",
                      Bucket("planning", "VQA"), (("CAM_FRONT", "samples/CAM_FRONT/x.jpg"),))  # fmt: skip
    warnings = DataWarnings("t")
    assert judge_descriptions([record], {"s": {"key_frames": {"f": {"key_object_infos": {}}}}}, "x", warnings) == [
        NO_DESCRIPTION
    ]
    assert warnings.count(FILLED_IN) == 1
