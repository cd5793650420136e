"""Reading `VLADBench.tsv` as VLMEvalKit reads it, and checking it before anything is paid for.

The TSV (one row per question) is read with every cell as text, so an answer `50` or `NA` stays what is written
(VLMEvalKit's `pandas.read_csv` would type them; docs/vladbench.md, Fidelity). The columns the official code reads:
`index`, `image` (a path relative to the snapshot root, or a Python-list string of paths for a frame sequence; a
string of at most 64 characters names another row's `index`, whose image it shares), `question` (sent verbatim),
`answer`, `category3` (the task, official spelling), `dindex` (the sample within the task: consecutive rows with one
`dindex` are one sample) and `dimension` (`[width, height]`).

Errors are the problems on which the official code fails or that change a score: they are all collected in one
pass. Anything the official code never reads for a score is a warning (`data_warnings` in the log).
"""

from __future__ import annotations

import ast
import csv
import math
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from drive_evals.data_warnings import DataWarnings
from drive_evals.errors import DataValidationError
from drive_evals.vladbench.rules import JUDGEMENT_ANSWERS, SPEED_PATTERN, clean_string, is_localisation, parse_int_list
from drive_evals.vladbench.taxonomy import BY_NAME

TSV_FILE = "VLADBench.tsv"
"""Path of the question table inside the dataset snapshot; image paths are relative to the same root."""
REQUIRED_COLUMNS = ("index", "image", "question", "answer", "category3", "dindex", "dimension")
INDEX_REFERENCE_CHARS = 64
"""VLMEvalKit's `ImageBaseDataset` reads an `image` of at most this many characters as another row's `index`."""
BOX_VALUES = 4
DIMENSION_VALUES = 2


@dataclass(frozen=True)
class VladRecord:
    """One question row."""

    row: int
    """1-based data row (the header is row 0), for messages."""
    index: str
    images: tuple[str, ...]
    """Snapshot-relative image paths, in the order they are sent (frames of a sequence in order)."""
    question: str
    answer: str
    task: str
    dindex: str
    dimension: tuple[float, float] | None
    """`[width, height]`; None where the cell is empty or unreadable (only box questions need it)."""
    sequence: bool = False
    """A frame sequence (a list of frames, even of one), which the authors' prompt calls a sequence."""
    country: str | None = None
    """Where the images were taken (the annotation's `country`, or a TSV `country` column): the authors' prompt."""
    source: str = TSV_FILE

    @property
    def where(self) -> str:
        return f"{self.source} row {self.row} (index {self.index})"


def parse_list_string(text: str) -> list[str] | None:
    """VLMEvalKit's `toliststr` on a cell: `"[a, b]"` -> its items as text, anything else -> `[text]`; None when
    a bracketed cell is not a Python literal list (the official `eval` fails on it or runs code)."""
    if text.startswith("[") and text.endswith("]"):
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return None
        if not isinstance(value, (list, tuple)):
            return None
        return [str(item) for item in value]
    return [text]


def _dimension(text: str) -> tuple[float, float] | None:
    items = parse_list_string(text.strip()) if text.strip() else None
    if items is None or len(items) != DIMENSION_VALUES:
        return None
    try:
        width, height = float(items[0]), float(items[1])
    except ValueError:
        return None
    return (width, height) if math.isfinite(width) and math.isfinite(height) else None


def read_rows(path: Path) -> list[dict[str, str]]:
    """The TSV's rows as text; a missing file or column is an error naming it."""
    if not path.is_file():
        raise DataValidationError(str(path), [f"{TSV_FILE} not found at {path}"])
    csv.field_size_limit(sys.maxsize)  # a question can be long; the default 128 KiB limit is arbitrary here
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle, delimiter="\t")
        missing = [column for column in REQUIRED_COLUMNS if column not in (reader.fieldnames or [])]
        if missing:
            raise DataValidationError(
                str(path), [f"missing column(s) {', '.join(missing)}; found {', '.join(reader.fieldnames or [])}"]
            )
        return [{key: (value or "") for key, value in row.items() if key is not None} for row in reader]


def load_records(path: Path, tasks: Sequence[str], warnings: DataWarnings) -> list[VladRecord]:
    """The rows of the selected tasks, in file order, after every check; raises once with every problem."""
    rows = read_rows(path)
    problems: list[str] = []
    counts = Counter(row["index"] for row in rows)
    images_by_index = {row["index"]: row["image"] for row in rows}
    unknown_tasks: Counter[str] = Counter()
    records: list[VladRecord] = []
    seen: set[str] = set()
    for number, row in enumerate(rows, start=1):
        where = f"{TSV_FILE} row {number} (index {row['index']})"
        task = row["category3"]
        if task not in BY_NAME:
            unknown_tasks[task] += 1
            continue
        if task not in tasks:
            continue
        seen.add(task)
        if counts[row["index"]] > 1:
            problems.append(
                f"{where}: index {row['index']!r} appears {counts[row['index']]} times (VLMEvalKit keys "
                "predictions by index, so those rows would share one answer)"
            )
        images = _images(row["image"], images_by_index, where, problems, warnings)
        if images is None:
            continue
        image_cell = row["image"]
        record = VladRecord(
            number,
            row["index"],
            tuple(images),
            row["question"],
            row["answer"],
            task,
            row["dindex"],
            _dimension(row["dimension"]),
            sequence=image_cell.startswith("[") or images_by_index.get(image_cell, "").startswith("["),
            country=row.get("country") or None,
        )
        problems.extend(record_problems(record, row["dimension"], warnings))
        records.append(record)
    for name, count in unknown_tasks.items():
        warnings.add(
            "unknown_task",
            "rows whose category3 is no official task name: the official scorer never reads them",
            f"category3 {name!r}: {count} row(s)",
        )
    problems.extend(task_problems(records, [task for task in tasks if task in seen]))
    problems.extend(
        f"task {name}: no rows with category3 {name!r} (the official spelling, typos included)"
        for name in tasks
        if name not in seen
    )
    if problems:
        raise DataValidationError(str(path), problems)
    return records


def _images(
    cell: str, by_index: dict[str, str], where: str, problems: list[str], warnings: DataWarnings
) -> list[str] | None:
    """The row's image paths, following an index reference as `ImageBaseDataset` does; None for a row left out."""
    if not cell:
        warnings.add(
            "no_image", "rows without an image: VLMEvalKit drops them (`skip_noimg`), so they are not asked", where
        )
        return None
    if len(cell) <= INDEX_REFERENCE_CHARS:
        target = by_index.get(cell)
        if target is None or len(target) <= INDEX_REFERENCE_CHARS:
            problems.append(
                f"{where}: image {cell!r} is {INDEX_REFERENCE_CHARS} characters or fewer, which VLMEvalKit reads as "
                "the index of another row holding the image, and no row with that index has one"
            )
            return None
        cell = target
    images = parse_list_string(cell)
    if images is None or not images:
        problems.append(f"{where}: image {cell[:120]!r} is not a path or a list of paths")
        return None
    return images


def record_problems(record: VladRecord, dimension_cell: str, warnings: DataWarnings) -> list[str]:
    """What would make the official scorer fail on this row, or score it wrongly."""
    task = BY_NAME[record.task]
    problems: list[str] = []
    if task.scorer == "grounding" and is_localisation(record.question):
        try:
            box = parse_int_list(record.answer)
        except ValueError:
            box = []
        if len(box) != BOX_VALUES:
            problems.append(f"{record.where}: answer {record.answer!r} is not a box [x1, y1, x2, y2] of integers")
        if record.dimension is None or 0.0 in record.dimension:
            problems.append(f"{record.where}: dimension {dimension_cell!r} is not [width, height] (box question)")
    elif record.dimension is None:
        warnings.add(
            "dimension",
            "a dimension the scores never read is empty or unreadable (VLMEvalKit parses it on every row and stops)",
            f"{record.where}: {dimension_cell!r}",
        )
    if task.scorer == "road_speed" and not SPEED_PATTERN.search(record.answer):
        problems.append(f"{record.where}: answer {record.answer!r} has no [X,Y] speed pair")
    if not record.question.strip():
        problems.append(f"{record.where}: empty question")
    return problems


def task_problems(records: Sequence[VladRecord], tasks: Sequence[str]) -> list[str]:
    """Selected tasks the official scorer would divide by zero on."""
    problems = []
    for name in tasks:
        task = BY_NAME[name]
        mine = [record for record in records if record.task == name]
        if not mine:
            problems.append(f"task {name}: none of its rows can be asked (a problem above, or no image)")
        elif task.scorer == "grounding" and not any(is_localisation(r.question) for r in mine):
            problems.append(f"task {name}: no box question ('located in the image?'), so no mean IoU")
        elif task.scorer == "judge" and not any(clean_string(r.answer).lower() in JUDGEMENT_ANSWERS for r in mine):
            problems.append(f"task {name}: no yes/no question, so no yes/no accuracy")
    return problems
