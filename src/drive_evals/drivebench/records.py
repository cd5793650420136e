"""Reading and validating `drivebench-test.json`, and the official preprocessing's per-question image selection.

The file is a JSON array of question records (`worldbench/drivebench` at 723908f, `docs/DATA_PREPAER.md`). What the
official code reads is checked, every problem in one pass, each naming the record's position and field:

- `evaluate/eval.py` `forward` reads `question`, `question_type`, `tag`, `scene_token` and `frame_token` of every
  record and raises `NotImplementedError` for a question type or tag it cannot route (L101-142): such a record is an
  error here too (the 15 `robust_qas` corruption files of the hub are refused this way, as officially).
- `inference/utils.py` `replace_system_prompt` raises for an image path without a `samples/<camera>/` folder of a
  known camera, and when a question keeps no image at all after `tools/preprocess.py` (L29-55).

Nothing stricter: a record may carry other fields (kept, unused) and its image paths need not be in camera order
(the prompt's camera sentence sorts them; the images go in `image_path` order, as officially).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from drive_evals.data import read_json
from drive_evals.errors import DataValidationError

TEST_FILE = "drivebench-test.json"
CAMERAS = ("CAM_FRONT", "CAM_FRONT_LEFT", "CAM_FRONT_RIGHT", "CAM_BACK", "CAM_BACK_LEFT", "CAM_BACK_RIGHT")
"""The official camera order (`inference/utils.py` L20-27)."""

OBJECT_CAMERA = re.compile(r"<[^,]+,([^,]+),[^>]+>")
"""`tools/preprocess.py` L20: the camera field of each `<c1,CAM_BACK,0.5073,0.5778>` reference in a question."""
CAMERA_FOLDER = re.compile(r"samples/([^/]+)/")
"""`inference/utils.py` L30: the camera a path shows, read from the folder after `samples/`."""

Task = Literal["perception", "prediction", "planning", "behavior"]
Kind = Literal["MCQ", "VQA", "yes/no"]
TASKS: tuple[Task, ...] = ("perception", "prediction", "planning", "behavior")
KINDS: tuple[Kind, ...] = ("MCQ", "VQA", "yes/no")
SAFE_ACTIONS_QUESTION = "In this scenario, what are safe actions to take for the ego vehicle?"
"""The one question the official judge gives no object description (`evaluate/eval.py` L64-66)."""


@dataclass(frozen=True)
class Bucket:
    """Where the official evaluation routes a question: its task and question kind."""

    task: Task
    kind: Kind

    @property
    def officially_scored(self) -> bool:
        """False for prediction yes/no questions, which `eval.py` routes to `pass` (L118-121, 'not used for now')."""
        return not (self.task == "prediction" and self.kind == "yes/no")

    @property
    def name(self) -> str:
        """`perception MCQ`, `prediction yes/no`, ..."""
        return f"{self.task} {self.kind}"


def route(question_type: object, tag: list[object]) -> Bucket | None:
    """The official routing (`evaluate/eval.py` L101-142), tests in its order; None where it raises."""
    if question_type == "perception":
        return Bucket("perception", "VQA") if 2 in tag else Bucket("perception", "MCQ") if 0 in tag else None
    if question_type == "prediction":
        return Bucket("prediction", "VQA") if 3 in tag else Bucket("prediction", "yes/no") if 0 in tag else None
    if question_type == "planning":
        return Bucket("planning", "VQA") if 1 in tag else None
    if question_type == "behavior":
        return Bucket("behavior", "MCQ") if 0 in tag else None
    return None


def select_images(question: str, image_path: dict[str, str]) -> dict[str, str]:
    """`tools/preprocess.py` `process_json`: the cameras the question's object references name, else all of them.

    Keys are kept in the record's order; a referenced camera that is not a key is simply not there.
    """
    named = set(OBJECT_CAMERA.findall(question))
    if not named:
        return dict(image_path)
    return {camera: path for camera, path in image_path.items() if camera in named}


def path_camera(path: str) -> str | None:
    """The camera of an image path by the official rule, or None where the official code raises."""
    match = CAMERA_FOLDER.search(path)
    return match.group(1) if match and match.group(1) in CAMERAS else None


def samples_relative(path: str) -> str:
    """`data/nuscenes/samples/CAM_BACK/x.jpg` -> `samples/CAM_BACK/x.jpg`: the path under a nuScenes root."""
    match = CAMERA_FOLDER.search(path)
    assert match is not None, path  # validated at load
    return path[match.start() :]


@dataclass(frozen=True)
class DBRecord:
    """One DriveBench question, with the images the official preprocessing keeps for it."""

    position: int
    scene_token: str
    frame_token: str
    question_type: str
    tag: tuple[int, ...]
    question: str
    answer: str
    bucket: Bucket
    images: tuple[tuple[str, str], ...]
    """(camera key, path as in the file) after `tools/preprocess.py`, in the record's order."""

    @property
    def cameras(self) -> tuple[str, ...]:
        """The cameras of the kept images by the official path rule, de-duplicated, in the official order."""
        found = {path_camera(path) for _, path in self.images}
        return tuple(camera for camera in CAMERAS if camera in found)


STRING_FIELDS = ("scene_token", "frame_token", "question_type", "question", "answer")


def parse_record(raw: object, position: int) -> DBRecord | list[str]:
    """Validate one decoded record; return it or the problems found."""
    where = f"record {position}"
    if not isinstance(raw, dict):
        return [f"{where}: expected a JSON object, got {type(raw).__name__}"]
    if isinstance(raw.get("frame_token"), str):
        where += f" (frame {raw['frame_token'][:8]})"
    problems = [
        f"{where}: field '{name}': expected a string, got {type(raw.get(name)).__name__}"
        for name in STRING_FIELDS
        if not isinstance(raw.get(name), str)
    ]
    tag = raw.get("tag")
    if not isinstance(tag, list):
        problems.append(f"{where}: field 'tag': expected a list of integers, got {tag!r}"[:200])
    bucket = route(raw.get("question_type"), tag) if isinstance(tag, list) else None
    if bucket is None and isinstance(raw.get("question_type"), str) and isinstance(tag, list):
        hint = " (the hub's robust_qas corruption files are not the benchmark's question set)"
        problems.append(
            f"{where}: question_type {raw['question_type']!r} with tag {tag!r}: the official evaluation cannot "
            "route it (perception: tag 2 or 0; prediction: 3 or 0; planning: 1; behavior: 0)"
            + (hint if raw["question_type"] == "robust_qas" else "")
        )
    image_path = raw.get("image_path")
    kept: dict[str, str] = {}
    if not isinstance(image_path, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in image_path.items()
    ):
        problems.append(f"{where}: field 'image_path': expected an object of camera -> path strings")
    elif isinstance(raw.get("question"), str):
        kept = select_images(raw["question"], image_path)
        for path in kept.values():
            if path_camera(path) is None:
                problems.append(
                    f"{where}: field 'image_path': {path!r} has no samples/<camera>/ folder of one of "
                    f"{', '.join(CAMERAS)} (the official prompt builder raises on it)"
                )
        if not kept:
            problems.append(
                f"{where}: no image left after the official camera selection (the question names cameras "
                f"{sorted(set(OBJECT_CAMERA.findall(raw['question'])))}, image_path has {list(image_path)})"
            )
    if problems or bucket is None or not isinstance(tag, list):
        return problems
    return DBRecord(
        position=position,
        scene_token=raw["scene_token"],
        frame_token=raw["frame_token"],
        question_type=raw["question_type"],
        tag=tuple(t for t in tag if isinstance(t, int)),
        question=raw["question"],
        answer=raw["answer"],
        bucket=bucket,
        images=tuple(kept.items()),
    )


def parse_records(raw: object, source: str) -> list[DBRecord]:
    """Validate a whole question file; raise one `DataValidationError` listing every problem."""
    if not isinstance(raw, list):
        raise DataValidationError(source, [f"{source}: expected a JSON array of records, got {type(raw).__name__}"])
    records: list[DBRecord] = []
    problems: list[str] = [] if raw else [f"{source}: no records"]
    for position, item in enumerate(raw):
        parsed = parse_record(item, position)
        if isinstance(parsed, list):
            problems.extend(parsed)
        else:
            records.append(parsed)
    if problems:
        raise DataValidationError(source, problems)
    return records


def load_records(path: Path) -> list[DBRecord]:
    """Read and validate a DriveBench question file (`drivebench-test.json` or its preprocessed `-final` copy)."""
    raw = read_json(path)
    return parse_records(raw, str(path))
