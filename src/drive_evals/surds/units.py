"""The official seed-42 construction of SURDS evaluation units from metadata records.

This reproduces `hfdata_to_eval_vqa.py` of github.com/XiandaGuo/Drive-MLLM at commit 7895f99 and evalscope
1.14.1's `build_official_vqa_records`: one `random.Random(42)`, consumed in exactly the published order.
Pass 1 turns every object pair of every multi-object record into a distance, a left_right and a front_behind
unit (no draws). Then P single-object records are drawn and each gives a yaw, an xy2d and a depth unit.
Knowing which values that reads, `build_units` also sorts the records' anomalies into errors and warnings.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from math import comb

from drive_evals.data_warnings import DataWarnings
from drive_evals.errors import DataValidationError
from drive_evals.surds.prompts import (
    DEPTH_TEMPLATE,
    DISTANCE_TEMPLATE,
    FRONT_BEHIND_TEMPLATE,
    LEFT_RIGHT_TEMPLATE,
    XY2D_TEMPLATE,
    YAW_TEMPLATE,
)
from drive_evals.surds.records import MAX_REPORTED_ERRORS, Anomaly, AnomalyKind, SurdsRecord

logger = logging.getLogger(__name__)

SUBSETS: tuple[str, ...] = ("yaw", "xy2d", "depth", "distance", "left_right", "front_behind")
"""The six SURDS tasks, in the official order."""
CENTERNESS_SUBSET = "xy2d"
"""The subset scored by centerness, a value in [0, 1]; every other subset scores 0 or 1."""


SEED = 42

DIAGONAL_DIRECTIONS = ("Northeast", "Southeast", "Northwest", "Southwest")
CARDINAL_DIRECTIONS = ("East", "South", "West", "North")
OPPOSITE_DIRECTION = {
    "North": "South",
    "South": "North",
    "East": "West",
    "West": "East",
    "Northeast": "Southwest",
    "Southwest": "Northeast",
    "Southeast": "Northwest",
    "Northwest": "Southeast",
}
YAW_CAMERA_DIRECTIONS = ("North", "South")
"""The camera heading stated in the two yaw prompts (variant 0, variant 1)."""

ALMOST_SAME = "Almost the same"
ALMOST_SAME_FRONT_BACK = "Almost the same in terms of front-back position"
FRONT_BEHIND_OPTIONS = ("Yes", "No", ALMOST_SAME_FRONT_BACK)

DISTANCE_TIE_METRES = 1.0
"""Distances differing by at most this are 'Almost the same' (inclusive)."""
LEFT_RIGHT_TIE_PIXELS = 100.0
"""Horizontal centres closer than this are 'Almost the same' (exclusive)."""
FRONT_BEHIND_TIE_METRES = 0.5
"""Depths closer than this are 'Almost the same in terms of front-back position' (exclusive)."""

DEPTH_RANGE_LENGTH = (6.0, 7.0)
"""The gold depth range is centred on the depth with a length drawn uniformly from this interval."""
NEAR_DEPTH_METRES = 7.0
"""Below this depth both distractor ranges lie farther away."""
FAR_DEPTH_METRES = 15.0
"""Above this depth both distractor ranges lie closer."""
DEPTH_GAP = (1, 2)
"""Gap between neighbouring ranges, drawn with `randint`."""
DEPTH_SPAN = (3, 4)
"""Length of a distractor range, drawn with `randint`."""
MIN_DEPTH_BOUND = 1


@dataclass(frozen=True)
class Unit:
    """One official evaluation unit: one or two prompts about one image, scored together."""

    subset: str
    unit_id: str
    """evalscope's pair id (e.g. `distance-12-0-1`), so results can be joined with evalscope's."""
    record_index: int
    image: str
    """The record's `file_name`, relative to the snapshot's `validation/` folder."""
    prompts: tuple[str, ...]
    targets: tuple[str, ...]
    """Gold answer per prompt."""
    options: tuple[str, ...]
    bbox: tuple[float, float, float, float] | None
    """Box of object 0 for single-object units (xy2d scoring uses it)."""


def object_phrase(desc: str) -> str:
    return "the " + desc


def option_text(phrase: str) -> str:
    """Official option text: Python `str.capitalize`, which also LOWERS the rest (`The white vw van`)."""
    return phrase.capitalize()


def format_depth_range(bounds: Sequence[int]) -> str:
    start, end = bounds
    return f"Between {start} {_metre_word(start)} and {end} {_metre_word(end)}"


def _metre_word(value: int) -> str:
    return "meter" if value <= 1 else "meters"


def depth_ranges(depth: float, rng: random.Random) -> tuple[list[int], list[int], list[int]]:
    """The gold range and two distractors for a depth, drawing from `rng` in the official order."""
    length = rng.uniform(*DEPTH_RANGE_LENGTH)
    gold = [max(MIN_DEPTH_BOUND, round(depth - length / 2)), round(depth + length / 2)]
    if depth < NEAR_DEPTH_METRES:
        r2_start = gold[1] + rng.randint(*DEPTH_GAP)
        r2_end = r2_start + rng.randint(*DEPTH_SPAN)
        r3_start = r2_end + rng.randint(*DEPTH_GAP)
        r3_end = r3_start + rng.randint(*DEPTH_SPAN)
    elif depth > FAR_DEPTH_METRES:
        r2_end = gold[0] - rng.randint(*DEPTH_GAP)
        r2_start = r2_end - rng.randint(*DEPTH_SPAN)
        r3_end = r2_start - rng.randint(*DEPTH_GAP)
        r3_start = max(MIN_DEPTH_BOUND, r3_end - rng.randint(*DEPTH_SPAN))
    else:
        r2_end = gold[0] - rng.randint(*DEPTH_GAP)
        r2_start = max(MIN_DEPTH_BOUND, r2_end - rng.randint(*DEPTH_SPAN))
        r3_start = gold[1] + rng.randint(*DEPTH_GAP)
        r3_end = r3_start + rng.randint(*DEPTH_SPAN)
    return gold, [r2_start, r2_end], [r3_start, r3_end]


def _pair_units(index: int, record: SurdsRecord, first: int, second: int) -> list[Unit]:
    """The distance, left_right and front_behind units of one object pair."""
    obj1, obj2 = object_phrase(record.descs[first]), object_phrase(record.descs[second])
    opt1, opt2 = option_text(obj1), option_text(obj2)
    suffix = f"{index}-{first}-{second}"

    def unit(
        subset: str, prefix: str, prompts: tuple[str, ...], targets: tuple[str, ...], options: Sequence[str]
    ) -> Unit:
        return Unit(subset, f"{prefix}-{suffix}", index, record.file_name, prompts, targets, tuple(options), None)

    near, far = record.distances[first], record.distances[second]
    closer_farther = _ordered_answers(abs(near - far) <= DISTANCE_TIE_METRES, near < far, opt1, opt2, ALMOST_SAME)
    x1, x2 = record.xy2ds[first][0], record.xy2ds[second][0]
    left_right = _ordered_answers(abs(x1 - x2) < LEFT_RIGHT_TIE_PIXELS, x1 < x2, opt1, opt2, ALMOST_SAME)
    d1, d2 = record.depths[first], record.depths[second]
    front_behind = _ordered_answers(
        abs(d1 - d2) < FRONT_BEHIND_TIE_METRES, d1 > d2, "Yes", "No", ALMOST_SAME_FRONT_BACK
    )
    return [
        unit(
            "distance",
            "distance",
            tuple(DISTANCE_TEMPLATE.format(obj1, obj2, word, opt1, opt2) for word in ("closer", "farther")),
            closer_farther,
            (opt1, opt2, ALMOST_SAME),
        ),
        unit(
            "left_right",
            "left-right",
            tuple(LEFT_RIGHT_TEMPLATE.format(side, obj1, obj2, opt1, opt2) for side in ("left", "right")),
            left_right,
            (opt1, opt2, ALMOST_SAME),
        ),
        unit(
            "front_behind",
            "front-behind",
            tuple(FRONT_BEHIND_TEMPLATE.format(obj1, rel, obj2) for rel in ("in front of", "behind")),
            front_behind,
            FRONT_BEHIND_OPTIONS,
        ),
    ]


def _ordered_answers(tie: bool, first_wins: bool, first: str, second: str, tie_answer: str) -> tuple[str, str]:
    """Gold answers of a complementary pair: (variant 0, variant 1)."""
    if tie:
        return tie_answer, tie_answer
    return (first, second) if first_wins else (second, first)


def _single_units(index: int, record: SurdsRecord, rng: random.Random) -> list[Unit]:
    """The yaw, xy2d and depth units of one chosen single-object record, drawing in the official order."""
    obj = object_phrase(record.descs[0])
    bbox = record.bboxes[0]
    label = record.yaw_descs[0]
    diagonal = rng.sample(DIAGONAL_DIRECTIONS, k=len(DIAGONAL_DIRECTIONS))
    cardinal = rng.sample(CARDINAL_DIRECTIONS, k=len(CARDINAL_DIRECTIONS))
    yaw_options = tuple(diagonal if label in diagonal else cardinal)
    yaw = Unit(
        "yaw",
        f"yaw-{index}",
        index,
        record.file_name,
        tuple(YAW_TEMPLATE.format(camera, obj, *yaw_options) for camera in YAW_CAMERA_DIRECTIONS),
        (label, OPPOSITE_DIRECTION[label]),
        yaw_options,
        bbox,
    )
    point = record.xy2ds[0]
    xy2d = Unit(
        "xy2d",
        f"xy2d-{index}",
        index,
        record.file_name,
        (XY2D_TEMPLATE.format(obj),),
        (str([_as_official_number(point[0]), _as_official_number(point[1])]),),
        (),
        bbox,
    )
    gold, distractor1, distractor2 = depth_ranges(record.depths[0], rng)
    rendered = [format_depth_range(gold), format_depth_range(distractor1), format_depth_range(distractor2)]
    depth_options = tuple(rng.sample(rendered, k=len(rendered)))
    depth = Unit(
        "depth",
        f"depth-{index}",
        index,
        record.file_name,
        (DEPTH_TEMPLATE.format(obj, *depth_options),),
        (rendered[0],),
        depth_options,
        bbox,
    )
    return [yaw, xy2d, depth]


def _as_official_number(value: float) -> int | float:
    """`xy2Ds` are integers in the official data; render them as `str(list)` would (`[812, 525]`)."""
    return int(value) if float(value).is_integer() else value


def build_units(
    records: Sequence[SurdsRecord], empty_in_pool: bool = False, warnings: DataWarnings | None = None
) -> dict[str, list[Unit]]:
    """All units per subset, exactly as the official construction makes them for this record order.

    `empty_in_pool`: records with no objects join the single-object pool, as in the official script (evalscope
    leaves them out). Anomalies in values the construction reads are one `DataValidationError`; the others, and
    what the official code does without complaint, go to `warnings` (logged here when none is given).
    """
    own_warnings = warnings is None
    warnings = DataWarnings("SURDS") if warnings is None else warnings
    pair_count = sum(comb(record.object_count, 2) for record in records if record.object_count > 1)
    pool = [
        index
        for index, record in enumerate(records)
        if record.object_count == 1 or (empty_in_pool and record.object_count == 0)
    ]
    if len(pool) < pair_count:
        raise DataValidationError(
            "metadata",
            [
                f"the single-object pool has {len(pool)} records but the official construction draws one per "
                f"object pair ({pair_count} pairs)"
            ],
        )
    rng = random.Random(SEED)
    chosen = sorted(rng.sample(pool, pair_count))
    check_reads(records, chosen, empty_in_pool, warnings)
    units: dict[str, list[Unit]] = {subset: [] for subset in SUBSETS}
    for index, record in enumerate(records):
        if record.object_count > 1:
            for first, second in combinations(range(record.object_count), 2):
                for unit in _pair_units(index, record, first, second):
                    units[unit.subset].append(unit)
    for index in chosen:
        for unit in _single_units(index, records[index], rng):
            units[unit.subset].append(unit)
    if own_warnings:
        warnings.log(logger)
    return units


PAIR_READS = frozenset({"descs", "xy2Ds", "depths", "distances"})
"""Fields read for every object of a multi-object record (of `xy2Ds`, only x)."""
SINGLE_READS = frozenset({"descs", "yaw_descs", "xy2Ds", "bboxes2D", "depths"})
"""Fields read for object 0 of a drawn single-object record."""

WARNING_KINDS: dict[AnomalyKind, tuple[str, str]] = {
    "malformed": ("unread_value", "a malformed or non-finite value the official construction never reads; ignored"),
    "length": (
        "list_length_mismatch",
        "a per-object list longer or shorter than 'descs' whose extra or missing entries are never read; ignored",
    ),
    "unknown_yaw_label": (
        "unknown_yaw_label",
        "a yaw label outside the eight directions, on an object that is never asked about; ignored",
    ),
    "empty_description": (
        "empty_description",
        "an object with an empty description; where it is asked about, the prompt says 'the ' as the official one",
    ),
}
EMPTY_RECORD = "record_without_objects"
EMPTY_RECORD_MEANING = {
    False: "a record with no objects; left out of the single-object pool, as evalscope does",
    True: "a record with no objects; in the single-object pool as in the official script, and not drawn",
}
INVERTED_BOX = "inverted_box"
INVERTED_BOX_MEANING = (
    "an xy2d target box with x1 > x2 or y1 > y2; the official centerness scores every answer 0 on it "
    "(its inside test never holds), so this unit scores 0 as in the official run"
)


def check_reads(
    records: Sequence[SurdsRecord], chosen: Sequence[int], empty_in_pool: bool, warnings: DataWarnings
) -> None:
    """Raise for anomalies in values the construction reads; turn every other anomaly into a warning."""
    drawn = set(chosen)
    errors: list[str] = []
    for index, record in enumerate(records):
        if record.object_count == 0:
            if index in drawn:
                errors.append(
                    f"{record.where}: field 'descs': the record has no objects, and the official script draws it "
                    "into the single-object pool and fails reading its object 0 (record_order=metadata, "
                    "evalscope's rule, leaves it out)"
                )
            else:
                warnings.add(EMPTY_RECORD, EMPTY_RECORD_MEANING[empty_in_pool], f"{record.where}: no objects")
        for anomaly in record.anomalies:
            if anomaly.kind != "empty_description" and _is_read(anomaly, record, index in drawn):
                errors.append(f"{anomaly.message} (read by the official construction)")
            else:
                warnings.add(*WARNING_KINDS[anomaly.kind], anomaly.message)
        if index in drawn and record.object_count == 1:
            x1, y1, x2, y2 = record.bboxes[0]
            if x1 > x2 or y1 > y2:
                warnings.add(
                    INVERTED_BOX, INVERTED_BOX_MEANING, f"{record.where}: bboxes2D[0] {list(record.bboxes[0])}"
                )
    if errors:
        raise DataValidationError(records[0].source if records else "metadata", errors, MAX_REPORTED_ERRORS)


def _is_read(anomaly: Anomaly, record: SurdsRecord, drawn: bool) -> bool:
    """Whether the official construction reads the value the anomaly is about."""
    if anomaly.obj is None:
        return False
    if record.object_count > 1:
        return anomaly.field in PAIR_READS and not (anomaly.field == "xy2Ds" and anomaly.spares_x)
    return drawn and anomaly.field in SINGLE_READS
