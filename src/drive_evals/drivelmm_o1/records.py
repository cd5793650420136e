"""Reading and validating `DriveLMMo1_TEST.json` before any image is built or any model is called.

The file is a JSON list (the official data-prep script wrongly treats it as a dict). Every record is checked
(schema, six camera paths, a parseable question number, unique `idx`), and all problems are reported together,
each naming the record's `idx` (or list position) and the field.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from drive_evals.drivelmm_o1.mcq import is_mcq_by_number, is_mcq_by_text
from drive_evals.errors import DataValidationError

TEST_FILE = "DriveLMMo1_TEST.json"
CAMERAS = ("CAM_FRONT_LEFT", "CAM_FRONT", "CAM_FRONT_RIGHT", "CAM_BACK_RIGHT", "CAM_BACK", "CAM_BACK_LEFT")
"""The order of a record's `image` list, which is also the 2x3 grid order (top row, then bottom row)."""
TEXT_FIELDS = ("idx", "question", "final_answer", "steps")


@dataclass(frozen=True)
class O1Record:
    """One question about one frame."""

    position: int
    idx: str
    frame: str
    """`idx` without its question number: the two nuScenes tokens that name the frame."""
    question_number: int
    images: tuple[str, ...]
    """Six paths relative to the nuScenes root, in `CAMERAS` order."""
    question: str
    final_answer: str
    steps: str
    lidar: str | None
    mcq: bool
    """Multiple-choice by the official rule (question number in {2, 3, 4, 5, 8})."""
    mcq_by_text: bool
    """Multiple-choice by the question text (`Choose from the following answers only`); reported when it differs."""


def parse_record(raw: object, position: int) -> O1Record | list[str]:
    """Validate one decoded record; return it or the problems found."""
    if not isinstance(raw, dict):
        return [f"record {position}: expected a JSON object, got {type(raw).__name__}"]
    name = raw.get("idx")
    where = f"record {position} (idx {name!r})" if isinstance(name, str) else f"record {position}"
    problems = [
        f"{where}: field '{field}': expected a string, got {type(raw.get(field)).__name__}"
        for field in TEXT_FIELDS
        if not isinstance(raw.get(field), str)
    ]
    if not problems and not str(raw["question"]).strip():
        problems.append(f"{where}: field 'question': empty")
    frame, number = _split_idx(name)
    if isinstance(name, str) and number is None:
        problems.append(f"{where}: field 'idx': expected '<frame tokens>_<question number>'")
    images = raw.get("image")
    if not isinstance(images, list) or len(images) != len(CAMERAS):
        problems.append(f"{where}: field 'image': expected a list of {len(CAMERAS)} paths, got {images!r}"[:300])
    elif not all(isinstance(path, str) and path for path in images):
        problems.append(f"{where}: field 'image': every entry must be a non-empty path")
    lidar = raw.get("lidar")
    if lidar is not None and not isinstance(lidar, str):
        problems.append(f"{where}: field 'lidar': expected a string, got {type(lidar).__name__}")
    if problems or number is None or not isinstance(images, list):
        return problems
    return O1Record(
        position=position,
        idx=str(name),
        frame=frame,
        question_number=number,
        images=tuple(str(path) for path in images),
        question=str(raw["question"]),
        final_answer=str(raw["final_answer"]),
        steps=str(raw["steps"]),
        lidar=lidar or None,
        mcq=is_mcq_by_number(str(name)),
        mcq_by_text=is_mcq_by_text(str(raw["question"])),
    )


def _split_idx(idx: object) -> tuple[str, int | None]:
    if not isinstance(idx, str) or "_" not in idx:
        return "", None
    frame, _, number = idx.rpartition("_")
    return (frame, int(number)) if frame and number.isdecimal() else (frame, None)


def parse_records(raw: object, source: str) -> list[O1Record]:
    """Validate the whole test file; raise one `DataValidationError` listing every problem."""
    if not isinstance(raw, list):
        raise DataValidationError(source, [f"{source}: expected a JSON list of records, got {type(raw).__name__}"])
    records: list[O1Record] = []
    problems: list[str] = []
    for position, item in enumerate(raw):
        parsed = parse_record(item, position)
        if isinstance(parsed, list):
            problems.extend(parsed)
        else:
            records.append(parsed)
    duplicates = [idx for idx, count in Counter(r.idx for r in records).items() if count > 1]
    problems.extend(f"idx {idx!r}: duplicated" for idx in duplicates)
    if not raw:
        problems.append(f"{source}: no records")
    if problems:
        raise DataValidationError(source, problems)
    return records


def load_records(path: Path) -> list[O1Record]:
    """Read and validate a DriveLMM-o1 test file."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as error:
        raise DataValidationError(str(path), [f"{path}: not found"]) from error
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise DataValidationError(str(path), [f"{path}: not valid JSON ({error})"]) from error
    return parse_records(raw, str(path))
