"""DriveLMM-o1 loads what the official scripts load: repeated idx, camera order, unused fields, unreadable golds.

Every case edits a copy of the demo test file; the demo nuScenes folder provides the images.
"""

from __future__ import annotations

import asyncio
import copy
import json
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelName, ModelOutput
from inspect_ai.scorer import SampleScore, Target
from inspect_ai.solver import TaskState

from drive_evals.data import demo_dir
from drive_evals.data_warnings import DataWarnings
from drive_evals.drivelmm_o1.dataset import ImageOptions, check_files, load_drivelmm_o1
from drive_evals.drivelmm_o1.mcq import official_correct
from drive_evals.drivelmm_o1.metrics import mcq_metrics
from drive_evals.drivelmm_o1.records import CAMERAS, TEST_FILE, parse_records
from drive_evals.drivelmm_o1.scorer import GOLD_UNREADABLE_NOTE, drivelmm_o1_scorer, explain
from drive_evals.drivelmm_o1.task import drivelmm_o1
from drive_evals.errors import DataValidationError

DEMO = demo_dir("drivelmm_o1")
NUSCENES = DEMO / "nuscenes"
VIEWS = ImageOptions(mode="views")
"""Separate views: no grid is stitched, so these tests stay fast."""


def demo_raw() -> list[dict[str, Any]]:
    records = json.loads((DEMO / TEST_FILE).read_text())
    assert isinstance(records, list)
    return copy.deepcopy(records)


def parse(raw: list[dict[str, Any]]) -> tuple[list[Any], DataWarnings]:
    warnings = DataWarnings("DriveLMM-o1")
    return parse_records(raw, "test.json", warnings), warnings


def write(tmp_path: Path, raw: list[dict[str, Any]]) -> str:
    path = tmp_path / TEST_FILE
    path.write_text(json.dumps(raw))
    return str(path)


def test_demo_warns_only_about_its_documented_edge_case(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The demo is clean but for the one record built on purpose (tools/make_demo.py): an MCQ by the official
    number rule whose question has no options, so its gold answer has no letter."""
    monkeypatch.setenv("DRIVE_EVALS_CACHE", str(tmp_path))
    built = load_drivelmm_o1("demo", None, None, VIEWS)
    warnings = built.summary["data_warnings"]
    assert list(warnings) == ["mcq_gold_unreadable", "mcq_rule_disagreement"]
    assert warnings["mcq_gold_unreadable"]["count"] == warnings["mcq_rule_disagreement"]["count"] == 1
    (documented,) = built.summary["mcq_rule_disagreements"]
    assert documented in warnings["mcq_gold_unreadable"]["examples"][0]
    flagged = [s.metadata["idx"] for s in built.dataset if s.metadata and s.metadata["mcq_gold_unreadable"]]
    assert flagged == [documented]


def test_repeated_idx_is_evaluated_with_unique_ids(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DRIVE_EVALS_CACHE", str(tmp_path))
    raw = demo_raw()
    changed = {**raw[1], "question": raw[1]["question"] + " Explain."}
    repeated = [*raw, raw[0], changed, raw[0]]
    records, warnings = parse(repeated)
    assert len(records) == len(repeated), "every record is evaluated, as the official script does"
    entry = warnings.summary()["repeated_idx"]
    assert entry["count"] == 3
    examples = entry["examples"]
    assert examples[0].endswith("repeats record 0; identical")
    assert "repeats record 1; differs" in examples[1]
    built = load_drivelmm_o1(write(tmp_path, repeated), None, str(NUSCENES), VIEWS)
    ids = [sample.id for sample in built.dataset]
    assert len(set(ids)) == len(ids)
    first = str(raw[0]["idx"])
    by_id = {str(sample.id): sample for sample in built.dataset}  # in spread order: look samples up by id
    [plain] = [i for i, sample in by_id.items() if (sample.metadata or {})["idx"] == first and i[-2:-1] != "-"]
    assert {f"{plain}-2", f"{plain}-3"} <= set(by_id), "the repeats get the suffixes, the first record the plain id"
    tail = by_id[f"{plain}-3"]
    assert tail.metadata is not None and tail.metadata["idx"] == first
    assert built.summary["data_warnings"]["repeated_idx"]["count"] == 3


def test_camera_order_restored_from_folder_names() -> None:
    raw = demo_raw()[:1]
    original = list(raw[0]["image"])
    raw[0]["image"] = list(reversed(original))
    records, warnings = parse(raw)
    assert list(records[0].images) == original
    assert [path.split("/")[1] for path in records[0].images] == list(CAMERAS)
    assert warnings.count("camera_order_restored") == 1


@pytest.mark.parametrize(
    "change",
    [
        lambda images: [images[1], *images[1:]],  # CAM_FRONT twice, CAM_FRONT_LEFT missing
        lambda images: [images[0].replace("CAM_FRONT_LEFT/", "CAM_SIDE/"), *images[1:]],
        lambda images: [path.rsplit("/", 1)[1] for path in images],  # no camera folders at all
    ],
    ids=["repeated camera", "unknown folder", "bare file names"],
)
def test_camera_mismatch_that_cannot_be_restored_is_an_error(change: Any) -> None:
    raw = demo_raw()[:1]
    raw[0]["image"] = change(raw[0]["image"])
    with pytest.raises(DataValidationError) as caught:
        parse(raw)
    message = str(caught.value)
    assert f"record 0 (idx {raw[0]['idx']!r}): field 'image'" in message
    assert "the order cannot be restored" in message


def test_unused_or_harmless_fields_warn() -> None:
    raw = demo_raw()[:2]
    raw[0]["lidar"] = 42
    raw[1]["question"] = "   "
    records, warnings = parse(raw)
    assert records[0].lidar is None
    assert warnings.count("malformed_lidar") == 1 and warnings.count("empty_question") == 1
    assert check_files(records, NUSCENES, lidar=False)
    with pytest.raises(DataValidationError, match="field 'lidar': missing, but lidar=true needs it"):
        check_files(records, NUSCENES, lidar=True)


def gold_without_letter() -> list[dict[str, Any]]:
    raw = demo_raw()
    mcq = next(r for r in raw if int(str(r["idx"]).rsplit("_", 1)[1]) in {2, 3, 4, 5, 8})
    mcq["final_answer"] = "Slow down and assess the situation."
    return raw


def score_without_judge(sample: Sample, response: str) -> SampleScore:
    """The task's scorer (judge off) on one sample, as Inspect calls it, wrapped as the metrics receive it."""
    state = TaskState(
        model=ModelName("test/reply"),
        sample_id=str(sample.id),
        epoch=1,
        input=sample.input,
        messages=[],
        target=Target(sample.target),
        output=ModelOutput.from_content("test/reply", response),
        metadata=sample.metadata,
    )
    score = asyncio.run(drivelmm_o1_scorer(judge=False)(state, state.target))
    assert score is not None
    return SampleScore(score=score, sample_id=sample.id, sample_metadata=sample.metadata)


def test_mcq_gold_without_letter_warns_flags_and_counts(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DRIVE_EVALS_CACHE", str(tmp_path / "derived"))
    data = write(tmp_path, gold_without_letter())
    task = drivelmm_o1(data=data, nuscenes_root=str(NUSCENES), judge=False, image_mode="views")
    demo_items = 1
    """The demo's own gold without a letter (see the test above)."""
    assert task.metadata is not None
    assert task.metadata["data_warnings"]["mcq_gold_unreadable"]["count"] == demo_items + 1
    flagged = {s.id for s in task.dataset if s.metadata and s.metadata["mcq_gold_unreadable"]}
    assert len(flagged) == demo_items + 1
    scores = [score_without_judge(sample, "Reasoning Steps: none.\nFinal Answer: slow down") for sample in task.dataset]
    values = mcq_metrics()(scores)  # type: ignore[arg-type]  # Inspect's Metric protocol types it as list[Score]
    assert isinstance(values, dict)
    assert values["mcq_gold_unreadable_count"] == demo_items + 1
    assert values["mcq_none_quirk_count"] == demo_items + 1, "no letter in the reply: the quirk fires on both"
    for scored in scores:
        noted = GOLD_UNREADABLE_NOTE in str(scored.score.explanation)
        assert noted == (scored.sample_id in flagged), scored.sample_id


def test_explanation_flags_only_unreadable_golds() -> None:
    result = official_correct("Final Answer: A) Go.", "A) Go.")
    assert GOLD_UNREADABLE_NOTE not in explain([], True, result, result)
    assert GOLD_UNREADABLE_NOTE in explain([], True, result, result, gold_unreadable=True)
