"""The shipped demo data: what `tools/make_demo.py` generates, in the official formats, covering the protocol's rules.

The demo is what `data=demo` runs and the end-to-end tests use, so a stale or malformed file would silently test
the wrong thing: regenerate it and compare, then check every format promise a loader relies on.
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import math
import random
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from PIL import Image

REPO_ROOT = Path(__file__).resolve().parents[1]
GENERATOR = REPO_ROOT / "tools" / "make_demo.py"
DEMO = REPO_ROOT / "src" / "drive_evals" / "demo"
SURDS_ROOT = DEMO / "surds" / "validation"
DRIVELMM_O1_ROOT = DEMO / "drivelmm_o1"
DRIVELMM_O1_TEST_FILE = DRIVELMM_O1_ROOT / "DriveLMMo1_TEST.json"
NUSCENES_ROOT = DRIVELMM_O1_ROOT / "nuscenes"

IMAGE_SIZE = (1600, 900)
SURDS_FIELDS = [
    "file_name",
    "descs",
    "xy2Ds",
    "xyz3Ds",
    "bboxes2D",
    "categories",
    "yaws",
    "yaw_descs",
    "depths",
    "distances",
]
SURDS_CAMERAS = ("CAM_FRONT", "CAM_FRONT_LEFT", "CAM_FRONT_RIGHT", "CAM_BACK", "CAM_BACK_LEFT", "CAM_BACK_RIGHT")
COMPASS_CLOCKWISE = ("North", "Northeast", "East", "Southeast", "South", "Southwest", "West", "Northwest")
DIAGONAL = {"Northeast", "Southeast", "Southwest", "Northwest"}
PROTOCOL_SEED = 42
DRIVELMM_O1_FIELDS = ["idx", "image", "question", "final_answer", "steps", "lidar"]
DRIVELMM_O1_CAMERAS = ["CAM_FRONT_LEFT", "CAM_FRONT", "CAM_FRONT_RIGHT", "CAM_BACK_RIGHT", "CAM_BACK", "CAM_BACK_LEFT"]
MCQ_NUMBERS = {2, 3, 4, 5, 8}
MCQ_INTRO = "Choose from the following answers only"
OPTION_LINE = re.compile(r"^\s*([A-F])\) (.+)$", re.MULTILINE)
LOG_NAME = r"n\d{3}-\d{4}-\d\d-\d\d-\d\d-\d\d-\d\d[+-]\d{4}"

MIN_OBJECT_CONTRAST = 12.0
"""Mean absolute difference (0-255) between an object's box and the bare street: the object is visibly there."""
MAX_BACKGROUND_DRIFT = 4.0
"""Mean difference outside all boxes (blur and WebP loss only): nothing is drawn where no object is annotated."""
BOX_MARGIN_PX = 4
PATCH_SAMPLE_HALF_PX = 80
PATCH_TOLERANCE = 16
MAX_PIXEL_DRIFT = 1.0
"""Regenerated images may differ from the shipped ones by encoder noise only."""


@pytest.fixture(scope="module")
def make_demo() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_demo", GENERATOR)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def regenerated(make_demo: ModuleType, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("demo")
    make_demo.main(["--out", str(out)])
    return out


@pytest.fixture(scope="module")
def surds_records() -> list[dict[str, Any]]:
    return [json.loads(line) for line in (SURDS_ROOT / "metadata.jsonl").read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def drivelmm_o1_records() -> list[dict[str, Any]]:
    records = json.loads(DRIVELMM_O1_TEST_FILE.read_text(encoding="utf-8"))
    assert isinstance(records, list)
    return records


def relative_files(root: Path) -> list[str]:
    return sorted(path.relative_to(root).as_posix() for path in root.rglob("*") if path.is_file())


def pixels(path: Path) -> np.ndarray:
    with Image.open(path) as image:
        return np.asarray(image.convert("RGB"), dtype=float)


def single_and_pairs(records: list[dict[str, Any]]) -> tuple[list[int], list[tuple[int, int, int]]]:
    """The protocol's single-object pool and object pairs (record index, i, j), in record order."""
    pool = [k for k, record in enumerate(records) if len(record["descs"]) == 1]
    pairs = [
        (k, i, j)
        for k, record in enumerate(records)
        if len(record["descs"]) > 1
        for i, j in itertools.combinations(range(len(record["descs"])), 2)
    ]
    return pool, pairs


# --- regeneration ----------------------------------------------------------------------------------------------


REGENERATES = pytest.mark.slow
"""The regeneration tests share one run of the demo generator (one xdist group: once a session, not per worker)."""


@REGENERATES
@pytest.mark.parametrize("dataset", ["surds", "drivelmm_o1"])
def test_regeneration_gives_the_same_files(regenerated: Path, dataset: str) -> None:
    assert relative_files(regenerated / dataset) == relative_files(DEMO / dataset)


@REGENERATES
def test_regeneration_gives_identical_annotations_and_sweeps(regenerated: Path) -> None:
    exact = ["surds/validation/metadata.jsonl", "drivelmm_o1/DriveLMMo1_TEST.json"]
    exact += [f"drivelmm_o1/{p}" for p in relative_files(DRIVELMM_O1_ROOT) if p.endswith(".pcd.bin")]
    assert len(exact) == 5
    for relative in exact:
        assert (regenerated / relative).read_bytes() == (DEMO / relative).read_bytes(), relative


@REGENERATES
def test_regeneration_gives_the_same_images(regenerated: Path) -> None:
    images = [p for p in relative_files(DEMO) if p.endswith((".webp", ".jpg"))]
    assert images
    for relative in images:
        with Image.open(DEMO / relative) as shipped, Image.open(regenerated / relative) as fresh:
            assert (fresh.size, fresh.mode, fresh.format) == (shipped.size, shipped.mode, shipped.format), relative
        assert np.abs(pixels(DEMO / relative) - pixels(regenerated / relative)).mean() < MAX_PIXEL_DRIFT, relative


# --- SURDS -------------------------------------------------------------------------------------------------------


def test_surds_lines_have_the_official_fields_and_agree_with_the_camera(
    make_demo: ModuleType, surds_records: list[dict[str, Any]]
) -> None:
    for record in surds_records:
        name = record["file_name"]
        assert list(record) == SURDS_FIELDS, name
        count = len(record["descs"])
        assert count >= 1 and all(len(record[field]) == count for field in SURDS_FIELDS[1:]), name
        for xy, xyz, box, yaw, label, depth, distance in zip(
            record["xy2Ds"],
            record["xyz3Ds"],
            record["bboxes2D"],
            record["yaws"],
            record["yaw_descs"],
            record["depths"],
            record["distances"],
            strict=True,
        ):
            assert all(isinstance(v, int) for v in xy), name
            assert 0 <= box[0] <= xy[0] <= box[2] < IMAGE_SIZE[0], name
            assert 0 <= box[1] <= xy[1] <= box[3] < IMAGE_SIZE[1], name
            assert -math.pi < yaw <= math.pi + 1e-4, name
            assert label == COMPASS_CLOCKWISE[round(math.degrees(yaw) / 45) % 8], name
            assert depth == xyz[2] > 0, name
            assert distance == pytest.approx(math.dist((0, 0, 0), xyz), abs=1e-3), name
            u = make_demo.CX + make_demo.FOCAL_PX * xyz[0] / xyz[2]
            v = make_demo.CY + make_demo.FOCAL_PX * xyz[1] / xyz[2]
            assert abs(u - xy[0]) <= 0.51 and abs(v - xy[1]) <= 0.51, name


def test_surds_images_exist_with_the_official_names(surds_records: list[dict[str, Any]]) -> None:
    names = [record["file_name"] for record in surds_records]
    assert len(set(names)) == len(names)
    cameras = set()
    for name in names:
        match = re.fullmatch(r"image/(CAM_[A-Z_]+)/nuscenes_\d{4}_\1\.webp", name)
        assert match and match[1] in SURDS_CAMERAS, name
        cameras.add(match[1])
        with Image.open(SURDS_ROOT / name) as image:
            assert (image.format, image.size) == ("WEBP", IMAGE_SIZE), name
    assert len(cameras) >= 4
    assert relative_files(SURDS_ROOT / "image") == sorted(name.removeprefix("image/") for name in names)


def test_surds_metadata_is_not_sorted_by_file_name(surds_records: list[dict[str, Any]]) -> None:
    names = [record["file_name"] for record in surds_records]
    assert names != sorted(names)


def test_surds_descriptions_exercise_capitalize(surds_records: list[dict[str, Any]]) -> None:
    descs = [desc for record in surds_records for desc in record["descs"]]
    assert any(desc[1:] != desc[1:].lower() for desc in descs)


def test_surds_has_enough_single_object_records_for_every_pair(surds_records: list[dict[str, Any]]) -> None:
    pool, pairs = single_and_pairs(surds_records)
    assert pairs and len(pool) >= len(pairs)


def test_surds_pairs_cover_both_sides_of_every_rule(surds_records: list[dict[str, Any]]) -> None:
    _, pairs = single_and_pairs(surds_records)
    distance, x_gap, depth = [], [], []
    for k, i, j in pairs:
        record = surds_records[k]
        distance.append(abs(record["distances"][i] - record["distances"][j]))
        x_gap.append(abs(record["xy2Ds"][i][0] - record["xy2Ds"][j][0]))
        depth.append(abs(record["depths"][i] - record["depths"][j]))
    assert {d <= 1 for d in distance} == {True, False}
    assert {x < 100 for x in x_gap} == {True, False}
    assert {d < 0.5 for d in depth} == {True, False}
    assert 100 in x_gap, "a pair exactly on the left/right threshold"
    assert 0.5 in depth, "a pair exactly on the front/behind threshold"


def test_surds_sampled_images_cover_every_depth_and_yaw_branch(surds_records: list[dict[str, Any]]) -> None:
    pool, pairs = single_and_pairs(surds_records)
    chosen = sorted(random.Random(PROTOCOL_SEED).sample(pool, len(pairs)))
    depths = [surds_records[k]["depths"][0] for k in chosen]
    labels = {surds_records[k]["yaw_descs"][0] for k in chosen}
    assert any(d < 7 for d in depths) and any(7 <= d <= 15 for d in depths) and any(d > 15 for d in depths)
    assert any(d < 4 for d in depths), "the gold range's lower bound is clamped to 1"
    assert labels & DIAGONAL and labels - DIAGONAL


def test_surds_objects_are_drawn_at_their_boxes(make_demo: ModuleType, surds_records: list[dict[str, Any]]) -> None:
    specs = {spec.file_name: spec for spec in make_demo.SURDS_IMAGES}
    for record in surds_records:
        name = record["file_name"]
        drawn = pixels(SURDS_ROOT / name)
        street = np.asarray(make_demo.surds_background(specs[name]), dtype=float)
        difference = np.abs(drawn - street).mean(axis=2)
        outside = np.ones(difference.shape, dtype=bool)
        for desc, box in zip(record["descs"], record["bboxes2D"], strict=True):
            x0, y0, x1, y1 = (round(v) for v in box)
            assert difference[y0 : y1 + 1, x0 : x1 + 1].mean() > MIN_OBJECT_CONTRAST, (name, desc)
            outside[
                max(0, y0 - BOX_MARGIN_PX) : y1 + BOX_MARGIN_PX, max(0, x0 - BOX_MARGIN_PX) : x1 + BOX_MARGIN_PX
            ] = False
        assert difference[outside].mean() < MAX_BACKGROUND_DRIFT, name


# --- DriveLMM-o1 -------------------------------------------------------------------------------------------------


def test_drivelmm_o1_records_have_the_official_fields(drivelmm_o1_records: list[dict[str, Any]]) -> None:
    for record in drivelmm_o1_records:
        assert list(record) == DRIVELMM_O1_FIELDS
        assert re.fullmatch(r"[0-9a-f]{32}_[0-9a-f]{32}_([1-9]|10)", record["idx"]), record["idx"]
        assert [path.split("/")[1] for path in record["image"]] == DRIVELMM_O1_CAMERAS
        for path in record["image"]:
            assert re.fullmatch(rf"samples/(CAM_[A-Z_]+)/{LOG_NAME}__\1__\d{{16}}\.jpg", path), path
        assert re.fullmatch(rf"samples/LIDAR_TOP/{LOG_NAME}__LIDAR_TOP__\d{{16}}\.pcd\.bin", record["lidar"])
        assert record["steps"].startswith("\n1. ") and "\n2. " in record["steps"]
        assert record["question"].strip() and record["final_answer"].strip()
    assert len({record["idx"] for record in drivelmm_o1_records}) == len(drivelmm_o1_records)


def test_drivelmm_o1_frames_share_their_files(drivelmm_o1_records: list[dict[str, Any]]) -> None:
    frames: dict[str, list[dict[str, Any]]] = {}
    for record in drivelmm_o1_records:
        frames.setdefault(record["idx"].rsplit("_", 1)[0], []).append(record)
    assert len(frames) == 3
    logs = set()
    for records in frames.values():
        assert len({json.dumps([r["image"], r["lidar"]]) for r in records}) == 1
        logs.add(records[0]["lidar"].split("/")[-1].split("__")[0])
    assert len(logs) == 3


def test_drivelmm_o1_multiple_choice_rule_and_text_disagree_only_where_documented(
    make_demo: ModuleType, drivelmm_o1_records: list[dict[str, Any]]
) -> None:
    disagreements = []
    for record in drivelmm_o1_records:
        by_number = int(record["idx"].rsplit("_", 1)[1]) in MCQ_NUMBERS
        by_text = MCQ_INTRO in record["question"]
        if by_number != by_text:
            disagreements.append(record["idx"])
        if by_text:
            options = OPTION_LINE.findall(record["question"])
            assert "".join(letter for letter, _ in options) == "ABCDEF"[: len(options)] and len(options) >= 4
            assert record["final_answer"] in {f"{letter}) {text}" for letter, text in options}
    assert disagreements == [make_demo.DISAGREEMENT_IDX]


def test_drivelmm_o1_options_include_none_of_the_options(drivelmm_o1_records: list[dict[str, Any]]) -> None:
    assert any("F) None of the options." in record["question"] for record in drivelmm_o1_records)
    assert any(record["final_answer"] == "F) None of the options." for record in drivelmm_o1_records)


def test_drivelmm_o1_camera_images_show_their_camera(
    make_demo: ModuleType, drivelmm_o1_records: list[dict[str, Any]]
) -> None:
    colours = make_demo.CAMERA_COLOURS
    assert len(set(colours.values())) == len(DRIVELMM_O1_CAMERAS)
    centre_x, centre_y = (side // 2 for side in IMAGE_SIZE)
    for path in sorted({path for record in drivelmm_o1_records for path in record["image"]}):
        camera = path.split("/")[1]
        with Image.open(NUSCENES_ROOT / path) as image:
            assert (image.format, image.size, image.mode) == ("JPEG", IMAGE_SIZE, "RGB"), path
            patch = np.asarray(image, dtype=float)[
                centre_y - PATCH_SAMPLE_HALF_PX : centre_y + PATCH_SAMPLE_HALF_PX,
                centre_x - PATCH_SAMPLE_HALF_PX : centre_x + PATCH_SAMPLE_HALF_PX,
            ].mean(axis=(0, 1))
        assert np.abs(patch - np.array(colours[camera])).max() < PATCH_TOLERANCE, path


def test_drivelmm_o1_lidar_sweeps_are_readable_and_hold_the_scene_objects(
    make_demo: ModuleType, drivelmm_o1_records: list[dict[str, Any]]
) -> None:
    frames = {frame.lidar_path: frame for frame in make_demo.FRAMES}
    for relative in sorted({record["lidar"] for record in drivelmm_o1_records}):
        path = NUSCENES_ROOT / relative
        size = path.stat().st_size
        assert size > 0 and size % 20 == 0, relative
        points = np.fromfile(path, dtype="<f4").reshape(-1, 5)
        assert 1000 <= len(points) <= 10000 and np.isfinite(points).all(), relative
        rings = points[:, 4]
        assert (rings == np.round(rings)).all() and rings.min() >= 0 and rings.max() <= 31, relative
        for obj in frames[relative].objects:
            # LIDAR_TOP frame: x right, y forward, so an object at ego (forward, left) sits at (-left, forward).
            near = np.hypot(points[:, 0] + obj.y, points[:, 1] - obj.x) < 3.0
            assert (near & (points[:, 2] > -1.6)).sum() >= 20, (relative, obj)
