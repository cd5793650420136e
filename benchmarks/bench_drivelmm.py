"""DriveLMM-o1 on the full-size data: grid building (cold and warm cache, serial and parallel) and a full run.

Grid building stitches the six 1600x900 views of each of the 539 frames into the 2x3 grid and caches it; a cold
cache builds all of them, a warm cache only checks them. The warm figure also covers the whole image preparation a
task does (`frame_images`: cache keys from `stat`, one image part per frame). The full run sends every question
to the instant fake server with the judge (the `grader` role) answered instantly by the same server.

Run: `python benchmarks/bench_drivelmm.py [--connections N] [--skip-run]`.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from common import INSPECT_CACHE_ENV, MIB, measure, report, table
from fullsize_data import DriveLMMLayout, ensure_drivelmm
from instant_server import InstantServer, marks_text, memory_marks

from drive_evals.drivelmm_o1.dataset import ImageOptions, check_files, frame_images
from drive_evals.drivelmm_o1.images import build_grids
from drive_evals.drivelmm_o1.records import DriveLMMRecord, load_records

CONNECTIONS = 16
WARM_TARGET_SECONDS = 1.0
CACHE_ENV = "DRIVE_EVALS_CACHE"
REQUESTS_PER_SAMPLE = 2
"""The model's answer and one judge call."""
T = TypeVar("T")


def frame_views(layout: DriveLMMLayout) -> tuple[list[DriveLMMRecord], dict[str, Path], dict[str, list[Path]]]:
    """The records, their resolved camera files, and each frame's six views in grid order (the grids' input)."""
    records = load_records(layout.test_file)
    paths = check_files(records, layout.nuscenes_root, lidar=False)
    return records, paths, {r.frame: [paths[p] for p in r.images] for r in records}


def timed(action: Callable[[], T]) -> tuple[T, float, float]:
    """(result, wall seconds, CPU seconds of this process, all threads)."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = action()
    return result, time.perf_counter() - wall, time.process_time() - cpu


def grid_rows(layout: DriveLMMLayout, cache: Path) -> tuple[list[list[object]], float]:
    """Cold and warm grid building, serial and parallel; returns the rows and the warm preparation time."""
    records, paths, frames = frame_views(layout)
    rows: list[list[object]] = []
    cores = os.cpu_count() or 1
    for label, workers in (("serial", 1), (f"parallel ({cores} threads)", cores)):
        target = cache / f"grids-{workers}"
        grids, cold_wall, cold_cpu = timed(lambda: build_grids(frames, target, workers=workers))  # noqa: B023
        _, warm_wall, _ = timed(lambda: build_grids(frames, target, workers=workers))  # noqa: B023
        sizes = [path.stat().st_size for path in set(grids.values())]
        rows.append(
            [
                label,
                f"{cold_wall:.1f} s ({cold_wall / len(frames) * 1000:.0f} ms/frame)",
                f"{cold_cpu:.1f} s",
                f"{warm_wall * 1000:.0f} ms",
                f"{sum(sizes) / len(sizes) / 1024:.0f} KB",
            ]
        )
    os.environ[CACHE_ENV] = str(cache)
    shutil.copytree(cache / f"grids-{cores}", cache / "grids", dirs_exist_ok=True)
    _, prepare_wall, _ = timed(lambda: frame_images(records, paths, ImageOptions()))
    return rows, prepare_wall


def full_run(layout: DriveLMMLayout, cache: Path, work: Path, connections: int) -> tuple[list[object], int, str]:
    """The whole benchmark through `inspect eval`, model and judge both answered by the instant server."""
    with InstantServer() as server:
        command = [
            sys.executable,
            "-m",
            "inspect_ai",
            "eval",
            "drive_evals/drivelmm_o1",
            "--model",
            "openai-api/fake/bench-model",
            "--model-role",
            "grader=openai-api/fake/bench-judge",
            "-T",
            f"data={layout.test_file}",
            "-T",
            f"nuscenes_root={layout.nuscenes_root}",
            "--max-connections",
            str(connections),
            "--log-dir",
            str(work / "logs"),
            "--display",
            "plain",
        ]
        environment = {**server.client_env(), CACHE_ENV: str(cache), INSPECT_CACHE_ENV: str(work / "inspect-cache")}
        samples = len(load_records(layout.test_file))
        marks = memory_marks(server, 0, samples * REQUESTS_PER_SAMPLE)
        result = measure(command, env=environment, cwd=work, mark=marks)
        served = server.received
    if result.returncode != 0:
        raise RuntimeError(f"inspect eval failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    log = next((work / "logs").glob("*.eval"))
    row: list[object] = [
        f"{result.wall_s:.0f} s",
        f"{result.cpu_s:.0f} s",
        f"{result.cpu_s / samples * 1000:.1f} ms",
        f"{result.peak_rss_mib:.0f} MiB",
        f"{log.stat().st_size / MIB:.0f} MiB ({log.stat().st_size / samples / 1024:.0f} KB/sample)",
        served,
    ]
    return row, samples, marks_text(result.marks)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--connections", type=int, default=CONNECTIONS, help=f"concurrency (default {CONNECTIONS})")
    parser.add_argument("--skip-run", action="store_true", help="grid building only")
    args = parser.parse_args()
    layout = ensure_drivelmm()
    work = Path(tempfile.mkdtemp(prefix="drivelmm-bench-"))
    try:
        cache = work / "cache"
        rows, prepare = grid_rows(layout, cache)
        body = table(["grid building, 539 frames", "cold cache", "cold CPU", "warm cache", "grid size"], rows)
        notes = [
            f"- warm-cache image preparation for all frames (`frame_images`): **{prepare * 1000:.0f} ms** "
            f"(target under {WARM_TARGET_SECONDS:g} s: **{'met' if prepare < WARM_TARGET_SECONDS else 'MISSED'}**)."
        ]
        if not args.skip_run:
            run_work = work / "run"
            run_work.mkdir()
            row, samples, marks = full_run(layout, cache, run_work, args.connections)
            header = ["full run (warm grids)", "wall", "CPU", "CPU per sample", "peak RSS", "log", "requests"]
            body += "\n\n" + table(header, [[f"{samples} samples, model + judge", *row]])
            notes.append(
                f"- {args.connections} concurrent connections; model and judge answered at once by the fake server "
                "(in the benchmark's process); grids already cached. Peak RSS when 10% / 50% / 100% of the requests "
                f"were served: {marks}."
            )
        command = "python benchmarks/bench_drivelmm.py" + (" --skip-run" if args.skip_run else "")
        report("DriveLMM-o1 images and full run", command, body, notes)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
