"""DriveLMM-o1 test file + nuScenes root -> validated records -> per-frame images -> Inspect samples."""

from __future__ import annotations

import logging
import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageUser, Content, ContentImage, ContentText
from PIL import Image, UnidentifiedImageError
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from drive_evals.blind import BLIND_IMAGE_DESCRIPTION, blind_sample
from drive_evals.data import DEMO, cache_dir, demo_dir, inside, open_snapshot
from drive_evals.data_hints import missing_folders, top_folder
from drive_evals.data_warnings import DataWarnings
from drive_evals.drivelmm_o1.breakdown import BREAKDOWN_KEY, record_facts
from drive_evals.drivelmm_o1.images import DEFAULT_CELL_SIZE, build_grids
from drive_evals.drivelmm_o1.lidar import DEFAULT_RANGE_M, DEFAULT_RESOLUTION_M, build_bev
from drive_evals.drivelmm_o1.mcq import MCQ_QUESTION_MARKER, NO_LETTER, official_letter
from drive_evals.drivelmm_o1.metrics import MCQ_GOLD_UNREADABLE
from drive_evals.drivelmm_o1.prompts import MCQ_QUESTION_NUMBERS
from drive_evals.drivelmm_o1.records import CAMERAS, TEST_FILE, DriveLMMRecord, load_records
from drive_evals.errors import DataValidationError, ParameterError
from drive_evals.manifest import verify_manifest
from drive_evals.shard import SHARD_KEY, Shard
from drive_evals.spread import spread_samples

logger = logging.getLogger(__name__)

ImageMode = Literal["grid", "views"]
IMAGE_MODES: tuple[ImageMode, ...] = ("grid", "views")
NUSCENES_ROOT_ENV = "NUSCENES_ROOT"
DEMO_NUSCENES = "nuscenes"
ID_DIGITS = 2
"""Digits of the question number in a sample id (task version 5 on): frames hold fewer than 100 questions."""
"""Folder of the demo dataset that mimics a nuScenes root."""
MCQ_RULE_DISAGREEMENT = "mcq_rule_disagreement"
MCQ_DISAGREEMENT_MEANING = (
    "multiple choice by one rule only: the official rule (question number in "
    f"{', '.join(map(str, sorted(MCQ_QUESTION_NUMBERS)))} means MCQ) and the question text (does it say "
    f"{MCQ_QUESTION_MARKER!r}?) disagree. The official rule decides, as in the paper's code: a record counts "
    "toward MCQ accuracy exactly when its number says so"
)
"""A data warning; the full list is also in the log's task metadata (`mcq_rule_disagreements`)."""
LIDAR_LABEL = (
    "LIDAR_TOP bird's-eye view ({range:g} m around the ego vehicle, {resolution:g} m per pixel, up = forward):"
)


@dataclass(frozen=True)
class DriveLMMData:
    dataset: MemoryDataset
    summary: dict[str, Any]


@dataclass(frozen=True)
class ImageOptions:
    """Everything that changes what the model sees; all of it is recorded in the log."""

    mode: ImageMode = "grid"
    cell_size: tuple[int, int] = DEFAULT_CELL_SIZE
    lidar: bool = False
    lidar_range_m: float = DEFAULT_RANGE_M
    lidar_resolution_m: float = DEFAULT_RESOLUTION_M
    blind: bool = False
    """The no-vision control: every image (grid, views, LiDAR view) replaced by uniform grey of its size."""


def parse_image_mode(value: object) -> ImageMode:
    """`grid` or `views` (typed as the mode itself); anything else is an error naming the parameter."""
    for mode in IMAGE_MODES:
        if value == mode:
            return mode
    raise ParameterError(f"image_mode={value!r}: valid values are {', '.join(IMAGE_MODES)}")


def parse_cell_size(value: str | Sequence[int]) -> tuple[int, int]:
    """`800x450`, `[800, 450]` or `(800, 450)` -> (800, 450)."""
    try:
        parts = [int(p) for p in value.lower().split("x")] if isinstance(value, str) else [int(p) for p in value]
    except (TypeError, ValueError) as error:
        raise ParameterError(f"cell_size={value!r}: expected WIDTHxHEIGHT, e.g. 800x450") from error
    if len(parts) != 2 or min(parts) < 1:
        raise ParameterError(f"cell_size={value!r}: expected two positive integers WIDTHxHEIGHT, e.g. 800x450")
    return parts[0], parts[1]


def resolve_test_file(data: str, revision: str | None) -> tuple[Path, dict[str, Any]]:
    """The test JSON named by `data`: a file path, `demo`, a directory holding it, or a hub dataset."""
    path = Path(data).expanduser()
    if path.is_file():
        return path.resolve(), {"source": "local", "path": str(path.resolve())}
    snapshot = open_snapshot(data, "drivelmm_o1", revision)
    snapshot.fetch([TEST_FILE])
    return snapshot.root / TEST_FILE, snapshot.provenance()


def resolve_nuscenes_root(data: str, nuscenes_root: str | None) -> Path:
    """The parameter, else $NUSCENES_ROOT, else (for the demo only) the demo's own image folder."""
    chosen = nuscenes_root or os.environ.get(NUSCENES_ROOT_ENV)
    if chosen:
        root = Path(chosen).expanduser()
        if not root.is_dir():
            raise ParameterError(f"nuscenes_root={chosen!r} is not a directory")
        return root.resolve()
    if data == "demo":
        return demo_dir("drivelmm_o1") / DEMO_NUSCENES
    raise ParameterError(
        "DriveLMM-o1 needs the nuScenes trainval keyframes: pass -T nuscenes_root=/path/to/nuscenes "
        f"(the folder holding samples/CAM_*) or set {NUSCENES_ROOT_ENV}"
    )


def check_files(records: Sequence[DriveLMMRecord], root: Path, lidar: bool) -> dict[str, Path]:
    """Resolve every camera (and, if asked, LiDAR) file: inside the root, present, readable. Raises naming each."""
    paths: dict[str, Path] = {}
    every = [p for r in records for p in (*r.images, *([lidar_relative(r.lidar)] if lidar and r.lidar else []))]
    slips = missing_folders(root, every, "nuscenes_root")  # one line for a root one level off, not every file
    problems: list[str] = list(slips.values())
    seen: set[str] = set()
    for record in records:
        wanted = [(f"image[{i}] ({CAMERAS[i]})", p) for i, p in enumerate(record.images)]
        if lidar:
            if record.lidar is None:
                problems.append(f"idx {record.idx!r}: field 'lidar': missing, but lidar=true needs it")
            else:
                wanted.append(("lidar", lidar_relative(record.lidar)))
        for field, relative in wanted:
            if relative in seen or top_folder(relative) in slips:
                continue
            seen.add(relative)
            path = inside(root, relative)
            problem = "path escapes the nuScenes root" if path is None else _file_problem(path, field != "lidar")
            if problem:
                problems.append(f"idx {record.idx!r}: field '{field}': {relative!r}: {problem}")
            elif path is not None:
                paths[relative] = path
    if problems:
        raise DataValidationError(str(root), problems)
    return paths


def lidar_relative(lidar: str) -> str:
    """Records may give the sweep as a bare file name; nuScenes keeps keyframe sweeps in samples/LIDAR_TOP."""
    return lidar if "/" in lidar else f"samples/LIDAR_TOP/{lidar}"


def _file_problem(path: Path, is_image: bool) -> str | None:
    if not path.is_file():
        return f"not found at {path}"
    if not is_image:
        return None
    try:
        with Image.open(path) as image:
            image_format = image.format
    except (UnidentifiedImageError, OSError) as error:
        return f"not a readable image ({error})"
    if image_format == "JPEG" and not _ends_like_jpeg(path):
        return "truncated JPEG (no end-of-image marker at the end of the file)"
    return None


JPEG_END = b"\xff\xd9"
JPEG_TAIL_BYTES = 64
"""Tail read for the end-of-image marker; tolerates the zero padding some writers add after it."""


def _ends_like_jpeg(path: Path) -> bool:
    """A cheap truncation check (the header read above passes a cut file; stitching would then fail unnamed)."""
    with path.open("rb") as handle:
        handle.seek(max(0, path.stat().st_size - JPEG_TAIL_BYTES))
        return handle.read().rstrip(b"\x00").endswith(JPEG_END)


def _stitch_all(frames: dict[str, list[Path]], cell_size: tuple[int, int]) -> dict[str, Path]:
    """Build the missing grids in parallel behind a progress bar (cache hits cost a stat per file)."""
    columns = (TextColumn("Stitching camera grids"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, transient=True) as progress:
        bar = progress.add_task("grids", total=None)
        return build_grids(
            frames,
            cache_dir() / "grids",
            cell_size,
            progress=lambda done, total: progress.update(bar, completed=done, total=total),
        )


def frame_images(
    records: Sequence[DriveLMMRecord], paths: dict[str, Path], options: ImageOptions
) -> dict[str, list[Content]]:
    """The image parts of each frame, built once per frame (grids and BEV renders are cached on disk)."""
    frames = {r.frame: [paths[p] for p in r.images] for r in records}
    lidar_files = {r.frame: paths[lidar_relative(r.lidar)] for r in records if options.lidar and r.lidar}
    parts: dict[str, list[Content]] = {}
    if options.mode == "grid":
        grids = _stitch_all(frames, options.cell_size)
        parts = {frame: [ContentImage(image=str(grid))] for frame, grid in grids.items()}
    else:
        for frame, views in frames.items():
            parts[frame] = [
                part
                for camera, view in zip(CAMERAS, views, strict=True)
                for part in (ContentText(text=f"{camera}:"), ContentImage(image=str(view)))
            ]
    for frame, sweep in lidar_files.items():
        bev = build_bev(sweep, cache_dir() / "bev", options.lidar_range_m, options.lidar_resolution_m)
        label = LIDAR_LABEL.format(range=options.lidar_range_m, resolution=options.lidar_resolution_m)
        parts[frame] = [*parts[frame], ContentText(text=label), ContentImage(image=str(bev))]
    return parts


MCQ_GOLD_UNREADABLE_MEANING = (
    "a multiple-choice gold answer with no option letter; under the official rule every reply without a readable "
    "letter counts as correct on it (counted in the metric mcq_gold_unreadable_count)"
)


def gold_unreadable(record: DriveLMMRecord) -> bool:
    """An MCQ item whose gold gives no letter by the official rule (`none == none` then counts as correct)."""
    return record.mcq and official_letter(record.final_answer) == NO_LETTER


ID_PREFIX = "drivelmm"
FRAME_KEY_CHARS = 6
"""Hex characters of the frame's nuScenes sample token in an id; more only where two frames would share them."""


def frame_keys(frames: Sequence[str]) -> dict[str, str]:
    """Each frame's shortest unambiguous key: a prefix (at least `FRAME_KEY_CHARS` long) of its sample token.

    The sample token (the last `_` field of the frame) names the nuScenes keyframe. Two frames whose tokens share
    the prefix both get the shortest longer prefix that tells them apart; frames with the same token are told
    apart by their whole name. Deterministic: the keys depend only on the set of frames.
    """
    unique = sorted(set(frames))
    tokens = {frame: frame.rpartition("_")[2] or frame for frame in unique}
    keys: dict[str, str] = {}
    for frame in unique:
        token = tokens[frame]
        others = [tokens[f] for f in unique if f != frame]
        length = FRAME_KEY_CHARS
        while length < len(token) and any(other[:length] == token[:length] for other in others):
            length += 1
        keys[frame] = token[:length] if not any(other == token for other in others) else frame
    return keys


def sample_ids(records: Sequence[DriveLMMRecord]) -> list[str]:
    """Short, readable, stable ids: `drivelmm-<frame key>-q<question number>`, e.g. `drivelmm-c66d0a-q03`.

    They lead with what tells questions apart (the full `idx` is 67 characters; the viewer shows ~18). The question
    number is zero-padded to the widest in the file (at least `ID_DIGITS`), so that the viewer, which sorts ids as
    text, lists q02 before q10. A repeated `idx` gets `-2`, `-3`, ... in file order, so ids stay unique; the full
    `idx` stays in the sample metadata.
    """
    keys = frame_keys([r.frame for r in records])
    digits = max([ID_DIGITS, *(len(str(r.question_number)) for r in records)])
    ids: list[str] = []
    seen: Counter[str] = Counter()
    for record in records:
        base = f"{ID_PREFIX}-{keys[record.frame]}-q{record.question_number:0{digits}d}"
        seen[base] += 1
        ids.append(base if seen[base] == 1 else f"{base}-{seen[base]}")
    return ids


def record_to_sample(record: DriveLMMRecord, images: list[Content], sample_id: str) -> Sample:
    """The question, then the frame's image part(s): what the viewer's sample list previews. The solver
    (`official_prompt`) sends the official layout `model_prompt + "\\n<image>\\n" + question.strip()`."""
    return Sample(
        id=sample_id,
        input=[ChatMessageUser(content=[ContentText(text=record.question.strip()), *images])],
        target=record.final_answer,
        metadata={
            "idx": record.idx,
            "frame": record.frame,
            "question_number": record.question_number,
            "mcq": record.mcq,
            "mcq_by_text": record.mcq_by_text,
            MCQ_GOLD_UNREADABLE: gold_unreadable(record),
            "question": record.question,
            "steps": record.steps,
            "final_answer": record.final_answer,
            BREAKDOWN_KEY: record_facts(record.images),
        },
    )


def load_drivelmm_o1(
    data: str, revision: str | None, nuscenes_root: str | None, options: ImageOptions, shard: Shard | None = None
) -> DriveLMMData:
    """Validate the test file and every file it names, build the frames' images, then the samples.

    `shard` keeps the questions of its frames only (ids unchanged); only its frames' files are checked and their
    images built. The summary describes the whole test file, the same in every shard and in an unsharded run.
    """
    root = resolve_nuscenes_root(data, nuscenes_root)  # a parameter: checked before the test file is downloaded
    test_file, provenance = resolve_test_file(data, revision)
    warnings = DataWarnings("DriveLMM-o1")
    records = load_records(test_file, warnings)
    for record in records:
        if gold_unreadable(record):
            warnings.add(
                MCQ_GOLD_UNREADABLE, MCQ_GOLD_UNREADABLE_MEANING, f"idx {record.idx!r}: {record.final_answer[:80]!r}"
            )
    ids = sample_ids(records)  # from all frames: shard-proof
    frames = shard.clusters((r.frame for r in records), "frames") if shard else None
    kept_at = [n for n, r in enumerate(records) if frames is None or r.frame in frames]
    kept = [records[n] for n in kept_at]
    paths = check_files(kept, root, options.lidar)
    verify_manifest(root, list(paths))
    images = frame_images(kept, paths, options)
    samples = [record_to_sample(records[n], images[records[n].frame], ids[n]) for n in kept_at]
    if options.blind:
        samples = [blind_sample(sample) for sample in samples]
    disagreements = [r.idx for r in records if r.mcq != r.mcq_by_text]
    for idx in disagreements:
        warnings.add(MCQ_RULE_DISAGREEMENT, MCQ_DISAGREEMENT_MEANING, f"idx {idx!r}")
    summary = {
        "records": len(records),
        "frames": len({r.frame for r in records}),
        "mcq_items": sum(r.mcq for r in records),
        "mcq_rule_disagreements": disagreements,
        "image_mode": options.mode,
        "cell_size": list(options.cell_size),
        "lidar": options.lidar,
        "lidar_range_m": options.lidar_range_m if options.lidar else None,
        "lidar_resolution_m": options.lidar_resolution_m if options.lidar else None,
        "data": provenance,
        "nuscenes_root": str(root),
        "blind": options.blind,
        "blind_image": BLIND_IMAGE_DESCRIPTION if options.blind else None,
        "data_warnings": warnings.summary(),
        SHARD_KEY: str(shard) if shard else None,
    }
    if provenance.get("source") != DEMO:  # the demo holds one record of each quirk on purpose: the log lists them
        warnings.log(logger)
    logger.info(
        "DriveLMM-o1: %d records over %d frames, %d multiple-choice by the official rule",
        len(records),
        summary["frames"],
        summary["mcq_items"],
    )
    # MCQ and open questions alternate, each over as many frames as possible: `--limit N` samples both and many frames.
    samples = spread_samples(samples, "mcq", "frame")
    return DriveLMMData(MemoryDataset(samples, name="drivelmm_o1", shuffled=False), summary)
