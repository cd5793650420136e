"""The hosted forms of MME-RealWorld read into one record type, with every problem collected in one pass.

Forms (protocol 1.1-1.2): the official JSON (`MME_RealWorld.json`, `MME_RealWorld_CN.json`) with the extracted
image archive beside it; the lmms-eval parquet (`*.parquet`, images as base64 strings in `bytes`); the Base64
JSON chunks VLMEvalKit builds its TSV from (`MME-RealWorld/*.json`, `MME-RealWorld-CN/*.json`) and the TSVs
themselves (`MME-RealWorld.tsv`, `MME-RealWorld-CN.tsv`, `mme_realworld_lite.tsv`). Only Autonomous_Driving
items are kept. Inline images are decoded from base64 and written to the cache as they are (never re-encoded), so
the model gets the hosted bytes and a 6 GB set is never held in memory.

A field the official code reads and cannot do without (question, options, answer, task, image) is a problem; what
it only tolerates (an answer outside A-E, an option without its `(X) ` label, other than five options) is a warning.
"""

from __future__ import annotations

import ast
import base64
import binascii
import csv
import hashlib
import json
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from drive_evals.kit import DataWarnings, cache_dir
from drive_evals.mme_realworld_ad.taxonomy import DOMAIN

CHOICES_HEADER = ("The choices are listed below:\n", "选项如下所示:\n")
"""What VLMEvalKit's generated TSV puts before the options (EN, CN)."""
OPTION_COUNT = 5
LETTERS = "ABCDE"
IMAGE_CACHE = "mme_realworld_ad/images"
MAGIC = ((b"\xff\xd8\xff", "jpg"), (b"\x89PNG", "png"), (b"RIFF", "webp"), (b"GIF8", "gif"), (b"BM", "bmp"))


@dataclass(frozen=True)
class AdItem:
    """One AD question as every form holds it; `image` is a path relative to the data root or in the cache."""

    id: str
    task: str
    l2: str
    question: str
    options: tuple[str, ...]
    answer: str
    image: str
    cluster: str
    """The image's identity for clustering: its path (official) or the hash of its bytes (inline forms)."""
    where: str


class Problems:
    """Data problems (refused, all named at once) and warnings (kept in the log)."""

    def __init__(self, warnings: DataWarnings) -> None:
        self.errors: list[str] = []
        self.warnings = warnings

    def error(self, where: str, what: str) -> None:
        self.errors.append(f"{where}: {what}")


def check_item(item: AdItem, problems: Problems) -> None:
    """Warnings for what the official script tolerates (an item it would score as always wrong, or read oddly)."""
    if item.answer not in LETTERS:
        problems.warnings.add("answer_not_a_letter", "kept; no reply can match it, as in the official script",
                              f"{item.where}: {item.answer!r}")  # fmt: skip
    if len(item.options) != OPTION_COUNT:
        problems.warnings.add("not_five_options", "kept; asked with the options given",
                              f"{item.where}: {len(item.options)} options")  # fmt: skip
    for position, option in enumerate(item.options):
        if option[:3] not in (f"({LETTERS[position : position + 1]})", f"（{LETTERS[position : position + 1]}）"):
            problems.warnings.add("option_label", "kept; the official fallback reads the letter at position 1",
                                  f"{item.where}: {option[:20]!r}")  # fmt: skip
            break


def _text(record: Mapping[str, Any], key: str, where: str, problems: Problems) -> str:
    value = record.get(key)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not value.strip():
        problems.error(where, f"field {key!r} missing or not text ({value!r:.40})")
        return ""
    return value


def _options(value: object, where: str, problems: Problems) -> tuple[str, ...]:
    if isinstance(value, str):
        value = _options_from_text(value)
    if hasattr(value, "tolist"):
        value = value.tolist()  # a pyarrow / numpy list
    if not isinstance(value, (list, tuple)) or not value or not all(isinstance(v, str) for v in value):
        problems.error(where, f"options missing or not a list of texts ({value!r:.60})")
        return ()
    return tuple(value)


def _options_from_text(value: str) -> object:
    """A TSV cell: a Python list literal (the Lite TSV) or VLMEvalKit's header plus one option per line."""
    if value.startswith("["):
        try:
            return ast.literal_eval(value)
        except (ValueError, SyntaxError):
            return None
    for header in CHOICES_HEADER:
        if value.startswith(header):
            return value[len(header) :].split("\n")
    return None


def _split_category(category: str) -> tuple[str, str] | None:
    task, _, domain = category.partition("/")
    return (task, domain) if domain else None


# --- the official JSON ---


def read_official(path: Path, problems: Problems) -> list[AdItem]:
    try:
        records = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        problems.error(str(path), f"not readable JSON ({error})")
        return []
    if not isinstance(records, list):
        problems.error(str(path), "not a JSON list of records")
        return []
    items = []
    for position, record in enumerate(records):
        where = f"{path.name}[{position}]"
        if not isinstance(record, dict):
            problems.error(where, "not a JSON object")
            continue
        if record.get("Subtask") != DOMAIN:
            continue
        qid = record.get("Question_id")
        where = f"{path.name}[{position}] ({qid})"
        task = _text(record, "Task", where, problems)
        item = AdItem(
            id=str(qid) if qid not in (None, "") else f"{task}/{DOMAIN}/{record.get('Category')}/{position}",
            task=task,
            l2=_text(record, "Category", where, problems),
            question=_text(record, "Text", where, problems),
            options=_options(record.get("Answer choices"), where, problems),
            answer=_text(record, "Ground truth", where, problems),
            image=_text(record, "Image", where, problems),
            cluster=str(record.get("Image")),
            where=where,
        )
        items.append(item)
    return items


# --- inline forms: parquet rows, Base64 JSON chunks, TSV rows (index, question, options, answer, category, l2) ---


class ImageCache:
    """Writes decoded image bytes to the cache under their hash (once) and returns the path."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = root or cache_dir() / IMAGE_CACHE

    def put(self, data: bytes) -> tuple[Path, str]:
        digest = hashlib.sha256(data).hexdigest()
        suffix = next((ext for magic, ext in MAGIC if data.startswith(magic)), "bin")
        path = self.root / digest[:2] / f"{digest[:32]}.{suffix}"
        if not path.is_file():
            path.parent.mkdir(parents=True, exist_ok=True)
            partial = path.with_suffix(".partial")
            partial.write_bytes(data)
            partial.replace(path)
        return path, digest[:32]


def inline_item(
    row: Mapping[str, Any], image_key: str, where: str, images: ImageCache, problems: Problems,
    shared: dict[str, tuple[Path, str]],
) -> AdItem | None:  # fmt: skip
    """One row of a base64 form, or None when it is not an AD item."""
    split = _split_category(str(row.get("category", "")))
    if split is None or split[1] != DOMAIN:
        return None
    task = split[0]
    index = str(row.get("index"))
    where = f"{where} (index {index})"
    encoded = row.get(image_key)
    image = ("", "")
    if isinstance(encoded, bytes) and encoded.startswith(tuple(magic for magic, _ in MAGIC)):
        encoded = base64.b64encode(encoded).decode("ascii")  # a binary column holding the image itself
    elif isinstance(encoded, bytes):
        encoded = encoded.decode("ascii", errors="replace")
    if isinstance(encoded, str) and encoded in shared:  # VLMEvalKit: an image cell may name another row's index
        path, digest = shared[encoded]
        image = (str(path), digest)
    elif isinstance(encoded, str) and encoded:
        try:
            path, digest = images.put(base64.b64decode(encoded, validate=False))
            shared[index] = (path, digest)
            image = (str(path), digest)
        except (binascii.Error, ValueError) as error:
            problems.error(where, f"image is not base64 ({error})")
    else:
        problems.error(where, f"field {image_key!r} missing or empty")
    return AdItem(
        id=f"{task}/{DOMAIN}/{row.get('l2-category')}/{index}",
        task=task,
        l2=_text(row, "l2-category", where, problems),
        question=_text(row, "question", where, problems),
        options=_options(row.get("multi-choice options"), where, problems),
        answer=_text(row, "answer", where, problems),
        image=image[0],
        cluster=image[1],
        where=where,
    )


def _inline(
    rows: Iterable[tuple[str, Mapping[str, Any]]], key: str, problems: Problems, images: ImageCache
) -> list[AdItem]:
    shared: dict[str, tuple[Path, str]] = {}
    items = []
    for where, row in rows:
        item = inline_item(row, key, where, images, problems, shared)
        if item is not None:
            items.append(item)
    return items


PARQUET_COLUMNS = ("index", "question", "multi-choice options", "answer", "category", "l2-category", "bytes")


def _parquet_rows(paths: list[Path], problems: Problems) -> Iterator[tuple[str, Mapping[str, Any]]]:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        problems.error(
            str(paths[0].parent), "the lmms-eval parquet form needs pyarrow: pip install 'drive_evals[parquet]'"
        )
        return
    for path in paths:
        try:
            handle = pq.ParquetFile(path)
            missing = [c for c in PARQUET_COLUMNS if c not in handle.schema_arrow.names]
            if missing:
                problems.error(path.name, f"columns {missing} missing")
                continue
            row_number = 0
            for batch in handle.iter_batches(batch_size=16, columns=list(PARQUET_COLUMNS)):
                categories = batch.column("category").to_pylist()
                wanted = [i for i, c in enumerate(categories) if str(c).endswith("/" + DOMAIN)]
                if wanted:  # only AD rows pay for converting their image column
                    rows = batch.take(wanted).to_pylist()
                    for i, row in zip(wanted, rows, strict=True):
                        yield f"{path.name} row {row_number + i}", row
                row_number += batch.num_rows
        except OSError as error:
            problems.error(path.name, f"not a readable parquet file ({error})")


def read_parquet(paths: list[Path], problems: Problems, images: ImageCache) -> list[AdItem]:
    return _inline(_parquet_rows(paths, problems), "bytes", problems, images)


def _chunk_rows(paths: list[Path], problems: Problems) -> Iterator[tuple[str, Mapping[str, Any]]]:
    for path in paths:
        try:
            records = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
            problems.error(path.name, f"not readable JSON ({error})")
            continue
        if not isinstance(records, list):
            problems.error(path.name, "not a JSON list of records")
            continue
        for position, record in enumerate(records):
            if isinstance(record, dict):
                yield f"{path.parent.name}/{path.name}[{position}]", record
            else:
                problems.error(f"{path.name}[{position}]", "not a JSON object")


def read_chunks(paths: list[Path], problems: Problems, images: ImageCache) -> list[AdItem]:
    return _inline(_chunk_rows(paths, problems), "image", problems, images)


def _tsv_rows(path: Path, problems: Problems) -> Iterator[tuple[str, Mapping[str, Any]]]:
    csv.field_size_limit(sys.maxsize)  # an image cell is megabytes of base64
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle, delimiter="\t")
        if reader.fieldnames and "image" not in reader.fieldnames:
            problems.error(path.name, "no `image` column (a localized `_local.tsv` holds re-encoded JPEGs: use the "
                           "TSV it was made from)")  # fmt: skip
            return
        for number, row in enumerate(reader, start=2):
            yield f"{path.name} line {number}", row


def read_tsv(path: Path, problems: Problems, images: ImageCache) -> list[AdItem]:
    return _inline(_tsv_rows(path, problems), "image", problems, images)
