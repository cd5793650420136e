"""The authors' own layout: per-task annotation JSON (`<Domain>/<Aspect>/<Task>_E.json`) beside the images.

This is what the authors' scripts read (Depth2World/VLADBench `qwen2vl_all.py`) and what the Hugging Face repository
holds beside the TSV. Each file is a list of samples (one image or frame sequence); each sample holds `questions`
(`"<selector>;<question>"`, the selector an image file name or `[image_path]` / `[image_path_plot]` naming a
frame list), `reference` (aligned with `questions`; a box is a list of 4 integers), `dimension` (on samples with a
box question), `sequence` (the frame folder) and `country`. They become the same records as the TSV's rows: one per
question, the sample's position as `dindex`, the text after the first `;` as the question.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from drive_evals.data_warnings import DataWarnings
from drive_evals.errors import DataValidationError
from drive_evals.vladbench.records import VladRecord, record_problems, task_problems
from drive_evals.vladbench.taxonomy import BY_NAME

SUFFIX = "_E.json"
SELECTOR_SEPARATOR = ";"


def annotation_file(task: str) -> str:
    info = BY_NAME[task]
    return f"{info.domain}/{info.aspect}/{task}{SUFFIX}"


def has_annotations(root: Path, tasks: list[str]) -> bool:
    return any((root / annotation_file(task)).is_file() for task in tasks)


def _images(folder: str, sample: dict[str, Any], selector: str) -> tuple[str, ...] | str:
    """The question's image paths, or a problem: a file name, or `[field]` naming the sample's frame list."""
    selector = selector.strip()
    if selector.startswith("[") and selector.endswith("]"):
        frames = sample.get(selector[1:-1])
        sequence = sample.get("sequence")
        if not isinstance(frames, list) or not frames or not isinstance(sequence, str):
            return f"selector {selector} names no frame list (or the sample has no `sequence`)"
        return tuple(f"{folder}/{sequence}/{frame}" for frame in frames)
    return (f"{folder}/{selector}",) if selector else "empty image selector"


def load_annotations(root: Path, tasks: list[str], warnings: DataWarnings) -> list[VladRecord]:
    """Records of the selected tasks from their annotation files, with every problem reported at once."""
    problems: list[str] = []
    records: list[VladRecord] = []
    for task in tasks:
        name = annotation_file(task)
        path = root / name
        if not path.is_file():
            problems.append(f"{name}: not found")
            continue
        try:
            samples = json.loads(path.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as error:
            problems.append(f"{name}: not JSON ({error})")
            continue
        folder = name.removesuffix(SUFFIX)
        for number, sample in enumerate(samples if isinstance(samples, list) else []):
            questions, references = sample.get("questions"), sample.get("reference")
            if not isinstance(questions, list) or not isinstance(references, list) or len(questions) != len(references):
                problems.append(f"{name} sample {number}: `questions` and `reference` are not aligned lists")
                continue
            dimension = sample.get("dimension")
            size = (
                (float(dimension[0]), float(dimension[1]))
                if isinstance(dimension, list) and len(dimension) == 2
                else None
            )
            for position, (question, reference) in enumerate(zip(questions, references, strict=True)):
                selector, separator, text = str(question).partition(SELECTOR_SEPARATOR)
                images = _images(folder, sample, selector)
                if not separator or isinstance(images, str):
                    problems.append(
                        f"{name} sample {number} question {position}: {images if separator else 'no selector'}"
                    )
                    continue
                record = VladRecord(
                    row=len(records) + 1,
                    index=f"{task}-{number}-{position}",
                    images=images,
                    question=text,
                    answer=str(reference),
                    task=task,
                    dindex=str(number),
                    dimension=size,
                    sequence=selector.strip().startswith("["),
                    country=str(sample["country"]) if "country" in sample else None,
                    source=name,
                )
                problems.extend(record_problems(record, str(dimension), warnings))
                records.append(record)
    problems.extend(task_problems(records, tasks))
    if problems:
        raise DataValidationError(str(root), problems)
    return records
