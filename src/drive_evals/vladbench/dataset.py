"""VLADBench snapshot -> checked records -> Inspect samples (one sample per question, as VLMEvalKit asks them).

The sample input is the official prompt (VLMEvalKit `VLADBench.build_prompt`): every image of the row, in order
(a frame sequence as separate images), then the question verbatim, in one user message, with no system prompt.
Image file names never reach the model (Light and Weather file names spell the answer).
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageUser, Content, ContentImage, ContentText
from PIL import Image, UnidentifiedImageError

from drive_evals.blind import BLIND_IMAGE_DESCRIPTION, blind_sample
from drive_evals.data import Snapshot, inside
from drive_evals.data_warnings import DataWarnings
from drive_evals.errors import DataValidationError
from drive_evals.shard import SHARD_KEY, Shard
from drive_evals.spread import spread_samples
from drive_evals.vladbench.annotations import annotation_file, has_annotations, load_annotations
from drive_evals.vladbench.prompts import PromptVariant, check_countries, prompt_text
from drive_evals.vladbench.records import TSV_FILE, VladRecord, load_records
from drive_evals.vladbench.rules import JUDGEMENT_ANSWERS, clean_string, is_localisation
from drive_evals.vladbench.taxonomy import BY_NAME

logger = logging.getLogger(__name__)

VLMEVALKIT_TSV_MD5 = "53c01aa8f9afe2d084728fc8eb21caea"
"""The MD5 VLMEvalKit expects of `VLADBench.tsv` (`DATASET_MD5`); not yet checked against the hub file."""
TASK_KEY = "task"
SCENE_KEY = "scene"
"""Sample metadata key of the cluster: one sample of one task (`<task>/<dindex>`), i.e. one image or sequence."""
PLANNED_TASKS_KEY = "tasks"
"""Task metadata key: the tasks the run planned (`-T tasks`; a `--limit` run without one has no headline)."""
PLANNED_TASK_COUNT_KEY = "run_task_count"
"""Sample metadata key: how many tasks the run planned, so `total` is NaN for a run without questions of one."""
LOCALISATION_KEY = "localisation"
"""Sample metadata flag: a Grounding question that asks for a box (scored by IoU). Read from the question text by
the scorer, and stored so that the report's credits (`credits`) can read it from Inspect's sample summaries, which
shorten long text fields and would cut the marker off a long question."""
YES_NO_KEY = "yes_no"
"""Sample metadata flag: a Judge question whose reference is yes or no (`LOCALISATION_KEY` says why it is stored)."""
LOCAL_SOURCES = ("local", "demo")
IMAGE_CHECK_LIMIT = 20
"""Image problems listed in full; a missing image folder would otherwise list thousands."""


@dataclass(frozen=True)
class VladData:
    dataset: MemoryDataset
    summary: dict[str, Any]


def sample_id(record: VladRecord) -> str:
    """`vladbench-<task>-<index>`: `--sample-id 'vladbench-Traffic_Light-*'` selects a task."""
    return f"vladbench-{record.task}-{record.index}"


def scene(record: VladRecord) -> str:
    return f"{record.task}/{record.dindex}"


def question_flags(task: str, question: str, answer: str) -> dict[str, bool]:
    """What kind of question the official scorer sees: a box question (Grounding), a yes/no question (Judge)."""
    kind = BY_NAME[task].scorer
    return {
        LOCALISATION_KEY: kind == "grounding" and is_localisation(question),
        YES_NO_KEY: kind == "judge" and clean_string(answer).lower() in JUDGEMENT_ANSWERS,
    }


def record_to_sample(
    record: VladRecord, paths: Sequence[Path], prompt: PromptVariant = "vlmevalkit", planned_tasks: int = 1
) -> Sample:
    task = BY_NAME[record.task]
    images: list[Content] = [ContentImage(image=str(path)) for path in paths]
    return Sample(
        id=sample_id(record),
        input=[ChatMessageUser(content=[*images, ContentText(text=prompt_text(record, prompt))])],
        target=record.answer,
        metadata={
            TASK_KEY: record.task,
            "aspect": task.aspect,
            "domain": task.domain,
            SCENE_KEY: scene(record),
            "dindex": record.dindex,
            "row": record.row,
            "index": record.index,
            "question": record.question,
            "answer": record.answer,
            "dimension": list(record.dimension) if record.dimension else None,
            "images": list(record.images),
            PLANNED_TASK_COUNT_KEY: planned_tasks,
            **question_flags(record.task, record.question, record.answer),
        },
    )


def check_images(root: Path, records: Sequence[VladRecord]) -> dict[str, Path]:
    """Every image the records use: inside the snapshot, present and readable. Raises naming each problem."""
    paths: dict[str, Path] = {}
    problems: list[str] = []
    for record in records:
        for name in record.images:
            if name in paths:
                continue
            path = inside(root, name)
            problem = "path escapes the data directory" if path is None else _image_problem(path)
            if problem:
                problems.append(f"{record.where}: image {name!r}: {problem}")
            if path is not None:
                paths[name] = path
    if problems:
        raise DataValidationError(str(root), problems, limit=IMAGE_CHECK_LIMIT)
    return paths


def _image_problem(path: Path) -> str | None:
    if not path.is_file():
        return f"not found at {path}"
    try:
        with Image.open(path) as image:
            image.size  # noqa: B018 - the header read is the check
    except (UnidentifiedImageError, OSError) as error:
        return f"not a readable image ({error})"
    return None


def md5_file(path: Path) -> str:
    digest = hashlib.md5(usedforsecurity=False)
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def check_md5(path: Path, source: str, warnings: DataWarnings) -> str:
    """The TSV's MD5; a file from the hub that differs from what VLMEvalKit expects is a warning (VLMEvalKit itself
    never checks a fresh download), so numbers from another TSV are not silently compared with theirs."""
    found = md5_file(path)
    if source == "huggingface" and found != VLMEVALKIT_TSV_MD5:
        warnings.add(
            "tsv_md5",
            f"{TSV_FILE} differs from the file VLMEvalKit expects (MD5 {VLMEVALKIT_TSV_MD5}): its numbers may not "
            "compare with VLMEvalKit runs",
            f"MD5 {found}",
        )
    return found


def load_vladbench(
    snapshot: Snapshot,
    tasks: Sequence[str],
    blind: bool = False,
    shard: Shard | None = None,
    prompt: PromptVariant = "vlmevalkit",
) -> VladData:
    """Build the samples of the selected tasks, checking the table and the images before any model call.

    A local folder without `VLADBench.tsv` but with the authors' annotation JSON is read in that layout.
    """
    warnings = DataWarnings("VLADBench")
    source = str(snapshot.provenance().get("source"))
    tsv = snapshot.root / TSV_FILE
    if source in LOCAL_SOURCES and not tsv.is_file() and has_annotations(snapshot.root, list(tasks)):
        snapshot.fetch([annotation_file(t) for t in tasks])  # local: nothing to download, but listed for the manifest
        records, md5, layout = load_annotations(snapshot.root, list(tasks), warnings), None, "annotation JSON"
    else:
        snapshot.fetch([TSV_FILE])
        tsv = snapshot.root / TSV_FILE
        records, layout = load_records(tsv, tasks, warnings), "TSV"
        md5 = check_md5(tsv, source, warnings)
    check_countries(records, prompt)
    scenes = shard.clusters((scene(r) for r in records), "scenes") if shard else None
    kept = [record for record in records if scenes is None or scene(record) in scenes]
    files = list(dict.fromkeys(name for record in kept for name in record.images))
    snapshot.fetch([name for name in files if inside(snapshot.root, name) is not None])
    paths = check_images(snapshot.root, kept)
    samples = [record_to_sample(record, [paths[name] for name in record.images], prompt, len(tasks)) for record in kept]
    if blind:
        samples = [blind_sample(sample) for sample in samples]
    samples = spread_samples(samples, TASK_KEY, SCENE_KEY)  # `--limit N`: every task, as many scenes as it can
    summary = {
        "questions": {name: sum(1 for r in records if r.task == name) for name in tasks},
        "scenes": len({scene(r) for r in records}),
        "images": len({name for r in records for name in r.images}),
        PLANNED_TASKS_KEY: list(tasks),
        "data": {**snapshot.provenance(), "layout": layout, "tsv_md5": md5},
        "prompt": prompt,
        "blind": blind,
        "blind_image": BLIND_IMAGE_DESCRIPTION if blind else None,
        "data_warnings": warnings.summary(),
        SHARD_KEY: str(shard) if shard else None,
    }
    warnings.log(logger)
    return VladData(MemoryDataset(samples, name="vladbench", shuffled=False), summary)
