"""Breakdown facts and levels of SURDS units: thresholds hit exactly, category and head-noun rules, old logs."""

from __future__ import annotations

import json
from typing import Any

import pytest
from surds_fixtures import record

from drive_evals.surds.breakdown import (
    BOX_AREA,
    CAMERA,
    CATEGORY,
    DEPTH,
    DEPTH_GAP,
    DISTANCE_GAP,
    HEAD_NOUN,
    PAIR_CATEGORY,
    PAIR_HEAD_NOUN,
    X_GAP,
    area_level,
    box_area_share,
    camera_of,
    depth_level,
    gap_level,
    head_noun,
    level_order,
    sample_levels,
    unit_facts,
    unit_levels,
)
from drive_evals.surds.records import parse_metadata_lines
from drive_evals.surds.units import build_units

IMAGE_AREA = 1600 * 900


@pytest.mark.parametrize(
    ("depth", "level"),
    [(0.0, "< 7 m"), (6.999, "< 7 m"), (7.0, "7-15 m"), (15.0, "7-15 m"), (15.001, "> 15 m")],
)
def test_depth_bins_follow_the_depth_option_construction(depth: float, level: str) -> None:
    """The construction puts both distractors above when d < 7, below when d > 15: 7 and 15 are middle cases."""
    assert depth_level(depth) == level


@pytest.mark.parametrize(
    ("gap", "level"),
    [(0.0, "< 0.5 m"), (0.4999, "< 0.5 m"), (0.5, "0.5-1 m"), (1.0, "1-2 m"), (1.9999, "1-2 m"), (2.0, ">= 2 m")],
)
def test_depth_gap_starts_at_the_exclusive_front_behind_tie(gap: float, level: str) -> None:
    assert gap_level(gap, 0.5, "m", tie_inclusive=False) == level
    assert unit_levels({"depth_gap_m": gap})[DEPTH_GAP] == level


@pytest.mark.parametrize(
    ("gap", "level"), [(99.0, "< 100 px"), (100.0, "100-200 px"), (200.0, "200-400 px"), (400.0, ">= 400 px")]
)
def test_x_gap_starts_at_the_exclusive_left_right_tie(gap: float, level: str) -> None:
    assert unit_levels({"x_gap_px": gap})[X_GAP] == level


@pytest.mark.parametrize(
    ("gap", "level"), [(1.0, "<= 1 m"), (1.0001, "1-2 m"), (2.0, "1-2 m"), (4.0, "2-4 m"), (4.0001, "> 4 m")]
)
def test_distance_gap_starts_at_the_inclusive_distance_tie(gap: float, level: str) -> None:
    """The official distance rule calls |d1 - d2| <= 1 a tie, so 1.0 itself is in the tie bin."""
    assert unit_levels({"distance_gap_m": gap})[DISTANCE_GAP] == level


@pytest.mark.parametrize(
    ("share", "level"),
    [(0.0, "< 0.5%"), (0.00499, "< 0.5%"), (0.005, "0.5-2%"), (0.02, "2-8%"), (0.0799, "2-8%"), (0.08, ">= 8%")],
)
def test_box_area_bins(share: float, level: str) -> None:
    assert area_level(share) == level


def test_levels_are_listed_in_bin_order() -> None:
    assert level_order(DISTANCE_GAP) == ("<= 1 m", "1-2 m", "2-4 m", "> 4 m")
    assert level_order(BOX_AREA) == ("< 0.5%", "0.5-2%", "2-8%", ">= 8%")
    assert level_order(DEPTH) == ("< 7 m", "7-15 m", "> 15 m")


@pytest.mark.parametrize(
    ("file_name", "camera"),
    [
        ("image/CAM_BACK_LEFT/nuscenes_0003_CAM_BACK_LEFT.webp", "CAM_BACK_LEFT"),
        ("image/CAM_FRONT/nuscenes_0001_CAM_FRONT.webp", "CAM_FRONT"),
        ("image/CAM_FRONT_RIGHT/x.webp", "CAM_FRONT_RIGHT"),
        ("image/other/picture.webp", "unknown"),
    ],
)
def test_camera_from_the_file_name(file_name: str, camera: str) -> None:
    assert camera_of(file_name) == camera


@pytest.mark.parametrize(
    ("description", "noun"),
    [
        ("white car", "car"),
        ("adult wearing blue clothes", "adult"),
        ("Red Toyota hatchback", "hatchback"),
        ("red and white barrier", "barrier"),
        ("child with a red balloon", "child"),
        ("orange traffic cone", "cone"),
    ],
)
def test_head_noun(description: str, noun: str) -> None:
    assert head_noun(description) == noun


def _levels(subset: str, image: str, suffix: str, *lines: dict[str, Any]) -> dict[str, str]:
    """Levels of the `subset` unit on `image` whose id ends in `suffix`, built from hand-made metadata lines plus
    enough single-object fillers for the official draw."""
    fillers = [record(f"filler{i}", ["grey car"], [0]) for i in range(3)]
    records = parse_metadata_lines([json.dumps(line) for line in (*lines, *fillers)])
    unit = next(
        u for u in build_units(records)[subset] if u.image == f"image/{image}.webp" and u.unit_id.endswith(suffix)
    )
    return unit_levels(unit_facts(unit, records[unit.record_index]))


def test_single_and_pair_facts_from_a_hand_made_record() -> None:
    single = record("s", ["white car"], [0], camera="CAM_BACK")
    single["categories"] = ["human.pedestrian.child"]
    single["depths"] = [7.0]
    single["bboxes2D"] = [[0, 0, 120, 60]]  # 7,200 px: exactly 0.5 % of the image
    pair = record("p", ["white car", "adult wearing red clothes", "red truck"], [0, 1, 2], camera="CAM_FRONT_LEFT")
    pair["categories"] = ["vehicle.car", "human.pedestrian.adult", "vehicle.emergency.police"]
    pair["depths"] = [10.0, 10.5, 30.0]
    pair["xy2Ds"] = [[400, 450], [500, 450], [1000, 450]]
    pair["distances"] = [10.0, 11.0, 30.0]
    single_levels = {CAMERA: "CAM_BACK", CATEGORY: "pedestrian", DEPTH: "7-15 m", BOX_AREA: "0.5-2%"}
    for subset in ("yaw", "xy2d", "depth"):
        assert _levels(subset, "CAM_BACK/s", "", single, pair) == single_levels
    assert box_area_share([0, 0, 120, 60]) == pytest.approx(7200 / IMAGE_AREA) == pytest.approx(0.005)
    levels = _levels("front_behind", "CAM_FRONT_LEFT/p", "-0-1", single, pair)
    assert levels == {
        CAMERA: "CAM_FRONT_LEFT",
        PAIR_CATEGORY: "car + pedestrian",
        DEPTH_GAP: "0.5-1 m",
        X_GAP: "100-200 px",
        DISTANCE_GAP: "<= 1 m",
    }
    levels = _levels("distance", "CAM_FRONT_LEFT/p", "-1-2", single, pair)
    assert levels[PAIR_CATEGORY] == "pedestrian + vehicle.emergency.police", "an unmapped category keeps its name"
    assert (levels[DEPTH_GAP], levels[X_GAP], levels[DISTANCE_GAP]) == (">= 2 m", ">= 400 px", "> 4 m")


def test_without_categories_the_head_noun_is_used() -> None:
    single = record("s", ["Red Toyota hatchback"], [0])
    pair = record("p", ["white car", "adult wearing red clothes"], [0, 1])
    for line in (single, pair):
        del line["categories"]
    single_levels = _levels("depth", "CAM_FRONT/s", "", single, pair)
    pair_levels = _levels("distance", "CAM_FRONT/p", "-0-1", single, pair)
    assert single_levels[HEAD_NOUN] == "hatchback" and CATEGORY not in single_levels
    assert pair_levels[PAIR_HEAD_NOUN] == "adult + car" and PAIR_CATEGORY not in pair_levels


def test_old_logs_give_camera_and_box_area_only() -> None:
    """A log from before `breakdown` existed: the image path and the single-object box are all there is."""
    old = {"image": "image/CAM_BACK/nuscenes_0001_CAM_BACK.webp", "bbox": [0, 0, 240, 120], "subset": "yaw"}
    assert sample_levels(old) == {CAMERA: "CAM_BACK", BOX_AREA: "2-8%"}
    assert sample_levels({"image": "image/CAM_FRONT/a.webp", "bbox": None}) == {CAMERA: "CAM_FRONT"}
