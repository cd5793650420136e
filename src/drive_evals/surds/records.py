"""Reading and validating SURDS `validation/metadata.jsonl` before anything is built or paid for.

Every line is checked against the official schema (per-object parallel lists, known yaw labels, finite numbers,
at least one object). All problems are collected and reported together, each naming the line and the field, so
a user fixes a broken file in one pass and a run never starts half-valid.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from drive_evals.errors import DataValidationError

METADATA_FILE = "validation/metadata.jsonl"
"""Path of the metadata file inside a SURDS snapshot."""

IMAGE_ROOT = "validation"
"""`file_name` values are relative to this folder of the snapshot."""

YAW_LABELS = frozenset(["North", "South", "East", "West", "Northeast", "Southeast", "Southwest", "Northwest"])

MAX_REPORTED_ERRORS = 50
"""A broken file can have thousands of bad lines; the first ones are enough to act on."""


@dataclass(frozen=True)
class SurdsRecord:
    """One metadata line: one image and its annotated objects (only the fields SURDS uses)."""

    line: int
    """1-based line number in metadata.jsonl, for error messages."""
    file_name: str
    descs: tuple[str, ...]
    xy2ds: tuple[tuple[float, float], ...]
    bboxes: tuple[tuple[float, float, float, float], ...]
    yaw_descs: tuple[str, ...]
    depths: tuple[float, ...]
    distances: tuple[float, ...]
    categories: tuple[str, ...] | None = None
    """nuScenes category per object (`vehicle.car`); None when the line has no usable `categories` list. The official
    code never reads it; only the report's failure breakdown does."""

    @property
    def object_count(self) -> int:
        return len(self.descs)


_USED_LIST_FIELDS = ("descs", "xy2Ds", "bboxes2D", "yaw_descs", "depths", "distances")
_UNUSED_LIST_FIELDS = ("xyz3Ds", "categories", "yaws")


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


class _LineChecker:
    """Collects the problems of one metadata line, each prefixed with the line and field."""

    def __init__(self, source: str, line: int) -> None:
        self.prefix = f"{source}:{line}"
        self.problems: list[str] = []

    def fail(self, field: str, message: str) -> None:
        self.problems.append(f"{self.prefix}: field '{field}': {message}")

    def vectors(self, field: str, values: Sequence[object], width: int) -> list[tuple[float, ...]]:
        """Check that every entry is a list of `width` finite numbers and convert them."""
        converted: list[tuple[float, ...]] = []
        for index, value in enumerate(values):
            if not isinstance(value, list) or len(value) != width or not all(map(_is_number, value)):
                self.fail(field, f"object {index}: expected a list of {width} finite numbers, got {value!r}")
            else:
                converted.append(tuple(float(item) for item in value))
        return converted

    def scalars(self, field: str, values: Sequence[object]) -> list[float]:
        """Check that every entry is a finite number and convert them."""
        converted: list[float] = []
        for index, value in enumerate(values):
            if isinstance(value, (int, float)) and _is_number(value):
                converted.append(float(value))
            else:
                self.fail(field, f"object {index}: expected a finite number, got {value!r}")
        return converted


def parse_record(raw: object, line: int, source: str = METADATA_FILE) -> SurdsRecord | list[str]:
    """Validate one decoded metadata line; return the record or the list of problems found."""
    check = _LineChecker(source, line)
    if not isinstance(raw, dict):
        return [f"{check.prefix}: expected a JSON object, got {type(raw).__name__}"]
    file_name = raw.get("file_name")
    if not isinstance(file_name, str) or not file_name:
        check.fail("file_name", f"expected a non-empty string, got {file_name!r}")
    lists: dict[str, list[object]] = {}
    for field in _USED_LIST_FIELDS:
        value = raw.get(field)
        if not isinstance(value, list):
            check.fail(field, f"missing or not a list (got {type(value).__name__})")
        else:
            lists[field] = value
    if check.problems:
        return check.problems
    count = len(lists["descs"])
    if count == 0:
        check.fail("descs", "record has no objects")
    for field in (*_USED_LIST_FIELDS, *_UNUSED_LIST_FIELDS):
        value = raw.get(field)
        if isinstance(value, list) and len(value) != count:
            check.fail(field, f"has {len(value)} entries but 'descs' has {count}")
    if check.problems:
        return check.problems
    if not all(isinstance(desc, str) and desc.strip() for desc in lists["descs"]):
        check.fail("descs", "every description must be a non-empty string")
    for index, label in enumerate(lists["yaw_descs"]):
        if label not in YAW_LABELS:
            check.fail("yaw_descs", f"object {index}: unknown label {label!r} (known: {sorted(YAW_LABELS)})")
    points = check.vectors("xy2Ds", lists["xy2Ds"], 2)
    boxes = check.vectors("bboxes2D", lists["bboxes2D"], 4)
    depths = check.scalars("depths", lists["depths"])
    distances = check.scalars("distances", lists["distances"])
    if check.problems:
        return check.problems
    return SurdsRecord(
        line=line,
        file_name=str(file_name),
        descs=tuple(str(desc) for desc in lists["descs"]),
        xy2ds=tuple((x, y) for x, y in points),
        bboxes=tuple((x0, y0, x1, y1) for x0, y0, x1, y1 in boxes),
        yaw_descs=tuple(str(label) for label in lists["yaw_descs"]),
        depths=tuple(depths),
        distances=tuple(distances),
        categories=_categories(raw.get("categories"), count),
    )


def _categories(value: object, count: int) -> tuple[str, ...] | None:
    """The per-object categories when present and well formed; anything else is ignored (never an error)."""
    if isinstance(value, list) and len(value) == count and all(isinstance(item, str) and item for item in value):
        return tuple(value)
    return None


def parse_metadata_lines(lines: Iterable[str], source: str = METADATA_FILE) -> list[SurdsRecord]:
    """Parse and validate every line, raising one `DataValidationError` that lists all problems."""
    records: list[SurdsRecord] = []
    problems: list[str] = []
    for line_number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            raw = json.loads(text)
        except json.JSONDecodeError as error:
            problems.append(f"{source}:{line_number}: invalid JSON ({error.msg} at column {error.colno})")
            continue
        parsed = parse_record(raw, line_number, source)
        if isinstance(parsed, list):
            problems.extend(parsed)
        else:
            records.append(parsed)
    if problems:
        raise DataValidationError(source, problems, MAX_REPORTED_ERRORS)
    if not records:
        raise DataValidationError(source, [f"{source}: no records"], MAX_REPORTED_ERRORS)
    return records


def load_metadata(snapshot: Path) -> list[SurdsRecord]:
    """Read and validate `validation/metadata.jsonl` of a snapshot directory."""
    path = snapshot / METADATA_FILE
    if not path.is_file():
        raise DataValidationError(
            str(snapshot), [f"{path}: not found (a SURDS snapshot holds {METADATA_FILE})"], MAX_REPORTED_ERRORS
        )
    with path.open(encoding="utf-8") as handle:
        return parse_metadata_lines(handle, source=str(path))


def sort_by_file_name(records: Sequence[SurdsRecord]) -> list[SurdsRecord]:
    """The row order of `datasets<=3.3.2` (the official pinned version): plain string sort of paths."""
    return sorted(records, key=lambda record: record.file_name)
