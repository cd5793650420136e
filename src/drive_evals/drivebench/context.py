"""The object description the judge's perception-MCQ and planning rubrics quote (`{DESC}`).

It comes from `data/visual_description.json` of the official repository (not on the hub): the file is taken from
the `visual_description` parameter, else from beside the question file, else downloaded once from GitHub at the
pinned commit and checked against its digest. The lookup is `extract_visual_description` (`evaluate/eval.py`
L60-85): the safe-actions question gets a fixed sentence; otherwise the frame's key objects are looked up, the
first `<...>` of the question (greedy, as officially) gives the object id and camera, and the first key object
starting with them gives its `Visual_description`, lower-cased; a question without `<...>` gets none.

Where the official evaluation aborts (an unknown scene, frame or object) the run stops before any call, naming
every such question. Where it would raise `KeyError` formatting a rubric that needs `{DESC}` without one (D11),
the question gets the fixed sentence and a data warning.
"""

from __future__ import annotations

import hashlib
import re
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from drive_evals.data import cache_dir, read_json
from drive_evals.data_warnings import DataWarnings
from drive_evals.drivebench.prompts import NO_DESCRIPTION, needs_description
from drive_evals.drivebench.records import SAFE_ACTIONS_QUESTION, DBRecord
from drive_evals.errors import DataSourceError, DataValidationError

DESCRIPTION_FILE = "visual_description.json"
OFFICIAL_COMMIT = "723908f2affe1d1602c51b748525c4fcd0904bc7"
OFFICIAL_URL = f"https://raw.githubusercontent.com/worldbench/drivebench/{OFFICIAL_COMMIT}/data/{DESCRIPTION_FILE}"
OFFICIAL_SHA256 = "4cf48342f2a325144ed1153516ad63f70c8bd2a3bc3be9af2afc22698271fd58"
"""Digest of the file at the pinned commit (436,651 bytes), read from the repository."""
DOWNLOAD_TIMEOUT_SECONDS = 30.0
OBJECT_ID = re.compile(r"<(.*)>")
"""`evaluate/eval.py` L71 (greedy: with two objects, the first one's id and camera are used)."""
FILLED_IN = "description_filled_in"
FILLED_IN_MEANING = (
    "a question whose rubric quotes an object description but which names no object; the official code would "
    f"stop with KeyError, here the judge reads {NO_DESCRIPTION!r}"
)


def download_official(target: Path) -> Path:
    """Fetch the official file once into `target`, checking its digest; an error says how to work offline."""
    if target.is_file():
        return target
    try:
        with urllib.request.urlopen(OFFICIAL_URL, timeout=DOWNLOAD_TIMEOUT_SECONDS) as response:
            body = response.read()
    except OSError as error:
        raise DataSourceError(
            f"Could not download {OFFICIAL_URL} ({error}). The judge needs the official object descriptions: "
            f"download that file where there is network and pass -T visual_description=PATH (or -T judge=false)."
        ) from error
    if hashlib.sha256(body).hexdigest() != OFFICIAL_SHA256:
        raise DataSourceError(f"{OFFICIAL_URL}: unexpected content (sha256 differs from the pinned commit's)")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(body)
    return target


def resolve_description_file(parameter: str | None, question_file: Path) -> tuple[Path, str]:
    """(file, where it came from): the parameter, the question file's folder, or the pinned official download."""
    if parameter:
        return Path(parameter).expanduser().resolve(), "parameter"
    beside = question_file.parent / DESCRIPTION_FILE
    if beside.is_file():
        return beside, "beside the question file"
    return download_official(cache_dir() / "drivebench" / OFFICIAL_COMMIT[:7] / DESCRIPTION_FILE), OFFICIAL_URL


def load_descriptions(path: Path) -> dict[str, Any]:
    raw = read_json(path)
    if not isinstance(raw, dict):
        raise DataValidationError(str(path), [f"{path}: expected a JSON object keyed by scene token"])
    return raw


def lookup(descriptions: dict[str, Any], record: DBRecord) -> str | None:
    """`extract_visual_description`; raises `LookupError` where the official code raises."""
    if record.question == SAFE_ACTIONS_QUESTION:
        return NO_DESCRIPTION
    try:
        key_objects = descriptions[record.scene_token]["key_frames"][record.frame_token]["key_object_infos"]
    except (KeyError, TypeError) as error:
        raise LookupError(f"scene {record.scene_token} / frame {record.frame_token} not described") from error
    match = OBJECT_ID.search(record.question)
    if match is None:
        return None
    prefix = ",".join(match.group(1).split(",")[:2])
    key = next((k for k in key_objects if k.startswith(f"<{prefix}")), None)
    if key is None:
        raise LookupError(f"no key object starts with <{prefix}")
    try:
        return str(key_objects[key]["Visual_description"]).lower()
    except (KeyError, TypeError) as error:
        raise LookupError(f"key object {key} has no Visual_description") from error


def judge_descriptions(
    records: Sequence[DBRecord], descriptions: dict[str, Any], source: str, warnings: DataWarnings
) -> list[str | None]:
    """The `{DESC}` of each record (None where its rubric has no slot for it), every problem in one error."""
    out: list[str | None] = []
    problems: list[str] = []
    for record in records:
        needed = needs_description(record.bucket.task, record.bucket.kind)
        try:
            desc = lookup(descriptions, record)
        except LookupError as error:
            if needed:
                problems.append(f"record {record.position} ({record.bucket.name}): {error}")
            out.append(None)
            continue
        if needed and not desc:
            warnings.add(FILLED_IN, FILLED_IN_MEANING, f"record {record.position}: {record.question[:80]!r}")
            desc = NO_DESCRIPTION
        out.append(desc if needed else None)
    if problems:
        raise DataValidationError(source, problems)
    return out
