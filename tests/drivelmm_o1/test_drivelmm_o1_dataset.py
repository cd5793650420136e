"""DriveLMM-o1 records and files are validated before any call; samples follow the official prompt layout."""

from __future__ import annotations

import asyncio
import copy
import json
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.model import ChatMessageUser, ContentImage, ContentText, ModelName
from inspect_ai.solver import TaskState

from drive_evals.data import demo_dir
from drive_evals.drivelmm_o1.dataset import (
    check_files,
    frame_keys,
    record_to_sample,
    sample_ids,
)
from drive_evals.drivelmm_o1.prompts import MODEL_PROMPT
from drive_evals.drivelmm_o1.records import TEST_FILE, load_records, parse_records
from drive_evals.drivelmm_o1.solver import official_prompt
from drive_evals.errors import DataValidationError

DEMO = demo_dir("drivelmm_o1")


def demo_raw() -> list[dict[str, Any]]:
    records = json.loads((DEMO / TEST_FILE).read_text())
    assert isinstance(records, list)
    return records


def problems(raw: object) -> str:
    with pytest.raises(DataValidationError) as caught:
        parse_records(raw, "test.json")
    return str(caught.value)


def test_demo_records_parse() -> None:
    records = load_records(DEMO / TEST_FILE)
    assert len(records) == len(demo_raw())
    assert all(len(r.images) == 6 for r in records)
    assert {r.frame for r in records} == {r["idx"].rsplit("_", 1)[0] for r in demo_raw()}


def test_schema_problems_name_record_and_field() -> None:
    raw = copy.deepcopy(demo_raw()[:4])
    raw[0]["image"] = raw[0]["image"][:5]
    raw[1]["idx"] = "no-number"
    del raw[2]["steps"]
    raw[3]["question"] = 42
    message = problems(raw)
    assert "record 0 (idx " in message and "field 'image': expected a list of 6 paths" in message
    assert "record 1 (idx 'no-number'): field 'idx'" in message
    assert "record 2 (idx " in message and "field 'steps': expected a string" in message
    assert "record 3 (idx " in message and "field 'question'" in message


def test_shape() -> None:
    raw = demo_raw()[:2]
    assert "expected a JSON list" in problems({"idx": raw[0]})
    assert "no records" in problems([])


def test_files_checked_once_and_escapes_rejected(tmp_path: Path) -> None:
    records = load_records(DEMO / TEST_FILE)
    missing = tmp_path / "nuscenes"
    (missing / "samples").mkdir(parents=True)  # without it, one problem says so (tests/test_data_hints.py)
    with pytest.raises(DataValidationError) as caught:
        check_files(records, missing, lidar=False)
    message = str(caught.value)
    frames = {r.frame for r in records}
    assert message.startswith(f"{6 * len(frames)} problem(s)"), "each missing view is reported once"
    escaping = copy.deepcopy(demo_raw()[:1])
    escaping[0]["image"][2] = "../../CAM_FRONT_RIGHT/passwd"  # in its camera's folder, outside the root
    with pytest.raises(DataValidationError, match="escapes the nuScenes root"):
        check_files(parse_records(escaping, "t"), DEMO / "nuscenes", lidar=False)


def test_lidar_files_checked_only_when_asked() -> None:
    records = parse_records([{**demo_raw()[0], "lidar": "samples/LIDAR_TOP/missing.pcd.bin"}], "t")
    assert check_files(records, DEMO / "nuscenes", lidar=False)
    with pytest.raises(DataValidationError, match="field 'lidar'"):
        check_files(records, DEMO / "nuscenes", lidar=True)


def test_official_prompt_layout() -> None:
    """The input shows the question; the solver sends the official layout, byte for byte."""
    record = load_records(DEMO / TEST_FILE)[0]
    image = ContentImage(image="grid.jpg")
    sample = record_to_sample(record, [image], "drivelmm-abc123-q1")
    message = sample.input[0]
    assert isinstance(message, ChatMessageUser) and isinstance(message.content, list)
    assert message.content[0] == ContentText(text=record.question.strip()) and message.content[1] is image
    state = TaskState(ModelName("test/x"), "drivelmm-abc123-q1", 1, sample.input, [message], metadata=sample.metadata)
    sent = asyncio.run(official_prompt()(state, generate=None))  # type: ignore[arg-type]
    content = sent.messages[0].content
    assert isinstance(content, list) and len(sent.messages) == 1
    assert isinstance(content[0], ContentText) and content[0].text == MODEL_PROMPT + "\n"
    assert content[1] is image
    assert isinstance(content[2], ContentText) and content[2].text == "\n" + record.question.strip()
    assert sample.id == "drivelmm-abc123-q1"
    assert sample.metadata is not None and sample.metadata["question"] == record.question


def test_sample_ids_are_short_readable_and_unique() -> None:
    records = load_records(DEMO / TEST_FILE)
    ids = sample_ids(records)
    assert len(set(ids)) == len(ids) == len(records)
    first = records[0]
    token = first.frame.rpartition("_")[2]
    assert ids[0] == f"drivelmm-{token[:6]}-q{first.question_number:02d}"
    assert all(len(sample_id) <= 20 for sample_id in ids), ids
    by_frame = [
        [i for i, r in zip(ids, records, strict=True) if r.frame == frame] for frame in {r.frame for r in records}
    ]
    for frame_ids in by_frame:  # the viewer sorts ids as text: that order is the question order
        numbers = [records[ids.index(i)].question_number for i in sorted(frame_ids)]
        assert numbers == sorted(numbers), frame_ids
    assert sample_ids(records) == ids, "stable: the same records give the same ids"


def test_frame_key_collisions_are_resolved_deterministically() -> None:
    frames = ["scene1_abcdef0001", "scene2_abcdef0002", "scene3_123456ffff", "sceneA_samesame99", "sceneB_samesame99"]
    keys = frame_keys(frames)
    assert keys["scene1_abcdef0001"] == "abcdef0001" and keys["scene2_abcdef0002"] == "abcdef0002"
    assert keys["scene3_123456ffff"] == "123456"
    assert keys["sceneA_samesame99"] == "sceneA_samesame99", "the same sample token: the whole frame name"
    assert len(set(keys.values())) == len(frames)
    assert frame_keys(list(reversed(frames))) == keys


def test_a_repeated_idx_gets_a_numbered_id() -> None:
    record = load_records(DEMO / TEST_FILE)[0]
    ids = sample_ids([record, record, record])
    base = ids[0]
    assert ids == [base, f"{base}-2", f"{base}-3"]
