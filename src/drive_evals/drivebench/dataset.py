"""DriveBench question file + image roots -> validated records -> per-setting images -> Inspect samples.

One sample is one question in one setting. With several settings (`setting=clean,text_only`) every question is
asked once per setting, and `question_key` (the sample id without its setting) pairs them. Every file a run needs
is checked before any sample is built, all problems in one error.
"""

from __future__ import annotations

import base64
import hashlib
import io
import logging
import os
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageUser, Content, ContentImage, ContentText
from PIL import Image, UnidentifiedImageError

from drive_evals.data import cache_dir, demo_dir, inside, open_snapshot
from drive_evals.data_hints import missing_folders, top_folder
from drive_evals.drivebench.records import CAMERAS, TASKS, TEST_FILE, DBRecord, load_records, samples_relative
from drive_evals.drivebench.settings import BLACK_SIZE, TEXT_ONLY, Setting
from drive_evals.errors import DataValidationError, ParameterError
from drive_evals.manifest import verify_manifest
from drive_evals.shard import SHARD_KEY, Shard
from drive_evals.spread import spread

logger = logging.getLogger(__name__)

BENCHMARK = "drivebench"
HF_DATASET = "drive-bench/arena"
HF_REVISION = "f9c7ae07944687fbd4b38d4d5fab14132af54681"
"""The dataset commit seen on the hub's file pages (protocol reference §0); recorded in the log as resolved."""
NUSCENES_ROOT_ENV = "NUSCENES_ROOT"
CORRUPTION_ROOT_ENV = "DRIVEBENCH_CORRUPTION_ROOT"
DEMO_NUSCENES = "nuscenes"
DEMO_CORRUPTION = "corruption"
NATIVE = "native"
OFFICIAL_IMAGE_SIZE = (224, 224)
"""`inference/llava1.5.py` L93: `Image.open(path).convert('RGB').resize((224, 224))`, a squash of 1600x900."""
ID_PREFIX = "drivebench"
FRAME_KEY_CHARS = 6


PLANNED_TASKS_KEY = "tasks"
"""Task metadata key: the four tasks `gpt_score` averages over (a `--limit` run without one has no headline)."""


@dataclass(frozen=True)
class Roots:
    """Where the images are: the nuScenes root (clean) and the folder holding `<Corruption>/CAM_*` (corrupted)."""

    nuscenes: Path | None
    corruption: Path | None


@dataclass(frozen=True)
class DriveBenchData:
    dataset: MemoryDataset
    summary: dict[str, Any]
    records: list[DBRecord]


def parse_image_size(value: object) -> tuple[int, int] | None:
    """`224x224` (official), any `WIDTHxHEIGHT`, or `native` (the file as it is: None)."""
    if isinstance(value, str) and value.strip().lower() == NATIVE:
        return None
    try:
        parts = [int(p) for p in str(value).lower().split("x")]
    except ValueError:
        parts = []
    if len(parts) != 2 or min(parts) < 1:
        raise ParameterError(f"image_size={value!r}: expected WIDTHxHEIGHT (official: 224x224) or {NATIVE}")
    return parts[0], parts[1]


def resolve_question_file(data: str, revision: str | None) -> tuple[Path, dict[str, Any]]:
    """The question file named by `data`: a file path, `demo`, a folder holding `drivebench-test.json`, or a hub id."""
    path = Path(data).expanduser()
    if path.is_file():
        return path.resolve(), {"source": "local", "path": str(path.resolve())}
    snapshot = open_snapshot(data, BENCHMARK, revision)
    snapshot.fetch([TEST_FILE])
    return snapshot.root / TEST_FILE, snapshot.provenance()


def _root(name: str, value: str | None, env: str, demo: str | None) -> Path | None:
    chosen = value or os.environ.get(env)
    if chosen:
        root = Path(chosen).expanduser()
        if not root.is_dir():
            raise ParameterError(f"{name}={chosen!r} is not a directory")
        return root.resolve()
    return demo_dir(BENCHMARK) / demo if demo else None


def resolve_roots(
    data: str, settings: Sequence[Setting], nuscenes_root: str | None, corruption_root: str | None
) -> Roots:
    """The image roots the chosen settings need (parameter, else environment, else the demo's own folders)."""
    demo = data == "demo"
    roots = Roots(
        _root("nuscenes_root", nuscenes_root, NUSCENES_ROOT_ENV, DEMO_NUSCENES if demo else None),
        _root("corruption_root", corruption_root, CORRUPTION_ROOT_ENV, DEMO_CORRUPTION if demo else None),
    )
    if any(s.name == "clean" for s in settings) and roots.nuscenes is None:
        raise ParameterError(
            "setting=clean needs the nuScenes keyframes: pass -T nuscenes_root=/path/to/nuscenes (the folder holding "
            f"samples/CAM_*) or set {NUSCENES_ROOT_ENV}"
        )
    if any(s.corrupted for s in settings) and roots.corruption is None:
        raise ParameterError(
            "a corruption setting needs the authors' corrupted images: pass -T corruption_root=/path/to/corruption "
            f"(the folder holding BitError/, Fog/, ... as the authors' archive unpacks) or set {CORRUPTION_ROOT_ENV}"
        )
    return roots


def image_location(path: str, setting: Setting, roots: Roots) -> tuple[Path, str] | None:
    """(root, path under it) of a record's image in `setting`; None for text-only (no file is read).

    Clean: `<nuscenes_root>/samples/CAM_X/f.jpg`. Corrupted: `<corruption_root>/<Folder>/CAM_X/f.jpg`, the
    official `replace('nuscenes/samples', 'corruption/<Folder>')` (`inference/llava1.5.py` L85).
    """
    relative = samples_relative(path)
    if setting.folder is None:
        if setting.name != "clean":
            return None
        assert roots.nuscenes is not None
        return roots.nuscenes, relative
    assert roots.corruption is not None
    return roots.corruption, setting.folder + relative.removeprefix("samples")


JPEG_END = b"\xff\xd9"
JPEG_TAIL_BYTES = 64


def file_problem(path: Path) -> str | None:
    """Why an image file cannot be used (missing, unreadable, a JPEG cut short), or None."""
    if not path.is_file():
        return f"not found at {path}"
    try:
        with Image.open(path) as image:
            image_format = image.format
    except (UnidentifiedImageError, OSError) as error:
        return f"not a readable image ({error})"
    if image_format == "JPEG":
        with path.open("rb") as handle:
            handle.seek(max(0, path.stat().st_size - JPEG_TAIL_BYTES))
            if not handle.read().rstrip(b"\x00").endswith(JPEG_END):
                return "truncated JPEG (no end-of-image marker)"
    return None


def check_images(records: Sequence[DBRecord], settings: Sequence[Setting], roots: Roots) -> dict[str, Path]:
    """Every image file the run reads, checked in one pass: path under its root -> file. Raises naming each."""
    found: dict[str, Path] = {}
    problems: list[str] = []
    seen: set[tuple[Path, str]] = set()
    under: dict[Path, list[str]] = defaultdict(list)  # root -> the paths read under it
    for setting in settings:
        for record in records:
            for _, path in record.images:
                if (location := image_location(path, setting, roots)) is not None:
                    under[location[0]].append(location[1])
    slips = {  # (root, top folder) -> one line for a root one level off, or a corruption folder missing
        (root, top): line
        for root, relatives in under.items()
        for top, line in missing_folders(root, relatives, _root_option(root, roots)).items()
    }
    problems.extend(slips.values())
    for setting in settings:
        for record in records:
            for camera, path in record.images:
                location = image_location(path, setting, roots)
                if location is None or location in seen or (location[0], top_folder(location[1])) in slips:
                    continue
                seen.add(location)
                root, relative = location
                file = inside(root, relative)
                problem = "path escapes its root" if file is None else file_problem(file)
                if problem or file is None:
                    problems.append(f"record {record.position} ({setting.name}, {camera}): {relative!r}: {problem}")
                else:
                    found[str(root / relative)] = file
    if problems:
        raise DataValidationError("DriveBench images", problems)
    return found


def _root_option(root: Path, roots: Roots) -> str:
    return "nuscenes_root" if root == roots.nuscenes else "corruption_root"


@lru_cache(maxsize=4)
def black_image_uri(size: tuple[int, int] = BLACK_SIZE) -> str:
    """The official text-only input: an all-black RGB image, as a PNG data URI."""
    buffer = io.BytesIO()
    Image.new("RGB", size, (0, 0, 0)).save(buffer, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def resized(file: Path, size: tuple[int, int]) -> Path:
    """`file` squashed to `size` as the official inference does (PIL's default filter), cached as a lossless PNG."""
    stat = file.stat()
    key = hashlib.sha256(f"{file.resolve()}|{stat.st_size}|{stat.st_mtime_ns}".encode()).hexdigest()[:32]
    target = cache_dir() / BENCHMARK / f"{size[0]}x{size[1]}" / f"{key}.png"
    if not target.is_file():
        target.parent.mkdir(parents=True, exist_ok=True)
        with Image.open(file) as image:
            squashed = image.convert("RGB").resize(size)
        partial = target.with_suffix(f".{os.getpid()}.tmp")
        squashed.save(partial, format="PNG")
        partial.replace(target)  # atomic: parallel runs never read half a file
    return target


def image_parts(record: DBRecord, setting: Setting, roots: Roots, size: tuple[int, int] | None) -> list[ContentImage]:
    """The record's images in `setting`, in `image_path` order (no camera labels, as officially)."""
    parts: list[ContentImage] = []
    for _, path in record.images:
        location = image_location(path, setting, roots)
        if location is None:
            parts.append(ContentImage(image=black_image_uri()))
            continue
        file = location[0] / location[1]
        parts.append(ContentImage(image=str(resized(file, size) if size else file)))
    return parts


def question_keys(records: Sequence[DBRecord]) -> list[str]:
    """`drivebench-<frame>-q<n>`: the frame token's first characters (more where two frames share them) and the
    question's place in its frame (file order, from 1). Stable for a given file; unique."""
    frames = list(dict.fromkeys(r.frame_token for r in records))
    keys: dict[str, str] = {}
    for frame in frames:
        length = FRAME_KEY_CHARS
        while length < len(frame) and any(o != frame and o[:length] == frame[:length] for o in frames):
            length += 1
        keys[frame] = frame[:length]
    counts: Counter[str] = Counter()
    out: list[str] = []
    for record in records:
        counts[record.frame_token] += 1
        out.append(f"{ID_PREFIX}-{keys[record.frame_token]}-q{counts[record.frame_token]}")
    return out


def camera_level(cameras: Sequence[str]) -> str:
    """The breakdown level: the one camera a question shows, `all six`, or `several`."""
    return cameras[0] if len(cameras) == 1 else "all six" if len(cameras) == len(CAMERAS) else "several"


SETTING_MARK = "[{}] "
"""Before the question shown in the viewer when a run has several settings (`record_to_sample`)."""


def record_to_sample(
    record: DBRecord, key: str, setting: Setting, images: list[Content], extra: dict[str, Any], paired: bool
) -> Sample:
    """The question text, then the images (what the viewer previews); the solver builds the official message.

    The id is the question key in a one-setting run, so runs of different settings pair by id in the report (a
    text-only run is a blind control of the clean run); with several settings it ends in the setting's name, and
    the question shown is led by it (`[fog] ...`): the viewer cuts the id column at 10 characters
    (`messageShape.idSize` in its bundle; a column takes no width), which hides the setting, and the solver sends
    the official prompt from the metadata, not this text."""
    shown = f"{SETTING_MARK.format(setting.name)}{record.question}" if paired else record.question
    return Sample(
        id=f"{key}-{setting.name}" if paired else key,
        input=[ChatMessageUser(content=[ContentText(text=shown), *images])],
        target=record.answer,
        metadata={
            "question_key": key,
            "setting": setting.name,
            "setting_category": setting.category or setting.name,
            "scene": record.scene_token,
            "frame": record.frame_token,
            "question_type": record.question_type,
            "tag": list(record.tag),
            "task": record.bucket.task,
            "kind": record.bucket.kind,
            "bucket": record.bucket.name,
            "officially_scored": record.bucket.officially_scored,
            "question": record.question,
            "answer": record.answer,
            "cameras": list(record.cameras),
            "camera": camera_level(record.cameras),
            **extra,
        },
    )


def load_drivebench(
    data: str,
    revision: str | None,
    settings: Sequence[Setting],
    nuscenes_root: str | None,
    corruption_root: str | None,
    image_size: tuple[int, int] | None,
    shard: Shard | None = None,
    extra: Callable[[list[DBRecord], Path], list[dict[str, Any]]] | None = None,
) -> DriveBenchData:
    """Validate the question file and every image file the settings read, then build the samples.

    `extra(records, question_file)` gives more metadata per record (the judge's object description), in file
    order; its checks run before the images are. `shard` keeps the questions of its scenes (ids unchanged).
    """
    roots = resolve_roots(data, settings, nuscenes_root, corruption_root)  # parameters first: fail before download
    question_file, provenance = resolve_question_file(data, revision)
    records = load_records(question_file)
    more = extra(records, question_file) if extra else [{} for _ in records]
    keys = question_keys(records)
    scenes = shard.clusters((r.scene_token for r in records), "scenes") if shard else None
    kept = [n for n, r in enumerate(records) if scenes is None or r.scene_token in scenes]
    files = check_images([records[n] for n in kept], settings, roots)
    for root in {roots.nuscenes, roots.corruption} - {None}:
        assert root is not None
        verify_manifest(root, [str(f.relative_to(root)) for f in files.values() if f.is_relative_to(root)])
    samples = [
        record_to_sample(
            records[n],
            keys[n],
            setting,
            list(image_parts(records[n], setting, roots, image_size)),
            more[n],
            len(settings) > 1,
        )
        # `--limit N` covers every task and as many scenes as it can, each question in all its settings together
        for n in spread(kept, group=lambda n: records[n].bucket.task, cluster=lambda n: records[n].scene_token)
        for setting in settings
    ]
    buckets = Counter(r.bucket.name for r in records)
    summary = {
        "records": len(records),
        "frames": len({r.frame_token for r in records}),
        "scenes": len({r.scene_token for r in records}),
        "buckets": dict(buckets),
        "settings": [s.name for s in settings],
        PLANNED_TASKS_KEY: list(TASKS),
        "setting": ",".join(s.name for s in settings),
        # the report shows a text-only run beside the clean run of the same model, paired by question (blind gap)
        "blind": [s.name for s in settings] == [TEXT_ONLY],
        "image_size": list(image_size) if image_size else NATIVE,
        "text_only_image": f"black RGB {BLACK_SIZE[0]}x{BLACK_SIZE[1]} PNG per kept camera (official)",
        "data": provenance,
        "nuscenes_root": str(roots.nuscenes) if roots.nuscenes else None,
        "corruption_root": str(roots.corruption) if roots.corruption else None,
        SHARD_KEY: str(shard) if shard else None,
    }
    logger.info(
        "DriveBench: %d questions over %d frames x %d setting(s)", len(records), summary["frames"], len(settings)
    )
    return DriveBenchData(MemoryDataset(samples, name=BENCHMARK, shuffled=False), summary, records)
