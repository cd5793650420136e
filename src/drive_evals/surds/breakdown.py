"""Where a model fails on SURDS: per-unit facts kept in the sample metadata, and the levels the report groups by.

The facts (`unit_facts`) come only from `metadata.jsonl`: the camera from the file name, each object's nuScenes
category (or, without a `categories` field, the head noun of its description), depth and box area for single-object
units, and the depth, x and distance gaps for pairs. They are stored raw, so the bins below can change without
re-running a model. The bins follow the benchmark's own thresholds:

- object depth: the depth-option construction treats `d < 7` and `d > 15` metres differently, so the levels are
  `< 7 m`, `7-15 m` (both ends inclusive, as in the construction) and `> 15 m`;
- pair gaps: the first bin is the official tie ("Almost the same"), then each bin doubles the threshold:
  distance `<= 1 m` (inclusive, as the official rule), x `< 100 px` and depth `< 0.5 m` (exclusive, as theirs);
- box area as a share of the 1600x900 image: factor-4 bins (a factor 2 in side length) at 0.5 %, 2 % and 8 %.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from itertools import pairwise
from typing import Any, TypeGuard

from drive_evals.surds.records import SurdsRecord
from drive_evals.surds.rules import IMAGE_HEIGHT, IMAGE_WIDTH
from drive_evals.surds.units import (
    DISTANCE_TIE_METRES,
    FAR_DEPTH_METRES,
    FRONT_BEHIND_TIE_METRES,
    LEFT_RIGHT_TIE_PIXELS,
    NEAR_DEPTH_METRES,
    Unit,
)

BREAKDOWN_KEY = "breakdown"
"""Sample metadata key holding the facts below (a small flat dict, so it survives Inspect's summary thinning)."""

CAMERA = "camera"
CATEGORY = "object category"
HEAD_NOUN = "object head noun"
PAIR_CATEGORY = "pair categories"
PAIR_HEAD_NOUN = "pair head nouns"
DEPTH = "object depth"
BOX_AREA = "box area"
DEPTH_GAP = "pair depth gap"
X_GAP = "pair x gap"
DISTANCE_GAP = "pair distance gap"
DIMENSIONS = (
    CAMERA,
    CATEGORY,
    HEAD_NOUN,
    DEPTH,
    BOX_AREA,
    PAIR_CATEGORY,
    PAIR_HEAD_NOUN,
    DEPTH_GAP,
    X_GAP,
    DISTANCE_GAP,
)
"""Report order of the dimensions (the outcome dimension is read from the scores, not from here)."""

CAMERAS = ("CAM_FRONT_LEFT", "CAM_FRONT", "CAM_FRONT_RIGHT", "CAM_BACK_LEFT", "CAM_BACK", "CAM_BACK_RIGHT")
_CAMERA_PATTERN = re.compile(r"CAM_(?:FRONT|BACK)(?:_LEFT|_RIGHT)?")
UNKNOWN = "unknown"

DETECTION_CLASSES = {
    "vehicle.car": "car",
    "vehicle.truck": "truck",
    "vehicle.bus.bendy": "bus",
    "vehicle.bus.rigid": "bus",
    "vehicle.trailer": "trailer",
    "vehicle.construction": "construction vehicle",
    "vehicle.motorcycle": "motorcycle",
    "vehicle.bicycle": "bicycle",
    "human.pedestrian.adult": "pedestrian",
    "human.pedestrian.child": "pedestrian",
    "human.pedestrian.construction_worker": "pedestrian",
    "human.pedestrian.police_officer": "pedestrian",
    "movable_object.trafficcone": "traffic cone",
    "movable_object.barrier": "barrier",
}
"""nuScenes categories grouped into the ten classes of the nuScenes detection benchmark; any other category (an
ambulance, debris, a stroller) is shown under its own nuScenes name rather than dropped."""

POSTMODIFIERS = frozenset({"wearing", "with", "in", "on", "carrying", "holding", "riding", "pushing", "near", "at"})
"""Words that start a phrase after the head noun: `adult wearing blue clothes` -> `adult`."""

DEPTH_LEVELS = (
    f"< {NEAR_DEPTH_METRES:g} m",
    f"{NEAR_DEPTH_METRES:g}-{FAR_DEPTH_METRES:g} m",
    f"> {FAR_DEPTH_METRES:g} m",
)
AREA_EDGES = (0.005, 0.02, 0.08)
"""Box area shares: 0.5 %, 2 %, 8 % of the image (squares of about 85, 170 and 340 px sides at 1600x900)."""
GAP_STEPS = 3
"""Gap bins: the official tie threshold t, then 2t and 4t, so four levels."""


def camera_of(file_name: str) -> str:
    """The camera named in the image's file name (`.../nuscenes_0001_CAM_BACK_LEFT.webp` -> `CAM_BACK_LEFT`)."""
    found = _CAMERA_PATTERN.findall(file_name.rsplit("/", 1)[-1]) or _CAMERA_PATTERN.findall(file_name)
    return max(found, key=len) if found else UNKNOWN


def head_noun(description: str) -> str:
    """The last word before any postmodifier, lowercased: `Red Toyota hatchback` -> `hatchback`."""
    words = description.lower().split()
    kept: list[str] = []
    for word in words:
        if word in POSTMODIFIERS and kept:
            break
        kept.append(word)
    return kept[-1].strip(".,;:") if kept else UNKNOWN


def category_of(raw: str) -> str:
    return DETECTION_CLASSES.get(raw, raw)


def box_area_share(box: Sequence[float]) -> float:
    """Box area over the image area; corner order does not matter."""
    x0, y0, x1, y1 = box
    return abs(x1 - x0) * abs(y1 - y0) / (IMAGE_WIDTH * IMAGE_HEIGHT)


def unit_facts(unit: Unit, record: SurdsRecord) -> dict[str, Any]:
    """The raw facts about one unit, for its sample metadata. Pair units carry the objects of their id
    (`distance-<record>-<a>-<b>`); single-object units carry object 0."""
    objects = _objects(unit)
    facts: dict[str, Any] = {"camera": camera_of(record.file_name)}
    if record.categories is not None:
        facts["categories"] = [record.categories[i] for i in objects]
    else:
        facts["head_nouns"] = [head_noun(record.descs[i]) for i in objects]
    if len(objects) == 1:
        facts["depth_m"] = record.depths[0]
        facts["box_area_share"] = box_area_share(record.bboxes[0])
    else:
        first, second = objects
        facts["depth_gap_m"] = abs(record.depths[first] - record.depths[second])
        facts["x_gap_px"] = abs(record.xy2ds[first][0] - record.xy2ds[second][0])
        facts["distance_gap_m"] = abs(record.distances[first] - record.distances[second])
    return facts


def _objects(unit: Unit) -> list[int]:
    parts = unit.unit_id.rsplit("-", 2)
    if unit.bbox is None and len(parts) == 3 and parts[1].isdecimal() and parts[2].isdecimal():
        return [int(parts[1]), int(parts[2])]
    return [0]


def facts_from_old_metadata(metadata: Mapping[str, Any]) -> dict[str, Any]:
    """What a log written before `breakdown` existed still tells: the camera (image path) and, for single-object
    units, the box area (the xy2d box is object 0's box, kept for every single-object unit)."""
    facts: dict[str, Any] = {}
    if isinstance(metadata.get("image"), str):
        facts["camera"] = camera_of(metadata["image"])
    box = metadata.get("bbox")
    if isinstance(box, list) and len(box) == 4:
        facts["box_area_share"] = box_area_share([float(v) for v in box])
    return facts


def depth_level(depth: float) -> str:
    """The depth-option construction's three cases: `d < 7`, `7 <= d <= 15`, `d > 15`."""
    if depth < NEAR_DEPTH_METRES:
        return DEPTH_LEVELS[0]
    return DEPTH_LEVELS[2] if depth > FAR_DEPTH_METRES else DEPTH_LEVELS[1]


def area_level(share: float) -> str:
    """`< 0.5%`, `0.5-2%`, `2-8%`, `>= 8%` (lower edges inclusive)."""
    names = _edge_names([e * 100 for e in AREA_EDGES], "%", inclusive_low=False)
    return names[sum(share >= edge for edge in AREA_EDGES)]


def gap_level(gap: float, threshold: float, unit: str, tie_inclusive: bool) -> str:
    """Bins at t, 2t, 4t; the first bin is the official tie. With `tie_inclusive` (distance: `<= 1 m` is a tie)
    every upper edge is inclusive, else exclusive (x: `< 100 px`, depth: `< 0.5 m`)."""
    edges = [threshold * 2**step for step in range(GAP_STEPS)]
    names = _edge_names(edges, f" {unit}", inclusive_low=tie_inclusive)
    index = sum((gap > edge) if tie_inclusive else (gap >= edge) for edge in edges)
    return names[index]


def _edge_names(edges: Sequence[float], unit: str, inclusive_low: bool) -> list[str]:
    """Level names for bins split at `edges`; `inclusive_low` puts each edge in the bin below it."""
    low, high = ("<=", ">") if inclusive_low else ("<", ">=")
    middle = [f"{a:g}-{b:g}{unit}" for a, b in pairwise(edges)]
    return [f"{low} {edges[0]:g}{unit}", *middle, f"{high} {edges[-1]:g}{unit}"]


def level_order(dimension: str) -> tuple[str, ...]:
    """Levels in their natural order (cameras, bins); other dimensions sort their levels by name."""
    if dimension == CAMERA:
        return (*CAMERAS, UNKNOWN)
    if dimension == DEPTH:
        return DEPTH_LEVELS
    if dimension == BOX_AREA:
        return tuple(_edge_names([e * 100 for e in AREA_EDGES], "%", inclusive_low=False))
    for name, (threshold, unit, inclusive) in GAPS.items():
        if dimension == name:
            edges = [threshold * 2**step for step in range(GAP_STEPS)]
            return tuple(_edge_names(edges, f" {unit}", inclusive_low=inclusive))
    return ()


GAPS: dict[str, tuple[float, str, bool]] = {
    DEPTH_GAP: (FRONT_BEHIND_TIE_METRES, "m", False),
    X_GAP: (LEFT_RIGHT_TIE_PIXELS, "px", False),
    DISTANCE_GAP: (DISTANCE_TIE_METRES, "m", True),
}
"""Gap dimension -> (official tie threshold, unit, tie inclusive), from the official answer rules."""
_GAP_KEYS = {DEPTH_GAP: "depth_gap_m", X_GAP: "x_gap_px", DISTANCE_GAP: "distance_gap_m"}


def _names(values: object, mapping: Callable[[str], str]) -> list[str] | None:
    if not isinstance(values, list) or not values or not all(isinstance(v, str) for v in values):
        return None
    return [mapping(v) for v in values]


def unit_levels(facts: Mapping[str, Any]) -> dict[str, str]:
    """Dimension -> level for one unit's facts; a dimension is absent when the facts do not cover it."""
    levels: dict[str, str] = {}
    if isinstance(facts.get("camera"), str):
        levels[CAMERA] = facts["camera"]
    for key, single, pair, mapping in (
        ("categories", CATEGORY, PAIR_CATEGORY, category_of),
        ("head_nouns", HEAD_NOUN, PAIR_HEAD_NOUN, str),
    ):
        names = _names(facts.get(key), mapping)
        if names is not None:
            levels[single if len(names) == 1 else pair] = " + ".join(sorted(names))
    if _is_number(facts.get("depth_m")):
        levels[DEPTH] = depth_level(float(facts["depth_m"]))
    if _is_number(facts.get("box_area_share")):
        levels[BOX_AREA] = area_level(float(facts["box_area_share"]))
    for dimension, (threshold, unit, inclusive) in GAPS.items():
        value = facts.get(_GAP_KEYS[dimension])
        if _is_number(value):
            levels[dimension] = gap_level(float(value), threshold, unit, inclusive)
    return levels


def sample_levels(metadata: Mapping[str, Any]) -> dict[str, str]:
    """Levels of a sample from its metadata: its `breakdown` facts, or what an older log's metadata still tells."""
    facts = metadata.get(BREAKDOWN_KEY)
    return unit_levels(facts if isinstance(facts, Mapping) else facts_from_old_metadata(metadata))


def _is_number(value: object) -> TypeGuard[float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
