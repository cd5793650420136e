"""SURDS snapshot -> validated records -> official units -> Inspect samples (one sample per unit)."""

from __future__ import annotations

import gc
import logging
import posixpath
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageUser, ContentImage, ContentText
from PIL import Image, UnidentifiedImageError

from drive_evals.blind import BLIND_IMAGE_DESCRIPTION, blind_sample
from drive_evals.data import LocalSnapshot, Snapshot, inside
from drive_evals.data_warnings import DataWarnings
from drive_evals.errors import DataValidationError, ParameterError
from drive_evals.shard import SHARD_KEY, Shard
from drive_evals.spread import spread_samples
from drive_evals.surds.breakdown import BREAKDOWN_KEY, unit_facts
from drive_evals.surds.metrics import RUN_SUBSETS_KEY
from drive_evals.surds.records import (
    IMAGE_ROOT,
    MAX_REPORTED_ERRORS,
    METADATA_FILE,
    SurdsRecord,
    load_metadata,
    parse_metadata_lines,
    read_metadata_lines,
    sort_by_file_name,
)
from drive_evals.surds.rules import IMAGE_HEIGHT, IMAGE_WIDTH
from drive_evals.surds.units import SUBSETS, Unit, build_units

logger = logging.getLogger(__name__)

RECORD_ORDERS = ("metadata", "sorted")
"""`metadata`: line order of metadata.jsonl, evalscope's reading; `sorted`: by file_name, the official script's
reading (datasets<=3.3.2), which also keeps the last line of a repeated image and pools records without objects."""


@dataclass(frozen=True)
class SurdsData:
    """The built dataset and the facts about it that belong in the log."""

    dataset: MemoryDataset
    summary: dict[str, Any]


def parse_subsets(subsets: str | Sequence[str] | None) -> list[str]:
    """Subset names from a list or a comma-separated string; None means all six, in the official order."""
    if subsets is None:
        return list(SUBSETS)
    if not isinstance(subsets, (str, list, tuple)):
        raise ParameterError(f"subsets={subsets!r}: valid subsets are {', '.join(SUBSETS)} (comma-separated)")
    names = [s.strip() for s in subsets.split(",")] if isinstance(subsets, str) else [str(s).strip() for s in subsets]
    names = [name for name in names if name]
    unknown = [name for name in names if name not in SUBSETS]
    if unknown or not names:
        problem = f"unknown subset(s) {unknown}" if unknown else "no subset selected"
        raise ParameterError(f"subsets: {problem}; valid subsets are {', '.join(SUBSETS)}")
    return [subset for subset in SUBSETS if subset in names]


def order_records(records: list[SurdsRecord], record_order: str) -> list[SurdsRecord]:
    if record_order not in RECORD_ORDERS:
        raise ParameterError(f"record_order={record_order!r}: valid values are {', '.join(RECORD_ORDERS)}")
    return sort_by_file_name(records) if record_order == "sorted" else records


def sample_id(subset: str, number: int) -> str:
    """Readable, globbable id: `surds-yaw-0003` (`--sample-id 'surds-depth-*'` selects a subset)."""
    return f"surds-{subset}-{number:04d}"


QUESTION_HEADING = "Question:"
CAMERA_FACING = re.compile(r"The camera in the image is facing ([^,.]+)")
"""The yaw template's only difference between the two prompts of a pair sits in its task description."""


def question_text(prompt: str) -> str:
    """The lines under `Question:` in a filled template (what tells units apart); the whole prompt if absent."""
    _, found, rest = prompt.partition(QUESTION_HEADING)
    question = rest.strip().split("\n\n", 1)[0].strip() if found else prompt
    facing = CAMERA_FACING.search(prompt)
    return f"{question} (camera facing {facing.group(1)})" if facing else question


def unit_to_sample(unit: Unit, number: int, image_path: Path, record: SurdsRecord) -> Sample:
    """One unit as one sample.

    The input holds the unit's question(s) and the image: it is what the viewer's sample list previews, and the
    source of the image the solver sends. The solver sends each full prompt from the metadata, byte for byte.
    `breakdown` holds the unit's facts for the report's failure breakdown (camera, category, depth, gaps).
    """
    questions = [question_text(prompt) for prompt in unit.prompts]
    total = len(questions)
    shown = questions[0] if total == 1 else "\n".join(f"{i}/{total}: {q}" for i, q in enumerate(questions, 1))
    return Sample(
        id=sample_id(unit.subset, number),
        input=[ChatMessageUser(content=[ContentText(text=shown), ContentImage(image=str(image_path))])],
        target=list(unit.targets),
        metadata={
            "subset": unit.subset,
            "unit_id": unit.unit_id,
            "image": unit.image,
            "record_index": unit.record_index,
            "prompts": list(unit.prompts),
            "targets": list(unit.targets),
            "options": list(unit.options),
            "bbox": list(unit.bbox) if unit.bbox is not None else None,
            BREAKDOWN_KEY: unit_facts(unit, record),
        },
    )


def read_checked_metadata(snapshot: Snapshot) -> list[SurdsRecord]:
    """The records of `metadata.jsonl`, every problem of a local copy raised in one pass: with broken lines, the
    images of the other lines are checked too (else the lines would be named alone, and the images only once they
    are fixed). A hub snapshot's images are downloaded later, only for the units the run uses."""
    path = snapshot.root / METADATA_FILE
    if not isinstance(snapshot, LocalSnapshot) or not path.is_file():
        return load_metadata(snapshot.root)
    with path.open(encoding="utf-8") as handle:
        records, problems = read_metadata_lines(handle, source=str(path))
    if not problems:
        return records or parse_metadata_lines([], str(path))  # no records: its own error
    image_dir = snapshot.root / IMAGE_ROOT
    for record in {record.file_name: record for record in records}.values():
        where = f"{METADATA_FILE}:{record.line}: file_name {record.file_name!r}"
        image = inside(image_dir, record.file_name)
        problem = f"path escapes the data directory {image_dir}" if image is None else _image_problem(image)
        if problem:
            problems.append(f"{where}: {problem}")
    raise DataValidationError(str(path), problems, MAX_REPORTED_ERRORS)


def check_images(snapshot_root: Path, units: Sequence[Unit], records: Sequence[SurdsRecord]) -> dict[str, Path]:
    """Resolve every image the units use: inside the snapshot, present, a 1600x900 image. Raises naming each."""
    image_dir = snapshot_root / IMAGE_ROOT
    paths: dict[str, Path] = {}
    problems: list[str] = []
    seen: set[str] = set()
    for unit in units:
        if unit.image in seen:
            continue
        seen.add(unit.image)
        where = f"{METADATA_FILE}:{records[unit.record_index].line}: file_name {unit.image!r}"
        path = inside(image_dir, unit.image)
        if path is None:
            problems.append(f"{where}: path escapes the data directory {image_dir}")
            continue
        problem = _image_problem(path)
        if problem:
            problems.append(f"{where}: {problem}")
        paths[unit.image] = path
    if problems:
        raise DataValidationError(str(snapshot_root), problems)
    return paths


def _image_problem(path: Path) -> str | None:
    """Cheap header check (no full decode): the file exists, is an image, and has the nuScenes size."""
    if not path.is_file():
        return f"image not found at {path}"
    size = webp_size(path)
    if size is None:
        try:
            with Image.open(path) as image:
                size = image.size
        except (UnidentifiedImageError, OSError) as error:
            return f"not a readable image ({error})"
    if size != (IMAGE_WIDTH, IMAGE_HEIGHT):
        return f"image is {size[0]}x{size[1]}, expected {IMAGE_WIDTH}x{IMAGE_HEIGHT}"
    return None


WEBP_HEADER_BYTES = 30
"""RIFF header, first chunk header and the image size fields of a VP8, VP8L or VP8X first chunk."""


def webp_size(path: Path) -> tuple[int, int] | None:
    """(width, height) from a complete WebP file's first 30 bytes; None for anything else (Pillow then decides).

    Pillow opens a WebP through libwebp's demuxer, which reads the whole file: 15x slower than this over the
    1,850 SURDS images. A RIFF size that disagrees with the file size (a truncated file) also gives None.
    """
    with path.open("rb") as handle:
        header = handle.read(WEBP_HEADER_BYTES)
    if len(header) < WEBP_HEADER_BYTES or header[:4] != b"RIFF" or header[8:12] != b"WEBP":
        return None
    if int.from_bytes(header[4:8], "little") + 8 != path.stat().st_size:
        return None
    chunk = header[12:16]
    if chunk == b"VP8 " and header[23:26] == b"\x9d\x01\x2a":
        return int.from_bytes(header[26:28], "little") & 0x3FFF, int.from_bytes(header[28:30], "little") & 0x3FFF
    if chunk == b"VP8L" and header[20] == 0x2F:
        bits = int.from_bytes(header[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8X":
        return int.from_bytes(header[24:27], "little") + 1, int.from_bytes(header[27:30], "little") + 1
    return None


REPEATED_FILE_NAME = "repeated_file_name"
REPEATED_MEANING = {
    "metadata": "a second metadata line for the same image; both lines are records, as evalscope reads them, "
    "so the single-object pool and the seed-42 draw change with it",
    "sorted": "a second metadata line for the same image; its last line wins and the image is one record, as the "
    "official script's datasets<=3.3.2 loader does",
}


def resolve_repeated_images(records: list[SurdsRecord], record_order: str, warnings: DataWarnings) -> list[SurdsRecord]:
    """Follow the reference each record order reproduces when two lines name the same image (with a warning).

    evalscope (line order) reads every line as a record. The official script's `datasets<=3.3.2` loader yields one
    row per image file, whose metadata is the last line naming it (a dict keyed by `file_name`). Newer `datasets`
    yield one row per line, and the official script then fails its image-count assertion.
    """
    last: dict[str, SurdsRecord] = {}
    first_line: dict[str, int] = {}
    for record in records:
        name = posixpath.normpath(record.file_name)
        if name in first_line:
            where = f"{record.where}: file_name {record.file_name!r}"
            warnings.add(
                REPEATED_FILE_NAME,
                REPEATED_MEANING[record_order],
                f"{where}: the same image as line {first_line[name]}",
            )
        else:
            first_line[name] = record.line
        last[name] = record
    if record_order != "sorted":
        return records
    kept = {id(record) for record in last.values()}
    return [record for record in records if id(record) in kept]


def check_selection(units: dict[str, list[Unit]], subsets: Sequence[str], record_count: int) -> None:
    """Every selected subset has units; an empty one would leave `overall` the mean of fewer subsets, unnoticed."""
    pairs = len(units["distance"])
    problems = [
        f"subset {subset!r} has no units in these {record_count} records ({pairs} object pairs; the official "
        "construction makes the pair units from multi-object records and draws one single-object record per pair)"
        for subset in subsets
        if not units[subset]
    ]
    if problems:
        raise DataValidationError(METADATA_FILE, problems)


def image_files(units: Sequence[Unit]) -> list[str]:
    """Snapshot-relative paths of the images the units need (the only images a hub source downloads)."""
    return list(dict.fromkeys(f"{IMAGE_ROOT}/{unit.image}" for unit in units))


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector: building ~40,000 small objects that all stay alive set off collections
    that only rescanned them, half the build time on the full set."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@_gc_paused()
def load_surds(
    snapshot: Snapshot, subsets: Sequence[str], record_order: str, blind: bool = False, shard: Shard | None = None
) -> SurdsData:
    """Build the samples of the selected subsets, validating metadata and images before any model call.

    `blind` replaces each image by uniform grey (the no-vision control); ids and metadata stay the same. `shard`
    keeps the units of its images only (ids unchanged); only its images are downloaded and checked. The summary
    describes the whole selection, so it is the same in every shard and in an unsharded run.
    """
    snapshot.fetch([METADATA_FILE])
    warnings = DataWarnings("SURDS")
    records = order_records(read_checked_metadata(snapshot), record_order)
    records = resolve_repeated_images(records, record_order, warnings)
    all_units = build_units(records, empty_in_pool=record_order == "sorted", warnings=warnings)
    check_selection(all_units, subsets, len(records))
    selected = [unit for subset in subsets for unit in all_units[subset]]
    images = shard.clusters((unit.image for unit in selected), "images") if shard else None
    kept = [unit for unit in selected if images is None or unit.image in images]
    files = [name for name in image_files(kept) if inside(snapshot.root, name) is not None]
    snapshot.fetch(files)
    paths = check_images(snapshot.root, kept, records)
    samples: list[Sample] = []
    for subset in subsets:
        samples.extend(
            unit_to_sample(unit, number, paths[unit.image], records[unit.record_index])
            for number, unit in enumerate(all_units[subset])  # numbered before sharding: ids do not change
            if images is None or unit.image in images
        )
    for sample in samples:  # `overall` is the headline only with units of every planned subset (surds.metrics)
        sample.metadata = {**(sample.metadata or {}), RUN_SUBSETS_KEY: list(subsets)}
    if blind:
        samples = [blind_sample(sample) for sample in samples]
    summary = {
        "records": len(records),
        "units": {subset: len(all_units[subset]) for subset in subsets},
        "prompts": sum(len(unit.prompts) for unit in selected),
        "images": len({unit.image for unit in selected}),
        "record_order": record_order,
        "subsets": list(subsets),
        "data": snapshot.provenance(),
        "blind": blind,
        "blind_image": BLIND_IMAGE_DESCRIPTION if blind else None,
        "data_warnings": warnings.summary(),
        SHARD_KEY: str(shard) if shard else None,
    }
    warnings.log(logger)
    samples = spread_samples(samples, "subset", "image")
    return SurdsData(MemoryDataset(samples, name="surds", shuffled=False), summary)
