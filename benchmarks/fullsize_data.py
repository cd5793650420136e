"""Full-size synthetic SURDS and DriveLMM-o1 data for the benchmarks, generated on demand into a cache directory.

The demo data (`tools/make_demo.py`) is tiny; performance needs the real sizes: SURDS with 5,919 metadata lines,
925 object pairs and 1600x900 WebP images of 50-150 KB each, and DriveLMM-o1 with 539 frames, 4,633 questions and
six 1600x900 JPEG views (150-300 KB) per frame, in the official layouts. Scenes are drawn with the demo
generator's street and object drawing; per-pixel sensor noise gives the files the entropy of real camera images,
so reading, decoding and encoding cost what they cost on the real data.

Run `python benchmarks/fullsize_data.py [--dir DIR]`; the benchmarks call `ensure_surds()` and `ensure_drivelmm()`
themselves. Output goes to `~/.cache/drive_evals/bench/` (`DRIVE_EVALS_BENCH_DIR` or `--dir` moves it), is
deterministic, is never committed, and is reused once complete (a marker file records the generator version).
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import multiprocessing
import os
import random
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TypeVar

import numpy as np
from PIL import Image, ImageDraw

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT / "tools"))

import make_demo as demo  # noqa: E402  (the demo generator's drawing code, importable once tools/ is on the path)

BENCH_DIR_ENV = "DRIVE_EVALS_BENCH_DIR"
SURDS_VERSION = 1
DRIVELMM_O1_VERSION = 3
"""Bump a version when that data set's generator changes, so data cached by an older generator is rebuilt."""
COMPLETE_MARKER = ".complete"

SURDS_RECORDS = 5919
SURDS_PAIRS = 925
"""Two-object records, one object pair each: 925 pairs, as on SURDS_eval (1,850 images used by the units)."""
SURDS_SEED = 5919
DRIVELMM_O1_FRAMES = 539
DRIVELMM_O1_QUESTIONS = 4633
DRIVELMM_O1_SEED = 539
DRIVELMM_O1_FIRST_CAPTURE = datetime.datetime(2018, 7, 24, 11, 22, 45, tzinfo=datetime.UTC)
DRIVELMM_O1_CAPTURE_STEP = datetime.timedelta(minutes=7, seconds=13)
DRIVELMM_O1_LIDAR_US_STEP = 500_000

NOISE_SIGMA = 7.0
"""Gaussian sensor noise (grey levels): what makes the files as large and slow to code as real camera images."""
NOISE_MARGIN_PX = 128
"""Each image adds a random crop of one pre-drawn noise field, so images differ without drawing noise per image."""
NOISE_SEED = 7
WEBP_QUALITY = 75
WEBP_METHOD = 1
"""A fast WebP encoder setting: size and decode cost are what matter here, not compression ratio."""
JPEG_QUALITY = 85

SURDS_CATEGORIES: tuple[tuple[str, str, float], ...] = (
    (demo.CAR, "car", 0.45),
    (demo.ADULT, "adult", 0.25),
    (demo.TRUCK, "truck", 0.08),
    (demo.BUS, "bus", 0.04),
    (demo.MOTO, "motorcycle", 0.05),
    (demo.CHILD, "child", 0.03),
    (demo.CONE, "traffic cone", 0.06),
    (demo.BARRIER, "barrier", 0.04),
)
PEOPLE = frozenset({demo.ADULT, demo.CHILD})
LARGE_VEHICLES = frozenset({demo.BUS, demo.TRUCK})
DEPTH_RANGE_M = (4.0, 45.0)
LARGE_MIN_DEPTH_M = 12.0
COLUMN_RANGE_PX = (120, 1480)
SECTOR_JITTER_DEG = 17.0
"""Headings stay this close to a sector centre, clear of the 5-degree margin `make_demo` enforces."""
DRIVELMM_O1_OBJECTS = (4, 8)
DRIVELMM_O1_RANGE_M = 30.0

Job = TypeVar("Job")


def bench_dir() -> Path:
    """Where generated data lives: `DRIVE_EVALS_BENCH_DIR`, else `~/.cache/drive_evals/bench`."""
    configured = os.environ.get(BENCH_DIR_ENV)
    return (Path(configured) if configured else Path.home() / ".cache" / "drive_evals" / "bench").expanduser()


def workers() -> int:
    return os.cpu_count() or 1


# --- shared ---------------------------------------------------------------------------------------------------


_NOISE: np.ndarray | None = None


def _noise_field() -> np.ndarray:
    """One noise field per worker process, drawn once."""
    global _NOISE
    if _NOISE is None:
        shape = (demo.IMAGE_H + NOISE_MARGIN_PX, demo.IMAGE_W + NOISE_MARGIN_PX, 3)
        _NOISE = np.random.default_rng(NOISE_SEED).normal(0.0, NOISE_SIGMA, shape).astype(np.int16)
    return _NOISE


def add_sensor_noise(image: Image.Image, rng: random.Random) -> Image.Image:
    dx, dy = rng.randrange(NOISE_MARGIN_PX), rng.randrange(NOISE_MARGIN_PX)
    noise = _noise_field()[dy : dy + demo.IMAGE_H, dx : dx + demo.IMAGE_W]
    pixels = np.asarray(image, dtype=np.int16) + noise
    return Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8))


def _is_complete(root: Path, version: int) -> bool:
    marker = root / COMPLETE_MARKER
    return marker.is_file() and marker.read_text().strip() == str(version)


def _run_parallel(job: Callable[[Job], None], items: Sequence[Job], label: str) -> None:
    """Run `job` over `items` in a process pool, printing progress now and then."""
    started = time.perf_counter()
    step = max(1, len(items) // 10)
    with multiprocessing.Pool(workers()) as pool:
        for done, _ in enumerate(pool.imap_unordered(job, items, chunksize=8), start=1):
            if done % step == 0 or done == len(items):
                print(f"  {label}: {done}/{len(items)} ({time.perf_counter() - started:.0f} s)", flush=True)


# --- SURDS ----------------------------------------------------------------------------------------------------


def _surds_object(rng: random.Random, taken: set[str]) -> demo.SurdsObject:
    """A random object with a description not already used in its image."""
    while True:
        category, noun, _ = rng.choices(SURDS_CATEGORIES, weights=[w for *_, w in SURDS_CATEGORIES])[0]
        colour = rng.choice(list(demo.PALETTE))
        desc = f"{noun} wearing {colour} clothes" if category in PEOPLE else f"{colour} {noun}"
        low = LARGE_MIN_DEPTH_M if category in LARGE_VEHICLES else DEPTH_RANGE_M[0]
        heading = rng.randrange(8) * demo.SECTOR_DEG + rng.uniform(-SECTOR_JITTER_DEG, SECTOR_JITTER_DEG)
        obj = demo.SurdsObject(
            desc,
            category,
            colour,
            rng.randint(*COLUMN_RANGE_PX),
            round(rng.uniform(low, DEPTH_RANGE_M[1]), 1),
            round(demo.wrap_degrees(heading), 1),
        )
        if desc not in taken:
            taken.add(desc)
            return obj


def surds_images() -> list[demo.SurdsImage]:
    """The 5,919 images in metadata line order (shuffled, so a sort by file name gives another order)."""
    rng = random.Random(SURDS_SEED)
    cameras = list(demo.CAMERAS)
    pair_slots = set(rng.sample(range(SURDS_RECORDS), SURDS_PAIRS))
    slots = list(range(SURDS_RECORDS))
    rng.shuffle(slots)
    images = []
    for line, slot in enumerate(slots):
        number, camera = slot // len(cameras) + 1, cameras[slot % len(cameras)]
        while True:
            taken: set[str] = set()
            objects = tuple(_surds_object(rng, taken) for _ in range(2 if line in pair_slots else 1))
            image = demo.SurdsImage(number, camera, objects)
            try:
                demo.surds_record(image)
            except ValueError:  # an object off the image or behind the camera: draw again
                continue
            images.append(image)
            break
    return images


def _render_surds(item: tuple[Path, demo.SurdsImage]) -> None:
    path, image = item
    if path.exists():
        return
    rng = demo.keyed_rng("bench-surds", image.stem)
    canvas = demo.draw_street(rng)
    draw = ImageDraw.Draw(canvas)
    for obj in sorted(image.objects, key=lambda o: -o.depth):
        _, box = demo.surds_object_geometry(obj)
        demo.SHAPES[obj.category](draw, box, demo.PALETTE[obj.colour])
    temporary = path.with_suffix(".tmp")
    add_sensor_noise(canvas, rng).save(temporary, "WEBP", quality=WEBP_QUALITY, method=WEBP_METHOD)
    temporary.rename(path)


def ensure_surds(base: Path | None = None) -> Path:
    """The full-size SURDS snapshot directory (holding `validation/metadata.jsonl`), generated if missing."""
    root = (base or bench_dir()) / "surds"
    if _is_complete(root, SURDS_VERSION):
        return root
    print(f"Generating full-size SURDS data in {root} ({SURDS_RECORDS} WebP images, {workers()} processes)")
    validation = root / "validation"
    images = surds_images()
    lines = [json.dumps(demo.surds_record(image)) + "\n" for image in images]
    for camera in demo.CAMERAS:
        (validation / "image" / camera).mkdir(parents=True, exist_ok=True)
    _run_parallel(_render_surds, [(validation / image.file_name, image) for image in images], "SURDS images")
    (validation / "metadata.jsonl").write_text("".join(lines), encoding="utf-8")
    (root / COMPLETE_MARKER).write_text(str(SURDS_VERSION))
    return root


# --- DriveLMM-o1 ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DriveLMMLayout:
    """Where the generated DriveLMM-o1 data is: the test file and the nuScenes-like root."""

    test_file: Path
    nuscenes_root: Path


def _question_pool() -> dict[bool, list[demo.QA]]:
    """The demo's questions, by whether the official number rule makes them multiple-choice."""
    pool: dict[bool, list[demo.QA]] = {True: [], False: []}
    for frame in demo.FRAMES:
        for qa in frame.qas:
            if frame.token("scene") + "_" + frame.token("sample") + f"_{qa.number}" != demo.DISAGREEMENT_IDX:
                pool[qa.number in demo.MCQ_NUMBERS].append(qa)
    return pool


def drivelmm_o1_frames() -> list[demo.Frame]:
    """539 frames with random objects around the ego vehicle and 8 or 9 questions each (4,633 in all).

    Questions come from the demo's; a last reasoning step naming the frame makes every judge prompt unique, so a
    run's judge calls are not answered from Inspect's cache.
    """
    rng = random.Random(DRIVELMM_O1_SEED)
    pool = _question_pool()
    longer = set(rng.sample(range(DRIVELMM_O1_FRAMES), DRIVELMM_O1_QUESTIONS - 8 * DRIVELMM_O1_FRAMES))
    frames = []
    for number in range(DRIVELMM_O1_FRAMES):
        captured = DRIVELMM_O1_FIRST_CAPTURE + number * DRIVELMM_O1_CAPTURE_STEP
        log = "n015-" + captured.strftime("%Y-%m-%d-%H-%M-%S") + "+0800"
        objects = tuple(
            demo.SceneObject(
                category,
                rng.choice(list(demo.PALETTE)),
                round(rng.uniform(-DRIVELMM_O1_RANGE_M, DRIVELMM_O1_RANGE_M), 1),
                round(rng.uniform(-DRIVELMM_O1_RANGE_M / 2, DRIVELMM_O1_RANGE_M / 2), 1),
                round(rng.uniform(-180.0, 180.0), 1),
            )
            for category in rng.choices(
                [c for c, *_ in SURDS_CATEGORIES],
                [w for *_, w in SURDS_CATEGORIES],
                k=rng.randint(*DRIVELMM_O1_OBJECTS),
            )
        )
        context = "**Frame context**: {} annotated objects are around the ego vehicle in log {} (question {})."
        questions = tuple(
            replace(qa, number=q, steps=(*qa.steps, context.format(len(objects), log, q)))
            for q in range(1, (9 if number in longer else 8) + 1)
            for qa in [rng.choice(pool[q in demo.MCQ_NUMBERS])]
        )
        lidar_us = int(captured.timestamp() * 1_000_000) + number * DRIVELMM_O1_LIDAR_US_STEP
        frames.append(demo.Frame(log, lidar_us, objects, questions))
    return frames


def drivelmm_o1_records(frames: Iterable[demo.Frame]) -> list[dict[str, object]]:
    """`DriveLMMo1_TEST.json` records, as the demo generator writes them."""
    return [
        {
            "idx": f"{frame.token('scene')}_{frame.token('sample')}_{qa.number}",
            "image": [frame.camera_path(camera) for camera in demo.CAMERAS],
            "question": qa.question,
            "final_answer": qa.final_answer,
            "steps": demo.render_steps(qa.steps),
            "lidar": frame.lidar_path,
        }
        for frame in frames
        for qa in frame.qas
    ]


def _render_drivelmm_o1_frame(item: tuple[Path, int, demo.Frame]) -> None:
    root, seed, frame = item
    rng = random.Random(f"bench-o1:{frame.log}")
    for camera in demo.CAMERAS:
        path = root / frame.camera_path(camera)
        if not path.exists():
            temporary = path.with_suffix(".tmp")
            add_sensor_noise(demo.render_camera(frame, camera), rng).save(temporary, "JPEG", quality=JPEG_QUALITY)
            temporary.rename(path)
    lidar = root / frame.lidar_path
    if not lidar.exists():
        lidar.write_bytes(demo.lidar_points(frame, seed).tobytes())


def ensure_drivelmm(base: Path | None = None, frames: int = DRIVELMM_O1_FRAMES) -> DriveLMMLayout:
    """The full-size DriveLMM-o1 test file and nuScenes root, generated if missing.

    `frames` below 539 gives the first frames of the same data (the same images, at full resolution, and the same
    questions) in a directory of its own: enough for a per-request measurement, in a fraction of the 26-30 minutes
    of CPU the whole set takes to generate.
    """
    if not 1 <= frames <= DRIVELMM_O1_FRAMES:
        raise ValueError(f"frames={frames}: must be 1-{DRIVELMM_O1_FRAMES}")
    root = (base or bench_dir()) / ("drivelmm_o1" if frames == DRIVELMM_O1_FRAMES else f"drivelmm_o1-{frames}-frames")
    layout = DriveLMMLayout(root / "DriveLMMo1_TEST.json", root / "nuscenes")
    if _is_complete(root, DRIVELMM_O1_VERSION):
        return layout
    print(f"Generating full-size DriveLMM-o1 data in {root} ({frames} frames x 6 JPEG views, {workers()} processes)")
    selected = drivelmm_o1_frames()[
        :frames
    ]  # the generator draws frame by frame: a prefix is the full set's first frames
    for folder in (*demo.CAMERAS, "LIDAR_TOP"):
        (layout.nuscenes_root / "samples" / folder).mkdir(parents=True, exist_ok=True)
    items = [(layout.nuscenes_root, DRIVELMM_O1_SEED + n, frame) for n, frame in enumerate(selected)]
    _run_parallel(_render_drivelmm_o1_frame, items, "DriveLMM-o1 frames")
    text = json.dumps(drivelmm_o1_records(selected), indent=4, ensure_ascii=False) + "\n"
    layout.test_file.write_text(text, encoding="utf-8")
    (root / COMPLETE_MARKER).write_text(str(DRIVELMM_O1_VERSION))
    return layout


def describe(paths: Iterable[Path]) -> str:
    """Count and size statistics of image files, for the generator's report."""
    sizes = sorted(path.stat().st_size for path in paths)
    if not sizes:
        return "no files"
    mean = sum(sizes) / len(sizes)
    low, high = sizes[len(sizes) // 20], sizes[math.ceil(len(sizes) * 0.95) - 1]
    return (
        f"{len(sizes)} files, {sum(sizes) / 2**20:.0f} MiB, {mean / 1024:.0f} KB mean "
        f"(5th-95th percentile {low / 1024:.0f}-{high / 1024:.0f} KB)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--dir", type=Path, default=None, help=f"output directory (default {bench_dir()})")
    parser.add_argument(
        "--drivelmm-o1-frames",
        type=int,
        default=DRIVELMM_O1_FRAMES,
        help=f"DriveLMM-o1: only the first N frames (default {DRIVELMM_O1_FRAMES})",
    )
    args = parser.parse_args()
    surds = ensure_surds(args.dir)
    print("SURDS:", describe((surds / "validation" / "image").rglob("*.webp")))
    o1 = ensure_drivelmm(args.dir, args.drivelmm_o1_frames)
    print("DriveLMM-o1:", describe((o1.nuscenes_root / "samples").rglob("*.jpg")))


if __name__ == "__main__":
    main()
