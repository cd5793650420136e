"""CODA-LM annotations -> validated records: one per image, with its regions, as the official scripts read them.

The per-image JSON (`CODA-LM/<Split>/<prefix>_<NNNN>.json`, README.md L77-104) holds the three references:
`general_perception["description and explanation"]` (stage1 L198), `driving_suggestion` (stage2 L196) and, per
region key in file order, `region_perception[k]["description and explanation"]` (stage3 L46), its `box` (read by
`convert2vqa.py` L74-80 to draw the red rectangle) and `category_name` (stage3 L49-70 maps it to a super-category).

Checked, every problem in one pass, each naming the file and field: what a selected task reads must be there with
the type the official code needs (a missing reference is a `KeyError` there; a box that is not four numbers, or has a
negative size, makes Pillow raise while drawing it). Nothing stricter: an unknown category, an empty reference, a
box reaching outside the image are warnings (`data_warnings`), as the official scripts run on all three.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from drive_evals.coda_lm.prompts import TaskName
from drive_evals.data_warnings import DataWarnings

SPLITS = ("Test", "Val", "Mini", "Train")
"""The annotation folders. Test is the reported split; Mini is a 50-image subset of Val (README.md L38), so the two
are never reported together; Train is training data, offered for completeness."""
ANNOTATION_NAME = re.compile(r"^([^_]+)_([^_]+)\.json$")
"""`<folder>_<NNNN>.json`: `convert2vqa.py` reads the image as `<folder>/images/<NNNN>.jpg` from the name alone
(`json_name.split("_")`), so Train's `val_` files name CODA2022 val images and the others' `test_` files CODA2022
test images (README.md L30-33)."""

GENERAL, SUGGESTION, REGIONS = "general_perception", "driving_suggestion", "region_perception"
SUMMARY = "description and explanation"

SUPERCATEGORIES: dict[str, tuple[str, ...]] = {
    "vehicle": (
        "car",
        "truck",
        "tram",
        "tricycle",
        "bus",
        "trailer",
        "construction_vehicle",
        "recreational_vehicle",
    ),
    "vru": ("pedestrian", "cyclist", "bicycle", "moped", "motorcycle", "stroller", "wheelchair", "cart"),
    "traffic_sign": ("warning_sign", "traffic_sign"),
    "traffic_light": ("traffic_light",),
    "traffic_cone": ("traffic_cone",),
    "barrier": ("barrier", "bollard"),
    "miscellaneous": (
        "dog",
        "cat",
        "sentry_box",
        "traffic_box",
        "traffic_island",
        "debris",
        "suitcace",
        "dustbin",
        "concrete_block",
        "machinery",
        "chair",
        "phone_booth",
        "basket",
        "cardboard",
        "carton",
        "garbage",
        "garbage_bag",
        "plastic_bag",
        "stone",
        "tire",
        "misc",
    ),
}
"""`stage3_eval_batch.py` L49-70, `convert_label`: raw CODA category -> super-category (the data's own spelling
`suitcace` included). Stage 3 judges and averages the seven groups in this order."""
CATEGORY_GROUP = {name: group for group, names in SUPERCATEGORIES.items() for name in names}
UNMAPPED = "unmapped"
"""The group of a region whose category is not in the mapping: the official stage 3 never judges it (defect 10);
here it is judged, counted apart, and left out of the official region mean only."""


@dataclass(frozen=True)
class Region:
    key: str
    """The region's key in the file (`"1"`, `"2"`, ...), in file order."""
    reference: str
    box: tuple[float, float, float, float]
    """x, y, width, height in pixels, top-left origin."""
    category: str

    @property
    def group(self) -> str:
        return CATEGORY_GROUP.get(self.category, UNMAPPED)


@dataclass(frozen=True)
class ImageRecord:
    """One annotation file: the image id (`0085`), its file name, the references a run reads."""

    image_id: str
    folder: str
    """The CODA2022 image folder the file name gives (`test`, `val`)."""
    file: str
    general: str | None
    suggestion: str | None
    regions: tuple[Region, ...]


@dataclass(frozen=True)
class Item:
    """One planned item (an image's question, or one region's) before it becomes a sample."""

    task: TaskName
    image_id: str
    image: Path
    reference: str
    region_key: str | None = None
    category: str | None = None
    group: str | None = None
    box: tuple[float, float, float, float] | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def name_parts(file_name: str) -> tuple[str, str] | None:
    """`test_0085.json` -> (`test`, `0085`); None for a name the official conversion cannot split."""
    match = ANNOTATION_NAME.match(file_name)
    return (match.group(1), match.group(2)) if match else None


def _text(value: object, where: str, problems: list[str], warnings: DataWarnings) -> str | None:
    if not isinstance(value, str):
        problems.append(f"{where}: expected a string, got {type(value).__name__}")
        return None
    if not value.strip():
        warnings.add(
            "empty_reference",
            "a reference text is empty (the Test annotations before commit d556763 of the dataset were all empty); "
            "the judge compares the answer with nothing, as the official script would",
            where,
        )
    return value


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


def _box(value: object, where: str, problems: list[str]) -> tuple[float, float, float, float] | None:
    numbers = [_number(v) for v in value] if isinstance(value, list) else []
    if len(numbers) != 4 or any(n is None for n in numbers):
        problems.append(f"{where}: expected [x, y, w, h] (four numbers), got {value!r}")
        return None
    x, y, w, h = (n for n in numbers if n is not None)
    if w < 0 or h < 0:  # Pillow's rectangle raises for x1 < x0 or y1 < y0: the official conversion stops
        problems.append(f"{where}: negative width or height in {value!r}")
        return None
    return x, y, w, h


def _regions(value: object, file: str, problems: list[str], warnings: DataWarnings) -> tuple[Region, ...]:
    if not isinstance(value, Mapping):
        problems.append(f"{file}: {REGIONS}: expected an object of regions, got {type(value).__name__}")
        return ()
    regions = []
    for key, region in value.items():
        where = f"{file}: {REGIONS}[{key!r}]"
        if not isinstance(region, Mapping):
            problems.append(f"{where}: expected an object, got {type(region).__name__}")
            continue
        missing = [k for k in ("box", "category_name", SUMMARY) if k not in region]
        if missing:
            problems.append(f"{where}: missing {', '.join(missing)}")
            continue
        box = _box(region["box"], f"{where}.box", problems)
        reference = _text(region[SUMMARY], f"{where}[{SUMMARY!r}]", problems, warnings)
        raw = region["category_name"]
        category = raw if isinstance(raw, str) else repr(raw)  # `convert_label` maps a non-string to None too
        if category not in CATEGORY_GROUP:
            warnings.add(
                "unmapped_category",
                "a region category the official mapping (stage3 L49-70) lacks: the official script never judges it; "
                f"here it is judged and reported as `{UNMAPPED}`, outside the official region mean",
                f"{where}: {category!r}",
            )
        if box is not None and reference is not None:
            regions.append(Region(str(key), reference, box, category))
    return tuple(regions)


def parse_record(
    file: str, document: object, tasks: Sequence[TaskName], problems: list[str], warnings: DataWarnings
) -> ImageRecord | None:
    """One annotation file as the selected tasks read it; problems and warnings are appended, None when unusable."""
    parts = name_parts(file.rsplit("/", 1)[-1])
    if parts is None:
        problems.append(f"{file}: not a CODA-LM annotation name (<folder>_<NNNN>.json, e.g. test_0085.json)")
        return None
    if not isinstance(document, Mapping):
        problems.append(f"{file}: expected a JSON object, got {type(document).__name__}")
        return None
    before = len(problems)
    general = suggestion = None
    if GENERAL in tasks:
        block: Any = document.get(GENERAL)
        if not isinstance(block, Mapping) or SUMMARY not in block:
            problems.append(f"{file}: missing {GENERAL}[{SUMMARY!r}]")
        else:
            general = _text(block[SUMMARY], f"{file}: {GENERAL}[{SUMMARY!r}]", problems, warnings)
    if SUGGESTION in tasks:
        if SUGGESTION not in document:
            problems.append(f"{file}: missing {SUGGESTION}")
        else:
            suggestion = _text(document[SUGGESTION], f"{file}: {SUGGESTION}", problems, warnings)
    regions: tuple[Region, ...] = ()
    if REGIONS in tasks:
        if REGIONS not in document:
            problems.append(f"{file}: missing {REGIONS}")
        else:
            regions = _regions(document[REGIONS], file, problems, warnings)
    if len(problems) > before:
        return None
    return ImageRecord(parts[1], parts[0], file, general, suggestion, regions)
