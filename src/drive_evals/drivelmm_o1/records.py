"""Reading and validating `DriveLMMo1_TEST.json` before any image is built or any model is called.

The file is a JSON list (the official data-prep script wrongly treats it as a dict). What the official scripts read
is checked (the text fields, six camera paths each in its camera's folder, a parseable question number) and all
errors are reported together, each naming the record's `idx` (or list position) and the field. What they accept
without harm is a warning (`DataWarnings`): a repeated `idx` (every record is evaluated, as officially), an empty
question, a malformed `lidar` (unused unless `lidar=true`), and camera paths listed out of order (restored).
"""

from __future__ import annotations

import logging
import posixpath
from dataclasses import dataclass, replace
from pathlib import Path

from drive_evals.data import read_json
from drive_evals.data_warnings import DataWarnings
from drive_evals.drivelmm_o1.mcq import is_mcq_by_number, is_mcq_by_text
from drive_evals.errors import DataValidationError

logger = logging.getLogger(__name__)

TEST_FILE = "DriveLMMo1_TEST.json"
CAMERAS = ("CAM_FRONT_LEFT", "CAM_FRONT", "CAM_FRONT_RIGHT", "CAM_BACK_RIGHT", "CAM_BACK", "CAM_BACK_LEFT")
"""The order of a record's `image` list, which is also the 2x3 grid order (top row, then bottom row)."""
TEXT_FIELDS = ("idx", "question", "final_answer", "steps")

REPEATED_IDX = "repeated_idx"
REPEATED_IDX_MEANING = (
    "a second record with the same idx; every record is evaluated, as the official script does, and the repeats "
    "get the sample id suffixes -2, -3 and so on"
)
EMPTY_QUESTION = "empty_question"
EMPTY_QUESTION_MEANING = "an empty question; asked as it is, as the official inference does"
BAD_LIDAR = "malformed_lidar"
BAD_LIDAR_MEANING = "a 'lidar' that is not a string; unused (lidar=true needs it and then stops)"
CAMERA_ORDER = "camera_order_restored"
CAMERA_ORDER_MEANING = (
    "camera paths listed out of the CAM_FRONT_LEFT, CAM_FRONT, CAM_FRONT_RIGHT, CAM_BACK_RIGHT, CAM_BACK, "
    "CAM_BACK_LEFT order; put in that order by their folder names, so the grid and the view labels are right"
)


@dataclass(frozen=True)
class DriveLMMRecord:
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


def parse_record(raw: object, position: int, warnings: DataWarnings | None = None) -> DriveLMMRecord | list[str]:
    """Validate one decoded record; return it or the problems found (warnings go to `warnings`)."""
    warnings = DataWarnings("DriveLMM-o1") if warnings is None else warnings
    if not isinstance(raw, dict):
        return [f"record {position}: expected a JSON object, got {type(raw).__name__}"]
    name = raw.get("idx")
    where = f"record {position} (idx {name!r})" if isinstance(name, str) else f"record {position}"
    problems = [
        f"{where}: field '{field}': expected a string, got {type(raw.get(field)).__name__}"
        for field in TEXT_FIELDS
        if not isinstance(raw.get(field), str)
    ]
    frame, number = _split_idx(name)
    if isinstance(name, str) and number is None:
        problems.append(f"{where}: field 'idx': expected '<frame tokens>_<question number>'")
    images = raw.get("image")
    if not isinstance(images, list) or len(images) != len(CAMERAS):
        problems.append(f"{where}: field 'image': expected a list of {len(CAMERAS)} paths, got {images!r}"[:300])
    elif not all(isinstance(path, str) and path for path in images):
        problems.append(f"{where}: field 'image': every entry must be a non-empty path")
    else:
        images, problem = camera_order(where, [str(path) for path in images], warnings)
        problems.extend([problem] if problem else [])
    if problems or number is None or not isinstance(images, list):
        return problems
    if not str(raw["question"]).strip():
        warnings.add(EMPTY_QUESTION, EMPTY_QUESTION_MEANING, f"{where}: field 'question' is empty")
    lidar = raw.get("lidar")
    if lidar is not None and not isinstance(lidar, str):
        warnings.add(BAD_LIDAR, BAD_LIDAR_MEANING, f"{where}: field 'lidar': got {type(lidar).__name__}")
        lidar = None
    return DriveLMMRecord(
        position=position,
        idx=str(name),
        frame=frame,
        question_number=number,
        images=tuple(images),
        question=str(raw["question"]),
        final_answer=str(raw["final_answer"]),
        steps=str(raw["steps"]),
        lidar=lidar or None,
        mcq=is_mcq_by_number(str(name)),
        mcq_by_text=is_mcq_by_text(str(raw["question"])),
    )


def camera_folder(path: str) -> str:
    """The folder a nuScenes keyframe lies in, which names its camera: `samples/CAM_FRONT/x.jpg` -> `CAM_FRONT`."""
    return posixpath.basename(posixpath.dirname(path.replace("\\", "/")))


def camera_order(where: str, images: list[str], warnings: DataWarnings) -> tuple[list[str], str | None]:
    """The six paths in `CAMERAS` order, checked by folder name: (paths, None), or (paths, the error).

    The grid and the `views` labels place images by list position, so position i must hold camera i. Paths that
    hold each camera exactly once are put in order (with a warning); any other mismatch cannot be restored.
    """
    folders = [camera_folder(path) for path in images]
    if folders == list(CAMERAS):
        return images, None
    if sorted(folders) == sorted(CAMERAS):
        warnings.add(CAMERA_ORDER, CAMERA_ORDER_MEANING, f"{where}: folders in the order {folders}")
        return [images[folders.index(camera)] for camera in CAMERAS], None
    wrong = [f"{i} ({CAMERAS[i]}) is in {folder!r}" for i, folder in enumerate(folders) if folder != CAMERAS[i]]
    return images, (
        f"{where}: field 'image': each position must lie in its camera's folder (samples/{CAMERAS[0]}/... first, "
        f"order {', '.join(CAMERAS)}), but position {'; '.join(wrong)}, and the folders do not hold each camera "
        "once, so the order cannot be restored"
    )


def _split_idx(idx: object) -> tuple[str, int | None]:
    if not isinstance(idx, str) or "_" not in idx:
        return "", None
    frame, _, number = idx.rpartition("_")
    return (frame, int(number)) if frame and number.isdecimal() else (frame, None)


def parse_records(raw: object, source: str, warnings: DataWarnings | None = None) -> list[DriveLMMRecord]:
    """Validate the whole test file; raise one `DataValidationError` listing every problem.

    Warnings go to `warnings`; without one they are logged here.
    """
    own_warnings = warnings is None
    warnings = DataWarnings("DriveLMM-o1") if warnings is None else warnings
    if not isinstance(raw, list):
        raise DataValidationError(source, [f"{source}: expected a JSON list of records, got {type(raw).__name__}"])
    records: list[DriveLMMRecord] = []
    problems: list[str] = []
    for position, item in enumerate(raw):
        parsed = parse_record(item, position, warnings)
        if isinstance(parsed, list):
            problems.extend(parsed)
        else:
            records.append(parsed)
    _warn_repeated_idx(records, warnings)
    if not raw:
        problems.append(f"{source}: no records")
    if problems:
        raise DataValidationError(source, problems)
    if own_warnings:
        warnings.log(logger)
    return records


def _warn_repeated_idx(records: list[DriveLMMRecord], warnings: DataWarnings) -> None:
    """Every repeat is evaluated on its own record. The official scorer keys the ground truth by idx, so it would
    judge every repeat against the LAST such record: the example says when the repeats differ."""
    first: dict[str, DriveLMMRecord] = {}
    for record in records:
        earlier = first.setdefault(record.idx, record)
        if earlier is record:
            continue
        same = replace(record, position=earlier.position) == earlier
        note = "identical" if same else "differs (the official scorer would use the last one's ground truth)"
        warnings.add(
            REPEATED_IDX,
            REPEATED_IDX_MEANING,
            f"record {record.position}: idx {record.idx!r} repeats record {earlier.position}; {note}",
        )


def load_records(path: Path, warnings: DataWarnings | None = None) -> list[DriveLMMRecord]:
    """Read and validate a DriveLMM-o1 test file."""
    raw = read_json(path)
    return parse_records(raw, str(path), warnings)
