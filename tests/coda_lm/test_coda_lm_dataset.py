"""CODA-LM data: the annotation JSON with CODA2022 images and the llava parquet to samples; every problem in one
pass; never stricter than the official code; the red box drawn as convert2vqa draws it, cached."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from inspect_ai.model import ContentImage, ContentText
from PIL import Image

from drive_evals.coda_lm import boxes
from drive_evals.coda_lm.dataset import CodaData, load_coda_lm, parse_split, parse_tasks
from drive_evals.coda_lm.prompts import MODEL_PROMPTS, TASKS
from drive_evals.data import demo_dir
from drive_evals.errors import DataValidationError, ParameterError
from drive_evals.kit import SuiteArgs

DEMO = demo_dir("coda_lm")


def load(data: str, split: str, tasks: list[str], images: str | None = None, shard: str | None = None) -> CodaData:
    """The loader as the task calls it, with the suite parameters checked as `@suite_task` checks them."""
    suite = SuiteArgs.checked("coda_lm", {"data": data, "revision": None, "blind": False, "shard": shard})
    return load_coda_lm(suite, split, tasks, images)  # type: ignore[arg-type]


@pytest.fixture(autouse=True)
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DRIVE_EVALS_CACHE", str(tmp_path / "derived"))
    monkeypatch.delenv("CODA2022_ROOT", raising=False)


def copy_demo(tmp_path: Path) -> Path:
    root = tmp_path / "data"
    shutil.copytree(DEMO, root)
    return root


def test_demo_test_split() -> None:
    built = load("demo", "Test", list(TASKS), None)
    samples = list(built.samples)
    by_task = {t: [s for s in samples if s.metadata and s.metadata["task"] == t] for t in TASKS}
    assert [len(by_task[t]) for t in TASKS] == [6, 9, 6]
    ids = {str(s.id) for s in samples}
    assert {"coda-lm-test-gp-0085", "coda-lm-test-ds-0085", "coda-lm-test-rp-0140-3"} <= ids
    assert not any(i.startswith("coda-lm-test-rp-0085") for i in ids)  # an image without regions
    region = next(s for s in samples if s.id == "coda-lm-test-rp-0140-3")
    assert region.metadata is not None and region.metadata["supercategory"] == "unmapped"
    assert built.warnings.count("unmapped_category") == 1
    first = region.input[0]
    assert not isinstance(first, str) and not isinstance(first.content, str)
    image, question = first.content
    assert isinstance(image, ContentImage) and isinstance(question, ContentText)
    assert question.text == MODEL_PROMPTS["region_perception"] and "boxes" in image.image
    assert built.summary["tasks"] == list(TASKS)


def test_splits_and_tasks() -> None:
    mini = load("demo", "Mini", ["general_perception"], None)
    assert sorted(str(s.id) for s in mini.samples) == ["coda-lm-mini-gp-0301", "coda-lm-mini-gp-0302"]
    assert parse_split("test") == "Test" and parse_tasks("driving_suggestion, general_perception") == [
        "general_perception",
        "driving_suggestion",
    ]
    with pytest.raises(ParameterError, match="tasks="):
        parse_tasks("region")
    with pytest.raises(ParameterError, match="Mini is inside Val"):
        parse_split("dev")


def test_shards_split_by_image() -> None:
    parts = [load("demo", "Test", list(TASKS), None, f"{i}/2") for i in (1, 2)]
    images = [{s.metadata["image_id"] for s in p.samples if s.metadata} for p in parts]
    assert images[0] and images[1] and not images[0] & images[1]
    assert sum(len(p.samples) for p in parts) == 21


def test_every_problem_in_one_pass(tmp_path: Path) -> None:
    root = copy_demo(tmp_path)
    test = root / "CODA-LM" / "Test"
    doc = json.loads((test / "test_0012.json").read_text())
    del doc["driving_suggestion"]
    doc["region_perception"]["1"]["box"] = [1, 2, "w", 4]
    doc["region_perception"]["2"]["box"] = [1, 2, -3, 4]
    (test / "test_0012.json").write_text(json.dumps(doc))
    (root / "test" / "images" / "0233.jpg").unlink()
    (test / "notes.json").write_text("{}")
    with pytest.raises(DataValidationError) as raised:
        load(str(root), "Test", list(TASKS), None)
    text = str(raised.value)
    assert "5 problem(s)" in text
    for expected in (
        "missing driving_suggestion",
        "four numbers",
        "negative width",
        "0233.jpg not found",
        "notes.json",
    ):
        assert expected in text


def test_what_official_code_does_not_read_is_not_checked(tmp_path: Path) -> None:
    """A general-perception run reads neither the suggestion nor the regions; extra keys are ignored."""
    root = copy_demo(tmp_path)
    path = root / "CODA-LM" / "Test" / "test_0012.json"
    doc = json.loads(path.read_text())
    del doc["driving_suggestion"]
    doc["region_perception"] = "broken"
    doc["extra"] = 1
    path.write_text(json.dumps(doc))
    built = load(str(root), "Test", ["general_perception"], None)
    assert len(built.samples) == 6


def test_pre_release_test_annotations_are_refused(tmp_path: Path) -> None:
    root = copy_demo(tmp_path)
    for path in (root / "CODA-LM" / "Test").glob("*.json"):
        doc = json.loads(path.read_text())
        doc["general_perception"]["description and explanation"] = ""
        doc["driving_suggestion"] = ""
        for region in doc["region_perception"].values():
            region["description and explanation"] = ""
        path.write_text(json.dumps(doc))
    with pytest.raises(DataValidationError, match="d556763"):
        load(str(root), "Test", list(TASKS), None)
    mini = load(str(root), "Mini", list(TASKS), None)  # only Test's were held back
    assert len(mini.samples) > 0


def test_images_outside_the_data_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = copy_demo(tmp_path)
    images = tmp_path / "coda2022"
    shutil.move(str(root / "test"), str(images / "test"))
    with pytest.raises(ParameterError, match="CODA2022"):
        load(str(root), "Test", list(TASKS), None)
    assert len(load(str(root), "Test", list(TASKS), str(images)).samples) == 21
    monkeypatch.setenv("CODA2022_ROOT", str(images))
    assert len(load(str(root), "Test", list(TASKS), None).samples) == 21


def test_box_drawn_as_convert2vqa(tmp_path: Path) -> None:
    """The protocol's run of convert2vqa's drawing: box [100, 200, 50, 80] on 1920x1080 gives red pixels spanning
    x 100-150 and y 200-281 (the 2-pixel line drawn inward), and the file is Pillow's default JPEG of that image."""
    original = tmp_path / "0001.jpg"
    Image.new("RGB", (1920, 1080), (0, 0, 0)).save(original)
    drawn = boxes.with_box(Image.open(original), (100, 200, 50, 80))
    pixels = drawn.load()
    assert pixels is not None
    red = [(x, y) for x in range(90, 170) for y in range(190, 300) if pixels[x, y] == (255, 0, 0)]
    assert (min(x for x, _ in red), max(x for x, _ in red)) == (100, 150)
    assert (min(y for _, y in red), max(y for _, y in red)) == (200, 280)
    assert pixels[101, 240] == (255, 0, 0) and pixels[102, 240] != (255, 0, 0)  # width 2, inward
    boxes.draw_box(original, (100, 200, 50, 80), tmp_path / "boxed.jpg")
    drawn.save(tmp_path / "default.jpg")  # what `Image.save(path)` writes with no options
    assert (tmp_path / "boxed.jpg").read_bytes() == (tmp_path / "default.jpg").read_bytes()


def test_boxed_images_are_cached(tmp_path: Path) -> None:
    original = DEMO / "test" / "images" / "0007.jpg"
    first = boxes.boxed_image(original, (520, 300, 260, 170))
    stamp = first.stat().st_mtime_ns
    assert boxes.boxed_image(original, (520, 300, 260, 170)) == first and first.stat().st_mtime_ns == stamp
    assert boxes.boxed_image(original, (520, 300, 261, 170)) != first


def test_parquet_layout() -> None:
    pytest.importorskip("pyarrow")
    parquet = DEMO / "llava"
    built = load(str(parquet), "Test", list(TASKS), None)
    from_json = load("demo", "Test", list(TASKS), None)
    assert sorted(str(s.id) for s in built.samples) == sorted(str(s.id) for s in from_json.samples)
    targets = {str(s.id): s.target for s in from_json.samples}
    assert all(s.target == targets[str(s.id)] for s in built.samples)
    region = next(s for s in built.samples if s.metadata and s.metadata["task"] == "region_perception")
    assert region.metadata is not None and region.metadata["supercategory"] == "unknown"


def test_parquet_problems(tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    rows = [
        {
            "id": "x_1",
            "image": {"bytes": b"\xff\xd8", "path": "0001.jpg"},
            "conversations": [{"from": "human", "value": "<image>\nWhat is this?"}, {"from": "gpt", "value": "A car."}],
        },
        {
            "id": "x_2",
            "image": {"bytes": None, "path": "0002.jpg"},
            "conversations": [
                {"from": "human", "value": MODEL_PROMPTS["general_perception"]},
                {"from": "gpt", "value": "A car."},
            ],
        },
    ]
    file = tmp_path / "Test-00000-of-00001.parquet"
    pq.write_table(pa.Table.from_pylist(rows), file)
    with pytest.raises(DataValidationError) as raised:
        load(str(file), "Test", list(TASKS), None)
    assert "2 problem(s)" in str(raised.value) and "not one of the three" in str(raised.value)
