"""DriveBench samples: settings, image files per setting, the official resize, text-only, checks before any call."""

from __future__ import annotations

import base64
import io
import shutil
from pathlib import Path

import pytest
from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessageUser, ContentImage, ContentText
from PIL import Image

from drive_evals.data import demo_dir
from drive_evals.drivebench.dataset import load_drivebench, parse_image_size
from drive_evals.drivebench.settings import CORRUPTIONS, SETTINGS, parse_settings
from drive_evals.drivebench.solver import input_images, official_message
from drive_evals.errors import DataValidationError, ParameterError


@pytest.fixture(autouse=True)
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DRIVE_EVALS_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("NUSCENES_ROOT", raising=False)
    monkeypatch.delenv("DRIVEBENCH_CORRUPTION_ROOT", raising=False)


def images(sample_input: object) -> list[str]:
    assert isinstance(sample_input, list)
    return [part.image for part in sample_input[0].content if isinstance(part, ContentImage)]


def decode(image: str) -> Image.Image:
    if image.startswith("data:"):
        return Image.open(io.BytesIO(base64.b64decode(image.split(",", 1)[1])))
    return Image.open(image)


def test_parse_settings() -> None:
    assert [s.name for s in parse_settings("clean")] == ["clean"]
    assert [s.name for s in parse_settings("clean, NoImage,Fog,fog")] == ["clean", "text_only", "fog"]
    assert [s.name for s in parse_settings(["H256ABRCompression", "bright"])] == ["h256", "bright"]
    assert len(parse_settings("corruptions")) == len(CORRUPTIONS) == 15
    assert len(parse_settings("all")) == len(SETTINGS) == 17
    with pytest.raises(
        ParameterError, match=r"setting='fgo' \(did you mean 'fog'\?\): valid values are clean, text_only"
    ):
        parse_settings("fgo")
    with pytest.raises(ParameterError):
        parse_settings(3)


def test_parse_image_size() -> None:
    assert parse_image_size("224x224") == (224, 224)
    assert parse_image_size("native") is None
    with pytest.raises(ParameterError, match="image_size"):
        parse_image_size("big")


def test_paired_settings_share_question_keys() -> None:
    built = load_drivebench("demo", None, parse_settings("clean,text_only,fog"), None, None, (224, 224))
    per_setting: dict[str, list[str]] = {}
    for sample in built.dataset:
        assert sample.metadata is not None
        per_setting.setdefault(sample.metadata["setting"], []).append(sample.metadata["question_key"])
        assert sample.id == f"{sample.metadata['question_key']}-{sample.metadata['setting']}"
    assert per_setting["clean"] == per_setting["text_only"] == per_setting["fog"]
    assert len(per_setting["clean"]) == built.summary["records"] == 15
    assert len({s.id for s in built.dataset}) == 45


def _shown_question(sample: Sample) -> str:
    assert isinstance(sample.input, list) and isinstance(sample.input[0].content, list)
    [text] = [part.text for part in sample.input[0].content if isinstance(part, ContentText)]
    return text


def test_the_viewer_shows_each_questions_setting_and_the_model_gets_the_official_prompt() -> None:
    """The viewer cuts the id column at 10 characters, so `drivebench-7e4c32-q2-clean`, `-text_only` and `-fog`
    looked alike: with several settings the question shown leads with its setting. The ids stay (pairing reads
    them), and the message sent is built from the metadata's question, unchanged."""
    built = load_drivebench("demo", None, parse_settings("clean,text_only,fog"), None, None, (224, 224))
    by_id = {str(s.id): s for s in built.dataset}
    question = by_id["drivebench-7e4c32-q2-fog"].metadata["question"]  # type: ignore[index]
    for setting in ("clean", "text_only", "fog"):
        assert _shown_question(by_id[f"drivebench-7e4c32-q2-{setting}"]) == f"[{setting}] {question}"
    sample = by_id["drivebench-7e4c32-q2-fog"]
    assert isinstance(sample.input, list) and isinstance(sample.input[0], ChatMessageUser)
    sent = official_message(["CAM_BACK"], question, input_images(sample.input[0]))
    assert "[fog]" not in str(sent.content) and question in str(sent.content)
    single = load_drivebench("demo", None, parse_settings("fog"), None, None, (224, 224)).dataset[1]
    assert _shown_question(single) == single.metadata["question"]  # type: ignore[index]


def test_images_per_setting() -> None:
    built = load_drivebench("demo", None, parse_settings("clean,text_only,fog"), None, None, (224, 224))
    by_id = {str(s.id): s for s in built.dataset}
    mcq = "drivebench-7e4c32-q2"  # names CAM_BACK: one image
    behavior = "drivebench-7e4c32-q8"  # all six
    two = "drivebench-c2b4f6-q5"  # names CAM_FRONT_LEFT and CAM_BACK_RIGHT
    assert len(images(by_id[f"{mcq}-clean"].input)) == 1
    assert len(images(by_id[f"{behavior}-clean"].input)) == 6
    assert by_id[f"{two}-clean"].metadata["cameras"] == ["CAM_FRONT_LEFT", "CAM_BACK_RIGHT"]  # type: ignore[index]
    clean, fog = decode(images(by_id[f"{mcq}-clean"].input)[0]), decode(images(by_id[f"{mcq}-fog"].input)[0])
    assert clean.size == fog.size == (224, 224)
    assert clean.convert("RGB").getpixel((5, 120)) != fog.convert("RGB").getpixel((5, 120))
    black = decode(images(by_id[f"{behavior}-text_only"].input)[0])
    assert black.size == (224, 224) and black.convert("RGB").getextrema() == ((0, 0), (0, 0), (0, 0))
    assert len(images(by_id[f"{behavior}-text_only"].input)) == 6, "one black image per kept camera"


def test_official_resize_is_pil_default_squash() -> None:
    built = load_drivebench("demo", None, parse_settings("clean"), None, None, (224, 224))
    sample = next(s for s in built.dataset if s.id == "drivebench-7e4c32-q2")
    source = demo_dir("drivebench") / "nuscenes" / "samples" / "CAM_BACK"
    original = next(source.glob("n008-*.jpg"))
    with Image.open(original) as image:
        expected = image.convert("RGB").resize((224, 224))
    assert decode(images(sample.input)[0]).convert("RGB").tobytes() == expected.tobytes()


def test_one_setting_ids_are_the_question_keys() -> None:
    """So that a text-only run and a clean run pair by sample id in the report (the blind gap)."""
    clean = load_drivebench("demo", None, parse_settings("clean"), None, None, None)
    text_only = load_drivebench("demo", None, parse_settings("text_only"), None, None, None)
    assert [s.id for s in clean.dataset] == [s.id for s in text_only.dataset]
    assert [s.id for s in clean.dataset] == [s.metadata["question_key"] for s in clean.dataset]  # type: ignore[index]
    assert text_only.summary["blind"] and not clean.summary["blind"]


def test_native_size_sends_the_file() -> None:
    built = load_drivebench("demo", None, parse_settings("clean"), None, None, None)
    assert images(built.dataset[0].input)[0].endswith(".jpg")


def test_missing_and_broken_images_are_all_named(tmp_path: Path) -> None:
    root = tmp_path / "demo"
    shutil.copytree(demo_dir("drivebench"), root)
    back = sorted((root / "nuscenes" / "samples" / "CAM_BACK").glob("*.jpg"))
    back[0].unlink()
    front = sorted((root / "corruption" / "Fog" / "CAM_FRONT").glob("*.jpg"))[0]
    front.write_bytes(front.read_bytes()[:200])
    with pytest.raises(DataValidationError) as caught:
        load_drivebench(
            str(root), None, parse_settings("clean,fog"), str(root / "nuscenes"), str(root / "corruption"), None
        )
    text = str(caught.value)
    assert "not found" in text and "(clean, CAM_BACK)" in text
    assert "(fog, CAM_FRONT)" in text and ("truncated JPEG" in text or "not a readable image" in text)


def test_roots_are_required_for_the_settings_that_read_them(tmp_path: Path) -> None:
    (tmp_path / "drivebench-test.json").write_text((demo_dir("drivebench") / "drivebench-test.json").read_text())
    with pytest.raises(ParameterError, match="nuscenes_root"):
        load_drivebench(str(tmp_path), None, parse_settings("clean"), None, None, None)
    with pytest.raises(ParameterError, match="corruption_root"):
        load_drivebench(str(tmp_path), None, parse_settings("fog"), str(tmp_path), None, None)
    text_only = load_drivebench(str(tmp_path), None, parse_settings("text_only"), None, None, None)
    assert len(text_only.dataset) == 15, "text-only reads no image file"


def test_shard_splits_by_scene() -> None:
    from drive_evals.shard import Shard

    parts = [load_drivebench("demo", None, parse_settings("clean"), None, None, None, Shard(i, 2)) for i in (1, 2)]
    scenes = [{s.metadata["scene"] for s in part.dataset} for part in parts]  # type: ignore[index]
    assert len(scenes[0]) == len(scenes[1]) == 1 and scenes[0] != scenes[1]
    assert sum(len(p.dataset) for p in parts) == 15
