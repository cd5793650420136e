"""The llava-format parquet (`KaiChen1998/coda-lm-llava-format`, MIT): one row per item, the image embedded.

Columns (its README's dataset_info): `id` (string), `image` (struct `{bytes, path}`), `conversations` (a list of
`{from, value}`). The task of a row is read from its question, which must be one of the three official prompts
(an `<image>` token and surrounding whitespace aside); the reference is its first `gpt` turn; region rows carry
their red box already drawn, and their bytes are sent as shipped. What this layout does not say, and how it is read
(unverified against the real files, which this machine cannot download): the image id and region key come from the
image's file name (`NNNN.jpg`, `NNNN_object_K.jpg`), else from the row id; there is no object category, so the
per-category region breakdown needs the annotation JSON.

Reading parquet needs `pyarrow`, an optional extra (`pip install 'drive_evals[parquet]'`): the annotation JSON, the
official route, needs nothing more.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from drive_evals.coda_lm.prompts import MODEL_PROMPTS, TaskName
from drive_evals.coda_lm.records import Item
from drive_evals.data import cache_dir
from drive_evals.data_warnings import DataWarnings
from drive_evals.errors import DataSourceError, DataValidationError

HF_PARQUET = "KaiChen1998/coda-lm-llava-format"
CONFIG = "English"
ANNOTATION_FOLDER = "CODA-LM"
IMAGE_TOKEN = "<image>"
UNKNOWN_CATEGORY = "unknown"
"""The super-category of a parquet region: the layout has none (its region still counts in the official mean)."""
_NAME = re.compile(r"(\d+)(?:_object_(\d+))?\.\w+$")
_ROW_ID = re.compile(r"(\d+)(?:[_-](\d+))?$")
CACHE_FOLDER = "coda_lm/parquet"
TASK_OF_PROMPT = {text: task for task, text in MODEL_PROMPTS.items()}


def parquet_source(data: str, revision: str | None, split: str) -> list[Path] | None:
    """The split's parquet files when `data` names the llava format (a `.parquet` file, a folder of them, or the
    hub id), else None (the annotation JSON)."""
    path = Path(data).expanduser()
    if path.is_file() and path.suffix == ".parquet":
        return [path]
    if path.is_dir() and not (path / ANNOTATION_FOLDER).is_dir():  # the annotation layout wins in a folder of both
        files = sorted(path.rglob(f"{split}-*.parquet"))
        english = [f for f in files if CONFIG in f.parts]
        return english or files or None
    if data.removeprefix("hf:") != HF_PARQUET:
        return None
    from huggingface_hub import hf_hub_download, list_repo_files

    try:
        names = [
            n for n in list_repo_files(HF_PARQUET, repo_type="dataset", revision=revision) if n.endswith(".parquet")
        ]
        chosen = sorted(n for n in names if n.rsplit("/", 1)[-1].startswith(f"{split}-") and CONFIG in n)
        return [Path(hf_hub_download(HF_PARQUET, n, repo_type="dataset", revision=revision)) for n in chosen]
    except Exception as error:
        raise DataSourceError(
            f"Could not download the {split} parquet of {HF_PARQUET}: {type(error).__name__}: {error}. To work "
            "offline, copy its files to this machine and pass -T data=DIR"
        ) from error


def _pyarrow() -> Any:
    try:
        import pyarrow.parquet as pq
    except ImportError as error:
        raise DataSourceError(
            "Reading the llava-format parquet needs pyarrow: pip install 'drive_evals[parquet]' (or use the "
            "annotation JSON with the CODA2022 images, which needs nothing more)"
        ) from error
    return pq


def _question_task(conversations: object) -> tuple[TaskName | None, str | None]:
    """The task of a row's first human turn and the first gpt turn's text (None where absent)."""
    turns = [t for t in conversations if isinstance(t, dict)] if isinstance(conversations, list) else []
    human = next((t.get("value") for t in turns if t.get("from") == "human"), None)
    answer = next((t.get("value") for t in turns if t.get("from") == "gpt"), None)
    question = human.replace(IMAGE_TOKEN, "").strip() if isinstance(human, str) else ""
    return TASK_OF_PROMPT.get(question), answer if isinstance(answer, str) else None


def _ids(row_id: str, image_path: str | None) -> tuple[str, str | None]:
    """(image id, region key) from the image's file name, else from the row id, else the row id itself."""
    for text, pattern in ((image_path or "", _NAME), (row_id, _ROW_ID)):
        match = pattern.search(text)
        if match:
            return match.group(1).zfill(4), match.group(2)
    return row_id, None


def _stored(data: bytes) -> Path:
    """The embedded image as a cached file (content-addressed), sent as shipped."""
    digest = hashlib.sha256(data).hexdigest()[:32]
    kind = "png" if data.startswith(b"\x89PNG") else "jpg"
    target = cache_dir() / CACHE_FOLDER / f"{digest}.{kind}"
    if not target.is_file():
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_suffix(".tmp")
        partial.write_bytes(data)
        partial.replace(target)
    return target


def parquet_items(
    files: Sequence[Path], split: str, tasks: Sequence[TaskName], warnings: DataWarnings
) -> tuple[list[Item], dict[str, Any]]:
    """Every row of `files` checked in one pass (each problem names the file and row), then the planned items."""
    pq = _pyarrow()
    problems: list[str] = []
    items: list[Item] = []
    for file in files:
        table = pq.read_table(file)
        missing = {"id", "image", "conversations"} - set(table.column_names)
        if missing:
            problems.append(f"{file.name}: missing column(s) {', '.join(sorted(missing))}")
            continue
        for n, row in enumerate(table.to_pylist()):
            where = f"{file.name} row {n} (id {row.get('id')!r})"
            task, reference = _question_task(row.get("conversations"))
            image = row.get("image") if isinstance(row.get("image"), dict) else {}
            if task is None:
                problems.append(f"{where}: the question is not one of the three CODA-LM prompts")
                continue
            if reference is None:
                problems.append(f"{where}: no gpt turn (the reference the judge reads)")
                continue
            if not isinstance(image.get("bytes"), bytes):
                problems.append(f"{where}: no embedded image bytes")
                continue
            if not reference.strip():
                warnings.add("empty_reference", "a reference text is empty: the judge compares with nothing", where)
            if task not in tasks:
                continue
            image_id, region = _ids(str(row.get("id")), image.get("path"))
            if task == "region_perception" and region is None:
                warnings.add(
                    "region_key_unknown",
                    "a region row whose image name and id give no region key: keyed by its row number",
                    where,
                )
                region = f"row{n}"
            items.append(
                Item(
                    task,
                    image_id,
                    _stored(image["bytes"]),
                    reference,
                    region if task == "region_perception" else None,
                    None,
                    UNKNOWN_CATEGORY if task == "region_perception" else None,
                    extra={"row_id": str(row.get("id"))},
                )
            )
    if problems:
        raise DataValidationError(f"CODA-LM {split} parquet", problems)
    return items, {"source": "parquet", "files": [str(f) for f in files]}
