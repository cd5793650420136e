"""Reading SURDS `validation/metadata.jsonl` before anything is built or paid for.

Only what every reader of the file needs is an error here: a line that is not a JSON object, a missing
`file_name`, a `descs` that is not a list (its length decides how the official construction uses the record).
Every other problem (a malformed, non-finite or missing per-object value, an unknown yaw label, a list longer or
shorter than `descs`) is kept on the record as an `Anomaly` with a placeholder value. `units.build_units` knows
which values the official construction reads: an anomaly there is an error, anywhere else a warning.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from drive_evals.errors import DataValidationError

METADATA_FILE = "validation/metadata.jsonl"
"""Path of the metadata file inside a SURDS snapshot."""

IMAGE_ROOT = "validation"
"""`file_name` values are relative to this folder of the snapshot."""

YAW_LABELS = frozenset(["North", "South", "East", "West", "Northeast", "Southeast", "Southwest", "Northwest"])

MAX_REPORTED_ERRORS = 50
"""A broken file can have thousands of bad lines; the first ones are enough to act on."""

AnomalyKind = Literal["malformed", "length", "unknown_yaw_label", "empty_description"]


@dataclass(frozen=True)
class Anomaly:
    """One problem with one per-object value (or with a whole list, `obj=None`), found while reading a line."""

    field: str
    obj: int | None
    """The object index; None for the list as a whole (entries beyond the object count, never read)."""
    message: str
    """Names the file, line, field and object."""
    kind: AnomalyKind = "malformed"
    spares_x: bool = False
    """`xy2Ds` only: the x coordinate, all that a pair unit reads, is still a finite number."""


@dataclass(frozen=True)
class SurdsRecord:
    """One metadata line: one image and its annotated objects (only the fields SURDS uses).

    A value with an anomaly holds a placeholder (NaN, or an empty string) and is never used: the construction
    refuses a record whose read values have anomalies.
    """

    line: int
    """1-based line number in metadata.jsonl, for error messages."""
    file_name: str
    descs: tuple[str, ...]
    xy2ds: tuple[tuple[float, float], ...]
    bboxes: tuple[tuple[float, float, float, float], ...]
    yaw_descs: tuple[str, ...]
    depths: tuple[float, ...]
    distances: tuple[float, ...]
    anomalies: tuple[Anomaly, ...] = ()
    source: str = METADATA_FILE
    categories: tuple[str, ...] | None = None
    """nuScenes category per object (`vehicle.car`); None when the line has no usable `categories` list. The official
    code never reads it; only the report's failure breakdown does."""

    @property
    def object_count(self) -> int:
        return len(self.descs)

    @property
    def where(self) -> str:
        """`<file>:<line>`, the start of every message about this record."""
        return f"{self.source}:{self.line}"


NAN = math.nan


def _number(value: object) -> float | None:
    """A finite JSON number (not a boolean) as float, else None."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return None


def _vector(value: object, width: int) -> tuple[float, ...] | None:
    if not isinstance(value, list) or len(value) != width:
        return None
    numbers = [_number(item) for item in value]
    return None if any(n is None for n in numbers) else tuple(n for n in numbers if n is not None)


_UNUSED_FIELDS: dict[str, Callable[[object], bool]] = {
    "xyz3Ds": lambda value: _vector(value, 3) is not None,
    "categories": lambda value: isinstance(value, str),
    "yaws": lambda value: _number(value) is not None,
}
"""Fields the construction never reads, with the test of a well-formed entry: checked for warnings only."""


class _LineChecker:
    """Reads the per-object lists of one metadata line, noting each problem as an `Anomaly`."""

    def __init__(self, source: str, line: int, count: int) -> None:
        self.prefix = f"{source}:{line}"
        self.count = count
        self.anomalies: list[Anomaly] = []

    def note(self, field: str, obj: int | None, message: str, kind: AnomalyKind = "malformed", **flags: bool) -> None:
        where = f"object {obj}: " if obj is not None else ""
        self.anomalies.append(Anomaly(field, obj, f"{self.prefix}: field '{field}': {where}{message}", kind, **flags))

    def entries(self, raw: dict[str, object], field: str) -> list[tuple[int, object]]:
        """(object index, value) for each entry present; a missing field or entry and extra entries are noted."""
        value = raw.get(field)
        if not isinstance(value, list):
            state = "missing" if value is None else f"not a list (got {type(value).__name__})"
            for obj in range(self.count):
                self.note(field, obj, f"no value: the field is {state}", "length")
            return []
        if len(value) > self.count:
            self.note(field, None, f"has {len(value)} entries but 'descs' has {self.count}", "length")
        for obj in range(len(value), self.count):
            self.note(field, obj, f"no value: the list has {len(value)} entries but 'descs' has {self.count}", "length")
        return list(enumerate(value[: self.count]))

    def numbers(self, raw: dict[str, object], field: str) -> tuple[float, ...]:
        converted = [NAN] * self.count
        for obj, value in self.entries(raw, field):
            number = _number(value)
            if number is None:
                self.note(field, obj, f"expected a finite number, got {value!r}")
            else:
                converted[obj] = number
        return tuple(converted)

    def vectors(self, raw: dict[str, object], field: str, width: int) -> list[tuple[float, ...]]:
        converted: list[tuple[float, ...]] = [(NAN,) * width] * self.count
        for obj, value in self.entries(raw, field):
            vector = _vector(value, width)
            if vector is not None:
                converted[obj] = vector
                continue
            x = _number(value[0]) if isinstance(value, list) and value else None
            message = f"expected a list of {width} finite numbers, got {value!r}"
            self.note(field, obj, message, spares_x=x is not None)
            converted[obj] = (NAN if x is None else x, *(NAN,) * (width - 1))
        return converted

    def texts(self, raw: dict[str, object], field: str, labels: frozenset[str] | None = None) -> tuple[str, ...]:
        """Strings; with `labels`, only those (an unknown label is its own kind of anomaly)."""
        converted = [""] * self.count
        for obj, value in self.entries(raw, field):
            if not isinstance(value, str):
                self.note(field, obj, f"expected a string, got {value!r}")
                continue
            converted[obj] = value
            if labels is not None and value not in labels:
                self.note(field, obj, f"unknown label {value!r} (known: {sorted(labels)})", "unknown_yaw_label")
            elif labels is None and not value.strip():
                self.note(field, obj, f"empty text {value!r}", "empty_description")
        return tuple(converted)

    def unused(self, raw: dict[str, object], field: str, well_formed: Callable[[object], bool]) -> None:
        """A field the construction never reads: checked when present, so a broken file is still reported."""
        if field not in raw:
            return
        for obj, value in self.entries(raw, field):
            if not well_formed(value):
                self.note(field, obj, f"unexpected value {value!r}")


def parse_record(raw: object, line: int, source: str = METADATA_FILE) -> SurdsRecord | list[str]:
    """Read one decoded metadata line; return the record (anomalies attached) or the errors that stop any use."""
    prefix = f"{source}:{line}"
    if not isinstance(raw, dict):
        return [f"{prefix}: expected a JSON object, got {type(raw).__name__}"]
    file_name = raw.get("file_name")
    descs = raw.get("descs")
    problems = []
    if not isinstance(file_name, str) or not file_name:
        problems.append(f"{prefix}: field 'file_name': expected a non-empty string, got {file_name!r}")
    if not isinstance(descs, list):
        problems.append(f"{prefix}: field 'descs': missing or not a list (got {type(descs).__name__})")
    if problems or not isinstance(descs, list):
        return problems
    check = _LineChecker(source, line, len(descs))
    texts = check.texts(raw, "descs")
    yaw_descs = check.texts(raw, "yaw_descs", YAW_LABELS)
    points = check.vectors(raw, "xy2Ds", 2)
    boxes = check.vectors(raw, "bboxes2D", 4)
    depths = check.numbers(raw, "depths")
    distances = check.numbers(raw, "distances")
    for field, well_formed in _UNUSED_FIELDS.items():
        check.unused(raw, field, well_formed)
    return SurdsRecord(
        line=line,
        file_name=str(file_name),
        descs=texts,
        xy2ds=tuple((x, y) for x, y in points),
        bboxes=tuple((x0, y0, x1, y1) for x0, y0, x1, y1 in boxes),
        yaw_descs=yaw_descs,
        depths=depths,
        distances=distances,
        anomalies=tuple(check.anomalies),
        source=source,
        categories=_categories(raw.get("categories"), len(descs)),
    )


def _categories(value: object, count: int) -> tuple[str, ...] | None:
    """The per-object categories when present and well formed; anything else is ignored (never an error)."""
    if isinstance(value, list) and len(value) == count and all(isinstance(item, str) and item for item in value):
        return tuple(value)
    return None


def parse_metadata_lines(lines: Iterable[str], source: str = METADATA_FILE) -> list[SurdsRecord]:
    """Parse every line, raising one `DataValidationError` that lists all the errors (anomalies stay on records)."""
    records, problems = read_metadata_lines(lines, source)
    if problems:
        raise DataValidationError(source, problems, MAX_REPORTED_ERRORS)
    if not records:
        raise DataValidationError(source, [f"{source}: no records"], MAX_REPORTED_ERRORS)
    return records


def read_metadata_lines(lines: Iterable[str], source: str = METADATA_FILE) -> tuple[list[SurdsRecord], list[str]]:
    """The records of the lines that parse, and a problem per line that does not (`parse_metadata_lines` raises)."""
    records: list[SurdsRecord] = []
    problems: list[str] = []
    for line_number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            raw = json.loads(text)
        except json.JSONDecodeError as error:
            # `msg` may end in "at" ("Unterminated string starting at"): the column follows as in Python's own message
            problems.append(f"{source}:{line_number}: invalid JSON ({error.msg}: column {error.colno})")
            continue
        parsed = parse_record(raw, line_number, source)
        if isinstance(parsed, list):
            problems.extend(parsed)
        else:
            records.append(parsed)
    return records, problems


def load_metadata(snapshot: Path) -> list[SurdsRecord]:
    """Read `validation/metadata.jsonl` of a snapshot directory."""
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
