"""CODA-LM data -> Inspect samples: the annotation JSON with the user's CODA2022 images, or the llava-format parquet.

One sample is one official item: an image's general-perception question, its driving-suggestion question, or one
region's question (with the image carrying that region's red box). Every problem of the annotation files and of the
image files the run reads is found in one pass and raised together, before any model call.
"""

from __future__ import annotations

import logging
import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessageUser, ContentImage, ContentText

from drive_evals.coda_lm import parquet
from drive_evals.coda_lm.boxes import boxed_image, image_problem
from drive_evals.coda_lm.metrics import GROUP_KEY, IMAGE_KEY, TASK_KEY
from drive_evals.coda_lm.prompts import MODEL_PROMPTS, TASKS, TaskName
from drive_evals.coda_lm.records import SPLITS, ImageRecord, Item, parse_record
from drive_evals.data import DEMO
from drive_evals.kit import (
    BLIND_IMAGE_DESCRIPTION,
    DataValidationError,
    DataWarnings,
    ParameterError,
    Snapshot,
    SuiteArgs,
    open_data,
    read_json,
)
from drive_evals.manifest import verify_manifest
from drive_evals.shard import SHARD_KEY
from drive_evals.spread import spread

logger = logging.getLogger(__name__)

HF_DATASET = "KaiChen1998/coda-lm"
HF_REVISION = "main"
"""The hub's newest annotations. The filled Test references arrived in commit d556763 (2024-10-23, issue #9 of
DLUT-LYZ/CODA-LM); only its short id is public, so the default is `main` (at or after it), the resolved commit is
logged, and a Test split whose references are all empty (the state before d556763) is refused."""
ANNOTATION_FOLDER = "CODA-LM"
IMAGES_ENV = "CODA2022_ROOT"
ID_PREFIX = "coda-lm"
TASK_CODES: dict[TaskName, str] = {"general_perception": "gp", "driving_suggestion": "ds", "region_perception": "rp"}
PLANNED_TASKS_KEY = "tasks"


@dataclass(frozen=True)
class CodaData:
    samples: list[Sample]
    summary: dict[str, Any]
    warnings: DataWarnings


def parse_tasks(value: object) -> list[TaskName]:
    """`-T tasks=`: a comma list of the three task names (all three by default), in the official order."""
    names = [n.strip() for n in value.split(",")] if isinstance(value, str) else list(value or [])  # type: ignore[call-overload]
    unknown = [n for n in names if n not in TASKS]
    if not names or unknown:
        raise ParameterError(f"tasks={value!r}: expected a comma list of {', '.join(TASKS)}")
    return [t for t in TASKS if t in names]


def parse_split(value: object) -> str:
    for split in SPLITS:
        if isinstance(value, str) and value.strip().lower() == split.lower():
            return split
    raise ParameterError(f"split={value!r}: expected one of {', '.join(SPLITS)} (Mini is inside Val)")


def annotation_files(snapshot: Snapshot, data: str, revision: str | None, split: str) -> tuple[Path, list[str]]:
    """The root holding `CODA-LM/<split>/` and the split's annotation files under it (sorted, as stage1 L177),
    fetched through the snapshot (so the data root's manifest checks them)."""
    folder = f"{ANNOTATION_FOLDER}/{split}"
    if data == DEMO or Path(data).expanduser().is_dir():
        local = snapshot.root / folder
        if not local.is_dir():
            raise ParameterError(f"data={data!r}: no {folder}/ folder in it (the layout of {HF_DATASET})")
        names = sorted(f"{folder}/{p.name}" for p in local.glob("*.json"))
    else:
        from huggingface_hub import list_repo_files

        listed = list_repo_files(data.removeprefix("hf:"), repo_type="dataset", revision=revision or HF_REVISION)
        names = sorted(n for n in listed if n.rsplit("/", 1)[0] == folder and n.endswith(".json"))
    if not names:
        raise DataValidationError(folder, [f"{data}: no annotation files in {folder}/ (*.json)"])
    snapshot.fetch(names)
    return snapshot.root, names


def images_root(data: str, images: str | None, root: Path) -> Path:
    """The CODA2022 root holding `test/images/` (and `val/images/`): `-T images`, else $CODA2022_ROOT, else the data
    folder itself (the official layout keeps both under one root; the demo does)."""
    chosen = images or os.environ.get(IMAGES_ENV)
    if chosen:
        path = Path(chosen).expanduser()
        if not path.is_dir():
            raise ParameterError(f"images={chosen!r} is not a directory")
        return path.resolve()
    if data == DEMO or any((root / folder / "images").is_dir() for folder in ("test", "val")):
        return root
    raise ParameterError(
        "the annotation JSON names CODA2022 images, which CODA-LM does not ship: pass -T images=/path/to/CODA2022 "
        f"(the folder holding test/images/NNNN.jpg, downloaded from coda-dataset.github.io) or set {IMAGES_ENV}; "
        "or use the llava-format parquet, which embeds them (-T data=KaiChen1998/coda-lm-llava-format)"
    )


def json_items(
    root: Path, names: Sequence[str], split: str, tasks: Sequence[TaskName], image_root: Path, warnings: DataWarnings
) -> list[Item]:
    """Validate every annotation file and every image it needs, then list the items, all problems together."""
    problems: list[str] = []
    records: list[ImageRecord] = []
    for name in names:
        record = parse_record(name, read_json(root / name), tasks, problems, warnings)
        if record is None:
            continue
        relative = f"{record.folder}/images/{record.image_id}.jpg"
        problem = image_problem(image_root / relative)
        if problem:
            problems.append(f"{name}: image {relative} {problem}")
            continue
        records.append(record)
    if split == "Test" and records and not any(_references(r, t) for r in records for t in tasks):
        problems.append(
            f"every reference of {split} is empty: these are the annotations before dataset commit d556763 "
            "(2024-10-23), when the Test ground truth was still held back; use a later -T revision (main)"
        )
    if problems:
        raise DataValidationError(f"CODA-LM {split} annotations", problems)
    return [item for record in records for item in record_items(record, tasks, image_root)]


def _references(record: ImageRecord, task: TaskName) -> list[str]:
    """The non-empty references of `task` in `record`."""
    if task == "general_perception":
        texts = [record.general or ""]
    elif task == "driving_suggestion":
        texts = [record.suggestion or ""]
    else:
        texts = [r.reference for r in record.regions]
    return [t for t in texts if t.strip()]


def record_items(record: ImageRecord, tasks: Sequence[TaskName], image_root: Path) -> list[Item]:
    image = image_root / record.folder / "images" / f"{record.image_id}.jpg"
    items: list[Item] = []
    if "general_perception" in tasks and record.general is not None:
        items.append(Item("general_perception", record.image_id, image, record.general))
    if "region_perception" in tasks:
        for region in record.regions:
            items.append(
                Item(
                    "region_perception",
                    record.image_id,
                    image,
                    region.reference,
                    region.key,
                    region.category,
                    region.group,
                    region.box,
                )
            )
    if "driving_suggestion" in tasks and record.suggestion is not None:
        items.append(Item("driving_suggestion", record.image_id, image, record.suggestion))
    return items


def sample_id(split: str, item: Item) -> str:
    """`coda-lm-test-gp-0001`, `coda-lm-test-ds-0001`, `coda-lm-test-rp-0001-2` (region key 2)."""
    parts = [ID_PREFIX, split.lower(), TASK_CODES[item.task], item.image_id]
    return "-".join([*parts, item.region_key] if item.region_key is not None else parts)


def to_sample(split: str, item: Item) -> Sample:
    """The image, then the official question (one user turn; no system prompt, as convert2vqa writes it)."""
    image = boxed_image(item.image, item.box) if item.box is not None else item.image
    return Sample(
        id=sample_id(split, item),
        input=[ChatMessageUser(content=[ContentImage(image=str(image)), ContentText(text=MODEL_PROMPTS[item.task])])],
        target=item.reference,
        metadata={
            TASK_KEY: item.task,
            IMAGE_KEY: item.image_id,
            "split": split,
            "region_key": item.region_key,
            "category_name": item.category,
            GROUP_KEY: item.group,
            "box": list(item.box) if item.box is not None else None,
            "reference": item.reference,
            **item.extra,
        },
    )


def load_coda_lm(suite: SuiteArgs, split: str, tasks: Sequence[TaskName], images: str | None) -> CodaData:
    """Validate the split's annotations (or parquet rows) and the images they name, then build the samples."""
    data, revision, shard = suite.data, suite.revision, suite.shard
    warnings = DataWarnings("CODA-LM")
    source = parquet.parquet_source(data, revision, split)
    if source is not None:
        items, provenance = parquet.parquet_items(source, split, tasks, warnings)
        layout = "llava-format parquet (embedded images; region images as shipped)"
    else:
        snapshot = open_data(suite)
        root, names = annotation_files(snapshot, data, revision, split)
        image_root = images_root(data, images, root)
        items = json_items(root, names, split, tasks, image_root, warnings)
        read = sorted({str(i.image.relative_to(image_root)) for i in items})
        if image_root == root:
            snapshot.fetch(read)  # the data folder's own manifest checks them (make_task)
        else:  # the user's CODA2022 folder: its manifest, if it has one, checks every image read
            verify_manifest(image_root, read)
        provenance = {**snapshot.provenance(), "images": str(image_root)}
        layout = "annotation JSON + CODA2022 images (red boxes drawn as convert2vqa.py)"
    kept_images = shard.clusters((i.image_id for i in items), "images") if shard else None
    kept = [i for i in items if kept_images is None or i.image_id in kept_images]
    # `--limit N` covers every task and as many images as it can
    ordered = spread(kept, group=lambda i: i.task, cluster=lambda i: i.image_id)
    samples = [to_sample(split, item) for item in ordered]
    repeated = [sample_id for sample_id, n in Counter(s.id for s in samples).items() if n > 1]
    if repeated:
        raise DataValidationError(f"CODA-LM {split}", [f"item {i} occurs more than once" for i in repeated])
    per_task = Counter(i.task for i in items)
    summary = {
        "split": split,
        PLANNED_TASKS_KEY: list(tasks),
        "items": dict(per_task),
        "image_count": len({i.image_id for i in items}),
        "layout": layout,
        "data": provenance,
        "blind": suite.blind,
        "blind_image": BLIND_IMAGE_DESCRIPTION if suite.blind else None,
        SHARD_KEY: str(shard) if shard else None,
    }
    logger.info("CODA-LM %s: %s over %d images", split, dict(per_task), summary["image_count"])
    return CodaData(samples, summary, warnings)
