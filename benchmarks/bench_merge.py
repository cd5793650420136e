"""The merge at the end of `drive-evals run`: `drive-evals merge-shards` on the two shard logs of a 2,490-sample run.

The shard logs are those of a real run, made once and kept: SURDS subsets depth, distance and yaw on the full-size
data, the first 1,245 units of each shard (2,490 units), as `drive-evals run --processes 2 --no-log-realtime
--no-log-images` against the instant fake server. Measured, each in a fresh process, `--repeats` times: the command
as a user runs it (wall and CPU, start-up included) and the merge alone in a process that has already imported it;
once, the earlier merge that read and wrote every sample through Inspect (tests/merge_reference.py), for the ratio.
Target: under 3 s.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import zipfile
from pathlib import Path

from bench_surds_run import MODEL
from common import INSPECT_CACHE_ENV, measure, report, table
from fullsize_data import bench_dir, ensure_surds
from instant_server import InstantServer

from drive_evals.cli import eval_zip

REPO_ROOT = Path(__file__).resolve().parents[1]
SUBSETS = "depth,distance,yaw"
UNITS = 2490
PROCESSES = 2
TARGET_S = 3.0
LOGS_VERSION = 1
"""Bump when the shard logs must be made again (a change of what a SURDS sample logs)."""
TIMED_MERGE = """
import sys, time
sys.path.insert(0, {tests!r})
from {module} import {function}
started, cpu = time.perf_counter(), time.process_time()
{function}(sys.argv[2:], sys.argv[1])
print(time.perf_counter() - started, time.process_time() - cpu)
"""
"""The merge alone, timed after its imports: `python -c TIMED_MERGE OUT SHARD...`."""


def shard_logs() -> list[Path]:
    """The shard logs of the 2,490-sample run, made on first use (about 2 minutes of CPU)."""
    run_dir = bench_dir() / f"merge-shards-v{LOGS_VERSION}"
    logs = sorted(run_dir.glob(f"merged.shards/shard-*-of-{PROCESSES}/*.eval"))
    if len(logs) == PROCESSES:
        return logs
    root = ensure_surds()
    print(f"Running SURDS {SUBSETS} as {PROCESSES} shards into {run_dir} (once)", flush=True)
    command = [sys.executable, "-m", "drive_evals.cli", "run", "drive_evals/surds", "--processes", str(PROCESSES)]
    command += ["--log-dir", str(run_dir), "--model", f"openai-api/fake/{MODEL}", "-T", f"data={root}"]
    command += ["-T", f"subsets={SUBSETS}", "--limit", str(UNITS), "--max-connections", "64"]
    command += ["--no-log-realtime", "--no-log-images"]
    with InstantServer() as server, tempfile.TemporaryDirectory() as cache:
        result = measure(command, env={**server.client_env(), INSPECT_CACHE_ENV: cache})
    if result.returncode != 0:
        raise RuntimeError(f"the shard run failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return sorted(run_dir.glob(f"merged.shards/shard-*-of-{PROCESSES}/*.eval"))


def timed_merge(module: str, function: str, out: Path, logs: list[Path]) -> tuple[float, float]:
    """(wall, CPU) seconds of the merge alone, in a fresh process that has imported it."""
    code = TIMED_MERGE.format(tests=str(REPO_ROOT / "tests"), module=module, function=function)
    result = measure([sys.executable, "-c", code, str(out), *map(str, logs)])
    if result.returncode != 0:
        raise RuntimeError(f"{module}.{function} failed:\n{result.stderr[-3000:]}")
    wall, cpu = result.stdout.split()[-2:]
    return float(wall), float(cpu)


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} s ({min(values):.2f}-{max(values):.2f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--repeats", type=int, default=3, help="runs of each new-merge measurement (median, range)")
    parser.add_argument("--no-reference", action="store_true", help="skip the earlier merge (about 30 s)")
    args = parser.parse_args()
    logs = shard_logs()
    load_before = " ".join(f"{x:.1f}" for x in os.getloadavg())
    samples = sum(1 for _ in _sample_names(logs))
    with tempfile.TemporaryDirectory() as work:
        out = Path(work) / "merged.eval"
        command = [sys.executable, "-m", "drive_evals.cli", "merge-shards", *map(str, logs), "--out", str(out)]
        whole = [measure(command) for _ in range(args.repeats)]
        if any(run.returncode for run in whole):
            raise RuntimeError(f"merge-shards failed:\n{whole[0].stderr[-3000:]}")
        alone = [timed_merge("drive_evals.cli.merge", "merge_shards", out, logs) for _ in range(args.repeats)]
        reference = None if args.no_reference else timed_merge("merge_reference", "reference_merge", out, logs)
    rows = [
        [
            "`drive-evals merge-shards` (start-up included)",
            spread([r.wall_s for r in whole]),
            spread([r.cpu_s for r in whole]),
        ],
        ["the merge alone (after its imports)", spread([a[0] for a in alone]), spread([a[1] for a in alone])],
    ]
    if reference:
        rows.append(
            [
                "the earlier merge alone, through Inspect's reading and writing of every sample",
                f"{reference[0]:.2f} s",
                f"{reference[1]:.2f} s",
            ]
        )
    body = table(["merge of 2 shards", "wall", "CPU"], rows)
    verdict = "met" if statistics.median(r.wall_s for r in whole) < TARGET_S else "missed"
    notes = [
        f"- {samples:,} samples (SURDS {SUBSETS}, full-size data, `--no-log-realtime --no-log-images`) in "
        f"{PROCESSES} shard logs of {sum(log.stat().st_size for log in logs) / 2**20:.1f} MiB; median of "
        f"{args.repeats} fresh processes (range); target under {TARGET_S:g} s for the command: **{verdict}**.",
        f"- load average before / after: {load_before} / {' '.join(f'{x:.1f}' for x in os.getloadavg())}.",
    ]
    if reference:
        ratio = reference[0] / statistics.median(a[0] for a in alone)
        notes.append(f"- the merge alone is {ratio:.0f}x faster than the earlier one in this run.")
    report("Merging shard logs", " ".join(["python", *sys.argv]), body, notes)


def _sample_names(logs: list[Path]) -> list[str]:
    names: list[str] = []
    for log in logs:
        with zipfile.ZipFile(log) as archive:
            names.extend(eval_zip.sample_members(archive))
    return names


if __name__ == "__main__":
    main()
